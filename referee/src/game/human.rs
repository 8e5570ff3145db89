//! The human seat: a person types moves at the terminal. Bad input is
//! explained and asked again (never scored), legal moves are listed on
//! request, and the person's thinking time is not charged.

use agent::{ByPlayer, FileGame, MoveError, Player};
use std::io::{BufRead, Write};

/// The terminal (or a script standing in for it).
pub struct HumanIo {
    /// Where typed lines come from.
    pub input: Box<dyn BufRead + Send>,
    /// Where the board and prompts go.
    pub output: Box<dyn Write + Send>,
    /// True when the narration already draws the board after every ply, so
    /// the prompt does not draw it a second time.
    pub board_shown: bool,
}

impl HumanIo {
    /// The process's stdin and stdout.
    pub(crate) fn terminal() -> HumanIo {
        HumanIo {
            input: Box::new(std::io::BufReader::new(std::io::stdin())),
            output: Box::new(std::io::stdout()),
            board_shown: false,
        }
    }

    /// Prints `prompt` and reads one line; `None` at end of input.
    pub(crate) fn ask(&mut self, prompt: &str) -> Option<String> {
        let _ = write!(self.output, "{prompt}");
        let _ = self.output.flush();
        let mut line = String::new();
        crate::signals::EXIT_NOW.store(true, std::sync::atomic::Ordering::SeqCst);
        let r = self.input.read_line(&mut line);
        crate::signals::EXIT_NOW.store(false, std::sync::atomic::Ordering::SeqCst);
        match r {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_string()),
        }
    }

    /// Asks until the answer is one of `choices` (case-insensitive); `None` at end of input.
    pub(crate) fn choose(&mut self, prompt: &str, choices: &[&str]) -> Option<String> {
        loop {
            let a = self.ask(prompt)?;
            if let Some(c) = choices.iter().find(|c| c.eq_ignore_ascii_case(&a)) {
                return Some(c.to_string());
            }
            let _ = writeln!(self.output, "Please answer one of: {}", choices.join(", "));
        }
    }
}

// Seat names are part of the terminal view; kept reachable here for callers.
pub(crate) use crate::output::board_text::seat_label;

/// What the person decided.
pub(crate) enum HumanMove<M> {
    /// A legal move.
    Move(M),
    /// Gave up (typed `resign`/`quit`, or the input ended).
    Resign(String),
}

/// Turns a typed line into move text: several lines of a move (Halma jump
/// hops) may be typed on one line separated by `|` or `;`.
pub(crate) fn typed_to_move_text(line: &str) -> String {
    let mut s: String = line
        .split(['|', ';'])
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    s.push('\n');
    s
}

/// Reads a typed move: the `output.txt` syntax (lines joined by `|` or `;`),
/// or the move as the referee prints it (Fifteen's `(1, 1, 13)`, Connect
/// Square's `R in column 3`, Hashi's `B 0 0 0 2 (bridge ...)`), so that a
/// person can type back what they were shown.
pub(crate) fn parse_typed<G: FileGame>(state: &G, line: &str, buf: &mut Vec<G::Move>) -> Result<G::Move, MoveError> {
    let first = state.parse_move(&typed_to_move_text(line));
    if first.is_ok() {
        return first;
    }
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase();
    let want = norm(line);
    buf.clear();
    state.legal_moves(buf);
    if let Some(&m) = buf.iter().find(|&&m| norm(&state.describe_move(m)) == want) {
        return Ok(m);
    }
    // The shown form with its punctuation dropped, `(1, 1, 13)` -> `1 1 13`;
    // its verdict is kept when it reads as a move, since it then says why
    // that move is illegal.
    let loose: String = line.chars().map(|c| if "(),".contains(c) { ' ' } else { c }).collect();
    if loose != line {
        match state.parse_move(&typed_to_move_text(&loose)) {
            Err(MoveError::Malformed(_)) => {}
            other => return other,
        }
    }
    first
}

/// Draws the board and asks the person for a move until a legal one is typed.
pub(crate) fn ask_move<G: FileGame>(
    state: &G,
    io: &mut HumanIo,
    names: ByPlayer<&str>,
    clocks: ByPlayer<f64>,
    buf: &mut Vec<G::Move>,
) -> HumanMove<G::Move> {
    let seat = state.to_move();
    if !io.board_shown {
        let view = state.board_view();
        let _ = writeln!(
            io.output,
            "\n{}\n{}",
            crate::output::board_text::board(&view, &[]),
            crate::output::board_text::legend(&view)
        );
    }
    let _ = writeln!(
        io.output,
        "Clocks: {} {}, {} {}. You play {}.",
        seat_label(names[Player::One]),
        crate::output::board_text::clock(clocks[Player::One]),
        seat_label(names[Player::Two]),
        crate::output::board_text::clock(clocks[Player::Two]),
        seat_label(names[seat])
    );
    let _ = writeln!(
        io.output,
        "Type your move in the output.txt syntax ('?' lists legal moves, 'resign' gives up)."
    );
    loop {
        let Some(line) = io.ask(&format!("{} move> ", names[seat])) else {
            return HumanMove::Resign("the input ended".into());
        };
        match line.as_str() {
            "" => continue,
            "?" | "moves" | "help" => {
                buf.clear();
                state.legal_moves(buf);
                let _ = writeln!(io.output, "{} legal moves:", buf.len());
                for &m in buf.iter() {
                    let text = state.format_move(m).trim_end().replace('\n', " | ");
                    let desc = state.describe_move(m);
                    if desc == text {
                        let _ = writeln!(io.output, "  {text}");
                    } else {
                        let _ = writeln!(io.output, "  {text}    {desc}");
                    }
                }
                continue;
            }
            "board" => {
                let _ = writeln!(
                    io.output,
                    "{}",
                    crate::output::board_text::board(&state.board_view(), &[])
                );
                continue;
            }
            "resign" | "quit" => return HumanMove::Resign(format!("typed {line:?}")),
            _ => {}
        }
        match parse_typed(state, &line, buf) {
            Ok(m) => return HumanMove::Move(m),
            Err(MoveError::Malformed(m)) => {
                let _ = writeln!(io.output, "Not a move: {m}. Try again ('?' lists legal moves).");
            }
            Err(MoveError::Illegal(m)) => {
                let _ = writeln!(io.output, "Illegal: {m}. Try again ('?' lists legal moves).");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent::TestNim;
    use agent::{Notation, View};

    fn io(script: &str) -> (HumanIo, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
        #[derive(Clone)]
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let io = HumanIo {
            input: Box::new(std::io::Cursor::new(script.to_string().into_bytes())),
            output: Box::new(Shared(out.clone())),
            board_shown: false,
        };
        (io, out)
    }

    #[test]
    fn bad_input_is_asked_again_and_moves_listed() {
        let g = TestNim {
            pile: 2,
            side: Player::One,
        };
        let (mut h, out) = io("abc\n3\n?\n2\n");
        let mut buf = Vec::new();
        match ask_move(&g, &mut h, ByPlayer::new("1", "2"), ByPlayer::new(1.0, 1.0), &mut buf) {
            HumanMove::Move(m) => assert_eq!(m, 2),
            HumanMove::Resign(_) => panic!("resigned"),
        }
        let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
        assert!(text.contains("Not a move"), "{text}");
        assert!(text.contains("Illegal"), "{text}");
        assert!(text.contains("2 legal moves"), "{text}");
    }

    #[test]
    fn end_of_input_resigns() {
        let g = TestNim {
            pile: 2,
            side: Player::One,
        };
        let (mut h, _) = io("abc\n");
        assert!(matches!(
            ask_move(
                &g,
                &mut h,
                ByPlayer::new("1", "2"),
                ByPlayer::new(1.0, 1.0),
                &mut Vec::new()
            ),
            HumanMove::Resign(_)
        ));
        assert_eq!(typed_to_move_text("J 1,1 3,3 | J 3,3 5,5"), "J 1,1 3,3\nJ 3,3 5,5\n");
    }

    #[test]
    fn moves_are_accepted_as_they_are_shown() {
        use agent::Fifteen;
        use agent::{GenOptions, Setup};
        let g = Fifteen::generate(&GenOptions {
            size: Some(4),
            ..GenOptions::default()
        })
        .unwrap();
        let mut buf = Vec::new();
        let shown = parse_typed(&g, "(1, 1, 13)", &mut buf).unwrap();
        assert_eq!(shown, g.parse_move("1 1 13").unwrap());
        assert_eq!(g.describe_move(shown), "(1, 1, 13)");
        assert_eq!(parse_typed(&g, "1 1 13", &mut buf).unwrap(), shown);
        // A shown move that is illegal says why, not that it is malformed.
        assert!(matches!(
            parse_typed(&g, "(1, 1, 4)", &mut buf),
            Err(MoveError::Illegal(_))
        ));
        assert!(matches!(
            parse_typed(&g, "(1, 1)", &mut buf),
            Err(MoveError::Malformed(_))
        ));
    }
}
