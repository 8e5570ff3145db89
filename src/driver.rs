//! One turn of the file protocol for any game: read `input.txt`, write a
//! legal move to `output.txt` at once, then improve it within the CPU budget.

use crate::clock::process_cpu_seconds;
use crate::games::GameKind;
use crate::play::{self, Choice, ChooseOptions};
use crate::playdata::{Clock, PlayData};
use crate::play::FileGame;
use crate::protocol::{read_bounded, write_file, Input, Mode, ParseError, Player, Replace};
use crate::search::{greedy, Limits, Strategy};
use crate::timing;
use fxhash::FxHashSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// What the agent binary was asked to do.
#[derive(Clone, Debug)]
pub struct AgentOptions {
    /// Directory holding `input.txt`; `output.txt` goes there too.
    pub dir: PathBuf,
    /// How to choose the move.
    pub strategy: Strategy,
    /// Use at most this fraction of the computed budget (tests, tuning).
    pub time_scale: f64,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            dir: PathBuf::from("."),
            strategy: Strategy::Best,
            time_scale: 1.0,
        }
    }
}

/// Why a turn failed.
#[derive(Debug)]
pub enum TurnError {
    /// `input.txt` could not be read.
    Io(PathBuf, std::io::Error),
    /// `input.txt` is malformed.
    Parse(PathBuf, ParseError),
    /// The position has no legal move (or the game is already over).
    NoMove(String),
    /// `--level` was asked for a game without a ladder.
    NoLevels(&'static str),
    /// `output.txt` could not be written.
    Write(PathBuf, std::io::Error),
}

impl fmt::Display for TurnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnError::Io(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            TurnError::Parse(p, e) => write!(f, "{}: {e}", p.display()),
            TurnError::NoMove(m) => write!(f, "{m}"),
            TurnError::NoLevels(game) => write!(
                f,
                "--level is offered for {} only (the games whose ladder was measured); this input.txt is {game}: use --strategy instead",
                GameKind::level_games()
            ),
            TurnError::Write(p, e) => write!(f, "cannot write {}: {e}", p.display()),
        }
    }
}

impl std::error::Error for TurnError {}

/// Summary of a finished turn (for logging and tests).
#[derive(Clone, Debug)]
pub struct TurnReport {
    /// The move text written to `output.txt`.
    pub output: String,
    /// Depth reached by the search (0 for non-searching strategies).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// The chosen move's score from the mover's view, when the strategy
    /// scores moves (see [`crate::play::Choice::score`]).
    pub score: Option<i32>,
    /// The CPU limits planned for the move.
    pub limits: Limits,
    /// Played without a search (depth 0, the quick one-ply move): the GAME
    /// clock left too little past the per-move floor of the moves left.
    pub fast: bool,
}

impl TurnReport {
    /// The per-move report the referee records when it is the last stderr
    /// line (`info depth D score S nodes N`, `score` where the strategy has
    /// one), or `None` when no search ran (a game's own solver, a random move).
    pub fn info_line(&self) -> Option<String> {
        if self.nodes == 0 {
            return None;
        }
        let score = self.score.map(|s| format!(" score {s}")).unwrap_or_default();
        Some(format!("info depth {}{score} nodes {}", self.depth, self.nodes))
    }
}

impl fmt::Display for TurnReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.fast {
            return write!(
                f,
                "wrote {:?} at once (no time to search past the floor of the moves left)",
                self.output.trim_end()
            );
        }
        write!(
            f,
            "wrote {:?} (depth {}, {} nodes; planned {:.3} s soft, {:.3} s hard)",
            self.output.trim_end(),
            self.depth,
            self.nodes,
            self.limits.soft,
            self.limits.hard
        )
    }
}

/// Plays one turn of whatever game `dir/input.txt` holds.
pub fn run_turn(opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    let path = opts.dir.join("input.txt");
    let text = read_bounded(&path).map_err(|e| TurnError::Io(path.clone(), e))?;
    let kind = GameKind::detect(&text).map_err(|e| TurnError::Parse(path.clone(), e))?;
    dispatch_turn(kind, &text, opts)
}

/// Plays one turn of the game `kind` from its `input.txt` text.
pub(crate) fn dispatch_turn(kind: GameKind, text: &str, opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    with_game!(kind, |G| turn::<G>(text, opts))
}

/// "player 1 has won" in the game's own seat names.
fn winner_words<G: FileGame>(result: Option<Player>) -> String {
    match result {
        Some(p) => {
            let name = G::player_names()[p.index()];
            if name.bytes().all(|b| b.is_ascii_digit()) {
                format!("player {name} has won")
            } else {
                format!("{name} has won")
            }
        }
        None => "it ended without a winner".to_string(),
    }
}

/// Plays one turn of game `G` from the text of its `input.txt`.
pub fn turn<G: FileGame>(text: &str, opts: &AgentOptions) -> Result<TurnReport, TurnError> {
    let input: Input<G> = G::parse_input(text).map_err(|e| TurnError::Parse(opts.dir.join("input.txt"), e))?;
    if matches!(opts.strategy, Strategy::Level(..)) && !G::LEVELS {
        return Err(TurnError::NoLevels(G::NAME));
    }
    let state = &input.state;
    // Never silent: a legal move is on disk before any real thinking.
    let quick = quick_move(state)?;
    let mut out = Output::new(state, &opts.dir);
    out.write(quick.best)?;

    let mut playdata = match input.mode {
        Mode::Game => Some(PlayData::load(&opts.dir, G::NAME)),
        Mode::Single => None,
    };
    let planned_at = process_cpu_seconds();
    let plan = plan_move(&input, playdata.as_ref(), opts, planned_at);
    let seen = playdata.as_ref().map(|pd| &pd.seen);
    let choice = if plan.fast {
        log::debug!("no time to search: played at once");
        Some(fast_move(state, quick, seen))
    } else {
        search_move(state, opts, &plan.limits, seen, &mut out)?
    };
    // No choice (never with a legal move) leaves the quick move, unsearched.
    let (chosen, depth, nodes, score) =
        choice.map_or((quick.best, 0, 0, None), |c| (c.best, c.depth, c.nodes, c.score));
    if out.written != Some(chosen) {
        out.write(chosen)?;
    }
    if let Some(pd) = playdata.as_mut() {
        pd.clock = Some(Clock {
            remaining: input.remaining,
            search: process_cpu_seconds() - planned_at,
            overhead: plan.floor,
        });
        remember(pd, &opts.dir, state, chosen);
    }
    Ok(TurnReport {
        output: out.text,
        depth,
        nodes,
        score,
        limits: plan.limits,
        fast: plan.fast,
    })
}

/// `output.txt` of one turn: the move last written and its text.
struct Output<'a, G: FileGame> {
    state: &'a G,
    dir: &'a Path,
    written: Option<G::Move>,
    text: String,
}

impl<'a, G: FileGame> Output<'a, G> {
    fn new(state: &'a G, dir: &'a Path) -> Self {
        Output {
            state,
            dir,
            written: None,
            text: String::new(),
        }
    }

    /// Writes `mv` to `output.txt`. Once this turn has a move there, a kill
    /// leaves that move or the new one, never a mixture; before, the file
    /// holds a previous turn's move, worth nothing, so it is written in
    /// place, which on a disk costs a tenth of a rename.
    fn write(&mut self, mv: G::Move) -> Result<(), TurnError> {
        let s = self.state.format_move(mv);
        let replace = match self.written {
            None => Replace::Stale,
            Some(_) => Replace::Valid(self.text.len()),
        };
        write_file(self.dir, "output.txt", &s, replace)
            .map_err(|e| TurnError::Write(self.dir.join("output.txt"), e))?;
        self.written = Some(mv);
        self.text = s;
        Ok(())
    }
}

/// How one move is to be played.
struct MovePlan {
    /// The CPU limits of its search.
    limits: Limits,
    /// The measured per-move floor: what a move costs outside its search,
    /// as the referee charges it (see [`timing::next_overhead`]).
    floor: f64,
    /// Too little clock to search at all: play at once.
    fast: bool,
}

/// Plans the move of `input`: the per-move floor from the clock's drop
/// since the last move (GAME mode keeps that in the play data), the floor
/// of every move left set aside, and whether what remains pays for a
/// search at all. Only the default strategy plays fast: the others are
/// asked for by name (the reference agent among them) and play as asked.
fn plan_move<G: FileGame>(input: &Input<G>, playdata: Option<&PlayData>, opts: &AgentOptions, used: f64) -> MovePlan {
    let last = playdata.and_then(|pd| pd.clock);
    let floor = last.map_or(timing::MOVE_OVERHEAD, |c| {
        timing::next_overhead(Some(c.overhead), c.remaining - input.remaining, c.search)
    });
    // Half a millisecond of margin on a measured figure.
    let planned_floor = if last.is_some() { floor + 0.0005 } else { floor };
    let moves_left = timing::MovesLeft {
        total: input.state.moves_left_estimate(),
        searched: input.state.searched_moves_left(),
    };
    let limits = timing::plan_with_overhead(input.mode, input.remaining, used, moves_left, planned_floor)
        .scaled(opts.time_scale);
    let fast = opts.strategy == Strategy::Best
        && timing::too_short_to_search(input.mode, input.remaining, used, moves_left, planned_floor);
    MovePlan { limits, floor, fast }
}

/// The move of a turn with no time to search: the quick (greedy) move
/// when it makes progress ([`Steps::makes_progress`](crate::play::Steps::makes_progress))
/// and returns to no position the game has been through, else the best
/// one-ply move that does, else the best that returns nowhere seen. Greedy
/// alone walked a piece sideways and back for 20 moves at the end of a
/// 0.25 s game and lost it on time. Depth 0: no search ran.
fn fast_move<G: FileGame>(state: &G, quick: Choice<G::Move>, seen: Option<&FxHashSet<u64>>) -> Choice<G::Move> {
    let unseen = |child: &G| seen.is_none_or(|s| !s.contains(&child.hash()));
    let fresh = |mv, child: &G| state.makes_progress(mv) && unseen(child);
    let mut after = state.clone();
    after.play(quick.best);
    if fresh(quick.best, &after) {
        return quick;
    }
    match greedy::choose_kept(state, fresh).or_else(|| greedy::choose_kept(state, |_, child| unseen(child))) {
        Some((best, score)) => Choice {
            best,
            score: Some(score),
            ..quick
        },
        None => quick,
    }
}

/// The move the strategy chooses within `limits`, every improvement
/// written to `out` at once, so a kill mid-think leaves the best move found
/// so far. The log line is what `-v` shows (and what the kill tests look for).
fn search_move<G: FileGame>(
    state: &G,
    opts: &AgentOptions,
    limits: &Limits,
    seen: Option<&FxHashSet<u64>>,
    out: &mut Output<'_, G>,
) -> Result<Option<Choice<G::Move>>, TurnError> {
    let choose_opts = ChooseOptions {
        nodes_per_second: timing::read_calibration(&opts.dir),
        seen: seen.cloned(),
        seed: state.hash() ^ u64::from(std::process::id()),
        ..ChooseOptions::default()
    };
    let mut write_err = None;
    let mut on_improve = |mv: G::Move| {
        log::debug!("improved move: {}", state.describe_move(mv));
        if out.written != Some(mv) && write_err.is_none() {
            if let Err(e) = out.write(mv) {
                write_err = Some(e);
            }
        }
    };
    let choice = play::choose(state, opts.strategy, limits, &choose_opts, &mut on_improve);
    if let Some(c) = choice.filter(|c| c.table_bytes > 0) {
        log::debug!("search table: {} KiB", c.table_bytes >> 10);
    }
    match write_err {
        Some(e) => Err(e),
        None => Ok(choice),
    }
}

/// A legal move found at once (greedy's, else the first) as an unsearched
/// choice (depth 0, the moves it scored), or why there is none: the game
/// is over, or the side to move is stuck.
fn quick_move<G: FileGame>(state: &G) -> Result<Choice<G::Move>, TurnError> {
    if let Some(r) = state.result() {
        return Err(TurnError::NoMove(format!(
            "the game is already over in input.txt ({}); there is no move to make",
            winner_words::<G>(r)
        )));
    }
    let mut moves = Vec::new();
    state.legal_moves(&mut moves);
    if moves.is_empty() {
        return Err(TurnError::NoMove(
            "the side to move has no legal move in input.txt".into(),
        ));
    }
    let scored = greedy::choose_scored(state);
    Ok(Choice {
        best: scored.map_or(moves[0], |(m, _)| m),
        depth: 0,
        nodes: moves.len() as u64,
        score: scored.map(|(_, s)| s),
        table_bytes: 0,
    })
}

/// Counts the move and records the positions before and after it in the
/// game's play data (saved in `dir`), so later turns can avoid repeating
/// them.
fn remember<G: FileGame>(pd: &mut PlayData, dir: &Path, state: &G, chosen: G::Move) {
    pd.moves += 1;
    pd.seen.insert(state.hash());
    let mut after = state.clone();
    after.play(chosen);
    pd.seen.insert(after.hash());
    pd.save(dir);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testnim::TestNim;
    use std::path::Path;

    use crate::scratch::scratch as dir;

    fn opts(d: &Path, strategy: Strategy) -> AgentOptions {
        AgentOptions {
            dir: d.to_path_buf(),
            strategy,
            time_scale: 1.0,
        }
    }

    #[test]
    fn every_strategy_writes_a_legal_move() {
        let d = dir("strategies");
        for s in [
            Strategy::Best,
            Strategy::AlphaBeta(3),
            Strategy::Minimax(3),
            Strategy::Greedy,
            Strategy::Mcts,
            Strategy::Random,
        ] {
            // The plan charges the CPU this process has used, and other
            // tests run in it too: give the move time on top of that.
            let text = format!("TESTNIM\nSINGLE\n1\n{:.3}\n6\n", process_cpu_seconds() + 2.0);
            let r = turn::<TestNim>(&text, &opts(&d, s)).unwrap();
            let written = std::fs::read_to_string(d.join("output.txt")).unwrap();
            assert_eq!(written, r.output);
            let mv: u32 = written.trim().parse().unwrap();
            assert!((1..=3).contains(&mv), "{s:?}: {written:?}");
            if matches!(s, Strategy::Best | Strategy::AlphaBeta(_) | Strategy::Minimax(_)) {
                // Only taking 2 (leaving 4) wins, three plies deep; first-generated is 1.
                assert_eq!(mv, 2, "{s:?} should find the win (6 -> 4)");
            }
            // The line the referee records: with the score wherever the strategy has one.
            let info = r.info_line();
            match s {
                Strategy::Random => assert_eq!(info, None),
                Strategy::Mcts => assert!(info.as_deref().is_some_and(|l| !l.contains("score")), "{info:?}"),
                _ => {
                    let l = info.unwrap_or_default();
                    assert!(
                        l.starts_with("info depth ") && l.contains(" score ") && l.contains(" nodes "),
                        "{s:?}: {l}"
                    );
                }
            }
        }
    }

    #[test]
    fn game_mode_keeps_playdata_and_tolerates_garbage() {
        let d = dir("playdata");
        std::fs::write(d.join("playdata.txt"), "garbage\n\u{0}").unwrap();
        let text = "TESTNIM\nGAME\n2\n5.0\n10\n";
        turn::<TestNim>(text, &opts(&d, Strategy::Best)).unwrap();
        let pd = PlayData::load(&d, "testnim");
        assert_eq!(pd.moves, 1);
        assert_eq!(pd.seen.len(), 2);
        turn::<TestNim>("TESTNIM\nGAME\n2\n4.0\n6\n", &opts(&d, Strategy::Best)).unwrap();
        assert_eq!(PlayData::load(&d, "testnim").moves, 2);
    }

    #[test]
    fn below_the_floor_threshold_the_move_is_played_at_once_and_legal() {
        let d = dir("fast");
        // 250 moves left (a pile of 1000) at a quarter of a second: the
        // default 5 ms floor of each takes more than the clock.
        let short = "TESTNIM\nGAME\n1\n0.25\n1000\n";
        let r = turn::<TestNim>(short, &opts(&d, Strategy::Best)).unwrap();
        assert!(r.fast, "{r}");
        assert_eq!((r.depth, r.nodes), (0, 3), "one ply scored, no search");
        // Every move leaves the opponent a pile that is no multiple of 4.
        assert_eq!(r.info_line().as_deref(), Some("info depth 0 score -100 nodes 3"));
        let written = std::fs::read_to_string(d.join("output.txt")).unwrap();
        assert_eq!(written, r.output);
        assert!((1..=3).contains(&written.trim().parse::<u32>().unwrap()), "{written:?}");
        // The clock kept for the next move's measure of the floor.
        let clock = PlayData::load(&d, "testnim").clock.expect("the clock kept");
        assert_eq!(clock.remaining, 0.25);
        assert!(clock.search >= 0.0 && clock.search < 0.1, "{clock:?}");
        // The same position with time to search searches (the plan charges
        // the CPU this test process has used: other tests run in it).
        std::fs::remove_file(d.join("playdata.txt")).unwrap();
        let long = format!("TESTNIM\nGAME\n1\n{:.3}\n1000\n", process_cpu_seconds() + 10.0);
        assert!(!turn::<TestNim>(&long, &opts(&d, Strategy::Best)).unwrap().fast);
        // A strategy asked for by name plays as asked however short the clock.
        std::fs::remove_file(d.join("playdata.txt")).unwrap();
        let r = turn::<TestNim>(short, &opts(&d, Strategy::Minimax(2))).unwrap();
        assert!(!r.fast && r.depth >= 1, "{r}");
    }

    #[test]
    fn a_measured_floor_decides_the_fast_path() {
        let d = dir("floor");
        // 200 moves left (a pile of 800) with 3 s past what this process
        // has used: the default 5 ms floor leaves time to search.
        let remaining = process_cpu_seconds() + 3.0;
        let text = format!("TESTNIM\nGAME\n1\n{remaining:.3}\n800\n");
        assert!(!turn::<TestNim>(&text, &opts(&d, Strategy::Best)).unwrap().fast);
        // The last move was charged 50 ms more than its search: with that
        // floor (capped at four times the default) the moves left take the
        // clock.
        let mut pd = PlayData::load(&d, "testnim");
        pd.clock = Some(Clock {
            remaining: remaining + 0.05,
            search: 0.0,
            overhead: 0.005,
        });
        pd.save(&d);
        let r = turn::<TestNim>(&text, &opts(&d, Strategy::Best)).unwrap();
        assert!(r.fast, "{r}");
        let floor = PlayData::load(&d, "testnim").clock.expect("kept").overhead;
        assert!((floor - 4.0 * timing::MOVE_OVERHEAD).abs() < 1e-9, "{floor}");
    }

    #[test]
    fn the_fast_move_does_not_return_to_a_seen_position() {
        let pos = TestNim::new(7);
        let quick = quick_move(&pos).unwrap();
        use crate::search::Game;
        let after = |mv| {
            let mut p = pos;
            p.play(mv);
            p.hash()
        };
        let unseen = FxHashSet::default();
        assert_eq!(fast_move(&pos, quick, Some(&unseen)), quick);
        let seen: FxHashSet<u64> = [after(quick.best)].into_iter().collect();
        let fast = fast_move(&pos, quick, Some(&seen));
        assert_ne!(fast.best, quick.best);
        assert!((1..=3).contains(&fast.best));
        assert_eq!((fast.depth, fast.nodes), (0, 3));
    }

    /// The end of a 0.25 s game lost on time against the reference: the
    /// greedy move steps a piece sideways inside the goal (14,12 to 15,11),
    /// and played at once it stepped back and forth for 20 moves.
    const HALMA_LATE: &str = "GAME\nBLACK\n0.03\n\
        WWWWWW..........\nWWWW............\nWW..............\nWW..............\n\
        WW..............\nWW..............\n.W..............\n................\n\
        ................\n................\n.............B..\n............BB..\n\
        ...........BB.BB\n..........BB..BB\n............BBBB\n............BBBB\n";

    #[test]
    fn the_fast_move_makes_progress_where_greedy_walks_sideways() {
        use crate::games::halma::Halma;
        use crate::play::Steps;
        use crate::protocol::Notation;
        let pos = Halma::parse_input(HALMA_LATE).unwrap().state;
        let quick = quick_move(&pos).unwrap();
        assert_eq!(pos.format_move(quick.best).trim(), "E 14,12 15,11");
        assert!(!pos.makes_progress(quick.best));
        let fast = fast_move(&pos, quick, Some(&FxHashSet::default()));
        assert!(pos.makes_progress(fast.best), "{}", pos.format_move(fast.best));
        assert!(pos.parse_move(&pos.format_move(fast.best)).is_ok());
        // Through a whole turn: played at once, that move written.
        let d = dir("halma-late");
        let r = turn::<Halma>(HALMA_LATE, &opts(&d, Strategy::Best)).unwrap();
        assert!(r.fast, "{r}");
        assert_eq!(r.output, pos.format_move(fast.best));
    }

    #[test]
    fn bad_input_and_finished_games_are_errors_not_panics() {
        let d = dir("bad");
        let e = turn::<TestNim>("TESTNIM\nGAME\n3\n5.0\n10\n", &opts(&d, Strategy::Best)).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        let e = turn::<TestNim>("TESTNIM\nGAME\n1\n5.0\n0\n", &opts(&d, Strategy::Best)).unwrap_err();
        assert!(matches!(e, TurnError::NoMove(_)));
        // Player 2 took the last counter; said in words, not as `Some(Two)`.
        assert!(e.to_string().contains("player 2 has won"), "{e}");
        assert!(!e.to_string().contains("Some"), "{e}");
        assert!(!d.join("output.txt").exists());
    }

    #[test]
    fn budget_is_respected_with_tiny_time() {
        let d = dir("tiny");
        let start = process_cpu_seconds();
        let r = turn::<TestNim>("TESTNIM\nSINGLE\n1\n0.01\n1000\n", &opts(&d, Strategy::Best)).unwrap();
        assert!(r.limits.hard < 0.01);
        assert!(!r.to_string().contains('{'), "no Rust debug text: {r}");
        // Process CPU includes other test threads, so only a loose bound here;
        // the per-process checks live in the games' CLI tests.
        assert!(process_cpu_seconds() - start < 1.0);
    }
}
