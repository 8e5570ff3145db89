//! Seeded random openings for any game: the game's start position followed
//! by K uniformly random legal plies, redrawn when the game ends within them
//! or the side to move could then win at once (a trivial game).
//! Duels and strength scripts play pairs of games from the same opening so
//! that neither colour is favoured by the draw; the referee's
//! `--openings random:K` suites draw their positions here too
//! ([`random_plies`], [`decided`]).

use crate::protocol::{FileGame, GenOptions};
use crate::search::{alphabeta, Limits, Outcome, WIN_THRESHOLD};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Attempts before giving up on an opening that does not end the game.
const ATTEMPTS: u64 = 1000;

/// The start position of `gen` followed by `plies` random legal plies drawn
/// from `seed` (the same seed gives the same opening). Openings in which the
/// game is over, the side to move is stuck or can win with one move are
/// redrawn.
pub fn random_opening<G: FileGame>(gen: &GenOptions, plies: u32, seed: u64) -> Result<G, String> {
    let start = G::generate(gen)?;
    for attempt in 0..ATTEMPTS {
        let mut rng = SmallRng::seed_from_u64(seed ^ attempt.wrapping_mul(crate::search::mix::GOLDEN));
        if let Some(pos) = random_plies(&start, plies as usize, &mut rng) {
            return Ok(pos);
        }
    }
    Err(format!(
        "no {plies}-ply {} opening that leaves the game going was found in {ATTEMPTS} tries",
        G::NAME
    ))
}

/// `plies` uniformly random legal plies from `start`, drawn from `rng`;
/// `None` when the game ends on the way, or the position reached is over,
/// leaves the side to move without a legal move, or lets it win at once.
pub fn random_plies<G: FileGame>(start: &G, plies: usize, rng: &mut SmallRng) -> Option<G> {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for _ in 0..plies {
        moves.clear();
        if pos.result().is_none() {
            pos.legal_moves(&mut moves);
        }
        if moves.is_empty() {
            return None;
        }
        pos.play(moves[rng.gen_range(0..moves.len())]);
    }
    moves.clear();
    if pos.result().is_some() {
        return None;
    }
    pos.legal_moves(&mut moves);
    (!moves.is_empty() && !wins_at_once(&pos, &moves)).then_some(pos)
}

/// True when a shallow search already finds a forced result from `pos`
/// (depth 3 sees a win within two of the mover's plies; cheap in every
/// game): a game pair from there would measure nothing.
pub fn decided<G: FileGame>(pos: &G) -> bool {
    alphabeta::search(pos, Limits::depth(3), 1 << 16).score.abs() >= WIN_THRESHOLD
}

/// True when one of `moves` ends the game with the mover winning.
fn wins_at_once<G: FileGame>(pos: &G, moves: &[G::Move]) -> bool {
    moves.iter().any(|&mv| {
        let mut child = pos.clone();
        child.play(mv);
        child.outcome() == Some(Outcome::Loss)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::halma::Halma;
    use crate::protocol::{Policy, Setup};
    use crate::search::Game;

    #[test]
    fn openings_are_seeded_and_playable() {
        let gen = GenOptions::default();
        let a: Halma = random_opening(&gen, 6, 7).unwrap();
        let b: Halma = random_opening(&gen, 6, 7).unwrap();
        let c: Halma = random_opening(&gen, 6, 8).unwrap();
        assert_eq!(a.hash(), b.hash());
        assert_ne!(a.hash(), c.hash());
        assert!(a.result().is_none());
        let start: Halma = random_opening(&gen, 0, 1).unwrap();
        assert_eq!(start.hash(), Halma::generate(&gen).unwrap().hash());
    }
}
