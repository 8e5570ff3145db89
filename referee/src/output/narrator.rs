//! Narrating one game on the terminal as it is played or replayed,
//! following `--show` (see [`crate::output::board_text`] for the pieces).

use crate::output::board_text::{board, clock, compact_move, legend, result_heading, wrap80, wrap_move, Show};
use crate::output::record::{GameRecord, MoveRecord};
use agent::{ByPlayer, FileGame, MoveView, Player};
use std::fmt::Write as _;

/// Narrates one game as it is played or replayed, following `--show`.
/// Every line fits 80 columns: boards and per-ply lines use the short seat
/// names, and with `--show moves` the plies go two to a line (a full move),
/// so a whole Halma game fits about a hundred lines (a long jump chain goes
/// on below, in its own column, never cut).
pub(crate) struct Narrator<G: FileGame> {
    show: Show,
    /// Plies between boards with `--show moves`; 0: start and end only.
    every: usize,
    seats: ByPlayer<String>,
    prev: G,
    last: Option<MoveView>,
    /// The full move being written (`--show moves`): each seat's cell, in
    /// lines (a long jump chain goes on below, in its own column).
    row: ByPlayer<Option<Vec<String>>>,
    /// Full moves written so far.
    rows: usize,
}

/// Width of a move's cell in the `--show moves` table.
const CELL: usize = 29;

impl<G: FileGame> Narrator<G> {
    /// A narrator for a game starting at `start`; `seats` are the labels of
    /// the seats (short: `BLACK`, `player 1`; see [`seat_label`]).
    pub(crate) fn new(start: &G, seats: ByPlayer<String>, show: Show, every: usize) -> Self {
        Narrator {
            show,
            every,
            seats,
            prev: start.clone(),
            last: None,
            row: ByPlayer::default(),
            rows: 0,
        }
    }

    /// The text before the first move: the legend and, unless only the end
    /// is shown, the start board (and the moves table's heading).
    pub(crate) fn opening(&self) -> String {
        let view = self.prev.board_view();
        if self.show == Show::End {
            return wrap80(&legend(&view));
        }
        let mut s = format!(
            "{}\n{}\n{}",
            wrap80(&legend(&view)),
            board(&view, &[]),
            self.to_move_line(&self.prev)
        );
        if self.show == Show::Moves {
            let _ = write!(
                s,
                "\n\n{:>4}  {:<CELL$}  {:<CELL$}  CPU left",
                "",
                self.seats[Player::One],
                self.seats[Player::Two]
            );
        }
        s
    }

    fn to_move_line(&self, state: &G) -> String {
        format!("{} to move", self.seats[state.to_move()])
    }

    /// The text for one ply (`after` is the position the move led to);
    /// empty while a `--show moves` line waits for the other seat's ply.
    pub(crate) fn ply(&mut self, after: &G, m: &MoveRecord, clocks: ByPlayer<f64>) -> String {
        let mv = self.prev.parse_move(&m.text).ok();
        // A one-line move as the game describes it to people; a chain compacted.
        let compact = match mv {
            Some(mv) if !m.text.trim().contains('\n') => self.prev.describe_move(mv),
            _ => compact_move(&m.text),
        };
        let view_of_move = mv.map(|mv| self.prev.move_view(mv));
        self.prev = after.clone();
        self.last = view_of_move;
        let board_due = match self.show {
            Show::All => true,
            Show::Moves => self.every > 0 && m.ply.is_multiple_of(self.every),
            Show::End => false,
        } && after.result().is_none();
        let mut s = match self.show {
            Show::End => return String::new(),
            Show::All => {
                let note = self.last.as_ref().and_then(|v| v.note.as_deref());
                wrap80(&format!(
                    "ply {}: {} plays {compact}{}   ({:.2} s CPU; left {} | {})",
                    m.ply,
                    self.seats[Player::from_index(m.seat)],
                    note.map(|n| format!(", {n}")).unwrap_or_default(),
                    m.cpu,
                    clock(clocks[Player::One]),
                    clock(clocks[Player::Two])
                ))
            }
            Show::Moves => self.add_to_row(m, &compact, clocks),
        };
        if board_due {
            if self.show == Show::Moves {
                s = join_lines(s, self.flush_row(clocks));
            }
            let marked = self.last.as_ref().map_or(&[][..], |v| &v.cells[..]);
            let board = format!("{}\n{}", board(&after.board_view(), marked), self.to_move_line(after));
            s = join_lines(s, board);
        }
        s
    }

    /// Puts a ply in the current full move; returns the line when it is done.
    fn add_to_row(&mut self, m: &MoveRecord, compact: &str, clocks: ByPlayer<f64>) -> String {
        let mut cell = wrap_move(compact, CELL - 6);
        cell[0] = format!("{:<w$} {:>5.2}", cell[0], m.cpu, w = CELL - 6);
        let seat = Player::from_index(m.seat);
        // A seat that moves again before the other (a skipped turn) starts a new line.
        let mut done = if self.row[seat].is_some() || (seat == Player::One && self.row[Player::Two].is_some()) {
            self.flush_row(clocks)
        } else {
            String::new()
        };
        self.row[seat] = Some(cell);
        if seat == Player::Two {
            done = join_lines(done, self.flush_row(clocks));
        }
        done
    }

    /// The current full move as a line, and the rest of any wrapped cell
    /// on the lines below (empty when nothing is pending).
    fn flush_row(&mut self, clocks: ByPlayer<f64>) -> String {
        if self.row.iter().all(|(_, c)| c.is_none()) {
            return String::new();
        }
        self.rows += 1;
        let [a, b] = std::mem::take(&mut self.row)
            .map(|c| c.unwrap_or_else(|| vec!["...".to_string()]))
            .into_array();
        let mut s = format!(
            "{:>4}  {:<CELL$}  {:<CELL$}  {:.1}|{:.1}",
            format!("{}.", self.rows),
            a[0],
            b[0],
            clocks[Player::One].max(0.0),
            clocks[Player::Two].max(0.0)
        );
        for i in 1..a.len().max(b.len()) {
            let part = |c: &[String]| c.get(i).cloned().unwrap_or_default();
            let line = format!("{:>4}  {:<CELL$}  {}", "", part(&a), part(&b));
            let _ = write!(s, "\n{}", line.trim_end());
        }
        s
    }

    /// The end: the result with its reason as a heading, then the final board
    /// (no side to move) with the last move marked.
    pub(crate) fn ending(&mut self, rec: &GameRecord) -> String {
        let pending = self.flush_row(ByPlayer::from(rec.clocks));
        let view = self.prev.board_view();
        let marked = self.last.as_ref().map_or(&[][..], |v| &v.cells[..]);
        let end = format!(
            "{}\n{}\n{}",
            wrap80(&result_heading(rec, &view, self.last.as_ref())),
            board(&view, marked),
            wrap80(&format!(
                "clocks: {} {}, {} {}; {} plies",
                self.seats[Player::One],
                clock(rec.clocks[0]),
                self.seats[Player::Two],
                clock(rec.clocks[1]),
                rec.moves.len()
            ))
        );
        if pending.is_empty() {
            format!("\n{end}")
        } else {
            format!("{pending}\n\n{end}")
        }
    }
}

/// Two blocks of lines, either possibly empty, one after the other.
fn join_lines(a: String, b: String) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b,
        (_, true) => a,
        _ => format!("{a}\n{b}"),
    }
}
