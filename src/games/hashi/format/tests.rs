//! Tests of `games/hashi/format.rs`.

use super::*;
use crate::search::Game;

const SAMPLE: &str = "HASHI\nGAME\n1\n60.0\n0 0\n5\n3 . 2 . 0\n. . . . .\n4 . . . 2\n. . . . .\n2 . 0 . 1\n2\n0 0 0 2 1\n2 0 4 0 2\n";

#[test]
fn parses_the_spec_example_and_round_trips() {
    let inp = Hashi::parse_input(SAMPLE).unwrap();
    let h = &inp.state;
    assert_eq!(inp.mode, Mode::Game);
    assert_eq!(h.to_move(), Player::One);
    let t = h.topology();
    assert_eq!(t.islands.len(), 8);
    let a = t.island_at(0, 0).unwrap();
    let b = t.island_at(0, 2).unwrap();
    assert_eq!(h.bridges(t.pair_between(a, b).unwrap()), 1);
    assert_eq!(h.degree(a), 1);
    let c = t.island_at(4, 0).unwrap();
    assert_eq!(h.degree(c), 2);
    assert_eq!(h.write_input(Mode::Game, 60.0), SAMPLE);
}

#[test]
fn rows_without_spaces_and_messy_whitespace() {
    let text = "HASHI\r\nSINGLE\r\n\r\n2\n5\n3 -4\n3\n2.2\n...  \n1.1\n0";
    let h = Hashi::parse_input(text).unwrap().state;
    assert_eq!(h.points(), ByPlayer::new(3, -4));
    assert_eq!(h.to_move(), Player::Two);
    assert_eq!(h.topology().islands.len(), 4);
    // No bridge count line at all is read as no bridges.
    let h2 = Hashi::parse_input("HASHI\nGAME\n1\n5\n0 0\n2\n1 1\n. .\n")
        .unwrap()
        .state;
    assert_eq!(h2.topology().pairs.len(), 1);
}

fn err_line(text: &str) -> (usize, String) {
    let e = Hashi::parse_input(text).unwrap_err();
    (e.line, e.message)
}

#[test]
fn rejects_bad_boards_with_line_numbers() {
    let head = "HASHI\nGAME\n1\n60.0\n0 0\n3\n";
    let (l, m) = err_line(&format!("{head}2 . 5\n. . .\n1 . 1\n0\n"));
    assert_eq!(l, 7, "{m}");
    assert!(m.contains("'5'"), "{m}");
    let (l, m) = err_line(&format!("{head}2 . 1\n. .\n1 . 1\n0\n"));
    assert_eq!(l, 8, "{m}");
    let (l, _) = err_line("HASHI\nGAME\n3\n60.0\n0 0\n1\n.\n0\n");
    assert_eq!(l, 3);
    let (l, _) = err_line("HASHI\nGAME\n1\n60.0\n0\n1\n.\n0\n");
    assert_eq!(l, 5);
    let (l, m) = err_line("HASHI\nGAME\n1\n60.0\n0 0\n17\n");
    assert_eq!(l, 6, "{m}");
    // File ends inside the board.
    let (l, m) = err_line(&format!("{head}2 . 1\n"));
    assert_eq!(l, 0);
    assert!(m.contains("board row 1"), "{m}");
}

#[test]
fn rejects_bad_bridges_with_line_numbers() {
    let head = "HASHI\nGAME\n1\n60.0\n0 0\n3\n2 . 1\n. . .\n2 0 1\n";
    let cases = [
        ("1\n0 0 0 1 1\n", "not an island"),
        ("1\n0 0 2 2 1\n", "do not face"),
        ("1\n0 0 0 2 3\n", "1 or 2"),
        ("1\n0 0 0 2 2\n", "more than its label"),
        ("1\n2 0 2 1 1\n", "unlabelled"),
        ("2\n0 0 2 0 1\n2 0 0 0 1\n", "listed twice"),
        ("1\n0 0 0 2\n", "ROW1 COL1"),
        ("2\n0 0 0 2 1\n", "bridge line 2 of 2"),
    ];
    for (tail, want) in cases {
        let (l, m) = err_line(&format!("{head}{tail}"));
        assert!(m.contains(want), "{tail:?}: {m}");
        if want != "bridge line 2 of 2" {
            assert!(l >= 11, "{tail:?}: line {l}");
        }
    }
    // A crossing: 1 . 1 over a column 1 . 1.
    let text = "HASHI\nGAME\n1\n60.0\n0 0\n3\n. 2 .\n2 . 2\n. 2 .\n2\n1 0 1 2 1\n0 1 2 1 1\n";
    let (l, m) = err_line(text);
    assert_eq!(l, 12);
    assert!(m.contains("crosses"), "{m}");
}

#[test]
fn moves_parse_and_format() {
    let h = Hashi::parse_input(SAMPLE).unwrap().state;
    let mut moves = Vec::new();
    h.legal_moves(&mut moves);
    for &mv in &moves {
        assert_eq!(h.parse_move(&h.format_move(mv)), Ok(mv));
    }
    // Either endpoint order, lower-case letter, CRLF.
    assert!(moves.contains(&h.parse_move("b 4 4 2 4\r\n").unwrap()));
    assert!(matches!(h.parse_move("B 0 0 0 2 x"), Err(MoveError::Malformed(_))));
    assert!(matches!(h.parse_move("X 1 2"), Err(MoveError::Malformed(_))));
    assert!(matches!(h.parse_move(""), Err(MoveError::Malformed(_))));
    assert!(matches!(h.parse_move("L 0 4 5"), Err(MoveError::Illegal(_))));
    assert!(matches!(h.parse_move("L 0 0 3"), Err(MoveError::Illegal(_))));
    assert!(
        matches!(h.parse_move("B 0 2 0 4"), Err(MoveError::Illegal(_))),
        "unlabelled end"
    );
    assert!(
        matches!(h.parse_move("B 2 0 4 0"), Err(MoveError::Illegal(_))),
        "two already"
    );
    assert!(
        matches!(h.parse_move("B 0 0 4 0"), Err(MoveError::Illegal(_))),
        "not facing"
    );
    assert_eq!(
        h.parse_move("L 0 4 4"),
        Ok(HashiMove::Label(h.topology().island_at(0, 4).unwrap() as u8, 4))
    );
}

#[test]
fn render_shows_scores_and_bridges() {
    let mut h = Hashi::parse_input(SAMPLE).unwrap().state;
    h.set_points(ByPlayer::new(7, -7));
    let r = h.render();
    assert!(r.contains("player 1 = 7, player 2 = -7"), "{r}");
    assert!(r.contains("3---2"), "{r}");
    assert!(r.contains(" H"), "{r}");
    assert!(r.contains('o'), "{r}");
}
