//! What a long run shows while it plays: one log line per finished game on
//! stdout, whatever stdout is (a file, a pipe, a terminal), so an
//! unattended run can be followed with `tail -f`; when stderr is a
//! terminal, a progress bar with the score and an ETA; otherwise a
//! heartbeat line at least every minute, so a log never falls silent for
//! the length of a contest-clock game.

use crate::output::record::GameRecord;
use agent::{ByPlayer, Player};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The per-game log and the progress bar, or the heartbeat, of one run.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    heart: Option<Heartbeat>,
}

/// What a run counts and where its heartbeat goes.
#[derive(Clone, Copy)]
pub(crate) enum Unit {
    /// A match or tournament: games; the heartbeat on stdout, with the
    /// per-game log.
    Games,
    /// A grading: tests; the heartbeat on stderr, with the students' lines.
    Tests,
}

impl Unit {
    fn word(self) -> &'static str {
        match self {
            Unit::Games => "games",
            Unit::Tests => "tests",
        }
    }

    fn one(self) -> &'static str {
        match self {
            Unit::Games => "game",
            Unit::Tests => "test",
        }
    }
}

/// Longest silence of an unattended log.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(60);

/// What the heartbeat says, kept current by the run.
struct Beat {
    unit: Unit,
    total: u64,
    done: u64,
    /// Games done when this invocation started (a resumed run's ETA
    /// counts this run's games only).
    done_at_start: u64,
    status: String,
    started: Instant,
    last_line: Instant,
    stop: bool,
}

/// A thread that writes a status line to `out` whenever nothing was logged
/// for `every`.
struct Heartbeat {
    state: Arc<(Mutex<Beat>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Heartbeat {
    fn start(unit: Unit, total: u64, done: u64, every: Duration, mut out: Box<dyn Write + Send>) -> Heartbeat {
        let now = Instant::now();
        let beat = Beat {
            unit,
            total,
            done,
            done_at_start: done,
            status: String::new(),
            started: now,
            last_line: now,
            stop: false,
        };
        let state = Arc::new((Mutex::new(beat), Condvar::new()));
        let shared = state.clone();
        let thread = std::thread::spawn(move || {
            let (lock, cv) = &*shared;
            let mut b = lock.lock().unwrap_or_else(|e| e.into_inner());
            while !b.stop {
                let due = every.saturating_sub(b.last_line.elapsed());
                if due.is_zero() {
                    let _ = writeln!(out, "{}", heartbeat_line(&b));
                    let _ = out.flush();
                    b.last_line = Instant::now();
                    continue;
                }
                b = cv.wait_timeout(b, due).unwrap_or_else(|e| e.into_inner()).0;
            }
        });
        Heartbeat {
            state,
            thread: Some(thread),
        }
    }

    fn update(&self, status: &str) {
        let mut b = self.state.0.lock().unwrap_or_else(|e| e.into_inner());
        b.done += 1;
        b.status = status.to_string();
        b.last_line = Instant::now();
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.state.0.lock().unwrap_or_else(|e| e.into_inner()).stop = true;
        self.state.1.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// `referee: 12/100 games, A 7 - 4 B  draws 1, elapsed 6m, ETA 44m`.
fn heartbeat_line(b: &Beat) -> String {
    let elapsed = b.started.elapsed().as_secs_f64();
    let ran = b.done.saturating_sub(b.done_at_start);
    let eta = if ran == 0 {
        format!("ETA unknown until a {} ends", b.unit.one())
    } else {
        let left = b.total.saturating_sub(b.done) as f64;
        format!("ETA {}", minutes(elapsed / ran as f64 * left))
    };
    let status = if b.status.is_empty() {
        String::new()
    } else {
        format!(", {}", b.status)
    };
    format!(
        "referee: {}/{} {}{status}, elapsed {}, {eta}",
        b.done,
        b.total,
        b.unit.word(),
        minutes(elapsed)
    )
}

fn minutes(secs: f64) -> String {
    let m = (secs / 60.0).round() as u64;
    if m < 1 {
        format!("{:.0}s", secs)
    } else if m < 120 {
        format!("{m}m")
    } else {
        format!("{}h{:02}m", m / 60, m % 60)
    }
}

impl Progress {
    /// A run of `total` games of which `done` are already recorded; the bar
    /// is drawn on stderr only when stderr is a terminal.
    pub(crate) fn new(total: u64, done: u64) -> Progress {
        Progress::counting(Unit::Games, total, done)
    }

    /// [`Progress::new`] for a run of `total` pieces of `unit`.
    pub(crate) fn counting(unit: Unit, total: u64, done: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let template = format!(
                "{{bar:30}} {{pos}}/{{len}} {}  {{msg}}  elapsed {{elapsed}}  ETA {{eta}}",
                unit.word()
            );
            // The template is a constant; a bad one is a bug caught by the tests.
            let style = ProgressStyle::with_template(&template).expect("valid progress template");
            bar.set_style(style);
            bar.set_position(done);
            // Rates measured from this run's games only, so a resumed run's ETA is right.
            bar.reset_eta();
            bar
        });
        let heart = bar.is_none().then(|| {
            let out: Box<dyn Write + Send> = match unit {
                Unit::Games => Box::new(std::io::stdout()),
                Unit::Tests => Box::new(std::io::stderr()),
            };
            Heartbeat::start(unit, total, done, HEARTBEAT, out)
        });
        Progress { bar, heart }
    }

    /// Prints `line` on stderr above the bar, without moving it.
    pub(crate) fn say(&self, line: &str) {
        let print = || eprintln!("{line}");
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    /// Moves the bar (or the heartbeat's count) by one, showing `status`.
    pub(crate) fn step(&self, status: &str) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(status.to_string());
        }
        if let Some(h) = &self.heart {
            h.update(status);
        }
    }

    /// Logs a finished game (`line` on stdout) and moves the bar, showing `status`.
    pub(crate) fn game_finished(&mut self, line: &str, status: &str) {
        let print = || {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        };
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
        self.step(status);
    }

    /// Removes the bar so the final table starts on a clean line.
    pub(crate) fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.heart = None;
    }
}

/// The log line of a finished game, numbered from 1 in schedule order:
/// `Finished game 17 (A vs B, opening 9): 1-0, A wins as BLACK {WHITE (B)
/// loses: over time: ...}`: first mover named first, the result from the
/// first mover's side, the winner by agent and colour (colours swap between
/// games, so a colour alone does not say who won), and the referee's reason
/// in braces.
pub(crate) fn finished_line(number: u64, rec: &GameRecord, opening: Option<&str>) -> String {
    // The record keeps seats as indices (its JSON format); here they are seats.
    let first = Player::from_index(rec.first);
    let agents = ByPlayer::from(rec.agents.clone());
    let result = match rec.winner {
        None => "1/2-1/2",
        Some(w) if Player::from_index(w) == first => "1-0",
        Some(_) => "0-1",
    };
    let opening = opening.map(|o| format!(", opening {o}")).unwrap_or_default();
    let who = match rec.winner {
        None => "draw".to_string(),
        Some(w) => format!(
            "{} wins as {}",
            rec.agents[w],
            crate::output::board_text::seat_label(&rec.seat_names[w])
        ),
    };
    format!(
        "Finished game {number} ({} vs {}{opening}): {result}, {who} {{{}}}",
        agents[first],
        agents[first.other()],
        rec.reason
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_silent_log_gets_a_heartbeat_with_the_score_and_an_eta() {
        let out = Shared::default();
        let h = Heartbeat::start(Unit::Games, 10, 2, Duration::from_millis(40), Box::new(out.clone()));
        std::thread::sleep(Duration::from_millis(70));
        h.update("A 2 - 1 B  draws 0");
        std::thread::sleep(Duration::from_millis(70));
        drop(h);
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() >= 2, "{text}");
        assert!(lines[0].starts_with("referee: 2/10 games, elapsed "), "{text}");
        assert!(lines[0].ends_with("ETA unknown until a game ends"), "{text}");
        let last = lines.last().unwrap();
        assert!(
            last.starts_with("referee: 3/10 games, A 2 - 1 B  draws 0, elapsed"),
            "{text}"
        );
        assert!(last.contains("ETA "), "{text}");
    }

    #[test]
    fn the_finished_line_names_the_winner_by_agent_and_seat() {
        let mut r = GameRecord::for_test("g1", ["A", "B"], Some(1), None);
        r.reason = "player 2 wins by the rules".into();
        assert_eq!(
            finished_line(1, &r, None),
            "Finished game 1 (A vs B): 0-1, B wins as player 2 {player 2 wins by the rules}"
        );
        r.first = 1;
        assert!(finished_line(2, &r, Some("x")).starts_with("Finished game 2 (B vs A, opening x): 1-0, B wins"));
        let d = GameRecord::for_test("g3", ["A", "B"], None, None);
        assert!(finished_line(3, &d, None).contains(": 1/2-1/2, draw {"));
    }
}
