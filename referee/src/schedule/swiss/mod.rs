//! A Swiss tournament's schedule: rounds whose pairings follow from the
//! results of the rounds before ([`pairing`] has the rules), then, if asked,
//! a round robin of the top agents (the final). Round N's pairing is a
//! function of the games of rounds 1..N−1 alone, so a resumed run
//! recomputes every round exactly as the interrupted one paired it.
//!
//! Games are keyed `rNN-A-vs-B-gNNNN` (A: the first-named of the pairing,
//! who moves first in its even games) and `final-A-vs-B-gNNNN`.

mod pairing;
#[cfg(test)]
mod tests;

use crate::output::record::GameRecord;
use crate::schedule::roundrobin::RoundRobin;
use crate::schedule::Job;
use pairing::NoPairing;

/// One agent before a round, as the pairing sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entrant {
    /// Points in halves: a win 2, a draw 1; a bye as many wins as a
    /// pairing has games.
    pub points: u32,
    /// The agents it has been paired with (each once).
    pub opponents: Vec<usize>,
    /// Games it moved first in, minus games it moved second in.
    pub colour: i32,
    /// Whether it moved first in its latest game (`None`: no game yet).
    pub last_first: Option<bool>,
    /// It has had a bye.
    pub had_bye: bool,
}

/// One round's pairings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Round {
    /// 1-based.
    pub number: u32,
    /// `(first-named, second-named)` contestant indices, top board first;
    /// the first-named moves first in the pairing's even games.
    pub boards: Vec<(usize, usize)>,
    /// The agent with the bye (an odd field).
    pub bye: Option<usize>,
    /// No pairing kept every agent's first moves within one of its second
    /// moves, so this round's pairing did without that rule.
    pub colours_relaxed: bool,
}

/// Which part of a Swiss a game key belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stage {
    /// Round N (1-based).
    Round(u32),
    /// The round robin of the top agents after the last round.
    Final,
}

/// The key prefix of the final's games.
const FINAL: &str = "final";

impl Stage {
    /// The stage of a game key, if it is a Swiss key.
    pub(crate) fn of(key: &str) -> Option<Stage> {
        if key.starts_with(&format!("{FINAL}-")) {
            return Some(Stage::Final);
        }
        let digits = key.strip_prefix('r')?.split('-').next()?;
        (digits.len() >= 2 && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok().map(Stage::Round))
            .flatten()
    }
}

/// The game number of a key (`...-gNNNN`).
fn game_number(key: &str) -> Option<u64> {
    key.rsplit_once("-g")?.1.parse().ok()
}

/// The shape of a Swiss: its agents, games per pairing and rounds.
#[derive(Clone, Debug)]
pub(crate) struct Swiss {
    /// Agent names, in pairing-number order.
    pub names: Vec<String>,
    /// Games per pairing.
    pub games: u64,
    /// Rounds before the final.
    pub rounds: u32,
    /// Agents in the final round robin (0: no final).
    pub finalists: usize,
}

impl Swiss {
    /// Game pairs per pairing.
    fn per(&self) -> u64 {
        self.games.div_ceil(2)
    }

    /// Game-pair indices set aside per round (picks openings).
    fn stride(&self) -> u64 {
        (self.names.len() as u64 / 2 + 1) * self.per()
    }

    /// Games in the whole schedule, or `None` beyond 64 bits.
    pub(crate) fn total(&self) -> Option<u64> {
        let boards = self.names.len() as u64 / 2;
        let k = self.finalists as u64;
        let pairings = boards
            .checked_mul(u64::from(self.rounds))?
            .checked_add(k * k.saturating_sub(1) / 2)?;
        pairings.checked_mul(self.games)
    }

    /// The games of `round`, board by board.
    pub(crate) fn jobs(&self, round: &Round) -> Vec<Job> {
        let base = u64::from(round.number - 1) * self.stride();
        let mut out = Vec::new();
        for (board, &(a, b)) in round.boards.iter().enumerate() {
            for number in 0..self.games {
                out.push(Job {
                    key: format!(
                        "r{:02}-{}-vs-{}-g{number:04}",
                        round.number, self.names[a], self.names[b]
                    ),
                    a,
                    b,
                    number,
                    pair: base + board as u64 * self.per() + number / 2,
                });
            }
        }
        out
    }

    /// The final: a round robin of `top` (contestant indices, best first).
    pub(crate) fn final_schedule(&self, top: &[usize]) -> RoundRobin {
        let members: Vec<(usize, &str)> = top.iter().map(|&i| (i, self.names[i].as_str())).collect();
        RoundRobin::among(&members, self.games, FINAL, u64::from(self.rounds) * self.stride())
    }

    /// Every agent before round `rounds.len() + 1`, from the pairings of
    /// the rounds so far and the games of `records` played in them.
    pub(crate) fn entrants(&self, rounds: &[Round], records: &[GameRecord]) -> Vec<Entrant> {
        let n = self.names.len();
        let mut e = vec![Entrant::default(); n];
        let index = |name: &str| self.names.iter().position(|m| m == name);
        for round in rounds {
            for &(a, b) in &round.boards {
                e[a].opponents.push(b);
                e[b].opponents.push(a);
            }
            if let Some(x) = round.bye {
                e[x].had_bye = true;
                e[x].points += 2 * self.games as u32;
            }
        }
        // The latest game of each agent: (round, game number) at most.
        let mut latest: Vec<Option<(u32, u64)>> = vec![None; n];
        for r in records {
            let Some(Stage::Round(k)) = Stage::of(&r.key) else {
                continue;
            };
            if k as usize > rounds.len() {
                continue;
            }
            let (Some(i0), Some(i1)) = (index(&r.agents[0]), index(&r.agents[1])) else {
                continue;
            };
            let seats = [i0, i1];
            match r.winner {
                Some(w) => e[seats[w.min(1)]].points += 2,
                None => seats.iter().for_each(|&s| e[s].points += 1),
            }
            let when = (k, game_number(&r.key).unwrap_or(0));
            for (seat, &s) in seats.iter().enumerate() {
                let first = r.first == seat;
                e[s].colour += if first { 1 } else { -1 };
                if latest[s].is_none_or(|l| when > l) {
                    latest[s] = Some(when);
                    e[s].last_first = Some(first);
                }
            }
        }
        e
    }

    /// Pairs round `number` of `entrants`. With an odd number of games per
    /// pairing, first moves are kept within one per agent when any pairing
    /// allows it; otherwise the round says it let that rule go.
    pub(crate) fn pair(&self, number: u32, entrants: &[Entrant]) -> Result<Round, String> {
        let colours = !self.games.is_multiple_of(2);
        let (found, relaxed) = match pairing::pair_round(entrants, colours) {
            Ok(p) => (Ok(p), false),
            Err(_) if colours => (pairing::pair_round(entrants, false), true),
            Err(e) => (Err(e), false),
        };
        let (pairs, bye) = found.map_err(|e| {
            let why = match e {
                NoPairing::Exhausted => "every agent left has already met every agent it could meet",
                NoPairing::Budget => "the search for one without a rematch ran out of its step budget",
            };
            format!(
                "round {number} of the Swiss cannot be paired ({why}); {} agents allow at most {} rounds without a rematch, and fewer rounds pair more easily: choose a smaller --rounds",
                self.names.len(),
                max_rounds(self.names.len())
            )
        })?;
        let boards = pairs
            .into_iter()
            .map(|(a, b)| {
                if self.first_named(&entrants[a], &entrants[b]) {
                    (a, b)
                } else {
                    (b, a)
                }
            })
            .collect();
        Ok(Round {
            number,
            boards,
            bye,
            colours_relaxed: relaxed,
        })
    }

    /// Whether the higher-ranked `a` is first-named against `b`: always
    /// with game pairs (each moves first once); with an odd number of
    /// games, the one that has moved first less, then the one that moved
    /// second in its latest game, then `a`.
    fn first_named(&self, a: &Entrant, b: &Entrant) -> bool {
        let pairs = self.games.is_multiple_of(2);
        if pairs || a.colour != b.colour {
            return pairs || a.colour < b.colour;
        }
        !(a.last_first == Some(true) && b.last_first != Some(true))
    }
}

/// The most rounds `n` agents can play without a rematch.
pub(crate) fn max_rounds(n: usize) -> usize {
    if n.is_multiple_of(2) {
        n.saturating_sub(1)
    } else {
        n
    }
}
