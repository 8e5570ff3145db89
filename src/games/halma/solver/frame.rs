//! The race's frame: a side's pieces turned so that they head for the
//! bottom-right corner (black's frame), the goal in it, and the separation
//! test that hands a position to the race model (see the documentation of
//! [`super`]), with random races for the tests and the bench.

use crate::games::halma::bitboard::{level, max_level, min_level, Bitboard, CAMP, LEVEL_GE, TOP_LEVEL};
use crate::games::halma::{HMove, Halma, PIECES};
use crate::protocol::{ByPlayer, Player};
use rand::Rng;

/// Highest level (the goal corner).
pub(super) const TOP: usize = TOP_LEVEL;
/// Lowest level of a goal cell.
pub(super) const GOAL_LOW: usize = 25;
/// Minimum level gap between the armies for [`race_sides`].
pub const GAP: u32 = 5;

/// The goal in black's frame (white's camp).
pub const GOAL: Bitboard = *CAMP.get(Player::Two);

/// A set of cells turned by 180 degrees (cell `c` -> `255 - c`).
#[inline]
pub fn rotate(b: Bitboard) -> Bitboard {
    let w = b.0;
    Bitboard([
        w[3].reverse_bits(),
        w[2].reverse_bits(),
        w[1].reverse_bits(),
        w[0].reverse_bits(),
    ])
}

/// A colour's pieces in black's frame.
#[inline]
pub fn to_frame(colour: Player, b: Bitboard) -> Bitboard {
    match colour {
        Player::One => b,
        Player::Two => rotate(b),
    }
}

/// A move in black's frame back on the real board for `colour`.
#[inline]
pub fn from_frame(colour: Player, mv: HMove) -> HMove {
    match colour {
        Player::One => mv,
        Player::Two => HMove::new(255 - mv.from, 255 - mv.to),
    }
}

/// One side of a separated position, in black's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceSide {
    /// The side's pieces, turned into black's frame.
    pub pieces: Bitboard,
    /// Lowest level the side's plays may touch (its region, see the module
    /// documentation).
    pub floor: u32,
}

/// Both sides' races when the position is separated (module documentation),
/// `None` otherwise.
pub fn race_sides(pos: &Halma) -> Option<ByPlayer<RaceSide>> {
    let black = pos.pieces(Player::One);
    let white = pos.pieces(Player::Two);
    if black.is_empty() || white.is_empty() {
        return None;
    }
    // Cheap necessary conditions first (this runs at every search node):
    // 19 white pieces need a level >= 5 (15 cells lie below), so a black
    // piece below level 10 or a white one above 20 rules separation out.
    if !(black & !LEVEL_GE[10]).is_empty() || !(white & LEVEL_GE[21]).is_empty() {
        return None;
    }
    let min_b = min_level(black);
    let max_w = max_level(white);
    if min_b < max_w + GAP {
        return None;
    }
    // Share the slack beyond the 3 levels that keep the regions apart; two
    // levels behind the rear piece are all a chain from the current
    // position can use.
    let slack = min_b - max_w - 3;
    let black_slack = (slack / 2).min(2);
    let white_slack = (slack - black_slack).min(2);
    Some(ByPlayer::new(
        RaceSide {
            pieces: black,
            floor: min_b - black_slack,
        },
        RaceSide {
            pieces: rotate(white),
            // White's ceiling maxW + slack, in white's own frame.
            floor: TOP as u32 - (max_w + white_slack),
        },
    ))
}

/// Whether no position one play away from `pos` can be separated: the
/// necessary level test of [`race_sides`] fails for the side not moving
/// (whose pieces the play leaves where they are), or for at least two pieces
/// of the side to move (a play moves one).
pub fn no_child_separated(pos: &Halma) -> bool {
    let low_black = (pos.pieces(Player::One) & !LEVEL_GE[10]).count();
    let high_white = (pos.pieces(Player::Two) & LEVEL_GE[21]).count();
    match pos.side() {
        Player::One => high_white >= 1 || low_black >= 2,
        Player::Two => low_black >= 1 || high_white >= 2,
    }
}

/// Whether the position is separated (see [`race_sides`]).
pub fn is_separated(pos: &Halma) -> bool {
    race_sides(pos).is_some()
}

/// A random race for black (tests and the bench): `outside` pieces on random
/// non-goal cells at levels `lo..=24`, the other pieces on random goal cells.
pub fn random_race(rng: &mut impl Rng, outside: u32, lo: u32) -> Bitboard {
    let goal: Vec<u8> = GOAL.iter().collect();
    let mut b = Bitboard::EMPTY;
    let mut placed = 0;
    while placed < PIECES - outside {
        let c = goal[rng.gen_range(0..goal.len())];
        if !b.has(c) {
            b.set(c);
            placed += 1;
        }
    }
    let mut out = 0;
    while out < outside {
        let c: u8 = rng.gen();
        if !GOAL.has(c) && !b.has(c) && (lo..=24).contains(&level(c)) {
            b.set(c);
            out += 1;
        }
    }
    b
}
