//! Tests of `protocol/mod.rs`.

use super::*;

#[test]
fn header_validates_time() {
    let mut l = Lines::new("HINGER\nGAME\n1\n-3\n");
    let e = parse_header(&mut l, "HINGER").unwrap_err();
    assert_eq!(e.line, 4);
    let mut l = Lines::new("HINGER\nGAME\n1\nabc\n");
    assert!(parse_header(&mut l, "HINGER").unwrap_err().message.contains("abc"));
    let mut l = Lines::new("HINGER\r\nSINGLE \r\n\r\n2\n30.5\n");
    let h = parse_header(&mut l, "HINGER").unwrap();
    assert_eq!(h.mode, Mode::Single);
    assert_eq!(h.side.text, "2");
    assert_eq!(h.remaining, 30.5);
}

#[test]
fn by_player_indexes_by_seat() {
    let mut b = ByPlayer::new(1, 2);
    assert_eq!((b[Player::One], b[Player::Two]), (1, 2));
    b[Player::Two.other()] += 10;
    assert_eq!(b.into_array(), [11, 2]);
    assert_eq!(*b.get(Player::Two), 2);
    let seats: Vec<(Player, i32)> = ByPlayer::from_fn(|p| p.index() as i32)
        .iter()
        .map(|(p, &v)| (p, v))
        .collect();
    assert_eq!(seats, vec![(Player::One, 0), (Player::Two, 1)]);
    assert_eq!(ByPlayer::from([3, 4]).map(|v| v * 2), ByPlayer::new(6, 8));
}

#[test]
fn time_format_round_trips() {
    for t in [100.0, 0.01, 12.3456, 0.001] {
        let s = format_time(t);
        assert!((s.parse::<f64>().unwrap() - t).abs() < 1e-3, "{t} -> {s}");
    }
    assert_eq!(format_time(100.0), "100.0");
}

use crate::scratch::scratch as temp_dir;

#[test]
fn bounded_read_refuses_special_files_and_skips_a_bom() {
    let dir = temp_dir("bounded");
    let p = dir.join("input.txt");
    // A FIFO without a writer would block a plain open forever.
    let fifo = rustix::fs::FileType::Fifo;
    rustix::fs::mknodat(rustix::fs::CWD, &p, fifo, rustix::fs::Mode::from_raw_mode(0o600), 0).unwrap();
    let e = read_bounded(&p).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
    std::fs::remove_file(&p).unwrap();
    // A symlink to an endless device.
    std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
    let e = read_bounded(&p).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
    std::fs::remove_file(&p).unwrap();
    // Too big.
    std::fs::write(&p, vec![b'1'; MAX_INPUT_BYTES as usize + 1]).unwrap();
    assert!(read_bounded(&p).unwrap_err().to_string().contains("larger than"));
    // A directory.
    assert!(read_bounded(&dir).unwrap_err().to_string().contains("directory"));
    // A byte-order mark is skipped; a missing file keeps NotFound.
    std::fs::write(&p, "\u{feff}SINGLE\n").unwrap();
    assert_eq!(read_bounded(&p).unwrap(), "SINGLE\n");
    let e = read_bounded(&dir.join("missing.txt")).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(e.to_string(), "no such file");
}

#[test]
fn time_is_never_written_as_zero_or_rounded_up() {
    assert_eq!(format_time(0.0004), "0.0004");
    assert_eq!(format_time(0.0015), "0.001");
    assert_eq!(format_time(0.29), "0.29");
    assert_eq!(format_time(29.9999), "29.999");
    assert_eq!(format_time(1e-12), "0.000000001");
    assert_eq!(format_time(0.0), "0.0");
    assert_eq!(format_time(-1.0), "0.0");
    // Huge but finite times (the hashi fuzzer's 2.7e117 hung here) are
    // whole seconds, never above the time left.
    for t in [1e9, 1e9 + 0.75, 4.5e15 + 0.5, 2.666e117, f64::MAX] {
        let s = format_time(t);
        let v: f64 = s.parse().unwrap();
        assert!(v <= t && t - v < 1.0 + t * f64::EPSILON, "{t} -> {s}");
        assert!(s.ends_with(".0"), "{t} -> {s}");
    }
    for i in 1..2000 {
        let t = i as f64 * 0.000_37;
        let s = format_time(t);
        let v: f64 = s.parse().unwrap();
        assert!(v > 0.0 && v <= t && t - v < 1e-3, "{t} -> {s}");
    }
}
