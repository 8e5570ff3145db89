//! Fifteen's own search: negamax alpha-beta with principal-variation
//! windows, a transposition table keyed by the symmetry-folded hash (the
//! eight symmetries of the square share one entry), and iterative deepening.
//!
//! Every line of play has the same length (the cards left in both hands), so
//! a search whose depth reaches the end is exact: its leaves are finished
//! games valued by [`eval::terminal`] (score margin, then tie-break). The
//! 4x4 solver is that search run to the end; the 6x6 player deepens until
//! time runs out and reaches exact play in the endgame the same way.

use super::eval::{self, POINT};
use super::geo::{geo, MAX_CELLS};
use super::{Fifteen, Move};
use crate::clock::CpuTimer;
use crate::search::{Game, Limits};
use arrayvec::ArrayVec;

/// Above any reachable value.
const INF: i32 = 1 << 20;
/// Most moves a position can have (36 cells x 5 card values).
const MAX_MOVES: usize = MAX_CELLS * 5;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    score: i16,
    /// Best move in the canonical frame (cell 255 = none).
    cell: u8,
    card: u8,
    /// Remaining depth the entry was searched to, capped at the plies left
    /// (so an exact entry serves every deeper search).
    depth: u8,
    /// 0 empty, 1 exact, 2 lower bound, 3 upper bound.
    bound: u8,
}

const EXACT: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 3;

/// What a search found.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    /// Best move (None only when the game is over).
    pub best: Option<Move>,
    /// Its value in sixteenths of a point (see [`eval`]), side-to-move view.
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    /// True when the search reached the end of the game: `score` is then the
    /// exact value under perfect play.
    pub exact: bool,
    /// Nodes visited.
    pub nodes: u64,
    /// CPU seconds spent.
    pub seconds: f64,
}

/// The search engine; owns its transposition table.
pub struct Engine {
    tt: Vec<Entry>,
    mask: usize,
    history: Vec<i32>,
    nodes: u64,
    stopped: bool,
    timer: CpuTimer,
    hard: f64,
    node_limit: u64,
    /// Fold the eight symmetries into the table key.
    pub use_symmetry: bool,
    /// Evaluation weights for depth-limited leaves.
    pub weights: eval::Weights,
    /// Plies of captures searched beyond the depth limit.
    pub qdepth: u32,
}

impl Engine {
    /// An engine with a table of about `tt_bytes` bytes.
    pub fn new(tt_bytes: usize) -> Engine {
        let want = (tt_bytes / std::mem::size_of::<Entry>()).max(1024);
        let n = 1usize << (usize::BITS - 1 - want.leading_zeros());
        Engine {
            tt: vec![Entry::default(); n],
            mask: n - 1,
            history: vec![0; MAX_CELLS * 16],
            nodes: 0,
            stopped: false,
            timer: CpuTimer::start(),
            hard: f64::INFINITY,
            node_limit: u64::MAX,
            use_symmetry: true,
            weights: eval::WEIGHTS,
            qdepth: 4,
        }
    }

    /// Caps the nodes of the following searches (for tests and benches).
    pub fn set_node_limit(&mut self, n: u64) {
        self.node_limit = n;
    }

    /// Exact value and best move of `g` under perfect play (no time limit).
    pub fn solve(&mut self, g: &Fifteen) -> Found {
        self.iterate(g, f64::INFINITY, f64::INFINITY, true)
    }

    /// Iterative deepening until the end of the game is reached, no new
    /// iteration after `soft` CPU seconds, abort at `hard`. With `direct`,
    /// jumps straight to the full-depth (exact) iteration.
    pub fn iterate(&mut self, g: &Fifteen, soft: f64, hard: f64, direct: bool) -> Found {
        self.iterate_reporting(g, soft, hard, direct, &mut |_| {})
    }

    /// [`Engine::iterate`], calling `on_improve` with the best move of every
    /// finished iteration.
    pub fn iterate_reporting(
        &mut self,
        g: &Fifteen,
        soft: f64,
        hard: f64,
        direct: bool,
        on_improve: &mut dyn FnMut(Move),
    ) -> Found {
        self.timer = CpuTimer::start();
        self.hard = hard;
        self.nodes = 0;
        self.stopped = false;
        for h in self.history.iter_mut() {
            *h /= 4;
        }
        let left = g.plies_left();
        let mut found = Found {
            best: None,
            score: 0,
            depth: 0,
            exact: false,
            nodes: 0,
            seconds: 0.0,
        };
        let mut moves: Vec<(i32, Move)> = Vec::new();
        {
            let mut v = Vec::new();
            if !g.is_over() {
                g.legal_moves(&mut v);
            }
            moves.extend(v.into_iter().map(|m| (eval::move_gain(g, m), m)));
        }
        if moves.is_empty() {
            found.exact = true;
            found.score = eval::terminal(g);
            return found;
        }
        moves.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        found.best = Some(moves[0].1);
        let first = if direct { left } else { 1 };
        // Times of the last two completed iterations, to predict the next.
        let (mut prev_time, mut last_time) = (0.0f64, 0.0f64);
        for depth in first..=left {
            let start = self.timer.elapsed();
            // Do not start an iteration that cannot finish: each costs about
            // the previous one times the recent growth factor.
            if depth > first + 1 && !direct {
                let growth = (last_time / prev_time.max(1e-5)).clamp(2.0, 100.0);
                if start + last_time * growth > hard {
                    break;
                }
            }
            let (best, complete) = self.root(g, &mut moves, depth);
            if let Some((mv, score)) = best {
                found.best = Some(mv);
                found.score = score;
            }
            if !complete {
                break;
            }
            if let Some(mv) = found.best {
                on_improve(mv);
            }
            found.depth = depth;
            if depth == left {
                found.exact = true;
                break;
            }
            prev_time = last_time;
            last_time = self.timer.elapsed() - start;
            if self.timer.elapsed() >= soft {
                break;
            }
        }
        found.nodes = self.nodes;
        found.seconds = self.timer.elapsed();
        found
    }

    /// One root iteration; keeps `moves` ordered best first for the next.
    fn root(&mut self, g: &Fifteen, moves: &mut [(i32, Move)], depth: u32) -> (Option<(Move, i32)>, bool) {
        let mut alpha = -INF;
        let beta = INF;
        let mut best: Option<(Move, i32)> = None;
        let mut best_idx = 0;
        for i in 0..moves.len() {
            let mv = moves[i].1;
            let mut child = g.clone();
            child.play(mv);
            let score = if i == 0 {
                self.child_value(g, &child, depth - 1, alpha, beta)
            } else {
                let s = self.child_value(g, &child, depth - 1, alpha, alpha + 1);
                if s > alpha && !self.stopped {
                    self.child_value(g, &child, depth - 1, alpha, beta)
                } else {
                    s
                }
            };
            if self.stopped {
                return (best, false);
            }
            if score > alpha {
                alpha = score;
                best = Some((mv, score));
                best_idx = i;
            }
        }
        moves[..=best_idx].rotate_right(1);
        (best, true)
    }

    /// Value of `child` (reached from `parent` by one move) for the player
    /// who moved in `parent`, within (alpha, beta) of that player.
    #[inline]
    fn child_value(&mut self, parent: &Fifteen, child: &Fifteen, depth: u32, alpha: i32, beta: i32) -> i32 {
        if child.side() == parent.side() {
            self.negamax(child, depth, alpha, beta)
        } else {
            -self.negamax(child, depth, -beta, -alpha)
        }
    }

    /// Captures only beyond the depth limit: the side to move either stands
    /// on the static evaluation (it can always place a card somewhere
    /// harmless, near enough) or plays a placement that removes more of the
    /// opponent's card values than of its own.
    fn qsearch(&mut self, g: &Fifteen, mut alpha: i32, beta: i32, qdepth: u32) -> i32 {
        self.nodes += 1;
        let left = g.plies_left();
        if left == 0 {
            return eval::terminal(g);
        }
        if left == 1 {
            return last_placement_value(g);
        }
        let stand = eval::evaluate_with(g, &self.weights);
        if stand >= beta || qdepth == 0 {
            return stand;
        }
        alpha = alpha.max(stand);
        let me = g.side();
        let theirs = g.owned(me.other());
        let geo = geo(g.size());
        // Cells next to an opponent card.
        let mut near = 0u64;
        let mut t = theirs;
        while t != 0 {
            near |= geo.block[t.trailing_zeros() as usize];
            t &= t - 1;
        }
        near &= g.free();
        let hand = g.hand(me);
        let mut list: ArrayVec<(i32, Move), MAX_MOVES> = ArrayVec::new();
        while near != 0 {
            let c = near.trailing_zeros() as usize;
            near &= near - 1;
            for vi in 0..5 {
                if hand[vi] == 0 {
                    continue;
                }
                let card = super::geo::VALUES[vi];
                let marked = g.removals_if(c, card);
                if marked & theirs == 0 {
                    continue;
                }
                let gain = eval::move_gain(g, Move { cell: c as u8, card });
                // Worth more than placing the card quietly would be.
                if gain > card as i32 * POINT {
                    list.push((gain, Move { cell: c as u8, card }));
                }
            }
        }
        list.sort_unstable_by_key(|&(s, _)| std::cmp::Reverse(s));
        let mut best = stand;
        for &(_, mv) in list.iter() {
            let mut child = g.clone();
            child.play(mv);
            let v = if child.side() == me {
                self.qsearch(&child, alpha, beta, qdepth - 1)
            } else {
                -self.qsearch(&child, -beta, -alpha, qdepth - 1)
            };
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn negamax(&mut self, g: &Fifteen, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes & 1023 == 0 && (self.timer.elapsed() >= self.hard || self.nodes >= self.node_limit) {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let left = g.plies_left();
        if left == 0 {
            return eval::terminal(g);
        }
        if left == 1 {
            return last_placement_value(g);
        }
        if depth == 0 {
            return self.qsearch(g, alpha, beta, self.qdepth);
        }
        let eff = depth.min(left);
        let geo = geo(g.size());
        let (key, sym) = if self.use_symmetry {
            g.canonical()
        } else {
            (g.hash(), 0)
        };
        let slot = key as usize & self.mask;
        let e = self.tt[slot];
        let mut tt_move = None;
        if e.bound != 0 && e.key == key {
            if e.cell != 255 {
                tt_move = Some(Move {
                    cell: geo.inv[sym][e.cell as usize],
                    card: e.card,
                });
            }
            if e.depth as u32 >= eff {
                let s = e.score as i32;
                match e.bound {
                    EXACT => return s,
                    LOWER if s >= beta => return s,
                    UPPER if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        let alpha0 = alpha;

        let mut list: ArrayVec<(i32, Move), MAX_MOVES> = ArrayVec::new();
        let me = g.side();
        let stab = g.stabilizer();
        let mut free = g.free();
        let hand = g.hand(me);
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            if stab != 1 && (1..8).any(|s| stab >> s & 1 == 1 && (geo.sym[s][c] as usize) < c) {
                continue;
            }
            for vi in 0..5 {
                if hand[vi] > 0 {
                    let mv = Move {
                        cell: c as u8,
                        card: super::geo::VALUES[vi],
                    };
                    let s = if Some(mv) == tt_move {
                        i32::MAX
                    } else {
                        eval::move_gain(g, mv) * 64 + self.history[c * 16 + mv.card as usize]
                    };
                    list.push((s, mv));
                }
            }
        }

        let mut best = -INF;
        let mut best_move = None;
        let n = list.len();
        for i in 0..n {
            let mut j = i;
            for k in i + 1..n {
                if list[k].0 > list[j].0 {
                    j = k;
                }
            }
            list.swap(i, j);
            let mv = list[i].1;
            let mut child = g.clone();
            child.play(mv);
            let score = if i == 0 {
                self.child_value(g, &child, eff - 1, alpha, beta)
            } else {
                let s = self.child_value(g, &child, eff - 1, alpha, alpha + 1);
                if s > alpha && s < beta && !self.stopped {
                    self.child_value(g, &child, eff - 1, alpha, beta)
                } else {
                    s
                }
            };
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        let h = &mut self.history[mv.cell as usize * 16 + mv.card as usize];
                        *h = (*h + (eff * eff) as i32).min(1 << 20);
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            LOWER
        } else if best > alpha0 {
            EXACT
        } else {
            UPPER
        };
        let (cell, card) = match best_move {
            Some(m) => (geo.sym[sym][m.cell as usize], m.card),
            None => (255, 0),
        };
        let slot_e = &mut self.tt[slot];
        // Replace unless the slot holds a deeper result for another position.
        if slot_e.bound == 0 || slot_e.key == key || slot_e.depth as u32 <= eff {
            *slot_e = Entry {
                key,
                score: best as i16,
                cell,
                card,
                depth: eff as u8,
                bound,
            };
        }
        best
    }
}

/// Exact value, for the side to move, of a position in which it places the
/// last card of the game: the best final value over the free cells, computed
/// from the block sums without playing the moves out.
fn last_placement_value(g: &Fifteen) -> i32 {
    let me = g.side();
    let vi = (0..5).find(|&vi| g.hand(me)[vi] > 0).expect("one card left");
    let card = super::geo::VALUES[vi];
    let mine = g.owned(me);
    let theirs = g.owned(me.other());
    let base = g.score(me) as i32 - g.score(me.other()) as i32;
    let mut best = -INF;
    let mut free = g.free();
    let mut seen_quiet = false;
    while free != 0 {
        let c = free.trailing_zeros() as usize;
        free &= free - 1;
        let marked = g.removals_if(c, card);
        if marked == 0 {
            // Every placement that removes nothing ends the same way.
            if seen_quiet {
                continue;
            }
            seen_quiet = true;
        }
        let keep_mine = mine & !marked;
        let keep_theirs = theirs & !marked;
        let survives = marked >> c & 1 == 0;
        let mut margin = base;
        let mut m = marked & !(1u64 << c);
        while m != 0 {
            let q = m.trailing_zeros() as usize;
            m &= m - 1;
            let v = g.value_at(q) as i32;
            margin += if mine >> q & 1 == 1 { -v } else { v };
        }
        let mut hi_mine = if survives { card } else { 0 };
        let mut k = keep_mine;
        while k != 0 {
            hi_mine = hi_mine.max(g.value_at(k.trailing_zeros() as usize));
            k &= k - 1;
        }
        let mut hi_theirs = 0;
        let mut k = keep_theirs;
        while k != 0 {
            hi_theirs = hi_theirs.max(g.value_at(k.trailing_zeros() as usize));
            k &= k - 1;
        }
        if survives {
            margin += card as i32;
        }
        let v = POINT * margin + eval::TIE_BREAK * (hi_mine as i32 - hi_theirs as i32).signum();
        best = best.max(v);
    }
    best
}

/// Table size for a search of `hard` CPU seconds (about 2 M nodes/s, 16
/// bytes an entry), kept small for tiny budgets so zeroing it is cheap.
pub fn tt_bytes_for(hard: f64) -> usize {
    let want = hard * 2.0e6 * 16.0;
    want.clamp(256.0 * 1024.0, 128.0 * 1024.0 * 1024.0) as usize
}

/// The default agent's move: iterative deepening within `limits`, which
/// becomes the exact solver as soon as the remaining game fits in it (on 4x4
/// from the first moves, on 6x6 in the endgame). `on_improve` gets the best
/// move of every finished iteration.
pub fn best_move(g: &Fifteen, limits: &Limits, on_improve: &mut dyn FnMut(Move)) -> Option<Move> {
    let (soft, hard) = (limits.soft, limits.hard);
    if g.is_over() {
        return None;
    }
    let mut e = Engine::new(tt_bytes_for(hard));
    if let Some(w) = eval::weights_from_env() {
        e.weights = w;
    }
    let f = e.iterate_reporting(g, soft, hard, false, on_improve);
    log::info!(
        "fifteen: depth {} of {} score {:.2} exact {} nodes {} in {:.3}s",
        f.depth,
        g.plies_left(),
        f.score as f64 / POINT as f64,
        f.exact,
        f.nodes,
        f.seconds
    );
    f.best
}

#[cfg(test)]
mod tests;
