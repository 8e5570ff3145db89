//! The game-independent search core.
//!
//! Every game plugs in through three traits: [`Game`] (the rules: a
//! cheap-to-clone state, legal moves into a caller-owned buffer, copy-make
//! play, an outcome, a hash), [`SearchHints`] (ordering, reductions, table
//! symmetry; all defaulted) and [`Searchable`], which names the game's
//! [`Evaluator`]s: values apart from the position that score it from the
//! side to move (exact values, quiescence). Nothing in this module knows
//! any game.

pub mod alphabeta;
pub mod greedy;
pub mod level;
pub mod mcts;
pub mod minimax;
pub mod mix;
pub mod pace;
pub mod table;
pub mod tt;

use std::fmt::Debug;

/// Final result of a finished game, seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move has won (rare: most games are won by the mover).
    Win,
    /// The side to move has lost (typically: the previous mover won).
    Loss,
    /// Nobody won.
    Draw,
}

/// Score of a won position at the root; mate-distance scores count down from it.
pub(crate) const WIN: i32 = 1_000_000;
/// Anything at or beyond this magnitude is a proven win or loss.
pub(crate) const WIN_THRESHOLD: i32 = WIN - 10_000;

/// The rules of a two-player, zero-sum, perfect-information game as the
/// search sees them.
///
/// States are copied, not unmade: `play` mutates a clone. Implementations keep
/// the state small and heap-free so that a clone is a memcpy. How positions
/// are scored is [`Evaluator`]; how the search is tuned to the game is
/// [`SearchHints`].
pub trait Game: Clone + Send + Sync + 'static {
    /// A move. Small and `Copy`; it is stored in the transposition table.
    type Move: Copy + Eq + Debug + Send + Sync + 'static;

    /// Appends the legal moves of the side to move to `out` (which the caller
    /// has cleared): none once the game is over. Must not allocate beyond
    /// `out`'s growth.
    fn legal_moves(&self, out: &mut Vec<Self::Move>);

    /// Plays a legal move for the side to move; the other side moves next.
    fn play(&mut self, mv: Self::Move);

    /// `Some` when the game is over (including "side to move has no legal
    /// move", if the game's rules end it there).
    fn outcome(&self) -> Option<Outcome>;

    /// A Zobrist-style hash of everything that matters for the future of the
    /// game (position and side to move).
    fn hash(&self) -> u64;

    /// Called on the position after a move, with the position before it:
    /// false when the same side moves again (a player with nothing to play is
    /// skipped). The search negates a child's score only when the mover changed.
    /// Default: players always alternate.
    fn mover_changes(&self, _before: &Self) -> bool {
        true
    }

    /// The exact number of plies until the game ends, for games whose every
    /// line has the same length: the search never looks deeper than this,
    /// and an iteration that reaches it is exact. Default: unknown.
    fn plies_left(&self) -> Option<u32> {
        None
    }
}

/// How the search scores positions of a game `G`: the heuristic, the exact
/// values it may know without searching, and what is searched past the
/// depth limit. A value apart from the position, so that one game can be
/// searched with several evaluations (the agent's and the reference
/// agent's, [`Searchable`]) and an evaluation's settings travel with the
/// search, not in the state.
pub trait Evaluator<G: Game> {
    /// State one search keeps for [`Evaluator::exact_value`] (a solver and
    /// its cache, the share of the move's time it may use), owned by the
    /// search and prepared by [`Evaluator::begin_search`]: a game's
    /// per-search inputs travel in it, not in globals. `()` for most games.
    type Context: Default + Send;

    /// Heuristic value of `pos` for its side to move; positive is good for
    /// it. Must stay well inside `±WIN_THRESHOLD`.
    fn evaluate(&self, pos: &G) -> i32;

    /// Prepares `ctx` for a search of the root `pos` within `limits` (CPU
    /// seconds from now). Called once at the start of every search.
    /// Default: nothing.
    fn begin_search(&self, _pos: &G, _ctx: &mut Self::Context, _limits: &Limits) {}

    /// The exact value of `pos` (same scale as [`Evaluator::evaluate`], side
    /// to move's view) when it is known without searching deeper, e.g. a
    /// finished game scored by its margin or a last move that can be
    /// settled directly. Checked before [`Game::outcome`]. Default: never.
    fn exact_value(&self, _pos: &G, _ctx: &mut Self::Context) -> Option<i32> {
        None
    }

    /// The value of a one-ply search of `pos` for the side to move (the best
    /// over its moves of the negated [`Evaluator::evaluate`] of the child)
    /// and a move that reaches it, when the game can compute that without
    /// playing the moves: no child may be finished, have an
    /// [`Evaluator::exact_value`], or be evaluated otherwise than by the
    /// incremental formula the game uses here. Fail-soft against `beta`:
    /// the game may stop at the first move worth `beta` or more and return
    /// its value (a lower bound); below `beta` the value is exact. The
    /// search calls it at remaining depth 1 below the root instead of
    /// visiting the children, so the children's repetition check (a game's
    /// `REPEAT_SCORE`) is not made there. Default: never (the children are
    /// searched).
    fn frontier_value(&self, _pos: &G, _beta: i32) -> Option<(i32, G::Move)> {
        None
    }

    /// Plies of quiescence search past the depth limit, over
    /// [`Evaluator::noisy_moves`]. Default: none (leaves are evaluated
    /// statically).
    const QUIESCENCE_PLIES: u32 = 0;

    /// Appends the moves of `pos` worth searching past the depth limit
    /// (captures and the like) to `out`; the side to move may also stand on
    /// its static evaluation. Only called when `QUIESCENCE_PLIES > 0`.
    fn noisy_moves(&self, _pos: &G, _out: &mut Vec<G::Move>) {}

    /// The score scale for [`Pacing::Adaptive`]; evaluations that give it
    /// also search to the hard limit under [`Pacing::Full`]. Without it
    /// every timed search paces steadily. Default: none.
    const TIME_SCORES: Option<TimeScores> = None;
}

/// How the search is tuned to a [`Game`]: move ordering, reductions and
/// transposition-table symmetry. Every item has a neutral default.
pub trait SearchHints: Game {
    /// Number of slots in the history table; `history_key` maps into `0..HISTORY_SIZE`.
    const HISTORY_SIZE: usize = 1;

    /// History-table slot for a move (e.g. from*256+to). Default: one shared slot.
    fn history_key(&self, _mv: Self::Move) -> usize {
        0
    }

    /// Whether the moves searched before a cut-off lose the history the
    /// cut-off move gains (a "history malus"), so that moves which keep
    /// failing sink in the ordering. Default: off.
    const HISTORY_MALUS: bool = false;

    /// Static ordering hint: moves with a higher hint are tried first after
    /// the TT move and killers. Default: no preference.
    fn order_hint(&self, _mv: Self::Move) -> i32 {
        0
    }

    /// Late-move reductions: at remaining depth >= 3, moves ordered after
    /// the TT move, the killers and the first few others are searched
    /// shallower with a null window, and again at full depth only if they
    /// beat alpha there. For games with many moves per node of which few
    /// matter. Default: off.
    const LATE_MOVE_REDUCTIONS: bool = false;

    /// Late-move pruning: in null-window nodes at small remaining depth,
    /// the moves ordered after the first few (more at greater depth) are
    /// not searched at all. For games with many moves per node whose ordering
    /// puts the few that matter first. Default: off.
    const LATE_MOVE_PRUNING: bool = false;

    /// Transposition-table key, and the frame (e.g. a board symmetry) that
    /// maps this position onto the keyed one, so that equivalent positions
    /// share an entry. Default: [`Game::hash`] in the identity frame.
    fn tt_key(&self) -> (u64, u8) {
        (self.hash(), 0)
    }

    /// A move of this position expressed in the table's frame `frame`.
    fn move_to_frame(&self, mv: Self::Move, _frame: u8) -> Self::Move {
        mv
    }

    /// A move stored in the table's frame `frame`, back in this position's frame.
    fn move_from_frame(&self, mv: Self::Move, _frame: u8) -> Self::Move {
        mv
    }

    /// Score given, in search, to re-entering a position the game has
    /// already been through, from the view of the side to move there (so a
    /// positive value discourages the mover from going back). Only games
    /// whose positions can repeat (Halma) need it. Default: 0.
    const REPEAT_SCORE: i32 = 0;
}

/// A game the whole search core can play: its rules, its hints and its two
/// evaluators, the agent's and the reference agent's.
pub trait Searchable: SearchHints {
    /// The agent's evaluation; its default value is the one every search
    /// uses unless its caller gives another (Connect Square's default
    /// strategy weighs its own seat's chances up).
    type Eval: Evaluator<Self> + Default;

    /// The deliberately simple evaluation of the reference (minimax) agent.
    type Reference: Evaluator<Self> + Default;

    /// Whether the strength ladder ([`Strategy::Level`]) is offered for
    /// this game: its table's budgets and noise are set and measured in
    /// units of one game's [`Searchable::Eval`], so only the games whose
    /// ladder was measured offer it. Default: no.
    const LEVELS: bool = false;
}

/// Terminal score for `outcome` at distance `ply` from the root, side-to-move view.
#[inline]
pub(crate) fn outcome_score(outcome: Outcome, ply: u32) -> i32 {
    match outcome {
        Outcome::Win => WIN - ply as i32,
        Outcome::Loss => -WIN + ply as i32,
        Outcome::Draw => 0,
    }
}

/// What a search reports about its current best root move.
#[derive(Clone, Debug)]
pub struct SearchInfo<M> {
    /// Best root move so far.
    pub best: M,
    /// Its score from the root side's view.
    pub score: i32,
    /// Completed (or partially completed, if `partial`) iteration depth.
    pub depth: u32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// CPU seconds since the search started.
    pub seconds: f64,
    /// The principal variation starting with `best`.
    pub pv: Vec<M>,
    /// True when the report comes from an iteration that was not finished.
    pub partial: bool,
}

/// Scores that matter to adaptive time use, on the game's evaluation scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeScores {
    /// A drop of the root score by this much between two iterations is a
    /// real change of opinion (worth more time).
    pub drop: i32,
    /// Beyond this the game is settled whatever is played (less time).
    pub decided: i32,
}

/// How a timed search spends the time between its soft and hard limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    /// No new iteration after the soft limit, nor one predicted to end past
    /// the hard limit.
    Steady,
    /// One move of a whole game: the soft limit is a target, scaled after
    /// every iteration by how settled the search is (shorter when the best
    /// move stays put or the score is decided, longer when the best move
    /// changes or the score drops, never past the hard limit). For games
    /// with [`Evaluator::TIME_SCORES`]; others pace steadily.
    Adaptive,
    /// One move with its own time: iterate until the hard limit stops the
    /// search, using a partial last iteration's better move if it finds one.
    /// For games with [`Evaluator::TIME_SCORES`]; others pace steadily.
    Full,
}

/// Stop conditions for a search, on the process CPU clock.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// CPU seconds (measured from the search's start) after which no new
    /// iteration is started.
    pub soft: f64,
    /// CPU seconds after which the search aborts at once.
    pub hard: f64,
    /// Maximum iteration depth.
    pub max_depth: u32,
    /// Optional node cap (for reproducible benches and tests).
    pub max_nodes: Option<u64>,
    /// How the time between the soft and the hard limit is used.
    pub pacing: Pacing,
}

impl Limits {
    /// A depth-only limit (no time limit): for tests and solvers.
    pub fn depth(d: u32) -> Self {
        Limits {
            soft: f64::INFINITY,
            hard: f64::INFINITY,
            max_depth: d,
            max_nodes: None,
            pacing: Pacing::Steady,
        }
    }

    /// Time limits with a generous depth cap.
    pub fn time(soft: f64, hard: f64) -> Self {
        Limits {
            soft,
            hard,
            max_depth: 128,
            max_nodes: None,
            pacing: Pacing::Steady,
        }
    }

    /// The same limits with both times multiplied by `factor` (tests, tuning).
    pub(crate) fn scaled(self, factor: f64) -> Self {
        Limits {
            soft: self.soft * factor,
            hard: self.hard * factor,
            ..self
        }
    }

    /// What is left of these limits once `used` CPU seconds of them are
    /// spent (never negative; soft never above hard).
    pub fn after(self, used: f64) -> Self {
        let hard = (self.hard - used).max(0.0);
        Limits {
            soft: (self.soft - used).max(0.0).min(hard),
            hard,
            ..self
        }
    }
}

#[cfg(test)]
pub(crate) mod testgames;

/// A way of choosing a move, selectable with `agent --strategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The default: iterative-deepening alpha-beta under the time budget
    /// (games may substitute an exact solver where it fits).
    Best,
    /// Fixed-depth alpha-beta (`--depth`, default 4), still stopped by time.
    AlphaBeta(u32),
    /// The reference agent: plain full-width minimax to `--depth` (default
    /// 2), shallower when time is short.
    Minimax(u32),
    /// One-ply greedy on the game's evaluation (Connect Square: the brief's).
    Greedy,
    /// Monte-Carlo tree search for the budget.
    Mcts,
    /// A uniformly random legal move (a baseline for strength tests).
    Random,
    /// A rung of the strength ladder (`--level`, [`level`]), with the seed
    /// of its noise (`--seed`, 0 by default): the move depends only on the
    /// position, the level and the seed while the clock allows the
    /// level's budget.
    Level(level::Level, u64),
}
