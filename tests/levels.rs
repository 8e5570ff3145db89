//! The strength ladder (`agent --level N`, issue 43) as the contest runs
//! it, one process a move: every level answers SINGLE and GAME legally
//! within its CPU budget from both colours; level 1 plays exactly the
//! moves of `--strategy minimax` (the contest's reference agent); a level
//! with a seed gives the same move twice, on a quiet machine and under
//! load; games without a ladder are refused in words.

mod common;

use agent::random_opening;
use agent::Halma;
use agent::{GenOptions, Mode, Notation};
use common::{run, scratch, Run};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Plenty of wall time for one move of a test (a hang is a failure).
const WALL: Duration = Duration::from_secs(60);

/// A seeded random Halma position (the side to move after `plies` random
/// plies from the start) as an `input.txt` with `mode` and `seconds`.
fn position(plies: u32, seed: u64, mode: Mode, seconds: f64) -> String {
    let pos: Halma = random_opening(&GenOptions::default(), plies, seed).expect("an opening");
    pos.write_input(mode, seconds)
}

/// Writes `input` into a fresh directory, runs the agent there with `args`
/// and returns the run and `output.txt` (empty when none was written).
fn play(name: &str, input: &str, args: &[&str]) -> (Run, String) {
    let dir = scratch(name);
    std::fs::write(dir.join("input.txt"), input).unwrap();
    let r = run(&dir, args, WALL);
    let out = std::fs::read_to_string(dir.join("output.txt")).unwrap_or_default();
    (r, out)
}

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/halma").join(name)
}

/// The sample's text with its mode and time lines replaced.
fn with_budget(name: &str, mode: &str, seconds: f64) -> String {
    let text = std::fs::read_to_string(sample(name)).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[0] = mode.to_string();
    lines[2] = format!("{seconds}");
    lines.join("\n") + "\n"
}

#[test]
fn every_level_answers_single_and_game_legally_within_budget_from_both_colours() {
    // Both colours, from the start and from the middle of a game.
    let samples = [
        "start_black.txt",
        "start_white.txt",
        "midgame_1.txt",
        "midgame_white.txt",
    ];
    for level in 1..=10 {
        let n = level.to_string();
        for name in samples {
            for mode in ["SINGLE", "GAME"] {
                // A tiny clock (time overrides every budget) and a usual one.
                for budget in [0.02, 0.5] {
                    let input = with_budget(name, mode, budget);
                    let (r, out) = play("budget", &input, &["--level", &n]);
                    let what = format!("level {level} {name} {mode} {budget} s");
                    assert_eq!(r.code, 0, "{what}: {}", r.stderr);
                    let pos = Halma::parse_input(&input).unwrap().state;
                    assert!(pos.parse_move(&out).is_ok(), "{what}: illegal {out:?}");
                    assert!(r.cpu < budget, "{what}: used {:.4} CPU s", r.cpu);
                }
            }
        }
    }
}

#[test]
fn level_one_plays_the_moves_of_the_reference_minimax() {
    let mut differ = 0;
    for k in 0..20u64 {
        // Openings of 0 to 57 plies, both colours to move.
        let input = position((k * 3) as u32, 4300 + k, Mode::Single, 30.0);
        let (a, level) = play("ref-level", &input, &["--level", "1"]);
        let (b, minimax) = play("ref-minimax", &input, &["--strategy", "minimax"]);
        assert_eq!((a.code, b.code), (0, 0), "{}{}", a.stderr, b.stderr);
        assert_eq!(level, minimax, "position {k}:\n{input}");
        // The agent's default plays otherwise somewhere: the comparison can fail.
        let quick = position((k * 3) as u32, 4300 + k, Mode::Single, 0.2);
        let (_, best) = play("ref-best", &quick, &[]);
        differ += usize::from(best != minimax);
    }
    assert!(differ > 0, "the default agent played every reference move");
}

#[test]
fn a_level_and_seed_give_the_same_move_twice_even_under_load() {
    let positions: Vec<String> = (0..4u64)
        .map(|k| position(6 + 10 * k as u32, 77 + k, Mode::Game, 20.0))
        .collect();
    let mut seeds_matter = false;
    for level in 2..=9 {
        let n = level.to_string();
        for (k, input) in positions.iter().enumerate() {
            let args = ["--level", n.as_str(), "--seed", "11"];
            let (a, quiet) = play("seed-quiet", input, &args);
            // Load: a thread of this process spins on the other core while
            // the agent runs, so the agent shares the machine.
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let spin = {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            };
            let (b, loaded) = play("seed-load", input, &args);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            spin.join().unwrap();
            assert_eq!((a.code, b.code), (0, 0), "{}{}", a.stderr, b.stderr);
            assert_eq!(
                quiet, loaded,
                "level {level} position {k}: the same seed gave two moves"
            );
            let (_, other) = play("seed-other", input, &["--level", n.as_str(), "--seed", "12"]);
            seeds_matter |= other != quiet;
        }
    }
    assert!(seeds_matter, "another seed never changed a noisy level's move");
}

#[test]
fn a_game_without_a_ladder_is_refused_in_words() {
    let input =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/connectsquare/empty-6x7.txt"))
            .unwrap();
    let (r, out) = play("refused", &input, &["--level", "5"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--level is offered for halma only"), "{}", r.stderr);
    assert!(r.stderr.contains("connectsquare"), "{}", r.stderr);
    assert!(out.is_empty(), "nothing is written: {out:?}");
    let (r, _) = play("level-zero", &input, &["--level", "0"]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("levels go from 1"), "{}", r.stderr);
}
