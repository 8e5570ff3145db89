//! Fifteen, the numbered-card game, on 4x4 and 6x6 boards.
//!
//! The state is bitmasks (occupied, removed, per-owner cells) plus the card
//! value and the 3x3 block sum of every cell, the two hands as counts per
//! card value, and eight Zobrist hashes (one per symmetry of the square) kept
//! up to date incrementally, so that the canonical hash of a position and
//! "is this board symmetric" are both a handful of integer compares.
//!
//! The folder has the layout every game has (`docs/architecture.md`): the
//! rules here ([`Game`]), [`format`](mod@format) (notation, set-up,
//! view), [`eval`] (evaluation and search hints), [`player`] (play policy,
//! with the exact solver as a step of the default strategy), [`solver`]
//! (the exact endgame solver), [`geo`](mod@geo) (board geometry) and the
//! tests.

pub mod eval;
pub mod format;
pub mod geo;
pub mod player;
#[cfg(test)]
mod simple;
pub mod solver;

use crate::protocol::{ByPlayer, Lines, ParseError, Player};
use crate::search::{Game, Outcome};
use geo::{geo, value_index, Geo, MAX_CELLS, VALUES, ZOBRIST};

/// Sums above this remove a card.
pub(crate) const LIMIT: u8 = 15;

/// Start hand (counts per value of [`VALUES`]) for board side `n`.
pub(crate) fn start_hand(n: u8) -> [u8; 5] {
    if n == 4 {
        [1, 1, 1, 1, 1]
    } else {
        [2, 2, 2, 3, 2]
    }
}

/// Placing card value `card` on cell `cell` (`row * n + col`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Cell index, `row * n + col`.
    pub cell: u8,
    /// Card value (2, 3, 5, 8 or 13).
    pub card: u8,
}

/// A Fifteen position.
#[derive(Clone, Debug)]
pub struct Fifteen {
    n: u8,
    /// The side to move.
    side: Player,
    /// Set after parsing a position in which some card already exceeds the
    /// limit: the next placement must then check every card, not only the
    /// block around it (play always leaves a stable position).
    unstable: bool,
    occ: u64,
    removed: u64,
    own: ByPlayer<u64>,
    val: [u8; MAX_CELLS],
    /// Sum of the card values in the 3x3 block around each cell (the cell
    /// itself included): a card is removed when its block sum exceeds 15.
    bsum: [u8; MAX_CELLS],
    hand: ByPlayer<[u8; 5]>,
    /// `sym_hash[s]`: Zobrist hash of the board transformed by symmetry `s`.
    sym_hash: [u64; 8],
    /// Hands, side and size part of the hash (symmetry-invariant).
    rest_hash: u64,
}

impl Fifteen {
    /// The empty board of side `n` (4 or 6) with full start hands.
    pub fn new(n: u8, first: Player) -> Fifteen {
        assert!(n == 4 || n == 6, "board side must be 4 or 6");
        let mut g = Fifteen {
            n,
            side: first,
            unstable: false,
            occ: 0,
            removed: 0,
            own: ByPlayer::new(0, 0),
            val: [0; MAX_CELLS],
            bsum: [0; MAX_CELLS],
            hand: ByPlayer::new(start_hand(n), start_hand(n)),
            sym_hash: [0; 8],
            rest_hash: 0,
        };
        g.rest_hash = g.compute_rest_hash();
        g
    }

    fn compute_rest_hash(&self) -> u64 {
        let mut h = if self.n == 6 { ZOBRIST.six } else { 0 };
        if self.side == Player::Two {
            h ^= ZOBRIST.side;
        }
        for p in Player::ALL {
            for v in 0..5 {
                h ^= ZOBRIST.hand[p][v][self.hand[p][v] as usize];
            }
        }
        h
    }

    /// Board side.
    pub fn size(&self) -> u8 {
        self.n
    }

    #[inline]
    fn geo(&self) -> &'static Geo {
        geo(self.n)
    }

    /// The player to move.
    #[inline]
    pub fn side(&self) -> Player {
        self.side
    }

    /// Occupied cells.
    #[inline]
    pub(crate) fn occupied(&self) -> u64 {
        self.occ
    }

    /// Removed (blocked) cells.
    #[inline]
    pub fn removed(&self) -> u64 {
        self.removed
    }

    /// Cells holding player `p`'s cards.
    #[inline]
    pub fn owned(&self, p: Player) -> u64 {
        self.own[p]
    }

    /// Cells where a card may still be placed.
    #[inline]
    pub fn free(&self) -> u64 {
        self.geo().full & !(self.occ | self.removed)
    }

    /// Card value on a cell (0 when there is none).
    #[inline]
    pub(crate) fn value_at(&self, cell: usize) -> u8 {
        self.val[cell]
    }

    /// Block sum of a cell (its card and its neighbours' cards).
    #[inline]
    pub(crate) fn block_sum(&self, cell: usize) -> u8 {
        self.bsum[cell]
    }

    /// Player `p`'s hand as counts per value of [`VALUES`].
    #[inline]
    pub fn hand(&self, p: Player) -> [u8; 5] {
        self.hand[p]
    }

    /// Number of cards in player `p`'s hand.
    #[inline]
    pub(crate) fn hand_len(&self, p: Player) -> u32 {
        self.hand[p].iter().map(|&k| k as u32).sum()
    }

    /// Highest card value in player `p`'s hand (0 if empty).
    #[inline]
    pub(crate) fn hand_max(&self, p: Player) -> u8 {
        for v in (0..5).rev() {
            if self.hand[p][v] > 0 {
                return VALUES[v];
            }
        }
        0
    }

    /// Plies left until the game ends (both hands empty).
    #[inline]
    pub fn plies_left(&self) -> u32 {
        self.hand_len(Player::One) + self.hand_len(Player::Two)
    }

    /// True when both hands are empty.
    #[inline]
    pub(crate) fn is_over(&self) -> bool {
        self.hand[Player::One] == [0; 5] && self.hand[Player::Two] == [0; 5]
    }

    /// Sum of player `p`'s cards on the board.
    pub fn score(&self, p: Player) -> u32 {
        let mut m = self.own[p];
        let mut s = 0u32;
        while m != 0 {
            s += self.val[m.trailing_zeros() as usize] as u32;
            m &= m - 1;
        }
        s
    }

    /// Highest of player `p`'s cards on the board (0 if none).
    pub(crate) fn max_card(&self, p: Player) -> u8 {
        let mut m = self.own[p];
        let mut best = 0;
        while m != 0 {
            best = best.max(self.val[m.trailing_zeros() as usize]);
            m &= m - 1;
        }
        best
    }

    /// The winner under the scoring rule and its tie-break (docs/protocol.md#fifteen), judged
    /// on the board as it stands; None for a draw.
    pub fn leader(&self) -> Option<Player> {
        let (a, b) = (self.score(Player::One), self.score(Player::Two));
        if a != b {
            return Some(if a > b { Player::One } else { Player::Two });
        }
        let (x, y) = (self.max_card(Player::One), self.max_card(Player::Two));
        if x != y {
            return Some(if x > y { Player::One } else { Player::Two });
        }
        None
    }

    /// Hash of the position with the board seen through symmetry `s`.
    #[inline]
    pub(crate) fn hash_sym(&self, s: usize) -> u64 {
        self.sym_hash[s] ^ self.rest_hash
    }

    /// The symmetry-folded hash and the symmetry that maps this board to
    /// its canonical form.
    #[inline]
    pub(crate) fn canonical(&self) -> (u64, usize) {
        let mut best = (self.sym_hash[0], 0);
        for s in 1..8 {
            if self.sym_hash[s] < best.0 {
                best = (self.sym_hash[s], s);
            }
        }
        (best.0 ^ self.rest_hash, best.1)
    }

    /// Bitmask over symmetries (bit s) that leave the board unchanged. Equal
    /// 64-bit Zobrist hashes stand for equal boards.
    #[inline]
    pub(crate) fn stabilizer(&self) -> u8 {
        let mut m = 1u8;
        for s in 1..8 {
            if self.sym_hash[s] == self.sym_hash[0] {
                m |= 1 << s;
            }
        }
        m
    }

    /// Puts a card on a cell without any removal check (parsing); `HASH`
    /// keeps the symmetry hashes up to date.
    fn put<const HASH: bool>(&mut self, cell: usize, owner: Player, v: u8) {
        let g = self.geo();
        let vi = value_index(v).expect("card value");
        self.occ |= 1 << cell;
        self.own[owner] |= 1 << cell;
        self.val[cell] = v;
        let mut b = g.block[cell];
        while b != 0 {
            self.bsum[b.trailing_zeros() as usize] += v;
            b &= b - 1;
        }
        if HASH {
            for s in 0..8 {
                self.sym_hash[s] ^= ZOBRIST.card[g.sym[s][cell] as usize][owner][vi];
            }
        }
    }

    /// Marks a cell removed (parsing, and the removal step); `HASH` keeps
    /// the symmetry hashes up to date.
    fn take_off<const HASH: bool>(&mut self, cell: usize) {
        let g = self.geo();
        let v = self.val[cell];
        if v != 0 {
            let owner = if self.own[Player::One] >> cell & 1 == 1 {
                Player::One
            } else {
                Player::Two
            };
            let mut b = g.block[cell];
            while b != 0 {
                self.bsum[b.trailing_zeros() as usize] -= v;
                b &= b - 1;
            }
            if HASH {
                let vi = value_index(v).expect("card value");
                for s in 0..8 {
                    self.sym_hash[s] ^= ZOBRIST.card[g.sym[s][cell] as usize][owner][vi];
                }
            }
            self.val[cell] = 0;
            self.occ &= !(1 << cell);
            self.own[owner] &= !(1 << cell);
        }
        self.removed |= 1 << cell;
        if HASH {
            for s in 0..8 {
                self.sym_hash[s] ^= ZOBRIST.removed[g.sym[s][cell] as usize];
            }
        }
    }

    fn set_hand(&mut self, p: Player, vi: usize, k: u8) {
        self.rest_hash ^= ZOBRIST.hand[p][vi][self.hand[p][vi] as usize] ^ ZOBRIST.hand[p][vi][k as usize];
        self.hand[p][vi] = k;
    }

    /// The cards that placing `card` on `cell` would remove, as a cell mask
    /// (the placed card included if it goes too), without playing it. Only
    /// valid on a stable position (every position reached by play is).
    #[inline]
    pub(crate) fn removals_if(&self, cell: usize, card: u8) -> u64 {
        let g = self.geo();
        let mut marked = 0u64;
        let mut b = g.block[cell] & (self.occ | 1 << cell);
        while b != 0 {
            let q = b.trailing_zeros() as usize;
            b &= b - 1;
            if self.bsum[q] + card > LIMIT {
                marked |= 1 << q;
            }
        }
        marked
    }

    /// Plays a move; without `HASH` the symmetry hashes go stale (for the
    /// solver's last two cards, whose positions are never looked up).
    #[inline]
    pub(crate) fn play_with<const HASH: bool>(&mut self, mv: Move) {
        let g = self.geo();
        let me = self.side();
        let cell = mv.cell as usize;
        let vi = value_index(mv.card).expect("card value");
        debug_assert!(self.hand[me][vi] > 0 && self.free() >> cell & 1 == 1, "illegal {mv:?}");
        self.set_hand(me, vi, self.hand[me][vi] - 1);
        self.put::<HASH>(cell, me, mv.card);
        // Check and mark every card first, then remove the marked ones
        // together. From a stable position only the new card's block can
        // have gone over.
        let mut check = if self.unstable {
            self.occ
        } else {
            self.occ & g.block[cell]
        };
        let mut marked = 0u64;
        while check != 0 {
            let q = check.trailing_zeros() as usize;
            check &= check - 1;
            if self.bsum[q] > LIMIT {
                marked |= 1 << q;
            }
        }
        while marked != 0 {
            let q = marked.trailing_zeros() as usize;
            marked &= marked - 1;
            self.take_off::<HASH>(q);
        }
        self.unstable = false;
        // Players alternate; a player whose hand is empty while the other
        // still holds cards is skipped (only reachable from unusual inputs).
        let other = me.other();
        if self.hand[other] != [0; 5] || self.hand[me] == [0; 5] {
            self.side = other;
            self.rest_hash ^= ZOBRIST.side;
        }
    }

    /// The legality check behind `parse_move`.
    pub(crate) fn check_move(&self, row: usize, col: usize, card: u8) -> Result<Move, String> {
        let n = self.n as usize;
        if row >= n || col >= n {
            return Err(format!("cell {row} {col} is off the {n}x{n} board"));
        }
        let cell = row * n + col;
        if self.removed >> cell & 1 == 1 {
            return Err(format!("cell {row} {col} was removed and cannot be used again"));
        }
        if self.occ >> cell & 1 == 1 {
            return Err(format!("cell {row} {col} already holds a card"));
        }
        let Some(vi) = value_index(card) else {
            return Err(format!("{card} is not a card value (2, 3, 5, 8 or 13)"));
        };
        if self.hand[self.side()][vi] == 0 {
            return Err(format!("player {} has no {card} in hand", self.side.index() + 1));
        }
        Ok(Move { cell: cell as u8, card })
    }

    /// (row, col) of a cell.
    pub(crate) fn row_col(&self, cell: u8) -> (usize, usize) {
        (cell as usize / self.n as usize, cell as usize % self.n as usize)
    }
}

impl PartialEq for Fifteen {
    fn eq(&self, o: &Self) -> bool {
        self.n == o.n
            && self.side == o.side
            && self.occ == o.occ
            && self.removed == o.removed
            && self.own == o.own
            && self.val == o.val
            && self.hand == o.hand
    }
}

impl Game for Fifteen {
    type Move = Move;

    fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.hand[self.side()] == [0; 5] {
            return;
        }
        let g = self.geo();
        let stab = self.stabilizer();
        let mut free = self.free();
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            // On a symmetric board keep one cell per orbit: the smallest.
            if stab != 1 && (1..8).any(|s| stab >> s & 1 == 1 && (g.sym[s][c] as usize) < c) {
                continue;
            }
            for (&count, &card) in self.hand[self.side()].iter().zip(&VALUES) {
                if count > 0 {
                    out.push(Move { cell: c as u8, card });
                }
            }
        }
    }

    fn play(&mut self, mv: Move) {
        self.play_with::<true>(mv);
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        Some(match self.leader() {
            None => Outcome::Draw,
            Some(p) if p == self.side() => Outcome::Win,
            Some(_) => Outcome::Loss,
        })
    }

    fn hash(&self) -> u64 {
        self.hash_sym(0)
    }

    fn mover_changes(&self, before: &Self) -> bool {
        self.side != before.side
    }

    fn plies_left(&self) -> Option<u32> {
        Some(Fifteen::plies_left(self))
    }
}

fn parse_card_token(tok: &str) -> Option<(Player, u8)> {
    let (o, v) = tok.split_once(':')?;
    let owner = match o {
        "1" => Player::One,
        "2" => Player::Two,
        _ => return None,
    };
    let v: u8 = v.parse().ok()?;
    value_index(v)?;
    Some((owner, v))
}

/// Reads the board rows onto `g` (empty, of its size); returns how many
/// cards of each value each player has on the board.
fn parse_board_rows(lines: &mut Lines<'_>, g: &mut Fifteen) -> Result<ByPlayer<[u8; 5]>, ParseError> {
    let n = g.n;
    let nu = n as usize;
    let full = start_hand(n);
    let mut on_board = ByPlayer::new([0u8; 5], [0u8; 5]);
    for r in 0..nu {
        let l = lines.next_line(&format!("board row {r} ({n} tokens)"))?;
        let toks: Vec<&str> = l.tokens().collect();
        if toks.len() != nu {
            return Err(l.error(format!(
                "expected board row {r}: {n} tokens ('.', 'X' or OWNER:CARD such as 1:13), found {} in {:?}",
                toks.len(),
                l.text
            )));
        }
        for (c, tok) in toks.iter().enumerate() {
            let cell = r * nu + c;
            match *tok {
                "." => {}
                "X" | "x" => g.take_off::<true>(cell),
                t => {
                    let (owner, v) = parse_card_token(t).ok_or_else(|| {
                        l.error(format!(
                            "row {r} column {c}: expected '.', 'X' or OWNER:CARD with OWNER 1 or 2 and CARD one of 2 3 5 8 13, found {t:?}"
                        ))
                    })?;
                    let vi = value_index(v).unwrap();
                    on_board[owner][vi] += 1;
                    if on_board[owner][vi] > full[vi] {
                        return Err(l.error(format!(
                            "row {r} column {c}: player {} has more {v}s on the board than the {} the {n}x{n} game deals",
                            owner.index() + 1,
                            full[vi]
                        )));
                    }
                    g.put::<true>(cell, owner, v);
                }
            }
        }
    }
    Ok(on_board)
}

/// Reads both players' hand lines onto `g`, checking that hand and board
/// together hold no more of a value than the game deals.
fn parse_hands(lines: &mut Lines<'_>, g: &mut Fifteen, on_board: &ByPlayer<[u8; 5]>) -> Result<(), ParseError> {
    let n = g.n;
    let full = start_hand(n);
    for p in Player::ALL {
        let k = p.index() + 1;
        let what = format!("player {k}'s hand (\"{k}:\" then card values)");
        let l = lines.next_line(&what)?;
        let prefix = format!("{k}:");
        let rest = l
            .text
            .trim_start()
            .strip_prefix(&prefix)
            .ok_or_else(|| l.error(format!("expected {what}, found {:?}", l.text)))?;
        let mut counts = [0u8; 5];
        for t in rest.split_whitespace() {
            let vi = t.parse::<u8>().ok().and_then(value_index).ok_or_else(|| {
                l.error(format!(
                    "player {k}'s hand: expected card values 2 3 5 8 13, found {t:?}"
                ))
            })?;
            counts[vi] += 1;
            if counts[vi] + on_board[p][vi] > full[vi] {
                return Err(l.error(format!(
                    "player {k} holds more {}s (in hand and on the board) than the {} the {n}x{n} game deals",
                    VALUES[vi], full[vi]
                )));
            }
        }
        for (vi, &k) in counts.iter().enumerate() {
            g.set_hand(p, vi, k);
        }
    }
    Ok(())
}

impl Fifteen {
    fn cell_token(&self, cell: usize) -> String {
        if self.removed >> cell & 1 == 1 {
            "X".into()
        } else if self.occ >> cell & 1 == 1 {
            let o = if self.own[Player::One] >> cell & 1 == 1 { 1 } else { 2 };
            format!("{o}:{}", self.val[cell])
        } else {
            ".".into()
        }
    }
}

#[cfg(test)]
mod tests;
