//! A deliberately simple implementation of the same Halma rules on a plain
//! 16x16 array with a recursive jump search, written straight from docs/protocol.md#halma
//! without sharing code with the bitboard version. Tests cross-check the two;
//! `agent halma simple-perft` times it for the side-by-side speed figure.

use crate::protocol::Player;

/// Cell contents: 0 empty, 1 black, 2 white.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleBoard {
    /// `cells[y][x]`.
    pub cells: [[u8; 16]; 16],
    /// Colour to move (`One` is black).
    pub side: Player,
}

/// Whether (x, y) is in `colour`'s camp (black top-left, white bottom-right).
pub(crate) fn in_camp(colour: Player, x: i32, y: i32) -> bool {
    let (x, y) = match colour {
        Player::One => (x, y),
        Player::Two => (15 - x, 15 - y),
    };
    let limit = match y {
        0 | 1 => 4,
        2 => 3,
        3 => 2,
        4 => 1,
        _ => return false,
    };
    x >= 0 && x <= limit
}

const DIRS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];

fn on_board(x: i32, y: i32) -> bool {
    (0..16).contains(&x) && (0..16).contains(&y)
}

impl SimpleBoard {
    /// The standard start with `side` to move.
    pub fn start(side: Player) -> Self {
        let mut cells = [[0u8; 16]; 16];
        for y in 0..16 {
            for x in 0..16 {
                if in_camp(Player::One, x, y) {
                    cells[y as usize][x as usize] = 1;
                } else if in_camp(Player::Two, x, y) {
                    cells[y as usize][x as usize] = 2;
                }
            }
        }
        SimpleBoard { cells, side }
    }

    fn at(&self, x: i32, y: i32) -> u8 {
        self.cells[y as usize][x as usize]
    }

    /// Recursive search of jump landings from (x, y); `stay_in` limits the
    /// landings to one colour's camp.
    fn jumps(&self, x: i32, y: i32, stay_in: Option<Player>, seen: &mut [[bool; 16]; 16]) {
        for (dx, dy) in DIRS {
            let (ox, oy, lx, ly) = (x + dx, y + dy, x + 2 * dx, y + 2 * dy);
            if !on_board(lx, ly) || self.at(ox, oy) == 0 || self.at(lx, ly) != 0 || seen[ly as usize][lx as usize] {
                continue;
            }
            if let Some(c) = stay_in {
                if !in_camp(c, lx, ly) {
                    continue;
                }
            }
            seen[ly as usize][lx as usize] = true;
            self.jumps(lx, ly, stay_in, seen);
        }
    }

    /// Every end cell of a play of the piece on (x, y), before rules 2-4.
    fn ends(&self, x: i32, y: i32, narrow: bool) -> Vec<(i32, i32)> {
        let me = self.side;
        let goal = me.other();
        let stay_in = if narrow && in_camp(goal, x, y) {
            Some(goal)
        } else {
            None
        };
        // Lift the piece: its start counts as empty during the chain.
        let mut b = self.clone();
        b.cells[y as usize][x as usize] = 0;
        let mut seen = [[false; 16]; 16];
        seen[y as usize][x as usize] = true;
        b.jumps(x, y, stay_in, &mut seen);
        for (dx, dy) in DIRS {
            let (nx, ny) = (x + dx, y + dy);
            if on_board(nx, ny) && b.at(nx, ny) == 0 && stay_in.is_none_or(|c| in_camp(c, nx, ny)) {
                seen[ny as usize][nx as usize] = true;
            }
        }
        seen[y as usize][x as usize] = false;
        let mut out = Vec::new();
        for ty in 0..16 {
            for tx in 0..16 {
                if seen[ty as usize][tx as usize] {
                    out.push((tx, ty));
                }
            }
        }
        out
    }

    /// Legal plays as ((fx, fy), (tx, ty)), sorted. `narrow` selects the
    /// agent's reading, otherwise the referee's.
    pub fn legal(&self, narrow: bool) -> Vec<((i32, i32), (i32, i32))> {
        let me = self.side;
        let piece = me.index() as u8 + 1;
        let corner = if me == Player::One { (0, 0) } else { (15, 15) };
        let mut leave = Vec::new();
        let mut further = Vec::new();
        let mut camp_other = Vec::new();
        let mut outside = Vec::new();
        let mut has_camp_piece = false;
        for y in 0..16 {
            for x in 0..16 {
                if self.at(x, y) != piece {
                    continue;
                }
                let from_camp = in_camp(me, x, y);
                has_camp_piece |= from_camp;
                for (tx, ty) in self.ends(x, y, narrow) {
                    let mv = ((x, y), (tx, ty));
                    if from_camp {
                        if !in_camp(me, tx, ty) {
                            leave.push(mv);
                        } else {
                            let (d0x, d0y) = ((x - corner.0).abs(), (y - corner.1).abs());
                            let (d1x, d1y) = ((tx - corner.0).abs(), (ty - corner.1).abs());
                            if d1x >= d0x && d1y >= d0y && (d1x > d0x || d1y > d0y) {
                                further.push(mv);
                            } else {
                                camp_other.push(mv);
                            }
                        }
                    } else {
                        // Rule 2: may not end in the own camp; rule 3: from the
                        // opposing camp, must end in it.
                        if in_camp(me, tx, ty) {
                            continue;
                        }
                        if in_camp(me.other(), x, y) && !in_camp(me.other(), tx, ty) {
                            continue;
                        }
                        outside.push(mv);
                    }
                }
            }
        }
        let mut r = if !has_camp_piece {
            outside
        } else if !leave.is_empty() {
            leave
        } else if !further.is_empty() {
            further
        } else if narrow {
            if outside.is_empty() {
                camp_other
            } else {
                outside
            }
        } else {
            outside.into_iter().chain(camp_other).collect()
        };
        r.sort();
        r
    }

    /// Plays (from, to) for the side to move.
    pub fn play(&mut self, from: (i32, i32), to: (i32, i32)) {
        let p = self.cells[from.1 as usize][from.0 as usize];
        self.cells[from.1 as usize][from.0 as usize] = 0;
        self.cells[to.1 as usize][to.0 as usize] = p;
        self.side = self.side.other();
    }

    /// Rule 5 for `colour`: its goal camp full, with at least one of its pieces.
    pub(crate) fn has_won(&self, colour: Player) -> bool {
        let mut mine = false;
        for y in 0..16 {
            for x in 0..16 {
                if in_camp(colour.other(), x, y) {
                    match self.at(x, y) {
                        0 => return false,
                        p if p as usize == colour.index() + 1 => mine = true,
                        _ => {}
                    }
                }
            }
        }
        mine
    }

    #[cfg(test)]
    /// The referee's verdict on a hop path for the side to move: `Some(end)`
    /// when every hop is legal and (start, end) is a legal play under the wide
    /// reading; `None` otherwise. `path` is the list of visited cells.
    pub(crate) fn judge_jumps(&self, path: &[(i32, i32)]) -> Option<(i32, i32)> {
        let me = self.side.index() as u8 + 1;
        let start = *path.first()?;
        if !on_board(start.0, start.1) || self.at(start.0, start.1) != me {
            return None;
        }
        let mut b = self.clone();
        b.cells[start.1 as usize][start.0 as usize] = 0;
        for w in path.windows(2) {
            let ((ax, ay), (bx, by)) = (w[0], w[1]);
            let (dx, dy) = (bx - ax, by - ay);
            if !on_board(bx, by) || !(dx.abs() == 2 || dy.abs() == 2) || dx % 2 != 0 || dy % 2 != 0 {
                return None;
            }
            if (dx.abs() != 2 && dx != 0) || (dy.abs() != 2 && dy != 0) {
                return None;
            }
            if b.at(ax + dx / 2, ay + dy / 2) == 0 || b.at(bx, by) != 0 {
                return None;
            }
        }
        let end = *path.last().expect("non-empty");
        if end == start || path.len() < 2 {
            return None;
        }
        if self.legal(false).contains(&(start, end)) {
            Some(end)
        } else {
            None
        }
    }
}

/// Leaf count `depth` plies below `b` (won positions are leaves).
pub fn perft(b: &SimpleBoard, depth: u32) -> u64 {
    if depth == 0 || b.has_won(b.side.other()) {
        return 1;
    }
    let moves = b.legal(true);
    if depth == 1 {
        // Bulk count, as the bitboard perft does, so the two are timed alike.
        return moves.len() as u64;
    }
    let mut n = 0;
    for (f, t) in moves {
        let mut c = b.clone();
        c.play(f, t);
        n += perft(&c, depth - 1);
    }
    n
}

/// The simple implementation's view of a position.
pub fn to_simple(pos: &super::Halma) -> SimpleBoard {
    let mut b = SimpleBoard {
        cells: [[0; 16]; 16],
        side: pos.side(),
    };
    for c in Player::ALL {
        for p in pos.pieces(c).iter() {
            b.cells[p as usize / 16][p as usize % 16] = c.index() as u8 + 1;
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_perft_of_the_start() {
        let b = SimpleBoard::start(Player::One);
        assert_eq!(perft(&b, 1), 40);
        assert_eq!(perft(&b, 2), 1600);
    }
}
