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
