//! A game-neutral picture of a position, filled by each game
//! ([`super::FileGame::board_view`]) and drawn by the referee twice: as text
//! in the terminal and as SVG in the HTML report. Keeping one description
//! means both drawings show the same facts (owners, removed cells, marks).

use super::Player;

/// What lies under a cell, independent of any piece on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ground {
    /// An ordinary playable cell.
    Plain,
    /// A cell of a seat's home area (Halma camps).
    Camp(Player),
    /// A cell taken out of play for good (Fifteen removed cells).
    Removed,
    /// Not a place for pieces (Hashi water).
    Water,
}

/// A piece (counter, coin, card, island) standing on a cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceView {
    /// The seat it belongs to; `None` for shared pieces (Hinger counters, Hashi islands).
    pub owner: Option<Player>,
    /// Text written on the piece (a pile count, a card value, an island label); may be empty.
    pub label: String,
}

/// One cell of the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellView {
    /// What the cell is.
    pub ground: Ground,
    /// The piece on it, if any.
    pub piece: Option<PieceView>,
    /// Its symbol in the terminal drawing (a few characters, never empty).
    pub symbol: String,
    /// Shown highlighted: a Hinger hinger, the Connect Square winning square,
    /// a Hashi island that has all its bridges.
    pub flagged: bool,
}

impl CellView {
    /// An empty cell on `ground` drawn as `symbol`.
    pub fn empty(ground: Ground, symbol: &str) -> CellView {
        CellView {
            ground,
            piece: None,
            symbol: symbol.to_string(),
            flagged: false,
        }
    }

    /// A cell holding a piece.
    pub fn with_piece(
        ground: Ground,
        owner: Option<Player>,
        label: impl Into<String>,
        symbol: impl Into<String>,
    ) -> CellView {
        CellView {
            ground,
            piece: Some(PieceView {
                owner,
                label: label.into(),
            }),
            symbol: symbol.into(),
            flagged: false,
        }
    }
}

/// A line joining two cells (Hashi bridges).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkView {
    /// One end (row, column).
    pub from: (usize, usize),
    /// The other end (row, column), in the same row or column.
    pub to: (usize, usize),
    /// How many lines (1 or 2).
    pub count: u8,
}

/// A whole position as a person should see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardView {
    /// Rows of the board.
    pub rows: usize,
    /// Columns of the board.
    pub cols: usize,
    /// `rows * cols` cells, row by row from the top.
    pub cells: Vec<CellView>,
    /// Lines between cells.
    pub links: Vec<LinkView>,
    /// Facts about the position beside the board (hands, scores, counts), one per line.
    pub facts: Vec<String>,
    /// At the end of the game, the rule that decided it as the game sees it
    /// (e.g. Fifteen's scores and tie-break); `None` while the game goes on.
    pub outcome: Option<String>,
    /// Every terminal symbol the game uses and what it means.
    pub legend: Vec<(String, String)>,
}

impl BoardView {
    /// The cell at (row, column).
    pub fn cell(&self, r: usize, c: usize) -> &CellView {
        &self.cells[r * self.cols + c]
    }

    /// The cell at (row, column), to change.
    pub fn cell_mut(&mut self, r: usize, c: usize) -> &mut CellView {
        &mut self.cells[r * self.cols + c]
    }
}

/// What a move does, as seen from the position before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveView {
    /// The cells it touches in order (a Halma hop path from start to end; a
    /// bridge's two islands; otherwise one cell), as (row, column).
    pub cells: Vec<(usize, usize)>,
    /// What happened beyond the move itself (cards removed, points scored, a
    /// hinger taken, a square completed), for a person; `None` when nothing did.
    pub note: Option<String>,
}
