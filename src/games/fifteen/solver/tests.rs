use super::*;
use crate::games::fifteen::simple::{all_moves, minimax};
use crate::protocol::{Mode, Notation};
use rand::SeedableRng;

fn text(g: &Fifteen) -> String {
    g.write_input(Mode::Single, 1.0)
}

#[test]
fn agrees_with_plain_minimax_on_4x4_positions_with_4_to_6_cards_left() {
    let mut rng = SmallRng::seed_from_u64(15);
    let mut solver = Solver::new(1 << 20);
    let mut checked = 0;
    for (left, count) in [(4, 130), (5, 60), (6, 10)] {
        for _ in 0..count {
            let g = random_position(&mut rng, 4, left);
            let exact = minimax(&g);
            let r = solver.margin(&g, f64::INFINITY).unwrap();
            assert_eq!(r.value, exact, "margin of\n{}", text(&g));
            assert_eq!(r.wdl, Wdl::of(exact));
            // The named move achieves the value.
            let mut c = g.clone();
            c.play(r.best.unwrap());
            let v = if c.side() == g.side() {
                minimax(&c)
            } else {
                -minimax(&c)
            };
            assert_eq!(v, exact, "move {:?} of\n{}", r.best, text(&g));
            // A win/draw/loss solve on a fresh table gives the same result,
            // and a move that secures it unless the position is lost.
            let w = Solver::new(1 << 16).wdl(&g, f64::INFINITY).unwrap();
            assert_eq!(w.wdl, Wdl::of(exact), "result of\n{}", text(&g));
            if w.wdl != Wdl::Loss {
                let mut c = g.clone();
                c.play(w.best.unwrap());
                let v = if c.side() == g.side() {
                    minimax(&c)
                } else {
                    -minimax(&c)
                };
                assert_eq!(Wdl::of(v), w.wdl, "move {:?} of\n{}", w.best, text(&g));
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 200);
}

#[test]
fn last_two_cards_agree_with_plain_minimax() {
    // The in-place valuation of the last two placements, on both sizes.
    let mut rng = SmallRng::seed_from_u64(2);
    for n in [4, 6] {
        for _ in 0..300 {
            let g = random_position(&mut rng, n, 2);
            let exact = minimax(&g);
            assert_eq!(last_two(&g, -INF, INF), Some(exact), "\n{}", text(&g));
            // Fail-soft on null windows: a lower bound at least beta when the
            // value is, else an upper bound at most alpha.
            for beta in [exact - 4, exact, exact + 1, exact + 16] {
                let v = last_two(&g, beta - 1, beta).unwrap();
                if exact >= beta {
                    assert!(beta <= v && v <= exact, "{v} for {exact} at {beta}\n{}", text(&g));
                } else {
                    assert!(exact <= v && v < beta, "{v} for {exact} at {beta}\n{}", text(&g));
                }
            }
        }
    }
}

#[test]
fn static_bounds_hold() {
    let mut rng = SmallRng::seed_from_u64(5);
    for left in 2..=5 {
        for _ in 0..40 {
            let g = random_position(&mut rng, 4, left);
            let exact = minimax(&g);
            let (lo, hi) = static_bounds(&g);
            assert!(lo <= exact && exact <= hi, "{lo} <= {exact} <= {hi}\n{}", text(&g));
        }
    }
}

#[test]
fn short_6x6_endgames_agree_with_plain_minimax() {
    let mut rng = SmallRng::seed_from_u64(6);
    let mut solver = Solver::new(1 << 20);
    for _ in 0..10 {
        let g = random_position(&mut rng, 6, 4);
        assert_eq!(
            solver.margin(&g, f64::INFINITY).unwrap().value,
            minimax(&g),
            "\n{}",
            text(&g)
        );
    }
}

#[test]
fn symmetric_images_share_the_canonical_state_and_stored_moves_map_back() {
    let mut rng = SmallRng::seed_from_u64(8);
    for n in [4u8, 6] {
        let geo = geo(n);
        for _ in 0..20 {
            let mut g = Fifteen::new(n, Player::One);
            let mut played = Vec::new();
            let stop = if n == 4 { 5 } else { 14 };
            while g.plies_left() > stop {
                let v = all_moves(&g);
                let m = v[rng.gen_range(0..v.len())];
                played.push(m);
                g.play(m);
            }
            let mut solver = Solver::new(1 << 16);
            let mv = all_moves(&g)[0];
            solver.store(&g, -INF, INF, 16, mv);
            for s in 0..8 {
                let map = |m: Move| Move {
                    cell: geo.sym[s][m.cell as usize],
                    card: m.card,
                };
                let mut image = Fifteen::new(n, Player::One);
                for &m in &played {
                    image.play(map(m));
                }
                assert_eq!(image.canonical().0, g.canonical().0, "symmetry {s}");
                let (e, frame) = solver.probe(&image).expect("the image finds the entry");
                assert_eq!((e.lo, e.hi), (16, 16));
                // The stored move comes back as the image of the move stored
                // (or, on a symmetric board, as an equivalent one).
                let back = stored_move(&image, &e, frame).unwrap();
                let mut a = image.clone();
                a.play(back);
                let mut b = image.clone();
                b.play(map(mv));
                assert_eq!(a.canonical().0, b.canonical().0, "symmetry {s}");
                if n == 4 && s == 0 {
                    assert_eq!(back, mv);
                }
            }
        }
    }
}

#[test]
fn the_4x4_start_is_a_loss_by_4_for_the_first_player() {
    // About 0.2 s for win/draw/loss and 1.3 s for the margin (release).
    let g = Fifteen::new(4, Player::One);
    let r = Solver::new(64 << 20).wdl(&g, f64::INFINITY).unwrap();
    assert_eq!(r.wdl, Wdl::Loss);
    assert!(r.value < 0);
    let r = Solver::new(64 << 20).margin(&g, f64::INFINITY).unwrap();
    assert_eq!(r.wdl, Wdl::Loss);
    assert_eq!(margin_points(r.value), -4);
}

#[test]
fn gives_up_when_the_budget_runs_out() {
    let g = Fifteen::new(4, Player::One);
    let t = CpuTimer::start();
    assert!(Solver::new(1 << 20).margin(&g, 0.05).is_none());
    // Generous for a loaded machine: the check runs every 4096 positions.
    assert!(t.elapsed() < 1.0, "{}", t.elapsed());
}

#[test]
fn mtdf_tests_whole_margins_while_a_bound_is_open_and_stay_inside_the_bounds() {
    let tb = eval::TIE_BREAK;
    // A loss: upper bound only. -12 is a margin of -1 won on the tie-break;
    // the next test asks for a margin of at least -1 outright.
    assert_eq!(next_beta(-INF, -12), -POINT - tb);
    // -4 is a margin of 0 lost on the tie-break: "a margin of at least 0?".
    assert_eq!(next_beta(-INF, -4), -tb);
    assert_eq!(next_beta(-INF, -POINT - tb), -POINT - tb);
    // A win: lower bound only; the next test is the next whole margin.
    assert_eq!(next_beta(4, INF), POINT - tb);
    assert_eq!(next_beta(POINT - tb, INF), 2 * POINT - tb);
    // Both bounds known: is the upper bound exact?
    assert_eq!(next_beta(-68, -60), -60);
    for lo in (-200..200).step_by(4) {
        for hi in (lo + 4..=204).step_by(4) {
            for (l, h) in [(lo, hi), (-INF, hi), (lo, INF)] {
                let b = next_beta(l, h);
                assert!(l < b && b <= h, "{b} outside ({l}, {h}]");
            }
        }
    }
}
