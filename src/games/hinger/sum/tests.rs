//! Tests of `games/hinger/sum.rs`.

use super::*;
use crate::games::hinger::solver::Solver;
use rand::{rngs::SmallRng, Rng, SeedableRng};

/// A random grid of `rows` x `cols`: each cell occupied with chance
/// `density`, with 1 to `maxp` pieces (also used by the board's tests).
pub(in crate::games::hinger) fn random_grid(rng: &mut SmallRng, rows: usize, cols: usize, density: f64, maxp: u32) -> Vec<Vec<u32>> {
    (0..rows)
        .map(|_| {
            (0..cols)
                .map(|_| {
                    if rng.gen_bool(density) {
                        rng.gen_range(1..=maxp)
                    } else {
                        0
                    }
                })
                .collect()
        })
        .collect()
}

/// The value a move really achieves, by the plain solver.
fn achieved(b: &Board, mv: usize, plain: &mut Solver) -> Value {
    if b.is_hinger(mv) {
        return Value::Win;
    }
    let mut c = b.clone();
    c.remove(mv);
    plain.solve(&c).expect("small board").value.negate()
}

#[test]
fn agrees_with_the_plain_solver_on_random_small_boards() {
    // 2,400 boards without a hinger (a hinger is an immediate win that
    // never reaches the search) from 1x2 to 4x4: binary at several
    // densities, and with piles up to 2 and 3. Fresh memos every 100
    // boards, so both shared and cold tables are exercised.
    let mut rng = SmallRng::seed_from_u64(15);
    let mut plain = Solver::new();
    let mut sum = SumSolver::new();
    let mut by_value = [0u32; 3];
    let (mut piled, mut multi) = (0, 0);
    let mut t = 0;
    while t < 2400 {
        let rows = rng.gen_range(1..=4);
        let cols = rng.gen_range(2..=4);
        let maxp = [1, 1, 2, 3][t % 4];
        let density = rng.gen_range(0.3..0.95);
        let g = random_grid(&mut rng, rows, cols, density, maxp);
        let b = Board::from_grid(&g).unwrap();
        // The plain solver is exponential in the counters.
        if b.has_hinger() || b.active() == 0 || b.counters() > 16 || (maxp > 1 && b.counters() > 14) {
            continue;
        }
        if t % 100 == 0 {
            plain = Solver::new();
            sum = SumSolver::new();
        }
        t += 1;
        piled += usize::from(!b.is_binary());
        multi += usize::from(b.regions() >= 2);
        let want = plain.solve(&b).unwrap();
        let got = sum.solve(&b).unwrap();
        assert_eq!(got.value, want.value, "{b:?}");
        by_value[(got.value as i8 + 1) as usize] += 1;
        let mv = got.best.expect("a non-empty board has a move");
        assert_eq!(achieved(&b, mv, &mut plain), got.value, "{b:?} move {:?}", b.coords(mv));
    }
    // The sample must hold every outcome, piles and several regions, or
    // it proves little.
    let [loss, draw, win] = by_value;
    assert!(
        loss >= 30 && draw >= 300 && win >= 60,
        "outcomes (loss, draw, win): {by_value:?}"
    );
    assert!(
        piled >= 300 && multi >= 100,
        "{piled} boards with piles, {multi} with several regions"
    );
}

#[test]
fn agrees_on_every_binary_3x3_and_multi_region_4x5_boards() {
    let mut plain = Solver::new();
    let mut sum = SumSolver::new();
    for code in 0u32..(1 << 9) {
        let g: Vec<Vec<u32>> = (0..3)
            .map(|r| (0..3).map(|c| code >> (r * 3 + c) & 1).collect())
            .collect();
        let b = Board::from_grid(&g).unwrap();
        assert_eq!(sum.solve(&b).unwrap().value, plain.solve(&b).unwrap().value, "{b:?}");
    }
    // Several regions with large and small parts: exercises the heap.
    let mut rng = SmallRng::seed_from_u64(3);
    let mut multi = 0;
    for _ in 0..300 {
        let g = random_grid(&mut rng, 4, 5, 0.55, 1);
        let b = Board::from_grid(&g).unwrap();
        if b.has_hinger() || b.counters() > 14 {
            continue;
        }
        multi += usize::from(b.regions() >= 2);
        assert_eq!(sum.solve(&b).unwrap().value, plain.solve(&b).unwrap().value, "{b:?}");
    }
    assert!(multi >= 20, "only {multi} multi-region boards");
}

#[test]
fn large_regions_search_past_the_heap() {
    // With SMALL counters folded, a region above SMALL goes through `np`
    // proper: a 3x5 block (15 counters) next to a small region.
    let mut g = vec![vec![0u32; 8]; 4];
    for row in g.iter_mut().take(3) {
        for cell in row.iter_mut().take(5) {
            *cell = 1;
        }
    }
    g[0][7] = 1;
    g[1][7] = 1;
    g[3][7] = 2;
    let b = Board::from_grid(&g).unwrap();
    assert!(b.counters() > SMALL + 2);
    let want = Solver::new().solve(&b).unwrap();
    let got = SumSolver::new().solve(&b).unwrap();
    assert_eq!(got.value, want.value);
}

#[test]
fn canonical_keys_fold_symmetries_and_translation() {
    // An L tromino in four orientations and two places: one key.
    let shapes = [
        vec![vec![1, 0, 0], vec![1, 1, 0], vec![0, 0, 0]],
        vec![vec![0, 1, 1], vec![0, 0, 1], vec![0, 0, 0]],
        vec![vec![0, 0, 0], vec![0, 1, 0], vec![1, 1, 0]],
        vec![vec![0, 0, 0], vec![0, 1, 1], vec![0, 1, 0]],
    ];
    let keys: Vec<RegionKey> = shapes
        .iter()
        .map(|g| {
            let b = Board::from_grid(g).unwrap();
            RegionKey::of(&b, b.active())
        })
        .collect();
    assert!(keys.iter().all(|k| *k == keys[0]), "{keys:?}");
    // Piles are part of the key.
    let a = Board::from_grid(&[vec![2, 1]]).unwrap();
    let b = Board::from_grid(&[vec![1, 2]]).unwrap();
    let c = Board::from_grid(&[vec![1, 3]]).unwrap();
    assert_eq!(RegionKey::of(&a, a.active()), RegionKey::of(&b, b.active()));
    assert_ne!(RegionKey::of(&a, a.active()), RegionKey::of(&c, c.active()));
}

#[test]
fn counter_cap_fits_a_4mb_stack() {
    // At the cap: two adjacent piles never make a hinger, so play runs
    // to the last counter, one frame per counter.
    let at_cap = Board::from_grid(&[vec![MAX_COUNTERS - 1, 1]]).unwrap();
    let solved = std::thread::Builder::new()
        .stack_size(4 << 20)
        .spawn(move || SumSolver::new().solve(&at_cap).map(|s| s.value))
        .unwrap()
        .join()
        .expect("the solver fits a 4 MB stack at its counter cap");
    assert_eq!(solved, Some(Value::Draw));
    let big = Board::from_grid(&[vec![MAX_COUNTERS + 1]]).unwrap();
    assert!(SumSolver::new().solve(&big).is_none());
    // A time limit of zero gives up on a big board.
    let b = Board::from_grid(&vec![vec![1; 8]; 8]).unwrap();
    assert!(SumSolver::new().solve_within(&b, 0.0).is_none());
}
