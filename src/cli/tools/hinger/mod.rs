//! `agent hinger solve|bench|win|path|compare`: the study tools on the command line.

pub mod compare;
pub mod path;

use agent::games::hinger::solver::{Solution, Solver, Value};
use agent::games::hinger::sum::SumSolver;
use agent::games::hinger::{parse_board_file, Board};
use compare::CompareOptions;
use path::{check_path, find_path, Algo, Answer, PathLimits};
use std::path::{Path, PathBuf};

/// The `agent hinger` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum HingerCommand {
    /// Exact solve with the region-sum solver (the one the agent plays
    /// with): value for the player to move, a best move, CPU seconds, nodes.
    /// FILE is a Hinger input.txt or a board file (`rows cols` + grid).
    Solve {
        /// The position.
        file: PathBuf,
        /// Give up after this many CPU seconds.
        #[arg(long)]
        seconds: Option<f64>,
    },
    /// Benchmark: the region-sum solver and the plain solver side by side on
    /// seeded random binary 7x7 boards with 30-35 counters and no hinger.
    Bench {
        /// Seed of the first board (board k uses seed + k).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Number of boards.
        #[arg(long, default_value_t = 10)]
        boards: u64,
        /// CPU seconds per board for the region-sum solver.
        #[arg(long, default_value_t = 60.0)]
        cap: f64,
        /// CPU seconds per board for the plain solver (0 skips it).
        #[arg(long, default_value_t = 10.0)]
        plain_cap: f64,
    },
    /// Exact solve with the plain solver (the oracle): does the player to
    /// move win, draw or lose with perfect play? FILE is a Hinger input.txt or a board file (`rows cols` + grid).
    Win {
        /// The position.
        file: PathBuf,
        /// Give up after this many CPU seconds.
        #[arg(long)]
        seconds: Option<f64>,
    },
    /// A safe path from START to END (board files: `rows cols` + grid).
    Path {
        /// Search algorithm.
        #[arg(long, value_enum, default_value_t = Algo::MinCost)]
        algo: Algo,
        /// The first state.
        start: PathBuf,
        /// The last state.
        end: PathBuf,
        /// Give up after this many CPU seconds.
        #[arg(long)]
        seconds: Option<f64>,
    },
    /// The scaling study of the path algorithms and the solver.
    Compare {
        /// Seed of the generated suite.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// START/END pairs per board size.
        #[arg(long, default_value_t = 4)]
        pairs: usize,
        /// CPU seconds per algorithm per pair.
        #[arg(long, default_value_t = 1.0)]
        cap: f64,
        /// Largest board side (3..=10).
        #[arg(long, default_value_t = 10)]
        max_size: usize,
        /// CPU seconds per board for the solver study (0 skips it).
        #[arg(long, default_value_t = 10.0)]
        solver_cap: f64,
        /// Largest pile in START (1: binary states).
        #[arg(long, default_value_t = 1)]
        max_pile: u32,
    },
    #[command(flatten)]
    Common(crate::tools::Tool),
}

fn read_board(path: &Path) -> Result<(Board, Option<agent::protocol::Player>), String> {
    let text = agent::protocol::read_bounded(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_board_file(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn cell(b: &Board, i: usize) -> String {
    let (r, c) = b.coords(i);
    format!("{r} {c}")
}

/// Runs a subcommand, printing its report on stdout.
pub fn run(cmd: HingerCommand) -> Result<(), String> {
    match cmd {
        HingerCommand::Common(tool) => crate::tools::run::<agent::games::hinger::Hinger>(tool)?,
        HingerCommand::Win { file, seconds } => print!("{}", win(&file, seconds)?),
        HingerCommand::Solve { file, seconds } => print!("{}", solve(&file, seconds)?),
        HingerCommand::Bench {
            seed,
            boards,
            cap,
            plain_cap,
        } => {
            if !(cap > 0.0 && cap.is_finite() && plain_cap >= 0.0 && plain_cap.is_finite()) || boards == 0 {
                return Err("--cap must be positive, --plain-cap non-negative and --boards at least 1".into());
            }
            bench(seed, boards, cap, plain_cap, &mut std::io::stdout().lock())
                .map_err(|e| format!("cannot write: {e}"))?;
        }
        HingerCommand::Path {
            algo,
            start,
            end,
            seconds,
        } => print!("{}", path(&start, &end, algo, seconds)?),
        HingerCommand::Compare {
            seed,
            pairs,
            cap,
            max_size,
            solver_cap,
            max_pile,
        } => {
            if !(3..=10).contains(&max_size) {
                return Err(format!("--max-size must be between 3 and 10, found {max_size}"));
            }
            let cap_ok = cap > 0.0 && cap.is_finite();
            let solver_cap_ok = solver_cap >= 0.0 && solver_cap.is_finite();
            if !cap_ok || !solver_cap_ok || pairs == 0 {
                return Err("--cap must be positive, --solver-cap non-negative and --pairs at least 1".into());
            }
            if !(1..=1000).contains(&max_pile) {
                return Err(format!("--max-pile must be between 1 and 1000, found {max_pile}"));
            }
            let opts = CompareOptions {
                seed,
                pairs,
                cap,
                max_size,
                solver_cap,
                max_pile,
            };
            compare::run(&opts, &mut std::io::stdout().lock()).map_err(|e| format!("cannot write: {e}"))?;
        }
    }
    Ok(())
}

/// The value line and the move line of a solved position's report.
fn describe(board: &Board, s: &Solution) -> String {
    let mut out = format!("{}\n", s.value.word());
    match (s.value, s.best) {
        (_, None) => out.push_str("the board is empty: no move\n"),
        (Value::Win, Some(i)) => out.push_str(&format!("winning move: {}\n", cell(board, i))),
        (Value::Draw, Some(i)) => out.push_str(&format!("drawing move: {}\n", cell(board, i))),
        (Value::Loss, Some(i)) => out.push_str(&format!("every move loses; longest resistance: {}\n", cell(board, i))),
    }
    out
}

/// The two exact solvers' common face, for the reports of `solve` and `win`.
trait Exact {
    /// Counters at most (one search level each).
    const MAX_COUNTERS: u32;
    fn new() -> Self;
    fn accepts(board: &Board) -> bool;
    fn solve_within(&mut self, board: &Board, seconds: f64) -> Option<Solution>;
    fn nodes(&self) -> u64;
    fn memo_len(&self) -> usize;
}

macro_rules! exact {
    ($t:ty, $max:expr) => {
        impl Exact for $t {
            const MAX_COUNTERS: u32 = $max;
            fn new() -> Self {
                <$t>::new()
            }
            fn accepts(board: &Board) -> bool {
                <$t>::accepts(board)
            }
            fn solve_within(&mut self, board: &Board, seconds: f64) -> Option<Solution> {
                <$t>::solve_within(self, board, seconds)
            }
            fn nodes(&self) -> u64 {
                <$t>::nodes(self)
            }
            fn memo_len(&self) -> usize {
                <$t>::memo_len(self)
            }
        }
    };
}
exact!(SumSolver, agent::games::hinger::sum::MAX_COUNTERS);
exact!(Solver, agent::games::hinger::solver::MAX_COUNTERS);

/// Solves the board of `file` with solver `S` and reports the value, the
/// move and the effort.
fn exact_report<S: Exact>(file: &Path, seconds: Option<f64>) -> Result<String, String> {
    let (board, _) = read_board(file)?;
    if !S::accepts(&board) {
        return Err(format!(
            "{}: the board holds {} counters; the exact solver takes at most {} (it searches one level per counter)",
            file.display(),
            board.counters(),
            S::MAX_COUNTERS
        ));
    }
    let timer = agent::clock::CpuTimer::start();
    let mut solver = S::new();
    let s = solver.solve_within(&board, seconds.unwrap_or(f64::INFINITY)).ok_or_else(|| {
        format!(
            "gave up: the time or memory cap ran out before the position was solved ({} positions searched, {} memoised, {:.3} s CPU)",
            solver.nodes(),
            solver.memo_len(),
            timer.elapsed()
        )
    })?;
    let secs = timer.elapsed();
    let mut out = describe(&board, &s);
    out.push_str(&format!(
        "{} positions searched, {} memoised, {:.3} s CPU\n",
        s.nodes, s.memo_entries, secs
    ));
    Ok(out)
}

/// `agent hinger solve FILE`: the report text.
pub(crate) fn solve(file: &Path, seconds: Option<f64>) -> Result<String, String> {
    exact_report::<SumSolver>(file, seconds)
}

/// The benchmark boards: for seed `s`, random binary 7x7 boards of density
/// 0.65 drawn from `SmallRng(s)` until one has 30-35 counters and no hinger.
pub(crate) fn bench_board(seed: u64) -> Board {
    use rand::SeedableRng;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    loop {
        let b = agent::games::hinger::Hinger::random_board(7, 7, 0.65, &mut rng).expect("7x7 fits");
        if (30..=35).contains(&b.counters()) && !b.has_hinger() {
            return b;
        }
    }
}

/// Median of a non-empty list.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// `agent hinger bench`: one line per board, then the medians. A board the
/// plain solver does not finish counts as its cap in the median (so that
/// median is a lower bound, marked `>=`).
pub fn bench(seed: u64, boards: u64, cap: f64, plain_cap: f64, out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(
        out,
        "Hinger exact solvers on random binary 7x7 boards (density 0.65, 30-35 counters, no hinger), CPU seconds"
    )?;
    writeln!(
        out,
        "{:>5} {:>8} {:>7} {:>6} {:>12} {:>9} {:>12} {:>9}",
        "seed", "counters", "regions", "value", "sum nodes", "sum s", "plain nodes", "plain s"
    )?;
    let (mut sum_times, mut plain_times) = (Vec::new(), Vec::new());
    let (mut sum_capped, mut plain_capped) = (false, false);
    for k in 0..boards {
        let b = bench_board(seed + k);
        let timer = agent::clock::CpuTimer::start();
        let mut solver = SumSolver::new();
        let s = solver.solve_within(&b, cap);
        let secs = timer.elapsed();
        drop(solver);
        sum_capped |= s.is_none();
        sum_times.push(secs.min(cap));
        let (value, nodes) = match &s {
            Some(s) => (s.value.word().to_string(), s.nodes.to_string()),
            None => ("?".to_string(), format!(">{cap}s")),
        };
        let (plain_nodes, plain_s) = if plain_cap > 0.0 {
            let timer = agent::clock::CpuTimer::start();
            let mut plain = Solver::new();
            let p = plain.solve_within(&b, plain_cap);
            let secs = timer.elapsed();
            if let (Some(p), Some(s)) = (&p, &s) {
                if p.value != s.value {
                    writeln!(out, "MISMATCH on seed {}: plain says {}", seed + k, p.value.word())?;
                }
            }
            plain_capped |= p.is_none();
            plain_times.push(secs.min(plain_cap));
            match p {
                Some(p) => (p.nodes.to_string(), format!("{secs:.3}")),
                None => ("-".to_string(), format!(">{plain_cap}")),
            }
        } else {
            ("-".to_string(), "-".to_string())
        };
        writeln!(
            out,
            "{:>5} {:>8} {:>7} {:>6} {:>12} {:>9.3} {:>12} {:>9}",
            seed + k,
            b.counters(),
            b.regions(),
            value,
            nodes,
            secs,
            plain_nodes,
            plain_s
        )?;
        out.flush()?;
    }
    let ge = |capped: bool| if capped { ">=" } else { "" };
    write!(out, "median: sum {}{:.3} s", ge(sum_capped), median(&mut sum_times))?;
    if !plain_times.is_empty() {
        write!(out, ", plain {}{:.3} s", ge(plain_capped), median(&mut plain_times))?;
    }
    writeln!(out)
}

/// `agent hinger win FILE`: the report text.
pub fn win(file: &Path, seconds: Option<f64>) -> Result<String, String> {
    exact_report::<Solver>(file, seconds)
}

/// `agent hinger path`: the report text.
pub fn path(start: &Path, end: &Path, algo: Algo, seconds: Option<f64>) -> Result<String, String> {
    let (s, _) = read_board(start)?;
    let (e, _) = read_board(end)?;
    let limits = PathLimits {
        seconds: seconds.unwrap_or(f64::INFINITY),
        ..Default::default()
    };
    let r = find_path(&s, &e, algo, limits)?;
    let mut out = String::new();
    match &r.answer {
        Answer::Path(cells) => {
            let cost = check_path(&s, &e, cells).map_err(|e| format!("internal error: {e}"))?;
            let mut b = s.clone();
            let list: Vec<String> = cells
                .iter()
                .map(|&i| {
                    let t = cell(&b, i);
                    b.remove(i);
                    t
                })
                .collect();
            out.push_str(&format!("safe path ({}):\n", algo.name()));
            for l in &list {
                out.push_str(l);
                out.push('\n');
            }
            out.push_str(&format!("moves: {}\ncost: {cost}\n", cells.len()));
        }
        Answer::NoPath(why) => out.push_str(&format!("no safe path: {why}\n")),
        Answer::GaveUp(why) => return Err(why.clone()),
    }
    out.push_str(&format!(
        "{} states expanded, peak frontier {}, {:.3} s CPU\n",
        r.stats.expanded, r.stats.peak_frontier, r.stats.seconds
    ));
    Ok(out)
}
