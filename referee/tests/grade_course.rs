//! `referee grade` where a course already grades: Gradescope's
//! `run_autograder` on a working, a broken and a hostile submission laid
//! out as Gradescope lays them; copies found by their code and their play;
//! a course's own Python (a venv with numpy) named in the plan; and the
//! class report read in Chromium at 390 and 1280 px.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::Scratch;

const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn write(p: &Path, bytes: &[u8], mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Our agent, stripped, as a student hands in a prebuilt program.
fn agent_bytes(base: &Path) -> Vec<u8> {
    let to = base.join("agent-copy");
    std::fs::copy(common::repo().join("target/release/agent"), &to).unwrap();
    let _ = Command::new("strip").arg(&to).status();
    std::fs::read(&to).unwrap()
}

/// A small plan: 2 single moves, 1 game, 2 s clocks; `extra` TOML after.
fn plan(dir: &Path, extra: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("plan.toml");
    let text = format!(
        "game = \"halma\"\nseed = 11\n[singles]\ncount = 2\npoints = 1\nbudget = 2.0\n\
         [games]\ncount = 1\nopened = 1\npoints = 10\nclock = [2.0, 2.0]\n\
         opponent = \"{{agent}} --strategy minimax --depth 1\"\nmax_plies = 40\ndraw = \"nobody\"\n{extra}"
    );
    std::fs::write(&p, text).unwrap();
    p
}

fn grade(class: &Path, out: &Path, plan: &Path) -> Output {
    Command::new(REFEREE)
        .args(["grade", "--concurrency", "2", "--plan"])
        .arg(plan)
        .arg("--out")
        .arg(out)
        .arg(class)
        .output()
        .unwrap()
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A file of a submission: name, bytes, mode.
type File = (&'static str, Vec<u8>, u32);

/// Gradescope's documented keys and types.
fn check_results(r: &serde_json::Value) {
    assert!(r["score"].is_number(), "{r}");
    let tests = r["tests"].as_array().unwrap_or_else(|| panic!("no tests: {r}"));
    assert!(!tests.is_empty(), "{r}");
    for t in tests {
        assert!(t["score"].is_number() && t["max_score"].is_number(), "{t}");
        assert!(t["name"].is_string() && t["output"].is_string(), "{t}");
        let v = t["visibility"].as_str().unwrap_or_default();
        assert!(
            ["hidden", "after_due_date", "after_published", "visible"].contains(&v),
            "{t}"
        );
    }
    for e in r["leaderboard"].as_array().into_iter().flatten() {
        assert!(e["name"].is_string() && e["value"].is_number(), "{e}");
    }
}

#[test]
fn run_autograder_writes_gradescopes_results_for_working_broken_and_hostile_submissions() {
    let t = Scratch(std::env::temp_dir().join(format!("referee-gradescope-{}", std::process::id())));
    std::fs::create_dir_all(&t.0).unwrap();
    let agent = agent_bytes(&t.0);
    let script = common::repo().join("scripts/gradescope/run_autograder");
    let extra = "[gradescope]\ngames = \"after_published\"\nleaderboard = true\n[ladder]\ngames = 1\nclock = 1.0\n";
    let kinds: [(&str, Vec<File>); 3] = [
        (
            "working",
            vec![
                ("agent", agent.clone(), 0o700),
                ("run", b"./agent --strategy greedy\n".to_vec(), 0o644),
            ],
        ),
        ("broken", vec![("homework.cpp", b"int main( {\n".to_vec(), 0o644)]),
        (
            "hostile",
            vec![("run", b"cat ../source/plan.toml /etc/shadow\n".to_vec(), 0o644)],
        ),
    ];
    for (kind, files) in kinds {
        let root = t.0.join(kind);
        let p = plan(&root.join("source"), extra);
        assert!(p.exists());
        for (name, bytes, mode) in files {
            write(&root.join("submission").join(name), &bytes, mode);
        }
        if kind == "hostile" {
            std::os::unix::fs::symlink("/etc/passwd", root.join("submission/homework.py")).unwrap();
        }
        let o = Command::new("bash")
            .arg(&script)
            .env("AUTOGRADER_ROOT", &root)
            .env("REFEREE", REFEREE)
            .output()
            .unwrap();
        assert!(o.status.success(), "{kind}: {}", text(&o));
        let r = json(&root.join("results/results.json"));
        check_results(&r);
        let score = r["score"].as_f64().unwrap();
        let all = r.to_string();
        match kind {
            "working" => {
                assert!(score > 0.0, "{r}");
                assert_eq!(r["leaderboard"][0]["name"], "Strength ladder level", "{r}");
                let game = r["tests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|t| t["name"] == "game 01")
                    .unwrap();
                assert_eq!(game["visibility"], "after_published", "{r}");
            }
            "broken" => {
                assert_eq!(score, 0.0, "{r}");
                assert!(all.contains("the build failed"), "{r}");
            }
            _ => {
                assert_eq!(score, 0.0, "{r}");
                assert!(all.contains("outside its folder"), "{r}");
                assert!(!all.contains("root:"), "a system file leaked: {r}");
            }
        }
    }
}

/// A class of six: three copies of one program (one renamed, its comments
/// and spacing changed), a different program that plays the same single
/// moves but other games, one that does not build and one that crashes.
fn course_class(class: &Path, agent: &[u8]) {
    let put = |who: &str, run: &str| {
        write(&class.join(who).join("agent"), agent, 0o755);
        write(&class.join(who).join("run"), run.as_bytes(), 0o644);
    };
    put("orig", "./agent --strategy greedy\n");
    put("twin", "./agent --strategy greedy\n");
    put(
        "zz-renamed",
        "# my own agent, written alone\n./agent   --strategy   greedy\n",
    );
    put("other", "sh pick.sh\n");
    let pick = "grep -q SINGLE input.txt && exec ./agent --strategy greedy\nexec ./agent --strategy random --seed 3\n";
    write(&class.join("other/pick.sh"), pick.as_bytes(), 0o644);
    write(&class.join("broken/homework.c"), b"int main( {\n", 0o644);
    write(&class.join("crasher/run"), b"sh crash.sh\n", 0o644);
    write(
        &class.join("crasher/crash.sh"),
        b"echo 'it went wrong' >&2\nexit 3\n",
        0o644,
    );
}

#[test]
fn copies_are_found_and_the_report_reads_at_390_and_1280_px() {
    let t = Scratch(std::env::temp_dir().join(format!("referee-course-{}", std::process::id())));
    std::fs::create_dir_all(&t.0).unwrap();
    let class = t.0.join("class");
    course_class(&class, &agent_bytes(&t.0));
    let out = t.0.join("out");
    let o = grade(&class, &out, &plan(&t.0, ""));
    assert!(o.status.success(), "{}", text(&o));
    let j = json(&out.join("grades.json"));
    let copies = j["copies"].as_array().unwrap();
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert_eq!(
        copies[0]["students"],
        serde_json::json!(["orig", "twin", "zz-renamed"]),
        "{copies:?}"
    );
    let evidence = copies[0]["evidence"].to_string();
    assert!(
        evidence.contains("same code") && evidence.contains("same play"),
        "{evidence}"
    );
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(report.contains("The same program?") && report.contains("main reason"));
    let page = std::fs::read_to_string(out.join("students/crasher.html")).unwrap();
    assert!(page.contains("it went wrong"), "{page}");
    let Some(chrome) = common::chromium() else {
        common::browser_missing("the grading report's browser check");
        return;
    };
    for page in [
        "report.html",
        "students/crasher.html",
        "students/broken.html",
        "students/other.html",
    ] {
        for width in [390, 1280] {
            let dom = common::dom_at_width(&chrome, &out.join(page), width);
            let found = common::fits(&dom);
            assert!(
                found.starts_with("yes"),
                "{page} at {width} px scrolls sideways: {found}"
            );
        }
    }
    // Every lost test's reason is on its student's page.
    for s in j["students"].as_array().unwrap() {
        let page =
            std::fs::read_to_string(out.join(format!("students/{}.html", s["student"].as_str().unwrap()))).unwrap();
        for test in s["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["points"].as_u64() < t["max"].as_u64())
        {
            let reason = test["reason"].as_str().unwrap();
            let head: String = reason.chars().take(40).collect();
            assert!(
                page.contains(&html_escape(&head)),
                "{}: {head:?} not on the page",
                s["student"]
            );
        }
    }
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A Python venv with numpy, made with the system's Python (which the
/// sandbox shows); pip reaches PyPI.
fn numpy_venv(dir: &Path) -> PathBuf {
    let python = ["/usr/bin/python3", "python3"]
        .into_iter()
        .find(|p| {
            Command::new(p)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("a python3");
    let venv = dir.join("venv");
    let o = Command::new(python).args(["-m", "venv"]).arg(&venv).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let o = Command::new(venv.join("bin/pip"))
        .args(["install", "-q", "numpy"])
        .output()
        .unwrap();
    assert!(o.status.success(), "pip install numpy: {}", text(&o));
    venv
}

#[test]
fn a_plan_names_the_courses_python_and_a_missing_module_says_so() {
    if !common::full_or_skip("the course's Python") {
        return;
    }
    let t = Scratch(std::env::temp_dir().join(format!("referee-languages-{}", std::process::id())));
    std::fs::create_dir_all(&t.0).unwrap();
    let venv = numpy_venv(&t.0);
    let class = t.0.join("class");
    let template = std::fs::read_to_string(common::repo().join("samples/agents/python/halma_agent.py")).unwrap();
    let homework = format!("import numpy\nassert numpy.zeros(2).sum() == 0\n{template}");
    write(&class.join("np/homework.py"), homework.as_bytes(), 0o644);
    // The system's python3 has no numpy: the reason names the setting.
    let o = grade(&class, &t.0.join("plain"), &plan(&t.0.join("plain-plan"), ""));
    assert!(o.status.success(), "{}", text(&o));
    let plain = std::fs::read_to_string(t.0.join("plain/grades.json")).unwrap();
    assert!(plain.contains("[languages] python"), "{plain}");
    let langs = format!(
        "[languages]\npython = \"{}\"\nread_only = [\"{}\"]\n",
        venv.join("bin/python3").display(),
        venv.display()
    );
    let o = grade(&class, &t.0.join("venv-out"), &plan(&t.0.join("venv-plan"), &langs));
    assert!(o.status.success(), "{}", text(&o));
    let j = json(&t.0.join("venv-out/grades.json"));
    let single = j["students"][0]["single"].as_u64().unwrap();
    assert!(single > 0, "no single move scored with the venv: {j}");
    // A plan naming a program that is not there is refused before anything runs.
    let bad = plan(&t.0.join("bad-plan"), "[languages]\npython = \"/no/such/python3\"\n");
    let o = grade(&class, &t.0.join("bad-out"), &bad);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("languages.python"), "{}", text(&o));
}
