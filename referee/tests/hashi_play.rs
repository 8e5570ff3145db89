//! Hashi through `referee play` with a scripted person, in both seat
//! orders (the person first, the agent first): the game reaches its end, the
//! record is written, and `referee replay` steps through it to the same
//! final board and scores.
//!
//! The agent seat is the `mock-agent` fixture (a random legal move through
//! the agent library), so its moves are not known in advance: the test
//! reads the referee's output as it comes, follows the game on its own copy
//! of the board, and types the person's next move when the person is to
//! move. The person's script also types a malformed line, an illegal move
//! and `?` once, which must be answered and asked again, never scored.

use agent::Game;
use agent::Hashi;
use agent::{GenOptions, Notation, Player, Setup};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

const MOCK: &str = env!("MOCK_AGENT");
const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hashi-play-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The move text at the start of a "ply N: P plays TEXT (...)" line: the
/// tokens before the description in parentheses.
fn played_move(line: &str) -> Option<String> {
    let at = line.find("ply ")?;
    let rest = &line[at..];
    let plays = rest.find(" plays ")?;
    let after = &rest[plays + 7..];
    let text: Vec<&str> = after.split_whitespace().take_while(|t| !t.starts_with('(')).collect();
    Some(text.join(" "))
}

/// The person's choice: the move the one-ply greedy player would make, so
/// the game is a real one rather than random on both sides.
fn person_move(h: &Hashi) -> <Hashi as Game>::Move {
    agent::greedy_move(h).expect("the person has a move")
}

// A test: one scripted game from start to end reads best as one story.
#[allow(clippy::too_many_lines)]
fn play(first: u8, size: usize, seed: u64) {
    let out = tmp(&format!("first{first}"));
    let out_s = out.display().to_string();
    let agent_cmd = format!("{MOCK} play");
    let (size_s, seed_s, first_s) = (size.to_string(), seed.to_string(), first.to_string());
    let mut child = Command::new(REFEREE)
        .args([
            "play", "--game", "hashi", "--size", &size_s, "--seed", &seed_s, "--first", &first_s, "--time", "30",
            "--out", &out_s, "human", &agent_cmd,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());

    // The same board the referee generates.
    let opts = GenOptions {
        size: Some(size),
        seed,
        first: if first == 1 { Player::One } else { Player::Two },
        ..Default::default()
    };
    let mut h = Hashi::generate(&opts).unwrap();
    let human = Player::One;
    let mut typed_junk = false;
    let mut send = |h: &Hashi, stdin: &mut std::process::ChildStdin| {
        if !typed_junk {
            // Asked again, never scored: a malformed line, an illegal
            // label (5), the list of legal moves.
            stdin.write_all(b"hello\nL 0 0 5\n?\n").unwrap();
            typed_junk = true;
        }
        let mv = person_move(h);
        stdin.write_all(h.format_move(mv).as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    if h.to_move() == human {
        send(&h, &mut stdin);
    }
    let mut transcript = String::new();
    let mut plies = 0;
    for line in stdout.lines() {
        let line = line.unwrap();
        transcript.push_str(&line);
        transcript.push('\n');
        let Some(text) = played_move(&line) else { continue };
        let mv = h
            .parse_move(&text)
            .unwrap_or_else(|e| panic!("{e}: {line}\n{transcript}"));
        h.play(mv);
        plies += 1;
        if h.result().is_none() && h.to_move() == human {
            send(&h, &mut stdin);
        }
    }
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "{transcript}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(plies >= 2, "{transcript}");
    assert!(h.result().is_some(), "the game did not reach its end:\n{transcript}");
    let [p1, p2] = h.points().into_array();
    let final_points = format!("points: player 1 {p1}, player 2 {p2}");
    assert!(transcript.contains(&final_points), "{final_points}\n{transcript}");
    // The result line names the winner's seat and who sat there.
    let result = transcript
        .lines()
        .find(|l| l.starts_with("Result:"))
        .unwrap_or_else(|| panic!("{transcript}"));
    match h.result().unwrap() {
        Some(Player::One) => assert!(result.contains("1 (human") && result.contains("wins"), "{result}"),
        Some(Player::Two) => assert!(result.contains("2 (") && !result.contains("(human"), "{result}"),
        None => assert!(result.contains("draw"), "{result}"),
    }
    assert!(
        transcript.contains("legal moves:"),
        "`?` lists the moves:\n{transcript}"
    );

    // The record replays move by move to the same end.
    let rec = out.join("records.jsonl");
    let o = Command::new(REFEREE)
        .args(["replay", &rec.display().to_string()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let replay = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{replay}\n{}", String::from_utf8_lossy(&o.stderr));
    let replayed: Vec<String> = replay.lines().filter_map(played_move).collect();
    assert_eq!(replayed.len(), plies, "{replay}");
    // Replaying the recorded moves on a fresh board gives the same scores.
    let mut again = Hashi::generate(&opts).unwrap();
    for t in &replayed {
        let mv = again.parse_move(t).unwrap();
        again.play(mv);
    }
    assert_eq!(again.points(), h.points());
    assert!(replay.trim_end().contains(&final_points), "{replay}");
    // The person moved first exactly when asked to.
    let first_mover = replay.lines().find(|l| l.contains("ply 1:")).unwrap().to_string();
    // The person sits in seat 1 (the replay's first line names who sits where).
    assert!(replay.contains("1 human vs 2 "), "{replay}");
    assert_eq!(first_mover.contains("player 1 plays"), first == 1, "{first_mover}");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn a_person_moving_first_plays_hashi_to_the_end_and_it_replays() {
    play(1, 5, 11);
}

#[test]
fn the_agent_moving_first_plays_hashi_to_the_end_and_it_replays() {
    play(2, 6, 12);
}
