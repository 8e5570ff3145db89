use super::*;
use std::os::unix::fs::PermissionsExt;

/// A scratch class folder with one student `s`, and an empty snapshot.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("referee-intake-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("class/s")).unwrap();
        std::fs::create_dir_all(dir.join("snap")).unwrap();
        Scratch { dir }
    }
    fn student(&self) -> PathBuf {
        self.dir.join("class/s")
    }
    fn take(&self, caps: Caps) -> Result<Snapshot, String> {
        take_in(&self.dir.join("class"), OsStr::new("s"), &self.dir.join("snap"), caps)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const CAPS: Caps = Caps {
    bytes: 1 << 20,
    entries: 100,
};

#[test]
fn plain_names_are_their_own_ids_and_others_are_hashed_apart() {
    for plain in ["ann", "bob.smith", "s_01", "müller", "x-y"] {
        assert_eq!(id_of(OsStr::new(plain)), plain);
    }
    let odd: [&[u8]; 8] = [
        b"=1+1",
        b"+1+2",
        b"@SUM(A1)",
        b"mallory\rbob",
        b"ann-games",
        b"-rf",
        b".hidden",
        b"b\xffad",
    ];
    let mut ids: Vec<String> = odd.iter().map(|n| id_of(OsStr::from_bytes(n))).collect();
    for id in &ids {
        assert!(id.contains('~'), "{id}");
        assert!(id.chars().all(|c| c.is_alphanumeric() || "._-~".contains(c)), "{id}");
        assert!(!id.starts_with(['=', '+', '-', '@', '.']), "{id}");
    }
    assert_eq!(ids[4], format!("ann-games~{:08x}", fnv1a(b"ann-games") >> 32));
    let long = "a".repeat(250);
    let id = id_of(OsStr::new(&long));
    assert!(id.len() < 60, "{id}");
    ids.push(id);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 9, "ids are distinct");
}

#[test]
fn the_class_lists_folders_and_links_and_says_what_it_skips() {
    let s = Scratch::new("class");
    let class = s.dir.join("class");
    std::fs::create_dir(class.join(OsStr::from_bytes(b"b\xffad"))).unwrap();
    std::fs::create_dir(class.join(".git")).unwrap();
    std::fs::write(class.join("notes.txt"), "x").unwrap();
    std::os::unix::fs::symlink("/etc", class.join("linked")).unwrap();
    let (students, notes) = super::class(&class).unwrap();
    let ids: Vec<&str> = students.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    assert!(ids.contains(&"s") && ids.contains(&"linked"));
    assert!(
        notes.iter().any(|n| n.contains(".git") && n.contains("hidden")),
        "{notes:?}"
    );
    assert!(notes
        .iter()
        .any(|n| n.contains("notes.txt") && n.contains("not a folder")));
    assert!(notes.iter().any(|n| n.contains("graded as b_ad~")), "{notes:?}");
    // The link is a student, refused at its intake.
    let e = take_in(&class, OsStr::new("linked"), &s.dir.join("snap"), CAPS).unwrap_err();
    assert!(e.contains("is a link"), "{e}");
}

#[test]
fn files_keep_their_modes_and_the_folder_is_never_touched() {
    let s = Scratch::new("modes");
    let d = s.student();
    std::fs::write(d.join("homework"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(d.join("homework"), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(d.join("notes"), "n").unwrap();
    std::fs::set_permissions(d.join("notes"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::create_dir(d.join("closed")).unwrap();
    std::fs::write(d.join("closed/book"), "b").unwrap();
    std::fs::set_permissions(d.join("closed"), std::fs::Permissions::from_mode(0o500)).unwrap();
    std::os::unix::fs::symlink("closed/book", d.join("book")).unwrap();
    let before = std::fs::metadata(d.join("closed")).unwrap().permissions().mode();
    let snap = s.take(CAPS).unwrap();
    assert!(snap.left_out.is_empty(), "{:?}", snap.left_out);
    let out = s.dir.join("snap");
    let mode = |p: &str| std::fs::metadata(out.join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("homework"), 0o755);
    assert_eq!(mode("notes"), 0o644);
    assert_eq!(std::fs::read_to_string(out.join("book")).unwrap(), "b");
    assert!(std::fs::symlink_metadata(out.join("book"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::metadata(d.join("closed")).unwrap().permissions().mode(),
        before
    );
}

#[test]
fn links_out_of_the_folder_are_left_out_and_named() {
    let s = Scratch::new("links");
    let d = s.student();
    std::fs::write(s.dir.join("class/secret"), "TOKEN").unwrap();
    std::os::unix::fs::symlink(s.dir.join("class/secret"), d.join("run")).unwrap();
    std::os::unix::fs::symlink("../secret", d.join("homework.py")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", d.join("env")).unwrap();
    let snap = s.take(CAPS).unwrap();
    assert_eq!(snap.left_out.len(), 3, "{:?}", snap.left_out);
    assert!(snap
        .left_out
        .iter()
        .any(|l| l.starts_with("`homework.py` is a link to ../secret, outside")));
    assert_eq!(std::fs::read_dir(s.dir.join("snap")).unwrap().count(), 0);
}

#[test]
fn special_files_and_caps_refuse_the_submission_with_a_reason() {
    let s = Scratch::new("caps");
    let d = s.student();
    // A sparse file counts by its length.
    let f = std::fs::File::create(d.join("sparse")).unwrap();
    f.set_len(2 << 20).unwrap();
    let e = s.take(CAPS).unwrap_err();
    assert!(e.contains("more than 1.0 MiB") && e.contains("`sparse`"), "{e}");
    std::fs::remove_file(d.join("sparse")).unwrap();
    for i in 0..5 {
        std::fs::write(d.join(format!("f{i}")), "x").unwrap();
    }
    let e = s.take(Caps { entries: 3, ..CAPS }).unwrap_err();
    assert!(e.contains("more than 3 files and folders"), "{e}");
    for i in 0..5 {
        std::fs::remove_file(d.join(format!("f{i}"))).unwrap();
    }
    rustix::fs::mknodat(
        rustix::fs::CWD,
        d.join("pipe"),
        FileType::Fifo,
        Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let e = s.take(CAPS).unwrap_err();
    assert!(e.contains("a named pipe (FIFO) (`pipe`)"), "{e}");
}
