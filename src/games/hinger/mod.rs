//! Hinger (SPEC §3): two players remove one counter at a time from a shared
//! board; moving on a hinger wins, emptying the board without one draws.
//!
//! - [`board`]: the bitboard rules (regions, hingers, move cost).
//! - [`sum`]: the exact solver the agent plays with (`agent hinger solve`):
//!   the game as a sum of independent regions, normal play plus parity.
//! - [`solver`]: the plain exact win/draw/loss solver (`agent hinger win`),
//!   kept as the simple oracle the tests check [`sum`] against.
//! - [`path`]: the safe-path searches (`agent hinger path`) and
//!   [`compare`]: their scaling study (`agent hinger compare`).
//! - [`cli`]: the `agent hinger ...` subcommands.
//!
//! Play reduces to "safe" moves: a side that can move on a hinger wins at
//! once, and a move that leaves a hinger hands the opponent that win. So the
//! evaluation counts safe moves, and the exact solver only explores them.

pub mod board;
pub mod path;
pub mod solver;
pub mod sum;

use crate::protocol::{
    format_time, parse_header, BoardView, CellView, LegendEntry, Notation, Policy, Setup, View, GenOptions, Ground, Input, Lines, Mode, MoveError,
    MoveView, ParseError, Player,
};
use crate::search::{Evaluator, SearchHints, alphabeta::Searcher, Game, Limits, Outcome, Strategy};
use crate::timing::{tt_bytes, DEFAULT_NPS};
pub use board::{iter_bits, Board};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Hash key of "player two to move".
const SIDE_KEY: u64 = 0x6A09_E667_F3BC_C908;

/// A Hinger position: the board, the side to move, and whether the last move
/// was on a hinger (the game is then over and its mover has won).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hinger {
    board: Board,
    to_move: Player,
    /// The player who moved on a hinger, if one did.
    winner: Option<Player>,
    /// Zobrist-style hash of the piles (side not included).
    zob: u64,
}

/// A move: the bit index of the cell to take a counter from.
pub type HingerMove = u8;

impl Hinger {
    /// A position with `to_move` to play on `board`.
    pub fn new(board: Board, to_move: Player) -> Hinger {
        let zob = iter_bits(board.active()).fold(0, |h, i| h ^ board::mix(i, board.pile(i)));
        Hinger {
            board,
            to_move,
            winner: None,
            zob,
        }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The player who moved on a hinger, if the game ended that way.
    pub fn winner(&self) -> Option<Player> {
        self.winner
    }

    /// The move at `(r, c)` (no legality check).
    pub fn move_at(&self, r: usize, c: usize) -> HingerMove {
        self.board.index(r, c) as HingerMove
    }

    /// `(row, col)` of a move.
    pub fn coords(&self, mv: HingerMove) -> (usize, usize) {
        self.board.coords(mv as usize)
    }

    /// A uniformly random binary board of `rows x cols` where each cell is
    /// active with probability `density`.
    pub fn random_board(rows: usize, cols: usize, density: f64, rng: &mut SmallRng) -> Result<Board, String> {
        let mut b = Board::new(rows, cols)?;
        for r in 0..rows {
            for c in 0..cols {
                if rng.gen_bool(density) {
                    b.set(r, c, 1)?;
                }
            }
        }
        Ok(b)
    }
}

/// Reads a `rows cols` line and the grid below it from `lines`.
pub fn parse_board(lines: &mut Lines<'_>) -> Result<Board, ParseError> {
    let dims = lines.next_line("the board size `rows cols`")?;
    let rc = dims.parse_sizes(
        2,
        "the board size `rows cols` (two positive integers)",
        board::SIZE_LIMIT,
    )?;
    let (rows, cols) = (rc[0], rc[1]);
    let mut board = Board::new(rows, cols).map_err(|e| dims.error(e))?;
    for r in 0..rows {
        // Rows and columns are 0-based in messages, as in the move format.
        let l = lines.next_line(&format!("board row {r} of {rows}"))?;
        let toks: Vec<&str> = l.tokens().collect();
        if toks.len() != cols {
            return Err(l.error(format!(
                "expected board row {r} of {rows} with {cols} pile sizes, found {} values in {:?}",
                toks.len(),
                l.text
            )));
        }
        for (c, t) in toks.iter().enumerate() {
            // All digits but too big for u32 is a pile above the maximum, not a typo.
            let p: u32 = match t.parse::<u32>() {
                Ok(p) => p,
                Err(_) if t.bytes().all(|b| b.is_ascii_digit()) => board::MAX_PILE + 1,
                Err(_) => {
                    return Err(l.error(format!(
                        "expected a non-negative integer pile size at row {r}, column {c}, found {t:?}"
                    )))
                }
            };
            if p > board::MAX_PILE {
                return Err(l.error(format!(
                    "the pile at row {r}, column {c} is {t}, more than the supported maximum of {} counters",
                    board::MAX_PILE
                )));
            }
            board.set(r, c, p).map_err(|e| l.error(e))?;
        }
    }
    Ok(board)
}

/// Reads a board file: either a bare `rows cols` line plus grid, or a whole
/// Hinger `input.txt` (whose side to move is then returned too).
pub fn parse_board_file(text: &str) -> Result<(Board, Option<Player>), ParseError> {
    let mut probe = Lines::new(text);
    if probe.next().is_some_and(|l| l.text == "HINGER") {
        let input = Hinger::parse_input(text)?;
        return Ok((input.state.board, Some(input.state.to_move)));
    }
    let mut lines = Lines::new(text);
    Ok((parse_board(&mut lines)?, None))
}

impl Game for Hinger {
    type Move = HingerMove;

    fn legal_moves(&self, out: &mut Vec<HingerMove>) {
        if self.winner.is_some() {
            return;
        }
        out.extend(iter_bits(self.board.active()).map(|i| i as HingerMove));
    }

    fn play(&mut self, mv: HingerMove) {
        let i = mv as usize;
        if self.board.is_hinger(i) {
            self.winner = Some(self.to_move);
        }
        let p = self.board.pile(i);
        self.zob ^= board::mix(i, p);
        if p > 1 {
            self.zob ^= board::mix(i, p - 1);
        }
        self.board.remove(i);
        self.to_move = self.to_move.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.winner.is_some() {
            Some(Outcome::Loss)
        } else if self.board.active() == 0 {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn hash(&self) -> u64 {
        let side = if self.to_move == Player::Two { SIDE_KEY } else { 0 };
        let over = if self.winner.is_some() {
            SIDE_KEY.rotate_left(17)
        } else {
            0
        };
        self.zob ^ side ^ over
    }
}

impl Evaluator for Hinger {
    type Context = ();

    /// Safe-move parity. With a hinger on the board the mover wins next
    /// move; with no safe move every move hands one over. Otherwise, if the
    /// safe moves did not interfere, they would simply be used up in turn and
    /// the side facing none would lose: an odd number favours the mover.
    fn evaluate(&self) -> i32 {
        if self.board.has_hinger() {
            return 50_000;
        }
        let safe = self.board.safe_moves();
        let n = safe.count_ones() as i32;
        if n == 0 {
            return -50_000;
        }
        if n % 2 == 1 {
            100
        } else {
            -100
        }
    }

    /// The reference (minimax) agent knows only wins and losses: depth 2
    /// takes a hinger and avoids handing one over, and is indifferent
    /// otherwise, as a plain textbook minimax on Hinger would be.
    fn reference_eval(&self) -> i32 {
        0
    }
}

impl SearchHints for Hinger {
    const HISTORY_SIZE: usize = 128;

    fn history_key(&self, mv: HingerMove) -> usize {
        mv as usize
    }

    /// Hinger moves first. (Telling hinger-giving moves apart would cost a
    /// connectivity test per move at every node; the search finds them one
    /// ply down at once.)
    fn order_hint(&self, mv: HingerMove) -> i32 {
        if self.board.is_hinger(mv as usize) {
            1_000_000
        } else {
            0
        }
    }
}

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
        crate::protocol::Param {
            key: crate::protocol::ParamKey::Rows,
            about: "board rows (default 5)",
            prompt: None,
            choices: &[],
        },
        crate::protocol::Param {
            key: crate::protocol::ParamKey::Cols,
            about: "board columns (default 5)",
            prompt: None,
            choices: &[],
        },
        crate::protocol::Param {
            key: crate::protocol::ParamKey::Density,
            about: "share of cells holding counters, 0 to 1 (default 0.6)",
            prompt: None,
            choices: &[],
        },
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

impl Policy for Hinger {
    /// Games rarely run to the last counter: most end when the safe moves
    /// run out, around half-way; the agent makes half of those moves.
    fn moves_left_estimate(&self) -> f64 {
        (self.board.counters() as f64 * 0.3).max(1.0)
    }

    /// The default strategy runs a short alpha-beta probe (so that a
    /// searched move is in `output.txt` early: the solver reports nothing
    /// until it is done), then tries to solve the position exactly (the
    /// solver is far stronger than a heuristic search when it finishes) with
    /// 60 % of the soft budget left, and plays the solved move or, in a draw
    /// or a loss, the best trap; otherwise it goes back to ID alpha-beta with
    /// the rest (one-ply greedy when under 0.2 s remain).
    fn special_move(
        &self,
        strategy: Strategy,
        limits: &Limits,
        on_improve: &mut dyn FnMut(HingerMove),
    ) -> Option<HingerMove> {
        if strategy != Strategy::Best {
            return None;
        }
        let timer = crate::clock::CpuTimer::start();
        // The search looks at the clock every 1024 nodes, up to about 0.1 s
        // apart on a full 10x10 board: keep that much in hand.
        const CLOCK_SLACK: f64 = 0.1;
        let mut searcher = Searcher::<Hinger>::new(tt_bytes(limits.hard, DEFAULT_NPS / 20.0));
        let probe = (0.1 * limits.soft).min(PROBE_SECONDS);
        let mut probed = None;
        if limits.hard >= probe + 2.0 * CLOCK_SLACK && probe >= 0.05 {
            probed = searcher
                .search(self, Limits::time(probe, probe), |info| on_improve(info.best))
                .best;
        }
        let share = 0.6 * limits.after(timer.elapsed()).soft;
        let mut s = sum::SumSolver::new();
        if let Some(r) = s.solve_within(&self.board, share) {
            let value = match r.value {
                solver::Value::Win => "a win",
                solver::Value::Draw => "a draw",
                solver::Value::Loss => "a loss",
            };
            log::debug!(
                "hinger: solved exactly: {value} for the side to move ({} nodes)",
                r.nodes
            );
            if let Some(best) = r.best {
                on_improve(best as HingerMove);
            }
            let rest = (share - timer.elapsed()).max(0.0);
            if let Some(mv) = s.practical_move(&self.board, &r, rest).or(r.best) {
                return Some(mv as HingerMove);
            }
        }
        drop(s);
        let rest = limits.after(timer.elapsed() + CLOCK_SLACK);
        if rest.hard < 0.2 {
            return probed.or_else(|| crate::search::greedy::choose(self));
        }
        searcher.search(self, rest, |info| on_improve(info.best)).best
    }
}

/// CPU seconds of alpha-beta before the exact solver (see `special_move`).
const PROBE_SECONDS: f64 = 0.3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{turn, AgentOptions};
    use crate::search::minimax;

    fn sample(name: &str) -> String {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples/hinger")
            .join(name)
            .join("input.txt");
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn sample_names() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/hinger");
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("input.txt").exists())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn parses_the_spec_example_and_round_trips() {
        let text = "HINGER\nSINGLE\n1\n30.0\n4 5\n1 1 0 0 2\n1 1 0 0 0\n0 0 1 1 1\n0 0 0 1 1\n";
        let inp = Hinger::parse_input(text).unwrap();
        assert_eq!(inp.mode, Mode::Single);
        assert_eq!(inp.remaining, 30.0);
        assert_eq!(inp.state.to_move(), Player::One);
        assert_eq!(inp.state.board().regions(), 2);
        assert_eq!(inp.state.write_input(Mode::Single, 30.0), text);
        let mv = inp.state.parse_move("0 4\n").unwrap();
        assert_eq!(inp.state.format_move(mv), "0 4\n");
    }

    #[test]
    fn bad_input_is_reported_with_its_line() {
        let cases = [
            ("HINGER\nSINGLE\n3\n30.0\n1 1\n1\n", 3, "1 or 2"),
            ("HINGER\nSINGLE\n1\n30.0\n2 x\n1\n", 5, "rows cols"),
            ("HINGER\nSINGLE\n1\n30.0\n2 2\n1 1\n1\n", 7, "row 1 of 2"),
            ("HINGER\nSINGLE\n1\n30.0\n2 2\n1 -1\n1 1\n", 6, "non-negative"),
            ("HINGER\nSINGLE\n1\n30.0\n12 10\n", 5, "too large"),
            ("HINGER\nSINGLE\n1\n30.0\n1 1\n16777217\n", 6, "maximum of 16777216"),
            (
                "HINGER\nSINGLE\n1\n30.0\n1 2\n1 99999999999999999999999\n",
                6,
                "row 0, column 1",
            ),
            ("HINGER\nSINGLE\n1\n30.0\n1 18446744073709551615\n", 5, "too large"),
            ("HINGER\nSINGLE\n1\n30.0\n18446744073709551615 1\n", 5, "too large"),
        ];
        for (text, line, what) in cases {
            let e = Hinger::parse_input(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.contains(what), "{text:?}: {e}");
        }
        let e = Hinger::parse_input("HINGER\nSINGLE\n1\n30.0\n2 2\n1 1\n").unwrap_err();
        assert!(e.message.contains("row 1 of 2"), "{e}");
    }

    #[test]
    fn moves_are_judged() {
        let g = Hinger::parse_input("HINGER\nGAME\n2\n5\n2 3\n1 0 1\n1 1 1\n")
            .unwrap()
            .state;
        assert!(matches!(g.parse_move("0 1"), Err(MoveError::Illegal(_))));
        assert!(matches!(g.parse_move("2 0"), Err(MoveError::Illegal(_))));
        assert!(matches!(g.parse_move("0"), Err(MoveError::Malformed(_))));
        assert!(matches!(g.parse_move("a b"), Err(MoveError::Malformed(_))));
        assert!(g.parse_move(" 1 2 \r\n").is_ok());
    }

    #[test]
    fn hinger_move_wins_and_empty_board_draws() {
        let mut g = Hinger::new(Board::from_grid(&[vec![1, 1, 1]]).unwrap(), Player::Two);
        let mut h = g.clone();
        h.play(g.move_at(0, 1));
        assert_eq!(h.result(), Some(Some(Player::Two)));
        assert_eq!(h.outcome(), Some(Outcome::Loss));
        let mut v = Vec::new();
        h.legal_moves(&mut v);
        assert!(v.is_empty());
        for c in [0, 1, 2] {
            assert_eq!(g.result(), None);
            g.play(g.move_at(0, c));
        }
        assert_eq!(g.result(), Some(None));
        assert_eq!(g.outcome(), Some(Outcome::Draw));
    }

    #[test]
    fn hash_is_incremental() {
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..200 {
            let mut b = Hinger::random_board(4, 5, 0.7, &mut rng).unwrap();
            b.set(1, 1, 3).unwrap();
            let mut g = Hinger::new(b, Player::One);
            let mut moves = Vec::new();
            while g.outcome().is_none() {
                moves.clear();
                g.legal_moves(&mut moves);
                g.play(moves[rng.gen_range(0..moves.len())]);
                let fresh = Hinger::new(g.board.clone(), g.to_move);
                if g.winner.is_none() {
                    assert_eq!(fresh.hash(), g.hash());
                }
            }
        }
    }

    #[test]
    fn generated_boards_are_binary_and_hinger_free() {
        for seed in 0..50 {
            let o = GenOptions {
                rows: Some(6),
                cols: Some(5),
                density: Some(0.6),
                seed,
                ..Default::default()
            };
            let g = Hinger::generate(&o).unwrap();
            assert!(g.board().is_binary());
            assert!(!g.board().has_hinger());
            assert_eq!((g.board().rows(), g.board().cols()), (6, 5));
        }
        let o = GenOptions {
            density: Some(1.5),
            ..Default::default()
        };
        assert!(Hinger::generate(&o).is_err());
    }

    #[test]
    fn agent_writes_a_legal_move_for_every_sample() {
        let names = sample_names();
        assert!(names.len() >= 4, "{names:?}");
        for name in names {
            for strategy in [
                Strategy::Best,
                Strategy::AlphaBeta(3),
                Strategy::Minimax(2),
                Strategy::Mcts,
            ] {
                let dir = std::env::temp_dir().join(format!("hinger-{name}-{}-{strategy:?}", std::process::id()));
                std::fs::create_dir_all(&dir).unwrap();
                let text = sample(&name);
                let opts = AgentOptions {
                    dir: dir.clone(),
                    strategy,
                    time_scale: 0.02,
                };
                let r = turn::<Hinger>(&text, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
                let out = std::fs::read_to_string(dir.join("output.txt")).unwrap();
                assert_eq!(out, r.output);
                let state = Hinger::parse_input(&text).unwrap().state;
                assert!(state.parse_move(&out).is_ok(), "{name} {strategy:?}: {out:?}");
                std::fs::remove_dir_all(&dir).unwrap();
            }
        }
    }

    #[test]
    fn search_takes_a_hinger_and_avoids_giving_one() {
        // (0,1) is a hinger: every strategy takes it.
        let g = Hinger::new(
            Board::from_grid(&[vec![1, 1, 1], vec![0, 0, 0], vec![1, 0, 0]]).unwrap(),
            Player::One,
        );
        let r = crate::search::alphabeta::search(&g, Limits::depth(4), 1 << 16);
        assert_eq!(r.best, Some(g.move_at(0, 1)));
        let r = minimax::search(&g, &Limits::depth(2), |_| {});
        assert_eq!(r.best, Some(g.move_at(0, 1)));
        // On hinger-free boards with a safe move, the search never hands the
        // opponent a hinger.
        let mut rng = SmallRng::seed_from_u64(11);
        let mut checked = 0;
        while checked < 100 {
            let b = Hinger::random_board(4, 4, 0.7, &mut rng).unwrap();
            if b.has_hinger() || b.safe_moves() == 0 {
                continue;
            }
            checked += 1;
            let g = Hinger::new(b, Player::One);
            let r = crate::search::alphabeta::search(&g, Limits::depth(3), 1 << 16);
            let mv = r.best.unwrap() as usize;
            assert!(
                !g.board().hinger_after_removal(mv),
                "{:?} {:?}",
                g.board(),
                g.coords(mv as u8)
            );
        }
    }
}
