//! `referee play` (one game drawn move by move, a seat may be a person) and
//! `referee replay` (a recorded game step by step).

use crate::cli::plan::seat;
use crate::cli::{GameOpts, PlayArgs, ReplayArgs};
use crate::for_game;
use crate::game::human::{seat_label, HumanIo};
use crate::game::{play_game, seat_line, Contestant, GameSetup, Rules, SeatKind};
use crate::output::board_text::{result_line, wrap80, Show};
use crate::output::narrator::Narrator;
use crate::output::record::{self, GameRecord};
use crate::signals;
use agent::{ByPlayer, FileGame, GenOptions, Param, Player};
use std::io::Write;
use std::path::PathBuf;

/// `referee play`: one game, the board drawn after each move.
pub(crate) fn run_play(a: &PlayArgs, io: HumanIo) -> Result<i32, String> {
    signals::install();
    for_game!(&a.game.game, |G| play_one::<G>(a, io))
}

fn play_one<G: FileGame>(a: &PlayArgs, mut io: HumanIo) -> Result<i32, String> {
    let clock = a.time.clock(&a.game.game)?;
    let mut rules = a.time.rules(clock)?;
    let seats = ByPlayer::new(seat(&a.seat1, "first seat's")?, seat(&a.seat2, "second seat's")?);
    let any_human = seats.iter().any(|(_, s)| *s == SeatKind::Human);
    let mut game_opts = a.game.clone();
    if any_human {
        ask_game_options::<G>(&mut game_opts, &mut rules, &mut io)?;
    }
    let first = match a.first {
        Some(f) => Player::from_index(usize::from(f) - 1),
        None if any_human && game_opts.start.is_none() => ask_first::<G>(&seats, &mut io)?,
        None => Player::One,
    };
    let mut starts = game_opts.starts()?;
    starts.check::<G>()?;
    starts.gen.first = first;
    let start: G = match &starts.text {
        Some(t) => G::parse_input(t).map_err(|e| format!("--start: {e}"))?.state,
        None => G::generate(&starts.gen)?,
    };
    let contestants = seats.clone().map(|kind| Contestant {
        name: String::new(),
        kind,
        calibration: None,
        calibrate: None,
        home: None,
    });
    let contestants = name_seats(contestants);
    // The same lock as match and tournament: a play into a running run's
    // --out would add a game its --resume then refuses.
    let _lock = crate::run::outdir::lock(&a.out)?;
    rules.sandbox = crate::process::sandbox::install(&a.time.sandbox, &a.out)?;
    // A game played to be watched keeps its agents' files to be read.
    rules.keep_dirs = true;
    let setup = play_setup(&a.out, start, &contestants, clock);
    let names = ByPlayer::from(G::player_names());
    let (one, two) = (Player::One, Player::Two);
    let _ = writeln!(
        io.output,
        "{}",
        wrap80(&format!(
            "{} game: {} = {}; {} = {}",
            G::NAME,
            seat_label(names[one]),
            seat_shown(&contestants[one]),
            seat_label(names[two]),
            seat_shown(&contestants[two])
        ))
    );
    // With a person at the board every ply is drawn; between agents one
    // line per ply keeps a whole game on a screen or two.
    let show = a.view.show.unwrap_or(if any_human { Show::All } else { Show::Moves });
    let labels = names.map(seat_label);
    let mut narrator = Narrator::new(&setup.start, labels, show, a.view.board_every as usize);
    io.board_shown = show == Show::All;
    let _ = writeln!(io.output, "{}", narrator.opening());
    let rec = play_game(setup, &rules, &signals::STOP, Some(&mut io), &mut |ev| {
        let text = narrator.ply(ev.state, ev.record, ev.clocks);
        if !text.is_empty() {
            // The human seat's terminal is borrowed by the game loop; the
            // narration goes to the same stdout.
            println!("{text}");
        }
    })
    .map_err(|e| e.to_string())?;
    let path = a.out.join("records.jsonl");
    record::append(&path, &rec).map_err(|e| format!("cannot append to {}: {e}", path.display()))?;
    let _ = writeln!(io.output, "{}", narrator.ending(&rec));
    let _ = writeln!(io.output, "{}", wrap80(&write_play_report(&a.out, &rec)?));
    let _ = io.output.flush();
    Ok(0)
}

/// Asks a person for the game's parameters that were not given (those the
/// game has a question for, e.g. a board size) and sets the agents' move
/// time the game wants when a person plays.
fn ask_game_options<G: FileGame>(opts: &mut GameOpts, rules: &mut Rules, io: &mut HumanIo) -> Result<(), String> {
    if opts.start.is_none() {
        let mut gen = opts.gen_options();
        for p in G::PARAMS {
            if let (Some(question), false) = (p.prompt, p.key.is_set(&gen)) {
                gen = ask_param::<G>(p, question, gen, io)?;
            }
        }
        opts.set_gen_options(&gen);
    }
    if rules.move_time.is_none() {
        // A person waits for the agent's every move: a few seconds each,
        // unless the game asks for more (or --move-time says otherwise).
        rules.move_time = Some(G::HUMAN_MOVE_TIME.unwrap_or(HUMAN_GAME_MOVE_SECONDS));
    }
    Ok(())
}

/// CPU seconds an agent gets per move against a person when neither the
/// game nor `--move-time` says otherwise.
pub(crate) const HUMAN_GAME_MOVE_SECONDS: f64 = 3.0;

/// Asks for one parameter until the game can generate a position with it.
fn ask_param<G: FileGame>(p: &Param, question: &str, gen: GenOptions, io: &mut HumanIo) -> Result<GenOptions, String> {
    loop {
        let answer = if p.choices.is_empty() {
            io.ask(question)
        } else {
            io.choose(question, p.choices)
        };
        let answer = answer.ok_or_else(|| format!("the input ended before the {} was given", p.about))?;
        let mut probe = gen.clone();
        if let Err(e) = p.key.set(&mut probe, &answer) {
            let _ = writeln!(io.output, "Please answer again: {e}.");
            continue;
        }
        // Let the game say which values it can generate.
        match G::generate(&probe) {
            Ok(_) => return Ok(probe),
            Err(e) => {
                let _ = writeln!(io.output, "{e}. Please choose another value.");
            }
        }
    }
}

/// Asks which seat moves first.
fn ask_first<G: FileGame>(seats: &ByPlayer<SeatKind>, io: &mut HumanIo) -> Result<Player, String> {
    let names = ByPlayer::from(G::player_names());
    let desc = |p: Player| format!("{} = {} ({})", p.index() + 1, seat_label(names[p]), seats[p].command());
    let q = format!("Who moves first? {}, {}: ", desc(Player::One), desc(Player::Two));
    let a = io
        .choose(&q, &["1", "2"])
        .ok_or("the input ended before the first player was chosen")?;
    Ok(if a == "1" { Player::One } else { Player::Two })
}

/// Names the seats: `human` for the person, as the command line and the
/// game's first line write that seat (`human1`/`human2` only when both
/// seats are people, who must be told apart); the program's short name for
/// agents.
fn name_seats(mut seats: ByPlayer<Contestant>) -> ByPlayer<Contestant> {
    let people = seats.iter().filter(|(_, c)| c.kind == SeatKind::Human).count();
    for p in Player::ALL {
        let c = &mut seats[p];
        c.name = match &c.kind {
            SeatKind::Human if people > 1 => format!("human{}", p.index() + 1),
            SeatKind::Human => "human".to_string(),
            SeatKind::Agent(cmd) => short_name(cmd.as_str()),
        };
    }
    seats
}

/// A seat in the game's first line: an agent's command, a person's name
/// (the one the result and the records give).
fn seat_shown(c: &Contestant) -> &str {
    match c.kind {
        SeatKind::Human => &c.name,
        SeatKind::Agent(_) => c.kind.command(),
    }
}

/// The game's key and the seats' working directories under `out`.
fn play_setup<'a, G: FileGame>(
    out: &std::path::Path,
    start: G,
    seats: &'a ByPlayer<Contestant>,
    time: f64,
) -> GameSetup<'a, G> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let key = format!("play-{stamp}");
    let base = out.join("games").join(&key);
    let names = ByPlayer::from(G::player_names());
    let dirs: ByPlayer<PathBuf> = ByPlayer::from_fn(|p| base.join(format!("seat{}-{}", p.index() + 1, names[p])));
    GameSetup {
        key,
        start,
        seats: ByPlayer::from_fn(|p| &seats[p]),
        time: ByPlayer::new(time, time),
        dirs,
    }
}

/// A command shown by its program's file name and its arguments.
fn short_name(cmd: &str) -> String {
    let mut parts = cmd.split_whitespace();
    let prog = parts.next().unwrap_or("agent");
    let base = prog.rsplit('/').next().unwrap_or(prog);
    std::iter::once(base).chain(parts).collect::<Vec<_>>().join(" ")
}

/// `referee replay`.
pub(crate) fn run_replay(a: &ReplayArgs, mut io: HumanIo) -> Result<i32, String> {
    match std::fs::metadata(&a.file) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(format!("{} is not a file of game records", a.file.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("no such file: {}", a.file.display()))
        }
        Err(e) => return Err(format!("cannot read {}: {e}", a.file.display())),
    }
    let recs = record::load(&a.file, false)?;
    if recs.is_empty() {
        return Err(format!("{} holds no game records", a.file.display()));
    }
    let rec = match &a.game {
        Some(k) => pick_record(&recs, k, &a.file)?,
        None => {
            if recs.len() > 1 {
                list_records(&recs, &a.file, &mut io);
            }
            recs.last().expect("non-empty")
        }
    };
    for_game!(&rec.game, |G| replay_one::<G>(rec, a, &mut io))
}

/// The record chosen by `--game`: a 1-based number or a key.
fn pick_record<'a>(recs: &'a [GameRecord], k: &str, file: &std::path::Path) -> Result<&'a GameRecord, String> {
    match k.parse::<usize>() {
        Ok(n) if n >= 1 && n <= recs.len() => Ok(&recs[n - 1]),
        _ => recs.iter().find(|r| r.key == k).ok_or_else(|| {
            format!(
                "{} has no game {k:?} (games 1 to {}, or keys like {:?})",
                file.display(),
                recs.len(),
                recs[0].key
            )
        }),
    }
}

/// Lists the games of a file with several.
fn list_records(recs: &[GameRecord], file: &std::path::Path, io: &mut HumanIo) {
    let _ = writeln!(
        io.output,
        "{} games in {}; showing the last (choose with --game N or KEY):",
        recs.len(),
        file.display()
    );
    for (i, r) in recs.iter().enumerate() {
        let _ = writeln!(
            io.output,
            "  {:>3}  {}  {}  {}",
            i + 1,
            r.key,
            seat_line(r),
            result_line(r)
        );
    }
}

/// The HTML report of a played game, beside its record in `out`; returns
/// the lines naming the record, the replay command and the report, with
/// absolute paths.
fn write_play_report(out: &std::path::Path, rec: &GameRecord) -> Result<String, String> {
    let out = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    let records = out.join("records.jsonl");
    let html = out.join(format!("{}.html", rec.key));
    let source = format!("{} (game {})", records.display(), rec.key);
    crate::report::write_report_of(std::slice::from_ref(rec), &source, &html)?;
    Ok(format!(
        "record: {}\nreplay: referee replay {} --game {}\nreport: {}",
        records.display(),
        records.display(),
        rec.key,
        html.display()
    ))
}

fn replay_one<G: FileGame>(rec: &GameRecord, a: &ReplayArgs, io: &mut HumanIo) -> Result<i32, String> {
    let states = crate::game::replay_states::<G>(rec)?;
    let _ = writeln!(io.output, "game {} ({}): {}", rec.key, rec.game, seat_line(rec));
    let labels = ByPlayer::from(rec.seat_names.clone().map(|n| seat_label(&n)));
    let mut narrator = Narrator::new(
        &states[0],
        labels,
        a.view.show.unwrap_or(Show::All),
        a.view.board_every as usize,
    );
    let _ = writeln!(io.output, "{}", narrator.opening());
    let mut clocks = ByPlayer::from(rec.time);
    for (i, m) in rec.moves.iter().enumerate() {
        if a.step {
            match io.ask("[Enter: next move, q: quit] ") {
                Some(s) if s == "q" => return Ok(0),
                None => return Ok(0),
                _ => {}
            }
        }
        clocks[Player::from_index(m.seat)] = m.left;
        let text = narrator.ply(&states[i + 1], m, clocks);
        if !text.is_empty() {
            let _ = writeln!(io.output, "{text}");
        }
    }
    let _ = writeln!(io.output, "{}", narrator.ending(rec));
    let _ = io.output.flush();
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent::Fifteen;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        game: GameOpts,
    }

    fn scripted(answers: &str) -> HumanIo {
        HumanIo {
            input: Box::new(std::io::Cursor::new(answers.to_string().into_bytes())),
            output: Box::new(std::io::sink()),
            board_shown: false,
        }
    }

    #[test]
    fn a_person_is_asked_the_games_own_questions() {
        // Fifteen asks for its size (4 or 6; "5" is asked again) and gives agents 30 s a move.
        let mut opts = Cli::parse_from(["x", "--game", "fifteen"]).game;
        let mut rules = Rules::default();
        ask_game_options::<Fifteen>(&mut opts, &mut rules, &mut scripted("5\n4\n")).unwrap();
        assert_eq!((opts.board.size, rules.move_time), (Some(4), Some(30.0)));
        // Given on the command line: not asked; a --move-time given is kept.
        let mut opts = Cli::parse_from(["x", "--game", "fifteen", "--size", "6"]).game;
        let mut rules = Rules {
            move_time: Some(2.0),
            ..Rules::default()
        };
        ask_game_options::<Fifteen>(&mut opts, &mut rules, &mut scripted("")).unwrap();
        assert_eq!((opts.board.size, rules.move_time), (Some(6), Some(2.0)));
        // The input ending before an answer is an error naming what was asked.
        let mut opts = Cli::parse_from(["x", "--game", "fifteen"]).game;
        let e = ask_game_options::<Fifteen>(&mut opts, &mut Rules::default(), &mut scripted("")).unwrap_err();
        assert!(e.contains("board size"), "{e}");
    }
}
