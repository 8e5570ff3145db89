//! One conformance test that every game runs, in the spirit of OpenSpiel's
//! random-simulation tests: seeded random playouts on several board sizes,
//! through the same [`FileGame`] surface the driver and the referee use,
//! checking at every position that
//! - `parse_input(write_input(state))` gives back the same position (text,
//!   hash, side to move, legal moves, result);
//! - every legal move formats to a text that the referee-side judge
//!   (`parse_move`) accepts as that very move, and `play` does not panic;
//! - the search's view (`outcome`) and the referee's (`result`) agree,
//!   finished positions have no moves and positions without moves are
//!   finished;
//! - two move orders that reach the same position give the same hash (and
//!   different positions different hashes).
//!
//! The games come from the registry ([`GameKind::ALL`] through `with_game!`),
//! so a game added there is tested here; its board sizes are chosen in
//! [`boards`], whose `match` has no catch-all arm: a new game does not
//! compile here until it says how to set it up.

use agent::GameKind;
use agent::Notation;
use agent::TestNim;
use agent::{FileGame, GenOptions, Mode, Player};
use agent::{Game, Outcome, SearchHints};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How one game is exercised.
struct Plan {
    /// Start positions to generate (the seed is set per playout).
    boards: Vec<GenOptions>,
    /// Playouts per board.
    playouts: u64,
    /// Ply cap per playout (random Halma never ends on its own).
    max_plies: usize,
    /// Probability of playing the game's preferred move (`order_hint`)
    /// instead of a uniformly random one, so that playouts also reach the
    /// ends of games that random play rarely finishes.
    greedy: f64,
}

fn sized(rows: usize, cols: usize) -> GenOptions {
    GenOptions {
        rows: Some(rows),
        cols: Some(cols),
        ..GenOptions::default()
    }
}

fn square(size: usize) -> GenOptions {
    GenOptions {
        size: Some(size),
        ..GenOptions::default()
    }
}

/// The boards each registered game is tested on.
fn boards(kind: GameKind) -> Plan {
    match kind {
        GameKind::Halma => Plan {
            boards: vec![GenOptions::default()],
            playouts: 6,
            max_plies: 220,
            greedy: 0.8,
        },
        GameKind::Hinger => Plan {
            boards: vec![
                sized(3, 3),
                sized(4, 5),
                GenOptions {
                    density: Some(0.8),
                    ..sized(6, 6)
                },
            ],
            playouts: 12,
            max_plies: 400,
            greedy: 0.0,
        },
        GameKind::ConnectSquare => Plan {
            boards: vec![sized(2, 2), sized(4, 5), sized(6, 7), sized(8, 14)],
            playouts: 10,
            max_plies: 400,
            greedy: 0.0,
        },
        GameKind::Fifteen => Plan {
            boards: vec![square(4), square(6)],
            playouts: 12,
            max_plies: 100,
            greedy: 0.3,
        },
        GameKind::Hashi => Plan {
            boards: vec![square(3), square(5), square(7), square(10)],
            playouts: 10,
            max_plies: 400,
            greedy: 0.3,
        },
    }
}

/// What a run covered, so that a run that tests nothing fails.
#[derive(Debug, Default)]
struct Coverage {
    positions: usize,
    moves: usize,
    finished: usize,
    transpositions: usize,
}

fn moves_of<G: Game>(g: &G) -> Vec<G::Move> {
    let mut v = Vec::new();
    g.legal_moves(&mut v);
    v
}

/// Plays `mv`, failing with the position and the move instead of a bare panic.
fn play<G: FileGame>(g: &G, mv: G::Move, ctx: &str) -> G {
    let mut c = g.clone();
    if catch_unwind(AssertUnwindSafe(|| c.play(mv))).is_err() {
        panic!("{ctx}: play({mv:?}) panicked in\n{}", g.render());
    }
    c
}

/// The position as its own `input.txt`: two positions are the same exactly
/// when these texts are.
fn key<G: FileGame>(g: &G) -> String {
    g.write_input(Mode::Game, 10.0)
}

fn check_round_trip<G: FileGame>(g: &G, moves: &[G::Move], ctx: &str) {
    for (mode, remaining) in [(Mode::Single, 7.25), (Mode::Game, 0.5)] {
        let text = g.write_input(mode, remaining);
        let input = G::parse_input(&text)
            .unwrap_or_else(|e| panic!("{ctx}: the game's own input.txt does not parse ({e}):\n{text}"));
        assert_eq!(input.mode, mode, "{ctx}: mode lost in\n{text}");
        assert!(
            (input.remaining - remaining).abs() < 1e-9,
            "{ctx}: time lost in\n{text}"
        );
        let s = &input.state;
        assert_eq!(
            s.write_input(mode, remaining),
            text,
            "{ctx}: parse then write changes the text"
        );
        assert_eq!(s.hash(), g.hash(), "{ctx}: hash changes through the file\n{text}");
        assert_eq!(s.to_move(), g.to_move(), "{ctx}: side to move changes through the file");
        assert_eq!(s.result(), g.result(), "{ctx}: result changes through the file");
        assert_eq!(moves_of(s), moves, "{ctx}: legal moves change through the file\n{text}");
    }
}

fn check_ending<G: FileGame>(g: &G, moves: &[G::Move], ctx: &str) {
    let outcome = g.outcome();
    let result = g.result();
    let me = g.to_move();
    let expected = outcome.map(|o| match o {
        Outcome::Win => Some(me),
        Outcome::Loss => Some(me.other()),
        Outcome::Draw => None,
    });
    assert_eq!(
        result,
        expected,
        "{ctx}: outcome {outcome:?} and result disagree in\n{}",
        g.render()
    );
    if outcome.is_some() {
        assert!(
            moves.is_empty(),
            "{ctx}: a finished position has {} moves\n{}",
            moves.len(),
            g.render()
        );
    } else {
        assert!(
            !moves.is_empty(),
            "{ctx}: an unfinished position has no moves\n{}",
            g.render()
        );
    }
}

fn check_moves<G: FileGame>(g: &G, moves: &[G::Move], ctx: &str) {
    for &mv in moves {
        let text = g.format_move(mv);
        assert!(
            text.ends_with('\n'),
            "{ctx}: move text {text:?} lacks its final newline"
        );
        match g.parse_move(&text) {
            Ok(back) => assert_eq!(back, mv, "{ctx}: {text:?} reads back as another move"),
            Err(e) => panic!("{ctx}: the judge rejects the legal move {text:?}: {e}\n{}", g.render()),
        }
        assert!(!g.describe_move(mv).is_empty(), "{ctx}: empty description of {text:?}");
        play(g, mv, ctx);
    }
    for junk in ["", "\n", "junk\n", "-1 -1 -1\n"] {
        assert!(g.parse_move(junk).is_err(), "{ctx}: the judge accepts {junk:?}");
    }
}

/// Plays a, b, c and c, b, a (when both orders are legal); same position
/// must mean same hash, different positions different hashes.
fn check_transposition<G: FileGame>(g: &G, moves: &[G::Move], rng: &mut SmallRng, ctx: &str, cov: &mut Coverage) {
    if moves.len() < 2 {
        return;
    }
    let a = moves[rng.gen_range(0..moves.len())];
    let c = moves[rng.gen_range(0..moves.len())];
    if a == c {
        return;
    }
    let ga = play(g, a, ctx);
    let after_a = moves_of(&ga);
    if after_a.is_empty() {
        return;
    }
    let b = after_a[rng.gen_range(0..after_a.len())];
    let gab = play(&ga, b, ctx);
    let gc = play(g, c, ctx);
    if !moves_of(&gab).contains(&c) || !moves_of(&gc).contains(&b) {
        return;
    }
    let gcb = play(&gc, b, ctx);
    if !moves_of(&gcb).contains(&a) {
        return;
    }
    let one = play(&gab, c, ctx);
    let two = play(&gcb, a, ctx);
    if key(&one) == key(&two) {
        assert_eq!(
            one.hash(),
            two.hash(),
            "{ctx}: {a:?} {b:?} {c:?} and {c:?} {b:?} {a:?} reach\n{}\nwith different hashes",
            one.render()
        );
        cov.transpositions += 1;
    } else {
        assert_ne!(
            one.hash(),
            two.hash(),
            "{ctx}: different positions share a hash:\n{}\n{}",
            one.render(),
            two.render()
        );
    }
}

/// Picks the next move of a playout.
fn pick<G: SearchHints>(g: &G, moves: &[G::Move], greedy: f64, rng: &mut SmallRng) -> G::Move {
    if rng.gen_bool(greedy) {
        // Ties broken at random, so greedy playouts differ between seeds.
        *moves
            .iter()
            .max_by_key(|&&m| (g.order_hint(m), rng.gen_range(0..1000)))
            .expect("moves")
    } else {
        moves[rng.gen_range(0..moves.len())]
    }
}

/// Runs the plan on game `G`.
fn conform<G: FileGame>(plan: &Plan) -> Coverage {
    let mut cov = Coverage::default();
    for (b, board) in plan.boards.iter().enumerate() {
        for seed in 0..plan.playouts {
            let mut rng = SmallRng::seed_from_u64(seed * 1000 + b as u64);
            let opts = GenOptions {
                seed,
                first: if rng.gen_bool(0.5) { Player::One } else { Player::Two },
                ..board.clone()
            };
            let mut g = G::generate(&opts).unwrap_or_else(|e| panic!("{} cannot generate {opts:?}: {e}", G::NAME));
            for ply in 0..plan.max_plies {
                let ctx = format!("{} board {b} seed {seed} ply {ply}", G::NAME);
                let moves = moves_of(&g);
                cov.positions += 1;
                cov.moves += moves.len();
                check_ending(&g, &moves, &ctx);
                if g.result().is_some() {
                    // input.txt is for a side that has a move to make: a
                    // finished game has no input to round-trip.
                    cov.finished += 1;
                    break;
                }
                check_round_trip(&g, &moves, &ctx);
                check_moves(&g, &moves, &ctx);
                check_transposition(&g, &moves, &mut rng, &ctx, &mut cov);
                let mv = pick(&g, &moves, plan.greedy, &mut rng);
                g = play(&g, mv, &ctx);
            }
        }
    }
    cov
}

fn assert_covered(name: &str, cov: &Coverage) {
    assert!(cov.positions >= 200, "{name}: only {} positions checked", cov.positions);
    assert!(cov.moves >= 1000, "{name}: only {} moves checked", cov.moves);
    assert!(
        cov.finished >= 1,
        "{name}: no playout reached the end of a game: {cov:?}"
    );
    assert!(
        cov.transpositions >= 10,
        "{name}: too few transpositions found: {cov:?}"
    );
}

#[test]
fn every_registered_game_conforms() {
    // One thread per game: the machine's cores share the work.
    std::thread::scope(|s| {
        let runs: Vec<_> = GameKind::ALL
            .iter()
            .copied()
            .map(|kind| {
                s.spawn(move || {
                    let plan = boards(kind);
                    let cov = agent::with_game!(kind, |G| conform::<G>(&plan));
                    (kind, cov)
                })
            })
            .collect();
        for run in runs {
            let (kind, cov) = run.join().expect("a game failed its conformance run (message above)");
            assert_covered(kind.name(), &cov);
        }
    });
}

#[test]
fn the_test_game_conforms() {
    let plan = Plan {
        boards: vec![square(1), square(7), square(40)],
        playouts: 80,
        max_plies: 100,
        greedy: 0.3,
    };
    let cov = conform::<TestNim>(&plan);
    assert_covered(TestNim::NAME, &cov);
}
