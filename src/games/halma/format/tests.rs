//! Tests of `games/halma/format.rs`.

use super::*;
use crate::search::Game;

const START_WHITE: &str = "SINGLE\nWHITE\n100.0\n\
BBBBB...........\nBBBBB...........\nBBBB............\nBBB.............\nBB..............\n\
................\n................\n................\n................\n................\n\
................\n..............WW\n.............WWW\n............WWWW\n...........WWWWW\n...........WWWWW\n";

#[test]
fn parses_the_start_and_writes_it_back_exactly() {
    let inp = parse_input(START_WHITE).unwrap();
    assert_eq!(inp.mode, Mode::Single);
    assert_eq!(inp.remaining, 100.0);
    assert_eq!(inp.state, Halma::start(Player::Two));
    assert_eq!(write_input(&inp.state, Mode::Single, 100.0), START_WHITE);
}

#[test]
fn harmless_oddities_are_accepted() {
    let crlf = START_WHITE.replace('\n', "  \r\n\r\n");
    assert_eq!(parse_input(&crlf).unwrap().state, Halma::start(Player::Two));
    let trailing = format!(
        "\n{}\nthis line is not part of the board\nnor this\n",
        START_WHITE.trim_end()
    );
    assert_eq!(parse_input(&trailing).unwrap().state, Halma::start(Player::Two));
}

fn err(text: &str) -> ParseError {
    parse_input(text).unwrap_err()
}

#[test]
fn malformed_inputs_name_the_line() {
    let e = err(&START_WHITE.replace("WHITE", "GREEN"));
    assert_eq!(e.line, 2);
    assert!(e.message.contains("BLACK or WHITE"), "{e}");
    let e = err(&START_WHITE.replace("100.0", "0"));
    assert_eq!(e.line, 3);
    assert!(e.message.contains("positive"), "{e}");
    let e = err(&START_WHITE.replace("100.0", "-5.0"));
    assert_eq!(e.line, 3);
    let e = err(&START_WHITE.replace("100.0", "soon"));
    assert_eq!(e.line, 3);
    let e = err(&START_WHITE.replace("SINGLE", "MULTI"));
    assert_eq!(e.line, 1);
    // A bad symbol on the third board row (line 6).
    let e = err(&START_WHITE.replacen("BBBB............", "BBBB.....x......", 1));
    assert_eq!(e.line, 6);
    assert!(e.message.contains("cell 9,2 (board row 2, column 9)") && e.message.contains("'x'"), "{e}");
    // A short row.
    let e = err(&START_WHITE.replacen("BBB.............", "BBB............", 1));
    assert_eq!(e.line, 7);
    assert!(e.message.contains("16 symbols"), "{e}");
    // Too few rows: the file ends.
    let cut: String = START_WHITE.lines().take(10).map(|l| format!("{l}\n")).collect();
    let e = err(&cut);
    assert_eq!(e.line, 11);
    assert!(e.message.contains("7 of the 16 board rows"), "{e}");
    // Wrong piece count.
    let e = err(&START_WHITE.replacen("BB..............", "B...............", 1));
    assert_eq!(e.line, 4);
    assert!(e.message.contains("18 BLACK"), "{e}");
    let e = err(&START_WHITE.replacen("................", "W...............", 1));
    assert!(e.message.contains("20 WHITE"), "{e}");
    // Empty file.
    assert!(err("").message.contains("SINGLE or GAME"));
}

#[test]
fn worked_examples_of_the_spec_are_legal() {
    let pos = Halma::start(Player::Two);
    assert_eq!(
        parse_move(&pos, "E 11,15 10,15\n").unwrap(),
        HMove::new(cell(11, 15), cell(10, 15))
    );
    assert_eq!(
        parse_move(&pos, "J 12,15 10,13\n").unwrap(),
        HMove::new(cell(12, 15), cell(10, 13))
    );
    assert_eq!(
        format_move(&pos, HMove::new(cell(12, 15), cell(10, 13))),
        "J 12,15 10,13\n"
    );
    assert_eq!(
        format_move(&pos, HMove::new(cell(11, 15), cell(10, 15))),
        "E 11,15 10,15\n"
    );
}

#[test]
fn move_texts_are_judged_malformed_or_illegal() {
    let pos = Halma::start(Player::Two);
    let malformed = [
        "",
        "\n\n",
        "X 11,15 10,15",
        "E 11,15",
        "E 11;15 10,15",
        "E a,15 10,15",
        "E 11,15 10,15\nE 10,15 9,15",
        "E 11,15 10,15\nJ 10,15 8,15",
        "J 12,15 10,13\nJ 12,13 10,11",
        "E 11,15 10,15 extra",
    ];
    for t in malformed {
        assert!(
            matches!(parse_move(&pos, t), Err(MoveError::Malformed(_))),
            "{t:?} -> {:?}",
            parse_move(&pos, t)
        );
    }
    let illegal = [
        "E 11,15 9,15",                 // not adjacent
        "E 15,15 14,15",                // occupied
        "E 5,5 6,6",                    // no piece
        "E 0,0 1,1",                    // opponent's piece
        "J 13,15 11,15",                // landing occupied
        "J 11,11 9,9",                  // no piece there
        "J 10,15 8,15",                 // no piece at 10,15 / nothing to jump
        "J 12,15 11,13",                // not a jump shape
        "E 16,15 15,15",                // off the board
        "J 12,15 10,13\nJ 10,13 12,15", // ends where it started
    ];
    for t in illegal {
        assert!(
            matches!(parse_move(&pos, t), Err(MoveError::Illegal(_))),
            "{t:?} -> {:?}",
            parse_move(&pos, t)
        );
    }
}

#[test]
fn printed_paths_parse_back_to_the_same_move() {
    let pos = Halma::start(Player::One);
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    for m in moves {
        assert_eq!(parse_move(&pos, &format_move(&pos, m)).unwrap(), m);
    }
}

#[test]
fn render_has_coordinates() {
    let r = render(&Halma::start(Player::One));
    assert!(r.lines().next().unwrap().trim_start().starts_with("0  1  2"));
    assert!(r.contains("BLACK to move"));
    assert_eq!(r.lines().count(), 19);
}
