//! The race endgame: once the two armies have passed each other, each side's
//! remaining game is a single-agent puzzle (fill the goal in as few plays as
//! possible), and who wins is decided by comparing the two counts.
//!
//! Everything here works in BLACK's frame: a side's pieces are mapped so that
//! they head for the bottom-right corner (white's pieces are turned by 180
//! degrees, cell `c` -> `255 - c`), the goal is white's camp and the *level*
//! of a cell is `x + y` (0 at black's corner, 30 at the goal corner).
//!
//! # Separation (why the race model is sound)
//!
//! Let `minB` be the lowest level of a black piece and `maxW` the highest
//! level of a white piece (both in black's frame). [`race_sides`] calls the
//! position separated when `minB - maxW >= 5`, and gives black the region of
//! levels `>= floor_B` and white the region `<= ceil_W`, with
//! `floor_B <= minB`, `ceil_W >= maxW` and `floor_B - ceil_W >= 3`.
//!
//! 1. Two cells are adjacent only if their levels differ by at most 2, so a
//!    black piece and a white piece inside their regions are never adjacent:
//!    neither can hop over the other, and no cell of one region is a cell
//!    the other side may step, hop or land on. While both sides make only
//!    *region plays* (every hop and the end inside the own region), each
//!    side's plays are exactly the plays it would have with the opponent's
//!    pieces removed: no piece can block, be blocked by, or jump over an
//!    opposing piece.
//! 2. The gap of 5 makes the very next play interaction-free whatever it is,
//!    region play or not: with only own pieces to hop over, a hop over a
//!    piece at level `>= minB` lands at level `>= minB - 2`, and a piece
//!    there is adjacent only to levels `>= minB - 4 > maxW`, so by induction
//!    over the hops of a chain no hop meets a white piece (and symmetrically
//!    for white). The random tests check this against the real move
//!    generator.
//! 3. Black's goal holds no white piece: 19 black pieces at levels `>= minB`
//!    need `minB <= 25` (only 15 cells lie at levels 26-30), so
//!    `maxW <= 20` while the goal is at levels `>= 25`; so black must fill
//!    its goal with its own 19 pieces (rule 5). Neither side has a piece in
//!    its own camp (levels `<= 5`; 19 white pieces need `maxW >= 5`, so
//!    `minB >= 10`), so rules 2 and 4 never apply inside a region.
//!
//! Hence, in the model where both sides keep to region plays, a side's
//! number of plays to finish is exactly the single-agent minimum that
//! [`Solver`] computes, and the side to move, needing `a` plays against the
//! opponent's `b`, wins iff `a <= b`. A side that leaves its region can only
//! do so by moving backwards, which a shortest finish never needs in
//! practice; the model does not cover deliberate spoiling by retreat.
//!
//! # The solver
//!
//! IDA* over own-piece bitboards with a transposition table of learned lower
//! bounds. The admissible bound ([`lower_bound`]) counts, for every goal level
//! `t`, the goal cells at level `>= t` still to be filled (each play adds at
//! most one piece to them), plus the plays the front needs to come within
//! reach of level `t` (a play never lands more than 2 levels beyond the
//! foremost piece: a step gains at most 2, and a hop lands 1-2 levels past
//! the piece it jumps over). Beyond one play per outsider it adds the plays
//! that bring no piece into the goal and that some argument forces: bands
//! of empty levels, isolated pieces and groups, and parity (a hop keeps a
//! piece's `(x % 2, y % 2)` class, so a class with more pieces than goal
//! cells must send the surplus through steps). Plays of pieces already in
//! the goal come from a pattern database over the goal's 19 cells
//! (`goal_db`, outside cells as wildcards); they add to the plays that end
//! outside the goal (bands, isolation), being different plays. At a node
//! with room for one to three plays beyond the outsiders', stuck outsiders
//! (no chain into the goal even with every goal cell a stone) add plays
//! ending outside the goal: up to three, each where no fewer plays of a
//! relaxation unstick them all, and one more where a finish with no play
//! inside the goal would need more to reach the holes themselves. At a
//! node whose threshold leaves no room beyond one play per outsider, two
//! necessary conditions for such a finish are checked first (a matching of
//! outsiders to holes each can reach, and an entering order in which each
//! hops only over the goal and later outsiders), then only entering plays
//! are generated. Every child's static bound is computed in its parent,
//! the cheap part first (outsiders plus parity), and children that fail it
//! are never visited: a visit costs a table probe that misses the cache.
//! The table slots of the others are fetched ahead. A table hit stands in
//! for the static bound (a stored bound is never below it). The parts of
//! the bound that depend on the outsiders only (isolation, stuck pieces)
//! are kept per set of outsiders (`OutsideMemo`): plays inside the goal
//! leave them as they are. Moves are the narrow
//! reading's (a piece in the goal keeps every hop inside it), so the first
//! move of a solution is legal under every reading.
//!
//! # Where it lives
//!
//! `frame` holds the frame and the separation test, `bound` the static
//! bound, `memo` what it knows per set of outsiders, `ida` the solver,
//! `moves` its move generation, `stuck` the stuck outsiders, `tight` the
//! bound's dearer part at tight nodes, `play` the solver in the agent's
//! play, and [`goal_db`] the goal's pattern database.

mod bound;
mod frame;
pub mod goal_db;
mod ida;
mod memo;
mod moves;
mod play;
mod stuck;
mod tight;

pub use bound::lower_bound;
pub use frame::{
    from_frame, is_separated, no_child_separated, race_sides, random_race, rotate, to_frame, RaceSide, GAP, GOAL,
};
pub use ida::{Budget, Finish, Solver};
pub use play::{best_finish, race_move, race_score, race_value, RaceContext, RaceResult, RACE_WIN};

#[cfg(test)]
mod tests;
