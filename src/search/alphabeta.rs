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

use super::pace::{self, Pace};
use super::tt::{from_tt, to_tt, Bound, Tt};
use super::{outcome_score, Evaluator, Limits, Pacing, SearchInfo, Searchable, WIN, WIN_THRESHOLD};
use crate::clock::CpuTimer;
use fxhash::FxHashSet;

/// Nodes between two looks at the CPU clock.
const CHECK_EVERY: u64 = 1024;
const MAX_PLY: usize = 128;
/// Moves picked by selection before the rest of a node's moves are sorted.
const SELECT_FIRST: usize = 4;

/// Ordering key of the second killer: keys from here up are the TT move and
/// the killers (history is capped at 2^24 and hints are small: far below).
const KILLER_KEY_MIN: i32 = i32::MAX - 3;
/// Late-move reductions: moves searched at full depth before reductions
/// start (the TT move and killers are never reduced anyway).
const LMR_FULL_MOVES: usize = 3;
/// Least remaining depth at which late moves are reduced.
const LMR_MIN_DEPTH: u32 = 3;
/// Move indices the reduction table distinguishes; later ones reduce as the last.
const LMR_MOVES: usize = 256;

/// Plies to reduce the `index`-th move at remaining `depth`: grows with the
/// logarithm of both (the usual shape), so that at Halma's ~150 moves a node
/// the tail is searched a few plies shallower and the first moves in full.
fn lmr_reduction(ln_depth: f64, ln_index: f64) -> u8 {
    let r = 0.5 + ln_depth * ln_index / 2.5;
    r.clamp(0.0, 15.0) as u8
}

/// `lmr_reduction` for every depth up to [`MAX_PLY`] and every index
/// below [`LMR_MOVES`] (none at depth or index 0), from 385 logarithms
/// rather than two per entry: every turn of a contest game is a new
/// process, and 65,000 logarithms were a tenth of a short move's CPU.
fn lmr_table() -> Vec<u8> {
    let ln = |x: usize| (x as f64).ln();
    let ln_index: Vec<f64> = (0..LMR_MOVES).map(ln).collect();
    (0..=MAX_PLY)
        .flat_map(|d| {
            let ln_depth = ln(d);
            ln_index.iter().enumerate().map(move |(i, &li)| {
                if d == 0 || i == 0 {
                    0
                } else {
                    lmr_reduction(ln_depth, li)
                }
            })
        })
        .collect()
}

/// Deepest remaining depth at which late moves are pruned.
const LMP_MAX_DEPTH: u32 = 3;

/// Moves searched in a null-window node at remaining `depth` (at most
/// [`LMP_MAX_DEPTH`]) before the rest are pruned: grows with the square
/// of the depth, as the subtree a pruned move would have had does.
/// (8 + 4d^2 moves: +102 ± 73 Elo at 4 s a game in Halma, `docs/results.md`.)
const fn late_move_limit(depth: u32) -> usize {
    8 + 4 * (depth * depth) as usize
}

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

    #[inline]
    fn check_time(&mut self) {
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            if self.timer.elapsed() >= self.limits.hard {
                self.stopped = true;
            }
            if let Some(n) = self.limits.max_nodes {
                if self.nodes >= n {
                    self.stopped = true;
                }
            }
        }
    }

    /// The score of `child` (reached from `pos`, at `ply`) for the side to
    /// move in `pos`, within that side's window: negated only when the
    /// mover changed.
    #[inline]
    fn child_score(&mut self, pos: &G, child: &G, depth: u32, alpha: i32, beta: i32, ply: u32) -> i32 {
        if child.mover_changes(pos) {
            -self.negamax(child, depth, -beta, -alpha, ply + 1)
        } else {
            self.negamax(child, depth, alpha, beta, ply + 1)
        }
    }

    /// Past the depth limit: the side to move stands on its evaluation or
    /// plays a noisy move, for at most `left` more plies.
    fn quiesce(&mut self, pos: &G, mut alpha: i32, beta: i32, ply: u32, left: u32) -> i32 {
        self.nodes += 1;
        self.check_time();
        if self.stopped {
            return 0;
        }
        if let Some(v) = self.exact_value(pos) {
            return v;
        }
        if let Some(o) = pos.outcome() {
            return outcome_score(o, ply);
        }
        let stand = self.eval.evaluate(pos);
        if stand >= beta || left == 0 || ply as usize >= MAX_PLY - 1 {
            return stand;
        }
        alpha = alpha.max(stand);
        let p = ply as usize;
        let mut buf = std::mem::take(&mut self.bufs[p]);
        buf.clear();
        self.eval.noisy_moves(pos, &mut buf);
        let mut scored = std::mem::take(&mut self.scored[p]);
        scored.clear();
        scored.extend(buf.iter().map(|&m| (pos.order_hint(m), m)));
        self.bufs[p] = buf;
        scored.sort_unstable_by_key(|&(hint, _)| std::cmp::Reverse(hint));
        let mut best = stand;
        for &(_, mv) in scored.iter() {
            let mut child = pos.clone();
            child.play(mv);
            let v = if child.mover_changes(pos) {
                -self.quiesce(&child, -beta, -alpha, ply + 1, left - 1)
            } else {
                self.quiesce(&child, alpha, beta, ply + 1, left - 1)
            };
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
                alpha = alpha.max(v);
                if v >= beta {
                    break;
                }
            }
        }
        self.scored[p] = scored;
        best
    }

    fn negamax(&mut self, pos: &G, depth: u32, mut alpha: i32, beta: i32, ply: u32) -> i32 {
        self.nodes += 1;
        self.check_time();
        self.pv[ply as usize].clear();
        if self.stopped {
            return 0;
        }
        if let Some(v) = self.settled_value(pos) {
            return v.unwrap_or_else(|o| outcome_score(o, ply));
        }
        // No line is longer than the game: an entry searched to the end
        // serves every deeper search.
        let depth = pos.plies_left().map_or(depth, |left| depth.min(left));
        if depth == 0 || ply as usize >= MAX_PLY - 1 {
            if E::QUIESCENCE_PLIES > 0 {
                return self.quiesce(pos, alpha, beta, ply, E::QUIESCENCE_PLIES);
            }
            return self.eval.evaluate(pos);
        }

        let (key, frame) = pos.tt_key();
        let alpha_orig = alpha;
        let tt_move = match self.probe(key, frame, pos, depth, alpha, beta, ply) {
            Ok(score) => return score,
            Err(mv) => mv,
        };
        if let Some(v) = self.frontier(pos, depth, key, frame, beta, ply) {
            return v;
        }
        let p = ply as usize;
        let mut scored = std::mem::take(&mut self.scored[p]);
        if !self.order_moves(pos, p, tt_move, &mut scored) {
            self.scored[p] = scored;
            return 0;
        }
        let mut best_score = -WIN - 1;
        let mut best_move = None;
        let limit = self.moves_to_search(depth, beta - alpha == 1);
        for i in 0..scored.len() {
            select_next(&mut scored, i);
            if i >= limit && scored[i].0 < KILLER_KEY_MIN {
                break;
            }
            let mv = scored[i].1;
            let mut child = pos.clone();
            child.play(mv);
            let reduce = self.reduction(depth, i, scored[i].0, beta - alpha > 1);
            let score = self.pvs(pos, &child, i == 0, depth - 1, reduce, alpha, beta, ply);
            if self.stopped {
                self.scored[p] = scored;
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.extend_pv(p, mv);
                    if score >= beta {
                        if Some(mv) != tt_move {
                            self.reward(pos, mv, p, depth);
                        }
                        if G::HISTORY_MALUS {
                            self.punish(pos, &scored[..i], depth);
                        }
                        break;
                    }
                }
            }
        }
        self.scored[p] = scored;
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_move = best_move.map(|m| pos.move_to_frame(m, frame));
        self.tt
            .store(key, stored_move, to_tt(best_score, ply), depth as i16, bound);
        best_score
    }

    /// A node at remaining depth 1 settled by [`Evaluator::frontier_value`]
    /// without visiting its children: stored as exact (a lower bound when
    /// it reaches `beta`), its move as the PV. `None` at other depths.
    #[inline]
    fn frontier(&mut self, pos: &G, depth: u32, key: u64, frame: u8, beta: i32, ply: u32) -> Option<i32> {
        if depth != 1 {
            return None;
        }
        let (score, mv) = self.eval.frontier_value(pos, beta)?;
        let p = ply as usize;
        self.pv[p].clear();
        self.pv[p].push(mv);
        let stored = pos.move_to_frame(mv, frame);
        let bound = if score >= beta { Bound::Lower } else { Bound::Exact };
        self.tt.store(key, Some(stored), to_tt(score, ply), 1, bound);
        Some(score)
    }

    /// The game's exact value of `pos`, unless turned off.
    #[inline]
    fn exact_value(&mut self, pos: &G) -> Option<i32> {
        if self.exact_values {
            self.eval.exact_value(pos, &mut self.ctx)
        } else {
            None
        }
    }

    /// A value known without searching: the game's exact value (`Ok`), its
    /// outcome (`Err`, scored by the caller at its ply), or the score of a
    /// position the game has already been through.
    #[inline]
    fn settled_value(&mut self, pos: &G) -> Option<Result<i32, super::Outcome>> {
        if let Some(v) = self.exact_value(pos) {
            return Some(Ok(v));
        }
        if let Some(o) = pos.outcome() {
            return Some(Err(o));
        }
        if !self.avoid.is_empty() && self.avoid.contains(&pos.hash()) {
            return Some(Ok(self.avoid_score));
        }
        None
    }

    /// Looks `key` up: `Ok(score)` when the entry settles this node within
    /// (`alpha`, `beta`) at `depth`, else `Err` with the entry's move (in
    /// this position's frame) to try first.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn probe(
        &self,
        key: u64,
        frame: u8,
        pos: &G,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: u32,
    ) -> Result<i32, Option<G::Move>> {
        let Some(e) = self.tt.probe(key) else {
            return Err(None);
        };
        if e.depth as i32 >= depth as i32 {
            let s = from_tt(e.score, ply);
            match e.bound {
                Bound::Exact => return Ok(s),
                Bound::Lower if s >= beta => return Ok(s),
                Bound::Upper if s <= alpha => return Ok(s),
                _ => {}
            }
        }
        Err(e.mv.map(|m| pos.move_from_frame(m, frame)))
    }

    /// Fills `scored` with the legal moves of `pos` (at ply index `p`) and
    /// their ordering keys: the TT move, then the killers, then history plus
    /// the game's hint. False when there is no legal move.
    fn order_moves(&mut self, pos: &G, p: usize, tt_move: Option<G::Move>, scored: &mut Vec<(i32, G::Move)>) -> bool {
        let mut buf = std::mem::take(&mut self.bufs[p]);
        buf.clear();
        pos.legal_moves(&mut buf);
        scored.clear();
        let killers = self.killers[p];
        for &m in &buf {
            let s = if Some(m) == tt_move {
                i32::MAX
            } else if Some(m) == killers[0] {
                i32::MAX - 2
            } else if Some(m) == killers[1] {
                KILLER_KEY_MIN
            } else {
                let h = self.history[pos.history_key(m) % self.history.len()];
                h.saturating_add(pos.order_hint(m))
            };
            scored.push((s, m));
        }
        self.bufs[p] = buf;
        !scored.is_empty()
    }

    /// Principal-variation search of one child: the first move with the
    /// full window, later ones with a null window first (`reduce` plies
    /// shallower, then at full depth if that beat alpha) and again with the
    /// full window only if they beat alpha.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn pvs(
        &mut self,
        pos: &G,
        child: &G,
        first: bool,
        depth: u32,
        reduce: u32,
        alpha: i32,
        beta: i32,
        ply: u32,
    ) -> i32 {
        if first {
            return self.child_score(pos, child, depth, alpha, beta, ply);
        }
        let mut s = self.child_score(pos, child, depth - reduce, alpha, alpha + 1, ply);
        if reduce > 0 && s > alpha && !self.stopped {
            s = self.child_score(pos, child, depth, alpha, alpha + 1, ply);
        }
        if s > alpha && s < beta && !self.stopped {
            self.child_score(pos, child, depth, alpha, beta, ply)
        } else {
            s
        }
    }

    /// Moves a node at remaining `depth` searches before late-move pruning
    /// cuts the rest: only null-window nodes near the leaves are pruned
    /// (the TT move and killers are kept whatever their index).
    #[inline]
    fn moves_to_search(&self, depth: u32, null_window: bool) -> usize {
        if self.late_move_pruning && null_window && depth <= LMP_MAX_DEPTH {
            late_move_limit(depth)
        } else {
            usize::MAX
        }
    }

    /// Plies by which to reduce the `index`-th move (in search order, with
    /// ordering key `key`) of a node at remaining `depth`: none for the
    /// first few or when the game does not reduce, one less in PV nodes,
    /// and never below depth 1.
    #[inline]
    fn reduction(&self, depth: u32, index: usize, key: i32, pv_node: bool) -> u32 {
        // The TT move and the killers (by their keys) are never reduced.
        if self.lmr.is_empty() || depth < LMR_MIN_DEPTH || index < LMR_FULL_MOVES || key >= KILLER_KEY_MIN {
            return 0;
        }
        let r = u32::from(self.lmr[depth as usize * LMR_MOVES + index.min(LMR_MOVES - 1)]);
        r.saturating_sub(u32::from(pv_node)).min(depth - 2)
    }

    /// The PV at ply index `p` becomes `mv` followed by the child's PV.
    #[inline]
    fn extend_pv(&mut self, p: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(p + 1);
        head[p].clear();
        head[p].push(mv);
        head[p].extend_from_slice(&tail[0]);
    }

    /// The moves searched before a cut-off (`tried`) lose the history a
    /// cut-off gains, so moves that keep failing sink in the ordering
    /// (the TT move and killers keep their own places).
    #[inline]
    fn punish(&mut self, pos: &G, tried: &[(i32, G::Move)], depth: u32) {
        for &(key, mv) in tried {
            if key < KILLER_KEY_MIN {
                self.add_history(pos, mv, -((depth * depth) as i32));
            }
        }
    }

    /// Adds `delta` to the history of `mv`, kept within ±2^24.
    #[inline]
    fn add_history(&mut self, pos: &G, mv: G::Move, delta: i32) {
        let slot = pos.history_key(mv) % self.history.len();
        self.history_used = true;
        let h = &mut self.history[slot];
        *h = (*h + delta).clamp(-(1 << 24), 1 << 24);
    }

    /// A quiet move (not the TT move) cut off at `depth`: it becomes the
    /// first killer of ply index `p` and gains history.
    #[inline]
    fn reward(&mut self, pos: &G, mv: G::Move, p: usize, depth: u32) {
        let killers = self.killers[p];
        if killers[0] != Some(mv) {
            self.killers[p] = [Some(mv), killers[0]];
        }
        self.add_history(pos, mv, (depth * depth) as i32);
    }
}

/// Brings the best-keyed of `scored[i..]` to index `i`: selection steps for
/// the first few moves (cut-offs usually come early); at the first one past
/// them, sorts the rest once, since a node without a cut-off would otherwise
/// pay n^2 comparisons (Halma has 100-200 moves per node).
#[inline]
fn select_next<M: Copy>(scored: &mut [(i32, M)], i: usize) {
    if i < SELECT_FIRST {
        let mut j = i;
        for k in i + 1..scored.len() {
            if scored[k].0 > scored[j].0 {
                j = k;
            }
        }
        scored.swap(i, j);
    } else if i == SELECT_FIRST {
        scored[i..].sort_unstable_by_key(|&(hint, _)| std::cmp::Reverse(hint));
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
pub(crate) mod tests {
    use super::*;
    use crate::games::testnim::TestNim as Nim;
    use crate::protocol::Player;
    use crate::search::minimax;
    use crate::search::{Evaluator, Game, SearchHints};

    #[test]
    fn the_reduction_table_is_the_formula_entry_by_entry() {
        let table = lmr_table();
        assert!(table.len() > MAX_PLY * LMR_MOVES);
        for (k, &got) in table.iter().enumerate().take(MAX_PLY * LMR_MOVES + 1) {
            let (d, i) = ((k / LMR_MOVES) as f64, (k % LMR_MOVES) as f64);
            let want = if d == 0.0 || i == 0.0 {
                0
            } else {
                (0.5 + d.ln() * i.ln() / 2.5).clamp(0.0, 15.0) as u8
            };
            assert_eq!(got, want, "depth {d} index {i}");
        }
    }

    #[test]
    fn finds_winning_nim_move() {
        // Take-1-2-or-3 Nim: the mover wins iff pile % 4 != 0, by leaving a multiple of 4.
        for pile in 1..=21u32 {
            let r = search(&Nim::new(pile), Limits::depth(30), 1 << 16);
            if pile % 4 == 0 {
                assert!(r.score <= -WIN_THRESHOLD, "pile {pile}: {r:?}");
            } else {
                assert!(r.score >= WIN_THRESHOLD, "pile {pile}: {r:?}");
                assert_eq!((pile - r.best.unwrap()) % 4, 0, "pile {pile}");
            }
        }
    }

    #[test]
    fn agrees_with_plain_minimax_on_random_trees() {
        use crate::search::testgames::RandomTree;
        for seed in 0..200u64 {
            let g = RandomTree::new(seed);
            for d in 1..=5 {
                let ab = search(&g, Limits::depth(d), 1 << 16);
                let mm = minimax::minimax_value(&g, d, &mut 0);
                assert_eq!(ab.score, mm, "seed {seed} depth {d}");
            }
        }
    }

    #[test]
    fn iteration_costs_are_predicted_by_parity() {
        let predict = |ts: &[f64]| {
            let mut t = IterationTimes::default();
            ts.iter().for_each(|&x| t.push(x));
            t.predict_next()
        };
        // Halma's midgame_1 (depths 4, 5, 6 then 7 at ~0.3 s): the next odd
        // depth is predicted from the odd one before, not 20x the even one.
        let p = predict(&[0.05, 0.02, 0.43]);
        assert!((0.43..1.0).contains(&p), "{p}");
        // After a cheap odd depth the dear even one is not predicted cheap.
        let p = predict(&[0.004, 0.05, 0.02]);
        assert!(p >= 0.2, "{p}");
        // Even growth (x4 a ply) is predicted as before.
        let p = predict(&[1.0, 4.0, 16.0]);
        assert!((p - 64.0).abs() < 1e-9, "{p}");
        assert!((predict(&[1.0, 3.0]) - 9.0).abs() < 1e-9);
    }

    #[test]
    fn stops_on_hard_limit() {
        use crate::search::testgames::RandomTree;
        let g = RandomTree::new(7);
        let t = CpuTimer::start();
        let r = Searcher::new(1 << 16).search(&g, Limits::time(0.02, 0.05), |_| {});
        assert!(t.elapsed() < 0.2, "took {}", t.elapsed());
        assert!(r.best.is_some());
    }

    /// A random tree of fixed length in which some moves keep the mover (a
    /// skipped turn), valued exactly at its end and with "noisy" moves for
    /// quiescence: every hook the core offers, against a plain recursion.
    #[derive(Clone, Copy, Debug)]
    struct SkipTree {
        id: u64,
        ply: u32,
        side: u8,
    }

    const SKIP_LEN: u32 = 7;

    use crate::search::mix::splitmix64 as mix;

    impl SkipTree {
        fn moves(&self) -> u8 {
            if self.ply < SKIP_LEN {
                1 + (mix(self.id ^ 0xabc) % 4) as u8
            } else {
                0
            }
        }

        /// Plain negamax to `depth` with the same leaf rules as the core:
        /// exact values first, depth capped by the game length, then
        /// quiescence (stand pat or a noisy move) for `QUIESCENCE_PLIES`.
        fn reference(&self, depth: u32) -> i32 {
            self.reference_with(depth, true)
        }

        /// [`SkipTree::reference`], with or without the exact values.
        fn reference_with(&self, depth: u32, exact: bool) -> i32 {
            if let Some(v) = SkipEval.exact_value(self, &mut ()).filter(|_| exact) {
                return v;
            }
            if depth.min(SKIP_LEN - self.ply) == 0 {
                return self.quiescence(SkipEval::QUIESCENCE_PLIES, exact);
            }
            (0..self.moves())
                .map(|m| self.signed(m, |c| c.reference_with(depth - 1, exact)))
                .max()
                .unwrap()
        }

        fn quiescence(&self, left: u32, exact: bool) -> i32 {
            if let Some(v) = SkipEval.exact_value(self, &mut ()).filter(|_| exact) {
                return v;
            }
            let stand = SkipEval.evaluate(self);
            if left == 0 {
                return stand;
            }
            let mut noisy = Vec::new();
            SkipEval.noisy_moves(self, &mut noisy);
            noisy
                .into_iter()
                .map(|m| self.signed(m, |c| c.quiescence(left - 1, exact)))
                .fold(stand, i32::max)
        }

        fn signed(&self, mv: u8, value: impl Fn(&SkipTree) -> i32) -> i32 {
            let mut c = *self;
            c.play(mv);
            let v = value(&c);
            if c.side != self.side {
                -v
            } else {
                v
            }
        }
    }

    impl Game for SkipTree {
        type Move = u8;

        fn legal_moves(&self, out: &mut Vec<u8>) {
            out.extend(0..self.moves());
        }

        fn play(&mut self, mv: u8) {
            self.id = mix(self.id.wrapping_mul(31).wrapping_add(mv as u64 + 1));
            self.ply += 1;
            // One move in three keeps the mover.
            if !mix(self.id ^ 0x5).is_multiple_of(3) {
                self.side ^= 1;
            }
        }

        fn outcome(&self) -> Option<crate::search::Outcome> {
            None
        }

        fn hash(&self) -> u64 {
            self.id
        }

        fn mover_changes(&self, before: &Self) -> bool {
            self.side != before.side
        }

        fn plies_left(&self) -> Option<u32> {
            Some(SKIP_LEN - self.ply)
        }
    }

    /// The skip tree's evaluation: random leaves, exact at the end, the
    /// even moves noisy.
    #[derive(Default)]
    struct SkipEval;

    impl Evaluator<SkipTree> for SkipEval {
        type Context = ();

        const QUIESCENCE_PLIES: u32 = 2;

        fn evaluate(&self, pos: &SkipTree) -> i32 {
            (mix(pos.id ^ 0x1234) % 201) as i32 - 100
        }

        fn exact_value(&self, pos: &SkipTree, _ctx: &mut ()) -> Option<i32> {
            (pos.ply == SKIP_LEN).then(|| {
                let v = (mix(pos.id ^ 0x99) % 201) as i32 - 100;
                if pos.side == 0 {
                    v
                } else {
                    -v
                }
            })
        }

        fn noisy_moves(&self, pos: &SkipTree, out: &mut Vec<u8>) {
            out.extend((0..pos.moves()).filter(|m| m % 2 == 0));
        }
    }

    impl SearchHints for SkipTree {}

    impl Searchable for SkipTree {
        type Eval = SkipEval;
        type Reference = SkipEval;
    }

    #[test]
    fn skipped_turns_exact_leaves_and_quiescence_match_plain_negamax() {
        let mut exact_roots = 0;
        for seed in 0..300u64 {
            let root = SkipTree {
                id: mix(seed),
                ply: 0,
                side: (seed % 2) as u8,
            };
            for d in 1..=SKIP_LEN {
                let r = search(&root, Limits::depth(d), 1 << 16);
                assert_eq!(r.score, root.reference(d), "seed {seed} depth {d}");
                assert_eq!(r.exact, d == SKIP_LEN, "seed {seed} depth {d}");
            }
            let solved = Searcher::new(1 << 16).solve(&root);
            assert!(solved.exact && solved.depth == SKIP_LEN);
            assert_eq!(solved.score, root.reference(SKIP_LEN), "seed {seed}");
            // Deepening past the end stops there, exact.
            let deep = search(&root, Limits::depth(40), 1 << 16);
            assert_eq!((deep.depth, deep.score), (SKIP_LEN, solved.score));
            exact_roots += deep.exact as u32;
        }
        assert_eq!(exact_roots, 300);
    }

    #[test]
    fn exact_values_turned_off_leave_the_evaluation_alone() {
        let mut differs = 0;
        for seed in 0..100u64 {
            let root = SkipTree {
                id: mix(seed),
                ply: 0,
                side: (seed % 2) as u8,
            };
            let mut s = Searcher::new(1 << 16);
            s.set_exact_values(false);
            let off = s.search(&root, Limits::depth(SKIP_LEN), |_| {});
            assert_eq!(off.score, root.reference_with(SKIP_LEN, false), "seed {seed}");
            differs += u32::from(off.score != root.reference(SKIP_LEN));
        }
        // The switch matters: most trees' values change without their leaves.
        assert!(differs > 50, "{differs}");
    }

    #[test]
    fn avoid_set_scores_seen_positions() {
        // From pile 5 the only winning move takes 1 (leaving 4). If "pile 4,
        // opponent to move" was already seen and scores 100 for the side to
        // move there, the win is gone: the best is that move at -100.
        let mut s = Searcher::<Nim>::new(1 << 12);
        let mut seen = FxHashSet::default();
        seen.insert(
            Nim {
                pile: 4,
                side: Player::Two,
            }
            .hash(),
        );
        s.set_avoid(seen, 100);
        let r = s.search(&Nim::new(5), Limits::depth(8), |_| {});
        assert_eq!((r.best, r.score), (Some(1), -100));
        let plain = search(&Nim::new(5), Limits::depth(8), 1 << 12);
        assert!(plain.score >= WIN_THRESHOLD);
    }
}
