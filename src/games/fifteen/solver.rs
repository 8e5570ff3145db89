//! The exact Fifteen solver: win/draw/loss and the exact margin of a
//! position under perfect play, fast enough to solve the 4x4 game from the
//! empty board inside the first move's budget and short 6x6 endgames.
//!
//! Values are those of [`eval::terminal`]: `POINT * margin + TIE_BREAK *
//! tie-break sign`, from the side to move's view, so the sign of a value is
//! the game's real result (win, draw or loss, tie-break included) and the
//! value itself orders results by margin first.
//!
//! How it is fast:
//! - states are keyed canonically: the eight symmetries of the square fold
//!   onto one key (the smallest of the eight board hashes), hands are
//!   counted per card value (a multiset), removed cells are part of the
//!   board; one table entry keeps a lower and an upper bound, so the
//!   null-window searches below share every result they prove;
//! - win/draw/loss is one or two null-window searches around 0 (is the value
//!   above 0? at least 0?), which prove far less than the exact value;
//! - the margin is found MTD(f)-style: null-window searches that move a
//!   bound each time, starting from the win/draw/loss answer, a whole point
//!   of margin at a time while one side is open;
//! - refutations first: the move stored for the canonical state (mapped
//!   back through its symmetry), then the depth's two killer moves, then
//!   placements by their immediate gain and history; the last card's
//!   replies that remove the mover's cards come first;
//! - each child that probes the table is played one move ahead and its
//!   slot prefetched;
//! - the last card of the game is valued from the block sums without being
//!   played ([`eval::last_placement_value`]).
//!
//! The search is allocation-free after the table is built: moves live in a
//! fixed array per node and positions are copied, not undone.

mod endgame;
mod moves;

use endgame::{last_two, static_bounds, ThreeLeft};
use moves::MoveList;
use super::eval::{self, POINT};
use super::geo::{geo, value_index, MAX_CELLS, VALUES};
use super::{Fifteen, Move};
use crate::clock::CpuTimer;
use crate::protocol::Player;
use crate::search::table::{Pages, Slots};
use crate::search::Game;
use rand::rngs::SmallRng;
use rand::Rng;

/// Above every value a position can have (32 points on 4x4, 70 on 6x6).
const INF: i32 = 2000;
/// A move that is never legal (no card has value 0).
const NO_MOVE: Move = Move { cell: 0, card: 0 };
/// Most cards a position can have left (a 6x6 game deals 22).
const MAX_PLIES: usize = 22;

/// The game's result for the side to move under perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses (on score or on the tie-break).
    Loss,
    /// Equal scores and equal highest cards (or no cards on the board).
    Draw,
    /// The side to move wins (on score or on the tie-break).
    Win,
}

impl Wdl {
    /// The result a solver value stands for.
    pub fn of(value: i32) -> Wdl {
        match value.signum() {
            1 => Wdl::Win,
            0 => Wdl::Draw,
            _ => Wdl::Loss,
        }
    }

    /// "win", "draw" or "loss".
    pub fn word(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

/// What a solve found.
#[derive(Clone, Copy, Debug)]
pub struct Solved {
    /// The exact value for a margin solve; for a win/draw/loss solve, a value
    /// with the right sign (0 for a draw) only.
    pub value: i32,
    /// The result for the side to move.
    pub wdl: Wdl,
    /// A move that achieves the value (for a lost win/draw/loss solve, the
    /// move that held out best in the proof); None when the game is over.
    pub best: Option<Move>,
    /// Positions searched.
    pub nodes: u64,
    /// CPU seconds.
    pub seconds: f64,
}

/// One table entry: bounds on the value of a canonical state and its best
/// move in the canonical frame. `plies == 0` marks an empty slot (states
/// with fewer than two cards left are never stored).
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    lo: i16,
    hi: i16,
    cell: u8,
    /// Value index of the best move's card, or 0xff for none.
    card: u8,
    plies: u8,
}

/// The solver: a table of canonical states and a budget.
pub struct Solver {
    /// Entries in pairs: a key's home slot and its neighbour (`i ^ 1`).
    table: Slots<Entry>,
    nodes: u64,
    timer: CpuTimer,
    /// CPU seconds (from the solve's start) after which the solve gives up.
    budget: f64,
    stopped: bool,
    /// History heuristic: how often (weighted by the game left) placing a
    /// card value on a cell refuted a move, per mover; kept across solves.
    history: [[[i32; 5]; MAX_CELLS]; 2],
    /// The last two moves that refuted a node, latest first, per number of
    /// cards left (tried after the table's move).
    killers: [[Move; 2]; MAX_PLIES + 1],
    /// One move list per number of cards left (each play removes one card
    /// from a hand, so a line of play never reuses a level): built once,
    /// not per node.
    lists: Vec<MoveList>,
}

impl Solver {
    /// A solver with a table of about `bytes` bytes (rounded down to a power
    /// of two entries, at least 1024).
    pub fn new(bytes: usize) -> Solver {
        // Huge pages: its probes land anywhere in up to 128 MiB.
        let table = Slots::new(Slots::<Entry>::log2_fitting(bytes).max(10), Pages::Huge);
        Solver {
            table,
            nodes: 0,
            timer: CpuTimer::start(),
            budget: f64::INFINITY,
            stopped: false,
            history: [[[0; 5]; MAX_CELLS]; 2],
            killers: [[NO_MOVE; 2]; MAX_PLIES + 1],
            lists: (0..=MAX_PLIES).map(|_| MoveList::new()).collect(),
        }
    }

    /// Forgets every stored result (a solve of an unrelated position can
    /// still use them, but a benchmark must not).
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Win, draw or loss of `g` within `budget` CPU seconds (None if the
    /// budget ran out first).
    pub fn wdl(&mut self, g: &Fifteen, budget: f64) -> Option<Solved> {
        self.start(budget);
        let r = self.wdl_inner(g);
        self.finish(r)
    }

    /// The exact value (margin, then tie-break) of `g` within `budget` CPU
    /// seconds (None if the budget ran out first). Settles win/draw/loss
    /// first and then narrows the margin from that side.
    pub fn margin(&mut self, g: &Fifteen, budget: f64) -> Option<Solved> {
        self.start(budget);
        let r = self.wdl_inner(g).and_then(|w| self.mtdf(g, w.0, w.1));
        self.finish(r)
    }

    fn start(&mut self, budget: f64) {
        self.timer = CpuTimer::start();
        self.budget = budget;
        self.nodes = 0;
        self.stopped = false;
    }

    fn finish(&mut self, r: Option<(i32, Option<Move>)>) -> Option<Solved> {
        let (value, best) = r?;
        Some(Solved {
            value,
            wdl: Wdl::of(value),
            best,
            nodes: self.nodes,
            seconds: self.timer.elapsed(),
        })
    }

    /// (a value of the right sign, a move proving it).
    fn wdl_inner(&mut self, g: &Fifteen) -> Option<(i32, Option<Move>)> {
        // One search in the window (-1, 1): 0 is the only value inside, so a
        // fail high is a win, a fail low a loss, anything else a draw.
        self.root(g, -1, 1)
    }

    /// MTD(f): null-window searches, each moving the lower or the upper
    /// bound, until they meet. `guess` has the right sign and `guess_move`
    /// achieves at least a value of that sign.
    fn mtdf(&mut self, g: &Fifteen, guess: i32, guess_move: Option<Move>) -> Option<(i32, Option<Move>)> {
        // A win/draw/loss search leaves a lower bound above 0 or an upper
        // bound below it.
        let (mut lo, mut hi) = match Wdl::of(guess) {
            Wdl::Win => (guess, INF),
            Wdl::Draw => return Some((0, guess_move)),
            Wdl::Loss => (-INF, guess),
        };
        let mut best = guess_move;
        while lo < hi {
            let beta = next_beta(lo, hi);
            let (v, mv) = self.root(g, beta - 1, beta)?;
            if v >= beta {
                lo = v;
                best = mv;
            } else {
                hi = v;
            }
        }
        Some((lo, best))
    }

    /// A search of the root that also names the move behind its value: the
    /// best move when the value is inside the window, the refuting move on a
    /// fail high; for a fail low, the move whose bound was highest.
    fn root(&mut self, g: &Fifteen, alpha: i32, beta: i32) -> Option<(i32, Option<Move>)> {
        if g.is_over() {
            return Some((eval::terminal(g), None));
        }
        let first = self.probe(g).and_then(|(e, frame)| stored_move(g, &e, frame));
        // The root's list is its own: the levels below reuse theirs.
        let mut list = Box::new(MoveList::new());
        list.generate(g, first, [NO_MOVE; 2], &self.history[g.side().index()]);
        let mut best = -INF - 1;
        let mut best_move = None;
        let mut a = alpha;
        for i in 0..list.len {
            let mv = list.pick(i);
            let v = self.child_value(g, mv, a, beta);
            if self.stopped {
                return None;
            }
            if v > best {
                best = v;
                best_move = Some(mv);
                if v >= beta {
                    break;
                }
                a = a.max(v);
            }
        }
        if let Some(mv) = best_move {
            self.store(g, alpha, beta, best, mv);
        }
        Some((best, best_move))
    }

    #[inline]
    fn child_value(&mut self, g: &Fifteen, mv: Move, alpha: i32, beta: i32) -> i32 {
        let mut c = g.clone();
        // The last card's position is valued without a table lookup, so
        // its symmetry hashes need no update.
        if g.plies_left() == 2 {
            c.play_with::<false>(mv);
        } else {
            c.play(mv);
        }
        self.value_after(g, &c, alpha, beta)
    }

    /// The value for `g`'s mover of `c`, a position one placement after `g`.
    #[inline]
    fn value_after(&mut self, g: &Fifteen, c: &Fifteen, alpha: i32, beta: i32) -> i32 {
        if c.side() != g.side() {
            -self.node(c, -beta, -alpha)
        } else {
            self.node(c, alpha, beta)
        }
    }

    /// `g` after `mv` (which must leave a position the table stores), with
    /// the position's table slots on their way into the cache.
    #[inline]
    fn played(&self, g: &Fifteen, mv: Move) -> Fifteen {
        let mut c = g.clone();
        c.play(mv);
        self.table.prefetch(self.table.pair(c.canonical().0));
        c
    }

    /// What settles a node before its moves are searched: the end of the
    /// game, the last two cards, the budget, the static bounds or the table
    /// (Err with the value to return); otherwise the window narrowed by the
    /// table's bounds and the table's move (Ok).
    fn settle(&mut self, g: &Fifteen, alpha: &mut i32, beta: &mut i32) -> Result<Option<Move>, i32> {
        match g.plies_left() {
            0 => return Err(eval::terminal(g)),
            1 => return Err(eval::last_placement_value(g)),
            2 => {
                if let Some(v) = last_two(g, *alpha, *beta) {
                    return Err(v);
                }
            }
            _ => {}
        }
        if self.nodes & 0xfff == 0 && self.timer.elapsed() > self.budget {
            self.stopped = true;
        }
        if self.stopped {
            return Err(0);
        }
        let (lo, hi) = static_bounds(g);
        if lo >= *beta {
            return Err(lo);
        }
        if hi <= *alpha {
            return Err(hi);
        }
        let mut first = None;
        if let Some((e, frame)) = self.probe(g) {
            let (lo, hi) = (e.lo as i32, e.hi as i32);
            if lo >= *beta || lo == hi {
                return Err(lo);
            }
            if hi <= *alpha {
                return Err(hi);
            }
            *alpha = (*alpha).max(lo);
            *beta = (*beta).min(hi);
            first = stored_move(g, &e, frame);
        }
        Ok(first)
    }

    /// Fail-soft alpha-beta on the canonical table.
    fn node(&mut self, g: &Fifteen, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        let first = match self.settle(g, &mut alpha, &mut beta) {
            Ok(first) => first,
            Err(v) => return v,
        };
        let level = g.plies_left() as usize;
        let three = if level == 3 { ThreeLeft::of(g) } else { None };
        self.lists[level].generate(g, first, self.killers[level], &self.history[g.side().index()]);
        let mut best = -INF - 1;
        let mut best_move = self.lists[level].pick(0);
        let mut a = alpha;
        let len = self.lists[level].len;
        // Children with three or more cards left probe the table: each is
        // played one move ahead and its slot prefetched, so that the memory
        // latency of the probe overlaps the search of its elder sibling.
        let mut ahead = (level >= 4).then(|| self.played(g, best_move));
        for i in 0..len {
            // Ahead of the loop, the move was picked with its position.
            let mv = if level >= 4 {
                self.lists[level].moves[i]
            } else {
                self.lists[level].pick(i)
            };
            let quick = three.as_ref().and_then(|t| {
                self.nodes += 1;
                t.child_value(geo(g.size()), g.free(), mv, a, beta)
            });
            let v = match (quick, ahead.take()) {
                (Some(v), _) => v,
                (None, Some(c)) => {
                    if i + 1 < len {
                        let next = self.lists[level].pick(i + 1);
                        ahead = Some(self.played(g, next));
                    }
                    self.value_after(g, &c, a, beta)
                }
                (None, None) => self.child_value(g, mv, a, beta),
            };
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_move = mv;
                if v >= beta {
                    let k = &mut self.killers[level];
                    if k[0] != mv {
                        k[1] = k[0];
                        k[0] = mv;
                    }
                    let h = &mut self.history[g.side().index()][mv.cell as usize][value_index(mv.card).unwrap_or(0)];
                    *h = (*h + (g.plies_left() * g.plies_left()) as i32).min(1 << 20);
                    break;
                }
                a = a.max(v);
            }
        }
        self.store(g, alpha, beta, best, best_move);
        best
    }

    /// The entry for `g`'s canonical state, with the symmetry that maps `g`
    /// onto it.
    #[inline]
    fn probe(&self, g: &Fifteen) -> Option<(Entry, usize)> {
        let (key, frame) = g.canonical();
        let i = self.table.home(key);
        for slot in [i, i ^ 1] {
            let e = self.table[slot];
            if e.plies != 0 && e.key == key {
                return Some((e, frame));
            }
        }
        None
    }

    /// Records what a search of `g` in window (alpha, beta) proved: `value`
    /// is an upper bound if at most alpha, a lower bound if at least beta,
    /// exact in between. Bounds already known for the state are kept.
    fn store(&mut self, g: &Fifteen, alpha: i32, beta: i32, value: i32, mv: Move) {
        let (key, frame) = g.canonical();
        let plies = g.plies_left().min(255) as u8;
        let i = self.table.home(key);
        // Two slots per key: the same state, else an empty slot, else the
        // one with the shorter game left (cheaper to recompute).
        let slot = if self.table[i].key == key && self.table[i].plies != 0 {
            i
        } else if self.table[i ^ 1].key == key && self.table[i ^ 1].plies != 0 {
            i ^ 1
        } else if self.table[i].plies <= self.table[i ^ 1].plies {
            i
        } else {
            i ^ 1
        };
        let mut e = self.table[slot];
        if e.plies == 0 || e.key != key {
            e = Entry {
                key,
                lo: -INF as i16,
                hi: INF as i16,
                cell: 0,
                card: 0xff,
                plies,
            };
        }
        if value > alpha {
            e.lo = e.lo.max(value as i16);
        }
        if value < beta {
            e.hi = e.hi.min(value as i16);
        }
        if value > alpha || e.card == 0xff {
            e.cell = geo(g.size()).sym[frame][mv.cell as usize];
            e.card = value_index(mv.card).expect("card value") as u8;
        }
        self.table[slot] = e;
    }
}

/// The entry's best move brought back from the canonical frame.
#[inline]
fn stored_move(g: &Fifteen, e: &Entry, frame: usize) -> Option<Move> {
    (e.card != 0xff).then(|| Move {
        cell: geo(g.size()).inv[frame][e.cell as usize],
        card: VALUES[e.card as usize],
    })
}

/// The next MTD(f) test ("is the value at least beta?") between the bounds
/// `lo < hi`. Values are `POINT * margin + TIE_BREAK * tie-break sign`, so
/// while one side is still open the test is for a whole margin (beta =
/// `POINT * m - TIE_BREAK`, the next margin past the known bound): stepping
/// one tie-break at a time crawls through three values per point, each a
/// full search. Once both sides are known (they are then a point or two
/// apart), the upper bound is tested until it holds.
fn next_beta(lo: i32, hi: i32) -> i32 {
    let tb = eval::TIE_BREAK;
    let beta = if lo <= -INF {
        (hi + tb).div_euclid(POINT) * POINT - tb
    } else if hi >= INF {
        (lo + 1 + tb + POINT - 1).div_euclid(POINT) * POINT - tb
    } else {
        hi
    };
    beta.clamp(lo + 1, hi)
}

/// Margin in points of a solver value (the tie-break rounded away).
pub fn margin_points(value: i32) -> i32 {
    (value as f64 / POINT as f64).round() as i32
}

/// A position reached from the empty `n`x`n` board by uniformly random
/// placements (any free cell, any card in hand) until `left` cards remain.
pub fn random_position(rng: &mut SmallRng, n: u8, left: u32) -> Fifteen {
    let mut g = Fifteen::new(n, Player::from_index(rng.gen_range(0..2)));
    while g.plies_left() > left {
        let hand = g.hand(g.side());
        let cards: Vec<u8> = (0..5).filter(|&vi| hand[vi] > 0).map(|vi| VALUES[vi]).collect();
        let free = g.free();
        let cells: Vec<u8> = (0..64).filter(|&c| free >> c & 1 == 1).collect();
        g.play(Move {
            cell: cells[rng.gen_range(0..cells.len())],
            card: cards[rng.gen_range(0..cards.len())],
        });
    }
    g
}

#[cfg(test)]
mod tests;
