//! The contest text formats for Halma (docs/protocol.md): `input.txt` parsing with
//! line-numbered errors, writing, move printing (with a hop path that is
//! legal under every reading) and the referee's judgement of move texts.

use super::bitboard::{cell, col, row, Bitboard, CAMP, N};
use super::{cell_text, colour_name, HMove, Halma, Reading, PIECES};
use crate::protocol::{
    format_time, parse_mode, parse_time, BoardView, ByPlayer, CellView, GenOptions, Ground, Input, LegendEntry, Lines,
    Mode, MoveError, MoveView, Notation, ParseError, Player, Setup, View,
};

/// Parses a whole Halma `input.txt`.
pub fn parse_input(text: &str) -> Result<Input<Halma>, ParseError> {
    let mut lines = Lines::new(text);
    let mode = parse_mode(&mut lines)?;
    let c = lines.next_line("the colour to play (BLACK or WHITE)")?;
    let side = match c.text.trim() {
        "BLACK" => Player::One,
        "WHITE" => Player::Two,
        other => return Err(c.error(format!("expected the colour to play, BLACK or WHITE, found {other:?}"))),
    };
    let remaining = parse_time(&mut lines)?;
    let mut pieces = ByPlayer::new(Bitboard::EMPTY, Bitboard::EMPTY);
    let mut first_board_line = 0;
    let mut last_line = 0;
    for y in 0..N {
        let l = lines.next().ok_or_else(|| {
            ParseError::at(
                last_line + 1,
                format!("the file ends after {y} of the 16 board rows; expected board row {y} (16 symbols B, W or .)"),
            )
        })?;
        if y == 0 {
            first_board_line = l.number;
        }
        last_line = l.number;
        let symbols: Vec<char> = l.text.chars().collect();
        if symbols.len() != N {
            return Err(l.error(format!(
                "expected board row {y}: 16 symbols B, W or '.', found {} symbols in {:?}",
                symbols.len(),
                l.text
            )));
        }
        for (x, ch) in symbols.into_iter().enumerate() {
            match ch {
                'B' => pieces[Player::One].set(cell(x, y)),
                'W' => pieces[Player::Two].set(cell(x, y)),
                '.' => {}
                other => {
                    // 0-based like every row and column in messages (README).
                    return Err(l.error(format!(
                        "cell {x},{y} (board row {y}, column {x}): expected B, W or '.', found {other:?}"
                    )));
                }
            }
        }
    }
    for (k, p) in pieces.iter() {
        if p.count() != PIECES {
            return Err(ParseError::at(
                first_board_line,
                format!(
                    "the board (lines {first_board_line}-{last_line}) has {} {} pieces; expected {PIECES}",
                    p.count(),
                    colour_name(k)
                ),
            ));
        }
    }
    Ok(Input {
        state: Halma::from_pieces(pieces[Player::One], pieces[Player::Two], side),
        mode,
        remaining,
    })
}

/// The board rows in the contest's symbols.
fn board_rows(pos: &Halma) -> String {
    let mut s = String::with_capacity(N * (N + 1));
    for y in 0..N {
        for x in 0..N {
            s.push(match pos.piece_at(cell(x, y)) {
                Some(Player::One) => 'B',
                Some(Player::Two) => 'W',
                None => '.',
            });
        }
        s.push('\n');
    }
    s
}

/// The exact contest `input.txt` for the side to move.
pub fn write_input(pos: &Halma, mode: Mode, remaining: f64) -> String {
    format!(
        "{}\n{}\n{}\n{}",
        mode.token(),
        colour_name(pos.side()),
        format_time(remaining),
        board_rows(pos)
    )
}

/// The board for a person, with column numbers above and below and row
/// numbers at both sides; camps are shaded with `:` where empty.
pub fn render(pos: &Halma) -> String {
    let mut header = String::from("   ");
    for x in 0..N {
        header.push_str(&format!("{x:>3}"));
    }
    let mut s = header.clone();
    s.push('\n');
    for y in 0..N {
        s.push_str(&format!("{y:>3}"));
        for x in 0..N {
            let c = cell(x, y);
            let ch = match pos.piece_at(c) {
                Some(Player::One) => 'B',
                Some(Player::Two) => 'W',
                None if CAMP[Player::One].has(c) || CAMP[Player::Two].has(c) => ':',
                None => '.',
            };
            s.push_str("  ");
            s.push(ch);
        }
        s.push_str(&format!("{y:>4}\n"));
    }
    s.push_str(&header);
    s.push_str(&format!("\n{} to move", colour_name(pos.side())));
    s
}

/// A shortest hop path from `mv.from` to `mv.to` whose intermediate landings
/// are all in `allowed`, by breadth-first search over landing squares.
/// Returns the cells visited, start and end included.
fn hop_path(pos: &Halma, mv: HMove, allowed: Bitboard) -> Option<Vec<u8>> {
    const NONE: u8 = 0xFF;
    let start = Bitboard::single(mv.from);
    let occ = pos.occupied() & !start;
    let mut parent = [NONE; 256];
    let mut seen = start;
    let mut queue = [0u8; 256];
    let (mut head, mut tail) = (0, 0);
    queue[tail] = mv.from;
    tail += 1;
    while head < tail {
        let c = queue[head];
        head += 1;
        let (x, y) = (col(c) as i32, row(c) as i32);
        for &(_, dx, dy) in super::bitboard::DIRS.iter() {
            let (ox, oy, lx, ly) = (x + dx, y + dy, x + 2 * dx, y + 2 * dy);
            if !(0..16).contains(&lx) || !(0..16).contains(&ly) {
                continue;
            }
            let over = cell(ox as usize, oy as usize);
            let land = cell(lx as usize, ly as usize);
            if !occ.has(over) || occ.has(land) || seen.has(land) {
                continue;
            }
            seen.set(land);
            parent[land as usize] = c;
            if land == mv.to {
                let mut path = vec![land];
                let mut p = land;
                while p != mv.from {
                    p = parent[p as usize];
                    path.push(p);
                }
                path.reverse();
                return Some(path);
            }
            if allowed.has(land) {
                queue[tail] = land;
                tail += 1;
            }
        }
    }
    None
}

/// The position for drawing: camps as ground, pieces owned by colour.
pub fn board_view(pos: &Halma) -> BoardView {
    let mut cells = Vec::with_capacity(N * N);
    for y in 0..N {
        for x in 0..N {
            let c = cell(x, y);
            let ground = if CAMP[Player::One].has(c) {
                Ground::Camp(Player::One)
            } else if CAMP[Player::Two].has(c) {
                Ground::Camp(Player::Two)
            } else {
                Ground::Plain
            };
            cells.push(match pos.piece_at(c) {
                Some(k) => {
                    let sym = if k == Player::One { "B" } else { "W" };
                    CellView::with_piece(ground, Some(k), "", sym)
                }
                None if ground == Ground::Plain => CellView::empty(ground, "."),
                None => CellView::empty(ground, ":"),
            });
        }
    }
    let outcome = Player::ALL.into_iter().find(|&k| pos.has_won(k)).map(|k| {
        format!(
            "{} filled {}'s camp (every cell occupied, at least one by {})",
            colour_name(k),
            colour_name(k.other()),
            colour_name(k)
        )
    });
    BoardView {
        rows: N,
        cols: N,
        cells,
        links: Vec::new(),
        facts: Vec::new(),
        outcome,
        legend: vec![
            LegendEntry::cell(
                "BLACK piece",
                CellView::with_piece(Ground::Plain, Some(Player::One), "", "B"),
            ),
            LegendEntry::cell(
                "WHITE piece",
                CellView::with_piece(Ground::Plain, Some(Player::Two), "", "W"),
            ),
            LegendEntry::cell("empty camp cell", CellView::empty(Ground::Camp(Player::One), ":")),
            LegendEntry::cell("empty cell", CellView::empty(Ground::Plain, ".")),
        ],
    }
}

/// The cells of a move as (row, column): a step's two cells, or every
/// landing cell of the hop path that [`format_move`] prints.
pub fn move_view(pos: &Halma, mv: HMove) -> MoveView {
    let text = format_move(pos, mv);
    let mut cells: Vec<(usize, usize)> = vec![(row(mv.from), col(mv.from))];
    for line in text.lines() {
        // Each line is `E|J x,y x,y`: its last token is where that hop lands.
        if let Some(Ok(Some(c))) = line.split_whitespace().nth(2).map(parse_cell) {
            cells.push((row(c), col(c)));
        }
    }
    let hops = cells.len() - 1;
    let note = (text.starts_with('J') && hops > 1).then(|| format!("{hops} hops"));
    MoveView { cells, note }
}

/// The `output.txt` text of a move: a step, or one `J` line per hop along a
/// shortest path that avoids the mover's own camp and stays inside the
/// opposing camp when it starts there, whenever such a path exists.
pub fn format_move(pos: &Halma, mv: HMove) -> String {
    let (dx, dy) = (
        col(mv.to) as i32 - col(mv.from) as i32,
        row(mv.to) as i32 - row(mv.from) as i32,
    );
    if dx.abs() <= 1 && dy.abs() <= 1 && !pos.occupied().has(mv.to) {
        return format!("E {} {}\n", cell_text(mv.from), cell_text(mv.to));
    }
    let side = pos.side();
    let own = CAMP[side];
    let goal = CAMP[side.other()];
    let keep = if goal.has(mv.from) { goal } else { Bitboard::FULL };
    let path = hop_path(pos, mv, keep & !own)
        .or_else(|| hop_path(pos, mv, keep))
        .or_else(|| hop_path(pos, mv, Bitboard::FULL));
    match path {
        Some(p) => {
            let mut s = String::new();
            for w in p.windows(2) {
                s.push_str(&format!("J {} {}\n", cell_text(w[0]), cell_text(w[1])));
            }
            s
        }
        // Not reachable: only for a move that is not legal; print it as a
        // single jump line so that the caller sees what was asked.
        None => format!("J {} {}\n", cell_text(mv.from), cell_text(mv.to)),
    }
}

/// Parses `x,y`. Numbers that parse but are off the board give `Ok(None)`.
fn parse_cell(tok: &str) -> Result<Option<u8>, String> {
    let (a, b) = tok
        .split_once(',')
        .ok_or_else(|| format!("expected a cell x,y, found {tok:?}"))?;
    let x: i64 = a
        .trim()
        .parse()
        .map_err(|_| format!("expected a cell x,y with integer x, found {tok:?}"))?;
    let y: i64 = b
        .trim()
        .parse()
        .map_err(|_| format!("expected a cell x,y with integer y, found {tok:?}"))?;
    if (0..16).contains(&x) && (0..16).contains(&y) {
        Ok(Some(cell(x as usize, y as usize)))
    } else {
        Ok(None)
    }
}

/// One line of a move text: its kind (`E` or `J`), its cells (`None`: off
/// the board) and the line itself, for messages.
struct Hop {
    kind: char,
    from: Option<u8>,
    to: Option<u8>,
    line: String,
}

/// The referee's judgement of a move text for the side to move (docs/protocol.md#halma,
/// the wider reading). Malformed: not the shape of a move (empty, a line that
/// is not `E|J x,y x,y`, several `E` lines, `E` mixed with `J`, hops not
/// chained). Illegal: well formed but against the rules.
pub fn parse_move(pos: &Halma, text: &str) -> Result<HMove, MoveError> {
    let hops = parse_hops(text)?;
    check_move_shape(&hops)?;
    let from = hops[0].from.expect("checked");
    let side = pos.side();
    if !pos.pieces(side).has(from) {
        return Err(MoveError::Illegal(format!(
            "no {} piece on {}",
            colour_name(side),
            cell_text(from)
        )));
    }
    let occ = pos.occupied() & !Bitboard::single(from);
    for h in &hops {
        check_hop(occ, h)?;
    }
    let to = hops.last().and_then(|h| h.to).expect("checked");
    if to == from {
        return Err(MoveError::Illegal(format!(
            "the play ends where it started ({})",
            cell_text(from)
        )));
    }
    let mv = HMove { from, to };
    if pos.is_legal(mv, Reading::Wide) {
        Ok(mv)
    } else {
        Err(MoveError::Illegal(explain_camp_rule(pos, mv)))
    }
}

/// The move text's non-blank lines, each `E|J x,y x,y`.
fn parse_hops(text: &str) -> Result<Vec<Hop>, MoveError> {
    let mut hops = Vec::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.len() != 3 {
            return Err(MoveError::Malformed(format!(
                "expected a line `E x,y x,y` or `J x,y x,y`, found {line:?}"
            )));
        }
        let kind = match toks[0] {
            "E" => 'E',
            "J" => 'J',
            k => {
                return Err(MoveError::Malformed(format!(
                    "expected E or J at the start of {line:?}, found {k:?}"
                )))
            }
        };
        let from = parse_cell(toks[1]).map_err(|e| MoveError::Malformed(format!("{e} in {line:?}")))?;
        let to = parse_cell(toks[2]).map_err(|e| MoveError::Malformed(format!("{e} in {line:?}")))?;
        hops.push(Hop {
            kind,
            from,
            to,
            line: line.to_string(),
        });
    }
    Ok(hops)
}

/// The lines form one move: at least one, all of one kind, one `E` at most,
/// jumps chained end to start, every cell on the board.
fn check_move_shape(hops: &[Hop]) -> Result<(), MoveError> {
    let Some(first) = hops.first() else {
        return Err(MoveError::Malformed(
            "empty move: expected `E x,y x,y` or one or more `J x,y x,y` lines".into(),
        ));
    };
    if hops.iter().any(|h| h.kind != first.kind) {
        return Err(MoveError::Malformed("a move mixes E (step) and J (jump) lines".into()));
    }
    if first.kind == 'E' && hops.len() > 1 {
        return Err(MoveError::Malformed(format!(
            "a step is one E line; found {} E lines",
            hops.len()
        )));
    }
    for w in hops.windows(2) {
        if w[1].from != w[0].to || w[1].from.is_none() {
            return Err(MoveError::Malformed(format!(
                "jump lines are not chained: {:?} does not start where {:?} ended",
                w[1].line, w[0].line
            )));
        }
    }
    for h in hops {
        if h.from.is_none() || h.to.is_none() {
            return Err(MoveError::Illegal(format!(
                "{:?} names a cell off the 16x16 board",
                h.line
            )));
        }
    }
    Ok(())
}

/// One step or jump over the board `occ` (the moving piece lifted): lands on
/// a free cell, a step on a neighbour, a jump two cells on over a piece.
fn check_hop(occ: Bitboard, h: &Hop) -> Result<(), MoveError> {
    let (a, b) = (h.from.expect("checked"), h.to.expect("checked"));
    let (dx, dy) = (col(b) as i32 - col(a) as i32, row(b) as i32 - row(a) as i32);
    if occ.has(b) {
        return Err(MoveError::Illegal(format!(
            "{:?}: {} is occupied",
            h.line,
            cell_text(b)
        )));
    }
    if h.kind == 'E' {
        if dx.abs() > 1 || dy.abs() > 1 || (dx == 0 && dy == 0) {
            return Err(MoveError::Illegal(format!(
                "{:?}: a step goes to an adjacent cell",
                h.line
            )));
        }
        return Ok(());
    }
    let ok_shape = matches!(dx, -2 | 0 | 2) && matches!(dy, -2 | 0 | 2) && (dx, dy) != (0, 0);
    if !ok_shape {
        return Err(MoveError::Illegal(format!(
            "{:?}: a jump goes two cells in a straight or diagonal line",
            h.line
        )));
    }
    let over = cell((col(a) as i32 + dx / 2) as usize, (row(a) as i32 + dy / 2) as usize);
    if !occ.has(over) {
        return Err(MoveError::Illegal(format!(
            "{:?}: there is no piece on {} to jump over",
            h.line,
            cell_text(over)
        )));
    }
    Ok(())
}

/// Why a reachable (from, to) breaks rules 2-4.
fn explain_camp_rule(pos: &Halma, mv: HMove) -> String {
    let side = pos.side();
    let (camp, goal) = (CAMP[side], CAMP[side.other()]);
    let m = format!("{} -> {}", cell_text(mv.from), cell_text(mv.to));
    if !(pos.pieces(side) & camp).is_empty() {
        let mut must = Vec::new();
        pos.moves(Reading::Wide, &mut must);
        if let Some(e) = must.first() {
            if camp.has(e.from) && !camp.has(e.to) {
                return format!(
                    "{m}: rule 4, a piece must leave the own camp (e.g. {} -> {})",
                    cell_text(e.from),
                    cell_text(e.to)
                );
            }
            if camp.has(e.from) && camp.has(e.to) && e.to != mv.to {
                return format!(
                    "{m}: rule 4, no camp piece can leave, so a camp piece must move further from the own corner (e.g. {} -> {})",
                    cell_text(e.from),
                    cell_text(e.to)
                );
            }
        }
    }
    if !camp.has(mv.from) && camp.has(mv.to) {
        return format!("{m}: rule 2, a piece from outside the own camp may not end inside it");
    }
    if goal.has(mv.from) && !goal.has(mv.to) {
        return format!("{m}: rule 3, a piece that starts in the opposing camp must end in it");
    }
    format!("{m}: against the camp rules")
}

impl Notation for Halma {
    const NAME: &'static str = "halma";

    const TAG: Option<&'static str> = None;

    fn parse_input(text: &str) -> Result<Input<Self>, ParseError> {
        parse_input(text)
    }

    fn write_input(&self, mode: Mode, remaining: f64) -> String {
        write_input(self, mode, remaining)
    }

    fn format_move(&self, mv: HMove) -> String {
        format_move(self, mv)
    }

    fn parse_move(&self, text: &str) -> Result<HMove, MoveError> {
        parse_move(self, text)
    }

    fn to_move(&self) -> Player {
        self.side
    }

    fn player_names() -> [&'static str; 2] {
        ["BLACK", "WHITE"]
    }
}

impl Setup for Halma {
    // Rule 6: a side with no legal move ends the game as the move cap does.
    const NO_MOVE_SETTLED_BY_TIME: bool = true;

    fn generate(opts: &GenOptions) -> Result<Self, String> {
        Ok(Halma::start(opts.first))
    }
}

impl View for Halma {
    const DRAWING: crate::protocol::Drawing = crate::protocol::Drawing {
        move_line: Some("its hop path"),
        ..crate::protocol::Drawing::DISCS
    };

    fn describe_move(&self, mv: HMove) -> String {
        let t = format_move(self, mv);
        t.trim_end().replace('\n', " | ")
    }

    fn render(&self) -> String {
        render(self)
    }

    fn board_view(&self) -> BoardView {
        board_view(self)
    }

    fn move_view(&self, mv: HMove) -> MoveView {
        move_view(self, mv)
    }
}

#[cfg(test)]
mod tests;
