//! Tiny games for testing the search core against known answers.

use super::{Game, Outcome};

/// Take 1, 2 or 3 from a pile; taking the last counter wins.
#[derive(Clone, Copy, Debug)]
pub struct Nim {
    pile: u32,
    side: u8,
}

impl Nim {
    pub fn new(pile: u32) -> Self {
        Nim { pile, side: 0 }
    }
    pub fn with_side_flipped(mut self) -> Self {
        self.side ^= 1;
        self
    }
}

impl Game for Nim {
    type Move = u32;
    fn legal_moves(&self, out: &mut Vec<u32>) {
        out.extend(1..=self.pile.min(3));
    }
    fn play(&mut self, mv: u32) {
        self.pile -= mv;
        self.side ^= 1;
    }
    fn outcome(&self) -> Option<Outcome> {
        (self.pile == 0).then_some(Outcome::Loss)
    }
    fn hash(&self) -> u64 {
        (self.pile as u64) << 1 | self.side as u64
    }
    fn evaluate(&self) -> i32 {
        0
    }
}

/// A pseudo-random tree: 1-5 children per node, leaves valued by a hash.
#[derive(Clone, Copy, Debug)]
pub struct RandomTree {
    id: u64,
    depth: u32,
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
    x ^ (x >> 33)
}

impl RandomTree {
    pub fn new(seed: u64) -> Self {
        RandomTree {
            id: mix(seed + 1),
            depth: 0,
        }
    }
}

impl Game for RandomTree {
    type Move = u8;
    fn legal_moves(&self, out: &mut Vec<u8>) {
        let n = 1 + (mix(self.id ^ 0xabc) % 5) as u8;
        out.extend(0..n);
    }
    fn play(&mut self, mv: u8) {
        self.id = mix(self.id.wrapping_mul(31).wrapping_add(mv as u64 + 1));
        self.depth += 1;
    }
    fn outcome(&self) -> Option<Outcome> {
        // Some nodes end the game, to exercise terminal scores.
        match mix(self.id ^ 0x77) % 23 {
            0 if self.depth > 0 => Some(Outcome::Loss),
            1 if self.depth > 0 => Some(Outcome::Draw),
            _ => None,
        }
    }
    fn hash(&self) -> u64 {
        self.id
    }
    fn evaluate(&self) -> i32 {
        (mix(self.id ^ 0x1234) % 2001) as i32 - 1000
    }
}

/// Nim through the file protocol, to test the driver without a real game.
/// Format: `NIM`, mode, side (1|2), time, pile.
mod nim_file {
    use super::Nim;
    use crate::protocol::{
        parse_header, BoardView, CellView, FileGame, GenOptions, Ground, Input, Lines, Mode, MoveError, MoveView,
        ParseError, Player,
    };
    use crate::search::Game;

    impl FileGame for Nim {
        const NAME: &'static str = "nim";
        fn parse_input(text: &str) -> Result<Input<Self>, ParseError> {
            let mut lines = Lines::new(text);
            let h = parse_header(&mut lines, "NIM")?;
            let side = h.side.player_number()?.index() as u8;
            let l = lines.next_line("the pile size")?;
            let pile = l.parse_n::<u32>(1, "the pile size")?[0];
            Ok(Input {
                state: Nim { pile, side },
                mode: h.mode,
                remaining: h.remaining,
            })
        }
        fn write_input(&self, mode: Mode, remaining: f64) -> String {
            format!(
                "NIM\n{}\n{}\n{}\n{}\n",
                mode.token(),
                self.side + 1,
                remaining,
                self.pile
            )
        }
        fn format_move(&self, mv: u32) -> String {
            format!("{mv}\n")
        }
        fn parse_move(&self, text: &str) -> Result<u32, MoveError> {
            let n: u32 = text.trim().parse().map_err(|_| MoveError::Malformed(text.into()))?;
            let mut v = Vec::new();
            self.legal_moves(&mut v);
            v.contains(&n)
                .then_some(n)
                .ok_or_else(|| MoveError::Illegal(text.into()))
        }
        fn to_move(&self) -> Player {
            Player::from_index(self.side as usize)
        }
        fn player_names() -> [&'static str; 2] {
            ["1", "2"]
        }
        fn result(&self) -> Option<Option<Player>> {
            (self.pile == 0).then(|| Some(self.to_move().other()))
        }
        fn render(&self) -> String {
            format!("pile {}", self.pile)
        }
        fn moves_left_estimate(&self) -> f64 {
            (self.pile as f64 / 4.0).max(1.0)
        }
        fn generate(_: &GenOptions) -> Result<Self, String> {
            Ok(Nim::new(21))
        }
        fn board_view(&self) -> BoardView {
            BoardView {
                rows: 1,
                cols: 1,
                cells: vec![CellView::with_piece(
                    Ground::Plain,
                    None,
                    self.pile.to_string(),
                    self.pile.to_string(),
                )],
                links: Vec::new(),
                facts: Vec::new(),
                outcome: None,
                legend: vec![("N".into(), "counters in the pile".into())],
            }
        }
        fn move_view(&self, _: u32) -> MoveView {
            MoveView {
                cells: vec![(0, 0)],
                note: None,
            }
        }
    }
}
