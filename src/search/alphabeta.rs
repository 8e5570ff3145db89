//! Iterative-deepening negamax alpha-beta with principal-variation search,
//! a transposition table, TT-move-first ordering, killers and history, and a
//! CPU-time check every thousand nodes.
//!
//! Games that need more plug in through the [`Evaluator`] and
//! [`SearchHints`](super::SearchHints) hooks, all no-ops by
//! default: plies on which the same side moves again (the score keeps its
//! sign), exact leaf values, a known game length (depth is capped by it and a
//! search that reaches it is exact), quiescence over noisy moves, and a
//! transposition key in a canonical frame (board symmetries).

mod node;
mod ordering;

use ordering::{lmr_table, MAX_PLY};
use super::pace::{self, Pace};
use super::tt::Tt;
use super::{Evaluator, Limits, Pacing, SearchInfo, Searchable, WIN, WIN_THRESHOLD};
use crate::clock::CpuTimer;
use fxhash::FxHashSet;


/// What one root iteration proved: the best move, its score and its PV.
type IterationBest<M> = Option<(M, i32, Vec<M>)>;

/// Result of a finished search.
#[derive(Clone, Debug)]
pub struct SearchResult<M> {
    /// Best move (None only if the root has no legal move).
    pub best: Option<M>,
    /// Score from the root side's view.
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
    /// CPU seconds spent.
    pub seconds: f64,
    /// Principal variation.
    pub pv: Vec<M>,
    /// True when an iteration reached the end of the game along every line
    /// ([`Game::plies_left`](super::Game::plies_left)): `score` is then the exact value.
    pub exact: bool,
}

/// The searcher: owns the transposition table and ordering tables, so that
/// consecutive searches (e.g. in a bench) can reuse them, and the evaluator
/// it scores positions with (the game's own by default).
pub(crate) struct Searcher<G: Searchable, E: Evaluator<G> = <G as Searchable>::Eval> {
    tt: Tt<G::Move>,
    history: Vec<i32>,
    /// Some history entry is not zero: until then the table's pages (256
    /// KiB in Halma) are never touched, so a short move does not fault
    /// them all in to decay zeros.
    history_used: bool,
    killers: Vec<[Option<G::Move>; 2]>,
    bufs: Vec<Vec<G::Move>>,
    scored: Vec<Vec<(i32, G::Move)>>,
    pv: Vec<Vec<G::Move>>,
    nodes: u64,
    stopped: bool,
    timer: CpuTimer,
    limits: Limits,
    avoid: FxHashSet<u64>,
    avoid_score: i32,
    /// `lmr[depth * LMR_MOVES + index]`: plies to reduce; empty unless the
    /// game asks for [`SearchHints::LATE_MOVE_REDUCTIONS`].
    lmr: Vec<u8>,
    /// Whether late-move pruning is on: the game asks for it
    /// ([`SearchHints::LATE_MOVE_PRUNING`]) and no test turned it off
    /// (`search_pruning`).
    late_move_pruning: bool,
    /// The evaluation.
    eval: E,
    /// The evaluator's per-search state ([`Evaluator::Context`]).
    ctx: E::Context,
    /// Whether the game's exact values are used ([`Searcher::set_exact_values`]).
    exact_values: bool,
}

impl<G: Searchable> Searcher<G> {
    /// A searcher with a transposition table of about `tt_bytes` bytes and
    /// the game's own evaluation.
    pub fn new(tt_bytes: usize) -> Self {
        Searcher::with_evaluator(tt_bytes, G::Eval::default())
    }
}

impl<G: Searchable, E: Evaluator<G>> Searcher<G, E> {
    /// A searcher with a transposition table of about `tt_bytes` bytes that
    /// scores positions with `eval`.
    pub fn with_evaluator(tt_bytes: usize, eval: E) -> Self {
        Searcher {
            tt: Tt::with_bytes(tt_bytes),
            history: vec![0; G::HISTORY_SIZE.max(1)],
            history_used: false,
            killers: vec![[None, None]; MAX_PLY + 1],
            // Empty until a ply is first searched (then kept for the next
            // searches): a depth-1 move allocates for two plies, not all.
            bufs: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            scored: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            pv: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            nodes: 0,
            stopped: false,
            timer: CpuTimer::start(),
            limits: Limits::depth(1),
            avoid: FxHashSet::default(),
            avoid_score: 0,
            lmr: if G::LATE_MOVE_REDUCTIONS {
                lmr_table()
            } else {
                Vec::new()
            },
            late_move_pruning: G::LATE_MOVE_PRUNING,
            eval,
            ctx: E::Context::default(),
            exact_values: true,
        }
    }

    /// Turns the game's [`Evaluator::exact_value`](super::Evaluator::exact_value) off (or on again): the
    /// search then scores every leaf by the evaluation alone. For benches
    /// that measure what the exact values are worth.
    pub(crate) fn set_exact_values(&mut self, on: bool) {
        self.exact_values = on;
    }

    /// Positions (by hash) that the game has already been through: reaching
    /// one again inside the search scores `score` (from the view of the side
    /// to move there), so the agent does not walk in circles.
    pub(crate) fn set_avoid(&mut self, seen: FxHashSet<u64>, score: i32) {
        self.avoid = seen;
        self.avoid_score = score;
    }

    /// Searches `root` within `limits`, calling `on_best` whenever the best
    /// root move is (re)established. Returns the best move of the deepest
    /// iteration that proved something.
    pub fn search(
        &mut self,
        root: &G,
        limits: Limits,
        on_best: impl FnMut(&SearchInfo<G::Move>),
    ) -> SearchResult<G::Move> {
        self.run(root, limits, 1, on_best)
    }

    /// The exact value of `root` for a game of known length
    /// ([`Game::plies_left`](super::Game::plies_left)): one iteration to the end of the game, without
    /// the shallower ones. Without a known length, a plain search to
    /// `MAX_PLY` plies.
    pub fn solve(&mut self, root: &G) -> SearchResult<G::Move> {
        let depth = root.plies_left().unwrap_or(MAX_PLY as u32);
        self.run(root, Limits::depth(depth), depth, |_| {})
    }

    fn run(
        &mut self,
        root: &G,
        limits: Limits,
        first_depth: u32,
        mut on_best: impl FnMut(&SearchInfo<G::Move>),
    ) -> SearchResult<G::Move> {
        self.start(limits);
        self.eval.begin_search(root, &mut self.ctx, &limits);
        let mut root_moves = Self::ordered_root_moves(root);
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            seconds: 0.0,
            pv: root_moves.first().copied().into_iter().collect(),
            exact: false,
        };
        if root_moves.is_empty() {
            result.exact = true;
            result.score = self.exact_value(root).unwrap_or(0);
            return result;
        }

        let game_length = root.plies_left();
        let (first_depth, max_depth) = Self::depth_range(&limits, game_length, first_depth);
        let pacing = pace::effective::<G, E>(limits.pacing);
        let mut pace = E::TIME_SCORES.filter(|_| pacing == Pacing::Adaptive).map(Pace::new);
        // Full pacing searches until the hard limit stops it.
        let mut soft = if pacing == Pacing::Full {
            f64::INFINITY
        } else {
            limits.soft
        };
        // CPU seconds of the completed iterations, to predict the next.
        let mut times = IterationTimes::default();
        for depth in first_depth..=max_depth {
            let start = self.timer.elapsed();
            // (Full pacing wants the partial iteration the hard limit cuts.)
            let predicted = depth > first_depth + 1 && pacing != Pacing::Full;
            if predicted && limits.hard.is_finite() && start + times.predict_next() > limits.hard {
                break;
            }
            let (iter_best, complete) = self.root_iteration(root, &mut root_moves, depth);
            if let Some((mv, score, pv)) = iter_best {
                result.best = Some(mv);
                result.score = score;
                result.pv = pv;
                if complete {
                    log::trace!(
                        "depth {depth} score {score} nodes {} cpu {:.3}",
                        self.nodes,
                        self.timer.elapsed()
                    );
                    result.depth = depth;
                    result.exact = game_length == Some(depth);
                    if let Some(p) = pace.as_mut() {
                        soft = (limits.soft * p.after_iteration(mv, score)).min(limits.hard);
                    }
                }
                on_best(&SearchInfo {
                    best: mv,
                    score,
                    depth,
                    nodes: self.nodes,
                    seconds: self.timer.elapsed(),
                    pv: result.pv.clone(),
                    partial: !complete,
                });
            }
            if !complete || self.done_after(&result, depth, root_moves.len(), soft) {
                break;
            }
            times.push(self.timer.elapsed() - start);
        }
        result.nodes = self.nodes;
        result.seconds = self.timer.elapsed();
        result
    }

    /// Resets the clock, the counters and the per-search tables for a new
    /// search under `limits` (history is kept, decayed: it still orders well).
    fn start(&mut self, limits: Limits) {
        self.timer = CpuTimer::start();
        self.limits = limits;
        self.nodes = 0;
        self.stopped = false;
        self.tt.new_search();
        if self.history_used {
            for h in self.history.iter_mut() {
                *h /= 8;
            }
        }
        for k in self.killers.iter_mut() {
            *k = [None, None];
        }
    }

    /// The root's legal moves in the static order of the first iteration:
    /// by hint, best first (none once the game is over).
    /// The first and last iteration depths: `limits.max_depth` capped by
    /// the plies left in the game (when known) and by `MAX_PLY`.
    fn depth_range(limits: &Limits, game_length: Option<u32>, first_depth: u32) -> (u32, u32) {
        let mut max_depth = limits.max_depth.clamp(1, MAX_PLY as u32 - 1);
        if let Some(left) = game_length {
            max_depth = max_depth.min(left.max(1));
        }
        (first_depth.clamp(1, max_depth), max_depth)
    }

    fn ordered_root_moves(root: &G) -> Vec<G::Move> {
        let mut moves = Vec::new();
        if root.outcome().is_none() {
            root.legal_moves(&mut moves);
        }
        moves.sort_by_key(|&m| std::cmp::Reverse(root.order_hint(m)));
        moves
    }

    /// After a completed iteration at `depth`: whether to stop deepening
    /// (`soft`: the soft limit as paced so far).
    fn done_after(&self, result: &SearchResult<G::Move>, depth: u32, root_moves: usize, soft: f64) -> bool {
        if self.stopped || result.exact {
            return true;
        }
        if root_moves == 1 && depth >= 2 && self.limits.soft.is_finite() {
            return true; // forced move under a clock: no point thinking
        }
        if result.score.abs() >= WIN_THRESHOLD && (WIN - result.score.abs()) as u32 <= depth {
            return true; // proven result within the horizon
        }
        self.timer.elapsed() >= soft
    }

    /// One root iteration with an aspiration-free PVS window. Returns the best
    /// move proven in this iteration (None if even the first move did not
    /// finish) and whether the iteration completed. Reorders `moves` so the
    /// best comes first next time.
    fn root_iteration(&mut self, root: &G, moves: &mut [G::Move], depth: u32) -> (IterationBest<G::Move>, bool) {
        let mut alpha = -WIN - 1;
        let beta = WIN + 1;
        let mut best: IterationBest<G::Move> = None;
        let mut best_idx = 0;
        for (i, &mv) in moves.iter().enumerate() {
            let mut child = root.clone();
            child.play(mv);
            let score = if i == 0 {
                self.child_score(root, &child, depth - 1, alpha, beta, 0)
            } else {
                let s = self.child_score(root, &child, depth - 1, alpha, alpha + 1, 0);
                if s > alpha && !self.stopped {
                    self.child_score(root, &child, depth - 1, alpha, beta, 0)
                } else {
                    s
                }
            };
            if self.stopped {
                return (best, false);
            }
            if score > alpha {
                alpha = score;
                best_idx = i;
                let mut pv = Vec::with_capacity(self.pv[1].len() + 1);
                pv.push(mv);
                pv.extend_from_slice(&self.pv[1]);
                best = Some((mv, score, pv));
            }
        }
        // Best move to the front, the rest keep their relative order.
        moves[..=best_idx].rotate_right(1);
        (best, true)
    }
}

/// Convenience: one search with a fresh table of `tt_bytes`.
pub fn search<G: Searchable>(root: &G, limits: Limits, tt_bytes: usize) -> SearchResult<G::Move> {
    search_reporting(root, limits, tt_bytes, |_| {})
}

/// Convenience: [`search`], calling `on_best` whenever the best root move
/// is (re)established.
pub fn search_reporting<G: Searchable>(
    root: &G,
    limits: Limits,
    tt_bytes: usize,
    on_best: impl FnMut(&SearchInfo<G::Move>),
) -> SearchResult<G::Move> {
    Searcher::<G>::new(tt_bytes).search(root, limits, on_best)
}

/// Convenience: the exact value of `root` for a game of known length
/// ([`Game::plies_left`](super::Game::plies_left)), one iteration to the
/// end of the game, with a fresh table of `tt_bytes`.
pub fn solve<G: Searchable>(root: &G, tt_bytes: usize) -> SearchResult<G::Move> {
    Searcher::<G>::new(tt_bytes).solve(root)
}

/// [`search`] with late-move pruning off (or on, where the game asks for
/// it), for tests that measure what it saves.
#[cfg(test)]
pub(crate) fn search_pruning<G: Searchable>(
    root: &G,
    limits: Limits,
    tt_bytes: usize,
    late_move_pruning: bool,
) -> SearchResult<G::Move> {
    let mut searcher = Searcher::<G>::new(tt_bytes);
    searcher.late_move_pruning = late_move_pruning && G::LATE_MOVE_PRUNING;
    searcher.search(root, limits, |_| {})
}

/// CPU seconds of the last three completed iterations (oldest first), to
/// predict what the next one costs: an iteration cut off at the hard limit
/// is wasted, so one predicted to pass it is not started.
#[derive(Default)]
struct IterationTimes {
    last: [f64; 3],
    known: usize,
}

impl IterationTimes {
    fn push(&mut self, t: f64) {
        self.last = [self.last[1], self.last[2], t];
        self.known += 1;
    }

    /// The next iteration's predicted cost. Growth is measured over two
    /// plies, between iterations of the same parity, and applied to the
    /// iteration of the next one's parity: in Halma an even depth costs
    /// ten to twenty times the odd one before it but only a few times the
    /// odd one after it, so the one-ply ratio after an even iteration
    /// predicted ~20x and refused depth 7 on `midgame_1` that took 0.3 s
    /// after a 0.43 s depth 6. Where growth is even, this is the last time
    /// times the per-ply growth, as before; never less than the last one.
    fn predict_next(&self) -> f64 {
        let [t2, t1, t0] = self.last;
        if self.known >= 3 {
            (t1 * (t0 / t2.max(1e-5)).clamp(2.0, 400.0)).max(t0)
        } else {
            t0 * (t0 / t1.max(1e-5)).clamp(2.0, 100.0)
        }
    }
}

#[cfg(test)]
mod tests;
