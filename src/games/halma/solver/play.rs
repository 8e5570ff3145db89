//! The race solver in the agent's play: the move of a separated position
//! within a share of the move's time ([`race_move`]), and the race value of
//! a separated position as the search's exact value ([`race_value`]), whose
//! leaf solves share a cache and a slice of the move's time
//! ([`RaceContext`]).

use super::bound::lower_bound;
use super::frame::{from_frame, is_separated, race_sides, RaceSide, GOAL};
use super::ida::{Budget, Finish, Solver};
use crate::clock::process_cpu_seconds;
use crate::games::halma::{HMove, Halma, Reading};
use crate::protocol::Player;
use crate::search::mix::splitmix64 as mix;
use crate::search::Limits;

/// The race seen from the side to move of a separated position, when both
/// finishing counts are known exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceResult {
    /// Plays the side to move needs.
    pub mine: u32,
    /// Plays the opponent needs.
    pub theirs: u32,
}

impl RaceResult {
    /// The side to move finishes on its `mine`-th play, before the
    /// opponent's `theirs`-th play iff `mine <= theirs`.
    pub fn side_to_move_wins(self) -> bool {
        self.mine <= self.theirs
    }
}

/// The first play of a shortest finish for the side to move of a separated
/// position, on the real board, with the number of plays it needs; `None`
/// when the position is not separated or the budget runs out.
pub fn best_finish(solver: &mut Solver, pos: &Halma, budget: Budget) -> Option<(HMove, u32)> {
    let sides = race_sides(pos)?;
    let me = pos.side();
    match solver.solve(&sides[me], budget) {
        Finish::Exact { plays, first: Some(m) } => Some((from_frame(me, m), plays)),
        _ => None,
    }
}

/// Share of a move's time the solver may spend before the ordinary search
/// takes over (the search then gets what is left).
const SOLVER_SHARE: f64 = 0.5;
/// Solver time when the limits set none (depth-limited tests and tools).
const UNTIMED_SECONDS: f64 = 1.0;
/// Solver nodes per CPU second, roughly, for sizing its table.
const SOLVER_NPS: f64 = 2e6;

/// Table size (log2 of entries) for a solve of `seconds`: about one entry
/// per node it can visit, between 4 K and 1 M entries (16 MiB).
fn table_log2(seconds: f64) -> u32 {
    let nodes = (seconds * SOLVER_NPS).max(1.0);
    (nodes.log2().ceil() as u32).clamp(12, 20)
}

/// The agent's move in a separated position: the first play of a shortest
/// finish for the side to move, if the solver proves one within a share of
/// the move's time; `None` (the ordinary search decides) when the position
/// is not separated or the solver runs out of time. `on_improve` hears the
/// move as soon as it is proven, so `output.txt` has it at once.
pub fn race_move(pos: &Halma, limits: &Limits, on_improve: &mut dyn FnMut(HMove)) -> Option<HMove> {
    let sides = race_sides(pos)?;
    let me = pos.side();
    let time = limits.soft.min(limits.hard);
    let seconds = if time.is_finite() {
        time.max(0.0) * SOLVER_SHARE
    } else {
        UNTIMED_SECONDS
    };
    let mut solver = Solver::new(table_log2(seconds));
    let r = solver.solve(&sides[me], Budget::seconds(seconds));
    log::debug!("race solver: {r:?} after {} nodes", solver.nodes());
    let Finish::Exact { first: Some(m), .. } = r else {
        return None;
    };
    let m = from_frame(me, m);
    // The solver's rules are a subset of the agent's; a disagreement would be
    // a bug, and the ordinary search is the safe answer to it.
    if !pos.is_legal(m, Reading::Narrow) {
        log::warn!("race solver proposed an illegal play; using the search");
        return None;
    }
    on_improve(m);
    Some(m)
}

/// Score of a won race for the side to move (the search's units, well
/// inside its proven-win range: the race model ignores spoiling by
/// retreat), plus `RACE_PLAY` per play of margin.
pub const RACE_WIN: i32 = 400_000;
/// Score per play of margin in a decided race.
const RACE_PLAY: i32 = 1_000;
/// Nodes a race solve at a search node may take for one side's pieces.
const LEAF_NODES: u64 = 2_000;
/// Most pieces outside the goal for which a search node tries a solve
/// (the bench's median solve needs ~7 K nodes at 4): beyond, the lower bound.
const LEAF_OUTSIDE: u32 = 4;
/// Cached side solves per search (log2).
const LEAF_CACHE_LOG2: u32 = 16;

/// The score of a race for the side to move that needs `mine` plays against
/// the opponent's `theirs`: it wins iff `mine <= theirs` (it moves first).
pub fn race_score(mine: u32, theirs: u32) -> i32 {
    let margin = theirs as i32 - mine as i32;
    if margin >= 0 {
        RACE_WIN + RACE_PLAY * margin
    } else {
        -RACE_WIN + RACE_PLAY * (margin + 1)
    }
}

/// A search's solver and its cache of side solves (key; exact plays + 1,
/// or 0 when the small solve gave up), so that a search meets each side's
/// configuration once.
struct LeafCache {
    solver: Solver,
    keys: Vec<u64>,
    plays: Vec<u8>,
}

/// What one search knows about races: Halma's [`Evaluator::Context`]. Its
/// cache is made at the first separated node a search meets, so searches
/// that never reach a race allocate nothing.
///
/// [`Evaluator::Context`]: crate::search::Evaluator::Context
pub struct RaceContext {
    cache: Option<LeafCache>,
    /// CPU time after which search nodes run no new solves ([`RaceContext::begin`];
    /// minus infinity once passed, so the clock is read no more).
    deadline: f64,
    /// Whether this search's root is separated.
    root_separated: bool,
}

impl Default for RaceContext {
    fn default() -> Self {
        RaceContext {
            cache: None,
            deadline: f64::INFINITY,
            root_separated: false,
        }
    }
}

/// Share of a move's time in which search nodes may run small race solves.
const LEAF_SHARE: f64 = 0.4;

impl RaceContext {
    /// Starts a search of `root` within `limits`: its nodes may run small
    /// race solves for `LEAF_SHARE` of the time and use only cached answers
    /// after that. A node with a solve costs up to a millisecond and the
    /// search reads its clock only every 1,024 nodes, so without this cap a
    /// search in a race overran its time.
    ///
    /// From a separated root the race move has had its exact try, and a
    /// search that goes on scores no race: mixing race scores of the nodes a
    /// small solve settles with the ordinary evaluation of the others steers
    /// it towards the races it cannot solve (in race-bench's lone finishes
    /// the agent then took more plays than without the race value).
    pub fn begin(&mut self, root: &Halma, limits: &Limits) {
        self.root_separated = is_separated(root);
        let time = limits.soft.min(limits.hard);
        self.deadline = if time.is_finite() {
            process_cpu_seconds() + time.max(0.0) * LEAF_SHARE
        } else {
            f64::INFINITY
        };
    }
}

/// The CPU time until which a search node may start a solve, `None` once
/// it has passed (then `deadline` becomes minus infinity, so the clock is
/// read no more). Read only when a solve is due: the clock costs a call.
fn leaf_deadline(deadline: &mut f64) -> Option<f64> {
    let d = *deadline;
    if d == f64::NEG_INFINITY {
        return None;
    }
    if d.is_finite() && process_cpu_seconds() >= d {
        *deadline = f64::NEG_INFINITY;
        return None;
    }
    Some(d)
}

/// What a search node knows about `side`'s race: exact when a small solve
/// (cached) finds it, else the lower bound.
fn leaf_finish(cache: &mut LeafCache, deadline: &mut f64, side: &RaceSide) -> Finish {
    if (side.pieces & !GOAL).count() > LEAF_OUTSIDE {
        return Finish::AtLeast(lower_bound(side.pieces));
    }
    let w = side.pieces.0;
    let key = mix(w[0] ^ mix(w[1] ^ mix(w[2] ^ mix(w[3] ^ u64::from(side.floor)))));
    let slot = key as usize & ((1 << LEAF_CACHE_LOG2) - 1);
    if cache.keys[slot] != key {
        let Some(deadline) = leaf_deadline(deadline) else {
            return Finish::AtLeast(lower_bound(side.pieces));
        };
        let budget = Budget {
            deadline,
            max_nodes: LEAF_NODES,
        };
        cache.keys[slot] = key;
        cache.plays[slot] = match cache.solver.solve(side, budget) {
            Finish::Exact { plays, .. } if plays < 255 => plays as u8 + 1,
            _ => 0,
        };
    }
    match cache.plays[slot] {
        0 => Finish::AtLeast(lower_bound(side.pieces)),
        p => Finish::Exact {
            plays: u32::from(p - 1),
            first: None,
        },
    }
}

/// The race's score when what is known decides it: both counts exact, or
/// one exact and the other's lower bound already enough (the margin then
/// counts the bound).
pub(super) fn decided(mine: Finish, theirs: Finish) -> Option<i32> {
    match (mine, theirs) {
        (Finish::Exact { plays: m, .. }, t) if m <= t.bound() || matches!(t, Finish::Exact { .. }) => {
            Some(race_score(m, t.bound()))
        }
        (m, Finish::Exact { plays: t, .. }) if m.bound() > t => Some(race_score(m.bound(), t)),
        _ => None,
    }
}

/// The value of a separated position for the side to move when the races
/// decide it ([`race_score`]): each side's count exact from a small solve
/// when few of its pieces are outside the goal, else its lower bound.
/// `None` when not separated or undecided (a difference of two lower bounds
/// is no value, so the search goes on there). The search's exact value: it
/// stops at a decided separation.
pub fn race_value(pos: &Halma, ctx: &mut RaceContext) -> Option<i32> {
    let sides = race_sides(pos)?;
    // A won game is the search's outcome, not a race.
    if pos.has_won(Player::One) || pos.has_won(Player::Two) || ctx.root_separated {
        return None;
    }
    let me = pos.side();
    let RaceContext { cache, deadline, .. } = ctx;
    let cache = cache.get_or_insert_with(|| LeafCache {
        solver: Solver::new(12),
        keys: vec![0; 1 << LEAF_CACHE_LOG2],
        plays: vec![0; 1 << LEAF_CACHE_LOG2],
    });
    let mine = leaf_finish(cache, deadline, &sides[me]);
    let theirs = leaf_finish(cache, deadline, &sides[me.other()]);
    decided(mine, theirs)
}
