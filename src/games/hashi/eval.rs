//! Hashi evaluation: the score difference, plus the points lying one
//! bridge away. Nobody owns an island, so whoever moves first takes the
//! biggest ready completion, the other side the next one, and so on; the
//! evaluation credits those points alternately, which keeps the search from
//! stopping just before an obvious capture.

use super::{Hashi, HashiMove, MAX_ISLANDS, MAX_PAIRS};
use crate::search::{Evaluator, SearchHints, Searchable};

/// Weight of one point of score difference.
pub(crate) const POINT: i32 = 100;

/// The agent's evaluation, side-to-move view.
pub fn evaluate(h: &Hashi) -> i32 {
    let me = h.side();
    let diff = h.points[me] - h.points[me.other()];
    POINT * diff + ready_points(h)
}

/// Alternating sum (mover first) of the labels of islands one bridge short
/// of their label that a legal bridge can complete now, largest first,
/// each worth a bit less than a point already scored (it can be lost to a
/// crossing bridge or to the order of play). Allocation-free: labels are
/// 1-4, so a count per label sorts them.
fn ready_points(h: &Hashi) -> i32 {
    let topo = h.topology();
    let mut count = [0u32; 5];
    for (i, pairs) in topo.island_pairs.iter().enumerate() {
        let l = h.label(i);
        if l == 0 || h.degree(i) + 1 != l {
            continue;
        }
        if pairs.iter().any(|&p| p != super::NO_PAIR && h.can_bridge(p as usize)) {
            count[l as usize] += 1;
        }
    }
    let mut sum = 0;
    let mut mine = true;
    for l in (1..=4).rev() {
        for _ in 0..count[l] {
            let v = l as i32 * POINT;
            sum += if mine { v * 9 / 10 } else { -(v * 7 / 10) };
            mine = !mine;
        }
    }
    sum
}

/// The reference agent's evaluation: the score difference only.
pub fn reference(h: &Hashi) -> i32 {
    let me = h.side();
    POINT * (h.points[me] - h.points[me.other()])
}

/// Ordering hint: captures first (by points), then quiet moves, and last
/// the bridges that leave an island one short of its label for the opponent.
pub fn order_hint(h: &Hashi, mv: HashiMove) -> i32 {
    match mv {
        HashiMove::Bridge(p) => {
            let p = p as usize;
            let gain = h.bridge_gain(p);
            let q = h.topology().pairs[p];
            let mut gift = 0;
            for i in [q.a as usize, q.b as usize] {
                if h.degree(i) + 2 == h.label(i) {
                    gift += h.label(i) as i32;
                }
            }
            gain * 16 - gift * 4
        }
        HashiMove::Label(_, _) => 0,
    }
}

/// The agent's evaluation of Hashi ([`evaluate`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct HashiEval;

/// The reference agent's evaluation ([`reference`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct HashiReference;

impl Searchable for Hashi {
    type Eval = HashiEval;
    type Reference = HashiReference;
}

impl Evaluator<Hashi> for HashiEval {
    type Context = ();

    fn evaluate(&self, pos: &Hashi) -> i32 {
        evaluate(pos)
    }
}

impl Evaluator<Hashi> for HashiReference {
    type Context = ();

    fn evaluate(&self, pos: &Hashi) -> i32 {
        reference(pos)
    }
}

impl SearchHints for Hashi {
    const HISTORY_SIZE: usize = MAX_PAIRS + 2 * MAX_ISLANDS;

    fn history_key(&self, mv: HashiMove) -> usize {
        match mv {
            HashiMove::Bridge(p) => p as usize,
            HashiMove::Label(i, l) => MAX_PAIRS + 2 * i as usize + (l as usize & 1),
        }
    }

    fn order_hint(&self, mv: HashiMove) -> i32 {
        order_hint(self, mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Notation;


    fn pos(text: &str) -> Hashi {
        Hashi::parse_input(text).unwrap().state
    }

    #[test]
    fn ready_points_go_to_the_mover_first() {
        // The 1 at the top and the 3 below it (two bridges already) are each
        // one bridge short; the 4 is too but has no free way left. The mover
        // takes the 3, the opponent the 1.
        let h = pos("HASHI\nGAME\n1\n9\n2 -2\n5\n1 . 2 . .\n. . . . .\n3 . . . 4\n. . . . .\n. . . . 1\n2\n2 0 2 4 2\n2 4 4 4 1\n");
        assert_eq!(h.degree(h.topology().island_at(2, 0).unwrap()), 2);
        let ready = ready_points(&h);
        assert_eq!(
            ready,
            300 * 9 / 10 - 100 * 7 / 10,
            "3 for the mover, 1 for the opponent"
        );
        assert_eq!(evaluate(&h), 400 + ready);
        assert_eq!(reference(&h), 400);
        // Player 2's view of the same board: its own score is -2.
        let h2 = pos("HASHI\nGAME\n2\n9\n2 -2\n3\n1 . 1\n. . .\n. . .\n0\n");
        assert_eq!(reference(&h2), -400);
        assert_eq!(evaluate(&h2), -400 + 90 - 70);
    }

    #[test]
    fn captures_are_ordered_first_and_gifts_last() {
        let h = pos("HASHI\nGAME\n1\n9\n0 0\n5\n1 . 3 . 2\n. . . . .\n. . . . .\n. . . . .\n. . . . 2\n0\n");
        let cap = h.parse_move("B 0 0 0 2").unwrap();
        let gift = h.parse_move("B 0 4 4 4").unwrap();
        assert!(order_hint(&h, cap) > 0);
        assert!(order_hint(&h, gift) < 0);
    }
}
