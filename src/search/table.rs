//! The slot array the transposition tables are built on: a power-of-two
//! array indexed by a key's low bits, and the one cache prefetch. The
//! tables keep their own entries and replacement policies (the search's
//! [`Tt`](super::tt), the Fifteen and Connect Square solvers'); only the
//! array, its sizing, indexing, clearing and prefetching are shared. The
//! Halma race solver uses [`prefetch`] alone (its table's comment says why).
//!
//! The entries stay apart: no two tables store the same fields (a move and
//! a depth; bounds and a canonical move; a learned bound and the work it
//! took) or mark an empty slot the same way (`None`, no plies left, key 0,
//! a stale generation), and each probe walks its bucket in its own order,
//! so a common entry trait would add indirection for no shared caller.
//! Only the Fifteen and Halma race solvers prefetch; the search's table and
//! Connect Square's could, but that would be a speed change to measure on
//! its own, not part of sharing the code.

use std::ops::{Deref, DerefMut};

/// How the array's memory is backed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pages {
    /// The allocator's usual pages.
    Normal,
    /// Advised to be backed with 2 MiB pages: for a large table whose
    /// probes land anywhere, where with 4 KiB pages nearly each probe misses
    /// the TLB as well as the cache. Only advice: it works without.
    Huge,
}

/// A power-of-two array of slots, each `E::default()` when empty. Reads
/// and writes go through the slice it dereferences to, so a table keeps its
/// own bucket layout (one slot, or a pair of neighbours, or an array per
/// slot).
pub struct Slots<E> {
    slots: Vec<E>,
    mask: usize,
}

impl<E: Copy + Default> Slots<E> {
    /// `2^log2_len` empty slots.
    pub fn new(log2_len: u32, pages: Pages) -> Self {
        let n = 1usize << log2_len;
        let mut slots = Vec::with_capacity(n);
        if pages == Pages::Huge {
            // Advised before the first write, which is when pages get backed.
            advise_huge_pages(
                slots.spare_capacity_mut().as_ptr() as usize,
                n * std::mem::size_of::<E>(),
            );
        }
        slots.resize(n, E::default());
        Slots { slots, mask: n - 1 }
    }

    /// The largest `log2_len` whose slots fit in `bytes` (0 when not even
    /// one does): callers clamp it to their own bounds.
    pub fn log2_fitting(bytes: usize) -> u32 {
        let n = (bytes / std::mem::size_of::<E>().max(1)).max(1);
        usize::BITS - 1 - n.leading_zeros()
    }

    /// Empties every slot.
    pub fn clear(&mut self) {
        self.slots.fill(E::default());
    }
}

impl<E> Slots<E> {
    /// The slot `key` hashes to: its low bits.
    #[inline(always)]
    pub fn home(&self, key: u64) -> usize {
        key as usize & self.mask
    }

    /// The first of the two neighbouring slots (one bucket, in one cache
    /// line when the slots are 32 bytes or less) that `key`'s home is in.
    #[inline(always)]
    pub fn pair(&self, key: u64) -> usize {
        self.home(key) & !1
    }

    /// Starts loading slot `i` into the cache ahead of its probe.
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        prefetch(&self.slots[i]);
    }
}

impl<E> Deref for Slots<E> {
    type Target = [E];

    #[inline(always)]
    fn deref(&self) -> &[E] {
        &self.slots
    }
}

impl<E> DerefMut for Slots<E> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [E] {
        &mut self.slots
    }
}

/// Starts loading the cache line of `item` (a hint: a no-op elsewhere than
/// on x86-64). The one prefetch of the crate.
#[inline(always)]
pub fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache and never faults; the
    // pointer comes from a live reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((item as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

/// Asks the kernel to back the `bytes` at `start` with 2 MiB pages (the
/// whole huge pages inside the range).
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, bytes: usize) {
    let huge = 2 << 20;
    let aligned = (start + huge - 1) & !(huge - 1);
    if aligned + huge <= start + bytes {
        let len = (start + bytes - aligned) & !(huge - 1);
        // SAFETY: the range lies inside the table's live allocation;
        // MADV_HUGEPAGE changes how pages are backed, never their contents.
        unsafe { libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    }
}

/// Elsewhere there is no such advice: the table keeps the pages the system
/// gives it.
#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sized_indexed_and_cleared() {
        let mut t: Slots<u64> = Slots::new(4, Pages::Normal);
        assert_eq!(t.len(), 16);
        assert_eq!(t.home(0x1234_5675), 5);
        assert_eq!(t.pair(0x1234_5675), 4);
        t[3] = 7;
        t.prefetch(3);
        t.clear();
        assert!(t.iter().all(|&e| e == 0));
    }

    #[test]
    fn fitting_rounds_down() {
        assert_eq!(Slots::<[u64; 2]>::log2_fitting(16 << 10), 10);
        assert_eq!(Slots::<[u64; 2]>::log2_fitting(16 << 10 | 15), 10);
        assert_eq!(Slots::<[u64; 2]>::log2_fitting((16 << 10) - 1), 9);
        assert_eq!(Slots::<u64>::log2_fitting(0), 0);
        let huge: Slots<u64> = Slots::new(20, Pages::Huge);
        assert_eq!(huge.len(), 1 << 20);
    }
}
