//! Pairing one Swiss round. The rules, after the FIDE Dutch system (as
//! bbpPairings implements it) cut down to what a class competition needs:
//!
//! - Agents are ranked by points, then by their pairing number (their
//!   place on the command line), which never changes: so a pairing depends
//!   on results only, never on a fitted rating, and is cheap to recompute.
//! - With an odd field the lowest-ranked agent that has not had a bye gets
//!   it (the next one up when the rest cannot be paired without it).
//! - Score groups are paired from the top. Within a group of m agents the
//!   top half meets the bottom half in order (1st the (m/2+1)th, 2nd the
//!   next, ...); an agent that cannot be paired in its group (odd size, or
//!   only rematches left) floats down to meet the highest it can below.
//! - Never a rematch. When one pairing number's colour would leave an agent
//!   two first moves ahead or behind (single games), that pair is skipped.
//! - A depth-first search with these preferences as its order backtracks
//!   when a choice leaves agents below unpairable, so the first pairing it
//!   finds is the most preferred valid one in that order.

use super::Entrant;

/// Candidate pairs tried per round before the search gives up: enough for
/// any field with far fewer rounds than agents, small enough to answer in
/// well under a second when the rounds have run out of fresh opponents.
const STEP_BUDGET: u64 = 400_000;

/// A round's pairs (higher-ranked first) and its bye.
pub(super) type Pairs = (Vec<(usize, usize)>, Option<usize>);

/// Why no pairing was found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NoPairing {
    /// Every arrangement was tried: none is valid.
    Exhausted,
    /// The search hit [`STEP_BUDGET`] first.
    Budget,
}

/// The search over one round.
struct Search<'a> {
    entrants: &'a [Entrant],
    /// Whether a pair whose colours cannot both stay within one is refused.
    colours: bool,
    steps: u64,
}

impl Search<'_> {
    /// Whether `a` and `b` may meet.
    fn allowed(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.entrants[a], &self.entrants[b]);
        if x.opponents.contains(&b) {
            return false;
        }
        // Both ahead (or both behind) on first moves: one of them would
        // end two away from even.
        !(self.colours && x.colour * y.colour > 0)
    }

    /// Pairs `remaining` (in rank order) into `out`; `Ok(true)` when done.
    fn pair(&mut self, remaining: &[usize], out: &mut Vec<(usize, usize)>) -> Result<bool, NoPairing> {
        let Some((&a, rest)) = remaining.split_first() else {
            return Ok(true);
        };
        let points = self.entrants[a].points;
        // `a` tops its score group: the group is a prefix of `remaining`.
        let m = remaining
            .iter()
            .take_while(|&&k| self.entrants[k].points == points)
            .count();
        // The bottom half in order, then the top half from its bottom, then
        // the groups below (a float down); never `a` itself at 0.
        let half = (m / 2).max(1);
        let order = (half..m).chain((1..half).rev()).chain(m.max(1)..remaining.len());
        for pos in order {
            let b = remaining[pos];
            if !self.allowed(a, b) {
                continue;
            }
            self.steps += 1;
            if self.steps > STEP_BUDGET {
                return Err(NoPairing::Budget);
            }
            let next: Vec<usize> = rest.iter().copied().filter(|&k| k != b).collect();
            out.push((a, b));
            if self.pair(&next, out)? {
                return Ok(true);
            }
            out.pop();
        }
        Ok(false)
    }
}

/// The pairs (higher-ranked first) and the bye of one round, or why there
/// are none. `colours`: refuse pairs whose first moves cannot stay within one.
pub(super) fn pair_round(entrants: &[Entrant], colours: bool) -> Result<Pairs, NoPairing> {
    let mut ranked: Vec<usize> = (0..entrants.len()).collect();
    ranked.sort_by(|&a, &b| entrants[b].points.cmp(&entrants[a].points).then(a.cmp(&b)));
    let mut search = Search {
        entrants,
        colours,
        steps: 0,
    };
    if ranked.len().is_multiple_of(2) {
        let mut out = Vec::with_capacity(ranked.len() / 2);
        return match search.pair(&ranked, &mut out)? {
            true => Ok((out, None)),
            false => Err(NoPairing::Exhausted),
        };
    }
    // Lowest-ranked first among those without a bye (everyone, once all
    // have had one).
    let fresh: Vec<usize> = ranked.iter().rev().copied().filter(|&k| !entrants[k].had_bye).collect();
    let candidates = if fresh.is_empty() {
        ranked.iter().rev().copied().collect()
    } else {
        fresh
    };
    for bye in candidates {
        let rest: Vec<usize> = ranked.iter().copied().filter(|&k| k != bye).collect();
        let mut out = Vec::with_capacity(rest.len() / 2);
        if search.pair(&rest, &mut out)? {
            return Ok((out, Some(bye)));
        }
    }
    Err(NoPairing::Exhausted)
}
