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

use super::eval::{self, POINT};
use super::geo::{geo, value_index, Geo, MAX_CELLS, VALUES};
use super::{Fifteen, Move};
use crate::clock::CpuTimer;
use crate::protocol::Player;
use crate::search::table::{Pages, Slots};
use crate::search::Game;
use rand::rngs::SmallRng;
use rand::Rng;

/// Above every value a position can have (32 points on 4x4, 70 on 6x6).
const INF: i32 = 2000;
/// Moves a node can have: every cell times every card value.
const MAX_MOVES: usize = MAX_CELLS * 5;
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

/// A node's moves, best candidates first.
struct MoveList {
    moves: [Move; MAX_MOVES],
    keys: [i32; MAX_MOVES],
    len: usize,
}

impl MoveList {
    fn new() -> Self {
        MoveList {
            moves: [Move { cell: 0, card: 0 }; MAX_MOVES],
            keys: [0; MAX_MOVES],
            len: 0,
        }
    }

    /// Every placement of `g`'s mover (one cell per orbit on a symmetric
    /// board), keyed for [`MoveList::pick`]: `first` (if legal), then by
    /// immediate gain, larger the history of refutations.
    fn generate(&mut self, g: &Fifteen, first: Option<Move>, killers: [Move; 2], history: &[[i32; 5]; MAX_CELLS]) {
        self.len = 0;
        let hand = g.hand(g.side());
        let geo = geo(g.size());
        let stab = g.stabilizer();
        let mut free = g.free();
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            // On a symmetric board keep one cell per orbit: the smallest.
            if stab != 1 && (1..8).any(|s| stab >> s & 1 == 1 && (geo.sym[s][c] as usize) < c) {
                continue;
            }
            for vi in 0..5 {
                if hand[vi] == 0 {
                    continue;
                }
                let mv = Move {
                    cell: c as u8,
                    card: VALUES[vi],
                };
                let key = if Some(mv) == first {
                    i32::MAX
                } else if mv == killers[0] {
                    i32::MAX - 1
                } else if mv == killers[1] {
                    i32::MAX - 2
                } else {
                    eval::move_gain(g, mv) * 64 + history[c][vi]
                };
                self.moves[self.len] = mv;
                self.keys[self.len] = key;
                self.len += 1;
            }
        }
        // The stored move may sit outside the orbit representatives kept above.
        if let Some(f) = first {
            let listed = self.moves[..self.len].contains(&f);
            let legal = g.free() >> f.cell & 1 == 1 && value_index(f.card).is_some_and(|vi| hand[vi] > 0);
            if !listed && legal && self.len < MAX_MOVES {
                self.moves[self.len] = f;
                self.keys[self.len] = i32::MAX;
                self.len += 1;
            }
        }
    }

    /// The `i`th move in order, once moves `0..i` have been picked: the best
    /// of the rest is swapped into place. Picking lazily rather than sorting
    /// up front saves the sort where the first move or two refute the node,
    /// as they do at most nodes.
    #[inline]
    fn pick(&mut self, i: usize) -> Move {
        let mut j = i;
        for k in i + 1..self.len {
            if self.keys[k] > self.keys[j] {
                j = k;
            }
        }
        self.moves.swap(i, j);
        self.keys.swap(i, j);
        self.moves[i]
    }
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

/// A position with three cards left in which the mover holds two and the
/// opponent one: its children are [`two_left`] positions, valued from the
/// block sums without playing the move (most interior nodes are these).
struct ThreeLeft {
    start: Placed,
    /// The mover's hand.
    hand: [u8; 5],
    /// The opponent's card.
    theirs: usize,
}

impl ThreeLeft {
    fn of(g: &Fifteen) -> Option<ThreeLeft> {
        let me = g.side();
        if g.unstable || g.hand_len(me) != 2 {
            return None;
        }
        Some(ThreeLeft {
            start: Placed::of(g),
            hand: g.hand[me],
            theirs: single_card(g.hand[me.other()])?,
        })
    }

    /// The value of playing `mv` for the mover, fail-soft in (alpha, beta);
    /// None in the cases [`two_left`] leaves out.
    #[inline]
    fn child_value(&self, geo: &Geo, free: u64, mv: Move, alpha: i32, beta: i32) -> Option<i32> {
        let vi = value_index(mv.card)?;
        let mut hand = self.hand;
        hand[vi] -= 1;
        let kept = single_card(hand)?;
        let c = mv.cell as usize;
        let mut child = self.start.place(geo, c, mv.card, vi, self.start.removals_if(geo, c, mv.card));
        child.flip();
        two_left(&child, geo, free & !(1u64 << c), self.theirs, kept, -beta, -alpha).map(|v| -v)
    }
}

/// The value index of the only card in a hand holding exactly one.
#[inline]
fn single_card(hand: [u8; 5]) -> Option<usize> {
    let mut found = None;
    for (vi, &k) in hand.iter().enumerate() {
        match (k, found) {
            (0, _) => {}
            (1, None) => found = Some(vi),
            _ => return None,
        }
    }
    found
}

/// The highest card value among `cells`, given the cells of each value.
#[inline]
fn highest(by_value: &[u64; 5], cells: u64) -> i32 {
    let mut k = 5;
    while k > 0 {
        k -= 1;
        if by_value[k] & cells != 0 {
            return VALUES[k] as i32;
        }
    }
    0
}

/// The board after the mover placed the second-to-last card, as the
/// opponent's last card meets it.
struct Placed {
    val: [u8; MAX_CELLS],
    bsum: [u8; MAX_CELLS],
    occ: u64,
    mine: u64,
    theirs: u64,
    /// Cells by card value, so that each side's highest card after a
    /// placement is a few mask tests.
    by_value: [u64; 5],
    /// The mover's score margin in points.
    base: i32,
}

impl Placed {
    /// `g`'s board (the mover's view) before any placement.
    fn of(g: &Fifteen) -> Placed {
        let me = g.side();
        let mut p = Placed {
            val: g.val,
            bsum: g.bsum,
            occ: g.occ,
            mine: g.own[me],
            theirs: g.own[me.other()],
            by_value: [0; 5],
            base: 0,
        };
        let mut occ = g.occ;
        while occ != 0 {
            let q = occ.trailing_zeros() as usize;
            occ &= occ - 1;
            let v = g.val[q];
            p.by_value[value_index(v).unwrap_or(0)] |= 1 << q;
            p.base += if p.mine >> q & 1 == 1 { v as i32 } else { -(v as i32) };
        }
        p
    }

    /// The mover's card `a` (value index `ai`) placed on `c`, the cards it
    /// marks (`marked`, from [`Fifteen::removals_if`]) gone.
    fn place(&self, geo: &Geo, c: usize, a: u8, ai: usize, marked: u64) -> Placed {
        let mut p = Placed {
            val: self.val,
            bsum: self.bsum,
            occ: self.occ | 1 << c,
            mine: self.mine | 1 << c,
            theirs: self.theirs,
            by_value: self.by_value,
            base: self.base + a as i32,
        };
        p.val[c] = a;
        p.by_value[ai] |= 1 << c;
        add_block(geo, &mut p.bsum, c, a);
        let mut m = marked;
        while m != 0 {
            let q = m.trailing_zeros() as usize;
            m &= m - 1;
            let v = p.val[q];
            sub_block(geo, &mut p.bsum, q, v);
            p.base -= if p.mine >> q & 1 == 1 { v as i32 } else { -(v as i32) };
        }
        p.occ &= !marked;
        p.mine &= !marked;
        p.theirs &= !marked;
        for bv in p.by_value.iter_mut() {
            *bv &= !marked;
        }
        p
    }

    /// The cards that placing `card` on `c` would mark (as
    /// [`Fifteen::removals_if`]).
    #[inline]
    fn removals_if(&self, geo: &Geo, c: usize, card: u8) -> u64 {
        let mut marked = 0u64;
        let mut b = geo.block[c] & (self.occ | 1 << c);
        while b != 0 {
            let q = b.trailing_zeros() as usize;
            b &= b - 1;
            if self.bsum[q] + card > super::LIMIT {
                marked |= 1 << q;
            }
        }
        marked
    }

    /// The same board from the other player's side.
    #[inline]
    fn flip(&mut self) {
        std::mem::swap(&mut self.mine, &mut self.theirs);
        self.base = -self.base;
    }

    /// The mover's final value after the opponent's best placement of its
    /// last card `b` on one of `free`; stops as soon as it is at most
    /// `floor` (then it is an upper bound). i32::MAX if `free` is empty.
    fn reply(&self, geo: &Geo, free: u64, b: u8, floor: i32) -> i32 {
        // The cards that `b` would push over wherever it lands next to them.
        let mut vulnerable = 0u64;
        // The cells next to the mover's vulnerable cards: the replies that
        // remove them, tried first as the likeliest to reach the floor.
        let mut threats = 0u64;
        let mut o = self.occ;
        while o != 0 {
            let q = o.trailing_zeros() as usize;
            o &= o - 1;
            if self.bsum[q] + b > super::LIMIT {
                vulnerable |= 1 << q;
                if self.mine >> q & 1 == 1 {
                    threats |= geo.block[q];
                }
            }
        }
        threats &= free;
        let mut worst = i32::MAX;
        let mut seen_quiet = false;
        let mut f = threats;
        let mut rest = free & !threats;
        loop {
            if f == 0 {
                if rest == 0 {
                    break;
                }
                f = rest;
                rest = 0;
            }
            let d = f.trailing_zeros() as usize;
            f &= f - 1;
            let self_over = self.bsum[d] + b > super::LIMIT;
            let marked = geo.block[d] & vulnerable | (self_over as u64) << d;
            if marked == 0 {
                // Every placement that removes nothing ends the same way.
                if seen_quiet {
                    continue;
                }
                seen_quiet = true;
            }
            let mut margin = self.base - if self_over { 0 } else { b as i32 };
            let mut m = marked & !(1u64 << d);
            while m != 0 {
                let q = m.trailing_zeros() as usize;
                m &= m - 1;
                margin += if self.mine >> q & 1 == 1 {
                    -(self.val[q] as i32)
                } else {
                    self.val[q] as i32
                };
            }
            let hi_mine = highest(&self.by_value, self.mine & !marked);
            let mut hi_theirs = highest(&self.by_value, self.theirs & !marked);
            if !self_over {
                hi_theirs = hi_theirs.max(b as i32);
            }
            worst = worst.min(POINT * margin + eval::TIE_BREAK * (hi_mine - hi_theirs).signum());
            if worst <= floor {
                break;
            }
        }
        worst
    }
}

#[inline]
fn add_block(geo: &Geo, bsum: &mut [u8; MAX_CELLS], c: usize, v: u8) {
    let mut blk = geo.block[c];
    while blk != 0 {
        bsum[blk.trailing_zeros() as usize] += v;
        blk &= blk - 1;
    }
}

#[inline]
fn sub_block(geo: &Geo, bsum: &mut [u8; MAX_CELLS], c: usize, v: u8) {
    let mut blk = geo.block[c];
    while blk != 0 {
        bsum[blk.trailing_zeros() as usize] -= v;
        blk &= blk - 1;
    }
}

/// Value of a position in which each player holds one card and the mover
/// places first (None for any other position), fail-soft in (alpha, beta):
/// the mover's placements against the opponent's best last placement, on
/// block sums updated in place rather than through played positions (these
/// positions are most of the search).
fn last_two(g: &Fifteen, alpha: i32, beta: i32) -> Option<i32> {
    if g.unstable {
        return None;
    }
    let me = g.side();
    let ai = single_card(g.hand[me])?;
    let bi = single_card(g.hand[me.other()])?;
    two_left(&Placed::of(g), geo(g.size()), g.free(), ai, bi, alpha, beta)
}

/// [`last_two`] on a board already in [`Placed`] form: the mover holds card
/// index `ai`, the opponent `bi`, `free` are the cells left. A placement is
/// dropped as soon as one reply holds it to alpha or to an earlier
/// placement's value. None when no cell is left for the last card.
fn two_left(start: &Placed, geo: &Geo, free: u64, ai: usize, bi: usize, alpha: i32, beta: i32) -> Option<i32> {
    let mut best = i32::MIN;
    let mut f = free;
    while f != 0 {
        let c = f.trailing_zeros() as usize;
        f &= f - 1;
        let placed = start.place(geo, c, VALUES[ai], ai, start.removals_if(geo, c, VALUES[ai]));
        let worst = placed.reply(geo, free & !(1u64 << c), VALUES[bi], best.max(alpha));
        if worst == i32::MAX {
            return None;
        }
        best = best.max(worst);
        if best >= beta {
            break;
        }
    }
    (best != i32::MIN).then_some(best)
}

/// Bounds on the final value of `g` from what can still change: a card is
/// permanent when no free cell is next to it, or when even the largest
/// cards left, one on each free cell next to it, cannot lift its block over
/// the limit (blocks only lose cards, except by placements). The mover ends
/// with at most its board and hand, and at least its permanent cards; the
/// same holds for the opponent.
fn static_bounds(g: &Fifteen) -> (i32, i32) {
    let geo = geo(g.size());
    let me = g.side();
    let free = g.free();
    // top[k]: the sum of the k largest cards left in both hands.
    let mut top = [0u8; 10];
    let mut k = 0;
    for vi in (0..5).rev() {
        let count = g.hand(me)[vi] + g.hand(me.other())[vi];
        for _ in 0..count {
            if k + 1 < top.len() {
                top[k + 1] = top[k].saturating_add(VALUES[vi]);
                k += 1;
            }
        }
    }
    let last = top[k];
    top[k + 1..].fill(last);
    let mut total = [0i32; 2];
    let mut fixed = [0i32; 2];
    for (i, p) in [me, me.other()].into_iter().enumerate() {
        let mut m = g.owned(p);
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            let v = g.value_at(c) as i32;
            total[i] += v;
            let open = (free & geo.block[c]).count_ones() as usize;
            if open == 0 || g.block_sum(c).saturating_add(top[open.min(9)]) <= super::LIMIT {
                fixed[i] += v;
            }
        }
        let hand: i32 = (0..5).map(|vi| g.hand(p)[vi] as i32 * VALUES[vi] as i32).sum();
        total[i] += hand;
    }
    let hi = POINT * (total[0] - fixed[1]) + eval::TIE_BREAK;
    let lo = POINT * (fixed[0] - total[1]) - eval::TIE_BREAK;
    (lo, hi)
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
