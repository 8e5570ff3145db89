//! The one place a [`Strategy`] is turned into a move, for any [`FileGame`],
//! and the one place the alpha-beta searcher is built and its table sized.

use crate::clock::CpuTimer;
use super::steps::{FileGame, Solved};
use crate::search::alphabeta::{SearchResult, Searcher};
use crate::search::level::{self, Level, Rung};
use crate::search::{greedy, mcts, minimax, outcome_score, Evaluator, Limits, Pacing, Strategy, WIN_THRESHOLD};
use crate::timing;
use fxhash::FxHashSet;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// What a choice may know besides the position.
#[derive(Clone, Debug)]
pub struct ChooseOptions {
    /// Search speed (nodes per CPU second) that sizes the transposition
    /// table: a calibration's, or `None` for the game's assumed one
    /// ([`TimePolicy::NODES_PER_SECOND`](crate::timing::TimePolicy::NODES_PER_SECOND)).
    pub nodes_per_second: Option<f64>,
    /// Positions (hashes) the game has already been through; the search
    /// scores returning to one with the game's `REPEAT_SCORE`.
    pub seen: Option<FxHashSet<u64>>,
    /// Seed for the strategies that draw random numbers (MCTS, random).
    pub seed: u64,
    /// Whether alpha-beta uses the game's exact values (off: the
    /// evaluation alone, for benches that measure what they are worth).
    pub exact_values: bool,
}

impl Default for ChooseOptions {
    fn default() -> Self {
        ChooseOptions {
            nodes_per_second: None,
            seen: None,
            seed: 0x5eed,
            exact_values: true,
        }
    }
}

/// A chosen move and what it cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice<M> {
    /// The move to play.
    pub best: M,
    /// Depth the search completed (0 for strategies that do not search by depth).
    pub depth: u32,
    /// Nodes (MCTS: iterations) searched.
    pub nodes: u64,
    /// The move's score from the mover's view in the searches' units
    /// (`search::WIN` - plies for a forced win), where the strategy has one:
    /// alpha-beta, minimax and greedy (one ply); not MCTS, random or a
    /// game's own solver.
    pub score: Option<i32>,
    /// Bytes asked of the alpha-beta transposition table (0 when no
    /// alpha-beta search ran, a probe included), so that `-v` shows what a
    /// calibration buys.
    pub table_bytes: usize,
}

impl<M> Choice<M> {
    /// A move no alpha-beta or minimax search chose: a game's own move,
    /// its solver's, a random one.
    fn unsearched(best: M) -> Self {
        Choice {
            best,
            depth: 0,
            nodes: 0,
            score: None,
            table_bytes: 0,
        }
    }
}

/// Chooses a move for the side to move of `state` under `strategy` within
/// `limits` (CPU seconds from now), calling `on_improve` with every move the
/// strategy would now play: each finished (or improved) search iteration and
/// each answer of a game's own solver. `None` only when there is no legal
/// move. A game's own move for the strategy
/// ([`Steps::own_move`](super::steps::Steps::own_move)) comes first;
/// the default strategy composes the game's own steps with the search
/// (`best`).
pub fn choose<G: FileGame>(
    state: &G,
    strategy: Strategy,
    limits: &Limits,
    opts: &ChooseOptions,
    on_improve: &mut dyn FnMut(G::Move),
) -> Option<Choice<G::Move>> {
    let mut moves = Vec::new();
    if state.outcome().is_none() {
        state.legal_moves(&mut moves);
    }
    let first = *moves.first()?;
    let strategy = plain_strategy(strategy);
    if let Some(best) = state.own_move(strategy) {
        return Some(Choice::unsearched(best));
    }
    let chosen = match strategy {
        Strategy::Best => best(state, limits, opts, first, on_improve),
        Strategy::AlphaBeta(d) => {
            let limits = Limits {
                max_depth: d.max(1),
                ..*limits
            };
            alpha_beta(
                state,
                &limits,
                table_bytes::<G>(limits.hard, opts),
                opts,
                first,
                on_improve,
            )
        }
        Strategy::Level(level, seed) => ladder(state, level, seed, limits, opts, &moves, on_improve),
        Strategy::Minimax(d) => {
            let limits = Limits {
                max_depth: d.max(1),
                ..*limits
            };
            let r = minimax::search(state, &limits, |info| on_improve(info.best));
            Choice {
                best: r.best.unwrap_or(first),
                depth: r.depth,
                nodes: r.nodes,
                score: r.best.map(|_| r.score),
                table_bytes: 0,
            }
        }
        Strategy::Greedy => {
            let scored = greedy::choose_scored(state);
            Choice {
                best: scored.map_or(first, |(m, _)| m),
                depth: 1,
                nodes: moves.len() as u64,
                score: scored.map(|(_, s)| s),
                table_bytes: 0,
            }
        }
        Strategy::Mcts => monte_carlo(state, limits, opts, first),
        Strategy::Random => {
            let mut rng = SmallRng::seed_from_u64(opts.seed ^ state.hash());
            Choice::unsearched(*moves.choose(&mut rng).unwrap_or(&first))
        }
    };
    Some(chosen)
}

/// Alpha-beta within `limits` (to their depth and nodes, still stopped by
/// time) on the searcher the default strategy uses too, its table of
/// `table_bytes` (its building counted in the limits); falls back to
/// `first` when the search finds nothing in time.
fn alpha_beta<G: FileGame>(
    state: &G,
    limits: &Limits,
    table_bytes: usize,
    opts: &ChooseOptions,
    first: G::Move,
    on_improve: &mut dyn FnMut(G::Move),
) -> Choice<G::Move> {
    let built = CpuTimer::start();
    let mut searcher = searcher(state, G::Eval::default(), table_bytes, opts);
    let r = searcher.search(state, limits.after(built.elapsed()), |info| on_improve(info.best));
    Choice {
        best: r.best.unwrap_or(first),
        depth: r.depth,
        nodes: r.nodes,
        score: r.best.map(|_| r.score),
        table_bytes,
    }
}

/// Bytes of the table of a search with `hard` CPU seconds left: what it
/// can visit in that time at the calibrated speed, else at the game's
/// assumed one.
fn table_bytes<G: FileGame>(hard: f64, opts: &ChooseOptions) -> usize {
    timing::tt_bytes(hard, opts.nodes_per_second.unwrap_or(G::NODES_PER_SECOND))
}

/// The alpha-beta searcher for a move of `state`, scoring positions with
/// `eval`, with a table of `table_bytes`: the one place a search the agent
/// plays is built. Reaching a position the game has already been through
/// scores the game's `REPEAT_SCORE`.
fn searcher<G: FileGame>(state: &G, eval: G::Eval, table_bytes: usize, opts: &ChooseOptions) -> Searcher<G> {
    let mut searcher = Searcher::with_evaluator(table_bytes, eval);
    if let Some(seen) = &opts.seen {
        let mut seen = seen.clone();
        seen.insert(state.hash());
        searcher.set_avoid(seen, G::REPEAT_SCORE);
    }
    searcher.set_exact_values(opts.exact_values);
    searcher
}

/// Table bytes of every search of a ladder level: fixed, so that the
/// level's move does not depend on the clock or a calibration. Small
/// enough to clear in well under a millisecond.
const LEVEL_TABLE_BYTES: usize = 2 << 20;

/// The strategy a ladder level at either end plays: the reference minimax
/// at level 1, the default strategy at full strength; any other strategy
/// (or level) as it is.
fn plain_strategy(strategy: Strategy) -> Strategy {
    match strategy {
        Strategy::Level(level, _) => match level.rung() {
            Rung::Reference { depth } => Strategy::Minimax(depth),
            Rung::Full => Strategy::Best,
            Rung::Noisy { .. } | Rung::Budget { .. } => strategy,
        },
        other => other,
    }
}

/// A ladder level between the ends ([`level`]): budgets in depth and nodes
/// on the agent's evaluation, without the game's exact values (its race
/// solver gives up by time, which would make the move depend on the
/// machine), in a table of fixed size. Time stops the search only at the
/// hard limit, the clock safety every strategy keeps.
fn ladder<G: FileGame>(
    state: &G,
    level: Level,
    seed: u64,
    limits: &Limits,
    opts: &ChooseOptions,
    moves: &[G::Move],
    on_improve: &mut dyn FnMut(G::Move),
) -> Choice<G::Move> {
    // A noisy rung's randomness; none for a budget (one plain search).
    let (depth, nodes, noise) = match level.rung() {
        Rung::Noisy {
            depth,
            noise,
            candidates,
        } => (
            depth,
            None,
            Some(Noise {
                noise,
                seed,
                candidates,
            }),
        ),
        Rung::Budget { depth, nodes } => (depth, Some(nodes), None),
        // `choose` plays the ends as the strategies they are; so does this.
        Rung::Reference { .. } | Rung::Full => {
            let plain = plain_strategy(Strategy::Level(level, seed));
            return choose(state, plain, limits, opts, on_improve).unwrap_or_else(|| Choice::unsearched(moves[0]));
        }
    };
    let opts = ChooseOptions {
        exact_values: false,
        ..opts.clone()
    };
    let limits = Limits {
        soft: limits.hard,
        max_depth: depth,
        max_nodes: nodes,
        pacing: Pacing::Steady,
        ..*limits
    };
    match noise {
        Some(noise) => noisy(state, noise, &limits, &opts, moves, on_improve),
        None => alpha_beta(state, &limits, LEVEL_TABLE_BYTES, &opts, moves[0], on_improve),
    }
}

/// The randomness of a [`Rung::Noisy`] level: its bound, its seed and the
/// root moves it searches beyond one ply.
struct Noise {
    noise: i32,
    seed: u64,
    candidates: usize,
}

/// The root moves scored to `limits.max_depth` plies in all on the agent's
/// evaluation (deeper than one ply, only the `candidates` best by one
/// ply), each score raised by a seeded amount in `0..=noise`
/// ([`level::noise`], by the move's place in generation order), and the
/// best raised score played (the earliest candidate on a tie). Candidates
/// not scored when the hard limit strikes are not played.
fn noisy<G: FileGame>(
    state: &G,
    Noise {
        noise,
        seed,
        candidates: wanted,
    }: Noise,
    limits: &Limits,
    opts: &ChooseOptions,
    moves: &[G::Move],
    on_improve: &mut dyn FnMut(G::Move),
) -> Choice<G::Move> {
    let timer = CpuTimer::start();
    let depth = limits.max_depth;
    // One ply: the position after the move, from the mover's view.
    let eval = state.search_evaluator();
    let one_ply = |mv: G::Move| {
        let mut child = state.clone();
        child.play(mv);
        let theirs = child
            .outcome()
            .map_or_else(|| eval.evaluate(&child), |o| outcome_score(o, 1));
        if child.mover_changes(state) {
            -theirs
        } else {
            theirs
        }
    };
    let mut candidates: Vec<(i32, usize)> = moves.iter().enumerate().map(|(i, &mv)| (one_ply(mv), i)).collect();
    let mut deeper = None;
    if depth > 1 {
        candidates.sort_by_key(|&(score, i)| (std::cmp::Reverse(score), i));
        candidates.truncate(wanted.max(1));
        deeper = Some(searcher(state, state.search_evaluator(), LEVEL_TABLE_BYTES, opts));
    }
    let mut best: Option<(usize, i32, i32)> = None;
    let mut nodes = moves.len() as u64;
    for &(shallow, index) in &candidates {
        if best.is_some() && timer.elapsed() >= limits.hard {
            break;
        }
        let score = match deeper.as_mut() {
            Some(s) if shallow.abs() < WIN_THRESHOLD => {
                let mut child = state.clone();
                child.play(moves[index]);
                let child_limits = Limits {
                    max_depth: depth - 1,
                    ..limits.after(timer.elapsed())
                };
                let r = s.search(&child, child_limits, |_| {});
                nodes += r.nodes;
                if child.mover_changes(state) {
                    -r.score
                } else {
                    r.score
                }
            }
            _ => shallow,
        };
        let raised = score.saturating_add(level::noise(seed, state.hash(), index, noise));
        if best.is_none_or(|(_, _, b)| raised > b) {
            best = Some((index, score, raised));
        }
    }
    let (index, score, _) = best.unwrap_or((0, candidates.first().map_or(0, |c| c.0), 0));
    on_improve(moves[index]);
    Choice {
        best: moves[index],
        depth,
        nodes,
        score: Some(score),
        table_bytes: if depth > 1 { LEVEL_TABLE_BYTES } else { 0 },
    }
}

/// MCTS seeded by the options' seed and the position, so a replay repeats it.
fn monte_carlo<G: FileGame>(state: &G, limits: &Limits, opts: &ChooseOptions, first: G::Move) -> Choice<G::Move> {
    let o = mcts::MctsOptions {
        limits: *limits,
        seed: opts.seed ^ state.hash(),
        ..Default::default()
    };
    let (mv, iterations) = mcts::search(state, o);
    Choice {
        nodes: iterations,
        ..Choice::unsearched(mv.unwrap_or(first))
    }
}

/// The default strategy's move within `limits` (CPU seconds from now): the
/// game's own steps, which [`Steps`](super::steps::Steps) describes
/// and none of which searches, composed with the one searcher. In order: a
/// probe search when the game asks for one; the game's exact solver, whose
/// move is played when it has one; the search with what is left (less the
/// game's `CLOCK_SLACK`), every move it reports made safe by the game; and,
/// where the solver proved a value, the solver's choice between its move
/// and the searched one. Probe and search share the searcher, so the search
/// starts from the table the probe filled. Calls `on_improve` with every
/// move it would play on the way; `first` (a legal move) when nothing
/// better is found.
fn best<G: FileGame>(
    state: &G,
    limits: &Limits,
    opts: &ChooseOptions,
    first: G::Move,
    on_improve: &mut dyn FnMut(G::Move),
) -> Choice<G::Move> {
    let timer = CpuTimer::start();
    let mut search = Search::new(state, opts);
    let mut probed = None;
    if let Some(probe) = state.probe_seconds(limits) {
        let hard = limits.after(timer.elapsed()).hard;
        probed = search.run(hard, Limits::time(probe, probe), on_improve).best;
    }
    // A move not the search's still reports the table a probe built.
    let unsearched = |mv, search: &Search<G>| Choice {
        table_bytes: search.table_bytes,
        ..Choice::unsearched(mv)
    };
    let settle = match state.solver_move(&limits.after(timer.elapsed()), on_improve) {
        Solved::Play(mv) => return unsearched(mv, &search),
        Solved::AfterSearch(settle) => Some(settle),
        Solved::Unsolved => None,
    };
    let rest = limits.after(timer.elapsed() + G::CLOCK_SLACK);
    if rest.hard < 2.0 * G::CLOCK_SLACK {
        return unsearched(probed.or_else(|| greedy::choose(state)).unwrap_or(first), &search);
    }
    let r = search.run(rest.hard, rest, on_improve);
    let searched = r.best.map_or(first, |m| state.safety_net(m));
    let best = match settle {
        Some(settle) => settle(searched, &|| limits.hard - timer.elapsed()),
        None => searched,
    };
    Choice {
        best,
        depth: r.depth,
        nodes: r.nodes,
        // The score is the searched move's, not that of a move put in its place.
        score: r.best.filter(|&m| m == best).map(|_| r.score),
        table_bytes: search.table_bytes,
    }
}

/// The searches of one move: the searcher, built when the first search
/// starts, with the evaluation the game asks for
/// ([`Steps::search_evaluator`](super::steps::Steps::search_evaluator)).
struct Search<'a, G: FileGame> {
    state: &'a G,
    opts: &'a ChooseOptions,
    searcher: Option<Searcher<G>>,
    /// Bytes asked of the searcher's table (0 until it is built).
    table_bytes: usize,
}

impl<'a, G: FileGame> Search<'a, G> {
    fn new(state: &'a G, opts: &'a ChooseOptions) -> Self {
        Search {
            state,
            opts,
            searcher: None,
            table_bytes: 0,
        }
    }

    /// One search within `limits`, its table sized (when it is the move's
    /// first) for the `hard` CPU seconds the move has left, every move it
    /// would play made safe and reported to `on_improve`. Building the table
    /// is CPU of the move: tens of milliseconds for the largest, more when
    /// the kernel compacts memory for its huge pages. The search gets what
    /// is left.
    fn run(&mut self, hard: f64, limits: Limits, on_improve: &mut dyn FnMut(G::Move)) -> SearchResult<G::Move> {
        let state = self.state;
        let built = CpuTimer::start();
        let searcher = self.searcher.get_or_insert_with(|| {
            self.table_bytes = table_bytes::<G>(hard, self.opts);
            searcher(state, state.search_evaluator(), self.table_bytes, self.opts)
        });
        searcher.search(state, limits.after(built.elapsed()), |info| {
            log::debug!(
                "depth {} score {} best {:?} nodes {} ({:.3}s)",
                info.depth,
                info.score,
                info.best,
                info.nodes,
                info.seconds
            );
            on_improve(state.safety_net(info.best));
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testnim::TestNim as Nim;

    #[test]
    fn every_strategy_chooses_a_legal_move_and_searches_report_progress() {
        for s in [
            Strategy::Best,
            Strategy::AlphaBeta(3),
            Strategy::Minimax(3),
            Strategy::Greedy,
            Strategy::Mcts,
            Strategy::Random,
        ] {
            let mut reported = Vec::new();
            // The clock is the process's CPU time, which tests running in
            // parallel threads also spend: the searches that must find the
            // win get a budget they cannot run out of (they stop at their
            // depth or on the proven win), the others a short one.
            let searches = matches!(s, Strategy::Best | Strategy::AlphaBeta(_) | Strategy::Minimax(_));
            let limits = if searches {
                Limits::time(60.0, 120.0)
            } else {
                Limits::time(0.05, 0.1)
            };
            let c = choose(&Nim::new(6), s, &limits, &ChooseOptions::default(), &mut |m| {
                reported.push(m)
            })
            .expect("Nim 6 has moves");
            assert!((1..=3).contains(&c.best), "{s:?}: {}", c.best);
            if searches {
                assert_eq!(c.best, 2, "{s:?} should find the win (6 -> 4)");
                assert_eq!(reported.last(), Some(&2), "{s:?} reports what it plays");
                // A forced win three plies away, in the searches' units.
                assert_eq!(c.score, Some(crate::search::WIN - 3), "{s:?}");
            }
            match s {
                Strategy::Greedy => assert!(c.score.is_some(), "greedy scores its ply"),
                Strategy::Mcts | Strategy::Random => assert_eq!(c.score, None, "{s:?} has no score"),
                _ => {}
            }
        }
    }

    /// The default strategy's table for `G` at the sample `path` (under
    /// `samples/`), under a calibration and without one.
    fn table_follows_the_calibration<G: FileGame>(path: &str) {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples")
            .join(path);
        let text = std::fs::read_to_string(&file).expect("the sample");
        let state = G::parse_input(&text).expect("a valid sample").state;
        // No soft time: the game's solvers give up at once, and the search
        // stops after its first iteration, its table sized for the hard 2 s.
        let limits = Limits {
            max_depth: 2,
            ..Limits::time(0.0, 2.0)
        };
        let table = |nodes_per_second| {
            let opts = ChooseOptions {
                nodes_per_second,
                ..ChooseOptions::default()
            };
            let c = choose(&state, Strategy::Best, &limits, &opts, &mut |_| {}).expect("a move");
            c.table_bytes
        };
        let name = G::NAME;
        let (slow, fast) = (table(Some(1.0e4)), table(Some(1.0e5)));
        let slow_most = timing::tt_bytes(2.0, 1.0e4);
        assert!(slow > 0 && slow <= slow_most, "{name}: {slow} bytes at 10 k nodes/s");
        assert!(fast > slow_most, "{name}: {fast} bytes at 100 k nodes/s");
        // Without a calibration, the game's own assumed speed.
        let assumed = table(None);
        let [least, most] = [1.0, 2.0].map(|hard| timing::tt_bytes(hard, G::NODES_PER_SECOND));
        assert!(
            assumed > least && assumed <= most,
            "{name}: {assumed} bytes uncalibrated"
        );
    }

    #[test]
    fn a_calibration_sizes_the_default_strategys_table_in_every_game() {
        use crate::games::GameKind;
        let samples = [
            (GameKind::Halma, "halma/midgame_1.txt"),
            // Positions the solvers leave to the search: this Hinger board
            // takes the exact solver seconds, where most samples take none.
            (GameKind::Hinger, "hinger/binary-6x6/input.txt"),
            (GameKind::ConnectSquare, "connectsquare/empty-6x7.txt"),
            (GameKind::Fifteen, "fifteen/start6.txt"),
            (GameKind::Hashi, "hashi/generated-10x10.txt"),
        ];
        for &kind in GameKind::ALL {
            let (_, path) = samples
                .iter()
                .find(|(k, _)| *k == kind)
                .expect("a sample for every game");
            with_game!(kind, |G| table_follows_the_calibration::<G>(path));
        }
    }

    #[test]
    fn no_move_in_a_finished_game() {
        let c = choose(
            &Nim::new(0),
            Strategy::Best,
            &Limits::time(0.01, 0.01),
            &ChooseOptions::default(),
            &mut |_| {},
        );
        assert_eq!(c, None);
    }
}
