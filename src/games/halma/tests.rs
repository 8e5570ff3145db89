//! Cross-checks of the bitboard rules against the simple array version, and
//! rule tests on hand-made positions.

use super::bitboard::cell;
use super::eval::HalmaEval;
use super::perft;
use super::simple::{to_simple, SimpleBoard};
use super::*;
use crate::protocol::{MoveError, Notation, Setup, View};
use crate::search::{Evaluator, SearchHints};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn sorted_moves(pos: &Halma, reading: Reading) -> Vec<((i32, i32), (i32, i32))> {
    let mut v = Vec::new();
    pos.moves(reading, &mut v);
    let mut r: Vec<_> = v
        .iter()
        .map(|m| {
            (
                (col(m.from) as i32, row(m.from) as i32),
                (col(m.to) as i32, row(m.to) as i32),
            )
        })
        .collect();
    let n = r.len();
    r.sort();
    r.dedup();
    assert_eq!(r.len(), n, "duplicate (from, to) moves");
    r
}

/// A random position: a random playout from the start (which produces camp
/// situations) or a random scatter biased towards the camps.
fn random_position(rng: &mut SmallRng) -> Halma {
    if rng.gen_bool(0.5) {
        let mut pos = Halma::start(Player::from_index(rng.gen_range(0..2)));
        let plies = rng.gen_range(0..160);
        let mut buf = Vec::new();
        for _ in 0..plies {
            if pos.outcome().is_some() {
                break;
            }
            buf.clear();
            pos.legal_moves(&mut buf);
            // Prefer progress so that pieces reach the far camp sometimes.
            let m = if rng.gen_bool(0.7) {
                *buf.iter()
                    .max_by_key(|m| pos.order_hint(**m) + rng.gen_range(0..300))
                    .unwrap()
            } else {
                buf[rng.gen_range(0..buf.len())]
            };
            pos.play(m);
        }
        pos
    } else {
        let mut sets = [Bitboard::EMPTY; 2];
        for c in 0..2 {
            let mut n = 0;
            while n < PIECES {
                let p: u8 = if rng.gen_bool(0.5) {
                    // Near one of the camps.
                    let camp = CAMP[Player::from_index(rng.gen_range(0..2))];
                    let cells: Vec<u8> = (camp | camp.neighbours()).iter().collect();
                    cells[rng.gen_range(0..cells.len())]
                } else {
                    rng.gen_range(0..=255)
                };
                if !(sets[0] | sets[1]).has(p) {
                    sets[c].set(p);
                    n += 1;
                }
            }
        }
        Halma::from_pieces(sets[0], sets[1], Player::from_index(rng.gen_range(0..2)))
    }
}

/// A random hop path text for the side to move, and the visited cells.
fn random_path(pos: &Halma, rng: &mut SmallRng) -> (String, Vec<(i32, i32)>) {
    let own: Vec<u8> = pos.pieces(pos.side()).iter().collect();
    let start = if rng.gen_bool(0.95) {
        own[rng.gen_range(0..own.len())]
    } else {
        rng.gen_range(0..=255)
    };
    let mut path = vec![(col(start) as i32, row(start) as i32)];
    let hops = rng.gen_range(1..5);
    let occ = pos.occupied() & !Bitboard::single(start);
    for _ in 0..hops {
        let (x, y) = *path.last().unwrap();
        // Mostly valid jumps, sometimes anything two cells away.
        let mut options = Vec::new();
        for &(_, dx, dy) in super::bitboard::DIRS.iter() {
            let (lx, ly) = (x + 2 * dx, y + 2 * dy);
            if (0..16).contains(&lx) && (0..16).contains(&ly) {
                let over = cell((x + dx) as usize, (y + dy) as usize);
                let land = cell(lx as usize, ly as usize);
                if occ.has(over) && !occ.has(land) || rng.gen_bool(0.1) {
                    options.push((lx, ly));
                }
            }
        }
        if options.is_empty() {
            break;
        }
        path.push(options[rng.gen_range(0..options.len())]);
    }
    if path.len() < 2 {
        path.push((path[0].0, (path[0].1 + 2) % 16));
    }
    let text: String = path
        .windows(2)
        .map(|w| format!("J {},{} {},{}\n", w[0].0, w[0].1, w[1].0, w[1].1))
        .collect();
    (text, path)
}

#[test]
fn perft_of_the_start_position() {
    for side in Player::ALL {
        let pos = Halma::start(side);
        assert_eq!(perft(&pos, 1), 40);
        assert_eq!(perft(&pos, 2), 1600);
        assert_eq!(perft(&pos, 3), 62240);
    }
}

#[test]
fn bitboard_rules_match_the_simple_implementation_on_random_positions() {
    let mut rng = SmallRng::seed_from_u64(20261121);
    let mut paths_ok = 0;
    let mut in_goal_cases = 0;
    for i in 0..1200 {
        let pos = random_position(&mut rng);
        let simple = to_simple(&pos);
        assert_eq!(
            sorted_moves(&pos, Reading::Narrow),
            simple.legal(true),
            "narrow moves differ in position {i}:\n{}",
            pos.render()
        );
        assert_eq!(
            sorted_moves(&pos, Reading::Wide),
            simple.legal(false),
            "wide moves differ in position {i}:\n{}",
            pos.render()
        );
        for c in Player::ALL {
            assert_eq!(pos.has_won(c), simple.has_won(c), "win verdicts differ in position {i}");
        }
        let mut v = Vec::new();
        pos.legal_moves(&mut v);
        assert_eq!(pos.has_move(), !v.is_empty());
        // Incremental hash and table sums equal a fresh computation.
        let fresh = Halma::from_pieces(pos.pieces(Player::One), pos.pieces(Player::Two), pos.side());
        assert_eq!(fresh, pos);
        if !(pos.pieces(pos.side()) & CAMP[pos.side().other()]).is_empty() {
            in_goal_cases += 1;
        }
        for _ in 0..4 {
            let (text, path) = random_path(&pos, &mut rng);
            let got = pos.parse_move(&text);
            let want = simple.judge_jumps(&path);
            match (&got, want) {
                (Ok(m), Some(end)) => {
                    assert_eq!((col(m.to) as i32, row(m.to) as i32), end);
                    paths_ok += 1;
                }
                (Err(MoveError::Illegal(_)), None) => {}
                _ => panic!(
                    "judgement differs for {text:?} in position {i}: {got:?} vs {want:?}\n{}",
                    pos.render()
                ),
            }
        }
    }
    assert!(
        paths_ok > 100,
        "too few legal random paths ({paths_ok}) to test anything"
    );
    assert!(
        in_goal_cases > 50,
        "too few positions with pieces in the goal camp ({in_goal_cases})"
    );
}

fn board(rows: &[&str], side: Player) -> Halma {
    let mut sets = [Bitboard::EMPTY; 2];
    for (y, r) in rows.iter().enumerate() {
        for (x, ch) in r.chars().enumerate() {
            match ch {
                'B' => sets[0].set(cell(x, y)),
                'W' => sets[1].set(cell(x, y)),
                _ => {}
            }
        }
    }
    Halma::from_pieces(sets[0], sets[1], side)
}

#[test]
fn camp_piece_must_leave_when_it_can() {
    // Black has one piece left in camp at (4,1): every legal move takes it out.
    let pos = board(&["", "....B", "", "", "", "", "........B"], Player::One);
    let mut v = Vec::new();
    pos.legal_moves(&mut v);
    assert!(!v.is_empty());
    assert!(
        v.iter().all(|m| m.from == cell(4, 1) && !CAMP[Player::One].has(m.to)),
        "{v:?}"
    );
    // The referee rejects moving the other piece.
    assert!(matches!(pos.parse_move("E 8,6 9,7"), Err(MoveError::Illegal(m)) if m.contains("rule 4")));
}

#[test]
fn outside_piece_may_not_reenter_own_camp_and_goal_piece_may_not_leave() {
    let mut sets = [Bitboard::EMPTY; 2];
    sets[0].set(cell(5, 5)); // outside, next to the camp edge (4,4 is not camp; 1,4 is)
    sets[0].set(cell(2, 4)); // just outside the camp (row 4 holds x 0-1)
    sets[0].set(cell(12, 13)); // in white's camp (black's goal)
    let pos = Halma::from_pieces(sets[0], sets[1], Player::One);
    assert!(!pos.is_legal(HMove::new(cell(2, 4), cell(1, 4)), Reading::Wide));
    assert!(!pos.is_legal(HMove::new(cell(12, 13), cell(11, 12)), Reading::Wide));
    assert!(pos.is_legal(HMove::new(cell(12, 13), cell(13, 14)), Reading::Narrow));
    assert!(matches!(pos.parse_move("E 2,4 1,4"), Err(MoveError::Illegal(m)) if m.contains("rule 2")));
    assert!(matches!(pos.parse_move("E 12,13 11,12"), Err(MoveError::Illegal(m)) if m.contains("rule 3")));
}

#[test]
fn win_needs_a_full_goal_with_one_own_piece() {
    let mut w = CAMP[Player::Two];
    let mut b = Bitboard::EMPTY;
    // Black fills white's camp except where 3 white pieces still sit.
    let goal: Vec<u8> = CAMP[Player::Two].iter().collect();
    for &c in &goal[3..] {
        w.clear(c);
        b.set(c);
    }
    let pos = Halma::from_pieces(b, w, Player::Two);
    assert!(pos.has_won(Player::One));
    assert_eq!(pos.outcome(), Some(Outcome::Loss));
    assert_eq!(pos.result(), Some(Some(Player::One)));
    // The full camp of the owner's own pieces alone is no win for the other side.
    let start = Halma::start(Player::Two);
    assert!(!start.has_won(Player::One) && start.outcome().is_none());
}

#[test]
fn narrow_reading_keeps_goal_jumps_inside_and_wide_does_not() {
    // A black piece at (10,14) in white's camp (row 14: x 11-15 is white camp? no:
    // row 14 mirrors row 1, x 11-15). Put it at (11,14) and let it jump out and
    // back in over pieces outside the camp.
    let pos = board(
        &[
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            ".........W.W....",
            "...........B....",
            "",
        ],
        Player::One,
    );
    // (11,14) -> over (11,13)? empty. Over (10,13) W... lands (9,12) outside: narrow forbids
    // continuing from there, wide allows (9,12) -> over (10,13)?? same piece back to (11,14) = start.
    let narrow = sorted_moves(&pos, Reading::Narrow);
    let wide = sorted_moves(&pos, Reading::Wide);
    for m in &narrow {
        assert!(wide.contains(m));
    }
    assert!(narrow
        .iter()
        .all(|&(_, (x, y))| CAMP[Player::Two].has(cell(x as usize, y as usize))));
}

#[test]
fn paths_avoid_the_own_camp_when_possible() {
    // White at (10,13) reaches (12,11) in two hops either through its own
    // camp cell (12,13) (found first in breadth-first order) or through (10,11).
    let mut b = Bitboard::EMPTY;
    for (x, y) in [(11, 13), (12, 12), (10, 12), (11, 11)] {
        b.set(cell(x, y));
    }
    let pos = Halma::from_pieces(b, Bitboard::single(cell(10, 13)), Player::Two);
    let m = HMove::new(cell(10, 13), cell(12, 11));
    assert!(pos.is_legal(m, Reading::Narrow));
    assert_eq!(pos.format_move(m), "J 10,13 10,11\nJ 10,11 12,11\n");
    // Without the other route, the path through the camp is printed.
    b.clear(cell(10, 12));
    let pos = Halma::from_pieces(b, Bitboard::single(cell(10, 13)), Player::Two);
    assert_eq!(pos.format_move(m), "J 10,13 12,13\nJ 12,13 12,11\n");
}

#[test]
fn simple_board_agrees_on_the_start() {
    assert_eq!(to_simple(&Halma::start(Player::Two)), SimpleBoard::start(Player::Two));
}

#[test]
fn camp_piece_that_cannot_leave_must_go_further() {
    // Black's only camp piece (1,1) is walled in by its own camp: it must
    // move further from (0,0), i.e. to (2,1), (1,2) or (2,2), not (0,0).
    let pos = board(&["", ".B", "", "", "", "", "........B"], Player::One);
    let mut v = Vec::new();
    pos.legal_moves(&mut v);
    v.sort();
    assert_eq!(
        v,
        vec![
            HMove::new(cell(1, 1), cell(2, 1)),
            HMove::new(cell(1, 1), cell(1, 2)),
            HMove::new(cell(1, 1), cell(2, 2))
        ]
    );
    assert!(matches!(pos.parse_move("E 1,1 0,0"), Err(MoveError::Illegal(m)) if m.contains("further")));
}

fn sample(name: &str) -> Halma {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/halma")
        .join(name);
    super::format::parse_input(&std::fs::read_to_string(p).unwrap())
        .unwrap()
        .state
}

#[test]
fn camp_rule_samples_force_the_right_moves() {
    let mut v = Vec::new();
    sample("trap_forced_out.txt").legal_moves(&mut v);
    assert!(
        !v.is_empty() && v.iter().all(|m| m.from == cell(4, 1) && !CAMP[Player::One].has(m.to)),
        "{v:?}"
    );
    v.clear();
    sample("trap_camp_further.txt").legal_moves(&mut v);
    v.sort();
    assert_eq!(
        v,
        vec![
            HMove::new(cell(1, 1), cell(2, 1)),
            HMove::new(cell(1, 1), cell(1, 2)),
            HMove::new(cell(1, 1), cell(2, 2))
        ]
    );
    v.clear();
    let pos = sample("trap_no_reenter.txt");
    pos.legal_moves(&mut v);
    assert!(v.iter().all(|m| !CAMP[Player::One].has(m.to)));
    assert!(matches!(pos.parse_move("E 5,1 4,1"), Err(MoveError::Illegal(_))));
    v.clear();
    let pos = sample("trap_goal_stay.txt");
    pos.legal_moves(&mut v);
    assert!(v
        .iter()
        .all(|m| !CAMP[Player::Two].has(m.from) || CAMP[Player::Two].has(m.to)));
    assert!(
        v.iter().any(|m| CAMP[Player::Two].has(m.from)),
        "a goal piece should have moves inside the goal"
    );
}

#[test]
fn search_finds_the_win_in_one_in_endgame_samples() {
    for name in ["endgame_1.txt", "endgame_white.txt"] {
        let pos = sample(name);
        let r = crate::search::alphabeta::search(&pos, crate::search::Limits::depth(3), 1 << 20);
        let mut after = pos;
        after.play(r.best.unwrap());
        assert_eq!(
            after.outcome(),
            Some(Outcome::Loss),
            "{name}: the mover should have won"
        );
        assert!(r.score >= crate::search::WIN_THRESHOLD);
    }
}

#[test]
fn mutated_inputs_never_panic_the_parser() {
    let base =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/halma/midgame_1.txt"))
            .unwrap();
    let alphabet = b"BW.\n\r \t,0123456789-eSINGLEGAMEWHITEBLACK\xc3\xa9";
    let mut rng = SmallRng::seed_from_u64(99);
    let mut accepted = 0;
    for _ in 0..5000 {
        let mut bytes = base.clone().into_bytes();
        for _ in 0..rng.gen_range(1..6) {
            let i = rng.gen_range(0..bytes.len().max(1));
            match rng.gen_range(0..4) {
                0 if !bytes.is_empty() => {
                    bytes.remove(i.min(bytes.len() - 1));
                }
                1 => bytes.insert(i.min(bytes.len()), alphabet[rng.gen_range(0..alphabet.len())]),
                2 if !bytes.is_empty() => {
                    let j = i.min(bytes.len() - 1);
                    bytes[j] = alphabet[rng.gen_range(0..alphabet.len())];
                }
                _ => bytes.truncate(i),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        match super::format::parse_input(&text) {
            Ok(inp) => {
                accepted += 1;
                assert!(inp.remaining > 0.0);
                assert_eq!(inp.state.pieces(Player::One).count(), PIECES);
            }
            Err(e) => assert!(!e.message.is_empty()),
        }
    }
    assert!(accepted > 0 && accepted < 5000, "accepted {accepted}");
}

#[test]
fn single_moves_search_to_the_hard_limit_and_game_moves_pace() {
    use crate::clock::CpuTimer;
    use crate::search::{alphabeta, Limits, Pacing};
    let pos = sample("midgame_1.txt");
    // Full pacing: only the hard limit stops it, well past the soft one.
    let t = CpuTimer::start();
    let full = Limits {
        pacing: Pacing::Full,
        ..Limits::time(0.05, 0.4)
    };
    let r = alphabeta::search(&pos, full, 1 << 22);
    let spent = t.elapsed();
    assert!(r.best.is_some());
    assert!(spent > 0.35 && spent < 0.6, "full pacing spent {spent} s");
    // Adaptive pacing stays inside the hard limit whatever the factors.
    let t = CpuTimer::start();
    let adaptive = Limits {
        pacing: Pacing::Adaptive,
        ..Limits::time(0.05, 0.15)
    };
    let r = alphabeta::search(&pos, adaptive, 1 << 22);
    assert!(r.best.is_some() && r.depth >= 1);
    assert!(t.elapsed() < 0.35, "adaptive pacing spent {} s", t.elapsed());
}

#[test]
fn frontier_value_is_the_best_child_evaluation() {
    // The one-ply shortcut must equal visiting every child: the best negated
    // evaluation (with race values searched as in a search), and its move
    // must reach that value. Checked wherever it answers.
    let mut rng = SmallRng::seed_from_u64(16);
    let (mut answered, mut declined) = (0, 0);
    for _ in 0..3000 {
        let pos = random_position(&mut rng);
        if pos.outcome().is_some() {
            continue;
        }
        let Some((value, mv)) = HalmaEval.frontier_value(&pos, i32::MAX) else {
            declined += 1;
            continue;
        };
        answered += 1;
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let child_value = |m: HMove| {
            let mut c = pos;
            c.play(m);
            let settled = HalmaEval.exact_value(&c, &mut Default::default());
            assert!(c.outcome().is_none() && settled.is_none(), "{m:?} ends or settles the game");
            -HalmaEval.evaluate(&c)
        };
        let best = moves.iter().map(|&m| child_value(m)).max().unwrap();
        assert_eq!(value, best, "{pos:?}");
        assert!(moves.contains(&mv));
        assert_eq!(child_value(mv), value);
        // Against a beta, the answer is exact below it and a move worth at
        // least beta (a lower bound) at or above it.
        let beta = value - rng.gen_range(-50..200);
        let (cut, cut_move) = HalmaEval.frontier_value(&pos, beta).unwrap();
        assert_eq!(child_value(cut_move), cut);
        if value < beta {
            assert_eq!(cut, value);
        } else {
            assert!(cut >= beta && cut <= value, "{cut} {beta} {value}");
        }
    }
    assert!(answered > 500 && declined > 20, "answered {answered}, declined {declined}");
}

#[test]
fn late_move_pruning_cuts_the_tree_but_not_the_root() {
    use crate::search::{alphabeta, Limits};
    for name in ["midgame_1.txt", "midgame_white.txt"] {
        let pos = sample(name);
        let run = |depth: u32, pruning: bool| alphabeta::search_pruning(&pos, Limits::depth(depth), 1 << 22, pruning);
        // Depth 2: the root's children are settled at the frontier, so no
        // node below the root reaches a pruning depth with moves to spare:
        // the root itself, a full-window node, must search every move.
        let (full, pruned) = (run(2, false), run(2, true));
        assert_eq!((pruned.score, pruned.best), (full.score, full.best), "{name}");
        // Depth 5: null-window nodes at depth 2 and 3 keep only the head
        // of ~100 moves, so the tree shrinks by far more than a third.
        let (full, pruned) = (run(5, false), run(5, true));
        assert!(pruned.nodes * 3 < full.nodes * 2, "{name}: {} vs {}", pruned.nodes, full.nodes);
        let mut legal = Vec::new();
        pos.legal_moves(&mut legal);
        assert!(legal.contains(&pruned.best.unwrap()), "{name}");
    }
}
