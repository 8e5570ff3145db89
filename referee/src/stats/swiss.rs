//! A Swiss's standings: points (a win 1, a draw ½, a bye as many points
//! as a pairing has games), then Buchholz (the sum of the points of every
//! opponent met; a bye adds nothing), then the rating fitted to every
//! game ([`crate::stats::fit`]), then the pairing number.

use crate::output::record::GameRecord;
use crate::stats::fit::{Rating, Ratings};
use serde::Serialize;

/// One agent's line in the Swiss standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct SwissRow {
    /// 1-based place.
    pub place: usize,
    /// Name.
    pub name: String,
    /// Pairing number (1-based: the place on the command line).
    pub seed: usize,
    /// Points from games and byes.
    pub points: f64,
    /// The sum of the points of every opponent met.
    pub buchholz: f64,
    /// The fitted rating.
    pub rating: Rating,
    /// Games played.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Losses.
    pub losses: u32,
    /// Draws.
    pub draws: u32,
    /// Byes.
    pub byes: u32,
    /// Games it moved first in.
    pub moved_first: u32,
}

/// The standings of `names` after the games `records` (the Swiss rounds'
/// only) and the `byes` (agent indices, one per bye), each bye worth
/// `bye_points`, best first.
pub(crate) fn standings(
    names: &[(String, String)],
    records: &[GameRecord],
    byes: &[usize],
    bye_points: f64,
    ratings: &Ratings,
) -> Vec<SwissRow> {
    let n = names.len();
    let index = |name: &str| names.iter().position(|(m, _)| m == name);
    let mut rows: Vec<SwissRow> = (0..n)
        .map(|i| SwissRow {
            place: 0,
            name: names[i].0.clone(),
            seed: i + 1,
            points: 0.0,
            buchholz: 0.0,
            rating: ratings.rating(i),
            games: 0,
            wins: 0,
            losses: 0,
            draws: 0,
            byes: 0,
            moved_first: 0,
        })
        .collect();
    let mut met: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &b in byes {
        rows[b].byes += 1;
        rows[b].points += bye_points;
    }
    for r in records {
        let (Some(x), Some(y)) = (index(&r.agents[0]), index(&r.agents[1])) else {
            continue;
        };
        for (seat, me, them) in [(0, x, y), (1, y, x)] {
            let row = &mut rows[me];
            row.games += 1;
            row.moved_first += u32::from(r.first == seat);
            match r.winner {
                None => {
                    row.draws += 1;
                    row.points += 0.5;
                }
                Some(w) if w == seat => {
                    row.wins += 1;
                    row.points += 1.0;
                }
                Some(_) => row.losses += 1,
            }
            if !met[me].contains(&them) {
                met[me].push(them);
            }
        }
    }
    let points: Vec<f64> = rows.iter().map(|r| r.points).collect();
    for (row, opponents) in rows.iter_mut().zip(&met) {
        row.buchholz = opponents.iter().map(|&o| points[o]).sum();
    }
    rows.sort_by(|a, b| {
        b.points
            .total_cmp(&a.points)
            .then(b.buchholz.total_cmp(&a.buchholz))
            .then(b.rating.elo.total_cmp(&a.rating.elo))
            .then(a.seed.cmp(&b.seed))
    });
    for (i, row) in rows.iter_mut().enumerate() {
        row.place = i + 1;
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::fit::{fit, Anchor};

    #[test]
    fn points_then_buchholz_then_rating() {
        let ids: Vec<(String, String)> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|n| (n.to_string(), String::new()))
            .collect();
        // Round 1: a beats b, c draws d, e has the bye. Round 2: a beats c,
        // e beats b, d has the bye... (single games).
        let recs = vec![
            GameRecord::for_test("r01-a-vs-b-g0000", ["a", "b"], Some(0), None),
            GameRecord::for_test("r01-c-vs-d-g0000", ["c", "d"], None, None),
            GameRecord::for_test("r02-a-vs-c-g0000", ["a", "c"], Some(0), None),
            GameRecord::for_test("r02-e-vs-b-g0000", ["e", "b"], Some(0), None),
        ];
        let r = fit(5, crate::stats::summary::fit_games(&ids, &recs), Anchor::Mean);
        let s = standings(&ids, &recs, &[4, 3], 1.0, &r);
        let order: Vec<&str> = s.iter().map(|r| r.name.as_str()).collect();
        // a 2, e 2 (1 + bye), d 1.5 (½ + bye), c ½, b 0. a and e tie on
        // points; a's opponents b (0) + c (½) = ½, e's b = 0: a first.
        assert_eq!(order, ["a", "e", "d", "c", "b"]);
        assert_eq!((s[0].points, s[0].buchholz, s[0].place), (2.0, 0.5, 1));
        assert_eq!((s[1].points, s[1].buchholz, s[1].byes), (2.0, 0.0, 1));
        assert_eq!(s[0].moved_first, 2);
        assert!(s.iter().all(|r| r.rating.elo.is_finite()));
    }
}
