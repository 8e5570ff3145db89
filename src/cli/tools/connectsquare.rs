//! `agent connectsquare ...`: the exact solver and the solver-backed check
//! of the default agent against the brief's greedy player.

use crate::tools::Tool;
use agent::clock::CpuTimer;
use agent::games::connectsquare::player::brief_greedy;
use agent::games::connectsquare::solver::{Solver, Value, Verdict};
use agent::games::connectsquare::{ConnectSquare, Status};
use agent::play::{choose, ChooseOptions};
use agent::protocol::Player;
use agent::protocol::{Notation, View};
use agent::search::Game;
use agent::search::{Limits, Strategy};
use clap::Subcommand;
use std::path::PathBuf;

/// Connect Square tools.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Exact value (win/draw/loss for the side to move; with --plies also
    /// the plies to the end) and a best move of the position in FILE (the
    /// input.txt format), or of the empty board of --rows x --cols with R to
    /// move; prints the nodes searched and the CPU seconds.
    Solve {
        /// A CONNECTSQUARE input file.
        file: Option<PathBuf>,
        /// Rows of the empty board (when no FILE is given).
        #[arg(long, default_value_t = 4)]
        rows: usize,
        /// Columns of the empty board (when no FILE is given).
        #[arg(long, default_value_t = 4)]
        cols: usize,
        /// Give up after this many CPU seconds.
        #[arg(long, default_value_t = 3600.0)]
        seconds: f64,
        /// Transposition table of 2^BITS entries of 16 bytes.
        #[arg(long, default_value_t = 24)]
        tt_bits: u32,
        /// Also find the plies to the end (the fastest win, the slowest
        /// loss) by narrowing the score window: more searches.
        #[arg(long)]
        plies: bool,
        /// Without the follow-up bounds (see the solver's doc): the search
        /// alone, to measure it.
        #[arg(long)]
        plain_search: bool,
    },
    /// Solves empty boards RUNS times each with a fresh solver and prints
    /// the value and the median nodes and CPU seconds per board.
    Bench {
        /// Boards as ROWSxCOLS, comma-separated.
        #[arg(long, default_value = "4x4,5x5,4x7,6x6,5x7,6x7")]
        boards: String,
        /// Runs per board (the median is printed).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Transposition table of 2^BITS entries of 16 bytes.
        #[arg(long, default_value_t = 24)]
        tt_bits: u32,
        /// Give up on a board after this many CPU seconds (per run).
        #[arg(long, default_value_t = 600.0)]
        seconds: f64,
        /// Without the follow-up bounds: the search alone.
        #[arg(long)]
        plain_search: bool,
    },
    /// Plays the default agent against the brief's greedy player from
    /// random positions the solver marks as won for the default agent's
    /// side, and reports any game it fails to win.
    Wincheck {
        /// Board rows.
        #[arg(long, default_value_t = 6)]
        rows: usize,
        /// Board columns.
        #[arg(long, default_value_t = 7)]
        cols: usize,
        /// Number of won positions to play from.
        #[arg(long, default_value_t = 50)]
        positions: usize,
        /// Coins played to make a start position (at least).
        #[arg(long, default_value_t = 14)]
        min_plies: usize,
        /// Coins played to make a start position (at most).
        #[arg(long, default_value_t = 24)]
        max_plies: usize,
        /// Chance that a start-position coin is random rather than the
        /// greedy player's choice.
        #[arg(long, default_value_t = 0.5)]
        noise: f64,
        /// Only positions whose win takes at least this many plies (so the
        /// agent has to find more than an immediate square).
        #[arg(long, default_value_t = 5)]
        min_win_plies: usize,
        /// CPU seconds the default agent gets per move (its soft budget;
        /// the hard one is twice that).
        #[arg(long, default_value_t = 0.5)]
        move_seconds: f64,
        /// CPU seconds the solver may spend labelling one start position.
        #[arg(long, default_value_t = 10.0)]
        solve_seconds: f64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    #[command(flatten)]
    Common(Tool),
}

/// Runs a subcommand; the error is the message to print.
pub fn run(cmd: Command) -> Result<(), String> {
    match cmd {
        Command::Solve {
            file,
            rows,
            cols,
            seconds,
            tt_bits,
            plies,
            plain_search,
        } => {
            let pos = match &file {
                Some(path) => {
                    let text = agent::protocol::read_bounded(path)
                        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                    ConnectSquare::parse_input(&text)
                        .map_err(|e| format!("{}: {e}", path.display()))?
                        .state
                }
                None => ConnectSquare::new(rows, cols, Player::One)?,
            };
            solve_and_print(&pos, seconds, tt_bits, plies, !plain_search)
        }
        Command::Bench {
            boards,
            runs,
            tt_bits,
            seconds,
            plain_search,
        } => bench(&boards, runs, tt_bits, seconds, !plain_search),
        Command::Common(tool) => crate::tools::run::<ConnectSquare>(tool),
        Command::Wincheck {
            rows,
            cols,
            positions,
            min_plies,
            max_plies,
            noise,
            min_win_plies,
            move_seconds,
            solve_seconds,
            seed,
        } => {
            if !(0.0..=1.0).contains(&noise) {
                return Err(format!("--noise must be between 0 and 1, found {noise}"));
            }
            let report = wincheck(&WincheckOptions {
                rows,
                cols,
                positions,
                min_plies,
                max_plies: max_plies.max(min_plies),
                noise,
                min_win_plies,
                move_seconds,
                solve_seconds,
                seed,
            })?;
            println!("{}", report.summary());
            if report.failures.is_empty() {
                Ok(())
            } else {
                for f in &report.failures {
                    eprintln!("not won:\n{f}");
                }
                Err(format!(
                    "{} of {} solver-won positions were not won",
                    report.failures.len(),
                    report.played
                ))
            }
        }
    }
}

fn coin_name(p: Player) -> &'static str {
    ConnectSquare::player_names()[p.index()]
}

fn describe(v: &Value, side: Player) -> String {
    let in_plies = v.plies.map_or(String::new(), |p| format!(" in {p} plies"));
    match v.verdict {
        Verdict::Win => format!("win for {} (the side to move){in_plies}", coin_name(side)),
        Verdict::Loss => format!(
            "loss for {} (the side to move): {} wins{in_plies}",
            coin_name(side),
            coin_name(side.other()),
        ),
        Verdict::Draw => format!("draw (the board fills up{in_plies})"),
    }
}

fn check_tt_bits(tt_bits: u32) -> Result<(), String> {
    if tt_bits > 28 {
        return Err(format!("--tt-bits {tt_bits} is too large (at most 28: 4 GiB)"));
    }
    Ok(())
}

fn solve_and_print(
    pos: &ConnectSquare,
    seconds: f64,
    tt_bits: u32,
    plies: bool,
    follow_up: bool,
) -> Result<(), String> {
    check_tt_bits(tt_bits)?;
    let timer = CpuTimer::start();
    let mut solver = Solver::new(tt_bits);
    solver.set_follow_up(follow_up);
    let found = if plies {
        solver.best_move_exact(pos, seconds)
    } else {
        solver.best_move(pos, seconds)
    };
    let Some((value, mv)) = found else {
        return Err(format!(
            "no result within {seconds} CPU seconds ({} nodes)",
            solver.nodes
        ));
    };
    let cpu = timer.elapsed();
    println!(
        "board {}x{}, {} to move, {} coins",
        pos.rows(),
        pos.cols(),
        coin_name(pos.side()),
        pos.stones()
    );
    match pos.status() {
        Status::Won(p) => println!("the game is over: {} has a square", coin_name(p)),
        Status::Draw => println!("the game is over: the board is full (draw)"),
        Status::Playing => {
            println!("value: {}", describe(&value, pos.side()));
            if let Some(c) = mv {
                println!("best move: column {c}");
            }
        }
    }
    println!("nodes {}, CPU {:.3} s", solver.nodes, cpu);
    Ok(())
}

/// Parses "6x7" (rows x columns).
fn parse_board(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("expected a board as ROWSxCOLS such as 6x7, found {text:?}");
    let (r, c) = text.trim().split_once('x').ok_or_else(bad)?;
    Ok((
        r.trim().parse().map_err(|_| bad())?,
        c.trim().parse().map_err(|_| bad())?,
    ))
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// `agent connectsquare bench`: median CPU seconds of empty-board solves.
fn bench(boards: &str, runs: usize, tt_bits: u32, seconds: f64, follow_up: bool) -> Result<(), String> {
    check_tt_bits(tt_bits)?;
    if runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let sizes = boards.split(',').map(parse_board).collect::<Result<Vec<_>, _>>()?;
    println!("board  value (first player)  best move  nodes (median)  CPU s (median of {runs}; all runs)");
    for (rows, cols) in sizes {
        let pos = ConnectSquare::new(rows, cols, Player::One)?;
        let (mut cpus, mut nodes) = (Vec::new(), Vec::new());
        let mut answer = None;
        for _ in 0..runs {
            let timer = CpuTimer::start();
            let mut solver = Solver::new(tt_bits);
            solver.set_follow_up(follow_up);
            let found = solver.best_move(&pos, seconds);
            cpus.push(timer.elapsed());
            nodes.push(solver.nodes as f64);
            match found {
                Some((v, mv)) => answer = Some((v.verdict, mv)),
                None => {
                    answer = None;
                    break;
                }
            }
        }
        let all = cpus.iter().map(|c| format!("{c:.2}")).collect::<Vec<_>>().join(" ");
        match answer {
            Some((verdict, mv)) => println!(
                "{rows}x{cols}  {:<22}  {:<9}  {:>14}  {:.2} ({all})",
                verdict.word(),
                mv.map_or("-".into(), |c| format!("column {c}")),
                median(&mut nodes) as u64,
                median(&mut cpus)
            ),
            None => println!("{rows}x{cols}  not solved within {seconds} CPU s"),
        }
    }
    Ok(())
}

/// Settings of [`wincheck`].
#[derive(Clone, Debug)]
pub(crate) struct WincheckOptions {
    /// Board rows.
    pub rows: usize,
    /// Board columns.
    pub cols: usize,
    /// Won positions to play from.
    pub positions: usize,
    /// Random opening length, at least.
    pub min_plies: usize,
    /// Random opening length, at most.
    pub max_plies: usize,
    /// Chance of a random (not greedy) coin in the start position.
    pub noise: f64,
    /// Shortest win accepted (plies).
    pub min_win_plies: usize,
    /// Soft budget per move of the default agent.
    pub move_seconds: f64,
    /// Solver time per candidate start position.
    pub solve_seconds: f64,
    /// Random seed.
    pub seed: u64,
}

/// What [`wincheck`] found.
#[derive(Clone, Debug, Default)]
pub(crate) struct WincheckReport {
    /// Games played from solver-won positions.
    pub played: usize,
    /// Of which the default agent moved first.
    pub agent_first: usize,
    /// Candidates the solver could not label in time.
    pub unsolved: usize,
    /// Candidates that were draws (skipped).
    pub draws: usize,
    /// Candidates won too quickly (skipped).
    pub quick: usize,
    /// Start positions of games not won, drawn for a person.
    pub failures: Vec<String>,
    /// Longest CPU time of one agent move.
    pub max_move_seconds: f64,
}

impl WincheckReport {
    /// One line for the log.
    pub fn summary(&self) -> String {
        format!(
            "{} solver-won positions played ({} with the agent to move, {} with greedy to move in its lost position): {} won, {} not won; skipped {} draws and {} wins shorter than the minimum; {} unsolved in time; slowest agent move {:.3} s",
            self.played,
            self.agent_first,
            self.played - self.agent_first,
            self.played - self.failures.len(),
            self.failures.len(),
            self.draws,
            self.quick,
            self.unsolved,
            self.max_move_seconds
        )
    }
}

/// Plays the default agent against the brief's greedy player from random
/// positions that the solver marks as won for the agent's side: when the
/// solver says the side to move wins, the agent takes that side; when it
/// says the side to move loses, greedy moves first and the agent answers.
pub(crate) fn wincheck(o: &WincheckOptions) -> Result<WincheckReport, String> {
    use rand::SeedableRng;
    agent::games::connectsquare::check_size(o.rows, o.cols)?;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(o.seed);
    let mut report = WincheckReport::default();
    let mut solver = Solver::new(Solver::bits_for(o.solve_seconds, 23));
    let mut attempts = 0;
    while report.played < o.positions {
        attempts += 1;
        if attempts > 100 * o.positions + 100 {
            return Err(format!(
                "found only {} solver-won positions in {attempts} tries ({})",
                report.played,
                report.summary()
            ));
        }
        let pos = random_position(o, &mut rng)?;
        if pos.status() != Status::Playing {
            continue;
        }
        let Some(v) = solver.solve_exact(&pos, o.solve_seconds) else {
            report.unsolved += 1;
            continue;
        };
        let agent = match v.verdict {
            Verdict::Draw => {
                report.draws += 1;
                continue;
            }
            Verdict::Win => pos.side(),
            Verdict::Loss => pos.side().other(),
        };
        if v.plies.is_some_and(|p| p < o.min_win_plies) {
            report.quick += 1;
            continue;
        }
        report.played += 1;
        if agent == pos.side() {
            report.agent_first += 1;
        }
        play_out(pos, agent, o, &mut report)?;
    }
    Ok(report)
}

/// A random position of `o`'s board after `min_plies..=max_plies` coins,
/// mostly greedy's choices (a random one with probability `noise`), never a
/// coin that completes a square or leaves the opponent one.
fn random_position(o: &WincheckOptions, rng: &mut rand::rngs::SmallRng) -> Result<ConnectSquare, String> {
    use rand::Rng;
    let mut pos = ConnectSquare::new(o.rows, o.cols, Player::One)?;
    let plies = rng.gen_range(o.min_plies..=o.max_plies);
    let mut moves = Vec::new();
    for _ in 0..plies {
        moves.clear();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        // Coins that complete a square would end the game, and coins
        // that leave the opponent one make a trivial position: skip both.
        let wins = pos.winning_cells(pos.current()) & pos.playable();
        let ok = if wins != 0 {
            0
        } else {
            agent::games::connectsquare::player::safe_cells(&pos)
        };
        moves.retain(|&m| ok & pos.column_mask(m as usize) != 0);
        if moves.is_empty() {
            break;
        }
        let greedy = brief_greedy(&pos).filter(|m| moves.contains(m));
        let mv = match greedy {
            Some(g) if !rng.gen_bool(o.noise) => g,
            _ => moves[rng.gen_range(0..moves.len())],
        };
        pos.play(mv);
    }
    Ok(pos)
}

/// Plays `start` to the end, the default agent as `agent` against greedy,
/// recording the slowest agent move and, unless the agent wins, the game.
fn play_out(
    start: ConnectSquare,
    agent: Player,
    o: &WincheckOptions,
    report: &mut WincheckReport,
) -> Result<(), String> {
    let mut pos = start;
    let budget = Limits::time(o.move_seconds, 2.0 * o.move_seconds);
    while pos.status() == Status::Playing {
        let mv = if pos.side() == agent {
            let t = CpuTimer::start();
            let mv = choose(&pos, Strategy::Best, &budget, &ChooseOptions::default(), &mut |_| {})
                .ok_or("the agent found no move")?
                .best;
            report.max_move_seconds = report.max_move_seconds.max(t.elapsed());
            mv
        } else {
            brief_greedy(&pos).ok_or("greedy found no move")?
        };
        pos.play(mv);
    }
    if pos.status() != Status::Won(agent) {
        report.failures.push(format!(
            "{}\nagent plays {}; final:\n{}",
            start.render(),
            coin_name(agent),
            pos.render()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_agent_converts_solver_won_positions_against_greedy() {
        let r = wincheck(&WincheckOptions {
            rows: 6,
            cols: 7,
            positions: 4,
            min_plies: 18,
            max_plies: 24,
            noise: 0.5,
            min_win_plies: 3,
            move_seconds: 0.01,
            solve_seconds: 5.0,
            seed: 7,
        })
        .unwrap();
        assert_eq!(r.played, 4);
        assert!(r.failures.is_empty(), "{:?}", r.failures);
    }
}
