//! A game-neutral picture of a position, filled by each game
//! ([`super::View::board_view`]) and drawn by the referee twice: as text
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
    /// This cell, shown highlighted.
    pub fn flagged(mut self) -> CellView {
        self.flagged = true;
        self
    }

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
    pub(crate) fn with_piece(
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

/// One entry of a board's legend. The terminal prints `symbol`; a drawing
/// (the HTML report) draws `sample` instead, so each legend shows what its
/// board shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegendEntry {
    /// The terminal symbol (or a pattern of symbols such as `1-4`).
    pub symbol: String,
    /// What it means, for a person.
    pub meaning: String,
    /// What a drawing shows for it.
    pub sample: Sample,
}

/// The drawn look of a legend entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sample {
    /// A cell as a drawing shows it (ground, piece, flag).
    Cell(CellView),
    /// A link of `count` lines between two cells.
    Link {
        /// How many lines (1 or 2).
        count: u8,
        /// Along a column (else along a row).
        vertical: bool,
    },
}

impl LegendEntry {
    /// An entry drawn as the cell `sample`, printed as its symbol.
    pub fn cell(meaning: &str, sample: CellView) -> LegendEntry {
        LegendEntry {
            symbol: sample.symbol.clone(),
            meaning: meaning.to_string(),
            sample: Sample::Cell(sample),
        }
    }

    /// An entry drawn as the cell `sample` but printed as `symbol` (a
    /// pattern standing for several symbols, such as `1-4`).
    pub(crate) fn pattern(symbol: &str, meaning: &str, sample: CellView) -> LegendEntry {
        LegendEntry {
            symbol: symbol.to_string(),
            meaning: meaning.to_string(),
            sample: Sample::Cell(sample),
        }
    }

    /// An entry drawn as a link of `count` lines (along a column when
    /// `vertical`), printed as `symbol`.
    pub fn link(symbol: &str, meaning: &str, count: u8, vertical: bool) -> LegendEntry {
        LegendEntry {
            symbol: symbol.to_string(),
            meaning: meaning.to_string(),
            sample: Sample::Link { count, vertical },
        }
    }
}

/// How a game's pieces are drawn; the same for every position of the game
/// ([`super::View::DRAWING`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drawing {
    /// The shape of a piece.
    pub piece: PieceShape,
    /// When a move touches several cells, a line joins them in order; these
    /// words say what the line is (`None`: no line is drawn).
    pub move_line: Option<&'static str>,
}

impl Drawing {
    /// Discs of 0.36 cell, no move line.
    pub(crate) const DISCS: Drawing = Drawing {
        piece: PieceShape::Disc { radius: 0.36 },
        move_line: None,
    };
}

/// The shape of a drawn piece.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PieceShape {
    /// A disc of `radius` cells.
    Disc {
        /// Radius as a fraction of a cell's side.
        radius: f64,
    },
    /// An upright card filling most of the cell.
    Card,
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
    /// Every terminal symbol the game uses, what it means and how it looks
    /// when drawn.
    pub legend: Vec<LegendEntry>,
}

impl BoardView {
    /// The cell at (row, column).
    pub fn cell(&self, r: usize, c: usize) -> &CellView {
        &self.cells[r * self.cols + c]
    }

    /// The cell at (row, column), to change.
    pub(crate) fn cell_mut(&mut self, r: usize, c: usize) -> &mut CellView {
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
