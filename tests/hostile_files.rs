//! Regression tests for hostile files that concern the agent's own
//! files: special files (FIFO, /dev/zero) must not hang or exhaust memory,
//! a byte-order mark is skipped, a failed write leaves no temporary file,
//! and messages carry no Rust debug text.

mod common;

use common::{mkfifo, run, scratch, temp_files};
use std::time::Duration;

const EMPTY_6X7: &str = "CONNECTSQUARE\nSINGLE\nR\n0.2\n6 7\n.......\n.......\n.......\n.......\n.......\n.......\n";
/// Enough for any of these runs on a loaded machine; a hang goes far past it.
const WALL: Duration = Duration::from_secs(30);

#[test]
fn input_txt_as_a_fifo_or_dev_zero_is_refused_at_once() {
    let d = scratch("fifo-input");
    mkfifo(&d.join("input.txt"));
    let r = run(&d, &[], WALL);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("input.txt") && r.stderr.contains("not a regular file"),
        "{}",
        r.stderr
    );
    assert!(!d.join("output.txt").exists());
    std::fs::remove_file(d.join("input.txt")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("input.txt")).unwrap();
    let r = run(&d, &[], WALL);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    assert!(!d.join("output.txt").exists());
}

#[test]
fn playdata_and_calibration_as_fifos_are_ignored() {
    let d = scratch("fifo-hints");
    std::fs::write(d.join("input.txt"), EMPTY_6X7.replace("SINGLE", "GAME")).unwrap();
    mkfifo(&d.join("playdata.txt"));
    mkfifo(&d.join("calibration.txt"));
    let r = run(&d, &["-v"], WALL);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(std::fs::read_to_string(d.join("output.txt")).is_ok());
    for f in ["playdata.txt", "calibration.txt"] {
        assert!(
            r.stderr.lines().any(|l| l.contains("ignoring") && l.contains(f)),
            "-v should note that {f} was ignored: {}",
            r.stderr
        );
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let d = scratch("bom");
    std::fs::write(d.join("input.txt"), format!("\u{feff}{EMPTY_6X7}")).unwrap();
    let r = run(&d, &[], WALL);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = std::fs::read_to_string(d.join("output.txt")).unwrap();
    assert!(out.trim().parse::<u32>().is_ok_and(|c| c < 7), "{out:?}");
}

#[test]
fn a_failed_write_leaves_no_temporary_file() {
    let d = scratch("write-fails");
    std::fs::write(d.join("input.txt"), EMPTY_6X7).unwrap();
    // output.txt is a non-empty directory: the rename onto it fails.
    std::fs::create_dir_all(d.join("output.txt/keep")).unwrap();
    let r = run(&d, &[], WALL);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot write"), "{}", r.stderr);
    assert_eq!(temp_files(&d), Vec::<String>::new());
}

#[test]
fn a_failed_playdata_write_leaves_no_temporary_file_and_still_moves() {
    let d = scratch("playdata-fails");
    std::fs::write(d.join("input.txt"), EMPTY_6X7.replace("SINGLE", "GAME")).unwrap();
    // playdata.txt is a non-empty directory: reading it is skipped as a
    // hint, and the rename of .playdata.txt.tmpPID onto it fails.
    std::fs::create_dir_all(d.join("playdata.txt/keep")).unwrap();
    let r = run(&d, &["-v"], WALL);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("could not write playdata.txt"), "{}", r.stderr);
    let out = std::fs::read_to_string(d.join("output.txt")).unwrap();
    assert!(out.trim().parse::<u32>().is_ok_and(|c| c < 7), "{out:?}");
    assert_eq!(temp_files(&d), Vec::<String>::new());
}

#[test]
fn messages_and_the_verbose_log_carry_no_debug_text() {
    let d = scratch("words");
    // R has completed a 2x2 square: the game is over.
    let over = "CONNECTSQUARE\nSINGLE\nY\n1.0\n6 7\n.......\n.......\n.......\n.......\nRR.....\nRRYYY..\n";
    std::fs::write(d.join("input.txt"), over).unwrap();
    let r = run(&d, &[], WALL);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("already over") && r.stderr.contains("R has won"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("Some(") && !r.stderr.contains("None"),
        "{}",
        r.stderr
    );
    // A full board without a square: over as a draw (once "(None)").
    std::fs::write(d.join("input.txt"), "CONNECTSQUARE\nSINGLE\nR\n1.0\n2 2\nRY\nYR\n").unwrap();
    let r = run(&d, &[], WALL);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("already over") && r.stderr.contains("without a winner"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("None"), "{}", r.stderr);
    assert!(!d.join("output.txt").exists());
    std::fs::write(d.join("input.txt"), EMPTY_6X7).unwrap();
    let r = run(&d, &["-v"], WALL);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for debug in ["Budget", "Limits {", "Some(", " soft: "] {
        assert!(
            !r.stderr.contains(debug),
            "-v shows Rust debug text {debug:?}: {}",
            r.stderr
        );
    }
    assert!(r.stderr.contains("planned"), "{}", r.stderr);
}

#[test]
fn messages_number_rows_and_columns_from_zero() {
    // One convention (README "Messages"): lines 1-based, rows and columns
    // 0-based as the move formats write them. A bad symbol at the second
    // cell of a row is column 1 in every game (Halma once said column 2).
    let halma_rows: Vec<String> = (0..16)
        .map(|y| {
            if y == 15 {
                format!(".Z{}", ".".repeat(14))
            } else {
                ".".repeat(16)
            }
        })
        .collect();
    let cases = [
        (
            "HINGER\nSINGLE\n1\n1.0\n2 2\n1 x\n1 1\n".to_string(),
            "line 6: ",
            "row 0, column 1",
        ),
        (
            "CONNECTSQUARE\nSINGLE\nR\n1.0\n2 2\n.x\n..\n".to_string(),
            "line 6: ",
            "row 0 column 1",
        ),
        (
            "HASHI\nSINGLE\n1\n1.0\n0 0\n3\n1x1\n...\n1.1\n".to_string(),
            "line 7: ",
            "row 0 column 1",
        ),
        (
            format!("SINGLE\nBLACK\n1.0\n{}\n", halma_rows.join("\n")),
            "line 19: ",
            "cell 1,15 (board row 15, column 1)",
        ),
    ];
    for (i, (input, line, place)) in cases.iter().enumerate() {
        let d = scratch(&format!("numbering-{i}"));
        std::fs::write(d.join("input.txt"), input).unwrap();
        let r = run(&d, &[], WALL);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains(line) && r.stderr.contains(place),
            "{place:?}: {}",
            r.stderr
        );
        assert!(!d.join("output.txt").exists());
    }
}
