//! `testnim`: a tiny game used as a test fixture, the one shared by the
//! search core's tests (known game values), the driver's tests, the
//! conformance test and the referee's tests (runner, game loop, matches,
//! human seat, the `mock-agent` example), so each can be tested with real
//! files and processes independently of the real games. Not a contest game:
//! it is not in [`crate::games::GameKind`], so the agent never plays it
//! from an `input.txt`; the referee accepts `--game testnim` by name.
//!
//! Rules: a pile of counters; the mover takes 1, 2 or 3; whoever takes the
//! last counter wins. `input.txt`:
//! ```text
//! TESTNIM
//! GAME          <- or SINGLE
//! 1             <- player to move: 1 or 2
//! 10.0          <- remaining seconds
//! 21            <- counters left
//! ```
//! `output.txt`: the number of counters taken.

use crate::protocol::{
    format_time, parse_header, BoardView, CellView, GenOptions, Ground, Input, LegendEntry, Lines, Mode, MoveError,
    MoveView, Notation, ParseError, Player, Setup, View,
};
use crate::play::Steps;
use crate::search::{Evaluator, Game, Outcome, SearchHints, Searchable};
use crate::timing::TimePolicy;

/// A TESTNIM position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestNim {
    /// Counters left.
    pub pile: u32,
    /// Seat to move.
    pub side: Player,
}

impl TestNim {
    /// A pile of `pile` counters with player 1 to move.
    pub fn new(pile: u32) -> Self {
        TestNim {
            pile,
            side: Player::One,
        }
    }
}

impl Game for TestNim {
    type Move = u32;

    fn legal_moves(&self, out: &mut Vec<u32>) {
        out.extend(1..=self.pile.min(3));
    }

    fn play(&mut self, mv: u32) {
        self.pile -= mv;
        self.side = self.side.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.pile == 0).then_some(Outcome::Loss)
    }

    fn hash(&self) -> u64 {
        (self.pile as u64) << 1 | self.side.index() as u64
    }
}

/// The test game's evaluation (the agent's and the reference's).
#[derive(Clone, Copy, Debug, Default)]
pub struct NimEval;

impl Evaluator<TestNim> for NimEval {
    type Context = ();

    fn evaluate(&self, pos: &TestNim) -> i32 {
        // The exact value's sign (a multiple of 4 loses for the mover), so
        // that shallow searches and greedy play well in referee tests.
        if pos.pile.is_multiple_of(4) {
            -100
        } else {
            100
        }
    }
}

impl SearchHints for TestNim {}

impl Searchable for TestNim {
    type Eval = NimEval;
    type Reference = NimEval;
}

impl Notation for TestNim {
    const NAME: &'static str = "testnim";

    const TAG: Option<&'static str> = Some("TESTNIM");

    fn parse_input(text: &str) -> Result<Input<Self>, ParseError> {
        let mut lines = Lines::new(text);
        let h = parse_header(&mut lines, "TESTNIM")?;
        let side = h.side.player_number()?;
        let l = lines.next_line("the number of counters")?;
        let pile = l.parse_n::<u32>(1, "the number of counters")?[0];
        Ok(Input {
            state: TestNim { pile, side },
            mode: h.mode,
            remaining: h.remaining,
        })
    }

    fn write_input(&self, mode: Mode, remaining: f64) -> String {
        format!(
            "TESTNIM\n{}\n{}\n{}\n{}\n",
            mode.token(),
            self.side.index() + 1,
            format_time(remaining),
            self.pile
        )
    }

    fn format_move(&self, mv: u32) -> String {
        format!("{mv}\n")
    }

    fn parse_move(&self, text: &str) -> Result<u32, MoveError> {
        let t = text.trim();
        let n: u32 = t
            .parse()
            .map_err(|_| MoveError::Malformed(format!("expected a number of counters, found {t:?}")))?;
        if n == 0 || n > 3 || n > self.pile {
            return Err(MoveError::Illegal(format!(
                "cannot take {n} from a pile of {} (1 to 3)",
                self.pile
            )));
        }
        Ok(n)
    }

    fn to_move(&self) -> Player {
        self.side
    }

    fn player_names() -> [&'static str; 2] {
        ["1", "2"]
    }
}

impl Setup for TestNim {
    const PARAMS: &'static [crate::protocol::Param] = &[crate::protocol::Param::plain(
        crate::protocol::ParamKey::Size,
        "counters in the pile (default 21)",
    )];

    fn generate(opts: &GenOptions) -> Result<Self, String> {
        let pile = opts.size.unwrap_or(21);
        if pile == 0 || pile > 1_000_000 {
            return Err(format!("testnim needs a pile of 1 to 1000000 counters, got {pile}"));
        }
        Ok(TestNim {
            pile: pile as u32,
            side: opts.first,
        })
    }
}

impl View for TestNim {
    fn render(&self) -> String {
        format!("pile: {} {}", self.pile, "|".repeat(self.pile.min(60) as usize))
    }

    fn board_view(&self) -> BoardView {
        let cell = if self.pile == 0 {
            CellView::empty(Ground::Plain, ".")
        } else {
            CellView::with_piece(Ground::Plain, None, self.pile.to_string(), self.pile.to_string())
        };
        BoardView {
            rows: 1,
            cols: 1,
            cells: vec![cell],
            links: Vec::new(),
            facts: vec![format!("{} counters", self.pile)],
            outcome: self
                .result()
                .map(|_| format!("player {} took the last counter", self.side.other().index() + 1)),
            legend: vec![LegendEntry::pattern(
                "N",
                "counters in the pile",
                CellView::with_piece(Ground::Plain, None, "3", "3"),
            )],
        }
    }

    fn move_view(&self, mv: u32) -> MoveView {
        MoveView {
            cells: vec![(0, 0)],
            note: Some(format!("takes {mv}")),
        }
    }
}

impl Steps for TestNim {}

impl TimePolicy for TestNim {
    fn moves_left_estimate(&self) -> f64 {
        (self.pile as f64 / 4.0).max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_judges() {
        let g = TestNim {
            pile: 2,
            side: Player::Two,
        };
        let inp = TestNim::parse_input(&g.write_input(Mode::Game, 1.5)).unwrap();
        assert_eq!(inp.state, g);
        assert_eq!(inp.remaining, 1.5);
        assert_eq!(g.parse_move("2\n"), Ok(2));
        assert!(matches!(g.parse_move("3"), Err(MoveError::Illegal(_))));
        assert!(matches!(g.parse_move("x"), Err(MoveError::Malformed(_))));
        let e = TestNim::parse_input("TESTNIM\nGAME\n3\n1.0\n5\n").unwrap_err();
        assert_eq!(e.line, 3);
    }
}
