//! Tests of `search/alphabeta.rs`.

use super::ordering::*;
use super::*;
use crate::games::testnim::TestNim as Nim;
use crate::protocol::Player;
use crate::search::minimax;
use crate::search::{Evaluator, Game, SearchHints};

#[test]
fn the_reduction_table_is_the_formula_entry_by_entry() {
    let table = lmr_table();
    assert!(table.len() > MAX_PLY * LMR_MOVES);
    for (k, &got) in table.iter().enumerate().take(MAX_PLY * LMR_MOVES + 1) {
        let (d, i) = ((k / LMR_MOVES) as f64, (k % LMR_MOVES) as f64);
        let want = if d == 0.0 || i == 0.0 {
            0
        } else {
            (0.5 + d.ln() * i.ln() / 2.5).clamp(0.0, 15.0) as u8
        };
        assert_eq!(got, want, "depth {d} index {i}");
    }
}

#[test]
fn finds_winning_nim_move() {
    // Take-1-2-or-3 Nim: the mover wins iff pile % 4 != 0, by leaving a multiple of 4.
    for pile in 1..=21u32 {
        let r = search(&Nim::new(pile), Limits::depth(30), 1 << 16);
        if pile % 4 == 0 {
            assert!(r.score <= -WIN_THRESHOLD, "pile {pile}: {r:?}");
        } else {
            assert!(r.score >= WIN_THRESHOLD, "pile {pile}: {r:?}");
            assert_eq!((pile - r.best.unwrap()) % 4, 0, "pile {pile}");
        }
    }
}

#[test]
fn agrees_with_plain_minimax_on_random_trees() {
    use crate::search::testgames::RandomTree;
    for seed in 0..200u64 {
        let g = RandomTree::new(seed);
        for d in 1..=5 {
            let ab = search(&g, Limits::depth(d), 1 << 16);
            let mm = minimax::minimax_value(&g, d, &mut 0);
            assert_eq!(ab.score, mm, "seed {seed} depth {d}");
        }
    }
}

#[test]
fn iteration_costs_are_predicted_by_parity() {
    let predict = |ts: &[f64]| {
        let mut t = IterationTimes::default();
        ts.iter().for_each(|&x| t.push(x));
        t.predict_next()
    };
    // Halma's midgame_1 (depths 4, 5, 6 then 7 at ~0.3 s): the next odd
    // depth is predicted from the odd one before, not 20x the even one.
    let p = predict(&[0.05, 0.02, 0.43]);
    assert!((0.43..1.0).contains(&p), "{p}");
    // After a cheap odd depth the dear even one is not predicted cheap.
    let p = predict(&[0.004, 0.05, 0.02]);
    assert!(p >= 0.2, "{p}");
    // Even growth (x4 a ply) is predicted as before.
    let p = predict(&[1.0, 4.0, 16.0]);
    assert!((p - 64.0).abs() < 1e-9, "{p}");
    assert!((predict(&[1.0, 3.0]) - 9.0).abs() < 1e-9);
}

#[test]
fn stops_on_hard_limit() {
    use crate::search::testgames::RandomTree;
    let g = RandomTree::new(7);
    let t = CpuTimer::start();
    let r = Searcher::new(1 << 16).search(&g, Limits::time(0.02, 0.05), |_| {});
    assert!(t.elapsed() < 0.2, "took {}", t.elapsed());
    assert!(r.best.is_some());
}

/// A random tree of fixed length in which some moves keep the mover (a
/// skipped turn), valued exactly at its end and with "noisy" moves for
/// quiescence: every hook the core offers, against a plain recursion.
#[derive(Clone, Copy, Debug)]
struct SkipTree {
    id: u64,
    ply: u32,
    side: u8,
}

const SKIP_LEN: u32 = 7;

use crate::search::mix::splitmix64 as mix;

impl SkipTree {
    fn moves(&self) -> u8 {
        if self.ply < SKIP_LEN {
            1 + (mix(self.id ^ 0xabc) % 4) as u8
        } else {
            0
        }
    }

    /// Plain negamax to `depth` with the same leaf rules as the core:
    /// exact values first, depth capped by the game length, then
    /// quiescence (stand pat or a noisy move) for `QUIESCENCE_PLIES`.
    fn reference(&self, depth: u32) -> i32 {
        self.reference_with(depth, true)
    }

    /// [`SkipTree::reference`], with or without the exact values.
    fn reference_with(&self, depth: u32, exact: bool) -> i32 {
        if let Some(v) = SkipEval.exact_value(self, &mut ()).filter(|_| exact) {
            return v;
        }
        if depth.min(SKIP_LEN - self.ply) == 0 {
            return self.quiescence(SkipEval::QUIESCENCE_PLIES, exact);
        }
        (0..self.moves())
            .map(|m| self.signed(m, |c| c.reference_with(depth - 1, exact)))
            .max()
            .unwrap()
    }

    fn quiescence(&self, left: u32, exact: bool) -> i32 {
        if let Some(v) = SkipEval.exact_value(self, &mut ()).filter(|_| exact) {
            return v;
        }
        let stand = SkipEval.evaluate(self);
        if left == 0 {
            return stand;
        }
        let mut noisy = Vec::new();
        SkipEval.noisy_moves(self, &mut noisy);
        noisy
            .into_iter()
            .map(|m| self.signed(m, |c| c.quiescence(left - 1, exact)))
            .fold(stand, i32::max)
    }

    fn signed(&self, mv: u8, value: impl Fn(&SkipTree) -> i32) -> i32 {
        let mut c = *self;
        c.play(mv);
        let v = value(&c);
        if c.side != self.side {
            -v
        } else {
            v
        }
    }
}

impl Game for SkipTree {
    type Move = u8;

    fn legal_moves(&self, out: &mut Vec<u8>) {
        out.extend(0..self.moves());
    }

    fn play(&mut self, mv: u8) {
        self.id = mix(self.id.wrapping_mul(31).wrapping_add(mv as u64 + 1));
        self.ply += 1;
        // One move in three keeps the mover.
        if !mix(self.id ^ 0x5).is_multiple_of(3) {
            self.side ^= 1;
        }
    }

    fn outcome(&self) -> Option<crate::search::Outcome> {
        None
    }

    fn hash(&self) -> u64 {
        self.id
    }

    fn mover_changes(&self, before: &Self) -> bool {
        self.side != before.side
    }

    fn plies_left(&self) -> Option<u32> {
        Some(SKIP_LEN - self.ply)
    }
}

/// The skip tree's evaluation: random leaves, exact at the end, the
/// even moves noisy.
#[derive(Default)]
struct SkipEval;

impl Evaluator<SkipTree> for SkipEval {
    type Context = ();

    const QUIESCENCE_PLIES: u32 = 2;

    fn evaluate(&self, pos: &SkipTree) -> i32 {
        (mix(pos.id ^ 0x1234) % 201) as i32 - 100
    }

    fn exact_value(&self, pos: &SkipTree, _ctx: &mut ()) -> Option<i32> {
        (pos.ply == SKIP_LEN).then(|| {
            let v = (mix(pos.id ^ 0x99) % 201) as i32 - 100;
            if pos.side == 0 {
                v
            } else {
                -v
            }
        })
    }

    fn noisy_moves(&self, pos: &SkipTree, out: &mut Vec<u8>) {
        out.extend((0..pos.moves()).filter(|m| m % 2 == 0));
    }
}

impl SearchHints for SkipTree {}

impl Searchable for SkipTree {
    type Eval = SkipEval;
    type Reference = SkipEval;
}

#[test]
fn skipped_turns_exact_leaves_and_quiescence_match_plain_negamax() {
    let mut exact_roots = 0;
    for seed in 0..300u64 {
        let root = SkipTree {
            id: mix(seed),
            ply: 0,
            side: (seed % 2) as u8,
        };
        for d in 1..=SKIP_LEN {
            let r = search(&root, Limits::depth(d), 1 << 16);
            assert_eq!(r.score, root.reference(d), "seed {seed} depth {d}");
            assert_eq!(r.exact, d == SKIP_LEN, "seed {seed} depth {d}");
        }
        let solved = Searcher::new(1 << 16).solve(&root);
        assert!(solved.exact && solved.depth == SKIP_LEN);
        assert_eq!(solved.score, root.reference(SKIP_LEN), "seed {seed}");
        // Deepening past the end stops there, exact.
        let deep = search(&root, Limits::depth(40), 1 << 16);
        assert_eq!((deep.depth, deep.score), (SKIP_LEN, solved.score));
        exact_roots += deep.exact as u32;
    }
    assert_eq!(exact_roots, 300);
}

#[test]
fn exact_values_turned_off_leave_the_evaluation_alone() {
    let mut differs = 0;
    for seed in 0..100u64 {
        let root = SkipTree {
            id: mix(seed),
            ply: 0,
            side: (seed % 2) as u8,
        };
        let mut s = Searcher::new(1 << 16);
        s.set_exact_values(false);
        let off = s.search(&root, Limits::depth(SKIP_LEN), |_| {});
        assert_eq!(off.score, root.reference_with(SKIP_LEN, false), "seed {seed}");
        differs += u32::from(off.score != root.reference(SKIP_LEN));
    }
    // The switch matters: most trees' values change without their leaves.
    assert!(differs > 50, "{differs}");
}

#[test]
fn avoid_set_scores_seen_positions() {
    // From pile 5 the only winning move takes 1 (leaving 4). If "pile 4,
    // opponent to move" was already seen and scores 100 for the side to
    // move there, the win is gone: the best is that move at -100.
    let mut s = Searcher::<Nim>::new(1 << 12);
    let mut seen = FxHashSet::default();
    seen.insert(
        Nim {
            pile: 4,
            side: Player::Two,
        }
        .hash(),
    );
    s.set_avoid(seen, 100);
    let r = s.search(&Nim::new(5), Limits::depth(8), |_| {});
    assert_eq!((r.best, r.score), (Some(1), -100));
    let plain = search(&Nim::new(5), Limits::depth(8), 1 << 12);
    assert!(plain.score >= WIN_THRESHOLD);
}
