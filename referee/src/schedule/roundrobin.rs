//! The schedule of a match or tournament: a round robin (or gauntlet) of
//! pairings, each of `games` games in colour-swapped pairs, produced lazily.

use crate::schedule::shard::Shard;
use crate::schedule::Job;

/// A round robin: every pair of contestants plays `games` games. The games
/// are produced lazily (a run of 10^18 games allocates nothing up front).
#[derive(Clone, Debug)]
pub(crate) struct RoundRobin {
    /// Pairings `(a, b, "A-vs-B")` in schedule order.
    pairings: Vec<(usize, usize, String)>,
    /// Games per pairing.
    games: u64,
    /// Index of the first game pair (a schedule after other games: a
    /// Swiss final).
    first_pair: u64,
}

impl RoundRobin {
    /// Every pair of `names` (in order) plays `games` games.
    pub(crate) fn new(names: &[&str], games: u64) -> RoundRobin {
        let mut pairings = Vec::new();
        for i in 0..names.len() {
            for j in i + 1..names.len() {
                pairings.push((i, j, format!("{}-vs-{}", names[i], names[j])));
            }
        }
        RoundRobin {
            pairings,
            games,
            first_pair: 0,
        }
    }

    /// Every pair of `members` (contestant index and name, in order) plays
    /// `games` games, keyed `PREFIX-A-vs-B-gNNNN`, its game pairs numbered
    /// from `first_pair` on.
    pub(crate) fn among(members: &[(usize, &str)], games: u64, prefix: &str, first_pair: u64) -> RoundRobin {
        let mut pairings = Vec::new();
        for (i, (a, na)) in members.iter().enumerate() {
            for (b, nb) in &members[i + 1..] {
                pairings.push((*a, *b, format!("{prefix}-{na}-vs-{nb}")));
            }
        }
        RoundRobin {
            pairings,
            games,
            first_pair,
        }
    }

    /// A gauntlet: the first of `names` plays `games` games against each other.
    pub(crate) fn gauntlet(names: &[&str], games: u64) -> RoundRobin {
        let pairings = (1..names.len())
            .map(|j| (0, j, format!("{}-vs-{}", names[0], names[j])))
            .collect();
        RoundRobin {
            pairings,
            games,
            first_pair: 0,
        }
    }

    /// Game pairs per pairing (the last one has a single game when `games` is odd).
    fn pairs_per_pairing(&self) -> u64 {
        self.games.div_ceil(2)
    }

    /// The number of games shard `shard` plays, or `None` when it does not
    /// fit in 64 bits.
    pub(crate) fn total_in(&self, shard: Option<Shard>) -> Option<u64> {
        let Some(shard) = shard else {
            return self.total();
        };
        let (k, n) = (shard.index as u64, shard.count as u64);
        let per = self.pairs_per_pairing();
        // Pairs with index in [lo, hi) that are k modulo n.
        let below = |x: u64| if x > k { (x - k).div_ceil(n) } else { 0 };
        let mut total: u64 = 0;
        for i in 0..self.pairings.len() as u64 {
            let lo = i.checked_mul(per)?;
            let hi = lo.checked_add(per)?;
            total = total.checked_add((below(hi) - below(lo)).checked_mul(2)?)?;
            // An odd count's last pair is one game.
            if self.games % 2 == 1 && (hi - 1) % n == k {
                total -= 1;
            }
        }
        Some(total)
    }

    /// The number of games, or `None` when it does not fit in 64 bits.
    pub(crate) fn total(&self) -> Option<u64> {
        (self.pairings.len() as u64).checked_mul(self.games)
    }

    /// The games in schedule order: pairing by pairing.
    pub(crate) fn jobs(&self) -> impl Iterator<Item = Job> + Send + '_ {
        let per = self.pairs_per_pairing();
        self.pairings.iter().enumerate().flat_map(move |(i, (a, b, pairing))| {
            (0..self.games).map(move |number| Job {
                key: format!("{pairing}-g{number:04}"),
                a: *a,
                b: *b,
                number,
                pair: (i as u64)
                    .wrapping_mul(per)
                    .wrapping_add(number / 2)
                    .wrapping_add(self.first_pair),
            })
        })
    }

    /// The game with this key, if it belongs to the schedule.
    pub(crate) fn job_of(&self, key: &str) -> Option<Job> {
        let (pairing, n) = key.rsplit_once("-g")?;
        if n.len() < 4 || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let number: u64 = n.parse().ok()?;
        let i = self.pairings.iter().position(|(_, _, p)| p == pairing)?;
        let (a, b, p) = &self.pairings[i];
        (number < self.games && format!("{p}-g{number:04}") == key).then(|| Job {
            key: key.to_string(),
            a: *a,
            b: *b,
            number,
            pair: (i as u64)
                .wrapping_mul(self.pairs_per_pairing())
                .wrapping_add(number / 2)
                .wrapping_add(self.first_pair),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_is_lazy_and_knows_its_keys() {
        let rr = RoundRobin::new(&["x", "y", "z"], 2);
        let keys: Vec<String> = rr.jobs().map(|j| j.key).collect();
        assert_eq!(
            keys,
            [
                "x-vs-y-g0000",
                "x-vs-y-g0001",
                "x-vs-z-g0000",
                "x-vs-z-g0001",
                "y-vs-z-g0000",
                "y-vs-z-g0001"
            ]
        );
        assert_eq!(rr.total(), Some(6));
        let j = rr.job_of("x-vs-z-g0001").unwrap();
        assert_eq!((j.a, j.b, j.number), (0, 2, 1));
        for bad in ["x-vs-z-g0002", "x-vs-z-g1", "z-vs-x-g0000", "x-vs-y-g+001", "g0000"] {
            assert!(rr.job_of(bad).is_none(), "{bad}");
        }
        // A huge schedule costs nothing until games are taken from it.
        let huge = RoundRobin::new(&["a", "b"], u64::MAX);
        assert_eq!(huge.total(), Some(u64::MAX));
        assert_eq!(huge.jobs().nth(3).unwrap().key, "a-vs-b-g0003");
        assert_eq!(RoundRobin::new(&["a", "b", "c"], u64::MAX).total(), None);
    }

    #[test]
    fn pairs_number_the_whole_schedule_and_shards_split_it() {
        // 5 games per pairing: pairs (0,1) (2,3) (4) in each pairing.
        let rr = RoundRobin::new(&["x", "y", "z"], 5);
        let pairs: Vec<u64> = rr.jobs().map(|j| j.pair).collect();
        assert_eq!(pairs, [0, 0, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 7, 7, 8]);
        assert_eq!(rr.job_of("x-vs-z-g0004").unwrap().pair, 5);
        for n in 1..5 {
            let mut games = 0;
            for k in 0..n {
                let shard = Shard { index: k, count: n };
                let played = rr.jobs().filter(|j| shard.has_pair(j.pair as usize)).count() as u64;
                assert_eq!(rr.total_in(Some(shard)), Some(played), "shard {shard}");
                games += played;
            }
            assert_eq!(games, 15);
        }
        // A gauntlet pairs the first agent with each other one.
        let g = RoundRobin::gauntlet(&["base", "p", "q"], 2);
        let keys: Vec<String> = g.jobs().map(|j| j.key).collect();
        assert_eq!(
            keys,
            [
                "base-vs-p-g0000",
                "base-vs-p-g0001",
                "base-vs-q-g0000",
                "base-vs-q-g0001"
            ]
        );
        assert_eq!(g.total(), Some(4));
    }
}
