//! What a game adds to the default strategy ([`Strategy::Best`]): its own
//! steps around the one search, none of which searches, and the umbrella
//! [`FileGame`] under which the driver, `play`, the tools and the referee
//! take any game.

use crate::protocol::{Notation, Setup, View};
use crate::search::{Limits, Searchable, Strategy};
use crate::timing::TimePolicy;

/// The game's own steps of a strategy, which `play::choose` composes with
/// its one search. Every item has a default that adds nothing.
pub trait Steps: Searchable {
    /// The game's own move for `strategy`, found without searching, that
    /// replaces the strategy's choice (Connect Square: the brief's greedy
    /// player for [`Strategy::Greedy`], an immediate win under
    /// [`Strategy::Best`]). Default: none.
    fn own_move(&self, _strategy: Strategy) -> Option<Self::Move> {
        None
    }

    /// The default strategy: CPU seconds of the search to run before
    /// [`Steps::solver_move`], for a game whose solver reports nothing
    /// until it is done, so that a searched move reaches `output.txt`
    /// early. `limits` are the move's. Default: none.
    fn probe_seconds(&self, _limits: &Limits) -> Option<f64> {
        None
    }

    /// The default strategy: the game's exact solver (or the like) within
    /// `limits` (CPU seconds from now: what the probe left), calling
    /// `on_improve` with every move it would play, so that a kill mid-think
    /// loses little. It runs no alpha-beta search: `play::choose` runs that
    /// when the answer is [`Solved::Unsolved`] or [`Solved::AfterSearch`].
    /// Default: no solver.
    fn solver_move(&self, _limits: &Limits, _on_improve: &mut dyn FnMut(Self::Move)) -> Solved<'_, Self::Move> {
        Solved::Unsolved
    }

    /// The default strategy: the move the search found, or would play so
    /// far, made safe (Connect Square: a move that hands the opponent a
    /// square at once is swapped for one that does not). Default: itself.
    fn safety_net(&self, mv: Self::Move) -> Self::Move {
        mv
    }

    /// The default strategy: the evaluation its search scores positions
    /// with (Connect Square weighs the agent's own chances up). Default:
    /// the game's own, as every other search uses it.
    fn search_evaluator(&self) -> <Self as Searchable>::Eval {
        Default::default()
    }

    /// The default strategy with no time to search (a GAME clock short of
    /// the floor of the moves left): whether `mv` makes progress that
    /// cannot be undone, so that moves played without a search cannot walk
    /// in circles while the clock runs out (Halma: a piece ends nearer its
    /// goal; a sideways step back and forth repeats no position while the
    /// opponent moves). Default: every move does.
    fn makes_progress(&self, _mv: Self::Move) -> bool {
        true
    }
}

/// What a game's exact solver made of a position for the default strategy
/// ([`Steps::solver_move`]).
pub enum Solved<'a, M> {
    /// Nothing proven within the solver's share of the time, or no solver
    /// for this position: the search decides.
    Unsolved,
    /// Play this move (proven, or the best one a solved position offers).
    Play(M),
    /// A value is proven, but which move keeps it best against a fallible
    /// opponent is chosen after the search: the function gets the searched
    /// move and a clock of the CPU seconds left, and returns the move.
    AfterSearch(Settle<'a, M>),
}

/// How [`Solved::AfterSearch`] settles the move: from the searched move and
/// a clock of the CPU seconds left.
pub type Settle<'a, M> = Box<dyn FnOnce(M, &dyn Fn() -> f64) -> M + 'a>;

/// A game as the agent, the referee and the tools see it: searchable, with
/// the file-side traits, its time policy and its steps of the default
/// strategy. Implemented for every type that has them; a game implements
/// the parts, next to its rules. (The referee never compares game names:
/// the registry and these traits say everything.)
pub trait FileGame: Searchable + Notation + Setup + View + TimePolicy + Steps {}

impl<T: Searchable + Notation + Setup + View + TimePolicy + Steps> FileGame for T {}
