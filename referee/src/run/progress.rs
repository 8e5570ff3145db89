//! What a long run shows while it plays: one log line per finished game on
//! stdout, whatever stdout is (a file, a pipe, a terminal), so an
//! unattended run can be followed with `tail -f`; and, when stderr is a
//! terminal, a progress bar with the score and an ETA.

use crate::output::record::GameRecord;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};

/// The per-game log and the optional progress bar of one run.
pub struct Progress {
    bar: Option<ProgressBar>,
}

/// True when stdout is a terminal.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

impl Progress {
    /// A run of `total` games of which `done` are already recorded; the bar
    /// is drawn on stderr only when stderr is a terminal.
    pub fn new(total: u64, done: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            // The template is a constant; a bad one is a bug caught by the tests.
            let style = ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  elapsed {elapsed}  ETA {eta}")
                .expect("valid progress template");
            bar.set_style(style);
            bar.set_position(done);
            // Rates measured from this run's games only, so a resumed run's ETA is right.
            bar.reset_eta();
            bar
        });
        Progress { bar }
    }

    /// Logs a finished game (`line` on stdout) and moves the bar, showing `status`.
    pub fn game_finished(&mut self, line: &str, status: &str) {
        let print = || {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        };
        match &self.bar {
            Some(bar) => {
                bar.suspend(print);
                bar.inc(1);
                bar.set_message(status.to_string());
            }
            None => print(),
        }
    }

    /// Removes the bar so the final table starts on a clean line.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// The log line of a finished game, numbered from 1 in schedule order:
/// `Finished game 17 (A vs B, opening 9): 1-0, A wins as BLACK {WHITE (B)
/// loses: over time: ...}`: first mover named first, the result from the
/// first mover's side, the winner by agent and colour (colours swap between
/// games, so a colour alone does not say who won), and the referee's reason
/// in braces.
pub fn finished_line(number: u64, rec: &GameRecord, opening: Option<&str>) -> String {
    let first = rec.first;
    let second = 1 - first;
    let result = match rec.winner {
        None => "1/2-1/2",
        Some(w) if w == first => "1-0",
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
        rec.agents[first], rec.agents[second], rec.reason
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
