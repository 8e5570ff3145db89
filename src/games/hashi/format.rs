//! The `HASHI` file format (docs/protocol.md#hashi), moves as text, the board drawn for a
//! person, and the [`FileGame`] implementation.

use super::{Hashi, HashiMove, Topology};
use crate::protocol::{
    format_time, parse_header, BoardView, ByPlayer, CellView, Drawing, LegendEntry, PieceShape, Notation, Setup, View, GenOptions, Ground, Input, Line, Lines, LinkView,
    Mode, MoveError, MoveView, ParseError, Player,
};
use std::fmt::Write as _;

/// Largest score magnitude accepted from a file (keeps arithmetic far from overflow).
const MAX_POINTS: i32 = 1_000_000;

/// Reads everything after the common header: points, size, board rows,
/// bridges.
fn parse_body(lines: &mut Lines<'_>, side: Player) -> Result<Hashi, ParseError> {
    let pl = lines.next_line("the points of player 1 and player 2")?;
    let points: Vec<i32> = pl.parse_n(2, "the points of player 1 and player 2 (two integers)")?;
    if points.iter().any(|p| p.abs() > MAX_POINTS) {
        return Err(pl.error(format!("points must be within ±{MAX_POINTS}, found {:?}", pl.text)));
    }
    let nl = lines.next_line("the board size n")?;
    let limit = format!("it must be between 1 and {}", super::MAX_N);
    let n = nl.parse_sizes(1, "the board size n (one integer)", &limit)?[0];
    if n == 0 || n > super::MAX_N {
        return Err(nl.error(format!(
            "the board size must be between 1 and {}, found {n}",
            super::MAX_N
        )));
    }
    let grid = parse_grid(lines, n)?;
    let topo = Topology::build(n, |r, c| grid[r * n + c] != 0).map_err(ParseError::whole)?;
    let labels: Vec<u8> = topo
        .islands
        .iter()
        .map(|&(r, c)| grid[r as usize * n + c as usize] - 1)
        .collect();
    let mut h = Hashi::new(topo, &labels);
    h.set_points(ByPlayer::new(points[0], points[1]));
    h.set_side(side);
    parse_bridges(lines, &mut h)?;
    Ok(h)
}

/// The `n` board rows, row-major: 0 water, 1 unlabelled island, 2-5 an
/// island labelled 1-4.
fn parse_grid(lines: &mut Lines<'_>, n: usize) -> Result<Vec<u8>, ParseError> {
    let mut grid = vec![0u8; n * n];
    for r in 0..n {
        let l = lines.next_line(&format!("board row {r} of {n}"))?;
        let toks: Vec<&str> = l.tokens().collect();
        // "3 . 2 . 0" or "3.2.0" (a row without spaces).
        let cells: Vec<char> = if toks.len() == n && toks.iter().all(|t| t.chars().count() == 1) {
            toks.iter().map(|t| t.chars().next().unwrap_or('?')).collect()
        } else if toks.len() == 1 && toks[0].chars().count() == n {
            toks[0].chars().collect()
        } else {
            return Err(l.error(format!(
                "expected board row {r}: {n} cells ('.' water, '0' unlabelled island, '1'-'4' labelled island), \
                 with or without spaces, found {:?}",
                l.text
            )));
        };
        for (c, ch) in cells.into_iter().enumerate() {
            grid[r * n + c] = match ch {
                '.' => 0,
                '0'..='4' => ch as u8 - b'0' + 1,
                other => {
                    return Err(l.error(format!(
                        "row {r} column {c}: expected '.', '0' or a label '1'-'4', found {other:?}"
                    )))
                }
            }
        }
    }
    Ok(grid)
}

/// The bridge count line and the bridge lines, loaded onto `h`. The count
/// line may be missing when there are no bridges.
fn parse_bridges(lines: &mut Lines<'_>, h: &mut Hashi) -> Result<(), ParseError> {
    let Some(cl) = lines.next() else { return Ok(()) };
    let pairs = h.topology().pairs.len();
    let limit = format!("at most {pairs}, the number of pairs of facing islands on the board");
    let count = cl.parse_sizes(1, "the number of bridge lines (one integer)", &limit)?[0];
    if count > pairs {
        return Err(cl.error(format!(
            "{count} bridge lines announced but the board has only {pairs} pairs of facing islands"
        )));
    }
    let mut seen = vec![false; pairs];
    for k in 0..count {
        let l = lines.next_line(&format!("bridge line {} of {count}", k + 1))?;
        load_bridge_line(&l, h, &mut seen)?;
    }
    Ok(())
}

/// One bridge line `ROW1 COL1 ROW2 COL2 COUNT`, checked against the board
/// and the bridges before it (`seen`: pairs already listed), then loaded.
fn load_bridge_line(l: &Line<'_>, h: &mut Hashi, seen: &mut [bool]) -> Result<(), ParseError> {
    let v: Vec<usize> = l.parse_n(5, "a bridge: ROW1 COL1 ROW2 COL2 COUNT")?;
    let (r1, c1, r2, c2, cnt) = (v[0], v[1], v[2], v[3], v[4]);
    let topo = h.topology();
    let i = topo
        .island_at(r1, c1)
        .ok_or_else(|| l.error(format!("({r1}, {c1}) is not an island")))?;
    let j = topo
        .island_at(r2, c2)
        .ok_or_else(|| l.error(format!("({r2}, {c2}) is not an island")))?;
    let p = topo.pair_between(i, j).ok_or_else(|| {
        l.error(format!(
            "({r1}, {c1}) and ({r2}, {c2}) do not face each other across water in one row or column"
        ))
    })?;
    if !(1..=2).contains(&cnt) {
        return Err(l.error(format!("a bridge count must be 1 or 2, found {cnt}")));
    }
    if seen[p] {
        return Err(l.error(format!("the pair ({r1}, {c1})-({r2}, {c2}) is listed twice")));
    }
    seen[p] = true;
    for (idx, (r, c)) in [(i, (r1, c1)), (j, (r2, c2))] {
        if h.label(idx) == 0 {
            return Err(l.error(format!("({r}, {c}) is unlabelled and cannot hold bridges")));
        }
    }
    if h.crosses(p) {
        return Err(l.error(format!(
            "the bridge ({r1}, {c1})-({r2}, {c2}) crosses an earlier bridge"
        )));
    }
    for _ in 0..cnt {
        h.load_bridge(p);
    }
    for (idx, (r, c)) in [(i, (r1, c1)), (j, (r2, c2))] {
        if h.degree(idx) > h.label(idx) {
            return Err(l.error(format!(
                "island ({r}, {c}) now has {} bridges, more than its label {}",
                h.degree(idx),
                h.label(idx)
            )));
        }
    }
    Ok(())
}

/// Writes the board part of the format (points line to the last bridge line).
pub fn write_board(h: &Hashi, out: &mut String) {
    let t = h.topology();
    let n = t.n;
    let _ = writeln!(out, "{} {}", h.points[Player::One], h.points[Player::Two]);
    let _ = writeln!(out, "{n}");
    for r in 0..n {
        let row: Vec<String> = (0..n)
            .map(|c| match t.island_at(r, c) {
                None => ".".to_string(),
                Some(i) => h.label(i).to_string(),
            })
            .collect();
        let _ = writeln!(out, "{}", row.join(" "));
    }
    let placed: Vec<usize> = (0..t.pairs.len()).filter(|&p| h.bridges(p) > 0).collect();
    let _ = writeln!(out, "{}", placed.len());
    for p in placed {
        let q = t.pairs[p];
        let (r1, c1) = t.islands[q.a as usize];
        let (r2, c2) = t.islands[q.b as usize];
        let _ = writeln!(out, "{r1} {c1} {r2} {c2} {}", h.bridges(p));
    }
}

fn parse_usize(tok: &str, what: &str) -> Result<usize, MoveError> {
    tok.parse()
        .map_err(|_| MoveError::Malformed(format!("expected {what} (a number), found {tok:?}")))
}

impl Notation for Hashi {
    const NAME: &'static str = "hashi";

    const TAG: Option<&'static str> = Some("HASHI");

    fn parse_input(text: &str) -> Result<Input<Self>, ParseError> {
        let mut lines = Lines::new(text);
        let header = parse_header(&mut lines, "HASHI")?;
        let side = header.side.player_number()?;
        let state = parse_body(&mut lines, side)?;
        Ok(Input {
            state,
            mode: header.mode,
            remaining: header.remaining,
        })
    }

    fn write_input(&self, mode: Mode, remaining: f64) -> String {
        let mut s = format!(
            "HASHI\n{}\n{}\n{}\n",
            mode.token(),
            self.side.index() + 1,
            format_time(remaining)
        );
        write_board(self, &mut s);
        s
    }

    fn format_move(&self, mv: HashiMove) -> String {
        let t = self.topology();
        match mv {
            HashiMove::Bridge(p) => {
                let q = t.pairs[p as usize];
                let (r1, c1) = t.islands[q.a as usize];
                let (r2, c2) = t.islands[q.b as usize];
                format!("B {r1} {c1} {r2} {c2}\n")
            }
            HashiMove::Label(i, l) => {
                let (r, c) = t.islands[i as usize];
                format!("L {r} {c} {l}\n")
            }
        }
    }

    fn parse_move(&self, text: &str) -> Result<HashiMove, MoveError> {
        let mut lines = Lines::new(text);
        let Some(line) = lines.next() else {
            return Err(MoveError::Malformed(
                "empty move; expected `B R1 C1 R2 C2` or `L R C 3|4`".into(),
            ));
        };
        if let Some(extra) = lines.next() {
            return Err(MoveError::Malformed(format!(
                "expected one move line, found a second one: {:?}",
                extra.text
            )));
        }
        let toks: Vec<&str> = line.tokens().collect();
        let t = self.topology();
        match toks.first().map(|s| s.to_ascii_uppercase()).as_deref() {
            Some("B") if toks.len() == 5 => {
                let v: Vec<usize> = toks[1..]
                    .iter()
                    .map(|s| parse_usize(s, "a row or column"))
                    .collect::<Result<_, _>>()?;
                let (r1, c1, r2, c2) = (v[0], v[1], v[2], v[3]);
                let i = t
                    .island_at(r1, c1)
                    .ok_or_else(|| MoveError::Illegal(format!("({r1}, {c1}) is not an island")))?;
                let j = t
                    .island_at(r2, c2)
                    .ok_or_else(|| MoveError::Illegal(format!("({r2}, {c2}) is not an island")))?;
                let p = t.pair_between(i, j).ok_or_else(|| {
                    MoveError::Illegal(format!(
                        "({r1}, {c1}) and ({r2}, {c2}) do not face each other across water"
                    ))
                })?;
                if self.can_bridge(p) {
                    return Ok(HashiMove::Bridge(p as u8));
                }
                let why = if self.label(i) == 0 || self.label(j) == 0 {
                    "an unlabelled island takes no bridge".to_string()
                } else if self.bridges(p) == 2 {
                    "the pair already has two bridges".to_string()
                } else if self.degree(i) >= self.label(i) || self.degree(j) >= self.label(j) {
                    "an island already has as many bridges as its label".to_string()
                } else {
                    "the bridge would cross another bridge".to_string()
                };
                Err(MoveError::Illegal(format!("bridge ({r1}, {c1})-({r2}, {c2}): {why}")))
            }
            Some("L") if toks.len() == 4 => {
                let r = parse_usize(toks[1], "a row")?;
                let c = parse_usize(toks[2], "a column")?;
                let l = parse_usize(toks[3], "a label")?;
                if l != 3 && l != 4 {
                    return Err(MoveError::Illegal(format!(
                        "an island can only be labelled 3 or 4, not {l}"
                    )));
                }
                let i = t
                    .island_at(r, c)
                    .ok_or_else(|| MoveError::Illegal(format!("({r}, {c}) is not an island")))?;
                if self.label(i) != 0 {
                    return Err(MoveError::Illegal(format!(
                        "({r}, {c}) is already labelled {}",
                        self.label(i)
                    )));
                }
                Ok(HashiMove::Label(i as u8, l as u8))
            }
            _ => Err(MoveError::Malformed(format!(
                "expected `B ROW1 COL1 ROW2 COL2` or `L ROW COL 3|4`, found {:?}",
                line.text
            ))),
        }
    }

    fn to_move(&self) -> Player {
        self.side
    }

    fn player_names() -> [&'static str; 2] {
        ["1", "2"]
    }
}

impl Setup for Hashi {
    const PARAMS: &'static [crate::protocol::Param] = &[crate::protocol::Param::asked(crate::protocol::ParamKey::Size, "board size n for an n x n grid (default 7)", "Board size (e.g. 7)? ", &[])];

    fn generate(opts: &GenOptions) -> Result<Self, String> {
        let mut h = super::gen::generate(opts.size.unwrap_or(7), opts.seed)?;
        h.set_side(opts.first);
        Ok(h)
    }
}

impl View for Hashi {
    // Islands fill more of their cell than pieces do; the line is the bridge
    // a move builds, between its two islands.
    const DRAWING: Drawing = Drawing {
        piece: PieceShape::Disc { radius: 0.4 },
        move_line: Some("the bridge it built"),
    };

    fn describe_move(&self, mv: HashiMove) -> String {
        let t = self.topology();
        match mv {
            HashiMove::Bridge(p) => {
                let q = t.pairs[p as usize];
                let (r1, c1) = t.islands[q.a as usize];
                let (r2, c2) = t.islands[q.b as usize];
                let gain = self.bridge_gain(p as usize);
                let scored = if gain > 0 {
                    format!(", scores {gain}")
                } else {
                    String::new()
                };
                format!("B {r1} {c1} {r2} {c2} (bridge ({r1},{c1})-({r2},{c2}){scored})")
            }
            HashiMove::Label(i, l) => {
                let (r, c) = t.islands[i as usize];
                format!("L {r} {c} {l} (label ({r},{c}) with {l})")
            }
        }
    }

    fn render(&self) -> String {
        let t = self.topology();
        let n = t.n;
        let mut s = format!(
            "Points: player 1 = {}, player 2 = {}; player {} to move\n",
            self.points[Player::One],
            self.points[Player::Two],
            self.side.index() + 1
        );
        // Cells at even columns of a 2n-1 wide canvas; the gaps hold the
        // horizontal bridge marks.
        let w = 2 * n - 1;
        let mut canvas = vec![vec![' '; w]; n];
        for (r, row) in canvas.iter_mut().enumerate() {
            for c in 0..n {
                row[2 * c] = match t.island_at(r, c) {
                    None => '.',
                    Some(i) if self.label(i) == 0 => 'o',
                    Some(i) => (b'0' + self.label(i)) as char,
                };
            }
        }
        for (p, q) in t.pairs.iter().enumerate() {
            let k = self.bridges(p);
            if k == 0 {
                continue;
            }
            let (r1, c1) = t.islands[q.a as usize];
            let (r2, c2) = t.islands[q.b as usize];
            if q.horizontal {
                let mark = if k == 2 { '=' } else { '-' };
                canvas[r1 as usize][2 * c1 as usize + 1..2 * c2 as usize].fill(mark);
            } else {
                let mark = if k == 2 { 'H' } else { '|' };
                for row in &mut canvas[r1 as usize + 1..r2 as usize] {
                    row[2 * c1 as usize] = mark;
                }
            }
        }
        let header: String = (0..n).map(|c| format!("{:<2}", c % 100)).collect();
        let _ = writeln!(s, "    {}", header.trim_end());
        for (r, row) in canvas.iter().enumerate() {
            let line: String = row.iter().collect();
            let _ = writeln!(s, "{r:>2}  {}", line.trim_end());
        }
        s.push_str("(1-4 labelled island, o unlabelled, - = horizontal bridges, | H vertical, . water)");
        s
    }

    fn board_view(&self) -> BoardView {
        let t = self.topology();
        let n = t.n;
        let mut cells: Vec<CellView> = (0..n * n)
            .map(|k| match t.island_at(k / n, k % n) {
                None => CellView::empty(Ground::Water, "."),
                Some(i) if self.label(i) == 0 => CellView::with_piece(Ground::Water, None, "", "o"),
                Some(i) => {
                    let l = self.label(i).to_string();
                    let mut cell = CellView::with_piece(Ground::Water, None, l.clone(), l);
                    cell.flagged = self.degree(i) == self.label(i);
                    cell
                }
            })
            .collect();
        let mut links = Vec::new();
        for (p, q) in t.pairs.iter().enumerate() {
            let k = self.bridges(p);
            if k == 0 {
                continue;
            }
            let (r1, c1) = t.islands[q.a as usize];
            let (r2, c2) = t.islands[q.b as usize];
            let (from, to) = ((r1 as usize, c1 as usize), (r2 as usize, c2 as usize));
            links.push(LinkView { from, to, count: k });
            let mark = match (q.horizontal, k) {
                (true, 1) => "-",
                (true, _) => "=",
                (false, 1) => "|",
                (false, _) => "\"",
            };
            if q.horizontal {
                for c in from.1 + 1..to.1 {
                    cells[from.0 * n + c].symbol = mark.into();
                }
            } else {
                for r in from.0 + 1..to.0 {
                    cells[r * n + from.1].symbol = mark.into();
                }
            }
        }
        let [a, b] = self.points().into_array();
        BoardView {
            rows: n,
            cols: n,
            cells,
            links,
            facts: vec![format!("points: player 1 {a}, player 2 {b}")],
            outcome: (!self.has_move()).then(|| {
                format!(
                    "player {} has no legal move, which ends the game; points: player 1 {a}, player 2 {b}",
                    self.side.index() + 1
                )
            }),
            legend: vec![
                LegendEntry::pattern(
                    "1-4",
                    "island with its label",
                    CellView::with_piece(Ground::Water, None, "3", "3"),
                ),
                LegendEntry::cell(
                    "unlabelled island",
                    CellView::with_piece(Ground::Water, None, "", "o"),
                ),
                LegendEntry::link("- =", "one or two bridges along a row", 1, false),
                LegendEntry::link("- =", "one or two bridges along a row", 2, false),
                LegendEntry::link("| \"", "one or two bridges along a column", 1, true),
                LegendEntry::link("| \"", "one or two bridges along a column", 2, true),
                LegendEntry::cell("water", CellView::empty(Ground::Water, ".")),
            ],
        }
    }

    fn move_view(&self, mv: HashiMove) -> MoveView {
        let t = self.topology();
        match mv {
            HashiMove::Bridge(p) => {
                let q = t.pairs[p as usize];
                let (r1, c1) = t.islands[q.a as usize];
                let (r2, c2) = t.islands[q.b as usize];
                let gain = self.bridge_gain(p as usize);
                MoveView {
                    cells: vec![(r1 as usize, c1 as usize), (r2 as usize, c2 as usize)],
                    note: (gain > 0).then(|| format!("completes islands worth {gain} points")),
                }
            }
            HashiMove::Label(i, _) => {
                let (r, c) = t.islands[i as usize];
                MoveView {
                    cells: vec![(r as usize, c as usize)],
                    note: None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
