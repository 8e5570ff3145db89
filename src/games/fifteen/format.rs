//! Fifteen's text side: the `input.txt` and move notation ([`Notation`]),
//! start positions for the referee ([`Setup`]) and the board as a person sees
//! it ([`View`]).

use super::geo::VALUES;
use super::{parse_board_rows, parse_hands, Fifteen, Move, LIMIT};
use crate::protocol::{
    format_time, parse_header, BoardView, CellView, GenOptions, Ground, Input, LegendEntry, Lines, Mode, MoveError,
    MoveView, Notation, ParseError, Player, Setup, View,
};
use crate::search::Game;

impl Notation for Fifteen {
    const NAME: &'static str = "fifteen";

    const TAG: Option<&'static str> = Some("FIFTEEN");

    fn parse_input(text: &str) -> Result<Input<Self>, ParseError> {
        let mut lines = Lines::new(text);
        let h = parse_header(&mut lines, "FIFTEEN")?;
        let side = h.side.player_number()?;
        let nl = lines.next_line("the board size (4 or 6)")?;
        let n: u8 = match nl.text.trim() {
            "4" => 4,
            "6" => 6,
            other => return Err(nl.error(format!("expected the board size 4 or 6, found {other:?}"))),
        };
        let mut g = Fifteen::new(n, side);
        let on_board = parse_board_rows(&mut lines, &mut g)?;
        parse_hands(&mut lines, &mut g, &on_board)?;
        if !g.is_over() {
            if g.hand[side] == [0; 5] {
                return Err(ParseError::at(
                    h.side.number,
                    format!(
                        "player {} is to move but has no card in hand while the opponent still has some",
                        side.index() + 1
                    ),
                ));
            }
            let free = g.free().count_ones();
            if free < g.plies_left() {
                return Err(ParseError::whole(format!(
                    "the hands hold {} cards but only {free} cells are free to receive them",
                    g.plies_left()
                )));
            }
        }
        g.unstable = (0..g.geo().cells).any(|c| g.occ >> c & 1 == 1 && g.bsum[c] > LIMIT);
        Ok(Input {
            state: g,
            mode: h.mode,
            remaining: h.remaining,
        })
    }

    fn write_input(&self, mode: Mode, remaining: f64) -> String {
        let mut s = format!(
            "FIFTEEN\n{}\n{}\n{}\n{}\n",
            mode.token(),
            self.side.index() + 1,
            format_time(remaining),
            self.n
        );
        let n = self.n as usize;
        for r in 0..n {
            let row: Vec<String> = (0..n).map(|c| self.cell_token(r * n + c)).collect();
            s.push_str(&row.join(" "));
            s.push('\n');
        }
        for p in Player::ALL {
            s.push_str(&format!("{}:", p.index() + 1));
            for (&count, &card) in self.hand[p].iter().zip(&VALUES) {
                for _ in 0..count {
                    s.push_str(&format!(" {card}"));
                }
            }
            s.push('\n');
        }
        s
    }

    fn format_move(&self, mv: Move) -> String {
        let (r, c) = self.row_col(mv.cell);
        format!("{r} {c} {}\n", mv.card)
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let line = Lines::new(text)
            .next()
            .ok_or_else(|| MoveError::Malformed("empty move; expected ROW COL CARD".into()))?;
        let toks: Vec<&str> = line.tokens().collect();
        let nums: Option<Vec<usize>> = toks.iter().map(|t| t.parse::<usize>().ok()).collect();
        match nums {
            Some(v) if v.len() == 3 && v[2] <= u8::MAX as usize => {
                self.check_move(v[0], v[1], v[2] as u8).map_err(MoveError::Illegal)
            }
            _ => Err(MoveError::Malformed(format!(
                "expected ROW COL CARD (three non-negative integers), found {:?}",
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

impl Setup for Fifteen {
    const PARAMS: &'static [crate::protocol::Param] = &[crate::protocol::Param::asked(crate::protocol::ParamKey::Size, "board size, 4 or 6 (default 6)", "Board size, 4 or 6? ", &["4", "6"])];

    fn generate(opts: &GenOptions) -> Result<Self, String> {
        match opts.size.unwrap_or(6) {
            n @ (4 | 6) => Ok(Fifteen::new(n as u8, opts.first)),
            n => Err(format!("a Fifteen board is 4x4 or 6x6, not {n}x{n}")),
        }
    }
}

impl View for Fifteen {
    // The Fifteen brief's interactive flow allows 30 s per move.
    const HUMAN_MOVE_TIME: Option<f64> = Some(30.0);

    const DRAWING: crate::protocol::Drawing = crate::protocol::Drawing {
        piece: crate::protocol::PieceShape::Card,
        move_line: None,
    };

    fn describe_move(&self, mv: Move) -> String {
        let (r, c) = self.row_col(mv.cell);
        format!("({r}, {c}, {})", mv.card)
    }

    fn render(&self) -> String {
        let n = self.n as usize;
        let mut s = String::from("     ");
        for c in 0..n {
            s.push_str(&format!("{c:^6}"));
        }
        s.push('\n');
        for r in 0..n {
            s.push_str(&format!("{r:>3}  "));
            for c in 0..n {
                s.push_str(&format!("{:^6}", self.cell_token(r * n + c)));
            }
            s.push('\n');
        }
        for p in Player::ALL {
            let cards: Vec<String> = (0..5)
                .flat_map(|vi| std::iter::repeat_n(VALUES[vi].to_string(), self.hand[p][vi] as usize))
                .collect();
            s.push_str(&format!(
                "Player {}: hand [{}]  score {}{}\n",
                p.index() + 1,
                cards.join(", "),
                self.score(p),
                if !self.is_over() && self.side() == p {
                    "  <- to move"
                } else {
                    ""
                }
            ));
        }
        s.pop();
        s
    }

    fn board_view(&self) -> BoardView {
        let n = self.n as usize;
        let cells = (0..n * n)
            .map(|cell| {
                if self.removed >> cell & 1 == 1 {
                    CellView::empty(Ground::Removed, "X")
                } else if self.occ >> cell & 1 == 1 {
                    let o = if self.own[Player::One] >> cell & 1 == 1 {
                        Player::One
                    } else {
                        Player::Two
                    };
                    let v = self.val[cell];
                    CellView::with_piece(Ground::Plain, Some(o), v.to_string(), format!("{}:{v}", o.index() + 1))
                } else {
                    CellView::empty(Ground::Plain, ".")
                }
            })
            .collect();
        let facts = Player::ALL
            .into_iter()
            .map(|p| {
                let cards: Vec<String> = (0..5)
                    .flat_map(|vi| std::iter::repeat_n(VALUES[vi].to_string(), self.hand[p][vi] as usize))
                    .collect();
                format!(
                    "player {}: hand [{}], score {}",
                    p.index() + 1,
                    cards.join(", "),
                    self.score(p)
                )
            })
            .collect();
        let outcome = self.is_over().then(|| {
            let (a, b) = (self.score(Player::One), self.score(Player::Two));
            let (x, y) = (self.max_card(Player::One), self.max_card(Player::Two));
            let scores = format!("scores: player 1 {a}, player 2 {b}");
            if a != b {
                format!("{scores}; the higher score wins")
            } else if x != y {
                format!("{scores}, equal; tie broken by the highest card on the board: {x} against {y}")
            } else {
                format!("{scores}, equal, and equal highest cards ({x}): a draw")
            }
        });
        BoardView {
            rows: n,
            cols: n,
            cells,
            links: Vec::new(),
            facts,
            outcome,
            legend: vec![
                LegendEntry::pattern(
                    "P:C",
                    "card C of player P",
                    CellView::with_piece(Ground::Plain, Some(Player::One), "13", "1:13"),
                ),
                LegendEntry::pattern(
                    "P:C",
                    "card C of player P",
                    CellView::with_piece(Ground::Plain, Some(Player::Two), "13", "2:13"),
                ),
                LegendEntry::cell("removed cell (blocked for good)", CellView::empty(Ground::Removed, "X")),
                LegendEntry::cell("empty cell", CellView::empty(Ground::Plain, ".")),
            ],
        }
    }

    fn move_view(&self, mv: Move) -> MoveView {
        let mut after = self.clone();
        after.play(mv);
        let gone: Vec<String> = (0..self.geo().cells)
            .filter(|&c| after.removed >> c & 1 == 1 && self.removed >> c & 1 == 0)
            .map(|c| {
                let (r, col) = self.row_col(c as u8);
                if c == mv.cell as usize {
                    format!("its own card at ({r}, {col})")
                } else {
                    format!("{} at ({r}, {col})", self.cell_token(c))
                }
            })
            .collect();
        MoveView {
            cells: vec![self.row_col(mv.cell)],
            note: (!gone.is_empty()).then(|| format!("removes {}", gone.join(", "))),
        }
    }
}
