//! Short versions of the long-run scripts: a soak of 200 games whose
//! referee must stay flat (memory, descriptors, cgroups, mounts, /tmp), and
//! five SIGKILLs of the referee in a tournament, resumed each time, that
//! must lose and double no game and leave nothing behind. The scripts
//! themselves (`scripts/soak.sh`, `scripts/chaos.sh`) run the long ones.

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn script(args: &[&str]) {
    let o = Command::new("bash").args(args).current_dir(repo()).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{args:?} failed:\n{out}\n{err}");
}

/// One test, so that the two runs do not see each other's processes and
/// temporary directories.
#[test]
fn a_short_soak_stays_flat_and_five_kills_lose_no_game() {
    script(&["scripts/soak.sh", "300", "50"]);
    script(&["scripts/chaos.sh", "5", "300"]);
}

#[test]
fn forfeits_keep_at_most_their_cap_of_directories_and_others_none() {
    let out = std::env::temp_dir().join(format!("referee-keep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mock = env!("MOCK_AGENT");
    let o = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args([
            "tournament",
            "--game",
            "testnim",
            "--size",
            "3",
            "--games",
            "4",
            "--time",
            "5",
        ])
        .args(["--no-preflight", "--keep-forfeits", "2", "--out"])
        .arg(&out)
        .arg(format!("good={mock} play"))
        .arg(format!("good2={mock} play"))
        .arg(format!("bad={mock} garbage"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = std::fs::read_dir(out.join("games")).unwrap().count();
    let recs = referee::output::record::load(&out.join("records.jsonl"), false).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(recs.len(), 12);
    assert_eq!(recs.iter().filter(|r| r.loss.is_some()).count(), 8);
    assert_eq!(kept, 2, "8 forfeits, 2 directories kept");
    let clean: Vec<_> = recs.iter().filter(|r| r.loss.is_none()).collect();
    assert_eq!(clean.len(), 4);
    for r in clean {
        assert!(
            r.dirs.iter().all(String::is_empty),
            "a deleted directory is named: {:?}",
            r.dirs
        );
    }
}
