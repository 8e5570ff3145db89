//! Rules tests: the fast state against a deliberately simple model on random
//! playouts, hand-made scoring cases, generator properties.

use super::*;
use crate::protocol::{GenOptions, Notation, Setup};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

/// A cell as (row, column).
type Pos = (usize, usize);

/// The simple model: a grid of labels and a list of bridges, every rule
/// checked by walking cells.
#[derive(Clone)]
struct Naive {
    n: usize,
    /// None = water, Some(0) = unlabelled, Some(l) = label l.
    grid: Vec<Option<u8>>,
    /// ((r1, c1), (r2, c2)) with the first end left of / above the second -> count.
    bridges: HashMap<(Pos, Pos), u8>,
    points: ByPlayer<i32>,
    side: Player,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum NMove {
    B(usize, usize, usize, usize),
    L(usize, usize, u8),
}

impl Naive {
    fn from(h: &Hashi) -> Naive {
        let t = h.topology();
        let mut grid = vec![None; t.n * t.n];
        for (i, &(r, c)) in t.islands.iter().enumerate() {
            grid[r as usize * t.n + c as usize] = Some(h.label(i));
        }
        let mut bridges = HashMap::new();
        for (p, q) in t.pairs.iter().enumerate() {
            if h.bridges(p) > 0 {
                let a = t.islands[q.a as usize];
                let b = t.islands[q.b as usize];
                bridges.insert(
                    ((a.0 as usize, a.1 as usize), (b.0 as usize, b.1 as usize)),
                    h.bridges(p),
                );
            }
        }
        Naive {
            n: t.n,
            grid,
            bridges,
            points: h.points(),
            side: h.side(),
        }
    }

    fn cells_between(a: (usize, usize), b: (usize, usize)) -> Vec<(usize, usize)> {
        if a.0 == b.0 {
            (a.1 + 1..b.1).map(|c| (a.0, c)).collect()
        } else {
            (a.0 + 1..b.0).map(|r| (r, a.1)).collect()
        }
    }

    fn degree(&self, x: (usize, usize)) -> u8 {
        self.bridges
            .iter()
            .filter(|((a, b), _)| *a == x || *b == x)
            .map(|(_, &k)| k)
            .sum()
    }

    /// Cells covered by any placed bridge, with whether the bridge is horizontal.
    fn covered(&self) -> Vec<((usize, usize), bool)> {
        let mut v = Vec::new();
        for &(a, b) in self.bridges.keys() {
            for cell in Self::cells_between(a, b) {
                v.push((cell, a.0 == b.0));
            }
        }
        v
    }

    fn moves(&self) -> Vec<NMove> {
        let n = self.n;
        let mut out = Vec::new();
        let covered = self.covered();
        for r1 in 0..n {
            for c1 in 0..n {
                let Some(l1) = self.grid[r1 * n + c1] else { continue };
                if l1 == 0 {
                    out.push(NMove::L(r1, c1, 3));
                    out.push(NMove::L(r1, c1, 4));
                    continue;
                }
                // Every island to the right or below with nothing but water between.
                for (r2, c2) in (c1 + 1..n).map(|c| (r1, c)).chain((r1 + 1..n).map(|r| (r, c1))) {
                    let Some(l2) = self.grid[r2 * n + c2] else { continue };
                    let between = Self::cells_between((r1, c1), (r2, c2));
                    if between.iter().any(|&(r, c)| self.grid[r * n + c].is_some()) || l2 == 0 {
                        continue;
                    }
                    let k = self.bridges.get(&((r1, c1), (r2, c2))).copied().unwrap_or(0);
                    let horizontal = r1 == r2;
                    let crosses = k == 0 && between.iter().any(|cell| covered.contains(&(*cell, !horizontal)));
                    if k < 2 && !crosses && self.degree((r1, c1)) < l1 && self.degree((r2, c2)) < l2 {
                        out.push(NMove::B(r1, c1, r2, c2));
                    }
                }
            }
        }
        out.sort();
        out
    }

    fn play(&mut self, m: NMove) {
        match m {
            NMove::L(r, c, l) => self.grid[r * self.n + c] = Some(l),
            NMove::B(r1, c1, r2, c2) => {
                *self.bridges.entry(((r1, c1), (r2, c2))).or_insert(0) += 1;
                let mut gain = 0;
                for x in [(r1, c1), (r2, c2)] {
                    let l = self.grid[x.0 * self.n + x.1].unwrap();
                    if self.degree(x) == l {
                        gain += l as i32;
                    }
                }
                self.points[self.side] += gain;
                self.points[self.side.other()] -= gain;
            }
        }
        self.side = self.side.other();
    }

    /// The rules' invariants: no two bridges share a cell, no island over
    /// its label, no pair over two, no bridge at an unlabelled island.
    fn check_invariants(&self) {
        let cov = self.covered();
        for (i, (a, _)) in cov.iter().enumerate() {
            assert!(cov[i + 1..].iter().all(|(b, _)| b != a), "two bridges cross at {a:?}");
            assert!(
                self.grid[a.0 * self.n + a.1].is_none(),
                "a bridge runs over island {a:?}"
            );
        }
        for (&(a, b), &k) in &self.bridges {
            assert!((1..=2).contains(&k), "pair {a:?}-{b:?} has {k} bridges");
        }
        for r in 0..self.n {
            for c in 0..self.n {
                if let Some(l) = self.grid[r * self.n + c] {
                    assert!(self.degree((r, c)) <= l, "island ({r},{c}) over its label {l}");
                }
            }
        }
    }
}

fn to_naive(h: &Hashi, m: HashiMove) -> NMove {
    let t = h.topology();
    match m {
        HashiMove::Bridge(p) => {
            let q = t.pairs[p as usize];
            let (a, b) = (t.islands[q.a as usize], t.islands[q.b as usize]);
            NMove::B(a.0 as usize, a.1 as usize, b.0 as usize, b.1 as usize)
        }
        HashiMove::Label(i, l) => {
            let (r, c) = t.islands[i as usize];
            NMove::L(r as usize, c as usize, l)
        }
    }
}

/// A random board: islands anywhere (touching too), random labels.
fn random_board(rng: &mut SmallRng) -> Hashi {
    let n = rng.gen_range(2..=9);
    let density = rng.gen_range(0.15..0.6);
    let cells: Vec<bool> = (0..n * n).map(|_| rng.gen_bool(density)).collect();
    let topo = Topology::build(n, |r, c| cells[r * n + c]).unwrap();
    let labels: Vec<u8> = (0..topo.islands.len()).map(|_| rng.gen_range(0..=4)).collect();
    Hashi::new(topo, &labels)
}

#[test]
fn random_playouts_match_the_simple_model_and_keep_the_rules() {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut moves = Vec::new();
    let mut games = 0;
    let mut plies = 0;
    while games < 2000 {
        let mut h = if games % 2 == 0 {
            random_board(&mut rng)
        } else {
            let opts = GenOptions {
                size: Some(rng.gen_range(3..=10)),
                seed: rng.gen(),
                ..Default::default()
            };
            Hashi::generate(&opts).unwrap()
        };
        let mut naive = Naive::from(&h);
        games += 1;
        loop {
            moves.clear();
            h.legal_moves(&mut moves);
            let mut fast: Vec<NMove> = moves.iter().map(|&m| to_naive(&h, m)).collect();
            fast.sort();
            assert_eq!(fast, naive.moves(), "legal moves differ");
            assert_eq!(h.outcome().is_none(), !moves.is_empty());
            if moves.is_empty() {
                let o = h.outcome().unwrap();
                let me = h.points()[h.side()];
                let them = h.points()[h.side().other()];
                assert_eq!(o == Outcome::Win, me > them);
                assert_eq!(o == Outcome::Draw, me == them);
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            let before = h.hash();
            h.play(m);
            naive.play(to_naive(&h, m));
            naive.check_invariants();
            assert_eq!(h.points(), naive.points);
            assert_ne!(h.hash(), before);
            plies += 1;
        }
        // Scores are zero-sum from a 0-0 start.
        assert_eq!(h.points()[Player::One], -h.points()[Player::Two]);
    }
    assert!(plies > 20_000, "playouts too short: {plies} plies");
}

#[test]
fn hash_depends_on_position_not_on_move_order() {
    // Two bridges in either order give the same hash.
    let text = "HASHI\nGAME\n1\n9\n0 0\n3\n3 . 3\n. . .\n3 . 3\n0\n";
    let h = Hashi::parse_input(text).unwrap().state;
    let mut ms = Vec::new();
    h.legal_moves(&mut ms);
    assert!(ms.len() >= 4);
    let (x, y) = (ms[0], ms[1]);
    let mut a = h.clone();
    a.play(x);
    a.play(y);
    let mut b = h.clone();
    b.play(y);
    b.play(x);
    assert_eq!(a.hash(), b.hash());
    let mut c = h.clone();
    c.play(x);
    c.play(x);
    assert_ne!(a.hash(), c.hash());
}

/// `2 - 1` with one bridge already at the 2: the bridge to the 1 completes both.
#[test]
fn one_move_completing_two_islands_scores_both() {
    let text = "HASHI\nGAME\n2\n9\n5 -5\n3\n1 . 2\n. . .\n. . 1\n1\n0 2 2 2 1\n";
    let h = Hashi::parse_input(text).unwrap().state;
    let mv = h.parse_move("B 0 0 0 2").unwrap();
    assert_eq!(
        h.bridge_gain(match mv {
            HashiMove::Bridge(p) => p as usize,
            _ => unreachable!(),
        }),
        3
    );
    let mut after = h.clone();
    after.play(mv);
    // Player 2 moved: gains 1 + 2, player 1 loses the same.
    assert_eq!(after.points().into_array(), [2, -2]);
    assert_eq!(after.to_move(), Player::One);
    // Nothing is left: player 1 (to move) has 2 against -2.
    assert_eq!(after.outcome(), Some(Outcome::Win));
    assert_eq!(after.result(), Some(Some(Player::One)));
}

#[test]
fn double_bridge_scoring_and_no_second_scoring() {
    // Two 2s and a 4 along the top, a 2 below the 4: the first bridge of a
    // pair scores nothing, the second completes both 2s, and the 4 is left
    // short for good once its neighbours are full.
    let text = "HASHI\nGAME\n1\n9\n0 0\n5\n2 . 2 . 4\n. . . . .\n. . . . .\n. . . . .\n. . . . 2\n0\n";
    let mut h = Hashi::parse_input(text).unwrap().state;
    let m = h.parse_move("B 0 0 0 2").unwrap();
    h.play(m);
    assert_eq!(h.points().into_array(), [0, 0]);
    h.play(m);
    // The second bridge completes both 2s: player 2 scores 4.
    assert_eq!(h.points().into_array(), [-4, 4]);
    assert!(h.parse_move("B 0 0 0 2").is_err());
    // (0,2) is full, so the 4 can only use (4,4).
    let v = h.parse_move("B 0 4 4 4").unwrap();
    h.play(v);
    assert_eq!(h.points().into_array(), [-4, 4]);
    h.play(v);
    assert_eq!(
        h.points().into_array(),
        [-6, 6],
        "the 2 at (4,4) completes for player 2"
    );
    assert!(h.outcome().is_some(), "the 4 cannot be completed: no move left");
    assert_eq!(h.outcome(), Some(Outcome::Loss));
}

#[test]
fn unlabelled_islands_block_and_take_no_bridge() {
    // 2 0 2 in a row: the 0 blocks the outer pair; once labelled it takes bridges.
    let text = "HASHI\nGAME\n1\n9\n0 0\n3\n202\n...\n...\n0\n";
    let mut h = Hashi::parse_input(text).unwrap().state;
    let mut ms = Vec::new();
    h.legal_moves(&mut ms);
    assert_eq!(ms.len(), 2, "{ms:?}");
    assert!(ms.iter().all(|m| matches!(m, HashiMove::Label(..))));
    assert!(h.parse_move("B 0 0 0 2").is_err());
    h.play(h.parse_move("L 0 1 3").unwrap());
    ms.clear();
    h.legal_moves(&mut ms);
    assert_eq!(ms.len(), 2);
    // Labelling scored nothing.
    assert_eq!(h.points().into_array(), [0, 0]);
}

#[test]
fn generated_boards_are_fair_and_reproducible() {
    for seed in 0..300u64 {
        for size in [3usize, 5, 7, 10, 16] {
            let opts = GenOptions {
                size: Some(size),
                seed,
                first: Player::Two,
                ..Default::default()
            };
            let h = Hashi::generate(&opts).unwrap();
            let t = h.topology();
            assert_eq!(t.n, size);
            assert_eq!(h.to_move(), Player::Two);
            assert!(h.outcome().is_none());
            for i in 0..t.islands.len() {
                assert!(
                    t.island_pairs[i].iter().any(|&p| p != NO_PAIR),
                    "seed {seed}: island without a neighbour"
                );
                assert!(h.label(i) <= 4);
            }
            let again = Hashi::generate(&opts).unwrap();
            assert_eq!(again.topology(), t);
            assert_eq!(again.hash(), h.hash());
        }
    }
    // Over many boards, both labelled and unlabelled islands appear.
    let (mut lab, mut unl) = (0, 0);
    for seed in 0..50 {
        let h = Hashi::generate(&GenOptions {
            seed,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(h.topology().n, 7);
        for i in 0..h.topology().islands.len() {
            if h.label(i) == 0 {
                unl += 1
            } else {
                lab += 1
            }
        }
    }
    assert!(unl > 20 && lab > 3 * unl / 2, "{lab} labelled, {unl} unlabelled");
    assert!(Hashi::generate(&GenOptions {
        size: Some(2),
        ..Default::default()
    })
    .is_err());
    assert!(Hashi::generate(&GenOptions {
        size: Some(17),
        ..Default::default()
    })
    .is_err());
}

/// Every input file in `samples/hashi/` parses, and the agent writes a
/// legal move for it (with a small share of the time).
#[test]
fn agent_writes_legal_moves_for_every_sample() {
    use crate::driver::{turn, AgentOptions};
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/hashi");
    let dir = std::env::temp_dir().join(format!("hashi-samples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) if t.trim_start().starts_with("HASHI") => t,
            _ => continue,
        };
        let state = Hashi::parse_input(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .state;
        for strategy in [crate::search::Strategy::Best, crate::search::Strategy::Minimax(2)] {
            let opts = AgentOptions {
                dir: dir.clone(),
                strategy,
                time_scale: 0.02,
            };
            let report = turn::<Hashi>(&text, &opts).unwrap();
            let written = std::fs::read_to_string(dir.join("output.txt")).unwrap();
            assert_eq!(written, report.output);
            assert!(state.parse_move(&written).is_ok(), "{}: {written:?}", path.display());
        }
        checked += 1;
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(checked >= 4, "only {checked} samples found");
}
