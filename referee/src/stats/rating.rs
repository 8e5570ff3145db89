//! Match statistics: Elo difference with a 95% interval and the likelihood
//! of superiority (the SPRT is in [`crate::stats::sprt`]).

/// 95% two-sided normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference for an expected score in (0, 1).
pub(crate) fn elo_from_score(s: f64) -> f64 {
    let s = s.clamp(1e-9, 1.0 - 1e-9);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score for an Elo difference.
pub(crate) fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Wins, losses and draws of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Wdl {
    /// Wins.
    pub w: u32,
    /// Draws.
    pub d: u32,
    /// Losses.
    pub l: u32,
}

impl Wdl {
    /// Games played.
    pub(crate) fn n(&self) -> u32 {
        self.w + self.d + self.l
    }
    /// Mean score per game (0.5 with no games).
    pub(crate) fn score(&self) -> f64 {
        if self.n() == 0 {
            0.5
        } else {
            (self.w as f64 + 0.5 * self.d as f64) / self.n() as f64
        }
    }
}

/// Elo difference and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EloEstimate {
    /// Elo difference (positive: the side is stronger).
    pub elo: f64,
    /// Half-width of the 95% interval (infinite when undetermined).
    pub error: f64,
}

/// Elo from W/D/L: the score's per-game variance gives a normal interval on
/// the score, mapped to Elo; the half-width is half the mapped interval.
pub(crate) fn elo(r: Wdl) -> EloEstimate {
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
pub(crate) fn los(r: Wdl) -> f64 {
    let decisive = (r.w + r.l) as f64;
    if decisive == 0.0 {
        return 0.5;
    }
    0.5 * (1.0 + libm::erf((r.w as f64 - r.l as f64) / (2.0 * decisive).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
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
}
