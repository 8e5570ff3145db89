use super::*;
use crate::games::fifteen::simple::{all_moves, minimax};
use crate::protocol::{Notation, Player, View};
use crate::search::{alphabeta, Game, SearchHints, Strategy};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn random_position(rng: &mut SmallRng, n: u8, left: u32) -> Fifteen {
    let mut g = Fifteen::new(n, Player::from_index(rng.gen_range(0..2)));
    while g.plies_left() > left {
        let v = all_moves(&g);
        g.play(v[rng.gen_range(0..v.len())]);
    }
    g
}

#[test]
fn solver_agrees_with_plain_minimax_on_4x4_endgames() {
    let mut rng = SmallRng::seed_from_u64(4);
    for (left, count) in [(1, 60), (2, 60), (3, 60), (4, 30), (5, 6), (6, 1)] {
        for _ in 0..count {
            let g = random_position(&mut rng, 4, left);
            let f = alphabeta::solve(&g, 1 << 20);
            assert!(f.exact);
            let mm = minimax(&g);
            assert_eq!(f.score, mm, "{}", g.write_input(crate::protocol::Mode::Single, 1.0));
            // The move it names achieves the value.
            let mut c = g.clone();
            c.play(f.best.unwrap());
            let v = if c.side() == g.side() {
                minimax(&c)
            } else {
                -minimax(&c)
            };
            assert_eq!(v, mm);
        }
    }
}

#[test]
fn direct_solve_and_iterative_deepening_agree() {
    // The direct solve fills the table at full depth only; iterative
    // deepening reuses shallower, symmetry-folded entries on the way.
    let mut rng = SmallRng::seed_from_u64(9);
    for _ in 0..20 {
        let g = random_position(&mut rng, 4, 7);
        let deepened = alphabeta::search(&g, Limits::depth(64), 1 << 20);
        assert!(deepened.exact);
        assert_eq!(alphabeta::solve(&g, 1 << 20).score, deepened.score);
    }
    // A short 6x6 endgame too.
    for _ in 0..5 {
        let g = random_position(&mut rng, 6, 4);
        assert_eq!(alphabeta::solve(&g, 1 << 20).score, minimax(&g));
    }
}

#[test]
fn symmetric_boards_share_table_entries_in_the_right_frame() {
    // A position and its image under each symmetry of the square get one
    // table key, and a move stored from either comes back as the
    // corresponding move of the other.
    use crate::games::fifteen::geo::geo;
    let mut rng = SmallRng::seed_from_u64(11);
    for _ in 0..30 {
        let mut g = Fifteen::new(6, Player::One);
        let mut played = Vec::new();
        while g.plies_left() > 14 {
            let v = all_moves(&g);
            let m = v[rng.gen_range(0..v.len())];
            played.push(m);
            g.play(m);
        }
        for s in 0..8 {
            let map = |m: Move| Move {
                cell: geo(6).sym[s][m.cell as usize],
                card: m.card,
            };
            let mut image = Fifteen::new(6, Player::One);
            for &m in &played {
                image.play(map(m));
            }
            let (key, frame) = g.tt_key();
            let (image_key, image_frame) = image.tt_key();
            assert_eq!(key, image_key, "symmetry {s}");
            for m in all_moves(&g) {
                let stored = g.move_to_frame(m, frame);
                assert_eq!(image.move_to_frame(map(m), image_frame), stored, "symmetry {s}, {m:?}");
                assert_eq!(image.move_from_frame(stored, image_frame), map(m));
            }
        }
    }
}

#[test]
fn iterative_deepening_ends_exact_and_respects_the_clock() {
    let mut rng = SmallRng::seed_from_u64(3);
    let g = random_position(&mut rng, 4, 5);
    let f = alphabeta::search(&g, Limits::time(f64::INFINITY, f64::INFINITY), 1 << 20);
    assert!(f.exact);
    assert_eq!(f.score, minimax(&g));
    let t = crate::clock::CpuTimer::start();
    let start = Fifteen::new(6, Player::One);
    let f = alphabeta::search(&start, Limits::time(0.05, 0.1), 1 << 20);
    assert!(t.elapsed() < 0.5, "{}", t.elapsed());
    assert!(f.best.is_some() && !f.exact);
}

/// The default agent's move, through the agent's own path.
fn best_move(g: &Fifteen, limits: &Limits) -> crate::play::Choice<Move> {
    let opts = crate::play::ChooseOptions::default();
    crate::play::choose(g, Strategy::Best, limits, &opts, &mut |_| {}).expect("a move")
}

#[test]
fn takes_a_free_capture() {
    // Player 1 to move can remove the opponent's 13 by putting a 5 next to it.
    let text = "FIFTEEN\nSINGLE\n1\n1.0\n6\n. . . . . .\n. . . . . .\n. . 2:13 . . .\n. . . . . .\n. . . . . .\n. . . . . .\n1: 2 2 3 3 5 5 8 8 8 13 13\n2: 2 2 3 3 5 5 8 8 8 13\n";
    let g = Fifteen::parse_input(text).unwrap().state;
    let m = best_move(&g, &Limits::time(0.2, 0.4)).best;
    let mut c = g.clone();
    c.play(m);
    assert_eq!(c.score(Player::Two), 0, "played {m:?}\n{}", c.render());
}

#[test]
fn every_move_of_a_4x4_game_at_30_seconds_a_move_is_the_solvers() {
    // The limits the agent plans for a SINGLE move with 30 s on the clock,
    // and the solver's table the agent gives it.
    let limits = crate::timing::plan(crate::protocol::Mode::Single, 30.0, 0.0, 1.0);
    let mut g = Fifteen::new(4, Player::One);
    let mut moves = 0;
    while !g.is_over() {
        let mut solver = Solver::new(solver_bytes(limits.hard));
        let (m, source) = solved_move(&mut solver, &g, limits.soft, &mut |_| {}).expect("a move");
        assert_eq!(source, Source::Solved, "move {moves} of the game");
        if moves == 4 {
            // The agent's own path plays the solver's move, searching nothing.
            let c = best_move(&g, &limits);
            assert_eq!((c.best, c.table_bytes), (m, 0));
        }
        g.play(m);
        moves += 1;
    }
    assert_eq!(moves, 10);
    // Perfect play from the start ends with the first player 4 points down.
    assert_eq!(g.score(Player::Two) as i32 - g.score(Player::One) as i32, 4);
}
