//! Ratings fitted to every game of a run: the Bradley–Terry (logistic Elo)
//! model, `P(i beats j) = 1 / (1 + 10^((Rj − Ri) / 400))`, a draw counting
//! as half a win each way, fitted by maximum likelihood over all games at
//! once (as Ordo and BayesElo do), so an agent's rating reflects whom it
//! played, not only its score. Each rating has a 95 % interval from the
//! observed information (the negative Hessian of the log-likelihood) at
//! the maximum, and is anchored to the field's mean or to one agent.
//!
//! When the games leave some rating unbounded (an agent or group that won,
//! or lost, every game against the rest, or groups that never met: see
//! [`graph`]), the maximum does not exist. Then every agent also draws one
//! virtual game against a virtual opponent at the field's centre (a prior,
//! as BayesElo's virtual draws), which keeps every rating finite; ratings
//! are measured from the largest group the games do pin together (the
//! core), and the side of an interval the games leave open is reported as
//! open ([`Rating::low`]/[`Rating::high`] absent), never as an infinity.

mod graph;
mod linalg;
mod newton;
#[cfg(test)]
mod tests;

use serde::Serialize;
use std::collections::BTreeMap;

/// 95 % two-sided normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// Elo per unit of the natural scale (log-odds).
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// One game: agents `a` and `b` (indices), and `a`'s points in halves
/// (2 a win, 1 a draw, 0 a loss).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Game {
    /// One agent.
    pub a: usize,
    /// The other.
    pub b: usize,
    /// `a`'s points in halves.
    pub half_a: u8,
}

/// All games between agents `i < j`: how many, and `i`'s points in halves.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tally {
    i: usize,
    j: usize,
    games: u32,
    half: u32,
}

/// What the ratings are measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// The mean rating of the agents with games is 0.
    Mean,
    /// This agent's rating is 0.
    Agent(usize),
}

/// Which side of an interval the games leave open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Open {
    /// Neither: the interval is finite.
    None,
    /// Above: nobody outside the agent's group took a point from it.
    Above,
    /// Below: the group took no point from anyone outside it.
    Below,
    /// Both: no games, or none against the rest of the field.
    Both,
}

/// One agent's fitted rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct Rating {
    /// Elo from the anchor (finite; with an open side, the fit's value
    /// under the prior).
    pub elo: f64,
    /// Lower end of the 95 % interval; absent when open below.
    pub low: Option<f64>,
    /// Upper end; absent when open above.
    pub high: Option<f64>,
}

impl Rating {
    /// Which side is open.
    pub(crate) fn open(&self) -> Open {
        match (self.low, self.high) {
            (Some(_), Some(_)) => Open::None,
            (Some(_), None) => Open::Above,
            (None, Some(_)) => Open::Below,
            (None, None) => Open::Both,
        }
    }
}

/// The fitted ratings of a run's agents.
#[derive(Clone, Debug)]
pub(crate) struct Ratings {
    /// Elo by agent before anchoring (0 for agents without games).
    elo: Vec<f64>,
    /// Covariance of `elo` (Elo², row-major, one row per agent; zero rows
    /// for agents without games).
    cov: Vec<f64>,
    /// The games' graph: which ratings the games pin to which.
    graph: graph::Graph,
    /// Open sides by agent, measured from the anchor's group.
    open: Vec<Open>,
    /// The agents whose mean is 0 (with [`Anchor::Mean`]): the core group.
    core: Vec<usize>,
    /// The anchor in force (the mean when the named agent has no games).
    pub anchor: Anchor,
    /// Whether the prior's virtual draws were needed.
    pub prior: bool,
}

/// Per pair of agents, their games and the first one's half-points, in a
/// fixed order (the same games in any order give the same fit).
fn tallies(games: impl IntoIterator<Item = Game>) -> Vec<Tally> {
    let mut by_pair: BTreeMap<(usize, usize), (u32, u32)> = BTreeMap::new();
    for g in games {
        if g.a == g.b {
            continue;
        }
        let half_a = g.half_a.min(2);
        let (i, j, half) = if g.a < g.b {
            (g.a, g.b, half_a)
        } else {
            (g.b, g.a, 2 - half_a)
        };
        let e = by_pair.entry((i, j)).or_default();
        e.0 += 1;
        e.1 += u32::from(half);
    }
    by_pair
        .into_iter()
        .map(|((i, j), (games, half))| Tally { i, j, games, half })
        .collect()
}

/// θ and its covariance over the agents with games (renumbered by
/// `index`): the plain maximum when the games pin it down, else the fit
/// with the prior.
fn solve(index: &[Option<usize>], all: &[Tally], strongly_connected: bool) -> Option<(Vec<f64>, Vec<f64>, bool)> {
    let m = index.iter().flatten().count();
    let local: Vec<Tally> = all
        .iter()
        .filter_map(|t| {
            Some(Tally {
                i: index[t.i]?,
                j: index[t.j]?,
                ..*t
            })
        })
        .collect();
    let problem = |prior| newton::Problem {
        m,
        tallies: &local,
        prior,
    };
    let plain = strongly_connected.then(|| problem(false).solve()).flatten();
    match plain {
        Some((theta, cov)) => Some((theta, cov, false)),
        None => problem(true).solve().map(|(theta, cov)| (theta, cov, true)),
    }
}

/// Fits the ratings of `n` agents to `games`, anchored at `anchor`.
pub(crate) fn fit(n: usize, games: impl IntoIterator<Item = Game>, anchor: Anchor) -> Ratings {
    let all = tallies(games.into_iter().filter(|g| g.a < n && g.b < n));
    let graph = graph::Graph::new(n, &all);
    let mut next = 0;
    let index: Vec<Option<usize>> = graph
        .comp
        .iter()
        .map(|c| {
            c.map(|_| {
                next += 1;
                next - 1
            })
        })
        .collect();
    let m = next;
    let mut elo = vec![0.0; n];
    let mut cov = vec![0.0; n * n];
    let mut prior = false;
    if let Some((theta, c, with_prior)) = solve(&index, &all, graph.sizes.len() == 1) {
        prior = with_prior;
        for a in 0..n {
            let Some(ia) = index[a] else { continue };
            elo[a] = theta[ia] * ELO_PER_NAT;
            for b in 0..n {
                if let Some(ib) = index[b] {
                    cov[a * n + b] = c[ia * m + ib] * ELO_PER_NAT * ELO_PER_NAT;
                }
            }
        }
    }
    let anchor = match anchor {
        Anchor::Agent(a) if graph.comp.get(a).is_some_and(Option::is_some) => Anchor::Agent(a),
        _ => Anchor::Mean,
    };
    let core_comp = match anchor {
        Anchor::Agent(a) => graph.comp[a],
        Anchor::Mean => graph.largest(),
    };
    let core = (0..n)
        .filter(|&a| graph.comp[a].is_some() && graph.comp[a] == core_comp)
        .collect();
    let open = graph.open_from(core_comp);
    Ratings {
        elo,
        cov,
        graph,
        open,
        core,
        anchor,
        prior,
    }
}

impl Ratings {
    /// The number of agents.
    fn n(&self) -> usize {
        self.elo.len()
    }

    /// `Σ w_k elo_k` and its 95 % half-width.
    fn combination(&self, w: &[f64]) -> (f64, f64) {
        let n = self.n();
        let value: f64 = w.iter().zip(&self.elo).map(|(a, b)| a * b).sum();
        let mut var = 0.0;
        for (i, wi) in w.iter().enumerate().filter(|(_, wi)| **wi != 0.0) {
            let row = &self.cov[i * n..(i + 1) * n];
            var += wi * w.iter().zip(row).map(|(a, b)| a * b).sum::<f64>();
        }
        (value, Z95 * var.max(0.0).sqrt())
    }

    /// Agent `a`'s rating from the anchor.
    pub(crate) fn rating(&self, a: usize) -> Rating {
        if self.graph.comp[a].is_none() {
            return UNRATED;
        }
        let mut w = vec![0.0; self.n()];
        w[a] = 1.0;
        match self.anchor {
            Anchor::Agent(b) => w[b] -= 1.0,
            Anchor::Mean => {
                for &k in &self.core {
                    w[k] -= 1.0 / self.core.len() as f64;
                }
            }
        }
        let (elo, half) = self.combination(&w);
        bounded(elo, half, self.open[a])
    }

    /// How much stronger agent `a` is than agent `b`, with its interval
    /// (open where the games do not bound `a` from `b`'s group).
    pub(crate) fn difference(&self, a: usize, b: usize) -> Rating {
        if self.graph.comp[a].is_none() || self.graph.comp[b].is_none() {
            return UNRATED;
        }
        let mut w = vec![0.0; self.n()];
        w[a] += 1.0;
        w[b] -= 1.0;
        let (elo, half) = self.combination(&w);
        let open = self.graph.open_from(self.graph.comp[b])[a];
        bounded(elo, half, open)
    }
}

/// The rating of an agent without games: 0, open both ways.
const UNRATED: Rating = Rating {
    elo: 0.0,
    low: None,
    high: None,
};

/// A rating with the interval `elo ± half`, cut open on the `open` side.
fn bounded(elo: f64, half: f64, open: Open) -> Rating {
    let elo = if elo.is_finite() { elo } else { 0.0 };
    let half = if half.is_finite() { half } else { 0.0 };
    Rating {
        elo,
        low: matches!(open, Open::None | Open::Above).then_some(elo - half),
        high: matches!(open, Open::None | Open::Below).then_some(elo + half),
    }
}
