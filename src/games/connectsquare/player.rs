//! Move choice ([`Steps`], and the clock's share, [`TimePolicy`]): the brief's greedy player on the bitboards,
//! and the steps the default agent adds to the search (an immediate win; a
//! probe and the exact solver when it finishes in time; the one-ply safety
//! net on every searched move; the swindle of a proven draw or loss).

use super::eval::{brief_heuristic_bits, order_hint, ConnectSquareEval};
use super::solver::{Solver, Verdict};
use super::{ConnectSquare, Move, Status};
use crate::play::{Solved, Steps};
use crate::search::{Limits, Strategy};
use crate::timing::TimePolicy;

/// The brief's greedy choice: the column whose resulting board has the
/// highest brief heuristic for the mover; ties to the lowest column.
pub fn brief_greedy(pos: &ConnectSquare) -> Option<Move> {
    if pos.status() != Status::Playing {
        return None;
    }
    let mut best: Option<(usize, i64)> = None;
    for col in 0..pos.cols() {
        if !pos.can_play(col) {
            continue;
        }
        let mut child = *pos;
        child.play_col(col);
        // After the move the mover's coins are the child's opponent's.
        let v = brief_heuristic_bits(child.opponent(), child.current(), child.board_mask(), child.stride());
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((col, v));
        }
    }
    best.map(|(c, _)| c as Move)
}

/// Playable cells after which the opponent cannot complete a square at once
/// (a winning cell of the side to move counts as safe: the game ends).
pub fn safe_cells(pos: &ConnectSquare) -> u128 {
    let playable = pos.playable();
    let wins = pos.winning_cells(pos.current()) & playable;
    if wins != 0 {
        return wins;
    }
    let mut safe = 0;
    let mut m = playable;
    while m != 0 {
        let cell = m & m.wrapping_neg();
        m ^= cell;
        let mut child = *pos;
        child.play_cell(cell);
        if child.status() != Status::Playing || child.winning_cells(child.current()) & child.playable() == 0 {
            safe |= cell;
        }
    }
    safe
}

/// The safety net: the move itself if it is safe (or nothing is), else the
/// safe move the ordering likes best.
pub(crate) fn make_safe(pos: &ConnectSquare, mv: Move) -> Move {
    let safe = safe_cells(pos);
    let cell = pos.playable() & pos.column_mask(mv as usize);
    if safe == 0 || safe & cell != 0 {
        return mv;
    }
    let mut best: Option<(i32, usize)> = None;
    let mut m = safe;
    while m != 0 {
        let c = m & m.wrapping_neg();
        m ^= c;
        let col = pos.column_of(c);
        let h = order_hint(pos, col);
        if best.is_none_or(|(b, _)| h > b) {
            best = Some((h, col));
        }
    }
    best.map_or(mv, |(_, c)| c as Move)
}

/// Positions with at most this many empty cells are handed to the exact
/// solver first (it gives up when its time share runs out).
const SOLVE_MAX_EMPTY: usize = 30;
/// Share of the soft budget the solver may use before alpha-beta takes over.
const SOLVE_SHARE: f64 = 0.5;

/// CPU seconds of alpha-beta run before the solver, so that a search move
/// reaches `output.txt` early: the solver reports nothing until it is done.
const PROBE_SECONDS: f64 = 0.3;

/// Whether the default agent tries the exact solver on `pos`.
fn solver_applies(pos: &ConnectSquare) -> bool {
    pos.cells() - pos.stones() <= SOLVE_MAX_EMPTY
}

/// A column that completes a square for the side to move at once (the
/// lowest such cell's).
fn immediate_win(pos: &ConnectSquare) -> Option<Move> {
    let wins = pos.winning_cells(pos.current()) & pos.playable();
    (wins != 0).then(|| pos.column_of(wins & wins.wrapping_neg()) as Move)
}

/// The exact solver's answer within `limits` (CPU seconds from now): a
/// proven win is played at once; a proven draw or loss is reported and
/// kept, and after the search [`swindle`] picks the move that keeps the
/// value with the most chances for the opponent to go wrong.
fn solved<'a>(pos: &'a ConnectSquare, limits: &Limits, on_improve: &mut dyn FnMut(Move)) -> Solved<'a, Move> {
    if !solver_applies(pos) {
        return Solved::Unsolved;
    }
    let t = SOLVE_SHARE * limits.soft;
    let mut solver = Solver::new(Solver::bits_for(t, 22));
    let Some((v, Some(col))) = solver.best_move(pos, t) else {
        return Solved::Unsolved;
    };
    if v.verdict == Verdict::Win {
        return Solved::Play(col as Move);
    }
    on_improve(col as Move);
    Solved::AfterSearch(Box::new(move |searched, left| {
        swindle(pos, &mut solver, v.verdict, searched, col, left).unwrap_or(col) as Move
    }))
}

/// In a position the solver has proven drawn or lost for the side to
/// move, picks the move that gives a fallible opponent the most chances to
/// go wrong: among the moves that keep the value (every move, when lost),
/// the one after which the most opponent replies hand us a better result
/// (a win from a draw; a draw or win from a loss). Ties go to `practical`
/// (alpha-beta's choice), then to the ordering. A perfect opponent sees no
/// difference; the brief's greedy player, which blocks only by accident,
/// often takes the bait. `None` when time runs out: the caller then plays
/// `proven` (the solver's move), which keeps the value.
fn swindle(
    pos: &ConnectSquare,
    solver: &mut Solver,
    verdict: Verdict,
    practical: Move,
    proven: usize,
    left: impl Fn() -> f64,
) -> Option<usize> {
    // What a reply must give us to count as the opponent's mistake.
    let better = match verdict {
        Verdict::Draw => 1,
        Verdict::Loss => 0,
        Verdict::Win => return Some(proven),
    };
    let mut cands: Vec<(i32, usize)> = (0..pos.cols())
        .filter(|&c| pos.can_play(c))
        .map(|c| {
            (
                if c == practical as usize {
                    i32::MAX
                } else {
                    order_hint(pos, c)
                },
                c,
            )
        })
        .collect();
    cands.sort_by_key(|c| std::cmp::Reverse(c.0));
    let mut best: Option<(usize, usize)> = None; // (mistakes, column)
    for &(_, col) in &cands {
        if verdict == Verdict::Draw && !solver.move_reaches(pos, col, 0, left())? {
            continue;
        }
        let mut child = *pos;
        child.play_col(col);
        if child.status() != Status::Playing {
            // A drawn last coin: nothing for the opponent to get wrong.
            best.get_or_insert((0, col));
            continue;
        }
        let mut mistakes = 0;
        for reply in (0..child.cols()).filter(|&c| child.can_play(c)) {
            let mut grand = child;
            grand.play_col(reply);
            if solver.value_at_least(&grand, better, left())? {
                mistakes += 1;
            }
        }
        if best.is_none_or(|(m, _)| mistakes > m) {
            best = Some((mistakes, col));
        }
    }
    Some(best.map_or(proven, |(_, c)| c))
}

impl TimePolicy for ConnectSquare {
    fn moves_left_estimate(&self) -> f64 {
        // Games usually end well before the board fills; the agent makes
        // every other move of what is left.
        let empty = (self.cells() - self.stones()) as f64;
        (0.35 * empty).max(1.0)
    }
}

impl Steps for ConnectSquare {
    /// The brief's greedy player as the greedy strategy; under the default
    /// one, an immediate win is played without searching.
    fn own_move(&self, strategy: Strategy) -> Option<Move> {
        match strategy {
            Strategy::Greedy => brief_greedy(self),
            Strategy::Best => immediate_win(self),
            _ => None,
        }
    }

    /// A short probe before the solver, when the solver is tried and the
    /// move has room for it.
    fn probe_seconds(&self, limits: &Limits) -> Option<f64> {
        let probe = (0.1 * limits.soft).min(PROBE_SECONDS);
        (solver_applies(self) && probe >= 0.05).then_some(probe)
    }

    fn solver_move(&self, limits: &Limits, on_improve: &mut dyn FnMut(Move)) -> Solved<'_, Move> {
        solved(self, limits, on_improve)
    }

    /// Every searched move goes through the one-ply safety net.
    fn safety_net(&self, mv: Move) -> Move {
        make_safe(self, mv)
    }

    /// The agent's own chances weigh more than the opponent's in its search.
    fn search_evaluator(&self) -> ConnectSquareEval {
        ConnectSquareEval {
            ambitious: Some(self.side()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connectsquare::grid::{greedy_column, Coin, Grid};
    use crate::protocol::Player;

    #[test]
    fn greedy_on_bits_matches_the_grid_on_random_positions() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        for _ in 0..600 {
            let rows = rng.gen_range(2..=8);
            let cols = rng.gen_range(2..=9);
            let mut pos = ConnectSquare::new(rows, cols, Player::One).unwrap();
            let plies = rng.gen_range(0..rows * cols);
            for _ in 0..plies {
                if pos.status() != Status::Playing {
                    break;
                }
                let ok: Vec<usize> = (0..cols).filter(|&c| pos.can_play(c)).collect();
                pos.play_col(ok[rng.gen_range(0..ok.len())]);
            }
            if pos.status() != Status::Playing {
                continue;
            }
            let coin = if pos.side() == Player::One { Coin::R } else { Coin::Y };
            let want = greedy_column(&pos.to_grid(), coin).map(|c| c as Move);
            assert_eq!(brief_greedy(&pos), want, "\n{}", pos.to_grid());
        }
    }

    /// The default agent's move, through the agent's own path.
    fn best_move(pos: &ConnectSquare, limits: &Limits) -> Option<Move> {
        let opts = crate::play::ChooseOptions::default();
        crate::play::choose(pos, Strategy::Best, limits, &opts, &mut |_| {}).map(|c| c.best)
    }

    #[test]
    fn safety_net_blocks_and_wins() {
        // Y to move; R threatens column 1 (rows 0-1, columns 0-1).
        let g = Grid::from_rows(&["....", "....", "R...", "RRYY"]).unwrap();
        let pos = ConnectSquare::from_grid(&g, Player::Two).unwrap();
        assert_eq!(make_safe(&pos, 3), 1);
        assert_eq!(make_safe(&pos, 1), 1);
        let b = Limits::time(0.05, 0.1);
        assert_eq!(best_move(&pos, &b), Some(1));
        // R to move wins in column 1 at once.
        let pos = ConnectSquare::from_grid(&g, Player::One).unwrap();
        assert_eq!(pos.own_move(Strategy::Best), Some(1));
        assert_eq!(best_move(&pos, &b), Some(1));
    }

    #[test]
    fn the_default_strategy_weighs_the_agents_seat_up_whoever_moves() {
        use crate::search::Evaluator;
        // R to move with a ready pair on Y's coins: R's windows count.
        let g = Grid::from_rows(&["......", "......", "......", ".RR...", ".YY.Y."]).unwrap();
        let pos = ConnectSquare::from_grid(&g, Player::One).unwrap();
        let (agent, symmetric) = (pos.search_evaluator(), ConnectSquareEval::default());
        assert_eq!(agent.ambitious, Some(Player::One));
        assert!(agent.evaluate(&pos) > symmetric.evaluate(&pos));
        // After R's move Y is to move, and R's chances still weigh more.
        let mut child = pos;
        child.play_col(0);
        assert!(agent.evaluate(&child) < symmetric.evaluate(&child));
    }

    #[test]
    fn tiny_budgets_still_answer() {
        let pos = ConnectSquare::new(6, 7, Player::One).unwrap();
        let t = crate::clock::CpuTimer::start();
        let mv = best_move(&pos, &Limits::time(0.001, 0.002));
        assert!(mv.is_some());
        assert!(t.elapsed() < 0.1, "{}", t.elapsed());
    }
}
