//! The one place a [`Strategy`] is turned into a move, for any [`FileGame`].

use crate::clock::CpuTimer;
use crate::protocol::FileGame;
use crate::search::{alphabeta::Searcher, greedy, mcts, minimax, Limits, Strategy};
use crate::timing::{self, DEFAULT_NPS};
use fxhash::FxHashSet;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// What a choice may know besides the position.
#[derive(Clone, Debug)]
pub struct ChooseOptions {
    /// Search speed used to size the transposition table (calibrated or
    /// [`DEFAULT_NPS`]).
    pub nodes_per_second: f64,
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
            nodes_per_second: DEFAULT_NPS,
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
}

/// Chooses a move for the side to move of `state` under `strategy` within
/// `limits` (CPU seconds from now), calling `on_improve` with every move the
/// strategy would now play: each finished (or improved) search iteration and
/// each answer of a game's own solver. `None` only when there is no legal
/// move. The game's [`Policy::special_move`](crate::protocol::Policy::special_move) is asked first.
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
    let special = CpuTimer::start();
    if let Some(best) = state.special_move(strategy, limits, on_improve) {
        return Some(Choice {
            best,
            depth: 0,
            nodes: 0,
            score: None,
        });
    }
    // A solver that gave up has spent part of the move's time: the strategy
    // gets what is left, so the two never add up to more than the budget.
    let limits = &limits.after(special.elapsed());
    let chosen = match strategy {
        Strategy::Best | Strategy::AlphaBeta(_) => alpha_beta(state, strategy, limits, opts, first, on_improve),
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
            }
        }
        Strategy::Greedy => {
            let scored = greedy::choose_scored(state);
            Choice {
                best: scored.map_or(first, |(m, _)| m),
                depth: 1,
                nodes: moves.len() as u64,
                score: scored.map(|(_, s)| s),
            }
        }
        Strategy::Mcts => monte_carlo(state, limits, opts, first),
        Strategy::Random => {
            let mut rng = SmallRng::seed_from_u64(opts.seed ^ state.hash());
            Choice {
                best: *moves.choose(&mut rng).unwrap_or(&first),
                depth: 0,
                nodes: 0,
                score: None,
            }
        }
    };
    Some(chosen)
}

/// The shared alpha-beta core (`Best`, or `AlphaBeta` to a fixed depth),
/// avoiding the positions already seen; falls back to `first` when the
/// search finds nothing in time.
fn alpha_beta<G: FileGame>(
    state: &G,
    strategy: Strategy,
    limits: &Limits,
    opts: &ChooseOptions,
    first: G::Move,
    on_improve: &mut dyn FnMut(G::Move),
) -> Choice<G::Move> {
    let max_depth = match strategy {
        Strategy::AlphaBeta(d) => d.max(1),
        _ => limits.max_depth,
    };
    let mut searcher = Searcher::<G>::new(timing::tt_bytes(limits.hard, opts.nodes_per_second));
    if let Some(seen) = &opts.seen {
        let mut seen = seen.clone();
        seen.insert(state.hash());
        searcher.set_avoid(seen, G::REPEAT_SCORE);
    }
    searcher.set_exact_values(opts.exact_values);
    let limits = Limits { max_depth, ..*limits };
    let r = searcher.search(state, limits, |info| on_improve(info.best));
    Choice {
        best: r.best.unwrap_or(first),
        depth: r.depth,
        nodes: r.nodes,
        score: r.best.map(|_| r.score),
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
        best: mv.unwrap_or(first),
        depth: 0,
        nodes: iterations,
        score: None,
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
