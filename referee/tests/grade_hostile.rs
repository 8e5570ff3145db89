//! `referee grade` on a class that holds hostile and careless students
//! beside honest ones: one folder per way a submission has stopped,
//! misled or read through a grading. The grading must end with rc 0; each
//! honest student must score what they score in a class of honest students
//! alone; each hostile folder 0, with a reason naming what was wrong; no
//! secret of the organiser's and no other student's marker may reach
//! anything under `--out`; the class folder must be left as it was; a
//! killed and resumed grading must give the same sheet; and `grades.csv`
//! must read as one row per folder with no formula in it. As root at
//! `full`, then again as an ordinary user at `full-rootless`.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::Scratch;

const REFEREE: &str = env!("CARGO_BIN_EXE_referee");
/// What the organiser keeps to themselves (mode 0600, beside the class).
const SECRET: &str = "SECRET-TOKEN-4f1c9";

fn referee() -> String {
    common::binary("REFEREE_TEST_REFEREE", REFEREE)
}

/// Our agent, stripped: the honest students' prebuilt program.
fn agent_copy(base: &Path) -> PathBuf {
    let built = common::binary(
        "REFEREE_TEST_AGENT",
        &common::repo().join("target/release/agent").display().to_string(),
    );
    let to = base.join("agent");
    std::fs::copy(&built, &to).unwrap();
    let _ = Command::new("strip").arg(&to).status();
    to
}

fn write(dir: &Path, name: &str, bytes: &[u8], mode: u32) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn folder(class: &Path, name: &OsStr) -> PathBuf {
    let d = class.join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The honest students: an executable `homework` starting the folder's
/// prebuilt program (both of mode 0700, as handed in), and `run` files
/// starting one, each with a marker file no other student may ever see.
/// All play greedily: quick and the same in every run.
fn honest(class: &Path, agent: &[u8]) -> Vec<&'static str> {
    let names = ["ann", "bob", "ann-games"];
    let runs = [
        None,
        Some("./agent --strategy greedy"),
        Some("./bin/agent --strategy greedy"),
    ];
    for (name, run) in names.iter().zip(runs) {
        let d = folder(class, OsStr::new(name));
        match run {
            None => {
                write(&d, "agent", agent, 0o700);
                let script = "#!/bin/sh\nexec \"$(dirname \"$0\")/agent\" --strategy greedy\n";
                write(&d, "homework", script.as_bytes(), 0o700);
            }
            Some(line) => {
                write(&d, line.split_whitespace().next().unwrap(), agent, 0o755);
                write(&d, "run", format!("{line}\n").as_bytes(), 0o644);
            }
        }
        write(&d, "book.txt", format!("MARKER-{name}\n").as_bytes(), 0o644);
    }
    names.to_vec()
}

/// The hostile and careless folders, each with the words its reason must
/// hold. `base` holds the organiser's secret.
fn hostile(class: &Path, base: &Path) -> Vec<(Vec<u8>, &'static str)> {
    let secret = base.join("organiser/secret.txt");
    write(base, "organiser/secret.txt", format!("{SECRET}\n").as_bytes(), 0o600);
    let mut kinds: Vec<(Vec<u8>, &'static str)> = Vec::new();
    let mut add = |name: &[u8], says: &'static str| {
        kinds.push((name.to_vec(), says));
        folder(class, OsStr::from_bytes(name))
    };
    write(&add(b"run-nul", "NUL byte"), "run", b"./agent\0 --x\n", 0o644);
    write(
        &add(b"run-long-arg", "over 4096 bytes"),
        "run",
        &[b'a'; 200 << 10],
        0o644,
    );
    let d = add(b"run-zeros", "more than 24.0 MiB");
    std::fs::File::create(d.join("run")).unwrap().set_len(64 << 20).unwrap();
    std::os::unix::fs::symlink(
        "/proc/self/environ",
        add(b"run-environ", "`run` is a link to /proc/self/environ").join("run"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "/proc/kmsg",
        add(b"run-kmsg", "`run` is a link to /proc/kmsg").join("run"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, add(b"run-secret", "`run` is a link to").join("run")).unwrap();
    std::os::unix::fs::symlink(
        &secret,
        add(b"py-secret", "`homework.py` is a link to").join("homework.py"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "../ann/book.txt",
        add(b"py-copy", "`homework.py` is a link to ../ann").join("homework.py"),
    )
    .unwrap();
    more_hostile(class, base, &mut kinds);
    kinds
}

/// The hostile folders of sizes, special files, names and builds.
fn more_hostile(class: &Path, base: &Path, kinds: &mut Vec<(Vec<u8>, &'static str)>) {
    let secret = base.join("organiser/secret.txt");
    let mut add = |name: &[u8], says: &'static str| {
        kinds.push((name.to_vec(), says));
        folder(class, OsStr::from_bytes(name))
    };
    let d = add(b"sparse", "more than 24.0 MiB");
    std::fs::File::create(d.join("big")).unwrap().set_len(1 << 30).unwrap();
    write(&d, "homework.py", b"print()\n", 0o644);
    write(
        &add(b"peek-rel", "names ../ann/book.txt, outside its folder"),
        "run",
        b"cat ../ann/book.txt\n",
        0o644,
    );
    let abs = format!("cat {}\n", class.join("bob/book.txt").display());
    write(&add(b"peek-abs", "outside its folder"), "run", abs.as_bytes(), 0o644);
    // Named only inside a script: the sandbox must hide the class itself.
    let d = add(b"peek-script", "crash");
    write(&d, "run", b"sh peek.sh\n", 0o644);
    let script = format!(
        "cat {0}/bob/book.txt {0}/ann/book.txt {1} >&2; ls {0} >&2; exit 3\n",
        class.display(),
        secret.display()
    );
    write(&d, "peek.sh", script.as_bytes(), 0o644);
    let d = add(b"fifo", "a named pipe (FIFO)");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        d.join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let forged = "#error \"\x1b[2K\x1b[1Ggrade: [1/1] mallory: 22/22\"\n";
    write(
        &add(b"build-escape", "the build failed"),
        "homework.c",
        forged.as_bytes(),
        0o644,
    );
    // A build that writes far more than --disk.
    let hog = "char big[200 << 20] = {1};\nint main(void) { return big[7]; }\n";
    write(&add(b"build-hog", "build"), "homework.c", hog.as_bytes(), 0o644);
    write(
        &add(b"case", "rename it homework.py"),
        "Homework.py",
        b"print()\n",
        0o644,
    );
    for name in [
        &b"=1+1"[..],
        b"+1+2",
        b"@SUM(A1)",
        b"-2+3",
        b"mallory\rbob",
        b"b\xffad",
        &[b'x'; 250],
    ] {
        write(&add(name, "no entry point"), "notes.txt", b"", 0o644);
    }
    // A folder of mode 000, which the intake must not re-mode.
    let d = add(b"closed", "");
    write(&d, "homework.py", b"print()\n", 0o644);
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::os::unix::fs::symlink(base.join("organiser"), class.join("linked")).unwrap();
    kinds.push((b"linked".to_vec(), "is a link, not a folder"));
}

/// Every entry of the tree at `dir`: (path, mode, length), links as links.
fn tree(dir: &Path) -> BTreeMap<PathBuf, (u32, u64)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        // (A folder of mode 000 is listed, not entered, by an ordinary user.)
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            out.insert(e.path(), (m.permissions().mode(), m.len()));
            if m.is_dir() {
                todo.push(e.path());
            }
        }
    }
    out
}

/// Every byte of every regular file under `dir` (links not followed).
fn all_text(dir: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (p, _) in tree(dir) {
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.is_file() {
            bytes.extend(std::fs::read(&p).unwrap());
        }
    }
    bytes
}

/// The class's grading command: 2 single moves, 1 game, 2 s clocks.
fn grading(class: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(referee());
    c.args(["grade", "--singles", "2", "--games", "1", "--time", "2"])
        .args(["--concurrency", "2", "--disk", "24M", "--game", "halma", "--out"])
        .arg(out)
        .args(extra)
        .arg(class);
    c
}

fn grade(class: &Path, out: &Path, extra: &[&str]) -> Output {
    grading(class, out, extra).output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn json(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("grades.json")).unwrap()).unwrap()
}

/// Each student's id, total and reasons (every test's, joined).
fn students(out: &Path) -> BTreeMap<String, (u64, String)> {
    let j = json(out);
    j["students"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let tests = s["tests"].as_array().unwrap();
            let why: Vec<String> = tests
                .iter()
                .map(|t| {
                    format!(
                        "{}: {}",
                        t["verdict"].as_str().unwrap_or(""),
                        t["reason"].as_str().unwrap_or("")
                    )
                })
                .collect();
            (
                s["student"].as_str().unwrap().to_string(),
                (s["total"].as_u64().unwrap(), why.join(" | ")),
            )
        })
        .collect()
}

/// The rows of grades.csv as Python's csv module reads them.
fn csv_rows(out: &Path) -> Vec<Vec<String>> {
    let o = Command::new("python3")
        .args([
            "-c",
            "import csv,json,sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='')))))",
        ])
        .arg(out.join("grades.csv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn id_of(name: &[u8], ids: &BTreeMap<String, (u64, String)>) -> String {
    if let Some(plain) = std::str::from_utf8(name).ok().filter(|n| ids.contains_key(*n)) {
        return plain.to_string();
    }
    // Hashed: the name's plain characters (at most 40 bytes), then `~`.
    let lossy = String::from_utf8_lossy(name);
    let mut head = String::new();
    for c in lossy.chars() {
        if head.len() + c.len_utf8() > 40 {
            break;
        }
        let plain = (c.is_alphanumeric() || "._-".contains(c)) && !(head.is_empty() && ".-".contains(c));
        head.push(if plain { c } else { '_' });
    }
    let found: Vec<&String> = ids.keys().filter(|k| k.starts_with(&format!("{head}~"))).collect();
    assert_eq!(found.len(), 1, "{lossy:?} among {:?}", ids.keys());
    found[0].clone()
}

#[test]
fn a_hostile_class_is_graded_and_nothing_leaks_stops_or_forges() {
    if !common::full_or_skip("the hostile class") {
        return;
    }
    let t = Scratch(std::env::temp_dir().join(format!("referee-grade-hostile-{}", std::process::id())));
    std::fs::create_dir_all(&t.0).unwrap();
    std::fs::set_permissions(&t.0, std::fs::Permissions::from_mode(0o755)).unwrap();
    let agent = std::fs::read(agent_copy(&t.0)).unwrap();
    // The honest students alone: the totals they earn.
    let clean = t.0.join("clean");
    let names = honest(&clean, &agent);
    let o = grade(&clean, &t.0.join("clean-out"), &[]);
    assert!(o.status.success(), "{}", text(&o));
    let fair = students(&t.0.join("clean-out"));
    assert!(fair.values().all(|(total, _)| *total > 0), "{fair:?}");
    let class = t.0.join("class");
    honest(&class, &agent);
    let kinds = hostile(&class, &t.0);
    let before = tree(&class);
    let out = t.0.join("out");
    let o = grade(&class, &out, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        !o.stderr.contains(&0x1b),
        "an escape reached the terminal:\n{}",
        text(&o)
    );
    assert_eq!(tree(&class), before, "the class folder changed");
    let got = students(&out);
    for n in &names {
        let (mine, clean) = (id_of(n.as_bytes(), &got), id_of(n.as_bytes(), &fair));
        assert_eq!(got[&mine].0, fair[&clean].0, "{n}: {got:?}");
    }
    for (name, says) in &kinds {
        let id = id_of(name, &got);
        let (total, why) = &got[&id];
        assert_eq!(*total, 0, "{id}: {why}");
        assert!(why.contains(says), "{id}: expected {says:?} in {why:?}");
    }
    assert_eq!(got.len(), names.len() + kinds.len(), "{:?}", got.keys());
    // Nothing of the organiser's or another student's under --out.
    let everything = [all_text(&out), o.stderr.clone()].concat();
    let seen = |s: &str| everything.windows(s.len()).any(|w| w == s.as_bytes());
    assert!(!seen(SECRET), "the organiser's secret leaked");
    for n in &names {
        assert!(!seen(&format!("MARKER-{n}")), "{n}'s marker leaked");
    }
    // ann's replay is ann's, not ann-games' page.
    assert!(id_of(b"ann-games", &got).starts_with("ann-games~"));
    let replay = std::fs::read_to_string(out.join("students/ann-games.html")).unwrap();
    assert!(replay.contains("From games of ann:"), "ann's replay was replaced");
    // The sheet: one row per folder, no formula, readable by Python's csv.
    let rows = csv_rows(&out);
    assert_eq!(rows.len(), 1 + got.len(), "{rows:?}");
    for cell in rows.iter().flatten() {
        assert!(!cell.starts_with(['=', '+', '-', '@', '\t', '\r']), "{cell:?}");
    }
    let page = std::fs::read_to_string(out.join("students/case.html")).unwrap();
    assert!(page.contains("rename it homework.py"), "{page}");
    resumed_gives_the_same_sheet(&class, &t.0, &out);
    std::fs::set_permissions(class.join("closed"), std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The same class killed once its first tests are recorded and resumed:
/// the same sheet.
fn resumed_gives_the_same_sheet(class: &Path, base: &Path, whole: &Path) {
    let out = base.join("killed");
    let mut child = grading(class, &out, &[])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let results = out.join("records/results.jsonl");
    let t0 = std::time::Instant::now();
    while std::fs::read_to_string(&results).map_or(0, |r| r.lines().count()) < 20 && t0.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let o = grade(class, &out, &["--resume"]);
    assert!(o.status.success(), "{}", text(&o));
    let sheet = |d: &Path| {
        let mut rows = csv_rows(d);
        rows.sort();
        rows
    };
    assert_eq!(
        sheet(&out),
        sheet(whole),
        "a resumed grading gave another sheet: {:?}",
        students(&out)
            .into_iter()
            .filter(|(_, (t, _))| *t > 0)
            .collect::<Vec<_>>()
    );
}

/// The same class graded by an ordinary user, at `full-rootless`.
#[test]
fn the_hostile_class_fails_for_an_unprivileged_referee_too() {
    let agent = common::repo().join("target/release/agent");
    common::rerun_unprivileged(&[
        ("REFEREE_TEST_REFEREE", REFEREE),
        ("REFEREE_TEST_AGENT", agent.to_str().unwrap()),
    ]);
}
