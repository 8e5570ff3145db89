//! The solver itself: IDA* over one side's pieces ([`Solver`]), with a
//! transposition table of learned lower bounds, each child's static bound
//! computed in its parent, and a budget of CPU time and nodes ([`Budget`]).

use super::bound::{lower_bound, Counts, Packing};
use super::frame::{RaceSide, GOAL, TOP};
use super::goal_db;
use super::memo::{outside_key, OutsideMemo, KEYS, OUTSIDE_MEMO_LOG2};
use super::moves::generate_with;
use super::stuck::OpsMemo;
use super::tight::tight_bound;
use crate::clock::process_cpu_seconds;
use crate::games::halma::bitboard::{Bitboard, CAMP, LEVEL_GE};
use crate::games::halma::HMove;
use crate::protocol::Player;
use crate::search::table::prefetch;

/// The result of a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The exact minimum number of plays, and the first play of a shortest
    /// finish (in black's frame; `None` when already finished).
    Exact {
        /// Minimum plays.
        plays: u32,
        /// First play of a shortest finish.
        first: Option<HMove>,
    },
    /// The budget ran out: the minimum is at least this.
    AtLeast(u32),
}

impl Finish {
    /// The proven lower bound (the exact value when solved).
    pub fn bound(self) -> u32 {
        match self {
            Finish::Exact { plays, .. } => plays,
            Finish::AtLeast(b) => b,
        }
    }
}

/// When a solve gives up.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Process CPU time (seconds, [`process_cpu_seconds`]) to stop at.
    pub deadline: f64,
    /// Node cap.
    pub max_nodes: u64,
}

impl Budget {
    /// `seconds` of CPU from now, no node cap.
    pub fn seconds(seconds: f64) -> Budget {
        Budget {
            deadline: process_cpu_seconds() + seconds,
            max_nodes: u64::MAX,
        }
    }
}

/// Longest solution the solver looks for (plays).
const MAX_PLIES: usize = 96;
/// Plays stored per ply: 19 pieces, each with at most the whole board.
pub(super) const MOVE_CAP: usize = 19 * 64;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    bound: u8,
    /// The solve that stored it ([`Solver::generation`]): entries of
    /// earlier solves count as empty, so a solve need not clear the table.
    generation: u8,
    /// Nodes the search of this entry's subtree took: of the two entries
    /// of a bucket, the cheaper to recompute is replaced.
    work: u32,
}

/// Why a depth-first pass stopped.
enum Pass {
    /// A finish within the threshold: its length.
    Found,
    /// No finish within the threshold; the node's distance is at least this.
    Bound(u32),
    /// Out of budget.
    Abort,
}

/// The single-agent race solver (IDA* with a transposition table). Create it
/// once and reuse it: solving allocates nothing.
pub struct Solver {
    /// Its own array, not `search::table::Slots`: on `Slots` the race
    /// bench measured this solver 10-15% slower (same node counts) and the
    /// cause was not found in time, so only the prefetch is shared.
    table: Vec<Entry>,
    mask: usize,
    moves: Vec<(i16, HMove)>,
    pub(super) path: [HMove; MAX_PLIES],
    nodes: u64,
    budget: Budget,
    next_check: u64,
    found_len: u32,
    expanded: u64,
    /// Stamp of the current solve's table entries (never 0 during a solve).
    generation: u8,
    /// Whether tight nodes use `tight::isolated_and_stuck` (the tests turn it off
    /// for a reference solver without it).
    pub(super) zones: bool,
    /// The memo of [`stuck_ops`](super::stuck::stuck_ops), `None` for a reference solver without
    /// the third stuck play and the stuck plays before the holes (tests).
    pub(super) memo: Option<OpsMemo>,
    /// What the bound knows of each set of outsiders met in this solve.
    outside_memo: OutsideMemo,
}

impl Solver {
    /// A solver with a table of `2^log2_entries` entries (16 bytes each).
    pub fn new(log2_entries: u32) -> Solver {
        // The goal database is built once per process (about 0.2 s), here
        // rather than inside the first timed solve.
        let _ = goal_db::table();
        let n = 1usize << log2_entries;
        Solver {
            table: vec![Entry::default(); n],
            mask: n - 1,
            moves: vec![(0, HMove::new(0, 0)); MAX_PLIES * MOVE_CAP],
            path: [HMove::new(0, 0); MAX_PLIES],
            nodes: 0,
            budget: Budget {
                deadline: f64::INFINITY,
                max_nodes: u64::MAX,
            },
            next_check: 0,
            found_len: 0,
            expanded: 0,
            generation: 0,
            zones: true,
            memo: Some(OpsMemo::new()),
            // An eighth of the table's entries (the leaf solver's is small).
            outside_memo: OutsideMemo::new(log2_entries.saturating_sub(3).clamp(8, OUTSIDE_MEMO_LOG2)),
        }
    }

    /// Nodes visited by the last solve.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Nodes whose plays the last solve generated (the others were cut by
    /// their bound).
    pub fn expanded(&self) -> u64 {
        self.expanded
    }

    /// The minimum number of plays for `side` to fill its goal with region
    /// plays, within `budget`.
    pub fn solve(&mut self, side: &RaceSide, budget: Budget) -> Finish {
        // A new generation instead of clearing the table (16 MiB at most,
        // a few milliseconds, most of a short solve); cleared only when the
        // counter wraps, as 0 is the empty table's.
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.table.iter_mut().for_each(|e| *e = Entry::default());
            self.generation = 1;
        }
        self.nodes = 0;
        self.expanded = 0;
        self.budget = budget;
        self.next_check = 0;
        let pieces = side.pieces;
        if (pieces & GOAL) == GOAL {
            return Finish::Exact { plays: 0, first: None };
        }
        let region = LEVEL_GE[side.floor.min(TOP as u32) as usize] & !CAMP[Player::One];
        let key = pieces.iter().fold(0u64, |k, c| k ^ KEYS[c as usize]);
        let okey = pieces.iter().fold(0u64, |k, c| k ^ outside_key(c));
        let mut threshold = lower_bound(pieces);
        loop {
            if threshold as usize >= MAX_PLIES {
                return Finish::AtLeast(threshold);
            }
            match self.dfs(pieces, key, okey, Counts::of(pieces), region, 0, threshold, None) {
                Pass::Found => {
                    return Finish::Exact {
                        plays: self.found_len,
                        first: Some(self.path[0]),
                    }
                }
                Pass::Bound(b) => threshold = b.max(threshold + 1),
                Pass::Abort => return Finish::AtLeast(threshold),
            }
        }
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.budget.max_nodes {
            return true;
        }
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + 1024;
            return process_cpu_seconds() >= self.budget.deadline;
        }
        false
    }

    /// One depth-first pass below a node `g` plays from the root; `known`
    /// is its static bound when the parent computed it.
    #[allow(clippy::too_many_arguments)]
    fn dfs(
        &mut self,
        pieces: Bitboard,
        key: u64,
        okey: u64,
        counts: Counts,
        region: Bitboard,
        g: u32,
        threshold: u32,
        known: Option<u32>,
    ) -> Pass {
        self.nodes += 1;
        if self.out_of_budget() {
            return Pass::Abort;
        }
        if (pieces & GOAL) == GOAL {
            self.found_len = g;
            return Pass::Found;
        }
        // A stored bound is never below the static one (it was the static
        // bound or more when stored), so a hit spares computing the latter.
        let mut packing = Packing::new();
        let h = match (self.probe(key), known) {
            (Some(bound), _) => bound,
            (None, Some(h)) => h,
            (None, None) => self.outside_memo.bound(pieces, okey, counts, threshold - g, self.generation, &mut packing),
        };
        if g + h > threshold {
            return Pass::Bound(h);
        }
        self.expanded += 1;
        let start_nodes = self.nodes;
        let ply = g as usize;
        // Every play that brings no piece into the goal leaves all the
        // outsiders out, so its child needs at least `outside` more plays:
        // with no slack beyond them only entering plays can finish in time,
        // and the others count as `outside + 1` towards this node's bound.
        let outside = counts.outside;
        let entering_only = g + 1 + outside > threshold;
        if let Some(bound) = self.tight(pieces, okey, region, outside, threshold - g, &mut packing) {
            let bound = h.max(bound);
            self.store(key, bound, 1);
            return Pass::Bound(bound);
        }
        let mut best = if entering_only { outside + 1 } else { u32::MAX };
        let pattern = goal_db::pattern(pieces);
        let goal_table = goal_db::table();
        // An outsider's play that does not enter leaves the goal's pattern
        // as it is, so its child needs `outside + inside` plays or more:
        // with no room for that, outsiders only enter (the plays left out
        // count as `outside + inside + 1` towards this node's bound).
        let inside_now = u32::from(goal_table[pattern as usize]);
        let outsiders_enter = entering_only || g + 1 + outside + inside_now > threshold;
        if outsiders_enter {
            best = best.min(outside + inside_now + 1);
        }
        let n = generate_with(
            pieces,
            region,
            !entering_only,
            outsiders_enter,
            &mut self.moves[ply * MOVE_CAP..(ply + 1) * MOVE_CAP],
        );
        let kept = self.bound_children(pieces, key, okey, counts, ply, n, threshold - g - 1, pattern, &mut best);
        let list = &mut self.moves[ply * MOVE_CAP..ply * MOVE_CAP + kept];
        // A finish is usually found among the first tries: the children
        // with the most slack under the threshold first (IDA*'s usual
        // order), and of those the play that gains the most.
        list.sort_unstable_by_key(|&(k, _)| std::cmp::Reverse(k));
        for i in 0..kept {
            let (k, mv) = self.moves[ply * MOVE_CAP + i];
            let ch = 63 - u32::from(k as u16 >> 9);
            let known = (ch < 63).then_some(ch);
            // The next sibling's slot too: a small subtree leaves it cached.
            if i + 1 < kept {
                let (_, next) = self.moves[ply * MOVE_CAP + i + 1];
                let nkey = key ^ KEYS[next.from as usize] ^ KEYS[next.to as usize];
                prefetch(&self.table[nkey as usize & self.mask & !1]);
            }
            let mut child = pieces;
            child.clear(mv.from);
            child.set(mv.to);
            let ccounts = counts.after(mv);
            let ckey = key ^ KEYS[mv.from as usize] ^ KEYS[mv.to as usize];
            let cokey = okey ^ outside_key(mv.from) ^ outside_key(mv.to);
            match self.dfs(child, ckey, cokey, ccounts, region, g + 1, threshold, known) {
                Pass::Found => {
                    self.path[ply] = mv;
                    return Pass::Found;
                }
                Pass::Bound(b) => best = best.min(b.saturating_add(1)),
                Pass::Abort => return Pass::Abort,
            }
        }
        let bound = best.max(h);
        self.store(key, bound, self.nodes - start_nodes);
        Pass::Bound(bound)
    }

    /// [`tight_bound`] with the solver's memos.
    #[inline]
    fn tight(&mut self, pieces: Bitboard, okey: u64, region: Bitboard, outside: u32, room: u32, packing: &mut Packing) -> Option<u32> {
        let memo = self.memo.as_mut();
        tight_bound(pieces, region, outside, room, self.zones, packing, memo, &mut self.outside_memo, okey, self.generation)
    }

    /// Bounds the `n` children in the move list of `ply` with `room` plays
    /// left after the play, and keeps those that fit, first in the list,
    /// with their bound in the ordering key's high bits; the least bound
    /// plus one of the others goes into `best`. Returns how many are kept.
    ///
    /// The cheap part of each child's bound first (outsiders, then parity
    /// or the goal database: a play changes the goal's pattern by at most
    /// two bits), then the whole static bound, here rather than in the
    /// child: most children fail it, and a child visited costs a table
    /// probe that misses the cache. A stored bound is never below it, so a
    /// child that fails it fails whatever the table holds. The survivors'
    /// table slots are fetched now, well before their probes.
    #[allow(clippy::too_many_arguments)]
    fn bound_children(
        &mut self,
        pieces: Bitboard,
        key: u64,
        okey: u64,
        counts: Counts,
        ply: usize,
        n: usize,
        room: u32,
        pattern: u32,
        best: &mut u32,
    ) -> usize {
        let goal_table = goal_db::table();
        let list = &mut self.moves[ply * MOVE_CAP..ply * MOVE_CAP + n];
        let mut kept = 0;
        for i in 0..n {
            let (k, mv) = list[i];
            let ccounts = counts.after(mv);
            let cpattern = pattern ^ goal_db::BIT[mv.from as usize] ^ goal_db::BIT[mv.to as usize];
            let inside = u32::from(goal_table[cpattern as usize]);
            let quick = ccounts.outside + ccounts.parity().max(inside);
            if quick > room {
                *best = (*best).min(quick + 1);
                continue;
            }
            let mut child = pieces;
            child.clear(mv.from);
            child.set(mv.to);
            let cokey = okey ^ outside_key(mv.from) ^ outside_key(mv.to);
            let ch = self.outside_memo.bound(child, cokey, ccounts, room, self.generation, &mut Packing::new());
            if ch > room {
                *best = (*best).min(ch + 1);
                continue;
            }
            let ckey = key ^ KEYS[mv.from as usize] ^ KEYS[mv.to as usize];
            prefetch(&self.table[ckey as usize & self.mask & !1]);
            // The least bound first, then the most progress: the bound
            // (6 bits; a larger one is computed again in the child) above
            // the progress (9 bits, -256..=255).
            list[kept] = ((63 - ch.min(63) as i16) * 512 + k + 256, mv);
            kept += 1;
        }
        kept
    }

    /// The stored bound of `key`, if its bucket (two neighbouring entries,
    /// one cache line) holds it.
    #[inline]
    fn probe(&self, key: u64) -> Option<u32> {
        let slot = key as usize & self.mask & !1;
        let bucket = &self.table[slot..slot + 2];
        let generation = self.generation;
        bucket
            .iter()
            .find(|e| e.key == key && e.generation == generation)
            .map(|e| u32::from(e.bound))
    }

    /// Stores `bound` for `key` after a search of `work` nodes: over its own
    /// entry, else over the bucket's entry that took less work.
    #[inline]
    fn store(&mut self, key: u64, bound: u32, work: u64) {
        let slot = key as usize & self.mask & !1;
        let generation = self.generation;
        let bucket = &mut self.table[slot..slot + 2];
        // An entry of an earlier solve is an empty one: key 0, no work.
        let live = |e: &Entry| e.generation == generation;
        let key_of = |e: &Entry| if live(e) { e.key } else { 0 };
        let work_of = |e: &Entry| if live(e) { e.work } else { 0 };
        let i = if key_of(&bucket[0]) == key {
            0
        } else if key_of(&bucket[1]) == key || work_of(&bucket[1]) < work_of(&bucket[0]) {
            1
        } else {
            0
        };
        bucket[i] = Entry {
            key,
            bound: bound.min(255) as u8,
            generation,
            work: work.min(u64::from(u32::MAX)) as u32,
        };
    }
}
