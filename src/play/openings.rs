//! Seeded random openings for any game: the game's start position followed
//! by K uniformly random legal plies, redrawn when the game ends within them
//! or the side to move could then win at once (a trivial game).
//! Duels and strength scripts play pairs of games from the same opening so
//! that neither colour is favoured by the draw; the referee's
//! `--openings random:K` suites draw their positions here too
//! ([`random_plies`], [`decided`]). [`balanced_book`] keeps those a search
//! scores near even, for `agent <game> book`.

use super::steps::FileGame;
use crate::protocol::GenOptions;
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

/// One position of a balanced book and the score that admitted it.
#[derive(Clone, Debug)]
pub struct BookEntry<G> {
    /// The position, side to move as after the random plies.
    pub pos: G,
    /// The mean of the scores of searches to `depth - 1` and `depth` plies,
    /// from the side to move's view.
    pub score: i32,
}

/// What [`balanced_book`] looks for.
#[derive(Clone, Debug)]
pub struct BookSpec {
    /// Positions wanted.
    pub count: usize,
    /// Random plies after the start position.
    pub plies: u32,
    /// Depth of the search that scores each candidate (at least 2).
    pub depth: u32,
    /// The largest `|score|` kept, in the game's evaluation units.
    pub margin: i32,
    /// Candidate `i` is the opening of seed `seed + i`.
    pub seed: u64,
    /// Candidates drawn at most before giving up.
    pub max_candidates: usize,
}

/// A balanced opening book: distinct random openings of `spec.plies` plies
/// whose searched score is within `spec.margin` of even, so that a game
/// pair from one measures the players rather than the luck of the draw
/// (random plies can leave one colour far ahead: in Halma, 8 random plies
/// gave scores up to ±774 at depth 10-11, and in 7 of 10 such pairs at 100 s a
/// side the same colour won both games). The score is the mean of depths
/// `depth - 1` and `depth`, because a game whose sides alternate can
/// score odd and even depths hundreds of units apart (Halma does). Also
/// returns how many candidates were drawn. Fails, saying how many it found,
/// when `max_candidates` draws do not give `count` positions.
pub fn balanced_book<G: FileGame>(gen: &GenOptions, spec: &BookSpec) -> Result<(Vec<BookEntry<G>>, usize), String> {
    if spec.depth < 2 {
        return Err(format!(
            "a book needs a search --depth of at least 2 (the score is the mean of two depths), found {}",
            spec.depth
        ));
    }
    let mut seen = std::collections::HashSet::new();
    let mut book = Vec::new();
    let mut drawn = 0;
    while book.len() < spec.count && drawn < spec.max_candidates {
        let seed = spec.seed.wrapping_add(drawn as u64);
        drawn += 1;
        let pos: G = random_opening(gen, spec.plies, seed)?;
        if !seen.insert(pos.hash()) || decided(&pos) {
            continue;
        }
        let score = |d| alphabeta::search(&pos, Limits::depth(d), 1 << 22).score;
        let (a, b) = (score(spec.depth - 1), score(spec.depth));
        if a.abs() >= WIN_THRESHOLD || b.abs() >= WIN_THRESHOLD {
            continue;
        }
        let mean = (a + b) / 2;
        if mean.abs() <= spec.margin {
            book.push(BookEntry { pos, score: mean });
        }
    }
    if book.len() < spec.count {
        return Err(format!(
            "only {} of {} candidate openings of {} plies scored within {} of even at depth {}; \
             allow a wider --margin, fewer --plies or fewer positions",
            book.len(),
            drawn,
            spec.plies,
            spec.margin,
            spec.depth
        ));
    }
    Ok((book, drawn))
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
    use crate::protocol::Setup;
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

    #[test]
    fn a_balanced_book_keeps_only_distinct_near_even_openings() {
        let gen = GenOptions::default();
        let spec = BookSpec {
            count: 4,
            plies: 6,
            depth: 3,
            margin: 60,
            seed: 1,
            max_candidates: 400,
        };
        let (book, drawn) = balanced_book::<Halma>(&gen, &spec).unwrap();
        assert_eq!(book.len(), 4);
        assert!(drawn >= 4);
        let mut hashes: Vec<u64> = book.iter().map(|e| e.pos.hash()).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), 4, "openings repeat");
        for e in &book {
            assert!(e.score.abs() <= 60);
            // The admitted score is the one the two searches give again.
            let s = |d| alphabeta::search(&e.pos, Limits::depth(d), 1 << 22).score;
            assert_eq!(e.score, (s(2) + s(3)) / 2);
        }
        // Random 6-ply openings are not all that even: the filter rejected some.
        let (_, wide) = balanced_book::<Halma>(
            &gen,
            &BookSpec {
                margin: 100_000,
                ..spec.clone()
            },
        )
        .unwrap();
        assert!(
            drawn > wide,
            "a margin of 60 rejected nothing ({drawn} drawn, {wide} without it)"
        );
        // Too narrow a margin is an error that says what was found.
        let err = balanced_book::<Halma>(
            &gen,
            &BookSpec {
                margin: -1,
                max_candidates: 20,
                ..spec
            },
        )
        .unwrap_err();
        assert!(err.contains("only 0 of 20"), "{err}");
    }
}
