//! Rules and format tests: the bitboards against the brief's simple grid
//! functions on random games, and the CONNECTSQUARE text format.

use super::grid::{add_coin, heuristic, is_winner};
use super::*;
use crate::protocol::{GenOptions, Mode, MoveError, Notation, Setup, View};
use crate::search::Strategy;
use rand::{Rng, SeedableRng};

fn coin_of(p: Player) -> Coin {
    if p == Player::One {
        Coin::R
    } else {
        Coin::Y
    }
}

#[test]
fn bitboards_agree_with_the_grid_on_random_games() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(42);
    let mut games = 0;
    for _ in 0..400 {
        let rows = rng.gen_range(2..=10);
        let cols = rng.gen_range(2..=11);
        if check_size(rows, cols).is_err() {
            continue;
        }
        games += 1;
        let first = if rng.gen_bool(0.5) { Player::One } else { Player::Two };
        let mut pos = ConnectSquare::new(rows, cols, first).unwrap();
        let mut grid = Grid::empty(rows, cols);
        let mut moves = Vec::new();
        loop {
            // Same view of the board, the legal moves and the result.
            assert_eq!(pos.to_grid(), grid);
            moves.clear();
            pos.legal_moves(&mut moves);
            let over_grid =
                is_winner(&grid, Coin::R) || is_winner(&grid, Coin::Y) || (0..cols).all(|c| !grid.playable(c));
            let want: Vec<Move> = if over_grid {
                vec![]
            } else {
                (0..cols).filter(|&c| grid.playable(c)).map(|c| c as Move).collect()
            };
            assert_eq!(moves, want);
            let want_result = if is_winner(&grid, Coin::R) {
                Some(Some(Player::One))
            } else if is_winner(&grid, Coin::Y) {
                Some(Some(Player::Two))
            } else if over_grid {
                Some(None)
            } else {
                None
            };
            assert_eq!(pos.result(), want_result, "\n{grid}");
            // Threat cells: exactly the empty cells where a coin would win.
            for p in [Player::One, Player::Two] {
                let bits = if p == pos.side() { pos.current() } else { pos.opponent() };
                let w = pos.winning_cells(bits);
                for c in 0..cols {
                    for i in 0..rows {
                        let bit = 1u128 << (c * (rows + 1) + rows - 1 - i);
                        let mut g2 = grid.clone();
                        let empty = g2.cells[i][c].is_none();
                        g2.cells[i][c] = Some(coin_of(p));
                        let wins = empty && !is_winner(&grid, coin_of(p)) && is_winner(&g2, coin_of(p));
                        if !is_winner(&grid, coin_of(p)) {
                            assert_eq!(w & bit != 0, wins, "cell {i},{c} for {p:?}\n{grid}");
                        }
                    }
                }
                // Every threat rests on a coin (or the floor): playable now.
                if pos.status() == Status::Playing {
                    assert_eq!(w & !pos.playable(), 0, "\n{grid}");
                }
            }
            // The brief's heuristic, both colours.
            let (r, y) = pos.coins();
            let s = pos.stride();
            assert_eq!(
                eval::brief_heuristic_bits(r, y, pos.board_mask(), s),
                heuristic(&grid, Coin::R)
            );
            assert_eq!(
                eval::brief_heuristic_bits(y, r, pos.board_mask(), s),
                heuristic(&grid, Coin::Y)
            );
            // Mirror keys are an involution of positions.
            let mut mirrored = grid.clone();
            for row in mirrored.cells.iter_mut() {
                row.reverse();
            }
            if let Ok(m) = ConnectSquare::from_grid(&mirrored, pos.side()) {
                assert_eq!(m.key(), pos.mirror_key());
            }
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            grid = add_coin(&grid, coin_of(pos.side()), mv as usize).unwrap();
            pos.play(mv);
        }
    }
    assert!(games > 300);
}

#[test]
fn keys_are_unique_per_position() {
    // All positions of short games on 3x3: distinct positions, distinct keys.
    let mut seen = std::collections::HashMap::new();
    fn walk(pos: ConnectSquare, depth: usize, seen: &mut std::collections::HashMap<u128, (Grid, Player)>) {
        let e = seen.entry(pos.key()).or_insert((pos.to_grid(), pos.side()));
        // The empty board has one key for either side (same value by symmetry).
        if pos.stones() > 0 {
            assert_eq!(*e, (pos.to_grid(), pos.side()));
        }
        if depth == 0 || pos.status() != Status::Playing {
            return;
        }
        for c in 0..pos.cols() {
            if pos.can_play(c) {
                let mut n = pos;
                n.play_col(c);
                walk(n, depth - 1, seen);
            }
        }
    }
    walk(ConnectSquare::new(3, 3, Player::One).unwrap(), 6, &mut seen);
    assert!(seen.len() > 100);
}

const SAMPLE: &str = "CONNECTSQUARE\nGAME\nR\n10.0\n4 4\n....\nRYYR\nYYYR\nRRYR\n";

#[test]
fn parses_and_writes_the_format() {
    let text = "CONNECTSQUARE\nGAME\nY\n10.0\n4 4\n0000\n.R..\nRYY.\nRRYY\n";
    let inp = ConnectSquare::parse_input(text).unwrap();
    assert_eq!(inp.mode, Mode::Game);
    assert_eq!(inp.remaining, 10.0);
    assert_eq!(inp.state.side(), Player::Two);
    assert_eq!(
        inp.state.to_grid(),
        Grid::from_rows(&["....", ".R..", "RYY.", "RRYY"]).unwrap()
    );
    let out = inp.state.write_input(Mode::Game, 10.0);
    assert_eq!(out, "CONNECTSQUARE\nGAME\nY\n10.0\n4 4\n....\n.R..\nRYY.\nRRYY\n");
    let again = ConnectSquare::parse_input(&out).unwrap();
    assert_eq!(again.state, inp.state);
    // CRLF, trailing spaces, blank lines, spaces between cells, no final newline.
    let messy = "\r\nCONNECTSQUARE \r\nSINGLE\r\n\r\nY\r\n10\r\n4 4\r\n. . . .\r\n.R..  \r\n\nRYY.\r\nRRYY";
    assert_eq!(ConnectSquare::parse_input(messy).unwrap().state, inp.state);
    // The sample board is over: Y has the square.
    let s = ConnectSquare::parse_input(SAMPLE).unwrap().state;
    assert_eq!(s.result(), Some(Some(Player::Two)));
}

#[test]
fn bad_input_names_the_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("CONNECTSQUARE\nGAME\nB\n10.0\n2 2\n..\n..\n", 3, "R or Y"),
        ("CONNECTSQUARE\nGAME\nR\n10.0\n2\n..\n..\n", 5, "rows and columns"),
        ("CONNECTSQUARE\nGAME\nR\n10.0\n1 5\n.....\n", 5, "at least 2"),
        ("CONNECTSQUARE\nGAME\nR\n10.0\n20 20\n", 5, "bitboard"),
        // Products that wrap in unchecked arithmetic.
        ("CONNECTSQUARE\nGAME\nR\n10.0\n18446744073709551615 4\n", 5, "too large"),
        ("CONNECTSQUARE\nGAME\nR\n10.0\n4 18446744073709551615\n", 5, "too large"),
        ("CONNECTSQUARE\nGAME\nR\n10.0\n9223372036854775807 2\n", 5, "too large"),
        ("CONNECTSQUARE\nGAME\nR\n10.0\n2 3\n...\n..\n", 7, "3 cells"),
        ("CONNECTSQUARE\nGAME\nR\n10.0\n2 3\n...\n.X.\n", 7, "'X'"),
        (
            "CONNECTSQUARE\nGAME\nR\n10.0\n3 3\n...\n.R.\nY..\n",
            7,
            "above an empty cell",
        ),
        (
            "CONNECTSQUARE\nGAME\nR\n10.0\n3 3\nR..\nR..\n...\n",
            7,
            "above an empty cell",
        ),
        ("CONNECTSQUARE\nGAME\nR\n10.0\n2 4\nRRYY\nRRYY\n", 7, "both"),
        ("CONNECTSQUARE\nGAME\nR\n10.0\n3 3\n...\n...\n", 0, "board row 2"),
        ("CONNECTSQUARE\nGAME\nR\n0\n3 3\n", 4, "positive"),
    ];
    for (text, line, needle) in cases {
        let e = ConnectSquare::parse_input(text).unwrap_err();
        assert_eq!(e.line, *line, "{text:?}: {e}");
        assert!(e.message.contains(needle), "{text:?}: {e}");
    }
}

#[test]
fn moves_parse_and_judge() {
    let s = ConnectSquare::parse_input("CONNECTSQUARE\nGAME\nR\n10.0\n2 3\nR..\nY..\n")
        .unwrap()
        .state;
    assert_eq!(s.parse_move("1\n"), Ok(1));
    assert_eq!(s.parse_move(" 2 \r\n\r\n"), Ok(2));
    assert!(matches!(s.parse_move("0"), Err(MoveError::Illegal(m)) if m.contains("full")));
    assert!(matches!(s.parse_move("3"), Err(MoveError::Illegal(_))));
    assert!(matches!(s.parse_move("x"), Err(MoveError::Malformed(_))));
    assert!(matches!(s.parse_move("1 2"), Err(MoveError::Malformed(_))));
    assert!(matches!(s.parse_move(""), Err(MoveError::Malformed(_))));
    assert_eq!(s.format_move(2), "2\n");
    let mut t = s;
    t.play(1);
    assert_eq!(t.side(), Player::Two);
    assert_eq!(t.to_grid(), Grid::from_rows(&["R..", "YR."]).unwrap());
}

#[test]
fn generate_defaults_to_six_by_seven() {
    let g = ConnectSquare::generate(&GenOptions::default()).unwrap();
    assert_eq!((g.rows(), g.cols(), g.side(), g.stones()), (6, 7, Player::One, 0));
    let g = ConnectSquare::generate(&GenOptions {
        rows: Some(8),
        cols: Some(8),
        first: Player::Two,
        ..Default::default()
    })
    .unwrap();
    assert_eq!((g.rows(), g.cols(), g.side()), (8, 8, Player::Two));
    assert!(ConnectSquare::generate(&GenOptions {
        rows: Some(1),
        ..Default::default()
    })
    .is_err());
    assert!(g.render().contains("Y to move"));
}

#[test]
fn agent_writes_a_legal_move_for_every_sample() {
    use crate::driver::{turn, AgentOptions};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/connectsquare");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(inp) = ConnectSquare::parse_input(&text) else {
            continue;
        };
        if inp.state.result().is_some() {
            continue;
        }
        let out = std::env::temp_dir().join(format!("cs-sample-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        for strategy in [Strategy::Best, Strategy::Greedy] {
            let opts = AgentOptions {
                dir: out.clone(),
                strategy,
                time_scale: 0.02,
            };
            let r = turn::<ConnectSquare>(&text, &opts).unwrap();
            let written = std::fs::read_to_string(out.join("output.txt")).unwrap();
            assert_eq!(written, r.output);
            inp.state
                .parse_move(&written)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if strategy == Strategy::Greedy {
                let coin = coin_of(inp.state.side());
                let want = super::grid::greedy_column(&inp.state.to_grid(), coin).unwrap();
                assert_eq!(written, format!("{want}\n"), "{}", path.display());
            }
        }
        std::fs::remove_dir_all(&out).unwrap();
        n += 1;
    }
    assert!(n >= 3, "only {n} playable samples");
}
