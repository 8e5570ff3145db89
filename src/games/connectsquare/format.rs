//! Connect Square's text side: the `input.txt` and move notation ([`Notation`]),
//! start positions for the referee ([`Setup`]) and the board as a person sees
//! it ([`View`]).

use super::grid::{Coin, Grid};
use super::{check_size, square_of, ConnectSquare, Move, Status, DEFAULT_COLS, DEFAULT_ROWS, SIZE_LIMIT};
use crate::protocol::{
    format_time, parse_header, BoardView, CellView, GenOptions, Ground, Input, LegendEntry, Lines, Mode, MoveError,
    MoveView, Notation, ParseError, Player, Setup, View,
};

impl Notation for ConnectSquare {
    const NAME: &'static str = "connectsquare";

    const TAG: Option<&'static str> = Some("CONNECTSQUARE");

    fn parse_input(text: &str) -> Result<Input<Self>, ParseError> {
        let mut lines = Lines::new(text);
        let h = parse_header(&mut lines, "CONNECTSQUARE")?;
        let side = match h.side.text.trim() {
            "R" => Player::One,
            "Y" => Player::Two,
            other => {
                return Err(h
                    .side
                    .error(format!("expected the agent's coin, R or Y, found {other:?}")))
            }
        };
        let size = lines.next_line("the board size (rows cols)")?;
        let rc = size.parse_sizes(2, "the board size (rows and columns)", SIZE_LIMIT)?;
        let (rows, cols) = (rc[0], rc[1]);
        check_size(rows, cols).map_err(|e| size.error(e))?;
        let mut grid = Grid::empty(rows, cols);
        let mut numbers = Vec::with_capacity(rows);
        for i in 0..rows {
            let l = lines.next_line(&format!("board row {i} ({cols} cells of '.', '0', 'R' or 'Y')"))?;
            numbers.push(l.number);
            // Spaces between cells are tolerated: "R Y . ." reads as "RY..".
            let cells: Vec<char> = l.text.chars().filter(|c| !c.is_whitespace()).collect();
            if cells.len() != cols {
                return Err(l.error(format!(
                    "expected board row {i} with {cols} cells of '.', '0', 'R' or 'Y', found {} in {:?}",
                    cells.len(),
                    l.text
                )));
            }
            for (c, &ch) in cells.iter().enumerate() {
                grid.cells[i][c] = match ch {
                    '.' | '0' => None,
                    'R' => Some(Coin::R),
                    'Y' => Some(Coin::Y),
                    other => {
                        return Err(l.error(format!(
                            "board row {i} column {c}: expected '.', '0', 'R' or 'Y', found {other:?}"
                        )))
                    }
                };
            }
        }
        // Gravity: report the line of the floating coin.
        for c in 0..cols {
            for (i, pair) in grid.cells[..rows].windows(2).enumerate() {
                if pair[0][c].is_some() && pair[1][c].is_none() {
                    return Err(ParseError::at(
                        numbers[i],
                        format!(
                            "board row {i} column {c}: a coin above an empty cell (row {} is empty); coins fall to the lowest empty cell",
                            i + 1
                        ),
                    ));
                }
            }
        }
        let state = ConnectSquare::from_grid(&grid, side).map_err(|e| ParseError::at(numbers[rows - 1], e))?;
        Ok(Input {
            state,
            mode: h.mode,
            remaining: h.remaining,
        })
    }

    fn write_input(&self, mode: Mode, remaining: f64) -> String {
        let coin = match self.to_move {
            Player::One => "R",
            Player::Two => "Y",
        };
        format!(
            "CONNECTSQUARE\n{}\n{coin}\n{}\n{} {}\n{}",
            mode.token(),
            format_time(remaining),
            self.rows,
            self.cols,
            self.to_grid()
        )
    }

    fn format_move(&self, mv: Move) -> String {
        format!("{mv}\n")
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let line = Lines::new(text)
            .next()
            .ok_or_else(|| MoveError::Malformed("empty move: expected a column number".into()))?;
        let toks: Vec<&str> = line.tokens().collect();
        if toks.len() != 1 {
            return Err(MoveError::Malformed(format!(
                "expected one column number, found {:?}",
                line.text
            )));
        }
        let col: usize = toks[0]
            .parse()
            .map_err(|_| MoveError::Malformed(format!("expected a column number, found {:?}", toks[0])))?;
        if self.status != Status::Playing {
            return Err(MoveError::Illegal("the game is over".into()));
        }
        if col >= self.cols() {
            return Err(MoveError::Illegal(format!(
                "column {col} does not exist (columns 0 to {})",
                self.cols() - 1
            )));
        }
        if !self.can_play(col) {
            return Err(MoveError::Illegal(format!("column {col} is full")));
        }
        Ok(col as Move)
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn player_names() -> [&'static str; 2] {
        ["R", "Y"]
    }
}

impl Setup for ConnectSquare {
    const PARAMS: &'static [crate::protocol::Param] = &[
        crate::protocol::Param::plain(crate::protocol::ParamKey::Rows, "board rows (default 6)"),
        crate::protocol::Param::plain(crate::protocol::ParamKey::Cols, "board columns (default 7)"),
    ];

    fn generate(opts: &GenOptions) -> Result<Self, String> {
        ConnectSquare::new(
            opts.rows.unwrap_or(DEFAULT_ROWS),
            opts.cols.unwrap_or(DEFAULT_COLS),
            opts.first,
        )
    }
}

impl View for ConnectSquare {
    fn describe_move(&self, mv: Move) -> String {
        let coin = if self.to_move == Player::One { 'R' } else { 'Y' };
        format!("{coin} in column {mv}")
    }

    fn render(&self) -> String {
        let mut s = String::new();
        let width = if self.cols > 10 { 3 } else { 2 };
        for c in 0..self.cols() {
            s.push_str(&format!("{c:>width$}"));
        }
        s.push('\n');
        let g = self.to_grid();
        for row in &g.cells {
            for cell in row {
                let ch = cell.map_or('.', Coin::letter);
                s.push_str(&format!("{ch:>width$}"));
            }
            s.push('\n');
        }
        match self.status {
            Status::Playing => s.push_str(&format!(
                "{} to move",
                if self.to_move == Player::One { 'R' } else { 'Y' }
            )),
            Status::Won(p) => s.push_str(&format!(
                "{} has a square and wins",
                if p == Player::One { 'R' } else { 'Y' }
            )),
            Status::Draw => s.push_str("full board: draw"),
        }
        s
    }

    fn board_view(&self) -> BoardView {
        let g = self.to_grid();
        let mut view = BoardView {
            rows: self.rows(),
            cols: self.cols(),
            cells: Vec::with_capacity(self.rows() * self.cols()),
            links: Vec::new(),
            facts: Vec::new(),
            outcome: None,
            legend: vec![
                LegendEntry::cell("R's coin", CellView::with_piece(Ground::Plain, Some(Player::One), "", "R")),
                LegendEntry::cell("Y's coin", CellView::with_piece(Ground::Plain, Some(Player::Two), "", "Y")),
                LegendEntry::cell("empty cell", CellView::empty(Ground::Plain, ".")),
                LegendEntry::pattern(
                    "*",
                    "coin of the winning square",
                    CellView::with_piece(Ground::Plain, Some(Player::One), "", "R*").flagged(),
                ),
            ],
        };
        for row in &g.cells {
            for cell in row {
                view.cells.push(match cell {
                    Some(coin) => {
                        let owner = if *coin == Coin::R { Player::One } else { Player::Two };
                        let letter = coin.letter().to_string();
                        CellView::with_piece(Ground::Plain, Some(owner), "", letter)
                    }
                    None => CellView::empty(Ground::Plain, "."),
                });
            }
        }
        match self.status {
            Status::Won(p) => {
                let coin = if p == Player::One { Coin::R } else { Coin::Y };
                if let Some((r, c)) = square_of(&g, coin) {
                    for (dr, dc) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                        let cell = view.cell_mut(r + dr, c + dc);
                        cell.flagged = true;
                        cell.symbol.push('*');
                    }
                    view.outcome = Some(format!(
                        "{} completed the 2x2 square at rows {}-{}, columns {}-{}",
                        coin.letter(),
                        r,
                        r + 1,
                        c,
                        c + 1
                    ));
                }
            }
            Status::Draw => view.outcome = Some("the board is full without a square".into()),
            Status::Playing => {}
        }
        view
    }

    fn move_view(&self, mv: Move) -> MoveView {
        let g = self.to_grid();
        let col = mv as usize;
        let row = (0..self.rows()).rev().find(|&i| g.cells[i][col].is_none()).unwrap_or(0);
        let mut after = *self;
        after.play_col(col);
        MoveView {
            cells: vec![(row, col)],
            note: matches!(after.status, Status::Won(_)).then(|| "completes a 2x2 square".to_string()),
        }
    }
}
