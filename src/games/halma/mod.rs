//! Halma on a 16x16 board: rules on bitboards, the contest file format,
//! evaluation and the race endgame solver.
//!
//! The folder has the layout every game has (`docs/architecture.md`): the
//! rules here ([`Game`]), [`format`](mod@format) (notation, set-up,
//! view), [`eval`] (evaluation and search hints), [`player`] (play policy),
//! [`solver`] (the race endgame, exact), [`bitboard`] (board geometry),
//! `simple` (the deliberately simple rules the tests, the bench and `agent
//! halma simple-perft` check against; not in the contest build) and the tests.
//!
//!
//! Colours are seats: [`Player::One`] is BLACK (camp at the top-left),
//! `Two` is WHITE (camp at the bottom-right).

pub mod bitboard;
pub mod eval;
pub mod format;
pub mod solver;
pub mod player;
#[cfg(any(test, feature = "internals"))]
pub mod simple;
pub mod table;

use crate::protocol::{ByPlayer, Player};
use crate::search::{Game, Outcome};
use bitboard::{col, row, Bitboard, CAMP, CELLS, DIRS};

/// Pieces per side.
pub(crate) const PIECES: u32 = 19;

const fn build_further(colour: Player) -> [Bitboard; CELLS] {
    let mut t = [Bitboard([0; 4]); CELLS];
    let mut s = 0;
    while s < CELLS {
        let (sx, sy) = (s % 16, s / 16);
        let mut c = 0;
        while c < CELLS {
            let (x, y) = (c % 16, c / 16);
            let further = match colour {
                Player::One => x >= sx && y >= sy && (x > sx || y > sy),
                Player::Two => x <= sx && y <= sy && (x < sx || y < sy),
            };
            if further {
                t[s].0[c / 64] |= 1u64 << (c % 64);
            }
            c += 1;
        }
        s += 1;
    }
    t
}

/// `FURTHER[colour][s]`: the cells further than `s` from the colour's own
/// corner in rule 4's sense (not closer on either axis, further on one).
static FURTHER: ByPlayer<[Bitboard; CELLS]> = ByPlayer::new(build_further(Player::One), build_further(Player::Two));

const NO_CELL: u8 = 0xFF;

const fn build_behind() -> [[u8; 8]; CELLS] {
    let mut t = [[NO_CELL; 8]; CELLS];
    let mut s = 0;
    while s < CELLS {
        let (sx, sy) = ((s % 16) as i32, (s / 16) as i32);
        let mut d = 0;
        while d < 8 {
            let (x, y) = (sx - DIRS[d].1, sy - DIRS[d].2);
            if x >= 0 && x < 16 && y >= 0 && y < 16 {
                t[s][d] = (y * 16 + x) as u8;
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// `BEHIND[s][d]`: the cell whose neighbour in direction d is `s` (or
/// `NO_CELL` off the board).
static BEHIND: [[u8; 8]; CELLS] = build_behind();

/// The cells a piece on `from` reaches by a chain of hops, by a flood fill
/// over landing cells (set operations on the whole frontier, one pass per
/// chain length): `sources[d]` are the cells whose neighbour in direction
/// `d` holds a piece ([`Halma::jump_sources`]), and hops land only on
/// `land_ok`. The start cell counts as empty while its piece is under
/// way, so no hop goes over it. The move generator and the race solver
/// share it.
#[inline]
pub(crate) fn hop_chain(from: u8, sources: &[Bitboard; 8], land_ok: Bitboard) -> Bitboard {
    let start = Bitboard::single(from);
    let mut src = *sources;
    for (d, s) in src.iter_mut().enumerate() {
        // The cell from which a hop would go over the start cell.
        let b = BEHIND[from as usize][d];
        if b != NO_CELL {
            s.clear(b);
        }
    }
    let mut reached = start;
    let mut frontier = start;
    loop {
        let mut next = Bitboard::EMPTY;
        for (d, s) in src.iter().enumerate() {
            // The frontier is a few cells: most directions have no hop.
            let f = frontier & *s;
            if !f.is_empty() {
                next |= f.step2(d);
            }
        }
        next &= land_ok & !reached;
        if next.is_empty() {
            return reached & !start;
        }
        reached |= next;
        frontier = next;
    }
}

/// The 8-neighbourhood of each cell.
static NEIGHBOURS: [Bitboard; CELLS] = bitboard::ball(1);

use crate::search::mix::splitmix64 as splitmix;

const fn build_zobrist() -> [[u64; CELLS]; 2] {
    let mut t = [[0u64; CELLS]; 2];
    let mut i = 0;
    while i < 2 * CELLS {
        t[i / CELLS][i % CELLS] = splitmix(0x4841_4C4D_4100 + i as u64);
        i += 1;
    }
    t
}

static ZOBRIST: ByPlayer<[u64; CELLS]> = {
    let t = build_zobrist();
    ByPlayer::new(t[0], t[1])
};
/// Hash key of "white to move".
const ZOBRIST_WHITE: u64 = splitmix(0x0057_4849_5445);

/// A Halma play: the piece on `from` ends on `to`. The hop path of a jump
/// chain is recomputed when the move is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HMove {
    /// Start cell (`y*16+x`).
    pub from: u8,
    /// End cell.
    pub to: u8,
}

impl HMove {
    /// A move between two cells.
    pub fn new(from: u8, to: u8) -> Self {
        HMove { from, to }
    }
}

/// Which legality notion move generation follows (docs/protocol.md#halma rule 4 and 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The agent's: jump chains of a piece in the opposing camp never leave
    /// it, and in the free case a camp piece that neither leaves nor goes
    /// further moves only when nothing else can.
    Narrow,
    /// The referee's: any hop path; rules 2-4 judge only start and end.
    Wide,
}

/// A Halma position with the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Halma {
    /// Pieces by colour.
    pieces: ByPlayer<Bitboard>,
    /// Colour to move.
    side: Player,
    /// Zobrist hash, kept incrementally.
    hash: u64,
    /// Sum of the evaluation table over each colour's pieces, kept incrementally.
    table_sum: ByPlayer<i32>,
}

/// What move generation needs of a position once per node: the reading of
/// the rules, the pieces that can jump, and where jumps start from.
struct MoveSources {
    reading: Reading,
    jumpers: Bitboard,
    sources: [Bitboard; 8],
}

/// Pushes each (start, targets) pair with targets, in order. `None` when
/// `push` asked to stop, else whether anything was pushed.
#[inline]
fn push_nonempty(
    pairs: impl Iterator<Item = (u8, Bitboard)>,
    push: &mut impl FnMut(u8, Bitboard) -> bool,
) -> Option<bool> {
    let mut any = false;
    for (s, t) in pairs {
        if !t.is_empty() {
            any = true;
            if !push(s, t) {
                return None;
            }
        }
    }
    Some(any)
}

impl Halma {
    /// A position from the two piece sets and the colour to move.
    pub fn from_pieces(black: Bitboard, white: Bitboard, side: Player) -> Halma {
        let pieces = ByPlayer::new(black, white);
        let mut hash = if side == Player::Two { ZOBRIST_WHITE } else { 0 };
        let mut table_sum = ByPlayer::new(0, 0);
        for (c, set) in pieces.iter() {
            for p in set.iter() {
                hash ^= ZOBRIST[c][p as usize];
                table_sum[c] += table::TABLE[c][p as usize];
            }
        }
        Halma {
            pieces,
            side,
            hash,
            table_sum,
        }
    }

    /// The standard start with `side` to move.
    pub fn start(side: Player) -> Halma {
        Halma::from_pieces(CAMP[Player::One], CAMP[Player::Two], side)
    }

    /// The pieces of a colour.
    pub fn pieces(&self, colour: Player) -> Bitboard {
        self.pieces[colour]
    }

    /// The colour to move.
    pub fn side(&self) -> Player {
        self.side
    }

    /// Every occupied cell.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.pieces[Player::One] | self.pieces[Player::Two]
    }

    /// The colour of the piece on `c`, if any.
    pub(crate) fn piece_at(&self, c: u8) -> Option<Player> {
        Player::ALL.into_iter().find(|&k| self.pieces[k].has(c))
    }

    /// Whether `colour` has won: every cell of its goal camp is occupied
    /// and at least one holds its piece (rule 5).
    #[inline]
    pub fn has_won(&self, colour: Player) -> bool {
        let goal = CAMP[colour.other()];
        (self.occupied() & goal) == goal && !(self.pieces[colour] & goal).is_empty()
    }

    /// For each direction d, the cells whose neighbour in direction d is
    /// occupied: the cells a jump in direction d can start from.
    #[inline]
    pub(crate) fn jump_sources(&self) -> [Bitboard; 8] {
        let occ = self.occupied();
        let mut r = [Bitboard::EMPTY; 8];
        for (d, slot) in r.iter_mut().enumerate() {
            *slot = occ.step(bitboard::OPPOSITE[d]);
        }
        r
    }

    /// Cells the piece on `from` can reach by one or more jumps, landing only
    /// on `allowed` cells ([`hop_chain`] over this position's pieces).
    /// `sources` comes from [`Halma::jump_sources`].
    #[inline]
    pub(crate) fn jump_reach_with(&self, from: u8, allowed: Bitboard, sources: &[Bitboard; 8]) -> Bitboard {
        hop_chain(from, sources, !self.occupied() & allowed)
    }

    /// The pieces of `set` that have at least one single jump, for all of
    /// them at once: a piece can jump in direction d when the cell beyond
    /// its neighbour in d is empty and the neighbour is occupied.
    #[inline]
    pub(crate) fn jumpers(&self, set: Bitboard) -> Bitboard {
        let occ = self.occupied();
        let empty = !occ;
        let mut r = Bitboard::EMPTY;
        for d in 0..8 {
            let back = bitboard::OPPOSITE[d];
            r |= (empty.step(back) & occ).step(back);
        }
        r & set
    }

    /// Every end cell of a play (step or jump chain) of the piece on `from`,
    /// before rules 2-4. With the narrow reading a piece inside the opposing
    /// camp keeps every hop inside it. `jumpers` comes from [`Halma::jumpers`].
    #[inline]
    fn reach(&self, from: u8, reading: Reading, jumpers: Bitboard, sources: &[Bitboard; 8]) -> Bitboard {
        let goal = CAMP[self.side.other()];
        let allowed = if reading == Reading::Narrow && goal.has(from) {
            goal
        } else {
            Bitboard::FULL
        };
        let steps = NEIGHBOURS[from as usize] & !self.occupied() & allowed;
        if jumpers.has(from) {
            steps | self.jump_reach_with(from, allowed, sources)
        } else {
            steps
        }
    }

    /// Calls `push(from, targets)` for the legal plays of the side to move
    /// under `reading`, grouped by start cell; stops early when `push`
    /// returns false. Returns whether any move was pushed.
    #[inline]
    fn for_each_legal(&self, reading: Reading, mut push: impl FnMut(u8, Bitboard) -> bool) -> bool {
        let own = self.pieces[self.side];
        let in_camp = own & CAMP[self.side];
        let moves = MoveSources {
            reading,
            jumpers: self.jumpers(own),
            sources: self.jump_sources(),
        };
        if in_camp.is_empty() {
            return self.push_free(own, &moves, &mut push).unwrap_or(true);
        }
        self.push_with_camp_pieces(in_camp, &moves, &mut push)
    }

    /// [`Self::for_each_legal`] while the side to move still has pieces in
    /// its camp (`in_camp`): rule 4's tiers in order, each tier only if the
    /// ones before it had no move.
    #[inline]
    fn push_with_camp_pieces(
        &self,
        in_camp: Bitboard,
        moves: &MoveSources,
        push: &mut impl FnMut(u8, Bitboard) -> bool,
    ) -> bool {
        let side = self.side;
        let camp = CAMP[side];
        // First, plays that take a camp piece out of the camp (pushed as each
        // piece's reach is known, so a caller that stops early saves the rest).
        let mut any = false;
        let mut reach = [Bitboard::EMPTY; PIECES as usize];
        let mut starts = [0u8; PIECES as usize];
        let mut n = 0;
        for s in in_camp.iter() {
            let r = self.reach(s, moves.reading, moves.jumpers, &moves.sources);
            if n < reach.len() {
                reach[n] = r;
                starts[n] = s;
                n += 1;
            }
            let out = r & !camp;
            if !out.is_empty() {
                any = true;
                if !push(s, out) {
                    return true;
                }
            }
        }
        if any {
            return true;
        }
        // Then plays that move a camp piece further from the own corner.
        let further = (0..n).map(|i| (starts[i], reach[i] & FURTHER[side][starts[i] as usize]));
        match push_nonempty(further, push) {
            Some(false) => {}
            _ => return true,
        }
        // Free: pieces outside the camp (rules 2-3); camp pieces too under
        // the wide reading, or when nothing else moves.
        let Some(any) = self.push_free(self.pieces[side] & !camp, moves, push) else {
            return true;
        };
        if moves.reading == Reading::Wide || !any {
            return push_nonempty((0..n).map(|i| (starts[i], reach[i])), push).unwrap_or(true) || any;
        }
        any
    }

    /// Pushes the plays of `pieces` that obey rules 2-3 (none ends in the own
    /// camp; a piece in the goal stays there). `None` when `push` asked to
    /// stop, else whether anything was pushed.
    #[inline]
    fn push_free(
        &self,
        pieces: Bitboard,
        moves: &MoveSources,
        push: &mut impl FnMut(u8, Bitboard) -> bool,
    ) -> Option<bool> {
        let camp = CAMP[self.side];
        let goal = CAMP[self.side.other()];
        let targets = pieces.iter().map(|s| {
            let t = self.reach(s, moves.reading, moves.jumpers, &moves.sources) & !camp;
            (s, if goal.has(s) { t & goal } else { t })
        });
        push_nonempty(targets, push)
    }

    /// Number of legal moves of the side to move (the agent's reading),
    /// without listing them: perft's bulk count at the last ply.
    pub(crate) fn count_moves(&self) -> u64 {
        let mut n = 0u64;
        self.for_each_legal(Reading::Narrow, |_, t| {
            n += t.count() as u64;
            true
        });
        n
    }

    /// Appends the legal moves of the side to move under `reading`.
    pub fn moves(&self, reading: Reading, out: &mut Vec<HMove>) {
        self.for_each_legal(reading, |s, t| {
            for to in t.iter() {
                out.push(HMove { from: s, to });
            }
            true
        });
    }

    /// Whether the side to move has any legal move (both readings agree on
    /// this: the free case falls back to any play that rules 2-3 allow).
    pub(crate) fn has_move(&self) -> bool {
        let side = self.side;
        let own = self.pieces[side];
        let camp = CAMP[side];
        let goal = CAMP[side.other()];
        // Fast path: a piece in neither camp with a free neighbour outside
        // the own camp can always step there.
        let roamers = own & !camp & !goal;
        if !(roamers.neighbours() & !self.occupied() & !camp).is_empty() {
            return true;
        }
        self.for_each_legal(Reading::Narrow, |_, _| false)
    }

    /// Whether (from, to) is a legal play under `reading`.
    pub(crate) fn is_legal(&self, mv: HMove, reading: Reading) -> bool {
        let mut found = false;
        self.for_each_legal(reading, |s, t| {
            if s == mv.from && t.has(mv.to) {
                found = true;
                return false;
            }
            true
        });
        found
    }

    /// Total remaining anti-diagonal distance of `colour`'s pieces beyond
    /// what a full goal camp needs: 0 when all are home.
    pub(crate) fn remaining_distance(&self, colour: Player) -> i32 {
        let total: i32 = self.pieces[colour].iter().map(|p| table::diag_distance(colour, p)).sum();
        let home: i32 = CAMP[colour.other()]
            .iter()
            .map(|p| table::diag_distance(colour, p))
            .sum();
        (total - home).max(0)
    }

    /// A simple progress score for the reference agent: minus the sum of
    /// distances to the far corner, own minus opponent's, side-to-move view.
    pub(crate) fn simple_eval(&self) -> i32 {
        let s = self.side;
        let d = |c: Player| -> i32 { self.pieces[c].iter().map(|p| table::diag_distance(c, p)).sum() };
        d(s.other()) - d(s)
    }
}

impl Game for Halma {
    type Move = HMove;

    fn legal_moves(&self, out: &mut Vec<HMove>) {
        // A won game has no moves (the trait's contract: a finished position
        // lists none; the conformance test checks it). Two mask tests.
        if self.has_won(Player::One) || self.has_won(Player::Two) {
            return;
        }
        self.moves(Reading::Narrow, out);
    }

    #[inline]
    fn play(&mut self, mv: HMove) {
        let s = self.side;
        self.pieces[s].clear(mv.from);
        self.pieces[s].set(mv.to);
        self.hash ^= ZOBRIST[s][mv.from as usize] ^ ZOBRIST[s][mv.to as usize] ^ ZOBRIST_WHITE;
        self.table_sum[s] += table::TABLE[s][mv.to as usize] - table::TABLE[s][mv.from as usize];
        self.side = s.other();
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        if self.has_won(self.side.other()) {
            Some(Outcome::Loss)
        } else if self.has_won(self.side) {
            // Only reachable from a hand-made input: treat it as decided.
            Some(Outcome::Win)
        } else if !self.has_move() {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }
}

/// Colour name as the contest writes it.
pub(crate) fn colour_name(c: Player) -> &'static str {
    match c {
        Player::One => "BLACK",
        Player::Two => "WHITE",
    }
}

/// Leaf count `depth` plies below `pos`: moves are distinct (from, to)
/// pairs, sides alternate, a won position is a leaf.
pub fn perft(pos: &Halma, depth: u32) -> u64 {
    let mut bufs: Vec<Vec<HMove>> = (0..=depth).map(|_| Vec::with_capacity(256)).collect();
    perft_rec(pos, depth, &mut bufs)
}

fn perft_rec(pos: &Halma, depth: u32, bufs: &mut [Vec<HMove>]) -> u64 {
    if depth == 0 || pos.has_won(pos.side().other()) {
        return 1;
    }
    if depth == 1 {
        return pos.count_moves();
    }
    let (head, rest) = bufs.split_first_mut().expect("a buffer per ply");
    head.clear();
    pos.moves(Reading::Narrow, head);
    let mut n = 0;
    for &m in head.iter() {
        let mut c = *pos;
        c.play(m);
        n += perft_rec(&c, depth - 1, rest);
    }
    n
}

/// A cell as the contest prints it: `x,y`.
pub(crate) fn cell_text(c: u8) -> String {
    format!("{},{}", col(c), row(c))
}

#[cfg(test)]
mod tests;
