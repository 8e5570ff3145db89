//! The brief's functions on a deliberately simple grid: a vector of rows,
//! row 0 at the top, as the brief draws its list of lists. They are the
//! specification the bitboard code is checked against, and the library API
//! for users who want the brief's exact semantics (`add_coin`, `is_winner`,
//! `heuristic`, `ai_move`).

use std::fmt;

/// A coin colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coin {
    /// Red, `R` (the first seat).
    R,
    /// Yellow, `Y` (the second seat).
    Y,
}

impl Coin {
    /// The other colour.
    pub fn other(self) -> Coin {
        match self {
            Coin::R => Coin::Y,
            Coin::Y => Coin::R,
        }
    }

    /// The letter the formats use.
    pub(crate) fn letter(self) -> char {
        match self {
            Coin::R => 'R',
            Coin::Y => 'Y',
        }
    }

    #[cfg(test)]
    /// `R` or `Y` (nothing else).
    pub(crate) fn from_letter(c: char) -> Option<Coin> {
        match c {
            'R' => Some(Coin::R),
            'Y' => Some(Coin::Y),
            _ => None,
        }
    }
}

/// A cell of the grid: `None` is the brief's `0` (empty).
pub type Cell = Option<Coin>;

/// The brief's board: `cells[row][col]`, row 0 at the top. Any size; rows
/// all have the same length.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Grid {
    /// Rows, top first.
    pub cells: Vec<Vec<Cell>>,
}

impl Grid {
    /// An empty board.
    pub fn empty(rows: usize, cols: usize) -> Grid {
        Grid {
            cells: vec![vec![None; cols]; rows],
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.cells.len()
    }

    /// Number of columns (0 for a board without rows).
    pub fn cols(&self) -> usize {
        self.cells.first().map_or(0, |r| r.len())
    }

    #[cfg(test)]
    /// Reads rows of `.`/`0`/`R`/`Y` characters (test and example helper).
    pub(crate) fn from_rows(rows: &[&str]) -> Result<Grid, String> {
        let mut cells = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            let mut row = Vec::new();
            for ch in r.chars().filter(|c| !c.is_whitespace()) {
                row.push(match ch {
                    '.' | '0' => None,
                    c => Some(Coin::from_letter(c).ok_or_else(|| format!("row {i}: unexpected {c:?}"))?),
                });
            }
            cells.push(row);
        }
        let g = Grid { cells };
        if g.cells.iter().any(|r| r.len() != g.cols()) {
            return Err("rows of different lengths".into());
        }
        Ok(g)
    }

    #[cfg(test)]
    /// Whether `column` can take a coin (it exists and its top cell is empty).
    pub(crate) fn playable(&self, column: usize) -> bool {
        column < self.cols() && self.rows() > 0 && self.cells[0][column].is_none()
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in &self.cells {
            for c in row {
                write!(f, "{}", c.map_or('.', Coin::letter))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
/// The board after `coin` is dropped in `column`: a new board, the argument
/// untouched. The coin lands on the lowest empty cell of the column. `None`
/// when the column does not exist or is full (the brief assumes neither
/// happens; a library must not panic on them).
pub(crate) fn add_coin(board: &Grid, coin: Coin, column: usize) -> Option<Grid> {
    if !board.playable(column) {
        return None;
    }
    let mut next = board.clone();
    let row = (0..board.rows()).rev().find(|&r| board.cells[r][column].is_none())?;
    next.cells[row][column] = Some(coin);
    Some(next)
}

#[cfg(test)]
/// Whether `coin` owns a full 2x2 square anywhere on the board.
pub(crate) fn is_winner(board: &Grid, coin: Coin) -> bool {
    let c = Some(coin);
    for r in 0..board.rows().saturating_sub(1) {
        for k in 0..board.cols().saturating_sub(1) {
            if board.cells[r][k] == c
                && board.cells[r][k + 1] == c
                && board.cells[r + 1][k] == c
                && board.cells[r + 1][k + 1] == c
            {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
/// Value of one 2x2 square for the owner of `coin`, given its own-coin count
/// and whether an opponent coin is in it.
fn square_value(own: u32, blocked: bool) -> i64 {
    if blocked {
        return 0;
    }
    match own {
        0 => 0,
        1 => 1,
        2 => 10,
        3 => 100,
        _ => 1000,
    }
}

#[cfg(test)]
/// The brief's heuristic: the sum over every overlapping 2x2 square of 0 if
/// it holds an opponent coin, else 0, 1, 10, 100 or 1000 for 0 to 4 own coins.
pub(crate) fn heuristic(board: &Grid, coin: Coin) -> i64 {
    let mut total = 0;
    for r in 0..board.rows().saturating_sub(1) {
        for k in 0..board.cols().saturating_sub(1) {
            let cells = [
                board.cells[r][k],
                board.cells[r][k + 1],
                board.cells[r + 1][k],
                board.cells[r + 1][k + 1],
            ];
            let own = cells.iter().filter(|&&c| c == Some(coin)).count() as u32;
            let blocked = cells.iter().any(|&c| c == Some(coin.other()));
            total += square_value(own, blocked);
        }
    }
    total
}

#[cfg(test)]
/// The brief's AI choice: the column whose resulting board has the highest
/// heuristic for `coin`; equal values go to the lowest column. `None` when
/// every column is full.
pub(crate) fn greedy_column(board: &Grid, coin: Coin) -> Option<usize> {
    let mut best: Option<(usize, i64)> = None;
    for col in 0..board.cols() {
        if let Some(next) = add_coin(board, coin, col) {
            let v = heuristic(&next, coin);
            // Strictly greater: the first (lowest) column keeps a tie.
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((col, v));
            }
        }
    }
    best.map(|(c, _)| c)
}

#[cfg(test)]
/// The brief's `ai_move`: the new board after the greedy choice, or `None`
/// when no column is playable.
pub(crate) fn ai_move(board: &Grid, coin: Coin) -> Option<Grid> {
    greedy_column(board, coin).and_then(|c| add_coin(board, coin, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(rows: &[&str]) -> Grid {
        Grid::from_rows(rows).unwrap()
    }

    #[test]
    fn add_coin_falls_and_leaves_the_argument_alone() {
        let b = g(&["0000", "RYYR", "YYYR", "RRYR"]);
        let n = add_coin(&b, Coin::R, 2).unwrap();
        assert_eq!(n, g(&["..R.", "RYYR", "YYYR", "RRYR"]));
        assert_eq!(b, g(&["....", "RYYR", "YYYR", "RRYR"]));
        assert_eq!(add_coin(&n, Coin::Y, 2), None, "full column");
        assert_eq!(add_coin(&n, Coin::Y, 4), None, "no such column");
        let e = Grid::empty(3, 2);
        let e = add_coin(&e, Coin::Y, 1).unwrap();
        let e = add_coin(&e, Coin::R, 1).unwrap();
        assert_eq!(e, g(&["..", ".R", ".Y"]));
    }

    #[test]
    fn winner_is_a_full_square_of_one_colour() {
        // The brief's example: yellow's square in rows 1-2, columns 1-2.
        let b = g(&["....", "RYYR", "YYYR", "RRYR"]);
        assert!(is_winner(&b, Coin::Y));
        assert!(!is_winner(&b, Coin::R));
        // Squares at the board's right and top edges count.
        let b = g(&["..RR", "..RR", "YYRY"]);
        assert!(is_winner(&b, Coin::R));
        assert!(!is_winner(&g(&["RRR", "RYR"]), Coin::R));
        assert!(!is_winner(&Grid::empty(1, 5), Coin::R));
    }

    #[test]
    fn heuristic_by_hand() {
        // 3x3 board, four squares.
        // ...
        // R..      squares: TL {.,.,R,.}=1  TR {.,.,.,.}=0
        // RYR               BL {R,.,R,Y} blocked=0  BR {.,.,Y,R} blocked=0
        let b = g(&["...", "R..", "RYR"]);
        assert_eq!(heuristic(&b, Coin::R), 1);
        // For Y: TL 0 (R), TR 0 (empty), BL blocked, BR blocked.
        assert_eq!(heuristic(&b, Coin::Y), 0);
        // Two, three and four own coins: 10, 100, 1000.
        assert_eq!(heuristic(&g(&["..", "RR"]), Coin::R), 10);
        assert_eq!(heuristic(&g(&[".R", "RR"]), Coin::R), 100);
        assert_eq!(heuristic(&g(&["RR", "RR"]), Coin::R), 1000);
        assert_eq!(heuristic(&g(&["RR", "RY"]), Coin::R), 0);
        // The brief's example board, for yellow:
        // ....  row0-1: {.,.,R,Y}0 {.,.,Y,Y}10 {.,.,Y,R}0
        // RYYR  row1-2: {R,Y,Y,Y}0 {Y,Y,Y,Y}1000 {Y,R,Y,R}0
        // YYYR  row2-3: {Y,Y,R,R}0 {Y,Y,R,Y}0 {Y,R,Y,R}0
        // RRYR
        let b = g(&["....", "RYYR", "YYYR", "RRYR"]);
        assert_eq!(heuristic(&b, Coin::Y), 1010);
        // For red: only the {.,.,R,.}-like squares without Y: none here
        // except... row0-1 col0-1 has Y; col2-3 {.,.,Y,R} has Y. Row2-3
        // col2-3 {Y,R,Y,R} has Y. So 0.
        assert_eq!(heuristic(&b, Coin::R), 0);
        assert_eq!(heuristic(&Grid::empty(4, 4), Coin::R), 0);
    }

    #[test]
    fn greedy_takes_the_best_and_breaks_ties_low() {
        // Empty board: every move gives 1 or 2 squares with one coin; the
        // corner columns give 1, the inner ones 2: the lowest inner column.
        assert_eq!(greedy_column(&Grid::empty(4, 4), Coin::R), Some(1));
        // 2 columns: both give 1: lowest.
        assert_eq!(greedy_column(&Grid::empty(3, 2), Coin::Y), Some(0));
        // Completing a square (1000) beats everything.
        let b = g(&["....", "R...", "RR.Y", "YRYY"]);
        // col 1 lands at row 1: square rows1-2 cols0-1 = R R R R -> win.
        assert_eq!(greedy_column(&b, Coin::R), Some(1));
        // The brief's greedy ignores the opponent: yellow's threat at col 1
        // row 1 ({Y,.,Y,Y}) is not blocked by a red greedy move if red has
        // something better for itself... here red's best is its own win anyway.
        let after = ai_move(&b, Coin::R).unwrap();
        assert!(is_winner(&after, Coin::R));
        // Full board: no move.
        assert_eq!(greedy_column(&g(&["RY", "YR"]), Coin::R), None);
        assert_eq!(ai_move(&g(&["RY", "YR"]), Coin::R), None);
    }

    #[test]
    fn greedy_tie_and_blindness_to_the_opponent() {
        // Yellow threatens to complete cols 2-3 rows 1-2 by playing col 2.
        // Red's greedy values: col0 -> row 2: squares {.,.,R,R}? Let the
        // simple code be the judge of the numbers and check the choice
        // against an independent argmax written out here.
        let b = g(&["....", "...Y", "R.YY", "RYRY"]);
        let vals: Vec<i64> = (0..4)
            .map(|c| heuristic(&add_coin(&b, Coin::R, c).unwrap(), Coin::R))
            .collect();
        let best = *vals.iter().max().unwrap();
        let want = vals.iter().position(|&v| v == best).unwrap();
        assert_eq!(greedy_column(&b, Coin::R), Some(want));
        // Hand-checked: col0 puts R at row 1 over R,R: square rows1-2 cols0-1
        // {R,.,R,.} = 10, rows0-1 cols0-1 {.,.,R,.} = 1 -> 11 + rest.
        assert_eq!(vals[0], 11);
        // col1 lands at row 2: rows1-2 cols0-1 {.,.,R,R}=10, rows2-3 cols0-1
        // {R,R,R,Y}=0, rows1-2 cols1-2 {.,.,R,Y}=0, rows2-3 cols1-2
        // {R,Y,Y,R}=0 -> 10 + rows0-1 ... (nothing) = 10.
        assert_eq!(vals[1], 10);
    }
}
