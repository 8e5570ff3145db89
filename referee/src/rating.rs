//! Match statistics: Elo difference with a 95% interval, likelihood of
//! superiority, and a sequential probability ratio test (GSPRT on the
//! logistic Elo scale, trinomial over games or pentanomial over game pairs).

/// 95% two-sided normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference for an expected score in (0, 1).
pub fn elo_from_score(s: f64) -> f64 {
    let s = s.clamp(1e-9, 1.0 - 1e-9);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Error function (Abramowitz-Stegun 7.1.26 refined by a series for small x;
/// absolute error below 2e-7, plenty for a percentage).
pub fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 0.5 {
        // Maclaurin series converges fast here.
        let mut term = x;
        let mut sum = x;
        let x2 = x * x;
        for n in 1..30 {
            term *= -x2 / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        return sum * 2.0 / std::f64::consts::PI.sqrt();
    }
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let y = t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    1.0 - y * (-x * x).exp()
}

/// Wins, losses and draws of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Wins.
    pub w: u32,
    /// Draws.
    pub d: u32,
    /// Losses.
    pub l: u32,
}

impl Wdl {
    /// Games played.
    pub fn n(&self) -> u32 {
        self.w + self.d + self.l
    }
    /// Mean score per game (0.5 with no games).
    pub fn score(&self) -> f64 {
        if self.n() == 0 {
            0.5
        } else {
            (self.w as f64 + 0.5 * self.d as f64) / self.n() as f64
        }
    }
}

/// Elo difference and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Elo difference (positive: the side is stronger).
    pub elo: f64,
    /// Half-width of the 95% interval (infinite when undetermined).
    pub error: f64,
}

/// Elo from W/D/L: the score's per-game variance gives a normal interval on
/// the score, mapped to Elo; the half-width is half the mapped interval.
pub fn elo(r: Wdl) -> EloEstimate {
    let n = r.n() as f64;
    if n == 0.0 {
        return EloEstimate {
            elo: 0.0,
            error: f64::INFINITY,
        };
    }
    let s = r.score();
    let var = (r.w as f64 * (1.0 - s).powi(2) + r.d as f64 * (0.5 - s).powi(2) + r.l as f64 * s.powi(2)) / n;
    let se = (var / n).sqrt();
    let (lo, hi) = (s - Z95 * se, s + Z95 * se);
    let error = if lo <= 0.0 || hi >= 1.0 {
        f64::INFINITY
    } else {
        (elo_from_score(hi) - elo_from_score(lo)) / 2.0
    };
    EloEstimate {
        elo: elo_from_score(s),
        error,
    }
}

/// Likelihood of superiority: the probability that the side is the stronger,
/// from wins and losses (draws carry no information).
pub fn los(r: Wdl) -> f64 {
    let decisive = (r.w + r.l) as f64;
    if decisive == 0.0 {
        return 0.5;
    }
    0.5 * (1.0 + erf((r.w as f64 - r.l as f64) / (2.0 * decisive).sqrt()))
}

/// SPRT hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
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
pub enum SprtDecision {
    /// Keep playing.
    Continue,
    /// H1 accepted (the side is at least `elo1` stronger).
    AcceptH1,
    /// H0 accepted (the side is no more than `elo0` stronger).
    AcceptH0,
}

impl Sprt {
    /// Parses `ELO0,ELO1[,ALPHA,BETA]` (alpha and beta default to 0.05).
    pub fn parse(s: &str) -> Result<Sprt, String> {
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
        if !(elo1 > elo0) {
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
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Decision for a log-likelihood ratio.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtDecision::AcceptH1
        } else if llr <= lo {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// Generalised-SPRT log-likelihood ratio for outcomes with values
    /// `scores[i]` in [0, 1] observed `counts[i]` times: with mean m and
    /// variance v of the empirical distribution and N observations,
    /// LLR = N (s1 - s0) (2m - s0 - s1) / (2v), s0/s1 the expected scores
    /// of elo0/elo1.
    /// An outcome never observed counts as 0.001 observations (as fishtest
    /// regularises), so a one-sided record still has a variance.
    fn llr_of(&self, scores: &[f64], counts: &[u32]) -> f64 {
        if counts.iter().all(|&c| c == 0) {
            return 0.0;
        }
        let counts: Vec<f64> = counts.iter().map(|&c| if c == 0 { 1e-3 } else { c as f64 }).collect();
        let n: f64 = counts.iter().sum();
        let m: f64 = scores.iter().zip(&counts).map(|(s, &c)| s * c).sum::<f64>() / n;
        let v: f64 = scores
            .iter()
            .zip(&counts)
            .map(|(s, &c)| (s - m).powi(2) * c)
            .sum::<f64>()
            / n;
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * v)
    }

    /// LLR over single games (trinomial: loss, draw, win).
    pub fn llr_trinomial(&self, r: Wdl) -> f64 {
        self.llr_of(&[0.0, 0.5, 1.0], &[r.l, r.d, r.w])
    }

    /// LLR over game pairs (pentanomial): `pairs[k]` counts pairs whose two
    /// games scored k/2 points in total (k = 0..=4), each pair's score
    /// taken as a fraction of 2.
    pub fn llr_pentanomial(&self, pairs: [u32; 5]) -> f64 {
        self.llr_of(&[0.0, 0.25, 0.5, 0.75, 1.0], &pairs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn erf_matches_table_values() {
        assert!(close(erf(0.0), 0.0, 1e-12));
        assert!(close(erf(0.3), 0.328_626_759, 1e-7));
        assert!(close(erf(1.0), 0.842_700_793, 3e-7));
        assert!(close(erf(std::f64::consts::SQRT_2), 0.954_499_736, 3e-7));
        assert!(close(erf(-2.0), -0.995_322_265, 3e-7));
    }

    #[test]
    fn elo_and_interval_by_hand() {
        // W60 D100 L40: score 110/200 = 0.55; Elo = -400 log10(1/0.55 - 1) = 34.86.
        // Per-game variance (60*0.45^2 + 100*0.05^2 + 40*0.55^2)/200 = 0.1225,
        // standard error sqrt(0.1225/200) = 0.024749; 95% score interval
        // 0.55 -+ 0.048508 = [0.501492, 0.598508] -> Elo [1.037, 69.357],
        // half-width 34.16.
        let e = elo(Wdl { w: 60, d: 100, l: 40 });
        assert!(close(e.elo, 34.86, 0.01), "{e:?}");
        assert!(close(e.error, 34.16, 0.01), "{e:?}");
        // Even score: 0 Elo; all wins: infinite interval.
        assert!(close(elo(Wdl { w: 5, d: 0, l: 5 }).elo, 0.0, 1e-9));
        assert!(elo(Wdl { w: 5, d: 0, l: 0 }).error.is_infinite());
    }

    #[test]
    fn los_by_hand() {
        // W60 L40: 0.5 (1 + erf(20 / sqrt(200))) = 0.5 (1 + erf(1.41421)) = 0.97725.
        assert!(close(los(Wdl { w: 60, d: 100, l: 40 }), 0.977_25, 1e-5));
        assert!(close(los(Wdl { w: 3, d: 2, l: 3 }), 0.5, 1e-12));
        assert!(close(los(Wdl { w: 0, d: 7, l: 0 }), 0.5, 1e-12));
    }

    #[test]
    fn sprt_bounds_and_llr_by_hand() {
        let t = Sprt::parse("0,10").unwrap();
        let (lo, hi) = t.bounds();
        // ln(0.05/0.95) = -2.944439, ln(0.95/0.05) = 2.944439.
        assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
        // Trinomial W60 D100 L40: m = 0.55, v = 0.1225, s0 = 0.5,
        // s1 = 1/(1+10^(-10/400)) = 0.514387; LLR = 200 * 0.014387 *
        // (1.1 - 1.014387) / 0.245 = 1.00545.
        let llr = t.llr_trinomial(Wdl { w: 60, d: 100, l: 40 });
        assert!(close(llr, 1.0055, 1e-3), "{llr}");
        assert_eq!(t.decide(llr), SprtDecision::Continue);
        // Pentanomial pairs [5, 10, 20, 40, 25] (N = 100): m = (0 + 2.5 + 10 + 30
        // + 25)/100 = 0.675; v = (5*0.675^2 + 10*0.425^2 + 20*0.175^2
        // + 40*0.075^2 + 25*0.325^2)/100 = 0.075625; LLR = 100 * 0.014387 *
        // (1.35 - 1.014387) / 0.15125 = 3.1924 -> H1.
        let llr = t.llr_pentanomial([5, 10, 20, 40, 25]);
        assert!(close(llr, 3.1924, 1e-3), "{llr}");
        assert_eq!(t.decide(llr), SprtDecision::AcceptH1);
        // W20 D100 L80: m = 0.35, v = 0.1025; LLR = 200 * 0.014387 *
        // (0.7 - 1.014387) / 0.205 = -4.4128 -> H0.
        let llr = t.llr_trinomial(Wdl { w: 20, d: 100, l: 80 });
        assert!(close(llr, -4.4128, 1e-3), "{llr}");
        assert_eq!(t.decide(llr), SprtDecision::AcceptH0);
        // Only wins: the regularised variance still gives a decision.
        assert_eq!(t.decide(t.llr_pentanomial([0, 0, 0, 0, 3])), SprtDecision::AcceptH1);
        assert_eq!(t.llr_trinomial(Wdl::default()), 0.0);
        assert!(Sprt::parse("10,0").is_err());
        assert!(Sprt::parse("0,10,0.05").is_err());
        assert_eq!(Sprt::parse("-5,5,0.1,0.2").unwrap().alpha, 0.1);
    }
}
