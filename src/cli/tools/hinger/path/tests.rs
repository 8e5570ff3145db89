//! Tests of the safe-path searches.
use super::*;
use agent::games::hinger::Hinger;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A random pair: START a hinger-free board, END reached by a random
/// safe walk (a path exists) or by removing random counters (maybe not).
pub(crate) fn random_pair(rng: &mut SmallRng, rows: usize, cols: usize, maxp: u32) -> (Board, Board) {
    loop {
        let mut start = Hinger::random_board(rows, cols, 0.7, rng).unwrap();
        if maxp > 1 {
            for i in iter_bits(start.active()) {
                start.set_index(i, rng.gen_range(1..=maxp));
            }
        }
        if start.has_hinger() || start.active() == 0 {
            continue;
        }
        let total = start.counters();
        let k = rng.gen_range(1..=total.min(9));
        let mut end = start.clone();
        if rng.gen_bool(0.5) {
            for _ in 0..k {
                let safe = end.safe_moves();
                if safe == 0 {
                    break;
                }
                let n = rng.gen_range(0..safe.count_ones());
                let i = iter_bits(safe).nth(n as usize).unwrap();
                end.remove(i);
            }
        } else {
            for _ in 0..k {
                let n = rng.gen_range(0..end.active().count_ones());
                let i = iter_bits(end.active()).nth(n as usize).unwrap();
                end.remove(i);
            }
        }
        return (start, end);
    }
}

/// Lowest cost by exhaustive enumeration of every safe path (tiny cases).
fn brute_min_cost(b: &Board, end: &Board) -> Option<u32> {
    if b.has_hinger() {
        return None;
    }
    if b == end {
        return Some(0);
    }
    let mut best: Option<u32> = None;
    for i in iter_bits(b.active()) {
        if b.pile(i) > end.pile(i) {
            let mut c = b.clone();
            c.remove(i);
            if let Some(rest) = brute_min_cost(&c, end) {
                let total = rest + b.move_cost(i);
                best = Some(best.map_or(total, |x: u32| x.min(total)));
            }
        }
    }
    best
}

#[test]
fn all_algorithms_agree_on_a_suite() {
    let mut rng = SmallRng::seed_from_u64(21);
    let mut found = 0;
    let mut none = 0;
    for t in 0..300 {
        let (rows, cols) = [(3, 3), (3, 4), (4, 4), (4, 5), (5, 5)][t % 5];
        let (start, end) = random_pair(&mut rng, rows, cols, 1);
        let reports: Vec<(Algo, PathReport)> = Algo::ALL
            .iter()
            .map(|&a| (a, find_path(&start, &end, a, PathLimits::default()).unwrap()))
            .collect();
        let min = match &reports[4].1.answer {
            Answer::Path(p) => Some(check_path(&start, &end, p).unwrap()),
            _ => None,
        };
        if min.is_some() {
            found += 1;
        } else {
            none += 1;
        }
        if t < 60 {
            assert_eq!(min, brute_min_cost(&start, &end), "{start:?}{end:?}");
        }
        let d = start.counters() - end.counters();
        for (a, r) in &reports {
            match &r.answer {
                Answer::Path(p) => {
                    let cost = check_path(&start, &end, p).unwrap_or_else(|e| panic!("{a:?}: {e}"));
                    assert!(cost >= min.unwrap(), "{a:?} beats min-cost");
                    assert_eq!(p.len() as u32, d);
                }
                Answer::NoPath(_) => assert!(min.is_none(), "{a:?} says none"),
                Answer::GaveUp(w) => panic!("{a:?} gave up: {w}"),
            }
        }
    }
    assert!(
        found > 50 && none > 50,
        "suite too one-sided: {found} found, {none} none"
    );
}

#[test]
fn min_cost_is_optimal_on_non_binary_states() {
    let mut rng = SmallRng::seed_from_u64(8);
    for _ in 0..60 {
        let (start, end) = random_pair(&mut rng, 3, 3, 3);
        let r = find_path(&start, &end, Algo::MinCost, PathLimits::default()).unwrap();
        let got = match r.answer {
            Answer::Path(p) => Some(check_path(&start, &end, &p).unwrap()),
            Answer::NoPath(_) => None,
            Answer::GaveUp(w) => panic!("{w}"),
        };
        assert_eq!(got, brute_min_cost(&start, &end), "{start:?}{end:?}");
    }
}

#[test]
fn deep_paths_do_not_grow_the_call_stack() {
    // 3,000 moves down one pile: IDDFS once recursed a level per move
    // (it overflowed small stacks); on a 256 KB thread every algorithm
    // must find the one path.
    let start = Board::from_grid(&[vec![3000, 2]]).unwrap();
    let end = Board::from_grid(&[vec![0, 2]]).unwrap();
    let lens = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            Algo::ALL.map(
                |a| match find_path(&start, &end, a, PathLimits::default()).unwrap().answer {
                    Answer::Path(p) => p.len(),
                    other => panic!("{a:?}: {other:?}"),
                },
            )
        })
        .unwrap()
        .join()
        .expect("the path searches fit a 256 KB stack");
    assert_eq!(lens, [3000; 5]);
}

#[test]
fn cheap_proofs_and_errors() {
    let s = Board::from_grid(&[vec![1, 1], vec![1, 1]]).unwrap();
    let e = Board::from_grid(&[vec![1, 1], vec![1, 2]]).unwrap();
    assert!(matches!(precheck(&s, &e), Ok(Some(r)) if r.contains("(1, 1)")));
    let h = Board::from_grid(&[vec![1, 1, 1]]).unwrap();
    let z = Board::from_grid(&[vec![0, 0, 0]]).unwrap();
    assert!(matches!(precheck(&h, &z), Ok(Some(r)) if r.contains("START contains a hinger")));
    assert!(precheck(&s, &z).is_err());
    // Two regions cannot come from one without a hinger move.
    let one = Board::from_grid(&[vec![1, 1, 1], vec![1, 1, 1]]).unwrap();
    let two = Board::from_grid(&[vec![1, 0, 1], vec![1, 0, 1]]).unwrap();
    assert!(matches!(precheck(&one, &two), Ok(Some(r)) if r.contains("regions")));
    // START == END: the empty path.
    for a in Algo::ALL {
        let r = find_path(&s, &s, a, PathLimits::default()).unwrap();
        assert_eq!(r.answer, Answer::Path(vec![]), "{a:?}");
    }
    // A zero time cap gives up on a big instance.
    let big = Board::from_grid(&vec![vec![1; 9]; 9]).unwrap();
    let mut small = big.clone();
    for c in 0..9 {
        small.set(8, c, 0).unwrap();
        small.set(7, c, 0).unwrap();
    }
    let r = find_path(
        &big,
        &small,
        Algo::Iddfs,
        PathLimits {
            seconds: 0.0,
            max_states: 10,
        },
    )
    .unwrap();
    assert!(matches!(r.answer, Answer::GaveUp(_)));
}
