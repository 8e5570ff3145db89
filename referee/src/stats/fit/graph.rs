//! Whether the games pin every rating down. Draw an arrow from agent i to
//! agent j when i took at least half a point from j. The likelihood has a
//! finite maximum exactly when every agent who played can reach every other
//! one along arrows (the graph is strongly connected: Zermelo's and Ford's
//! condition, as in Hunter's paper on MM algorithms for Bradley–Terry).
//!
//! Otherwise ratings are measured from one group that is pinned down (the
//! core), and an agent's rating is bounded above only if the core reaches
//! it along arrows (someone in the core took points from it, or from
//! someone who took points from it, and so on), and bounded below only if
//! it reaches the core. An agent that won every game is reached by nobody:
//! its interval is open above.

use super::{Open, Tally};

/// The arrows among agents and their strongly connected components.
#[derive(Clone, Debug)]
pub(super) struct Graph {
    /// Arrows out of each agent (to those it took points from).
    out: Vec<Vec<usize>>,
    /// Arrows into each agent.
    inc: Vec<Vec<usize>>,
    /// Each agent's component (`None`: no games).
    pub comp: Vec<Option<usize>>,
    /// Members per component.
    pub sizes: Vec<usize>,
}

impl Graph {
    /// The graph of `tallies` over `n` agents; components by Kosaraju's two
    /// depth-first passes, iteratively.
    pub(super) fn new(n: usize, tallies: &[Tally]) -> Graph {
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut inc: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut played = vec![false; n];
        for t in tallies {
            played[t.i] = true;
            played[t.j] = true;
            if t.half > 0 {
                out[t.i].push(t.j);
                inc[t.j].push(t.i);
            }
            if t.half < 2 * t.games {
                out[t.j].push(t.i);
                inc[t.i].push(t.j);
            }
        }
        // Pass 1: agents in the order a depth-first search on `out` finishes them.
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        for s in (0..n).filter(|&s| played[s]) {
            if seen[s] {
                continue;
            }
            seen[s] = true;
            let mut stack = vec![(s, 0usize)];
            while let Some((v, k)) = stack.pop() {
                if let Some(&w) = out[v].get(k) {
                    stack.push((v, k + 1));
                    if !seen[w] {
                        seen[w] = true;
                        stack.push((w, 0));
                    }
                } else {
                    order.push(v);
                }
            }
        }
        // Pass 2: on the reversed arrows, latest finisher first.
        let mut comp = vec![None; n];
        let mut sizes = Vec::new();
        for &s in order.iter().rev() {
            if comp[s].is_some() {
                continue;
            }
            let c = sizes.len();
            comp[s] = Some(c);
            let mut size = 1;
            let mut stack = vec![s];
            while let Some(v) = stack.pop() {
                for &w in &inc[v] {
                    if comp[w].is_none() {
                        comp[w] = Some(c);
                        size += 1;
                        stack.push(w);
                    }
                }
            }
            sizes.push(size);
        }
        Graph { out, inc, comp, sizes }
    }

    /// The largest component (on a tie, the one holding the lowest agent
    /// index): the default core.
    pub(super) fn largest(&self) -> Option<usize> {
        let mut best: Option<usize> = None;
        for c in self.comp.iter().flatten() {
            if best.is_none_or(|b| self.sizes[*c] > self.sizes[b]) {
                best = Some(*c);
            }
        }
        best
    }

    /// Every agent's open sides measured from component `core`.
    pub(super) fn open_from(&self, core: Option<usize>) -> Vec<Open> {
        let n = self.comp.len();
        let Some(core) = core else {
            return vec![Open::Both; n];
        };
        let members: Vec<usize> = (0..n).filter(|&a| self.comp[a] == Some(core)).collect();
        // The core took points from it (transitively): it cannot drift up.
        let bounded_above = reach(&members, &self.out);
        // It took points from the core (transitively): it cannot drift down.
        let bounded_below = reach(&members, &self.inc);
        (0..n)
            .map(|a| match (bounded_above[a], bounded_below[a]) {
                _ if self.comp[a].is_none() => Open::Both,
                (true, true) => Open::None,
                (false, true) => Open::Above,
                (true, false) => Open::Below,
                (false, false) => Open::Both,
            })
            .collect()
    }
}

/// Which agents `from` reaches along `adj`.
fn reach(from: &[usize], adj: &[Vec<usize>]) -> Vec<bool> {
    let mut seen = vec![false; adj.len()];
    let mut stack = from.to_vec();
    for &s in from {
        seen[s] = true;
    }
    while let Some(v) = stack.pop() {
        for &w in &adj[v] {
            if !seen[w] {
                seen[w] = true;
                stack.push(w);
            }
        }
    }
    seen
}
