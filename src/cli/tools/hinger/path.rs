//! Safe paths between two Hinger states (`agent hinger path`).
//!
//! A safe path from START to END is a sequence of single-counter removals in
//! which no state, both ends included, has a hinger. Moves only remove, so
//! END must lie cell by cell below START, and every path has exactly
//! `D = Σ (START - END)` moves: the state space is the box of per-cell
//! removal counts, a layered DAG. A state is packed into a `u128` code with
//! one bit field per cell that still has counters to lose (one bit per cell
//! on binary boards), so visited sets and parent maps stay small.
//!
//! Cheap proofs of impossibility run before any search: a cell of END above
//! START, a hinger in START or END, and more regions in END than in START (a
//! removal that is not on a hinger never adds a region, and a safe path
//! never moves on a hinger).

use agent::clock::CpuTimer;
use agent::games::hinger::board::{iter_bits, Board};
use fxhash::{FxHashMap, FxHashSet};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The path-search algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Algo {
    /// Breadth-first search (fewest moves).
    Bfs,
    /// Depth-first graph search (any safe path).
    Dfs,
    /// Iterative-deepening depth-first tree search (fewest moves).
    Iddfs,
    /// A* on the number of moves (fewest moves).
    Astar,
    /// A* on move cost with an admissible cost bound (lowest total cost;
    /// any pile sizes).
    MinCost,
}

impl Algo {
    /// All algorithms, in table order.
    pub const ALL: [Algo; 5] = [Algo::Bfs, Algo::Dfs, Algo::Iddfs, Algo::Astar, Algo::MinCost];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Algo::Bfs => "bfs",
            Algo::Dfs => "dfs",
            Algo::Iddfs => "iddfs",
            Algo::Astar => "astar",
            Algo::MinCost => "min-cost",
        }
    }
}

/// Resource caps for one search.
#[derive(Clone, Copy, Debug)]
pub struct PathLimits {
    /// CPU seconds.
    pub seconds: f64,
    /// Most states the search may remember (visited set, parent map, queue).
    pub max_states: usize,
}

impl Default for PathLimits {
    fn default() -> Self {
        PathLimits {
            seconds: f64::INFINITY,
            max_states: 20_000_000,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A safe path: the cells (bit indices) to take a counter from, in order.
    Path(Vec<usize>),
    /// Proof that there is no safe path, with the reason.
    NoPath(String),
    /// The time or memory cap ran out first.
    GaveUp(String),
}

/// Work done by a search.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// States expanded (successors generated).
    pub expanded: u64,
    /// Largest number of states waiting in the frontier at once (for IDDFS:
    /// the deepest path held, its only memory).
    pub peak_frontier: usize,
    /// CPU seconds.
    pub seconds: f64,
}

/// A search's answer and its work.
#[derive(Clone, Debug)]
pub struct PathReport {
    /// The answer.
    pub answer: Answer,
    /// The work.
    pub stats: Stats,
}

/// Why no search is needed: `Err` for inputs that do not describe the same
/// board, `Ok(Some(reason))` when a cheap argument proves there is no safe
/// path, `Ok(None)` when a search must decide.
pub fn precheck(start: &Board, end: &Board) -> Result<Option<String>, String> {
    if (start.rows(), start.cols()) != (end.rows(), end.cols()) {
        return Err(format!(
            "START is {}x{} but END is {}x{}: they must be the same board",
            start.rows(),
            start.cols(),
            end.rows(),
            end.cols()
        ));
    }
    for r in 0..start.rows() {
        for c in 0..start.cols() {
            if end.get(r, c) > start.get(r, c) {
                return Ok(Some(format!(
                    "cell ({r}, {c}) holds {} counters in END but only {} in START, and moves only remove",
                    end.get(r, c),
                    start.get(r, c)
                )));
            }
        }
    }
    for (name, b) in [("START", start), ("END", end)] {
        let h = b.hingers();
        if h != 0 {
            let (r, c) = b.coords(h.trailing_zeros() as usize);
            return Ok(Some(format!("{name} contains a hinger at ({r}, {c})")));
        }
    }
    let (rs, re) = (start.regions(), end.regions());
    if re > rs {
        return Ok(Some(format!(
            "END has {re} active regions but START only {rs}, and only a move on a hinger adds a region"
        )));
    }
    Ok(None)
}

/// The packed state space between START and END.
struct Space {
    start: Board,
    /// Bit index of each cell that loses counters.
    cells: Vec<usize>,
    /// Field offset and mask of each such cell's removal count.
    shift: Vec<u32>,
    field: Vec<u128>,
    /// Counters each cell loses in total.
    need: Vec<u32>,
    /// Lower bound on the cost of any move at each cell: 1 + its
    /// neighbours active in END (they stay active all along).
    cost_lb: Vec<u32>,
    /// Code of END.
    goal: u128,
}

impl Space {
    fn new(start: &Board, end: &Board) -> Result<Space, String> {
        let mut s = Space {
            start: start.clone(),
            cells: Vec::new(),
            shift: Vec::new(),
            field: Vec::new(),
            need: Vec::new(),
            cost_lb: Vec::new(),
            goal: 0,
        };
        let mut offset = 0u32;
        for i in iter_bits(start.active()) {
            let need = start.pile(i) - end.pile(i);
            if need == 0 {
                continue;
            }
            let width = 32 - need.leading_zeros();
            if offset + width > 128 {
                return Err("the state space is too large to index: the removals need more than 128 bits".into());
            }
            let bit = 1u128 << i;
            s.cells.push(i);
            s.shift.push(offset);
            s.field.push((1u128 << width) - 1);
            s.need.push(need);
            s.cost_lb
                .push(1 + (start.dilate(bit) & end.active() & !bit).count_ones());
            s.goal |= (need as u128) << offset;
            offset += width;
        }
        Ok(s)
    }

    #[inline]
    fn removed(&self, code: u128, k: usize) -> u32 {
        ((code >> self.shift[k]) & self.field[k]) as u32
    }

    fn decode(&self, code: u128) -> Board {
        let mut b = self.start.clone();
        for k in 0..self.cells.len() {
            let r = self.removed(code, k);
            if r != 0 {
                b.set_index(self.cells[k], self.start.pile(self.cells[k]) - r);
            }
        }
        b
    }

    /// Safe successors of `code` (whose board is `board`): (field index, child code).
    fn successors(&self, code: u128, board: &Board, out: &mut Vec<(usize, u128)>) {
        out.clear();
        let ring = board.ring_split();
        for k in 0..self.cells.len() {
            if self.removed(code, k) < self.need[k] && !board.hinger_after_removal_with(self.cells[k], ring) {
                out.push((k, code + (1u128 << self.shift[k])));
            }
        }
    }

    /// Moves still to make from `code` (exact distance to END).
    fn moves_left(&self, code: u128) -> u32 {
        (0..self.cells.len())
            .map(|k| self.need[k] - self.removed(code, k))
            .sum()
    }

    /// Admissible cost-to-go of `code`.
    fn cost_left(&self, code: u128) -> u32 {
        (0..self.cells.len())
            .map(|k| (self.need[k] - self.removed(code, k)) * self.cost_lb[k])
            .sum()
    }

    /// The cells of the path to `code`, following `parent` (child -> (parent, field)).
    fn path_to(&self, mut code: u128, parent: impl Fn(u128) -> Option<(u128, usize)>) -> Vec<usize> {
        let mut cells = Vec::new();
        while let Some((p, k)) = parent(code) {
            cells.push(self.cells[k]);
            code = p;
        }
        cells.reverse();
        cells
    }
}

/// Time and memory bookkeeping shared by the algorithms.
struct Budget {
    timer: CpuTimer,
    limits: PathLimits,
    stats: Stats,
}

impl Budget {
    /// Counts an expansion; Some(reason) when a cap is reached.
    #[inline]
    fn expand(&mut self, states: usize, frontier: usize) -> Option<String> {
        self.stats.expanded += 1;
        self.stats.peak_frontier = self.stats.peak_frontier.max(frontier);
        if states > self.limits.max_states {
            return Some(format!(
                "gave up: more than {} states in memory",
                self.limits.max_states
            ));
        }
        if self.stats.expanded.is_multiple_of(256) && self.timer.elapsed() > self.limits.seconds {
            return Some(format!("gave up: more than {:.1} s of CPU", self.limits.seconds));
        }
        None
    }
}

/// Searches a safe path from `start` to `end` with `algo` within `limits`.
/// `Err` only for inputs that are not two states of one board or whose state
/// space cannot be indexed.
pub fn find_path(start: &Board, end: &Board, algo: Algo, limits: PathLimits) -> Result<PathReport, String> {
    let mut budget = Budget {
        timer: CpuTimer::start(),
        limits,
        stats: Stats::default(),
    };
    if let Some(reason) = precheck(start, end)? {
        budget.stats.seconds = budget.timer.elapsed();
        return Ok(PathReport {
            answer: Answer::NoPath(reason),
            stats: budget.stats,
        });
    }
    let space = Space::new(start, end)?;
    let answer = match algo {
        Algo::Bfs => bfs(&space, &mut budget),
        Algo::Dfs => dfs(&space, &mut budget),
        Algo::Iddfs => iddfs(&space, &mut budget),
        Algo::Astar => astar_moves(&space, &mut budget),
        Algo::MinCost => min_cost(&space, &mut budget),
    };
    budget.stats.seconds = budget.timer.elapsed();
    Ok(PathReport {
        answer,
        stats: budget.stats,
    })
}

const EXHAUSTED: &str = "every state reachable from START by safe moves was searched without reaching END";

/// Breadth-first: expands the states layer by layer (a layer is a number
/// of moves made), so the first time END is generated its path is among the
/// shortest. Here every path is equally long, so BFS pays full layers of
/// memory for an optimality that every path has.
fn bfs(space: &Space, budget: &mut Budget) -> Answer {
    let mut parent: FxHashMap<u128, (u128, usize)> = FxHashMap::default();
    let mut queue = VecDeque::new();
    let mut succ = Vec::new();
    if space.goal == 0 {
        return Answer::Path(Vec::new());
    }
    queue.push_back(0u128);
    parent.insert(0, (0, usize::MAX));
    while let Some(code) = queue.pop_front() {
        if let Some(why) = budget.expand(parent.len(), queue.len() + 1) {
            return Answer::GaveUp(why);
        }
        let board = space.decode(code);
        space.successors(code, &board, &mut succ);
        for &(k, child) in &succ {
            if parent.contains_key(&child) {
                continue;
            }
            parent.insert(child, (code, k));
            if child == space.goal {
                return Answer::Path(space.path_to(child, |c| parent.get(&c).filter(|p| p.1 != usize::MAX).copied()));
            }
            queue.push_back(child);
        }
    }
    Answer::NoPath(EXHAUSTED.into())
}

/// Depth-first graph search: follows one line of moves as deep as it goes,
/// backtracking from dead ends (states whose every move makes a hinger),
/// never revisiting a state. Finds some safe path if one exists; since all
/// paths have D moves it is as short as any.
fn dfs(space: &Space, budget: &mut Budget) -> Answer {
    let mut parent: FxHashMap<u128, (u128, usize)> = FxHashMap::default();
    let mut stack = vec![0u128];
    let mut succ = Vec::new();
    parent.insert(0, (0, usize::MAX));
    while let Some(code) = stack.pop() {
        if code == space.goal {
            return Answer::Path(space.path_to(code, |c| parent.get(&c).filter(|p| p.1 != usize::MAX).copied()));
        }
        if let Some(why) = budget.expand(parent.len(), stack.len() + 1) {
            return Answer::GaveUp(why);
        }
        let board = space.decode(code);
        space.successors(code, &board, &mut succ);
        // Reverse so that the lowest cell is tried first.
        for &(k, child) in succ.iter().rev() {
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(child) {
                e.insert((code, k));
                stack.push(child);
            }
        }
    }
    Answer::NoPath(EXHAUSTED.into())
}

/// Iterative deepening: depth-limited depth-first *tree* searches with
/// limits 0, 1, 2, ...: BFS's shortest-path guarantee in memory linear in the
/// depth, paid for by re-expanding states (no visited set, so every order of
/// the same removals is a separate branch) and by the shallow iterations,
/// which here can never succeed since END is exactly D moves away.
fn iddfs(space: &Space, budget: &mut Budget) -> Answer {
    let depth = space.moves_left(0);
    let mut path = Vec::new();
    let mut levels = Vec::new();
    for limit in 0..=depth {
        match dls(space, budget, limit, &mut path, &mut levels) {
            Dls::Found => return Answer::Path(path.iter().map(|&k| space.cells[k]).collect()),
            Dls::Stop(why) => return Answer::GaveUp(why),
            Dls::NotFound => {}
        }
    }
    Answer::NoPath(EXHAUSTED.into())
}

enum Dls {
    Found,
    NotFound,
    Stop(String),
}

/// One depth-limited tree search from START. The depth can reach
/// Σ(START - END), millions with large piles, so it keeps an explicit stack
/// (one successor list and cursor per level, in `levels`, reused across
/// iterations) rather than recursing. The successors held on that stack are
/// the states it counts against the memory cap.
fn dls(
    space: &Space,
    budget: &mut Budget,
    limit: u32,
    path: &mut Vec<usize>,
    levels: &mut Vec<(Vec<(usize, u128)>, usize)>,
) -> Dls {
    path.clear();
    let mut depth = 0usize;
    let mut held = 0usize;
    let mut code = 0u128;
    loop {
        // Visit `code`, reached by `path` (`depth` moves).
        if code == space.goal {
            return Dls::Found;
        }
        if (depth as u32) < limit {
            if let Some(why) = budget.expand(held, depth + 1) {
                return Dls::Stop(why);
            }
            if levels.len() == depth {
                levels.push((Vec::new(), 0));
            }
            let board = space.decode(code);
            let (succ, cursor) = &mut levels[depth];
            space.successors(code, &board, succ);
            *cursor = 0;
            held += succ.len();
            depth += 1;
        }
        // Move to the next untried successor, backing up from exhausted levels.
        loop {
            if depth == 0 {
                return Dls::NotFound;
            }
            let (succ, cursor) = &mut levels[depth - 1];
            if let Some(&(k, child)) = succ.get(*cursor) {
                *cursor += 1;
                path.truncate(depth - 1);
                path.push(k);
                code = child;
                break;
            }
            held -= succ.len();
            depth -= 1;
        }
    }
}

/// A* for the fewest moves, f = g + h with h = the number of counters still
/// to remove, Σ (state - END).
///
/// Admissibility: every move removes exactly one counter, so at least (in
/// fact exactly) h more moves are needed from any state that can reach END;
/// h never overestimates. It is also consistent: a move lowers h by exactly
/// 1, its step cost. So the first time END leaves the queue its path is
/// shortest. Because h is exact, f equals D for every state and the search
/// is steered by its tie-break, deepest state first: it dives like DFS but
/// keeps a closed set and the frontier in a heap.
fn astar_moves(space: &Space, budget: &mut Budget) -> Answer {
    let d = space.moves_left(0);
    let mut parent: FxHashMap<u128, (u128, usize)> = FxHashMap::default();
    let mut closed: FxHashSet<u128> = FxHashSet::default();
    // Max-heap on (-f, g): lowest f, then deepest.
    let mut heap: BinaryHeap<(Reverse<u32>, u32, Reverse<u128>)> = BinaryHeap::new();
    let mut succ = Vec::new();
    parent.insert(0, (0, usize::MAX));
    heap.push((Reverse(d), 0, Reverse(0)));
    while let Some((_, g, Reverse(code))) = heap.pop() {
        if code == space.goal {
            return Answer::Path(space.path_to(code, |c| parent.get(&c).filter(|p| p.1 != usize::MAX).copied()));
        }
        if !closed.insert(code) {
            continue;
        }
        if let Some(why) = budget.expand(parent.len() + closed.len(), heap.len() + 1) {
            return Answer::GaveUp(why);
        }
        let board = space.decode(code);
        space.successors(code, &board, &mut succ);
        for &(k, child) in &succ {
            // All paths to a state have the same length: the first parent is as good as any.
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(child) {
                e.insert((code, k));
                let h = space.moves_left(child);
                heap.push((Reverse(g + 1 + h), g + 1, Reverse(child)));
            }
        }
    }
    Answer::NoPath(EXHAUSTED.into())
}

/// Lowest-cost safe path for any pile sizes: A* on the move costs, with
/// h = Σ over cells of (counters still to remove there) x (1 + the cell's
/// neighbours that are active in END).
///
/// Why this algorithm: costs are positive and differ between moves, so
/// breadth-first order is no longer cost order; a uniform-cost search
/// (Dijkstra) is the textbook exact method for positive costs, and A* is
/// Dijkstra with a consistent heuristic added, expanding a subset of its
/// states. Why h is admissible and consistent: a cell active in END keeps at
/// least one counter along every path, so each later move at a neighbour
/// pays for it; every move at a cell costs at least that cell's bound, and a
/// move lowers h by exactly the bound of its cell, never more than it costs.
/// The first time END leaves the queue its cost is minimal. (DFS/IDDFS-style
/// searches would have to enumerate paths; BFS would need re-expansion.)
fn min_cost(space: &Space, budget: &mut Budget) -> Answer {
    // best: state -> (g, parent, field)
    let mut best: FxHashMap<u128, (u32, u128, usize)> = FxHashMap::default();
    let mut closed: FxHashSet<u128> = FxHashSet::default();
    let mut heap: BinaryHeap<(Reverse<u32>, u32, Reverse<u128>)> = BinaryHeap::new();
    let mut succ = Vec::new();
    best.insert(0, (0, 0, usize::MAX));
    heap.push((Reverse(space.cost_left(0)), 0, Reverse(0)));
    while let Some((_, g, Reverse(code))) = heap.pop() {
        if code == space.goal {
            return Answer::Path(space.path_to(code, |c| {
                best.get(&c).filter(|p| p.2 != usize::MAX).map(|&(_, p, k)| (p, k))
            }));
        }
        if best.get(&code).is_some_and(|b| b.0 < g) || !closed.insert(code) {
            continue; // a stale queue entry
        }
        if let Some(why) = budget.expand(best.len() + closed.len(), heap.len() + 1) {
            return Answer::GaveUp(why);
        }
        let board = space.decode(code);
        space.successors(code, &board, &mut succ);
        for &(k, child) in &succ {
            if closed.contains(&child) {
                continue;
            }
            let ng = g + board.move_cost(space.cells[k]);
            if best.get(&child).is_none_or(|b| ng < b.0) {
                best.insert(child, (ng, code, k));
                heap.push((Reverse(ng + space.cost_left(child)), ng, Reverse(child)));
            }
        }
    }
    Answer::NoPath(EXHAUSTED.into())
}

/// Replays `cells` from `start`: checks that it is a safe path to `end` and
/// returns its total cost.
pub fn check_path(start: &Board, end: &Board, cells: &[usize]) -> Result<u32, String> {
    if start.has_hinger() {
        return Err("START has a hinger".into());
    }
    let mut b = start.clone();
    let mut cost = 0;
    for (n, &i) in cells.iter().enumerate() {
        let (r, c) = b.coords(i);
        if b.pile(i) == 0 {
            return Err(format!("move {} at row {r}, column {c} is on an empty cell", n + 1));
        }
        cost += b.move_cost(i);
        b.remove(i);
        if b.has_hinger() {
            return Err(format!(
                "after move {} at row {r}, column {c} the board has a hinger",
                n + 1
            ));
        }
    }
    if b != *end {
        return Err("the moves do not lead to END".into());
    }
    Ok(cost)
}

#[cfg(test)]
mod tests;
