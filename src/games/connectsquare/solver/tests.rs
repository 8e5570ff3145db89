//! Tests of `games/connectsquare/solver.rs`.

use super::*;
use crate::games::connectsquare::grid::{add_coin, is_winner, Coin, Grid};
use crate::protocol::Player;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

/// The memo key of a grid and the coin to move: two bits a cell.
fn memo_key(g: &Grid, coin: Coin) -> u128 {
    let mut k = (coin == Coin::Y) as u128;
    for cell in g.cells.iter().flatten() {
        k = k << 2
            | match cell {
                None => 0,
                Some(Coin::R) => 1,
                Some(Coin::Y) => 2,
            };
    }
    k
}

/// Deliberately plain minimax on the brief's grid functions (`add_coin`,
/// `is_winner`), memoised by position and nothing else: the exact
/// score of the module doc for `coin` to move. The reference the solver
/// is checked against.
fn plain_score(g: &Grid, coin: Coin, memo: &mut HashMap<u128, i32>) -> i32 {
    let n = (g.rows() * g.cols()) as i32;
    let m = g.cells.iter().flatten().filter(|c| c.is_some()).count() as i32;
    if is_winner(g, coin.other()) {
        return -(n + 1 - m);
    }
    let key = memo_key(g, coin);
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut best = None;
    for col in 0..g.cols() {
        if let Some(child) = add_coin(g, coin, col) {
            let v = -plain_score(&child, coin.other(), memo);
            best = Some(best.map_or(v, |b: i32| b.max(v)));
        }
    }
    let v = best.unwrap_or(0); // no move: the board is full, a draw
    memo.insert(key, v);
    v
}

/// Win/draw/loss only (1, 0, -1) on the same grid functions, with plain
/// alpha-beta and a memo of exact results: enough to settle empty boards
/// that the full minimax cannot.
fn plain_wdl(g: &Grid, coin: Coin, mut alpha: i8, beta: i8, memo: &mut HashMap<u128, i8>) -> i8 {
    if is_winner(g, coin.other()) {
        return -1;
    }
    let key = memo_key(g, coin);
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let alpha0 = alpha;
    let mut best = None;
    for col in 0..g.cols() {
        if let Some(child) = add_coin(g, coin, col) {
            let v = -plain_wdl(&child, coin.other(), -beta, -alpha, memo);
            best = Some(best.map_or(v, |b: i8| b.max(v)));
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
    }
    let v = best.unwrap_or(0);
    // Exact when inside the window or at the ends of the scale.
    if (alpha0 < v && v < beta) || v.abs() == 1 {
        memo.insert(key, v);
    }
    v
}

fn coin(p: Player) -> Coin {
    if p == Player::One {
        Coin::R
    } else {
        Coin::Y
    }
}

/// A random game of `rows x cols` stopped with `empty` cells left (or
/// earlier if it ends); R moves first.
fn random_position(rng: &mut impl Rng, rows: usize, cols: usize, empty: usize) -> ConnectSquare {
    let mut pos = ConnectSquare::new(rows, cols, Player::One).unwrap();
    while pos.status() == Status::Playing && pos.cells() - pos.stones() > empty {
        let ok: Vec<usize> = (0..cols).filter(|&c| pos.can_play(c)).collect();
        pos.play_col(ok[rng.gen_range(0..ok.len())]);
    }
    pos
}

/// Every answer of `solver` on `pos` against the plain minimax; returns
/// the exact score.
fn check_against_plain(solver: &mut Solver, pos: &ConnectSquare, memo: &mut HashMap<u128, i32>) -> i32 {
    let mut exact_of = |pos: &ConnectSquare| plain_score(&pos.to_grid(), coin(pos.side()), memo);
    let want = exact_of(pos);
    let what = format!(
        "{}x{}, follow-up {}\n{}",
        pos.rows(),
        pos.cols(),
        solver.follow_up,
        pos.to_grid()
    );
    let v = solver.solve(pos, f64::INFINITY).unwrap();
    assert_eq!(v.verdict, Verdict::of_score(want), "{what}");
    let v = solver.solve_exact(pos, f64::INFINITY).unwrap();
    assert_eq!(v, Value::from_score(pos, want), "{what}");
    let (v, mv) = solver.best_move(pos, f64::INFINITY).unwrap();
    assert_eq!(v.verdict, Verdict::of_score(want), "{what}");
    if let Some(col) = mv {
        let mut c = *pos;
        c.play_col(col);
        assert!((-exact_of(&c)).signum() >= want.signum(), "move {col} in {what}");
    }
    let (v, mv) = solver.best_move_exact(pos, f64::INFINITY).unwrap();
    assert_eq!(v, Value::from_score(pos, want), "{what}");
    if let Some(col) = mv {
        let mut c = *pos;
        c.play_col(col);
        assert_eq!(-exact_of(&c), want, "exact move {col} in {what}");
    }
    for target in [-1, 0, 1] {
        assert_eq!(
            solver.value_at_least(pos, target, f64::INFINITY),
            Some(want >= target),
            "{what}"
        );
    }
    if pos.status() == Status::Playing {
        for col in (0..pos.cols()).filter(|&c| pos.can_play(c)) {
            let mut c = *pos;
            c.play_col(col);
            let got = -exact_of(&c);
            for target in [0, 1] {
                assert_eq!(
                    solver.move_reaches(pos, col, target, f64::INFINITY),
                    Some(got >= target),
                    "column {col}, target {target}, {what}"
                );
            }
        }
    }
    want
}

#[test]
fn agrees_with_plain_minimax_on_random_positions() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(15);
    let mut counts = [0usize; 3]; // wins, draws, losses among the playing positions
    let mut checked = 0;
    for (rows, cols) in [(4, 4), (4, 5), (5, 4), (5, 5)] {
        // With the follow-up bounds (the solver as used) and without
        // (the search alone).
        let mut solvers = [Solver::new(16), Solver::new(16)];
        solvers[1].set_follow_up(false);
        for i in 0..60 {
            let mut pos = random_position(&mut rng, rows, cols, 9 + i % 5);
            let mut memo = HashMap::new();
            // A won position is checked with its winning reply too: a lost
            // position for the side to move.
            for _ in 0..2 {
                let mut want = 0;
                for solver in solvers.iter_mut() {
                    want = check_against_plain(solver, &pos, &mut memo);
                }
                checked += 1;
                if pos.status() != Status::Playing {
                    break;
                }
                counts[(1 - want.signum()) as usize] += 1;
                if want <= 0 {
                    break;
                }
                // A winning coin that does not end the game at once.
                let next = (0..cols).filter(|&c| pos.can_play(c)).find_map(|c| {
                    let mut child = pos;
                    child.play_col(c);
                    let lost = plain_score(&child.to_grid(), coin(child.side()), &mut memo) < 0;
                    (child.status() == Status::Playing && lost).then_some(child)
                });
                let Some(child) = next else { break };
                pos = child;
            }
        }
    }
    assert!(checked >= 240, "{checked} positions");
    // The sample must hold every result, or the check proves little.
    assert!(counts.iter().all(|&k| k >= 10), "wins/draws/losses: {counts:?}");
}

#[test]
fn empty_boards_agree_with_plain_minimax() {
    for (rows, cols) in [(2, 2), (2, 3), (3, 3), (3, 4), (4, 3), (4, 4), (4, 5), (5, 4), (5, 5)] {
        let pos = ConnectSquare::new(rows, cols, Player::One).unwrap();
        let want = plain_wdl(&pos.to_grid(), Coin::R, -1, 1, &mut HashMap::new()) as i32;
        for follow_up in [true, false] {
            let mut solver = Solver::new(18);
            solver.set_follow_up(follow_up);
            let v = solver.solve(&pos, f64::INFINITY).unwrap();
            assert_eq!(
                v.verdict,
                Verdict::of_score(want),
                "{rows}x{cols}, follow-up {follow_up}"
            );
        }
    }
}

#[test]
fn values_read_as_plies() {
    // R to move completes a square with its next coin: win in 1.
    let g = Grid::from_rows(&["...", "R..", "RR."]).unwrap();
    let pos = ConnectSquare::from_grid(&g, Player::One).unwrap();
    let v = Solver::new(12).solve_exact(&pos, f64::INFINITY).unwrap();
    assert_eq!((v.verdict, v.plies), (Verdict::Win, Some(1)));
    // Without --plies a win has no length.
    let v = Solver::new(12).solve(&pos, f64::INFINITY).unwrap();
    assert_eq!((v.verdict, v.plies), (Verdict::Win, None));
    // 2x2: the second player can always spoil; the board fills: draw in 4.
    let pos = ConnectSquare::new(2, 2, Player::One).unwrap();
    let v = Solver::new(12).solve(&pos, f64::INFINITY).unwrap();
    assert_eq!((v.verdict, v.plies), (Verdict::Draw, Some(4)));
}

#[test]
fn follow_up_settles_empty_boards_at_once() {
    // Up to 8x8 (72 key bits: hashed keys) in a handful of nodes.
    for (rows, cols) in [(6, 7), (7, 6), (8, 8), (7, 9)] {
        let pos = ConnectSquare::new(rows, cols, Player::One).unwrap();
        let mut solver = Solver::new(12);
        let v = solver.solve(&pos, 5.0).unwrap();
        assert_eq!(v.verdict, Verdict::Draw, "{rows}x{cols}");
        assert!(solver.nodes <= 10, "{rows}x{cols}: {} nodes", solver.nodes);
    }
}

#[test]
fn gives_up_when_time_runs_out() {
    let pos = ConnectSquare::new(6, 7, Player::One).unwrap();
    let mut solver = Solver::new(12);
    solver.set_follow_up(false);
    let t = CpuTimer::start();
    assert_eq!(solver.solve(&pos, 0.01), None);
    assert!(t.elapsed() < 0.5);
}
