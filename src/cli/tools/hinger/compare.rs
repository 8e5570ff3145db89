//! The scaling study (`agent hinger compare`): a seeded suite of START/END
//! pairs on growing boards, every path algorithm on each pair under a CPU
//! cap, and a table per board size; then the exact solver on growing boards.

use super::path::{check_path, find_path, Algo, Answer, PathLimits};
use agent::games::hinger::board::{iter_bits, Board};
use agent::games::hinger::solver::Solver;
use agent::games::hinger::Hinger;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::Write;

/// Settings of the study.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// Seed of the suite.
    pub seed: u64,
    /// Pairs per board size (half with a guaranteed path).
    pub pairs: usize,
    /// CPU seconds per algorithm per pair.
    pub cap: f64,
    /// Largest square board side.
    pub max_size: usize,
    /// CPU seconds per board for the solver section (0 skips it).
    pub solver_cap: f64,
    /// Largest pile of START (1: binary states; above 1, each active cell
    /// gets a uniform pile in 1..=max_pile).
    pub max_pile: u32,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            seed: 1,
            pairs: 4,
            cap: 1.0,
            max_size: 10,
            solver_cap: 10.0,
            max_pile: 1,
        }
    }
}

/// A hinger-free random board (density 0.7, piles up to `max_pile`).
fn start_board(rng: &mut SmallRng, n: usize, max_pile: u32) -> Board {
    loop {
        let mut b = Hinger::random_board(n, n, 0.7, rng).expect("n <= 10 fits");
        if max_pile > 1 {
            for i in iter_bits(b.active()) {
                b.set_index(i, rng.gen_range(1..=max_pile));
            }
        }
        if !b.has_hinger() && b.active() != 0 {
            return b;
        }
    }
}

/// The suite's pair `j` for an `n x n` board: END removes about half of
/// START's counters, by a random safe walk (even `j`: a path exists) or at
/// random (odd `j`: usually none).
pub(crate) fn suite_pair(seed: u64, n: usize, j: usize, max_pile: u32) -> (Board, Board) {
    let mut rng = SmallRng::seed_from_u64(seed ^ (n as u64) << 32 ^ j as u64);
    let start = start_board(&mut rng, n, max_pile);
    let k = (start.counters() as usize).div_ceil(2);
    let mut end = start.clone();
    for _ in 0..k {
        let pool = if j.is_multiple_of(2) {
            end.safe_moves()
        } else {
            end.active()
        };
        if pool == 0 {
            break;
        }
        let i = iter_bits(pool)
            .nth(rng.gen_range(0..pool.count_ones()) as usize)
            .expect("in range");
        end.remove(i);
    }
    (start, end)
}

#[derive(Default, Clone)]
struct Row {
    answered: usize,
    paths: usize,
    gave_up: usize,
    optimal: usize,
    comparable: usize,
    moves: Vec<u32>,
    costs: Vec<u32>,
    nodes: Vec<u64>,
    peak: usize,
    secs: Vec<f64>,
    disagree: usize,
}

fn median<T: Copy + PartialOrd>(v: &[T]) -> Option<T> {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    s.get(s.len() / 2).copied()
}

fn mean(v: &[u32]) -> String {
    if v.is_empty() {
        "-".into()
    } else {
        format!("{:.1}", v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64)
    }
}

/// Runs the study, writing the tables to `out` as it goes.
pub fn run(opts: &CompareOptions, out: &mut impl Write) -> std::io::Result<()> {
    write_legend(opts, out)?;
    let limits = PathLimits {
        seconds: opts.cap,
        max_states: 5_000_000,
    };
    let mut stopped_at: Vec<Option<usize>> = vec![None; Algo::ALL.len()];
    let mut dead = [false; 5];
    for n in 3..=opts.max_size.min(10) {
        let pairs: Vec<(Board, Board)> = (0..opts.pairs)
            .map(|j| suite_pair(opts.seed, n, j, opts.max_pile))
            .collect();
        let counters: Vec<u32> = pairs.iter().map(|p| p.0.counters() - p.1.counters()).collect();
        let counters: Vec<String> = counters.iter().map(u32::to_string).collect();
        writeln!(out, "\n{n}x{n}: moves per pair {}", counters.join(" "))?;
        writeln!(
            out,
            "  {:<9} {:>8} {:>6} {:>7} {:>8} {:>6} {:>6} {:>10} {:>9} {:>9} {:>9}",
            "algo", "answered", "paths", "gaveup", "optimal", "moves", "cost", "nodes", "peak", "ms", "max ms"
        )?;
        let (mut rows, results) = run_algorithms(&pairs, &dead, limits);
        compare_answers(&pairs, &results, &mut rows);
        for (a, &algo) in Algo::ALL.iter().enumerate() {
            let row = &rows[a];
            if dead[a] {
                writeln!(
                    out,
                    "  {:<9} skipped (gave up on every pair of a smaller board)",
                    algo.name()
                )?;
                continue;
            }
            write_row(out, algo, row, pairs.len())?;
            if row.gave_up > 0 && stopped_at[a].is_none() {
                stopped_at[a] = Some(n);
            }
            if row.gave_up == pairs.len() {
                dead[a] = true;
            }
        }
        out.flush()?;
    }
    write_scaling_limits(opts, &stopped_at, out)?;
    if opts.solver_cap > 0.0 {
        solver_study(opts, out)?;
    }
    Ok(())
}

/// The study's heading: its settings and what each column means.
fn write_legend(opts: &CompareOptions, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "Safe-path study: seed {}, {} pairs per size (even: END by a safe walk, odd: random removals), \
         END = START minus half its counters, density 0.7, piles 1..={}, cap {:.1} s CPU per run.",
        opts.seed, opts.pairs, opts.max_pile, opts.cap
    )?;
    if opts.max_pile == 1 {
        writeln!(
            out,
            "On binary states every safe path has the same length and the same cost (two adjacent removed cells are \
             charged once whatever their order), so every path found is optimal; --max-pile 3 makes costs differ."
        )?;
    }
    writeln!(
        out,
        "answered = path found or proved absent; optimal = cost equal to min-cost's (of the pairs where both found one);"
    )?;
    writeln!(
        out,
        "nodes = median states expanded; peak = largest frontier (IDDFS: deepest path); ms = median CPU."
    )
}

/// Every algorithm not yet `dead` on every pair: a row of statistics per
/// algorithm and each answer, indexed `[algorithm][pair]`.
fn run_algorithms(pairs: &[(Board, Board)], dead: &[bool], limits: PathLimits) -> (Vec<Row>, Vec<Vec<Option<Answer>>>) {
    let mut results: Vec<Vec<Option<Answer>>> = vec![vec![None; pairs.len()]; Algo::ALL.len()];
    let mut rows = vec![Row::default(); Algo::ALL.len()];
    for (a, &algo) in Algo::ALL.iter().enumerate() {
        if dead[a] {
            continue;
        }
        for (j, (s, e)) in pairs.iter().enumerate() {
            let r = find_path(s, e, algo, limits).expect("suite pairs are well-formed");
            let row = &mut rows[a];
            row.nodes.push(r.stats.expanded);
            row.peak = row.peak.max(r.stats.peak_frontier);
            row.secs.push(r.stats.seconds);
            match &r.answer {
                Answer::Path(p) => {
                    row.answered += 1;
                    row.paths += 1;
                    row.moves.push(p.len() as u32);
                    row.costs.push(check_path(s, e, p).expect("searches return safe paths"));
                }
                Answer::NoPath(_) => row.answered += 1,
                Answer::GaveUp(_) => row.gave_up += 1,
            }
            results[a][j] = Some(r.answer);
        }
    }
    (rows, results)
}

/// Fills each row's optimality (against min-cost) and its disagreements on
/// whether a path exists (against every other algorithm).
fn compare_answers(pairs: &[(Board, Board)], results: &[Vec<Option<Answer>>], rows: &mut [Row]) {
    let mc = Algo::ALL.iter().position(|&a| a == Algo::MinCost).expect("listed");
    for (a, row) in rows.iter_mut().enumerate() {
        for j in 0..pairs.len() {
            let (s, e) = &pairs[j];
            let cost = |ans: &Option<Answer>| match ans {
                Some(Answer::Path(p)) => check_path(s, e, p).ok(),
                _ => None,
            };
            if let (Some(c), Some(best)) = (cost(&results[a][j]), cost(&results[mc][j])) {
                row.comparable += 1;
                if c == best {
                    row.optimal += 1;
                }
            }
            for b in 0..Algo::ALL.len() {
                let exists = |x: &Option<Answer>| match x {
                    Some(Answer::Path(_)) => Some(true),
                    Some(Answer::NoPath(_)) => Some(false),
                    _ => None,
                };
                if let (Some(x), Some(y)) = (exists(&results[a][j]), exists(&results[b][j])) {
                    if x != y {
                        row.disagree += 1;
                    }
                }
            }
        }
    }
}

/// One algorithm's line of a board size's table.
fn write_row(out: &mut impl Write, algo: Algo, row: &Row, pairs: usize) -> std::io::Result<()> {
    writeln!(
        out,
        "  {:<9} {:>8} {:>6} {:>7} {:>8} {:>6} {:>6} {:>10} {:>9} {:>9.1} {:>9.1}{}",
        algo.name(),
        format!("{}/{}", row.answered, pairs),
        row.paths,
        row.gave_up,
        format!("{}/{}", row.optimal, row.comparable),
        mean(&row.moves),
        mean(&row.costs),
        median(&row.nodes).unwrap_or(0),
        row.peak,
        median(&row.secs).unwrap_or(0.0) * 1e3,
        row.secs.iter().cloned().fold(0.0, f64::max) * 1e3,
        if row.disagree > 0 {
            "  DISAGREES on existence"
        } else {
            ""
        }
    )
}

/// The summary: the first board size on which each algorithm gave up.
fn write_scaling_limits(
    opts: &CompareOptions,
    stopped_at: &[Option<usize>],
    out: &mut impl Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "\nWhere each algorithm stops scaling (first board size with a pair it could not answer within {:.1} s):",
        opts.cap
    )?;
    for (a, &algo) in Algo::ALL.iter().enumerate() {
        match stopped_at[a] {
            Some(n) => writeln!(out, "  {:<9} {n}x{n}", algo.name())?,
            None => writeln!(
                out,
                "  {:<9} answered everything up to {n}x{n}",
                algo.name(),
                n = opts.max_size.min(10)
            )?,
        }
    }
    Ok(())
}

/// The exact solver on growing random binary boards (density 0.6, as
/// generated games), each within `solver_cap` CPU seconds.
fn solver_study(opts: &CompareOptions, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "\nExact solver (win/draw/loss) on random binary boards, density 0.6, cap {:.1} s CPU each:",
        opts.solver_cap
    )?;
    writeln!(
        out,
        "  {:<6} {:>8} {:>6} {:>12} {:>10} {:>9}",
        "board", "counters", "value", "nodes", "memo", "seconds"
    )?;
    let mut largest: Option<(usize, usize, u32, f64)> = None;
    'sizes: for (r, c) in [(4, 4), (4, 5), (5, 5), (5, 6), (6, 6), (6, 7), (7, 7), (7, 8), (8, 8)] {
        let mut rng = SmallRng::seed_from_u64(opts.seed.wrapping_add((r * 16 + c) as u64));
        for _ in 0..2 {
            let b = loop {
                let b = Hinger::random_board(r, c, 0.6, &mut rng).expect("fits");
                if !b.has_hinger() && b.active() != 0 {
                    break b;
                }
            };
            let timer = agent::clock::CpuTimer::start();
            let res = Solver::new().solve_within(&b, opts.solver_cap);
            let secs = timer.elapsed();
            match res {
                Some(s) => {
                    writeln!(
                        out,
                        "  {:<6} {:>8} {:>6} {:>12} {:>10} {:>9.3}",
                        format!("{r}x{c}"),
                        b.counters(),
                        s.value.word(),
                        s.nodes,
                        s.memo_entries,
                        secs
                    )?;
                    if largest.is_none_or(|(_, _, n, _)| b.counters() >= n) {
                        largest = Some((r, c, b.counters(), secs));
                    }
                }
                None => {
                    writeln!(
                        out,
                        "  {:<6} {:>8} {:>6} {:>12} {:>10} {:>9.3}  (not solved within the cap)",
                        format!("{r}x{c}"),
                        b.counters(),
                        "?",
                        "-",
                        "-",
                        secs
                    )?;
                    break 'sizes;
                }
            }
            out.flush()?;
        }
    }
    if let Some((r, c, n, s)) = largest {
        writeln!(out, "Largest board solved: {r}x{c} with {n} counters in {s:.3} s CPU.")?;
    }
    Ok(())
}
