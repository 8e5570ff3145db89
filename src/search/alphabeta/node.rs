//! The search below the root: negamax with principal-variation search,
//! quiescence, the transposition-table probe, the clock, and the node's
//! move ordering (killers, history, reductions and pruning).

use super::ordering::{late_move_limit, select_next, KILLER_KEY_MIN, LMP_MAX_DEPTH, LMR_FULL_MOVES, LMR_MIN_DEPTH, LMR_MOVES, MAX_PLY};
use super::Searcher;
use crate::search::tt::{from_tt, to_tt, Bound};
use crate::search::{outcome_score, Evaluator, Searchable, WIN};

/// Nodes between two looks at the CPU clock.
pub(super) const CHECK_EVERY: u64 = 1024;
impl<G: Searchable, E: Evaluator<G>> Searcher<G, E> {
    #[inline]
    pub(super) fn check_time(&mut self) {
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
    pub(super) fn child_score(&mut self, pos: &G, child: &G, depth: u32, alpha: i32, beta: i32, ply: u32) -> i32 {
        if child.mover_changes(pos) {
            -self.negamax(child, depth, -beta, -alpha, ply + 1)
        } else {
            self.negamax(child, depth, alpha, beta, ply + 1)
        }
    }

    /// Past the depth limit: the side to move stands on its evaluation or
    /// plays a noisy move, for at most `left` more plies.
    pub(super) fn quiesce(&mut self, pos: &G, mut alpha: i32, beta: i32, ply: u32, left: u32) -> i32 {
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

    pub(super) fn negamax(&mut self, pos: &G, depth: u32, mut alpha: i32, beta: i32, ply: u32) -> i32 {
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
    pub(super) fn frontier(&mut self, pos: &G, depth: u32, key: u64, frame: u8, beta: i32, ply: u32) -> Option<i32> {
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
    pub(super) fn exact_value(&mut self, pos: &G) -> Option<i32> {
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
    pub(super) fn settled_value(&mut self, pos: &G) -> Option<Result<i32, crate::search::Outcome>> {
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
    pub(super) fn probe(
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
    pub(super) fn order_moves(&mut self, pos: &G, p: usize, tt_move: Option<G::Move>, scored: &mut Vec<(i32, G::Move)>) -> bool {
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
    pub(super) fn pvs(
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
    pub(super) fn moves_to_search(&self, depth: u32, null_window: bool) -> usize {
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
    pub(super) fn reduction(&self, depth: u32, index: usize, key: i32, pv_node: bool) -> u32 {
        // The TT move and the killers (by their keys) are never reduced.
        if self.lmr.is_empty() || depth < LMR_MIN_DEPTH || index < LMR_FULL_MOVES || key >= KILLER_KEY_MIN {
            return 0;
        }
        let r = u32::from(self.lmr[depth as usize * LMR_MOVES + index.min(LMR_MOVES - 1)]);
        r.saturating_sub(u32::from(pv_node)).min(depth - 2)
    }

    /// The PV at ply index `p` becomes `mv` followed by the child's PV.
    #[inline]
    pub(super) fn extend_pv(&mut self, p: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(p + 1);
        head[p].clear();
        head[p].push(mv);
        head[p].extend_from_slice(&tail[0]);
    }

    /// The moves searched before a cut-off (`tried`) lose the history a
    /// cut-off gains, so moves that keep failing sink in the ordering
    /// (the TT move and killers keep their own places).
    #[inline]
    pub(super) fn punish(&mut self, pos: &G, tried: &[(i32, G::Move)], depth: u32) {
        for &(key, mv) in tried {
            if key < KILLER_KEY_MIN {
                self.add_history(pos, mv, -((depth * depth) as i32));
            }
        }
    }

    /// Adds `delta` to the history of `mv`, kept within ±2^24.
    #[inline]
    pub(super) fn add_history(&mut self, pos: &G, mv: G::Move, delta: i32) {
        let slot = pos.history_key(mv) % self.history.len();
        self.history_used = true;
        let h = &mut self.history[slot];
        *h = (*h + delta).clamp(-(1 << 24), 1 << 24);
    }

    /// A quiet move (not the TT move) cut off at `depth`: it becomes the
    /// first killer of ply index `p` and gains history.
    #[inline]
    pub(super) fn reward(&mut self, pos: &G, mv: G::Move, p: usize, depth: u32) {
        let killers = self.killers[p];
        if killers[0] != Some(mv) {
            self.killers[p] = [Some(mv), killers[0]];
        }
        self.add_history(pos, mv, (depth * depth) as i32);
    }
}
