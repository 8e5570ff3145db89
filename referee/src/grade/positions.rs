//! The single-move tests' positions: drawn from seeded self-play of
//! players of mixed strength (a greedy player that plays a random legal
//! move some of the time, how often drawn per side and game), spread over
//! the opening, the middle game and the endgame, both colours in turn; or
//! read from a directory of `input.txt` files. The same seed gives the
//! same positions on any machine: no clock is involved.

use agent::{FileGame, GenOptions, Mode, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::path::Path;

/// Plies a self-play game may last before it is cut.
const MAX_PLIES: usize = 600;

/// How often each kind of player plays a random legal move.
const NOISE: [f64; 3] = [0.1, 0.3, 0.6];

/// `count` positions of the game described by `gen`, from `seed`: position
/// i is taken from its own game, at a point of it that moves from the
/// opening (i = 0) to the endgame (i = count - 1), with the side to move
/// alternating between the two colours.
pub(crate) fn generate<G: FileGame>(gen: &GenOptions, count: usize, seed: u64) -> Result<Vec<G>, String> {
    let start = G::generate(gen)?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let frac = if count > 1 {
            0.1 + 0.8 * i as f64 / (count - 1) as f64
        } else {
            0.5
        };
        let colour = if i % 2 == 0 {
            start.to_move()
        } else {
            start.to_move().other()
        };
        let pos = (0..200u64)
            .find_map(|attempt| {
                let mut rng = SmallRng::seed_from_u64(seed ^ (i as u64) << 32 ^ attempt);
                pick(&start, frac, colour, &mut rng)
            })
            .ok_or_else(|| format!("no position {} of {} found for the single-move tests", i + 1, count))?;
        out.push(pos);
    }
    Ok(out)
}

/// One self-play game from `start`, and its position at `frac` of the
/// game's length (the first one after it with `colour` to move and a
/// legal move), if the game gives one.
fn pick<G: FileGame>(start: &G, frac: f64, colour: Player, rng: &mut SmallRng) -> Option<G> {
    let noise = [NOISE[rng.gen_range(0..3)], NOISE[rng.gen_range(0..3)]];
    let mut line = vec![start.clone()];
    let mut pos = start.clone();
    let mut moves = Vec::new();
    while line.len() < MAX_PLIES && pos.result().is_none() {
        moves.clear();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let random = rng.gen_bool(noise[pos.to_move().index()]);
        let mv = if random {
            moves[rng.gen_range(0..moves.len())]
        } else {
            agent::greedy_move(&pos).unwrap_or(moves[0])
        };
        pos.play(mv);
        line.push(pos.clone());
    }
    let from = ((line.len() as f64 * frac) as usize).max(1);
    line.into_iter().skip(from).find(|p| {
        let mut m = Vec::new();
        if p.result().is_none() && p.to_move() == colour {
            p.legal_moves(&mut m);
        }
        !m.is_empty()
    })
}

/// The positions of a directory of `input.txt`-format files, in name
/// order: the first `count` that read as positions of the game.
pub(crate) fn read_dir<G: FileGame>(dir: &Path, count: usize) -> Result<Vec<G>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the positions directory {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files.iter().take(count) {
        let text = std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        let input = G::parse_input(&text).map_err(|e| format!("{}: {e}", f.display()))?;
        out.push(input.state);
    }
    if out.len() < count {
        return Err(format!(
            "{} holds {} positions; the plan asks for {count}",
            dir.display(),
            out.len()
        ));
    }
    Ok(out)
}

/// A position as the `input.txt` of a single-move test with `budget` CPU
/// seconds.
pub(crate) fn single_input<G: FileGame>(pos: &G, budget: f64) -> String {
    pos.write_input(Mode::Single, budget)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent::Halma;
    use agent::{Notation, Setup};

    #[test]
    fn positions_are_seeded_spread_and_of_both_colours() {
        let gen = GenOptions::default();
        let a: Vec<Halma> = generate(&gen, 6, 11).unwrap();
        let b: Vec<Halma> = generate(&gen, 6, 11).unwrap();
        let c: Vec<Halma> = generate(&gen, 6, 12).unwrap();
        let text = |v: &[Halma]| v.iter().map(|p| single_input(p, 30.0)).collect::<Vec<_>>();
        assert_eq!(text(&a), text(&b), "the same seed, the same positions");
        assert_ne!(text(&a), text(&c));
        let start = Halma::generate(&gen).unwrap();
        for (i, p) in a.iter().enumerate() {
            let colour = if i % 2 == 0 {
                start.to_move()
            } else {
                start.to_move().other()
            };
            assert_eq!(p.to_move(), colour, "position {i}");
            assert!(p.result().is_none());
            assert_ne!(
                single_input(p, 30.0),
                single_input(&start, 30.0),
                "position {i} is played into"
            );
        }
    }
}
