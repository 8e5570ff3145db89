//! Move ordering and its cuts: the killers' and history's keys, the
//! late-move reduction table and the late-move pruning limit, and the
//! selection of the next move to search.

/// Deepest ply of a search: the size of its per-ply tables (killers, move
/// buffers, principal variations, the reduction table).
pub(super) const MAX_PLY: usize = 128;

/// Moves picked by selection before the rest of a node's moves are sorted.
pub(super) const SELECT_FIRST: usize = 4;

/// Ordering key of the second killer: keys from here up are the TT move and
/// the killers (history is capped at 2^24 and hints are small: far below).
pub(super) const KILLER_KEY_MIN: i32 = i32::MAX - 3;
/// Late-move reductions: moves searched at full depth before reductions
/// start (the TT move and killers are never reduced anyway).
pub(super) const LMR_FULL_MOVES: usize = 3;
/// Least remaining depth at which late moves are reduced.
pub(super) const LMR_MIN_DEPTH: u32 = 3;
/// Move indices the reduction table distinguishes; later ones reduce as the last.
pub(super) const LMR_MOVES: usize = 256;

/// Plies to reduce the `index`-th move at remaining `depth`: grows with the
/// logarithm of both (the usual shape), so that at Halma's ~150 moves a node
/// the tail is searched a few plies shallower and the first moves in full.
pub(super) fn lmr_reduction(ln_depth: f64, ln_index: f64) -> u8 {
    let r = 0.5 + ln_depth * ln_index / 2.5;
    r.clamp(0.0, 15.0) as u8
}

/// `lmr_reduction` for every depth up to [`MAX_PLY`] and every index
/// below [`LMR_MOVES`] (none at depth or index 0), from 385 logarithms
/// rather than two per entry: every turn of a contest game is a new
/// process, and 65,000 logarithms were a tenth of a short move's CPU.
pub(super) fn lmr_table() -> Vec<u8> {
    let ln = |x: usize| (x as f64).ln();
    let ln_index: Vec<f64> = (0..LMR_MOVES).map(ln).collect();
    (0..=MAX_PLY)
        .flat_map(|d| {
            let ln_depth = ln(d);
            ln_index.iter().enumerate().map(move |(i, &li)| {
                if d == 0 || i == 0 {
                    0
                } else {
                    lmr_reduction(ln_depth, li)
                }
            })
        })
        .collect()
}

/// Deepest remaining depth at which late moves are pruned.
pub(super) const LMP_MAX_DEPTH: u32 = 3;

/// Moves searched in a null-window node at remaining `depth` (at most
/// [`LMP_MAX_DEPTH`]) before the rest are pruned: grows with the square
/// of the depth, as the subtree a pruned move would have had does.
/// (8 + 4d^2 moves: +102 ± 73 Elo at 4 s a game in Halma; `docs/results.md`,
/// "Halma against the baselines".)
pub(super) const fn late_move_limit(depth: u32) -> usize {
    8 + 4 * (depth * depth) as usize
}

/// Brings the best-keyed of `scored[i..]` to index `i`: selection steps for
/// the first few moves (cut-offs usually come early); at the first one past
/// them, sorts the rest once, since a node without a cut-off would otherwise
/// pay n^2 comparisons (Halma has 100-200 moves per node).
#[inline]
pub(super) fn select_next<M: Copy>(scored: &mut [(i32, M)], i: usize) {
    if i < SELECT_FIRST {
        let mut j = i;
        for k in i + 1..scored.len() {
            if scored[k].0 > scored[j].0 {
                j = k;
            }
        }
        scored.swap(i, j);
    } else if i == SELECT_FIRST {
        scored[i..].sort_unstable_by_key(|&(hint, _)| std::cmp::Reverse(hint));
    }
}
