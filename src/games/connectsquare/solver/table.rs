//! The solver's transposition table: buckets of two entries, each the
//! canonical key and bounds of a position's score, kept by work done.

use crate::search::table::{Pages, Slots};

/// One table slot: the canonical key and bounds `lo..=hi` of the score.
#[derive(Clone, Copy, Default)]
pub(super) struct Entry {
    /// Canonical key + 1 (0 marks an empty slot).
    key: u64,
    lo: i16,
    hi: i16,
    /// Bit index of the best (or refuting) move + 1; 0 if none.
    mv: u8,
    /// log2 of the nodes the result took: what replacement protects.
    work: u8,
}

/// Slots per bucket: the first keeps the costliest result, the second the
/// latest one.
pub(super) const WAYS: usize = 2;

/// A score bound no entry has (the table's "unbounded").
pub(super) const NONE_LO: i32 = i16::MIN as i32;
pub(super) const NONE_HI: i32 = i16::MAX as i32;

/// The table: one bucket of [`WAYS`] entries per slot.
pub(super) struct Table(Slots<[Entry; WAYS]>);

impl Table {
    /// A table of `2^bits` entries (16 bytes each), `bits` clamped to 10..=30.
    pub(super) fn new(bits: u32) -> Table {
        Table(Slots::new(bits.clamp(10, 30) - 1, Pages::Normal))
    }

    /// Empties every slot.
    pub(super) fn clear(&mut self) {
        self.0.clear();
    }

    /// The bucket index of hash `h`.
    #[inline(always)]
    pub(super) fn home(&self, h: u64) -> usize {
        self.0.home(h)
    }

    /// Narrows the window by the table's bounds for this position; the
    /// table's move to try first (0: none), or `Err` with the result when
    /// the bounds decide it.
    #[inline(always)]
    pub(super) fn probe(&self, idx: usize, key: u64, alpha: &mut i32, beta: &mut i32) -> Result<u8, i32> {
        let mut tt_move = 0;
        for e in self.0[idx] {
            if e.key != key {
                continue;
            }
            let (lo, hi) = (e.lo as i32, e.hi as i32);
            if lo >= *beta {
                return Err(lo);
            }
            if hi <= *alpha {
                return Err(hi);
            }
            *alpha = (*alpha).max(lo);
            *beta = (*beta).min(hi);
            if *alpha >= *beta {
                return Err(*alpha);
            }
            tt_move = e.mv;
        }
        Ok(tt_move)
    }

    /// Records bounds `lo..=hi`: tightening an entry of the same position,
    /// else in the first slot if this result took at least as much work as
    /// the one there, else in the second.
    #[inline(always)]
    pub(super) fn store(&mut self, idx: usize, key: u64, lo: i32, hi: i32, mv: u8, work: u8) {
        let bucket = &mut self.0[idx];
        for e in bucket.iter_mut() {
            if e.key == key {
                e.lo = e.lo.max(lo as i16);
                e.hi = e.hi.min(hi as i16);
                if mv != 0 {
                    e.mv = mv;
                }
                e.work = e.work.max(work);
                return;
            }
        }
        let new = Entry {
            key,
            lo: lo as i16,
            hi: hi as i16,
            mv,
            work,
        };
        if work >= bucket[0].work {
            bucket[1] = bucket[0];
            bucket[0] = new;
        } else {
            bucket[1] = new;
        }
    }
}
