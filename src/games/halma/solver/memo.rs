//! What the bound knows of a set of outsiders whatever the goal holds
//! ([`OutsideMemo`]), and the Zobrist keys of the solver's tables.

use super::bound::{bound_within, Counts, Packing};
use super::frame::GOAL;
use crate::games::halma::bitboard::{Bitboard, CELLS};
use crate::search::mix::splitmix64 as mix;

const fn build_keys() -> [u64; CELLS] {
    let mut t = [0u64; CELLS];
    let mut c = 0;
    while c < CELLS {
        t[c] = mix(0x5241_4345_0000 + c as u64);
        c += 1;
    }
    t
}

/// Zobrist keys of the solver's transposition table.
pub(super) static KEYS: [u64; CELLS] = build_keys();

/// A cell's share of the key of a set of outsiders (the [`OutsideMemo`]'s
/// key): its Zobrist key outside the goal, 0 in it.
#[inline]
pub(super) fn outside_key(c: u8) -> u64 {
    if GOAL.has(c) {
        0
    } else {
        KEYS[c as usize]
    }
}

/// What the bound knows of a set of outsiders whatever the goal holds: the
/// isolation packing's count, the isolated-and-stuck count over
/// [`Stuck::find`](super::stuck::Stuck::find) (every goal cell is a stone and a landing cell, so the
/// pieces in the goal play no part) and the stuck plays ([`stuck_ops`](super::stuck::stuck_ops)).
/// Plays inside the goal leave the outsiders as they are, and the search
/// meets the same outsiders again under many goal patterns: in a hard
/// 8-outsider race, the packing was computed 24 times per distinct set.
#[derive(Clone, Copy)]
pub(super) struct OutsideEntry {
    /// A 64-bit hash of the outsiders (the transposition table's standard:
    /// a 16-byte entry keeps the memo within the core's cache).
    key: u64,
    /// The solve that stored it (the region is part of the answers).
    generation: u8,
    /// `bound::pack_isolation`'s count, [`UNKNOWN`] if not yet computed.
    pub(super) pack: u8,
    /// `tight::isolated_and_stuck_with` over [`Stuck::find`](super::stuck::Stuck::find), or [`UNKNOWN`].
    pub(super) isolated: u8,
    /// A lower bound on [`stuck_ops`](super::stuck::stuck_ops) found with cap `ops_cap` (0: none):
    /// below the cap it is the uncapped count, at the cap a lower bound
    /// for every cap up to it.
    pub(super) ops: u8,
    pub(super) ops_cap: u8,
}

/// An [`OutsideEntry`] field not yet computed.
pub(super) const UNKNOWN: u8 = u8::MAX;

/// A count as an [`OutsideEntry`] field (never [`UNKNOWN`]).
#[inline]
pub(super) fn known_count(v: u32) -> u8 {
    v.min(u32::from(UNKNOWN) - 1) as u8
}

impl OutsideEntry {
    /// The isolation packing's count of `pieces` (these outsiders): the
    /// entry's, handed to `packing`, or `packing`'s, kept in the entry.
    #[inline]
    pub(super) fn packing_plays(&mut self, pieces: Bitboard, packing: &mut Packing) -> u32 {
        if self.pack != UNKNOWN && packing.plays.is_none() {
            packing.plays = Some(u32::from(self.pack));
        }
        let plays = packing.plays(pieces);
        self.pack = known_count(plays);
        plays
    }
}

/// Most entries of an [`OutsideMemo`] (log2): 512 KiB.
pub(super) const OUTSIDE_MEMO_LOG2: u32 = 15;

/// A direct-mapped table of [`OutsideEntry`], keyed by the outsiders.
pub(super) struct OutsideMemo {
    entries: Vec<OutsideEntry>,
    /// `64 - log2` of the entries: the key's top bits index them.
    shift: u32,
}

impl OutsideMemo {
    /// A memo of `2^log2` entries.
    pub(super) fn new(log2: u32) -> OutsideMemo {
        let empty = OutsideEntry {
            key: 0,
            generation: 0,
            pack: UNKNOWN,
            isolated: UNKNOWN,
            ops: 0,
            ops_cap: 0,
        };
        OutsideMemo {
            entries: vec![empty; 1 << log2],
            shift: 64 - log2,
        }
    }

    /// [`bound_within`] of `pieces`, with the isolation packing's count
    /// from the memo or kept there.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bound(&mut self, pieces: Bitboard, okey: u64, counts: Counts, room: u32, generation: u8, packing: &mut Packing) -> u32 {
        bound_within(pieces, counts, room, || self.entry(okey, generation).packing_plays(pieces, packing))
    }

    /// The entry of the outsiders whose [`outside_key`] is `key` in this
    /// solve, emptied if it held another.
    #[inline]
    pub(super) fn entry(&mut self, key: u64, generation: u8) -> &mut OutsideEntry {
        let e = &mut self.entries[(key >> self.shift) as usize];
        if e.key != key || e.generation != generation {
            *e = OutsideEntry {
                key,
                generation,
                pack: UNKNOWN,
                isolated: UNKNOWN,
                ops: 0,
                ops_cap: 0,
            };
        }
        e
    }
}
