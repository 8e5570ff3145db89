//! The terminal view of a game: boards drawn from the game's
//! [`BoardView`] with the last move in brackets, a one-line legend, one line
//! per ply, and a final board headed by the result. `--show` chooses how much
//! is printed, so a whole game fits on a screen or two.

use crate::output::record::GameRecord;
use agent::{BoardView, MoveView};
use clap::ValueEnum;
use std::fmt::Write as _;

/// How much of a game the terminal shows (`--show`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Show {
    /// The board after every ply.
    All,
    /// One line per ply, the board every `--board-every` plies and at the end.
    Moves,
    /// Only the final board and the result.
    End,
}

/// A seat name for people: `player 1` for numbered seats, else the name.
pub(crate) fn seat_label(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_digit()) {
        format!("player {name}")
    } else {
        name.to_string()
    }
}

/// A clock reading with the same two decimals everywhere.
pub(crate) fn clock(t: f64) -> String {
    format!("{:.2} s", t.max(0.0))
}

/// The board as text: column numbers above, row numbers at the left, the
/// cells of `marked` (the last move) in brackets, then the view's facts.
pub(crate) fn board(view: &BoardView, marked: &[(usize, usize)]) -> String {
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
pub(crate) fn legend(view: &BoardView) -> String {
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
pub(crate) fn result_line(rec: &GameRecord) -> String {
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
pub(crate) fn result_heading(rec: &GameRecord, view: &BoardView, last: Option<&MoveView>) -> String {
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

/// A move text in few columns: a chain of hops of one piece (`J 1,1 3,3`,
/// `J 3,3 5,5`) as `J 1,1>3,3>5,5`; other multi-line moves joined by ` | `.
pub(crate) fn compact_move(text: &str) -> String {
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split_whitespace().collect()).collect();
    let chain = lines.len() > 1
        && lines.iter().all(|w| w.len() == 3 && w[0] == lines[0][0])
        && lines.windows(2).all(|p| p[0][2] == p[1][1]);
    if !chain {
        return text.lines().map(str::trim).collect::<Vec<_>>().join(" | ");
    }
    let mut s = format!("{} {}", lines[0][0], lines[0][1]);
    for w in &lines {
        s.push('>');
        s.push_str(w[2]);
    }
    s
}

/// `text` in lines of at most `width` characters, broken before a `>` (a
/// jump chain goes on at the start of the next line) or a space where it
/// can be, else anywhere: a long chain is shown whole, never cut.
pub(crate) fn wrap_move(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut piece = String::new();
    let mut pieces = Vec::new();
    for ch in text.chars() {
        if (ch == '>' || ch == ' ') && !piece.is_empty() {
            pieces.push(std::mem::take(&mut piece));
        }
        piece.push(ch);
    }
    pieces.push(piece);
    for p in pieces {
        if cur.chars().count() + p.chars().count() > width && !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
        }
        let p = if cur.is_empty() { p.trim_start().to_string() } else { p };
        for ch in p.chars() {
            if cur.chars().count() == width {
                lines.push(std::mem::take(&mut cur));
            }
            cur.push(ch);
        }
    }
    lines.push(cur);
    lines
}

/// Every line of `text` wrapped at 80 columns on spaces (continuations
/// indented by two), so agent names and long reasons never overflow.
pub(crate) fn wrap80(text: &str) -> String {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut cur = String::new();
        for word in line.split(' ') {
            let len = cur.chars().count();
            if len > 0 && len + 1 + word.chars().count() > 80 {
                out.push(std::mem::take(&mut cur));
                cur.push_str("  ");
            } else if len > 0 {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push(cur);
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::narrator::Narrator;
    use crate::output::record::{Ending, MoveRecord};
    use agent::ConnectSquare;
    use agent::Fifteen;
    use agent::Halma;
    use agent::Hashi;
    use agent::Hinger;
    use agent::Notation;
    use agent::{ByPlayer, FileGame};

    /// Plays `moves` (texts) from `start` through a narrator and returns
    /// everything it printed, with a record of the game for the ending.
    fn narrate<G: FileGame>(start: &str, moves: &[&str], show: Show) -> String {
        let mut state = G::parse_input(start).expect("test position parses").state;
        let names = G::player_names().map(String::from);
        let agents = ["alpha".to_string(), "beta".to_string()];
        let _ = &agents;
        let mut n = Narrator::new(&state, ByPlayer::from(names.clone().map(|s| seat_label(&s))), show, 2);
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
            out.push(n.ply(&state, &m, ByPlayer::new(9.5, 9.75)));
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

    /// Narration with wrapped lines joined again (continuations start with
    /// two spaces and a non-space, unlike board rows).
    fn flat(out: &str) -> String {
        let mut s = String::new();
        for line in out.lines() {
            let cont = line.starts_with("  ") && !line.starts_with("   ") && !s.is_empty();
            if cont {
                s.push(' ');
                s.push_str(line.trim_start());
            } else {
                if !s.is_empty() {
                    s.push('\n');
                }
                s.push_str(line);
            }
        }
        s
    }

    #[test]
    fn halma_marks_the_step_and_explains_camp_cells() {
        let start = Halma::start(agent::Player::One).write_input(agent::Mode::Game, 10.0);
        let out = narrate::<Halma>(&start, &["E 4,0 5,0"], Show::All);
        assert!(out.contains(": empty camp cell"), "{out}");
        let row0 = out.lines().rfind(|l| l.starts_with(" 0 ")).expect("row 0 drawn");
        assert!(row0.contains("[:] [B]"), "{out}");
        assert!(out.contains("ply 1: BLACK plays E 4,0 5,0   (0.50 s CPU"), "{out}");
        assert!(out.contains("left 9.50 s | 9.75 s"), "{out}");
        assert!(out.contains("WHITE to move"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    }

    #[test]
    fn a_long_jump_chain_is_shown_whole_wrapping_in_its_column() {
        // A BLACK piece at (0,6) hops along row 6 over seven WHITE pieces;
        // the other pieces stand out of the way, none in a camp.
        let mut rows = vec![".".repeat(16); 16];
        rows[6] = "BW.W.W.W.W.W.W..".to_string();
        rows[9] = "B".repeat(16);
        rows[10] = format!("BB{}", ".".repeat(14));
        rows[12] = format!("{}....", "W".repeat(12));
        let start = format!("GAME\nBLACK\n10.0\n{}\n", rows.join("\n"));
        let hops: Vec<String> = (0..7).map(|k| format!("J {},6 {},6", 2 * k, 2 * k + 2)).collect();
        let chain = hops.join("\n");
        let out = narrate::<Halma>(&start, &[&chain, "E 0,12 0,13"], Show::Moves);
        assert!(!out.contains('~'), "{out}");
        assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
        let cells: String = out
            .lines()
            .skip_while(|l| !l.starts_with("  1."))
            .take(2)
            .map(|l| l[6..l.len().min(6 + 23)].trim_end().to_string())
            .collect();
        assert_eq!(cells, "J 0,6>2,6>4,6>6,6>8,6>10,6>12,6>14,6", "{out}");
        assert!(out.contains("E 0,12 0,13"), "the reply beside it: {out}");
    }

    #[test]
    fn wrap_move_breaks_before_hops_and_never_drops_a_character() {
        assert_eq!(wrap_move("E 1,1 2,2", 23), ["E 1,1 2,2"]);
        assert_eq!(wrap_move("J 1,1>3,3>5,5", 9), ["J 1,1>3,3", ">5,5"]);
        assert_eq!(wrap_move("abcdefgh", 3), ["abc", "def", "gh"]);
    }

    #[test]
    fn hinger_end_names_the_hinger_and_drops_the_side_to_move() {
        let out = flat(&narrate::<Hinger>(
            "HINGER\nGAME\n1\n10.0\n1 3\n1 1 1\n",
            &["0 1"],
            Show::Moves,
        ));
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
        let out = flat(&narrate::<Fifteen>(start, &["0 0 8"], Show::All));
        assert!(
            out.contains("plays (0, 0, 8), removes its own card at (0, 0), 2:13 at (1, 1)"),
            "{out}"
        );
        assert!(out.contains("[X]"), "{out}");
        let start = "FIFTEEN\nGAME\n1\n10.0\n4\n2:8 . . 2:5\n. . . .\n. . . .\n. . . .\n1: 13\n2:\n";
        let out = flat(&narrate::<Fifteen>(start, &["3 3 13"], Show::Moves));
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
