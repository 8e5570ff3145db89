//! Monte-Carlo tree search (UCT) with random playouts, for any [`Game`].
//!
//! Playouts longer than a cap are scored by the sign of the evaluation, so
//! games without a natural end in reach (Halma) still get a signal.

use super::{Evaluator, Game, Limits, Outcome, Searchable};
use crate::clock::CpuTimer;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

struct Node<M> {
    mv: Option<M>,
    parent: usize,
    children: Vec<usize>,
    untried: Vec<M>,
    visits: u32,
    /// Sum of rewards from the view of the player who made `mv`.
    reward: f64,
}

/// Options for [`search`].
#[derive(Clone, Copy, Debug)]
pub struct MctsOptions {
    /// When to stop: at the soft CPU limit, or after `max_nodes` iterations.
    pub limits: Limits,
    /// Playout length before falling back to the evaluation.
    pub playout_cap: u32,
    /// Exploration constant.
    pub c: f64,
    /// RNG seed.
    pub seed: u64,
}

impl Default for MctsOptions {
    fn default() -> Self {
        MctsOptions {
            limits: Limits::time(1.0, 1.0),
            playout_cap: 200,
            c: 1.4,
            seed: 0x5eed,
        }
    }
}

/// Returns the most visited root move and the number of iterations run;
/// playouts cut short are scored by the game's own evaluation.
pub fn search<G: Searchable>(root: &G, opts: MctsOptions) -> (Option<G::Move>, u64) {
    let timer = CpuTimer::start();
    let eval = G::Eval::default();
    let mut rng = SmallRng::seed_from_u64(opts.seed);
    let mut root_moves = Vec::new();
    if root.outcome().is_none() {
        root.legal_moves(&mut root_moves);
    }
    if root_moves.len() <= 1 {
        return (root_moves.first().copied(), 0);
    }
    let mut nodes: Vec<Node<G::Move>> = vec![Node {
        mv: None,
        parent: usize::MAX,
        children: Vec::new(),
        untried: root_moves,
        visits: 0,
        reward: 0.0,
    }];
    let mut buf = Vec::new();
    let mut iterations = 0u64;
    let max_iterations = opts.limits.max_nodes.unwrap_or(u64::MAX);
    while iterations < max_iterations {
        if iterations.is_multiple_of(64) && timer.elapsed() >= opts.limits.soft {
            break;
        }
        iterations += 1;
        let mut state = root.clone();
        let n = select(&nodes, &mut state, opts.c);
        let n = expand(&mut nodes, n, &mut state, &mut rng);
        let leaf_reward = playout(state, &eval, opts.playout_cap, &mut rng, &mut buf);
        backpropagate(&mut nodes, n, leaf_reward);
    }
    let best = nodes[0]
        .children
        .iter()
        .max_by_key(|&&c| nodes[c].visits)
        .and_then(|&c| nodes[c].mv);
    (best, iterations)
}

/// Selection: from the root, follows the child with the best UCT value while
/// the node is fully expanded, playing the moves on `state`; returns the node
/// reached.
fn select<G: Game>(nodes: &[Node<G::Move>], state: &mut G, c: f64) -> usize {
    let mut n = 0usize;
    while nodes[n].untried.is_empty() && !nodes[n].children.is_empty() {
        let ln = (nodes[n].visits.max(1) as f64).ln();
        let mut best = nodes[n].children[0];
        let mut best_v = f64::MIN;
        for &child in &nodes[n].children {
            let cn = &nodes[child];
            let v = if cn.visits == 0 {
                f64::MAX
            } else {
                cn.reward / cn.visits as f64 + c * (ln / cn.visits as f64).sqrt()
            };
            if v > best_v {
                best_v = v;
                best = child;
            }
        }
        n = best;
        state.play(nodes[n].mv.expect("non-root node has a move"));
    }
    n
}

/// Expansion: plays one random untried move of node `n` (if any) on `state`
/// and returns the new child, else `n` itself.
fn expand<G: Game>(nodes: &mut Vec<Node<G::Move>>, n: usize, state: &mut G, rng: &mut SmallRng) -> usize {
    if nodes[n].untried.is_empty() {
        return n;
    }
    let i = rng.gen_range(0..nodes[n].untried.len());
    let mv = nodes[n].untried.swap_remove(i);
    state.play(mv);
    let mut untried = Vec::new();
    if state.outcome().is_none() {
        state.legal_moves(&mut untried);
    }
    nodes.push(Node {
        mv: Some(mv),
        parent: n,
        children: Vec::new(),
        untried,
        visits: 0,
        reward: 0.0,
    });
    let c = nodes.len() - 1;
    nodes[n].children.push(c);
    c
}

/// Playout: random moves from `sim` for at most `cap` plies; the reward for
/// the side to move at the leaf (the evaluation's sign when no end is reached).
fn playout<G: Game>(mut sim: G, eval: &impl Evaluator<G>, cap: u32, rng: &mut SmallRng, buf: &mut Vec<G::Move>) -> f64 {
    let mut sign = 1.0;
    for _ in 0..cap {
        match sim.outcome() {
            Some(o) => return sign * outcome_reward(o),
            None => {
                buf.clear();
                sim.legal_moves(buf);
                if buf.is_empty() {
                    return 0.0;
                }
                sim.play(buf[rng.gen_range(0..buf.len())]);
                sign = -sign;
            }
        }
    }
    if let Some(o) = sim.outcome() {
        sign * outcome_reward(o)
    } else {
        sign * (eval.evaluate(&sim) as f64 / 200.0).tanh()
    }
}

/// Backpropagation: a node's reward is from the view of the player who moved
/// into it, i.e. the opponent of the side to move at that node.
fn backpropagate<M>(nodes: &mut [Node<M>], leaf: usize, leaf_reward: f64) {
    let mut r = -leaf_reward;
    let mut k = leaf;
    loop {
        nodes[k].visits += 1;
        nodes[k].reward += r;
        if nodes[k].parent == usize::MAX {
            break;
        }
        k = nodes[k].parent;
        r = -r;
    }
}

fn outcome_reward(o: Outcome) -> f64 {
    match o {
        Outcome::Win => 1.0,
        Outcome::Loss => -1.0,
        Outcome::Draw => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testnim::TestNim as Nim;

    #[test]
    fn finds_nim_win_with_enough_iterations() {
        let opts = MctsOptions {
            limits: Limits {
                max_nodes: Some(20_000),
                ..Limits::time(5.0, 5.0)
            },
            ..Default::default()
        };
        let (mv, it) = search(&Nim::new(7), opts);
        assert_eq!(mv, Some(3));
        assert!(it > 0);
    }
}
