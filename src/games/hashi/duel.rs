//! In-process matches on generated boards, for quick strength checks while
//! tuning (`agent hashi duel`). The contest figures come from the referee
//! (`scripts/hashi-strength.sh`); this skips process start-up and files so
//! that a hundred games take seconds.

use super::Hashi;
use crate::protocol::{FileGame, GenOptions, Player};
use crate::search::{alphabeta::Searcher, minimax, Game, Limits, Strategy};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// Win/draw/loss counts of the first strategy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DuelResult {
    /// Games the first strategy won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the first strategy lost.
    pub losses: u32,
}

impl DuelResult {
    /// Score fraction of the first strategy (draws count half).
    pub fn score(&self) -> f64 {
        let n = (self.wins + self.draws + self.losses).max(1) as f64;
        (self.wins as f64 + 0.5 * self.draws as f64) / n
    }
}

/// Chooses a move for `strategy` with `seconds` of CPU (alpha-beta) or at
/// its fixed depth.
fn choose(h: &Hashi, strategy: Strategy, seconds: f64, rng: &mut SmallRng) -> <Hashi as Game>::Move {
    let mut moves = Vec::new();
    h.legal_moves(&mut moves);
    match strategy {
        Strategy::Random => *moves.choose(rng).expect("a move"),
        Strategy::Minimax(d) => minimax::search(h, d, f64::INFINITY, |_| {}).best.expect("a move"),
        Strategy::AlphaBeta(d) => Searcher::<Hashi>::new(1 << 22)
            .search(h, Limits::depth(d), |_| {})
            .best
            .expect("a move"),
        _ => Searcher::<Hashi>::new(16 << 20)
            .search(h, Limits::time(seconds, seconds), |_| {})
            .best
            .expect("a move"),
    }
}

/// Plays `games` games of `a` against `b` on boards of `size` generated
/// from seeds `seed..`, `a` moving first in even-numbered games.
pub fn duel(a: Strategy, b: Strategy, games: u32, size: usize, seed: u64, seconds: f64) -> Result<DuelResult, String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut r = DuelResult::default();
    for g in 0..games {
        let opts = GenOptions {
            size: Some(size),
            seed: seed + g as u64,
            first: Player::One,
            ..Default::default()
        };
        let mut h = Hashi::generate(&opts)?;
        // Seat of `a`: player 1 (who moves first) in even games.
        let a_seat = if g % 2 == 0 { Player::One } else { Player::Two };
        while h.result().is_none() {
            let s = if h.to_move() == a_seat { a } else { b };
            let mv = choose(&h, s, seconds, &mut rng);
            h.play(mv);
        }
        match h.result().flatten() {
            None => r.draws += 1,
            Some(p) if p == a_seat => r.wins += 1,
            Some(_) => r.losses += 1,
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_beats_random_and_greedy_depth_two() {
        let r = duel(Strategy::AlphaBeta(4), Strategy::Random, 20, 6, 100, 0.0).unwrap();
        assert!(r.score() >= 0.8, "{r:?}");
        let r = duel(Strategy::AlphaBeta(6), Strategy::Minimax(2), 20, 6, 200, 0.0).unwrap();
        assert!(r.score() >= 0.6, "{r:?}");
    }
}
