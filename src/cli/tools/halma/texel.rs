//! Self-play data for fitting the evaluation weights (Texel's method): the
//! agent plays itself from seeded random openings in the arena's in-process
//! games, and every position of the middle game is written with its game's
//! result from the side to move's view and the evaluation's features
//! ([`eval::features`]). `scripts/texel-fit.py` fits the weights on them.
//!
//! A line: `game ply result black white side f1 .. f8`, where `result` is
//! 1, 0.5 or 0 for the side to move, `black`/`white` are the piece sets as 64
//! hex digits (the bitboard's four words), `side` is `B` or `W`, and the
//! features are the side to move's minus the opponent's. Lines starting with
//! `#` are comments (the first names the columns).

use crate::tools::duel::{play_game, DuelOptions, DuelReport, GameResult};
use agent::clock::CpuTimer;
use agent::games::halma::bitboard::Bitboard;
use agent::games::halma::{eval, solver, Halma};
use agent::play::openings::random_opening;
use agent::protocol::{read_capped, GenOptions, Player};
use agent::search::Strategy;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// The largest data file `texel-features` reads: about 5 M positions (500
/// games make 12 MB; the agent's 1 MiB input cap refused them).
const MAX_DATA_BYTES: u64 = 1 << 30;

/// How `texel-data` plays its games.
#[derive(Clone, Debug)]
pub struct DataOptions {
    /// Self-play games.
    pub games: u32,
    /// CPU seconds each side has for a whole game.
    pub seconds: f64,
    /// Seed of the openings (game `i` uses `seed + i`).
    pub seed: u64,
    /// Random plies of each opening.
    pub opening_plies: u32,
    /// Plies after the opening that are not written (still the opening's
    /// character rather than the evaluation's).
    pub skip_plies: u32,
}

/// The column header of the data files.
fn header() -> String {
    format!("# game ply result black white side {}", eval::FEATURE_NAMES.join(" "))
}

fn bitboard_hex(b: Bitboard) -> String {
    b.0.iter().map(|w| format!("{w:016x}")).collect()
}

fn parse_bitboard(s: &str) -> Option<Bitboard> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut b = Bitboard::EMPTY;
    for (i, w) in b.0.iter_mut().enumerate() {
        *w = u64::from_str_radix(&s[16 * i..16 * (i + 1)], 16).ok()?;
    }
    Some(b)
}

/// One data line for `pos` (the columns before the features given).
fn line(game: u32, ply: u32, result: &str, pos: &Halma) -> String {
    let occ = pos.occupied();
    let (me, them) = (pos.side(), pos.side().other());
    let mine = eval::features(me, pos.pieces(me), occ);
    let theirs = eval::features(them, pos.pieces(them), occ);
    let side = if me == Player::One { "B" } else { "W" };
    let mut s = format!(
        "{game} {ply} {result} {} {} {side}",
        bitboard_hex(pos.pieces(Player::One)),
        bitboard_hex(pos.pieces(Player::Two))
    );
    for (a, b) in mine.iter().zip(theirs) {
        s += &format!(" {}", a - b);
    }
    s
}

/// The result column for the side to move `side` when `winner` won.
fn result_for(side: Player, winner: Option<Player>) -> &'static str {
    match winner {
        Some(w) if w == side => "1",
        Some(_) => "0",
        None => "0.5",
    }
}

/// One self-play game: who won, and the positions worth writing with their plies.
struct Played {
    winner: Option<Player>,
    kept: Vec<(u32, Halma)>,
}

/// Plays one self-play game from game number `game`'s opening.
fn self_play(o: &DataOptions, game: u32, report: &mut DuelReport) -> Result<Played, String> {
    let seed = o.seed.wrapping_add(u64::from(game));
    let opening: Halma = random_opening(&GenOptions::default(), o.opening_plies, seed)?;
    let duel = DuelOptions {
        a: Strategy::Best,
        b: Strategy::Best,
        games: 1,
        seconds: o.seconds,
        move_seconds: None,
        opening_plies: o.opening_plies,
        seed,
        gen: GenOptions::default(),
        max_plies: 1000,
    };
    let a_seat = opening.side();
    let mut kept = Vec::new();
    let mut ply = 0;
    let r = play_game(&duel, opening, a_seat, report, &mut |pos: &Halma| {
        // Separated positions are the race solver's, not the evaluation's.
        if ply >= o.skip_plies && !solver::is_separated(pos) {
            kept.push((ply, *pos));
        }
        ply += 1;
    });
    let winner = match r {
        GameResult::Win => Some(a_seat),
        GameResult::Loss => Some(a_seat.other()),
        GameResult::Draw => None,
    };
    Ok(Played { winner, kept })
}

/// `agent halma texel-data`: plays the games and writes the data to `out`,
/// with progress on stderr; returns the summary.
pub fn generate(o: &DataOptions, out: &Path) -> Result<String, String> {
    if o.games == 0 {
        return Err("--games must be at least 1".into());
    }
    if !(o.seconds.is_finite() && o.seconds > 0.0) {
        return Err(format!("--seconds must be a positive number, found {}", o.seconds));
    }
    let file = File::create(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut w = BufWriter::new(file);
    let io = |e: std::io::Error| format!("cannot write {}: {e}", out.display());
    writeln!(w, "{}", header()).map_err(io)?;
    writeln!(w, "# {o:?}").map_err(io)?;
    let timer = CpuTimer::start();
    let mut report = DuelReport::default();
    let (mut positions, mut wins) = (0usize, [0u32; 3]);
    for game in 0..o.games {
        let Played { winner, kept } = self_play(o, game, &mut report)?;
        wins[winner.map_or(2, |p| p.index())] += 1;
        for (ply, pos) in &kept {
            writeln!(w, "{}", line(game, *ply, result_for(pos.side(), winner), pos)).map_err(io)?;
        }
        w.flush().map_err(io)?;
        positions += kept.len();
        eprintln!(
            "game {game}: winner {winner:?}, {} positions kept, {positions} in all, {:.0} CPU s",
            kept.len(),
            timer.elapsed()
        );
    }
    Ok(format!(
        "{} games (black won {}, white {}, drawn {}; {} on time, {} at the ply cap), {positions} positions written to {}, {:.0} CPU s",
        o.games,
        wins[0],
        wins[1],
        wins[2],
        report.on_time,
        report.capped,
        out.display(),
        timer.elapsed()
    ))
}

/// `agent halma texel-features`: rewrites the feature columns of a data
/// file from its positions (after a change of the features), to `out`.
pub(crate) fn refeature(input: &Path, out: &Path) -> Result<String, String> {
    let text = read_capped(input, MAX_DATA_BYTES).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let mut lines = vec![header()];
    for (i, l) in text.lines().enumerate() {
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        let bad = || {
            format!(
                "{}:{}: expected `game ply result black white side ...`",
                input.display(),
                i + 1
            )
        };
        let cols: Vec<&str> = l.split_whitespace().collect();
        let [game, ply, result, black, white, side, ..] = cols[..] else {
            return Err(bad());
        };
        let (Ok(game), Ok(ply)) = (game.parse::<u32>(), ply.parse::<u32>()) else {
            return Err(bad());
        };
        let side = match side {
            "B" => Player::One,
            "W" => Player::Two,
            _ => return Err(bad()),
        };
        let (Some(b), Some(w)) = (parse_bitboard(black), parse_bitboard(white)) else {
            return Err(bad());
        };
        if !matches!(result, "1" | "0" | "0.5") {
            return Err(bad());
        }
        lines.push(line(game, ply, result, &Halma::from_pieces(b, w, side)));
    }
    let n = lines.len() - 1;
    std::fs::write(out, lines.join("\n") + "\n").map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(format!("{n} positions written to {}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_round_trips_through_refeature() {
        let pos: Halma = random_opening(&GenOptions::default(), 30, 5).unwrap();
        let dir = std::env::temp_dir().join(format!("texel-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
        let l = line(3, 40, "0.5", &pos);
        std::fs::write(&a, format!("{}\n{l}\n", header())).unwrap();
        refeature(&a, &b).unwrap();
        let back = std::fs::read_to_string(&b).unwrap();
        assert_eq!(back.lines().nth(1), Some(l.as_str()));
        std::fs::write(&a, "3 40 0.5 zz\n").unwrap();
        assert!(refeature(&a, &b).unwrap_err().contains(":1: expected"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            parse_bitboard(&bitboard_hex(pos.pieces(Player::Two))),
            Some(pos.pieces(Player::Two))
        );
        // The written features are the side to move's minus the opponent's.
        let (me, them) = (pos.side(), pos.side().other());
        let mine = eval::features(me, pos.pieces(me), pos.occupied());
        let theirs = eval::features(them, pos.pieces(them), pos.occupied());
        let written: Vec<i32> = l.split(' ').skip(6).map(|f| f.parse().unwrap()).collect();
        let want: Vec<i32> = mine.iter().zip(theirs).map(|(a, b)| a - b).collect();
        assert_eq!(written, want);
    }

    #[test]
    fn self_play_writes_results_for_the_side_to_move() {
        let o = DataOptions {
            games: 1,
            seconds: 0.3,
            seed: 2,
            opening_plies: 8,
            skip_plies: 10,
        };
        let Played { winner, kept } = self_play(&o, 0, &mut DuelReport::default()).unwrap();
        assert!(!kept.is_empty());
        assert!(kept.iter().all(|(ply, pos)| *ply >= 10 && !solver::is_separated(pos)));
        let (_, pos) = kept[0];
        let r = result_for(pos.side(), winner);
        assert_eq!(r == "1", winner == Some(pos.side()));
    }
}
