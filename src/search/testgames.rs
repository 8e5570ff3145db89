//! A pseudo-random game tree for testing the search core against plain
//! minimax (Nim, the other test game, is [`crate::games::testnim`]).

use super::{Evaluator, Game, Outcome, SearchHints, Searchable};

/// A pseudo-random tree: 1-5 children per node, leaves valued by a hash.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RandomTree {
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
}

/// A random tree's evaluation: a pseudo-random value per node.
#[derive(Default)]
pub(crate) struct RandomTreeEval;

impl Evaluator<RandomTree> for RandomTreeEval {
    type Context = ();

    fn evaluate(&self, pos: &RandomTree) -> i32 {
        (mix(pos.id ^ 0x1234) % 2001) as i32 - 1000
    }
}

impl SearchHints for RandomTree {}

impl Searchable for RandomTree {
    type Eval = RandomTreeEval;
    type Reference = RandomTreeEval;
}
