//! Board-size arithmetic shared by every game's `input.txt` parser and the
//! referee's start positions (`--start`, `--rows`/`--cols`, `--size` all go
//! through the games' own constructors, which call these).
//!
//! Sizes come from untrusted text, so products of them are computed with
//! checked arithmetic: `1 18446744073709551615` must be refused with a
//! message, not wrap around to a small number and send a loop or an
//! allocation off the end.

/// Bits in a position bitboard (`u128`): the limit on guarded board sizes.
pub(crate) const BITBOARD_BITS: usize = 128;

/// Bits a bitboard needs for `lines` lines of `per_line` cells plus one guard
/// bit per line (Hinger: rows of `cols + 1`; Connect Square: columns of
/// `rows + 1`), or `None` when that product does not fit in `usize`.
pub(crate) fn guarded_bits(lines: usize, per_line: usize) -> Option<usize> {
    per_line.checked_add(1)?.checked_mul(lines)
}

/// Whether `lines` lines of `per_line` cells plus guards fit a `u128`.
pub(crate) fn fits_bitboard(lines: usize, per_line: usize) -> bool {
    guarded_bits(lines, per_line).is_some_and(|b| b <= BITBOARD_BITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_never_wrap() {
        assert_eq!(guarded_bits(10, 10), Some(110));
        assert_eq!(guarded_bits(1, usize::MAX), None);
        assert_eq!(guarded_bits(usize::MAX, 4), None);
        // usize::MAX / 2 + 1 lines of one cell: 2 * that wraps to 0 unchecked.
        assert_eq!(guarded_bits(usize::MAX / 2 + 1, 1), None);
        assert!(fits_bitboard(11, 10));
        assert!(!fits_bitboard(12, 10));
        assert!(!fits_bitboard(1, usize::MAX));
        assert!(!fits_bitboard(usize::MAX, 1));
    }
}
