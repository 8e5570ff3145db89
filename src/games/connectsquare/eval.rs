//! Evaluations on the bitboards: the brief's heuristic (for its greedy
//! player) and the default agent's evaluation and move-ordering hint.
//!
//! Every 2x2 window is named by its bottom-left cell x; its cells are x,
//! x+1 (above), x+s (right) and x+s+1. Shifting a bitboard right by 0, 1, s,
//! s+1 lines those four cells up on x, so per-window counts are bit-sliced
//! boolean sums over the whole board at once.

use super::{ConnectSquare, Move, MAX_BITS};
use crate::protocol::Player;
use crate::search::{Evaluator, SearchHints, Searchable};

/// Per-window own-coin counts of `p` in windows free of `q`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WindowCounts {
    /// Windows (without a `q` coin) holding exactly 1, 2, 3 and 4 coins of `p`.
    pub exactly: [u32; 4],
}

/// Counts the windows open for `p` (no coin of `q`) by number of `p` coins.
#[inline(always)]
pub(crate) fn window_counts(p: u128, q: u128, board: u128, s: u32) -> WindowCounts {
    let anchors = board & (board >> 1) & (board >> s) & (board >> (s + 1));
    let blocked = q | (q >> 1) | (q >> s) | (q >> (s + 1));
    let open = anchors & !blocked;
    let (a, b, c, d) = (p, p >> 1, p >> s, p >> (s + 1));
    let ge1 = a | b | c | d;
    let ge2 = (a & b) | (c & d) | ((a | b) & (c | d));
    let ge3 = (a & b & (c | d)) | (c & d & (a | b));
    let ge4 = a & b & c & d;
    let n = |m: u128| (open & m).count_ones();
    let (n1, n2, n3, n4) = (n(ge1), n(ge2), n(ge3), n(ge4));
    WindowCounts {
        exactly: [n1 - n2, n2 - n3, n3 - n4, n4],
    }
}

/// The brief's heuristic for the owner of `p` against `q`: 1, 10, 100, 1000
/// per open window with 1, 2, 3, 4 own coins.
#[inline]
pub(crate) fn brief_heuristic_bits(p: u128, q: u128, board: u128, s: u32) -> i64 {
    let w = window_counts(p, q, board, s);
    w.exactly[0] as i64 + 10 * w.exactly[1] as i64 + 100 * w.exactly[2] as i64 + 1000 * w.exactly[3] as i64
}

/// Score of a side to move that can complete a square at once, and (negated)
/// of one facing two completions it cannot both stop. Far inside the
/// search's win range, far above any positional score.
pub(crate) const DECIDED: i32 = 100_000;

/// Open window (no opponent coin) with one own coin.
const W_OPEN1: i32 = 2;
/// Open window with two own coins: one more coin on a playable cell makes
/// it a threat.
const W_OPEN2: i32 = 14;
/// Open window with two own coins side by side on the bottom row of the
/// window: both empty cells rest on coins, so either completion is playable
/// now, and the owner can make a threat whenever it likes.
const W_OPEN2_READY: i32 = 10;
/// A move that would create two threats at once (a fork) is available.
const W_FORK: i32 = 150;
/// Weight (in sixteenths) of the ambitious seat's own window terms. Against
/// opponents who defend badly (the brief's greedy player blocks only by
/// accident) building beats blocking; the follow-up defence (answering every
/// coin on top of it) otherwise draws every even-rowed board.
pub(crate) const AMBITION: i32 = 64;
/// Small bonus for the side to move (it acts first on shared chances).
const TEMPO: i32 = 8;

/// Playable cells where a coin of `p` creates two or more threats.
#[inline(always)]
fn fork_cells(pos: &ConnectSquare, p: u128, playable: u128) -> u32 {
    let s = pos.stride();
    let mut n = 0;
    let mut cells = playable;
    while cells != 0 {
        let cell = cells & cells.wrapping_neg();
        cells ^= cell;
        let with = p | cell;
        // The cell above becomes playable too: a threat there counts.
        let t = super::square_completions(with, s) & pos.board_mask() & !(pos.mask() | cell);
        if t.count_ones() >= 2 {
            n += 1;
        }
    }
    n
}

/// One side's positional terms (`p` against `q`).
#[inline(always)]
fn side_terms(pos: &ConnectSquare, p: u128, q: u128, playable: u128) -> i32 {
    let s = pos.stride();
    let board = pos.board_mask();
    let w = window_counts(p, q, board, s);
    let anchors = board & (board >> 1) & (board >> s) & (board >> (s + 1));
    let empty = board & !pos.mask();
    // Bottom two cells own, top two empty.
    let ready = anchors & p & (p >> s) & (empty >> 1) & (empty >> (s + 1));
    W_OPEN1 * w.exactly[0] as i32
        + W_OPEN2 * w.exactly[1] as i32
        + W_OPEN2_READY * ready.count_ones() as i32
        + W_FORK * fork_cells(pos, p, playable).min(2) as i32
}

/// The default agent's evaluation, from the side to move's view.
///
/// In this game every threat (an empty cell completing three own coins of a
/// square) is playable at once: the empty cell of such a square is a top
/// cell resting on a coin, since an empty bottom cell would leave the cell
/// above it empty too. So threats are not positional assets as in Connect
/// Four: the side to move with one wins, two opposing ones lose. What is
/// left to judge is the windows that can still become squares, the ready
/// pairs, and the forks each side has in hand. An `ambitious` seat weighs
/// its own chances above the other's (`AMBITION` sixteenths); `None`: the
/// symmetric evaluation.
pub fn evaluate(pos: &ConnectSquare, ambitious: Option<Player>) -> i32 {
    let me = pos.current();
    let opp = pos.opponent();
    let playable = pos.playable();
    let my_threats = pos.winning_cells(me) & playable;
    if my_threats != 0 {
        return DECIDED;
    }
    let opp_threats = pos.winning_cells(opp) & playable;
    if opp_threats.count_ones() >= 2 {
        return -DECIDED;
    }
    let (mine, theirs) = (side_terms(pos, me, opp, playable), side_terms(pos, opp, me, playable));
    // An ambitious seat counts its own chances at AMBITION/16 of their value,
    // the other side's at par; seen from either side the score stays one
    // zero-sum number, so the search remains consistent.
    let mut score = match ambitious {
        None => mine - theirs,
        Some(a) if a == pos.side() => mine * AMBITION / 16 - theirs,
        Some(_) => mine - theirs * AMBITION / 16,
    } + TEMPO;
    if opp_threats != 0 {
        // The side to move must spend its move blocking.
        score -= 40;
    }
    score
}

/// Move-ordering hint for dropping in `col`: immediate wins, then blocks,
/// then by threats created and centre-first; a move after which the
/// opponent can complete a square goes last.
pub fn order_hint(pos: &ConnectSquare, col: usize) -> i32 {
    let cell = pos.playable() & pos.column_mask(col);
    if cell == 0 {
        return i32::MIN / 2;
    }
    let me = pos.current();
    let opp = pos.opponent();
    if pos.winning_cells(me) & cell != 0 {
        return 1 << 28;
    }
    let opp_threats = pos.winning_cells(opp);
    if opp_threats & cell != 0 {
        return 1 << 27;
    }
    if opp_threats & (pos.playable() | (cell << 1)) != 0 {
        // An opponent threat stays open (or opens above): this loses.
        return -(1 << 27);
    }
    let w = pos.cols() as i32;
    let centre = w - (2 * col as i32 - (w - 1)).abs();
    // Threats this move would create (Pons' ordering idea).
    let after = super::square_completions(me | cell, pos.stride()) & pos.board_mask() & !(pos.mask() | cell);
    (after.count_ones() as i32) * 64 + centre
}

/// Connect Square's evaluation ([`evaluate`]), with the seat whose own
/// chances it weighs up, if any: the default strategy's search sets the
/// agent's seat, every other search (and the reference agent) keeps it
/// symmetric.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnectSquareEval {
    /// The ambitious seat; `None`: symmetric.
    pub ambitious: Option<Player>,
}

impl Searchable for ConnectSquare {
    type Eval = ConnectSquareEval;
    type Reference = ConnectSquareEval;
}

impl Evaluator<ConnectSquare> for ConnectSquareEval {
    type Context = ();

    fn evaluate(&self, pos: &ConnectSquare) -> i32 {
        evaluate(pos, self.ambitious)
    }
}

impl SearchHints for ConnectSquare {
    const HISTORY_SIZE: usize = MAX_BITS;

    fn history_key(&self, mv: Move) -> usize {
        let cell = self.playable() & self.column_mask(mv as usize);
        cell.trailing_zeros() as usize % MAX_BITS
    }

    fn order_hint(&self, mv: Move) -> i32 {
        order_hint(self, mv as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connectsquare::grid::{heuristic, Coin, Grid};

    fn pos(rows: &[&str], side: Player) -> ConnectSquare {
        ConnectSquare::from_grid(&Grid::from_rows(rows).unwrap(), side).unwrap()
    }

    #[test]
    fn brief_heuristic_on_bits_matches_the_grid_by_hand() {
        let g = Grid::from_rows(&["....", "RYYR", "YYYR", "RRYR"]).unwrap();
        let p = ConnectSquare::from_grid(&g, Player::One).unwrap();
        let (r, y) = p.coins();
        let s = p.stride();
        assert_eq!(brief_heuristic_bits(y, r, p.board_mask(), s), 1010);
        assert_eq!(brief_heuristic_bits(r, y, p.board_mask(), s), 0);
        assert_eq!(heuristic(&g, Coin::Y), 1010);
    }

    #[test]
    fn evaluation_sees_immediate_tactics() {
        // R completes columns 0-1, rows 0-1 from the bottom, in column 1.
        let rows = ["....", "....", "R...", "RRYY"];
        assert_eq!(evaluate(&pos(&rows, Player::One), None), DECIDED);
        // Y to move must block in column 1.
        let p = pos(&rows, Player::Two);
        assert!(evaluate(&p, None) < 0);
        assert_eq!(order_hint(&p, 1), 1 << 27);
        assert_eq!(order_hint(&p, 2), -(1 << 27));
        // Two R threats (columns 1 and 2): Y cannot stop both.
        let p = pos(&["....", "....", "R..R", "RRRR"], Player::Two);
        assert_eq!(evaluate(&p, None), -DECIDED);
        // The empty board is symmetric: only the tempo is left.
        assert_eq!(evaluate(&ConnectSquare::new(6, 7, Player::One).unwrap(), None), TEMPO);
    }

    #[test]
    fn forks_and_ready_pairs_count() {
        // R's coins at c1r0 and c2r0 with c1r1 R: a coin at c2r1 makes
        // {c1r0,c1r1,c2r0,c2r1} complete... that is a win, not a fork. Check
        // instead that a position where R to move has a fork scores higher
        // than its mirror with colours swapped.
        let a = pos(&["......", "......", "......", ".RR...", ".YY.Y."], Player::One);
        // R: c1r1, c2r1 on Y's c1r0, c2r0: a ready pair (rows 1-2 cols 1-2)
        // and R to move.
        assert!(evaluate(&a, None) > TEMPO, "{}", evaluate(&a, None));
        let b = pos(&["......", "......", "......", ".YY...", ".RR.R."], Player::Two);
        assert_eq!(evaluate(&a, None), evaluate(&b, None), "colour symmetry");
    }
}
