//! One in-process duel for every game: strategy A against strategy B under
//! the contest's CPU clock (GAME mode: each side has `seconds` for the whole
//! game and plans every move with [`timing::plan`]), in pairs of games from
//! the same seeded random opening with the colours swapped, so that neither
//! the opening nor the first move favours a side.

use agent::clock::CpuTimer;
use agent::play::choose::{choose, ChooseOptions};
use agent::play::openings::random_opening;
use agent::play::FileGame;
use agent::protocol::{GenOptions, Mode, Player};
use agent::search::Strategy;
use agent::timing;
use fxhash::FxHashSet;
use std::fmt;

/// Parses a strategy as the duel command writes it: `best`, `alphabeta[:D]`,
/// `minimax[:D]`, `greedy`, `mcts`, `random` (defaults: alphabeta 4,
/// minimax 2, as `agent --strategy`) or `level:N` (seed 0).
pub(crate) fn parse_strategy(spec: &str) -> Result<Strategy, String> {
    let (name, depth) = match spec.split_once(':') {
        Some((n, d)) => {
            let d: u32 = d
                .parse()
                .ok()
                .filter(|&d| (1..=64).contains(&d))
                .ok_or_else(|| format!("expected a depth from 1 to 64 after {n}:, found {d:?}"))?;
            (n, Some(d))
        }
        None => (spec, None),
    };
    if name == "level" {
        let n = depth.ok_or("level takes its number: level:N, N from 1 to 10")?;
        return Ok(Strategy::Level(agent::search::level::Level::new(n)?, 0));
    }
    let s = match name {
        "best" => Strategy::Best,
        "alphabeta" => Strategy::AlphaBeta(depth.unwrap_or(4)),
        "minimax" => Strategy::Minimax(depth.unwrap_or(2)),
        "greedy" => Strategy::Greedy,
        "mcts" => Strategy::Mcts,
        "random" => Strategy::Random,
        _ => {
            return Err(format!(
                "unknown strategy {spec:?}: expected best, alphabeta[:D], minimax[:D], greedy, mcts, random or level:N"
            ))
        }
    };
    if depth.is_some() && !matches!(s, Strategy::AlphaBeta(_) | Strategy::Minimax(_)) {
        return Err(format!("{name} takes no depth (found {spec:?})"));
    }
    Ok(s)
}

/// How a duel is played.
#[derive(Clone, Debug)]
pub struct DuelOptions {
    /// Strategy A (whose score is reported) and strategy B.
    pub a: Strategy,
    /// Strategy B.
    pub b: Strategy,
    /// Games to play (pairs share an opening; an odd last game is A first).
    pub games: u32,
    /// CPU seconds each side has for a whole game.
    pub seconds: f64,
    /// Instead of a game clock: every move is a SINGLE move of this many
    /// CPU seconds (planned as the agent plans SINGLE), and nobody loses on
    /// time.
    pub move_seconds: Option<f64>,
    /// Random plies after the start position.
    pub opening_plies: u32,
    /// Seed of the openings (pair `i` uses `seed + i`).
    pub seed: u64,
    /// Board options for the start position (size etc.).
    pub gen: GenOptions,
    /// Plies after which a game ends; the side with more time left wins it,
    /// as Halma's move cap is settled.
    pub max_plies: u32,
}

/// How one game ended, for A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// A won.
    Win,
    /// Nobody won.
    Draw,
    /// B won.
    Loss,
}

/// The duel's tally, from A's side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DuelReport {
    /// Games A won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
    /// Games decided by a side running out of its clock.
    pub on_time: u32,
    /// Games ended by the ply cap.
    pub capped: u32,
    /// Most CPU seconds one move took (either side).
    pub longest_move: f64,
}

impl DuelReport {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// A's score in percent (a draw is half a win) and the half-width of its
    /// 95 % confidence interval (normal approximation over the games).
    pub fn score(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let mean = (self.wins as f64 + 0.5 * self.draws as f64) / n;
        let second = (self.wins as f64 + 0.25 * self.draws as f64) / n;
        let var = (second - mean * mean).max(0.0);
        (100.0 * mean, 100.0 * 1.96 * (var / n).sqrt())
    }

    fn add(&mut self, r: GameResult) {
        match r {
            GameResult::Win => self.wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::Loss => self.losses += 1,
        }
    }
}

impl fmt::Display for DuelReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (score, err) = self.score();
        write!(
            f,
            "{} games: A won {}, drew {}, lost {}: score {score:.1} % ± {err:.1} (95 %); \
             {} decided on time, {} at the ply cap; longest move {:.3} s",
            self.games(),
            self.wins,
            self.draws,
            self.losses,
            self.on_time,
            self.capped,
            self.longest_move
        )
    }
}

/// Plays the duel; `on_game` is called after every game with its number
/// (from 0), result and the tally so far (for progress lines).
pub fn duel<G: FileGame>(
    o: &DuelOptions,
    mut on_game: impl FnMut(u32, GameResult, &DuelReport),
) -> Result<DuelReport, String> {
    if !(o.seconds.is_finite() && o.seconds > 0.0) {
        return Err(format!("--seconds must be a positive number, found {}", o.seconds));
    }
    let mut report = DuelReport::default();
    for game in 0..o.games {
        let opening: G = random_opening(&o.gen, o.opening_plies, o.seed.wrapping_add(u64::from(game / 2)))?;
        // A takes the seat that moves first in even games, the other in odd ones.
        let a_seat = if game % 2 == 0 {
            opening.to_move()
        } else {
            opening.to_move().other()
        };
        let r = play_game(o, opening, a_seat, &mut report, &mut |_| {});
        report.add(r);
        on_game(game, r, &report);
    }
    Ok(report)
}

/// One game from `pos`, A sitting in `a_seat` (the ply cap, clocks and
/// seen positions as in [`duel`]), adding its time and cap losses to
/// `report`. `observe` sees every position in which a move is chosen, before
/// the search (self-play data for the evaluation fits).
pub fn play_game<G: FileGame>(
    o: &DuelOptions,
    mut pos: G,
    a_seat: Player,
    report: &mut DuelReport,
    observe: &mut dyn FnMut(&G),
) -> GameResult {
    let for_a = |winner: Option<Player>| match winner {
        Some(p) if p == a_seat => GameResult::Win,
        Some(_) => GameResult::Loss,
        None => GameResult::Draw,
    };
    let mut left = [o.seconds; 2];
    let mut seen = [FxHashSet::default(), FxHashSet::default()];
    let by_time = |left: &[f64; 2]| {
        if left[0] == left[1] {
            None
        } else if left[0] > left[1] {
            Some(Player::One)
        } else {
            Some(Player::Two)
        }
    };
    for ply in 0.. {
        if let Some(result) = pos.result() {
            return match result {
                None if G::NO_MOVE_SETTLED_BY_TIME => {
                    report.on_time += 1;
                    for_a(by_time(&left))
                }
                winner => for_a(winner),
            };
        }
        if ply >= o.max_plies {
            report.capped += 1;
            return for_a(by_time(&left));
        }
        observe(&pos);
        let side = pos.to_move();
        let strategy = if side == a_seat { o.a } else { o.b };
        let limits = match o.move_seconds {
            Some(s) => timing::plan(Mode::Single, s, 0.0, 1.0),
            None => timing::plan(Mode::Game, left[side.index()], 0.0, pos.moves_left_estimate()),
        };
        seen[side.index()].insert(pos.hash());
        let opts = ChooseOptions {
            seen: Some(seen[side.index()].clone()),
            seed: o.seed ^ (u64::from(ply) << 32),
            ..Default::default()
        };
        let timer = CpuTimer::start();
        let choice = choose(&pos, strategy, &limits, &opts, &mut |_| {});
        let spent = timer.elapsed();
        report.longest_move = report.longest_move.max(spent);
        left[side.index()] -= spent;
        let Some(choice) = choice else {
            // No legal move although the game is not over: the side is stuck.
            report.on_time += 1;
            return for_a(by_time(&left));
        };
        if left[side.index()] <= 0.0 && o.move_seconds.is_none() {
            report.on_time += 1;
            return for_a(Some(side.other()));
        }
        pos.play(choice.best);
        seen[side.index()].insert(pos.hash());
    }
    unreachable!("the loop returns")
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent::games::connectsquare::ConnectSquare;

    #[test]
    fn strategies_parse_with_clear_errors() {
        assert_eq!(parse_strategy("best").unwrap(), Strategy::Best);
        assert_eq!(parse_strategy("minimax").unwrap(), Strategy::Minimax(2));
        assert_eq!(parse_strategy("alphabeta:6").unwrap(), Strategy::AlphaBeta(6));
        assert_eq!(
            parse_strategy("level:4").unwrap(),
            Strategy::Level(agent::search::level::Level::new(4).unwrap(), 0)
        );
        assert!(parse_strategy("level").is_err());
        assert!(parse_strategy("minimax:x").unwrap_err().contains("depth"));
        assert!(parse_strategy("greedy:2").unwrap_err().contains("no depth"));
        assert!(parse_strategy("chess").unwrap_err().contains("unknown strategy"));
    }

    #[test]
    fn a_strong_side_beats_random_and_the_tally_adds_up() {
        let o = DuelOptions {
            a: Strategy::AlphaBeta(3),
            b: Strategy::Random,
            games: 4,
            seconds: 5.0,
            move_seconds: None,
            opening_plies: 2,
            seed: 3,
            gen: GenOptions {
                rows: Some(5),
                cols: Some(5),
                ..Default::default()
            },
            max_plies: 1000,
        };
        let mut seen_games = 0;
        let r = duel::<ConnectSquare>(&o, |_, _, _| seen_games += 1).unwrap();
        assert_eq!(seen_games, 4);
        assert_eq!(r.games(), 4);
        assert!(r.wins >= 3, "{r}");
        let (score, err) = r.score();
        assert!(score >= 75.0 && err >= 0.0, "{r}");
    }

    #[test]
    fn score_and_error_bar() {
        let r = DuelReport {
            wins: 10,
            draws: 0,
            losses: 10,
            ..Default::default()
        };
        let (s, e) = r.score();
        assert!((s - 50.0).abs() < 1e-9);
        assert!((e - 100.0 * 1.96 * (0.25f64 / 20.0).sqrt()).abs() < 1e-9);
    }
}
