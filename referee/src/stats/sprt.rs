//! The sequential probability ratio test of a match: the generalised SPRT
//! on the logistic Elo scale, pentanomial over colour-swapped game pairs.

use crate::stats::rating::score_from_elo;

/// SPRT hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

/// The test's state after some games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SprtDecision {
    /// Keep playing.
    Continue,
    /// H1 accepted (the side is at least `elo1` stronger).
    AcceptH1,
    /// H0 accepted (the side is no more than `elo0` stronger).
    AcceptH0,
}

impl Sprt {
    /// Parses `ELO0,ELO1[,ALPHA,BETA]` (alpha and beta default to 0.05).
    pub(crate) fn parse(s: &str) -> Result<Sprt, String> {
        let parts: Vec<&str> = s.split(',').map(|p| p.trim()).collect();
        if parts.len() != 2 && parts.len() != 4 {
            return Err(format!("--sprt expects ELO0,ELO1[,ALPHA,BETA], found {s:?}"));
        }
        let num = |p: &str| {
            p.parse::<f64>()
                .map_err(|_| format!("--sprt: {p:?} is not a number (in {s:?})"))
        };
        let (elo0, elo1) = (num(parts[0])?, num(parts[1])?);
        let (alpha, beta) = if parts.len() == 4 {
            (num(parts[2])?, num(parts[3])?)
        } else {
            (0.05, 0.05)
        };
        if !elo0.is_finite() || !elo1.is_finite() || elo1 <= elo0 {
            return Err(format!("--sprt: ELO1 must be above ELO0, found {elo0} and {elo1}"));
        }
        if !(alpha > 0.0 && alpha < 0.5 && beta > 0.0 && beta < 0.5) {
            return Err(format!(
                "--sprt: ALPHA and BETA must be in (0, 0.5), found {alpha} and {beta}"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Lower and upper log-likelihood-ratio bounds.
    pub(crate) fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Decision for a log-likelihood ratio.
    pub(crate) fn decide(&self, llr: f64) -> SprtDecision {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtDecision::AcceptH1
        } else if llr <= lo {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// Log-likelihood ratio over game pairs (pentanomial): `pairs[k]` counts
    /// pairs whose two games scored k/2 points in total (k = 0..=4), each
    /// pair's score taken as a fraction of 2.
    ///
    /// This is the generalised SPRT with exact maximum-likelihood
    /// distributions (M. Van den Bergh, "Comparing the approximations for the
    /// generalized log likelihood ratio of a multinomial distribution"), as
    /// fishtest and fastchess compute it for their logistic model: for each
    /// hypothesis the distribution closest to the observed one (in
    /// Kullback-Leibler divergence) whose mean is that hypothesis' expected
    /// score, and LLR = N * sum p̂_i ln(p1_i / p0_i). Unlike the quadratic
    /// approximation N (s1 - s0)(2m - s0 - s1) / 2v, a single lopsided pair
    /// cannot produce a huge LLR: each pair moves it by a bounded amount, so the
    /// test keeps asking for games until the evidence is real. An outcome never
    /// observed counts as 0.001 observations (as fastchess and fishtest
    /// regularise) so every ML distribution stays strictly positive.
    pub(crate) fn llr_pentanomial(&self, pairs: [u32; 5]) -> f64 {
        if pairs.iter().all(|&c| c == 0) {
            return 0.0;
        }
        const SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
        let counts = pairs.map(|c| if c == 0 { 1e-3 } else { c as f64 });
        let n: f64 = counts.iter().sum();
        let probs = counts.map(|c| c / n);
        let p0 = ml_distribution(&SCORES, &probs, score_from_elo(self.elo0));
        let p1 = ml_distribution(&SCORES, &probs, score_from_elo(self.elo1));
        n * (0..5).map(|i| probs[i] * (p1[i] / p0[i]).ln()).sum::<f64>()
    }
}

/// The distribution over `scores` with mean `s` that is closest to the
/// empirical distribution `probs` (all entries positive): p_i = p̂_i / (1 +
/// θ (a_i - s)) where θ solves Σ p̂_i (a_i - s) / (1 + θ (a_i - s)) = 0
/// (Van den Bergh, Proposition 1.1). That sum falls strictly from +∞ to -∞ on
/// the θ interval keeping every 1 + θ (a_i - s) positive, so bisection finds
/// the root; `s` must lie strictly between the smallest and largest score.
fn ml_distribution<const N: usize>(scores: &[f64; N], probs: &[f64; N], s: f64) -> [f64; N] {
    let f = |theta: f64| -> f64 {
        (0..N)
            .map(|i| probs[i] * (scores[i] - s) / (1.0 + theta * (scores[i] - s)))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / (scores[N - 1] - s), -1.0 / (scores[0] - s));
    // θ lies within a few units of 0 for scores in [0, 1]; a bracket of 1e-12
    // is far below what the LLR can feel, and ~45 halvings reach it.
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi || hi - lo < 1e-12 {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let theta = 0.5 * (lo + hi);
    std::array::from_fn(|i| probs[i] / (1.0 + theta * (scores[i] - s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn sprt_bounds_and_parse() {
        let t = Sprt::parse("0,10").unwrap();
        let (lo, hi) = t.bounds();
        // ln(0.05/0.95) = -2.944439, ln(0.95/0.05) = 2.944439.
        assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
        assert_eq!(t.decide(3.0), SprtDecision::AcceptH1);
        assert_eq!(t.decide(-3.0), SprtDecision::AcceptH0);
        assert_eq!(t.decide(2.9), SprtDecision::Continue);
        assert!(Sprt::parse("10,0").is_err());
        assert!(Sprt::parse("nan,5").is_err());
        assert!(Sprt::parse("0,10,0.05").is_err());
        assert!(Sprt::parse("0,10,0.6,0.05").is_err());
        assert_eq!(Sprt::parse("-5,5,0.1,0.2").unwrap().alpha, 0.1);
    }

    /// LLRs of hand-made pentanomial vectors against fastchess's logistic
    /// pentanomial GSPRT (github.com/Disservin/fastchess, commit 74deac23,
    /// app/src/matchmaking/sprt/sprt.cpp `getLLR_logistic`, built and run on
    /// these vectors; the last two are its own app/tests/sprt_test.cpp cases
    /// "logistic pentanomial 1" and "2"). fastchess stops its root finder at
    /// a θ tolerance of 1e-3, hence the tolerance here.
    #[test]
    fn pentanomial_llr_matches_fastchess() {
        let cases: [(f64, f64, [u32; 5], f64); 8] = [
            (0.0, 100.0, [0, 0, 0, 0, 1], 0.247_370),
            (0.0, 10.0, [5, 10, 20, 40, 25], 2.117_901),
            (0.0, 5.0, [10, 30, 50, 35, 15], 0.318_052),
            (-5.0, 5.0, [3, 20, 60, 22, 5], 0.515_224),
            (0.0, 20.0, [0, 0, 0, 0, 7], 0.391_469),
            (0.0, 10.0, [12, 40, 100, 45, 9], -0.487_199),
            (0.5, 2.5, [223, 9863, 21279, 10037, 246], -3.074_423),
            (0.0, 2.0, [871, 26175, 55983, 26678, 821], -4.979_612),
        ];
        for (elo0, elo1, pairs, want) in cases {
            let t = Sprt {
                elo0,
                elo1,
                alpha: 0.05,
                beta: 0.05,
            };
            let got = t.llr_pentanomial(pairs);
            assert!(
                close(got, want, 2e-3 + 1e-3 * want.abs()),
                "[{elo0}, {elo1}] {pairs:?}: LLR {got}, fastchess {want}"
            );
        }
        assert_eq!(Sprt::parse("0,10").unwrap().llr_pentanomial([0; 5]), 0.0);
    }

    /// The old quadratic approximation with pseudo-counts accepted H1 after a
    /// single won pair; the exact GSPRT needs real evidence.
    #[test]
    fn one_won_pair_decides_nothing() {
        let t = Sprt::parse("0,100").unwrap();
        assert_eq!(t.decide(t.llr_pentanomial([0, 0, 0, 0, 1])), SprtDecision::Continue);
        assert_eq!(t.decide(t.llr_pentanomial([0, 0, 0, 0, 3])), SprtDecision::Continue);
        // A long one-sided record does decide.
        assert_eq!(t.decide(t.llr_pentanomial([0, 0, 0, 0, 40])), SprtDecision::AcceptH1);
        assert_eq!(t.decide(t.llr_pentanomial([40, 0, 0, 0, 0])), SprtDecision::AcceptH0);
    }

    /// Pentanomial distribution of a pair of independent games, each won with
    /// probability `score - draw/2`, drawn with `draw`, lost otherwise.
    fn pair_distribution(score: f64, draw: f64) -> [f64; 5] {
        let (w, d, l) = (score - draw / 2.0, draw, 1.0 - score - draw / 2.0);
        let game = [l, d, w];
        let mut p = [0.0; 5];
        for (i, a) in game.iter().enumerate() {
            for (j, b) in game.iter().enumerate() {
                p[i + j] += a * b;
            }
        }
        p
    }

    /// Runs one SPRT to its decision, drawing pairs from `dist`, checking after
    /// every pair as the referee does.
    fn run_sprt(t: &Sprt, dist: &[f64; 5], rng: &mut rand::rngs::SmallRng) -> SprtDecision {
        use rand::Rng;
        let mut pairs = [0u32; 5];
        for _ in 0..100_000 {
            let mut u: f64 = rng.gen();
            let k = dist.iter().position(|&p| {
                u -= p;
                u < 0.0
            });
            pairs[k.unwrap_or(4)] += 1;
            let d = t.decide(t.llr_pentanomial(pairs));
            if d != SprtDecision::Continue {
                return d;
            }
        }
        panic!("an SPRT ran 100000 pairs without a decision: {pairs:?}");
    }

    /// 2,000 simulated SPRTs each way: at true Elo = elo0 H1 is accepted at
    /// about rate alpha at most, at true Elo = elo1 H0 at about rate beta at
    /// most. Three standard errors of a 2,000-run proportion (0.0049 at 0.05)
    /// bound the sampling noise; the lower bound shows the test is not
    /// trivially conservative (overshoot past the bounds makes the real rates
    /// somewhat below alpha and beta).
    #[test]
    fn simulated_error_rates_match_alpha_and_beta() {
        use rand::SeedableRng;
        let t = Sprt::parse("0,30").unwrap();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(13);
        let runs = 2000;
        let at_elo0 = pair_distribution(score_from_elo(t.elo0), 0.3);
        let at_elo1 = pair_distribution(score_from_elo(t.elo1), 0.3);
        let false_h1 = (0..runs)
            .filter(|_| run_sprt(&t, &at_elo0, &mut rng) == SprtDecision::AcceptH1)
            .count();
        let false_h0 = (0..runs)
            .filter(|_| run_sprt(&t, &at_elo1, &mut rng) == SprtDecision::AcceptH0)
            .count();
        let (r1, r0) = (false_h1 as f64 / runs as f64, false_h0 as f64 / runs as f64);
        let slack = 3.0 * (0.05 * 0.95 / runs as f64).sqrt();
        // Seed 13 gives 0.0455 for both.
        assert!(
            (0.01..=t.alpha + slack).contains(&r1),
            "H1 accepted at elo0 in {r1} of runs"
        );
        assert!(
            (0.01..=t.beta + slack).contains(&r0),
            "H0 accepted at elo1 in {r0} of runs"
        );
    }
}
