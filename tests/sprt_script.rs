//! `scripts/sprt.sh`: its syntax, and that it refuses bad arguments with a
//! message before building anything (a real run builds a revision and plays
//! games for many minutes, too long for a test).

use std::path::Path;
use std::process::Command;

fn script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/sprt.sh")
}

#[test]
fn sprt_script_parses() {
    let out = Command::new("bash").arg("-n").arg(script()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn sprt_script_refuses_bad_arguments_before_building() {
    let cases: [(&[&str], &str); 5] = [
        (&[], "scripts/sprt.sh BASE_REV [--new NEW_REV] [--time S]"),
        (&["no-such-revision-xyz"], "is not a commit"),
        (&["HEAD", "--time"], "--time needs a value"),
        (
            &["HEAD", "--new", "no-such-revision-xyz"],
            "no-such-revision-xyz is not a commit",
        ),
        (&["HEAD", "--bogus", "1"], "unknown option --bogus"),
    ];
    for (args, expected) in cases {
        let out = Command::new("bash").arg(script()).args(args).output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}: {text}");
        assert!(text.contains(expected), "{args:?}: expected {expected:?} in {text}");
        assert!(!text.contains("Compiling"), "{args:?} built something: {text}");
    }
}
