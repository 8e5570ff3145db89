//! The fit against an independent, deliberately plain fit: Hunter's
//! minorization–maximization (MM) for Bradley–Terry, `γ_i ← W_i / Σ_j
//! n_ij / (γ_i + γ_j)` (W_i: i's points, a draw half a win each way), run
//! to convergence on three fixed sets of results.

use super::*;

/// Games from `(a, b, a's wins, draws, b's wins)` rows.
fn games(rows: &[(usize, usize, u8, u8, u8)]) -> Vec<Game> {
    let mut out = Vec::new();
    for &(a, b, w, d, l) in rows {
        for (count, half_a) in [(w, 2), (d, 1), (l, 0)] {
            out.extend((0..count).map(|_| Game { a, b, half_a }));
        }
    }
    out
}

/// Games from `(a, b, a's halves in game 1, in game 2)` game pairs.
fn pairs(rows: &[(usize, usize, u8, u8)]) -> Vec<Game> {
    rows.iter()
        .flat_map(|&(a, b, x, y)| {
            [
                Game { a, b, half_a: x },
                Game {
                    a: b,
                    b: a,
                    half_a: 2 - y,
                },
            ]
        })
        .collect()
}

/// Hunter's MM on `n` agents; with `virtual_draws`, each agent also draws
/// that many games against a fixed opponent of strength γ = 1. Returns Elo
/// (400 log10 γ), anchored so that the mean over `core` is 0.
fn mm(n: usize, games: &[Game], virtual_draws: f64, core: &[usize]) -> Vec<f64> {
    let mut wins = vec![virtual_draws / 2.0; n];
    let mut count = vec![vec![0.0f64; n]; n];
    for g in games {
        wins[g.a] += f64::from(g.half_a) / 2.0;
        wins[g.b] += 1.0 - f64::from(g.half_a) / 2.0;
        count[g.a][g.b] += 1.0;
        count[g.b][g.a] += 1.0;
    }
    let mut gamma = vec![1.0f64; n];
    for _ in 0..1_000_000 {
        let mut change = 0.0f64;
        let mut next = gamma.clone();
        for i in 0..n {
            let mut denom = virtual_draws / (gamma[i] + 1.0);
            for j in 0..n {
                if count[i][j] > 0.0 {
                    denom += count[i][j] / (gamma[i] + gamma[j]);
                }
            }
            next[i] = wins[i] / denom;
        }
        if virtual_draws == 0.0 {
            // Without a fixed opponent only ratios matter: keep the scale.
            let g = (next.iter().map(|x| x.ln()).sum::<f64>() / n as f64).exp();
            next.iter_mut().for_each(|x| *x /= g);
        }
        for i in 0..n {
            change = change.max((next[i] / gamma[i]).ln().abs());
        }
        gamma = next;
        if change < 1e-13 {
            break;
        }
    }
    let elo: Vec<f64> = gamma.iter().map(|g| 400.0 * g.log10()).collect();
    let mean = core.iter().map(|&k| elo[k]).sum::<f64>() / core.len() as f64;
    elo.iter().map(|e| e - mean).collect()
}

fn assert_matches(r: &Ratings, reference: &[f64]) {
    for (a, want) in reference.iter().enumerate() {
        let got = r.rating(a);
        assert!(
            (got.elo - want).abs() < 0.5,
            "agent {a}: fit {got:?}, MM {want:.2}\nfit {:?}\nMM  {reference:?}",
            (0..reference.len()).map(|k| r.rating(k).elo).collect::<Vec<_>>()
        );
        assert!(got.elo.is_finite() && got.low.is_none_or(f64::is_finite) && got.high.is_none_or(f64::is_finite));
    }
}

#[test]
fn a_round_robin_matches_mm() {
    let g = games(&[
        (0, 1, 3, 2, 3),
        (0, 2, 2, 3, 3),
        (0, 3, 1, 3, 4),
        (0, 4, 1, 1, 6),
        (0, 5, 0, 2, 6),
        (1, 2, 3, 1, 4),
        (1, 3, 2, 2, 4),
        (1, 4, 1, 2, 5),
        (1, 5, 1, 1, 6),
        (2, 3, 3, 2, 3),
        (2, 4, 2, 2, 4),
        (2, 5, 1, 2, 5),
        (3, 4, 2, 3, 3),
        (3, 5, 2, 1, 5),
        (4, 5, 3, 1, 4),
    ]);
    let r = fit(6, g.iter().copied(), Anchor::Mean);
    assert!(!r.prior, "every pair drew: the plain maximum exists");
    assert_matches(&r, &mm(6, &g, 0.0, &[0, 1, 2, 3, 4, 5]));
    for a in 0..6 {
        let x = r.rating(a);
        assert_eq!(x.open(), Open::None, "{x:?}");
    }
    // The same games in another order: the same fit, to the last bit.
    let mut rev = g.clone();
    rev.reverse();
    let again = fit(6, rev, Anchor::Mean);
    assert!((0..6).all(|a| again.rating(a) == r.rating(a)));
    // Anchored to agent 2: every rating moves by the same amount.
    let at2 = fit(6, g, Anchor::Agent(2));
    let shift = r.rating(2).elo;
    for a in 0..6 {
        assert!((at2.rating(a).elo - (r.rating(a).elo - shift)).abs() < 1e-9);
    }
    assert_eq!(
        at2.rating(2),
        Rating {
            elo: 0.0,
            low: Some(0.0),
            high: Some(0.0)
        }
    );
}

#[test]
fn a_sparse_swiss_like_set_matches_mm() {
    let g = pairs(&[
        (0, 5, 2, 1),
        (1, 6, 2, 2),
        (2, 7, 1, 2),
        (3, 8, 0, 2),
        (4, 9, 2, 0),
        (0, 1, 1, 1),
        (2, 3, 2, 0),
        (4, 5, 0, 1),
        (6, 7, 2, 1),
        (8, 9, 1, 0),
        (0, 2, 0, 2),
        (1, 3, 2, 1),
        (4, 6, 1, 1),
        (5, 8, 0, 0),
        (7, 9, 2, 2),
        (0, 3, 2, 2),
        (1, 4, 0, 1),
        (2, 5, 2, 1),
        (6, 9, 1, 2),
        (7, 8, 0, 1),
    ]);
    let r = fit(10, g.iter().copied(), Anchor::Mean);
    assert!(!r.prior, "the set is strongly connected");
    assert_matches(&r, &mm(10, &g, 0.0, &(0..10).collect::<Vec<_>>()));
}

#[test]
fn an_unbeaten_agent_is_finite_and_open_above() {
    let g = games(&[
        (0, 1, 1, 2, 1),
        (0, 2, 1, 1, 2),
        (0, 3, 0, 2, 2),
        (1, 2, 2, 1, 1),
        (1, 3, 1, 1, 2),
        (2, 3, 1, 2, 1),
        (0, 4, 0, 0, 4),
        (1, 4, 0, 0, 4),
        (2, 4, 0, 0, 4),
        (3, 4, 0, 0, 4),
        // Agent 5 lost its only game, to agent 0.
        (0, 5, 1, 0, 0),
    ]);
    // Agent 6 played nothing.
    let r = fit(7, g.iter().copied(), Anchor::Mean);
    assert!(r.prior, "agent 4 won every game: no plain maximum");
    let mut reference = mm(6, &g, newton::PRIOR_GAMES, &[0, 1, 2, 3]);
    reference.push(0.0);
    assert_matches(&r, &reference);
    let top = r.rating(4);
    assert_eq!(top.open(), Open::Above, "{top:?}");
    assert!(top.low.unwrap() > 100.0 && top.low.unwrap() < top.elo, "{top:?}");
    assert_eq!(r.rating(5).open(), Open::Below);
    assert_eq!(
        r.rating(6),
        Rating {
            elo: 0.0,
            low: None,
            high: None
        }
    );
    for a in 0..4 {
        assert_eq!(r.rating(a).open(), Open::None, "the core is pinned down");
    }
    // Agent 4 measured from agent 0: open above too; agent 0 from 4: below.
    assert_eq!(r.difference(4, 0).open(), Open::Above);
    assert_eq!(r.difference(0, 4).open(), Open::Below);
}

#[test]
fn two_agents_give_the_score_s_elo_and_the_binomial_interval() {
    // 12 wins, 6 draws, 6 losses: s = 0.625, Elo = 400 log10(s / (1 - s)).
    let g = games(&[(0, 1, 12, 6, 6)]);
    let r = fit(2, g, Anchor::Agent(1));
    let s: f64 = 0.625;
    let elo = 400.0 * (s / (1.0 - s)).log10();
    let x = r.rating(0);
    assert!((x.elo - elo).abs() < 1e-9, "{x:?}");
    // Information of the difference on the natural scale: n p (1 - p).
    let half = Z95 * ELO_PER_NAT / (24.0 * s * (1.0 - s)).sqrt();
    assert!((x.high.unwrap() - x.elo - half).abs() < 1e-6, "{x:?} {half}");
    // Anchored to their mean, each is half the difference away.
    let m = fit(2, games(&[(0, 1, 12, 6, 6)]), Anchor::Mean);
    assert!((m.rating(0).elo - elo / 2.0).abs() < 1e-9);
    assert!((m.rating(1).elo + elo / 2.0).abs() < 1e-9);
}
