//! Splitting one run over several machines: `--shard K/N` plays exactly the
//! game pairs whose index in the run's schedule is K modulo N, so N shards
//! started with the same arguments play every pair exactly once, and a pair
//! (one opening, colours swapped) never straddles two shards.

use serde::{Deserialize, Serialize};

/// Shard K of N (K counts from 0, as Slurm's `SLURM_ARRAY_TASK_ID` and
/// `seq 0 N-1` do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Shard {
    /// This shard, 0..count.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// Parses `K/N` with 0 <= K < N.
    pub(crate) fn parse(s: &str) -> Result<Shard, String> {
        let usage = "--shard expects K/N with 0 <= K < N (e.g. 0/4 ... 3/4)";
        let (k, n) = s.split_once('/').ok_or_else(|| format!("{usage}, found {s:?}"))?;
        let (Ok(index), Ok(count)) = (k.trim().parse::<usize>(), n.trim().parse::<usize>()) else {
            return Err(format!("{usage}, found {s:?}"));
        };
        if count == 0 || index >= count {
            return Err(format!("{usage}, found {s:?}"));
        }
        Ok(Shard { index, count })
    }

    /// True when game pair `pair` (its index in the run's schedule) is this shard's.
    pub(crate) fn has_pair(&self, pair: usize) -> bool {
        pair % self.count == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_split() {
        assert_eq!(Shard::parse("1/4"), Ok(Shard { index: 1, count: 4 }));
        for bad in ["4/4", "1/0", "-1/3", "a/b", "3", ""] {
            assert!(Shard::parse(bad).unwrap_err().contains("K/N"), "{bad}");
        }
        // Every pair belongs to exactly one shard.
        let shards: Vec<Shard> = (0..3).map(|k| Shard { index: k, count: 3 }).collect();
        for pair in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.has_pair(pair)).count(), 1);
        }
        assert_eq!(Shard { index: 2, count: 3 }.to_string(), "2/3");
    }
}
