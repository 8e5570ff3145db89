//! Hinger's text side: the `input.txt` and move notation ([`Notation`]),
//! start positions for the referee ([`Setup`]) and the board as a person sees
//! it ([`View`]).

use super::{parse_board, Hinger, HingerMove};
use crate::protocol::{
    format_time, parse_header, BoardView, CellView, GenOptions, Ground, Input, LegendEntry, Lines, Mode, MoveError,
    MoveView, Notation, ParseError, Player, Setup, View,
};
use rand::rngs::SmallRng;
use rand::SeedableRng;

impl Notation for Hinger {
    const NAME: &'static str = "hinger";

    const TAG: Option<&'static str> = Some("HINGER");

    fn parse_input(text: &str) -> Result<Input<Self>, ParseError> {
        let mut lines = Lines::new(text);
        let h = parse_header(&mut lines, "HINGER")?;
        let to_move = h.side.player_number()?;
        let board = parse_board(&mut lines)?;
        Ok(Input {
            state: Hinger::new(board, to_move),
            mode: h.mode,
            remaining: h.remaining,
        })
    }

    fn write_input(&self, mode: Mode, remaining: f64) -> String {
        format!(
            "HINGER\n{}\n{}\n{}\n{} {}\n{}",
            mode.token(),
            Self::player_names()[self.to_move.index()],
            format_time(remaining),
            self.board.rows(),
            self.board.cols(),
            self.board.grid_text()
        )
    }

    fn format_move(&self, mv: HingerMove) -> String {
        let (r, c) = self.coords(mv);
        format!("{r} {c}\n")
    }

    fn parse_move(&self, text: &str) -> Result<HingerMove, MoveError> {
        let toks: Vec<&str> = text.split_whitespace().collect();
        if toks.len() != 2 {
            return Err(MoveError::Malformed(format!(
                "expected `ROW COL` (two integers), found {:?}",
                text.trim()
            )));
        }
        let parse = |t: &str, what: &str| {
            t.parse::<usize>()
                .map_err(|_| MoveError::Malformed(format!("expected a non-negative integer {what}, found {t:?}")))
        };
        let (r, c) = (parse(toks[0], "row")?, parse(toks[1], "column")?);
        if r >= self.board.rows() || c >= self.board.cols() {
            return Err(MoveError::Illegal(format!(
                "cell ({r}, {c}) is off the {}x{} board",
                self.board.rows(),
                self.board.cols()
            )));
        }
        if self.result().is_some() {
            return Err(MoveError::Illegal("the game is over".into()));
        }
        if self.board.get(r, c) == 0 {
            return Err(MoveError::Illegal(format!("cell ({r}, {c}) is empty")));
        }
        Ok(self.move_at(r, c))
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn player_names() -> [&'static str; 2] {
        ["1", "2"]
    }
}

impl Setup for Hinger {
    const PARAMS: &'static [crate::protocol::Param] = &[
        crate::protocol::Param::plain(crate::protocol::ParamKey::Rows, "board rows (default 5)"),
        crate::protocol::Param::plain(crate::protocol::ParamKey::Cols, "board columns (default 5)"),
        crate::protocol::Param::plain(crate::protocol::ParamKey::Density, "share of cells holding counters, 0 to 1 (default 0.6)"),
    ];

    /// A random binary board (default 5x5, density 0.6). Boards that start
    /// with a hinger (an immediate win for the first player) are redrawn, up
    /// to a thousand times, so generated games are contests.
    fn generate(opts: &GenOptions) -> Result<Self, String> {
        let rows = opts.rows.unwrap_or(5);
        let cols = opts.cols.unwrap_or(5);
        let density = opts.density.unwrap_or(0.6);
        if !(0.0..=1.0).contains(&density) {
            return Err(format!("density must be between 0 and 1, found {density}"));
        }
        let mut rng = SmallRng::seed_from_u64(opts.seed);
        let mut board = Hinger::random_board(rows, cols, density, &mut rng)?;
        for _ in 0..1000 {
            if !board.has_hinger() && board.active() != 0 {
                break;
            }
            board = Hinger::random_board(rows, cols, density, &mut rng)?;
        }
        Ok(Hinger::new(board, opts.first))
    }
}

impl View for Hinger {
    fn render(&self) -> String {
        let b = &self.board;
        let hingers = b.hingers();
        let mut s = String::from("    ");
        for c in 0..b.cols() {
            s.push_str(&format!("{c:>3}"));
        }
        for r in 0..b.rows() {
            s.push_str(&format!("\n{r:>3} "));
            for c in 0..b.cols() {
                let i = b.index(r, c);
                let p = b.pile(i);
                let cell = if p == 0 {
                    ".".to_string()
                } else if hingers >> i & 1 == 1 {
                    "H".to_string()
                } else {
                    p.to_string()
                };
                s.push_str(&format!("{cell:>3}"));
            }
        }
        s.push_str(&format!(
            "\n{} regions, {} hinger(s) (H), {} counters; player {} to move",
            b.regions(),
            hingers.count_ones(),
            b.counters(),
            Self::player_names()[self.to_move.index()]
        ));
        s
    }

    fn board_view(&self) -> BoardView {
        let b = &self.board;
        let hingers = b.hingers();
        let mut cells = Vec::with_capacity(b.rows() * b.cols());
        for r in 0..b.rows() {
            for c in 0..b.cols() {
                let i = b.index(r, c);
                let p = b.pile(i);
                let hinger = hingers >> i & 1 == 1;
                let mut cell = if p == 0 {
                    CellView::empty(Ground::Plain, ".")
                } else if hinger {
                    CellView::with_piece(Ground::Plain, None, "1", "H")
                } else {
                    CellView::with_piece(Ground::Plain, None, p.to_string(), p.to_string())
                };
                cell.flagged = hinger;
                cells.push(cell);
            }
        }
        BoardView {
            rows: b.rows(),
            cols: b.cols(),
            cells,
            links: Vec::new(),
            facts: vec![format!(
                "{} regions, {} hinger(s), {} counters",
                b.regions(),
                hingers.count_ones(),
                b.counters()
            )],
            outcome: match self.result() {
                Some(Some(p)) => Some(format!("player {} moved on a hinger", Self::player_names()[p.index()])),
                Some(None) => Some("the last counter went without a hinger move".into()),
                None => None,
            },
            legend: vec![
                LegendEntry::pattern(
                    "N",
                    "pile of N counters",
                    CellView::with_piece(Ground::Plain, None, "2", "2"),
                ),
                LegendEntry::cell(
                    "hinger (taking it wins)",
                    CellView::with_piece(Ground::Plain, None, "1", "H").flagged(),
                ),
                LegendEntry::cell("empty cell", CellView::empty(Ground::Plain, ".")),
            ],
        }
    }

    fn move_view(&self, mv: HingerMove) -> MoveView {
        let (r, c) = self.coords(mv);
        let hinger = self.board.hingers() >> mv & 1 == 1;
        MoveView {
            cells: vec![(r, c)],
            note: hinger.then(|| format!("({r}, {c}) was a hinger")),
        }
    }
}
