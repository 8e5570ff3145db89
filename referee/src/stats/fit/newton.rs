//! The maximum of the Bradley–Terry likelihood by Newton's method, on the
//! natural scale (θ, log-odds; Elo = θ · 400 / ln 10), and the covariance
//! of the estimates from the observed information (the negative Hessian)
//! at the maximum.
//!
//! The likelihood only sees differences of θ, so the information is
//! singular along "everyone up by the same amount". Without the prior the
//! steps solve `(I + 11ᵀ) δ = g` instead: the gradient sums to zero, so the
//! step does too and the mean of θ stays 0, and `(I + 11ᵀ)⁻¹ − 11ᵀ/m²` is
//! the covariance of θ about its mean (the pseudo-inverse of I).

use super::linalg::Cholesky;
use super::Tally;

/// Virtual games each agent draws against a virtual opponent at θ = 0
/// when the prior is on (see [`super::fit`]).
pub(super) const PRIOR_GAMES: f64 = 1.0;

/// `ln σ(x) = −ln(1 + e^(−x))` without overflow.
fn ln_sigmoid(x: f64) -> f64 {
    -((-x).max(0.0) + (-x.abs()).exp().ln_1p())
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The problem: `m` agents, their pair tallies (indices below `m`), and
/// whether the prior's virtual draws are added.
pub(super) struct Problem<'a> {
    pub m: usize,
    pub tallies: &'a [Tally],
    pub prior: bool,
}

impl Problem<'_> {
    /// The log-likelihood at `theta` (with the prior's virtual games).
    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let mut l = 0.0;
        for t in self.tallies {
            let d = theta[t.i] - theta[t.j];
            let s = f64::from(t.half) / 2.0;
            l += s * ln_sigmoid(d) + (f64::from(t.games) - s) * ln_sigmoid(-d);
        }
        if self.prior {
            l += theta
                .iter()
                .map(|&x| PRIOR_GAMES / 2.0 * (ln_sigmoid(x) + ln_sigmoid(-x)))
                .sum::<f64>();
        }
        l
    }

    /// The gradient and the information matrix (row-major `m × m`) at `theta`.
    fn gradient_information(&self, theta: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let m = self.m;
        let mut g = vec![0.0; m];
        let mut info = vec![0.0; m * m];
        for t in self.tallies {
            let p = sigmoid(theta[t.i] - theta[t.j]);
            let n = f64::from(t.games);
            let r = f64::from(t.half) / 2.0 - n * p;
            g[t.i] += r;
            g[t.j] -= r;
            let w = n * p * (1.0 - p);
            info[t.i * m + t.i] += w;
            info[t.j * m + t.j] += w;
            info[t.i * m + t.j] -= w;
            info[t.j * m + t.i] -= w;
        }
        if self.prior {
            for (k, &x) in theta.iter().enumerate() {
                let p = sigmoid(x);
                g[k] += PRIOR_GAMES * (0.5 - p);
                info[k * m + k] += PRIOR_GAMES * p * (1.0 - p);
            }
        }
        (g, info)
    }

    /// The information made invertible: plus `11ᵀ` without the prior.
    fn factor(&self, mut info: Vec<f64>) -> Option<Cholesky> {
        if !self.prior {
            info.iter_mut().for_each(|v| *v += 1.0);
        }
        Cholesky::new(&info, self.m)
    }

    /// θ at the maximum and its covariance (row-major `m × m`); `None` when
    /// the information is singular (the data do not pin θ down).
    pub(super) fn solve(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        let mut theta = vec![0.0; self.m];
        let mut current = self.log_likelihood(&theta);
        for _ in 0..200 {
            let (g, info) = self.gradient_information(&theta);
            let step = self.factor(info)?.solve(&g);
            // The likelihood is concave, so halving the step until it does
            // not fall converges from any start (far starts overshoot).
            let mut t = 1.0;
            let (next, value) = loop {
                let cand: Vec<f64> = theta.iter().zip(&step).map(|(x, s)| x + t * s).collect();
                let v = self.log_likelihood(&cand);
                if v >= current - 1e-12 * current.abs() || t < 1e-9 {
                    break (cand, v);
                }
                t /= 2.0;
            };
            let moved = step.iter().fold(0.0f64, |a, s| a.max((t * s).abs()));
            theta = next;
            current = value;
            if moved < 1e-10 {
                break;
            }
        }
        let (_, info) = self.gradient_information(&theta);
        let mut cov = self.factor(info)?.inverse();
        if !self.prior {
            let m2 = (self.m * self.m) as f64;
            cov.iter_mut().for_each(|v| *v -= 1.0 / m2);
        }
        Some((theta, cov))
    }
}
