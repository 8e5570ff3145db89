//! `agent fifteen ...` subcommands: the exact solver on a position file.

use super::eval::{POINT, TIE_BREAK};
use super::search::Engine;
use super::Fifteen;
use crate::protocol::FileGame;

use std::path::Path;

/// Text of a solver value: the margin in points, and who wins.
pub fn describe_value(score: i32) -> String {
    // score = 16 * margin + 4 * tie-break sign.
    let margin = (score as f64 / POINT as f64).round() as i32;
    let tb = (score - margin * POINT) / TIE_BREAK;
    let verdict = match (margin.signum(), tb) {
        (1, _) => "the side to move wins",
        (-1, _) => "the side to move loses",
        (_, 1) => "the side to move wins on the tie-break",
        (_, -1) => "the side to move loses on the tie-break",
        _ => "draw",
    };
    format!("margin {margin:+} ({verdict})")
}

/// `agent fifteen solve FILE`: reads a FIFTEEN input file, solves it
/// exactly and prints the margin under perfect play, the best move and the
/// CPU time. `tt_mb` sizes the transposition table.
pub fn solve_file(path: &Path, tt_mb: usize) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let input = Fifteen::parse_input(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let g = input.state;
    if g.size() != 4 && g.plies_left() > 12 {
        return Err(format!(
            "{}: {} cards are left on a 6x6 board; the exact solver is meant for 4x4 boards and short 6x6 endgames (at most 12 cards)",
            path.display(),
            g.plies_left()
        ));
    }
    let mut e = Engine::new(tt_mb << 20);
    let f = e.solve(&g);
    let best = match f.best {
        Some(m) => format!("{} = {}", g.describe_move(m), g.format_move(m).trim_end()),
        None => "none (the game is over)".into(),
    };
    Ok(format!(
        "player {} to move, {} cards left\nvalue: {}\nbest move: {best}\ntime: {:.3} s CPU, {} nodes\n",
        g.side().index() + 1,
        g.plies_left(),
        describe_value(f.score),
        f.seconds,
        f.nodes
    ))
}

/// The opponent of an in-process duel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// One-ply greedy on the agent's evaluation (`--strategy greedy`).
    Greedy,
    /// Plain minimax on the score margin (`--strategy minimax --depth D`).
    Minimax(u32),
    /// Uniformly random legal moves.
    Random,
}

/// Result of [`duel`], from the agent's side.
#[derive(Clone, Copy, Debug, Default)]
pub struct DuelScore {
    /// Games the agent won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the agent lost.
    pub losses: u32,
    /// Sum of final margins (agent minus opponent).
    pub margin: i64,
}

/// Plays `games` games of side `n` in-process between the default agent
/// (`seconds` CPU per move) and `opp`, the agent moving first in the even
/// games. The first `random_plies` plies of each game are random (seeded by
/// the game number), so that deterministic players do not repeat one game.
pub fn duel(
    n: u8,
    games: u32,
    seconds: f64,
    opp: Opponent,
    random_plies: u32,
    mut report: impl FnMut(u32, &DuelScore),
) -> DuelScore {
    use crate::protocol::Player;
    use crate::search::{greedy, minimax, Game};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let mut score = DuelScore::default();
    for game in 0..games {
        let agent = Player::from_index((game % 2) as usize);
        let mut g = Fifteen::new(n, Player::One);
        let mut rng = SmallRng::seed_from_u64(game as u64 / 2);
        let mut ply = 0;
        let mut moves = Vec::new();
        while !g.is_over() {
            moves.clear();
            g.legal_moves(&mut moves);
            let mv = if ply < random_plies || (g.side() != agent && opp == Opponent::Random) {
                moves[rng.gen_range(0..moves.len())]
            } else if g.side() == agent {
                super::search::best_move(&g, seconds, seconds * 2.0).expect("move")
            } else {
                match opp {
                    Opponent::Greedy => greedy::choose(&g).expect("move"),
                    Opponent::Minimax(d) => minimax::search(&g, d, 30.0, |_| {}).best.expect("move"),
                    Opponent::Random => unreachable!(),
                }
            };
            if std::env::var_os("FIFTEEN_SHOW").is_some() {
                let who = if g.side() == agent { "agent" } else { "opponent" };
                eprintln!("{who} (player {}): {}", g.side().index() + 1, g.describe_move(mv));
            }
            g.play(mv);
            if std::env::var_os("FIFTEEN_SHOW").is_some() {
                eprintln!("{}", g.render());
            }
            ply += 1;
        }
        let margin = g.score(agent) as i64 - g.score(agent.other()) as i64;
        score.margin += margin;
        match g.leader() {
            Some(p) if p == agent => score.wins += 1,
            Some(_) => score.losses += 1,
            None => score.draws += 1,
        }
        report(game, &score);
    }
    score
}

/// `agent fifteen duel`: runs [`duel`] and prints progress and the totals.
pub fn duel_command(
    n: u8,
    games: u32,
    seconds: f64,
    opponent: &str,
    depth: u32,
    random_plies: u32,
) -> Result<(), String> {
    if n != 4 && n != 6 {
        return Err(format!("--size must be 4 or 6, not {n}"));
    }
    let opp = match opponent {
        "greedy" => Opponent::Greedy,
        "minimax" => Opponent::Minimax(depth.max(1)),
        "random" => Opponent::Random,
        other => return Err(format!("--opponent must be greedy, minimax or random, not {other:?}")),
    };
    let s = duel(n, games, seconds, opp, random_plies, |i, s| {
        eprintln!(
            "game {:>3}: +{} ={} -{} (margin sum {:+})",
            i + 1,
            s.wins,
            s.draws,
            s.losses,
            s.margin
        )
    });
    let pts = s.wins as f64 + 0.5 * s.draws as f64;
    println!(
        "agent vs {opponent}: {} wins, {} draws, {} losses: {:.1}% ({} games, mean margin {:+.2})",
        s.wins,
        s.draws,
        s.losses,
        100.0 * pts / games.max(1) as f64,
        games,
        s.margin as f64 / games.max(1) as f64
    );
    Ok(())
}

/// `agent fifteen opening`: the `input.txt` (GAME mode, `time` seconds) of
/// the position after `plies` random placements from the empty board of side
/// `n`, player 1 moving first; seeded, so a strength script can give every
/// pair of games its own opening.
pub fn opening(n: u8, plies: u32, seed: u64, time: f64) -> Result<String, String> {
    use crate::protocol::{Mode, Player};
    use crate::search::Game;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    if n != 4 && n != 6 {
        return Err(format!("--size must be 4 or 6, not {n}"));
    }
    if !(time.is_finite() && time > 0.0) {
        return Err(format!("--time must be a positive number of seconds, not {time}"));
    }
    let mut g = Fifteen::new(n, Player::One);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut moves = Vec::new();
    for _ in 0..plies {
        if g.is_over() {
            break;
        }
        moves.clear();
        g.legal_moves(&mut moves);
        g.play(moves[rng.gen_range(0..moves.len())]);
    }
    Ok(g.write_input(Mode::Game, time))
}
