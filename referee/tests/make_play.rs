//! `make play`, the first command a new user runs, as the Makefile has it
//! (with a shorter clock) and as make echoes it (not `-s`): its whole
//! output, the recipes make prints included, fits 80 columns and about 200
//! lines (a full move a line, a long jump chain going on below in its
//! column, and the start and end boards), and it ends with the report's
//! absolute path.

use std::path::Path;
use std::process::Command;

#[test]
fn make_play_fits_80_columns_and_200_lines_and_ends_with_the_report() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    for bin in ["referee", "agent"] {
        let p = repo.join("target/release").join(bin);
        assert!(
            p.exists(),
            "{} is missing: build the workspace first (make test does)",
            p.display()
        );
    }
    let out = std::env::temp_dir().join(format!("referee-make-play-{}", std::process::id()));
    // CARGO=true: the binaries this test run built are the ones played.
    let o = Command::new("make")
        .current_dir(repo)
        .args(["--no-print-directory", "play", "CARGO=true", "PLAY_TIME=5"])
        .arg(format!("PLAY_OUT={}", out.display()))
        .output()
        .expect("make is installed");
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    let _ = std::fs::remove_dir_all(&out);
    assert!(o.status.success(), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= 200, "{} lines:\n{text}", lines.len());
    let wide: Vec<&&str> = lines.iter().filter(|l| l.chars().count() > 80).collect();
    assert!(wide.is_empty(), "lines wider than 80 columns: {wide:#?}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let last = stdout.lines().last().expect("some output");
    let report = last
        .strip_prefix("report: ")
        .unwrap_or_else(|| panic!("last line: {last}"));
    assert!(Path::new(report).is_absolute(), "{report}");
    assert!(report.ends_with(".html"), "{report}");
}
