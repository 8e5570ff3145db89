//! A fixed-size, always-allocated-up-front transposition table.

use super::table::{Pages, Slots};
use super::WIN_THRESHOLD;

/// Which side of the window a stored score bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true score is at least this (fail-high).
    Lower,
    /// The true score is at most this (fail-low).
    Upper,
}

/// One slot.
#[derive(Clone, Copy, Debug)]
pub struct Entry<M> {
    /// Full hash (verifies the slot really holds this position).
    pub key: u64,
    /// Best or refuting move found, if any.
    pub mv: Option<M>,
    /// Score, with win distances stored relative to this node.
    pub score: i32,
    /// Remaining depth the score was searched to.
    pub depth: i16,
    /// Bound type.
    pub bound: Bound,
    /// Search generation, so old entries yield to new ones.
    pub age: u8,
}

/// The table: one entry per slot of the shared power-of-two array, at the
/// hash's low bits.
pub(crate) struct Tt<M> {
    slots: Slots<Option<Entry<M>>>,
    age: u8,
}

impl<M: Copy> Tt<M> {
    /// A table with `2^bits` slots (bits clamped to 4..=26).
    pub fn new(bits: u32) -> Self {
        Tt {
            slots: Slots::new(bits.clamp(4, 26), Pages::Normal),
            age: 0,
        }
    }

    /// A table sized to use about `bytes` of memory.
    pub(crate) fn with_bytes(bytes: usize) -> Self {
        Self::new(Slots::<Option<Entry<M>>>::log2_fitting(bytes))
    }

    #[cfg(test)]
    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Starts a new search generation.
    pub(crate) fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry<M>> {
        match self.slots[self.slots.home(key)] {
            Some(e) if e.key == key => Some(e),
            _ => None,
        }
    }

    /// Stores a result; prefers deeper and newer entries, and keeps an old
    /// best move when the new result has none.
    #[inline]
    pub fn store(&mut self, key: u64, mv: Option<M>, score: i32, depth: i16, bound: Bound) {
        let home = self.slots.home(key);
        let slot = &mut self.slots[home];
        if let Some(old) = slot {
            let same = old.key == key;
            if !same && old.age == self.age && old.depth > depth && old.bound == Bound::Exact {
                return;
            }
            let mv = if mv.is_none() && same { old.mv } else { mv };
            *slot = Some(Entry {
                key,
                mv,
                score,
                depth,
                bound,
                age: self.age,
            });
        } else {
            *slot = Some(Entry {
                key,
                mv,
                score,
                depth,
                bound,
                age: self.age,
            });
        }
    }
}

/// Converts a score to the form stored in the table (win distances relative to the node).
#[inline]
pub(crate) fn to_tt(score: i32, ply: u32) -> i32 {
    if score >= WIN_THRESHOLD {
        score + ply as i32
    } else if score <= -WIN_THRESHOLD {
        score - ply as i32
    } else {
        score
    }
}

/// Converts a stored score back to the root-relative form.
#[inline]
pub(crate) fn from_tt(score: i32, ply: u32) -> i32 {
    if score >= WIN_THRESHOLD {
        score - ply as i32
    } else if score <= -WIN_THRESHOLD {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::WIN;

    #[test]
    fn store_and_probe() {
        let mut t: Tt<u16> = Tt::new(8);
        assert!(t.probe(5).is_none());
        t.store(5, Some(3), 10, 2, Bound::Exact);
        let e = t.probe(5).unwrap();
        assert_eq!((e.mv, e.score, e.depth), (Some(3), 10, 2));
        // Colliding key replaces only when not shallower exact from this search.
        t.store(5 + 256, None, 1, 1, Bound::Lower);
        assert!(t.probe(5 + 256).is_none());
        t.new_search();
        t.store(5 + 256, None, 1, 1, Bound::Lower);
        assert!(t.probe(5 + 256).is_some());
    }

    #[test]
    fn win_scores_round_trip() {
        let s = WIN - 7;
        assert_eq!(from_tt(to_tt(s, 3), 3), s);
        assert_eq!(from_tt(to_tt(-s, 3), 3), -s);
        assert_eq!(to_tt(55, 9), 55);
    }

    #[test]
    fn sized_by_bytes() {
        let t: Tt<u32> = Tt::with_bytes(1 << 20);
        assert!(t.len() * std::mem::size_of::<Option<Entry<u32>>>() <= 1 << 20);
        assert!(t.len() >= 1 << 14);
    }
}
