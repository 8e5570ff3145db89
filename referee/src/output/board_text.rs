//! The terminal view of a game: boards drawn from the game's
//! [`BoardView`] with the last move in brackets, a one-line legend, one line
//! per ply, and a final board headed by the result. `--show` chooses how much
//! is printed, so a whole game fits on a screen or two.

use crate::output::record::{GameRecord, MoveRecord};
use agent::protocol::{BoardView, FileGame, MoveView};
use clap::ValueEnum;
use std::fmt::Write as _;

/// How much of a game the terminal shows (`--show`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Show {
    /// The board after every ply.
    All,
    /// One line per ply, the board every `--board-every` plies and at the end.
    Moves,
    /// Only the final board and the result.
    End,
}

/// A seat name for people: `player 1` for numbered seats, else the name.
pub fn seat_label(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_digit()) {
        format!("player {name}")
    } else {
        name.to_string()
    }
}

/// Seat labels for people: the seat as the game names it and who sits there,
/// e.g. `BLACK (agent)`, `player 2 (agent --depth 2)`.
pub fn seat_labels(seat_names: &[String; 2], agents: &[String; 2]) -> [String; 2] {
    [0, 1].map(|i| format!("{} ({})", seat_label(&seat_names[i]), agents[i]))
}

/// A clock reading with the same two decimals everywhere.
pub fn clock(t: f64) -> String {
    format!("{:.2} s", t.max(0.0))
}

/// The board as text: column numbers above, row numbers at the left, the
/// cells of `marked` (the last move) in brackets, then the view's facts.
pub fn board(view: &BoardView, marked: &[(usize, usize)]) -> String {
    let sym_len = view.cells.iter().map(|c| c.symbol.chars().count()).max().unwrap_or(1);
    let col_len = view.cols.saturating_sub(1).to_string().len();
    // Room for the symbol and its brackets.
    let w = sym_len.max(col_len) + 2;
    let row_w = view.rows.saturating_sub(1).to_string().len();
    let mut s = format!("{:row_w$} ", "");
    for c in 0..view.cols {
        let _ = write!(s, "{:^w$}", c);
    }
    let trimmed = s.trim_end().len();
    s.truncate(trimmed);
    for r in 0..view.rows {
        let _ = write!(s, "\n{r:>row_w$} ");
        for c in 0..view.cols {
            let sym = &view.cell(r, c).symbol;
            if marked.contains(&(r, c)) {
                let _ = write!(s, "{:^w$}", format!("[{sym}]"));
            } else {
                let _ = write!(s, "{sym:^w$}");
            }
        }
        let trimmed = s.trim_end().len();
        s.truncate(trimmed);
    }
    for f in &view.facts {
        let _ = write!(s, "\n{f}");
    }
    s
}

/// One line naming every symbol of the board and the last-move brackets.
pub fn legend(view: &BoardView) -> String {
    let mut parts: Vec<String> = Vec::new();
    for e in &view.legend {
        // Entries that differ only in their drawn sample (one per seat) print once.
        let part = format!("{} {}", e.symbol, e.meaning);
        if !parts.contains(&part) {
            parts.push(part);
        }
    }
    parts.push("[ ] last move".into());
    format!("Legend: {}", parts.join(", "))
}

/// "Result: ..." for a finished game, from the record alone.
pub fn result_line(rec: &GameRecord) -> String {
    match rec.winner {
        Some(w) => format!(
            "Result: {} ({}) wins: {}",
            seat_label(&rec.seat_names[w]),
            rec.agents[w],
            rec.reason
        ),
        None => format!("Result: draw: {}", rec.reason),
    }
}

/// The result as a heading: who won and, when the game's rules decided it,
/// the game's own account (the hinger taken, the square completed, the
/// scores and tie-break) and what the last move did.
pub fn result_heading(rec: &GameRecord, view: &BoardView, last: Option<&MoveView>) -> String {
    let outcome = view
        .outcome
        .as_deref()
        .filter(|_| rec.ending == crate::output::record::Ending::Rules);
    let Some(outcome) = outcome else {
        // A forfeit, the move cap, a stuck side: the referee's reason says it all.
        return result_line(rec);
    };
    let mut s = match rec.winner {
        Some(w) => format!(
            "Result: {} ({}) wins: {outcome}",
            seat_label(&rec.seat_names[w]),
            rec.agents[w]
        ),
        None => format!("Result: draw: {outcome}"),
    };
    if let Some(note) = last.and_then(|m| m.note.as_deref()) {
        let _ = write!(s, " (last move: {note})");
    }
    s
}

/// Narrates one game as it is played or replayed, following `--show`.
pub struct Narrator<G: FileGame> {
    show: Show,
    every: usize,
    seats: [String; 2],
    prev: G,
    last: Option<MoveView>,
}

impl<G: FileGame> Narrator<G> {
    /// A narrator for a game starting at `start`, with seat labels from [`seat_labels`].
    pub fn new(start: &G, seats: [String; 2], show: Show, every: usize) -> Self {
        Narrator {
            show,
            every: every.max(1),
            seats,
            prev: start.clone(),
            last: None,
        }
    }

    /// The text before the first move: the legend and, unless only the end
    /// is shown, the start board.
    pub fn opening(&self) -> String {
        let view = self.prev.board_view();
        if self.show == Show::End {
            return legend(&view);
        }
        format!(
            "{}\n{}\n{}",
            legend(&view),
            board(&view, &[]),
            self.to_move_line(&self.prev)
        )
    }

    fn to_move_line(&self, state: &G) -> String {
        format!("{} to move", self.seats[state.to_move().index()])
    }

    /// The text for one ply (`after` is the position the move led to).
    pub fn ply(&mut self, after: &G, m: &MoveRecord, clocks: [f64; 2]) -> String {
        let mv = self.prev.parse_move(&m.text).ok();
        let described = mv.map_or_else(|| m.text.replace('\n', " | "), |mv| self.prev.describe_move(mv));
        let view_of_move = mv.map(|mv| self.prev.move_view(mv));
        self.prev = after.clone();
        let mut s = format!("ply {}: {} plays {}", m.ply, self.seats[m.seat], described);
        if let Some(note) = view_of_move.as_ref().and_then(|v| v.note.as_deref()) {
            let _ = write!(s, ", {note}");
        }
        let _ = write!(
            s,
            "   ({:.2} s CPU; clocks {} | {})",
            m.cpu,
            clock(clocks[0]),
            clock(clocks[1])
        );
        let show_board = match self.show {
            Show::All => true,
            Show::Moves => m.ply.is_multiple_of(self.every),
            Show::End => false,
        };
        self.last = view_of_move;
        if show_board && after.result().is_none() {
            let marked = self.last.as_ref().map_or(&[][..], |v| &v.cells[..]);
            let _ = write!(
                s,
                "\n{}\n{}",
                board(&after.board_view(), marked),
                self.to_move_line(after)
            );
        }
        if self.show == Show::End {
            return String::new();
        }
        s
    }

    /// The end: the result with its reason as a heading, then the final board
    /// (no side to move) with the last move marked.
    pub fn ending(&self, rec: &GameRecord) -> String {
        let view = self.prev.board_view();
        let marked = self.last.as_ref().map_or(&[][..], |v| &v.cells[..]);
        format!(
            "{}\n{}\nclocks: {} {}, {} {}; {} plies",
            result_heading(rec, &view, self.last.as_ref()),
            board(&view, marked),
            self.seats[0],
            clock(rec.clocks[0]),
            self.seats[1],
            clock(rec.clocks[1]),
            rec.moves.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::record::Ending;
    use agent::games::connectsquare::ConnectSquare;
    use agent::games::fifteen::Fifteen;
    use agent::games::halma::Halma;
    use agent::games::hashi::Hashi;
    use agent::games::hinger::Hinger;

    /// Plays `moves` (texts) from `start` through a narrator and returns
    /// everything it printed, with a record of the game for the ending.
    fn narrate<G: FileGame>(start: &str, moves: &[&str], show: Show) -> String {
        let mut state = G::parse_input(start).expect("test position parses").state;
        let names = G::player_names().map(String::from);
        let agents = ["alpha".to_string(), "beta".to_string()];
        let mut n = Narrator::new(&state, seat_labels(&names, &agents), show, 2);
        let mut out = vec![n.opening()];
        let mut recs = Vec::new();
        for (i, text) in moves.iter().enumerate() {
            let mv = state.parse_move(text).expect("test move is legal");
            let m = MoveRecord {
                ply: i + 1,
                seat: state.to_move().index(),
                text: state.format_move(mv).trim_end().to_string(),
                cpu: 0.5,
                left: 9.5,
                wall: 0.5,
                info: None,
            };
            state.play(mv);
            out.push(n.ply(&state, &m, [9.5, 9.75]));
            recs.push(m);
        }
        let winner = state.result().flatten().map(|p| p.index());
        let rec = GameRecord {
            key: "g1".into(),
            game: G::NAME.into(),
            agents: agents.clone(),
            commands: agents.clone(),
            seat_names: names,
            first: 0,
            mode: "GAME".into(),
            time: [10.0, 10.0],
            start: start.into(),
            moves: recs,
            winner,
            ending: Ending::Rules,
            loss: None,
            reason: "by the rules".into(),
            clocks: [9.5, 9.75],
            dirs: [String::new(), String::new()],
            discarded: Vec::new(),
            run: Default::default(),
        };
        if state.result().is_some() {
            out.push(n.ending(&rec));
        }
        out.retain(|s| !s.is_empty());
        out.join("\n")
    }

    #[test]
    fn halma_marks_the_step_and_explains_camp_cells() {
        let start = Halma::start(agent::protocol::Player::One).write_input(agent::protocol::Mode::Game, 10.0);
        let out = narrate::<Halma>(&start, &["E 4,0 5,0"], Show::All);
        assert!(out.contains(": empty camp cell"), "{out}");
        let row0 = out.lines().rfind(|l| l.starts_with(" 0 ")).expect("row 0 drawn");
        assert!(row0.contains("[:] [B]"), "{out}");
        assert!(
            out.contains("ply 1: BLACK (alpha) plays E 4,0 5,0   (0.50 s CPU"),
            "{out}"
        );
        assert!(out.contains("clocks 9.50 s | 9.75 s"), "{out}");
        assert!(out.contains("WHITE (beta) to move"), "{out}");
    }

    #[test]
    fn hinger_end_names_the_hinger_and_drops_the_side_to_move() {
        let out = narrate::<Hinger>("HINGER\nGAME\n1\n10.0\n1 3\n1 1 1\n", &["0 1"], Show::Moves);
        let end = out.split("Result:").nth(1).expect("a result heading");
        assert!(end.contains("player 1 moved on a hinger"), "{out}");
        assert!(end.contains("(0, 1) was a hinger"), "{out}");
        assert!(end.contains("\n0  1 [.] 1\n"), "{out}");
        assert!(!end.contains("to move"), "{out}");
        assert!(out.contains("H hinger"), "{out}");
    }

    #[test]
    fn connect_square_marks_the_winning_square() {
        let start = "CONNECTSQUARE\nGAME\nR\n10.0\n3 3\n...\nR..\nRRY\n";
        let out = narrate::<ConnectSquare>(start, &["1"], Show::End);
        assert!(
            out.contains("R completed the 2x2 square at rows 1-2, columns 0-1"),
            "{out}"
        );
        assert!(out.contains("\n1  R* [R*] .\n"), "{out}");
        assert!(out.contains("\n2  R*  R*  Y\n"), "{out}");
        assert!(!out.contains("ply"), "--show end prints no ply lines: {out}");
    }

    #[test]
    fn fifteen_announces_removed_cards_and_the_tie_break() {
        let start = "FIFTEEN\nGAME\n1\n10.0\n4\n. . . .\n. 2:13 . .\n. . . .\n. . . .\n1: 2 3 5 8 13\n2: 2 3 5 8\n";
        let out = narrate::<Fifteen>(start, &["0 0 8"], Show::All);
        assert!(
            out.contains("plays (0, 0, 8), removes its own card at (0, 0), 2:13 at (1, 1)"),
            "{out}"
        );
        assert!(out.contains("[X]"), "{out}");
        let start = "FIFTEEN\nGAME\n1\n10.0\n4\n2:8 . . 2:5\n. . . .\n. . . .\n. . . .\n1: 13\n2:\n";
        let out = narrate::<Fifteen>(start, &["3 3 13"], Show::Moves);
        assert!(
            out.contains(
                "scores: player 1 13, player 2 13, equal; tie broken by the highest card on the board: 13 against 8"
            ),
            "{out}"
        );
        assert!(out.contains("[1:13]"), "{out}");
    }

    #[test]
    fn hashi_marks_both_islands_of_a_bridge() {
        let start = "HASHI\nGAME\n1\n60.0\n0 0\n3\n1 . 1\n. . .\n. . .\n0\n";
        let out = narrate::<Hashi>(start, &["B 0 0 0 2"], Show::Moves);
        assert!(out.contains("\n0 [1] - [1]\n"), "{out}");
        assert!(out.contains("completes islands worth 2 points"), "{out}");
        assert!(out.contains("points: player 1 2, player 2 -2"), "{out}");
    }
}
