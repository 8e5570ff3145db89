//! Rules and format tests, with a deliberately simple implementation of the
//! rules (a grid of cells, neighbour loops, hands as lists) to cross-check
//! the bitmask one on random positions.

use super::*;
use crate::protocol::{GenOptions, Mode, MoveError, Notation, Setup, View};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Empty,
    Removed,
    Card(Player, u8),
}

/// The rules written as plainly as possible.
#[derive(Clone, Debug)]
struct Simple {
    n: usize,
    grid: Vec<Vec<Cell>>,
    hands: ByPlayer<Vec<u8>>,
    side: Player,
}

impl Simple {
    fn from_fast(g: &Fifteen) -> Simple {
        let n = g.size() as usize;
        let cell = |i: usize| {
            if g.removed() >> i & 1 == 1 {
                Cell::Removed
            } else if g.occupied() >> i & 1 == 1 {
                Cell::Card(
                    if g.owned(Player::One) >> i & 1 == 1 {
                        Player::One
                    } else {
                        Player::Two
                    },
                    g.value_at(i),
                )
            } else {
                Cell::Empty
            }
        };
        let grid = (0..n).map(|r| (0..n).map(|c| cell(r * n + c)).collect()).collect();
        let hands = ByPlayer::from_fn(|p| {
            let mut h = Vec::new();
            for (&count, &card) in g.hand(p).iter().zip(&VALUES) {
                h.extend(std::iter::repeat_n(card, count as usize));
            }
            h
        });
        Simple {
            n,
            grid,
            hands,
            side: g.side(),
        }
    }

    fn moves(&self) -> Vec<(usize, usize, u8)> {
        let mut cards = self.hands[self.side].clone();
        cards.sort();
        cards.dedup();
        let mut out = Vec::new();
        for r in 0..self.n {
            for c in 0..self.n {
                if self.grid[r][c] == Cell::Empty {
                    for &v in &cards {
                        out.push((r, c, v));
                    }
                }
            }
        }
        out
    }

    fn play(&mut self, r: usize, c: usize, v: u8) {
        let pos = self.hands[self.side].iter().position(|&x| x == v).unwrap();
        self.hands[self.side].remove(pos);
        self.grid[r][c] = Cell::Card(self.side, v);
        // Check and mark every card first...
        let mut marked = Vec::new();
        for i in 0..self.n {
            for j in 0..self.n {
                if let Cell::Card(_, x) = self.grid[i][j] {
                    let mut total = x as u32;
                    for di in -1i32..=1 {
                        for dj in -1i32..=1 {
                            let (a, b) = (i as i32 + di, j as i32 + dj);
                            if (di, dj) != (0, 0) && a >= 0 && b >= 0 && a < self.n as i32 && b < self.n as i32 {
                                if let Cell::Card(_, y) = self.grid[a as usize][b as usize] {
                                    total += y as u32;
                                }
                            }
                        }
                    }
                    if total > 15 {
                        marked.push((i, j));
                    }
                }
            }
        }
        // ...then remove them together.
        for (i, j) in marked {
            self.grid[i][j] = Cell::Removed;
        }
        let other = self.side.other();
        if !self.hands[other].is_empty() || self.hands[self.side].is_empty() {
            self.side = other;
        }
    }

    fn over(&self) -> bool {
        self.hands[Player::One].is_empty() && self.hands[Player::Two].is_empty()
    }

    fn winner(&self) -> Option<Player> {
        let mut score = ByPlayer::new(0u32, 0);
        let mut high = ByPlayer::new(0u8, 0);
        for row in &self.grid {
            for cell in row {
                if let Cell::Card(o, v) = *cell {
                    score[o] += v as u32;
                    high[o] = high[o].max(v);
                }
            }
        }
        let (one, two) = (Player::One, Player::Two);
        if score[one] != score[two] {
            Some(if score[one] > score[two] { one } else { two })
        } else if high[one] != high[two] {
            Some(if high[one] > high[two] { one } else { two })
        } else {
            None
        }
    }
}

fn same(g: &Fifteen, s: &Simple) -> bool {
    let t = Simple::from_fast(g);
    t.grid == s.grid && t.hands == s.hands && t.side == s.side
}

/// The fast move list expanded over the board's symmetries equals the plain list.
fn check_moves(g: &Fifteen, s: &Simple) {
    let n = g.size() as usize;
    let geo = geo::geo(g.size());
    let mut fast = Vec::new();
    g.legal_moves(&mut fast);
    let stab = g.stabilizer();
    let mut expanded: Vec<(usize, usize, u8)> = Vec::new();
    for m in &fast {
        for sy in 0..8 {
            if stab >> sy & 1 == 1 {
                let c = geo.sym[sy][m.cell as usize] as usize;
                expanded.push((c / n, c % n, m.card));
            }
        }
    }
    expanded.sort();
    expanded.dedup();
    let mut plain = s.moves();
    plain.sort();
    assert_eq!(expanded, plain, "{}", g.render());
    // Generated once: no two fast moves are images of each other.
    for (i, a) in fast.iter().enumerate() {
        for b in &fast[i + 1..] {
            assert!(a != b);
            if a.card == b.card {
                for sy in 1..8 {
                    if stab >> sy & 1 == 1 {
                        assert_ne!(
                            geo.sym[sy][a.cell as usize], b.cell,
                            "{a:?} {b:?} duplicate under symmetry {sy}"
                        );
                    }
                }
            }
        }
    }
}

fn parse(text: &str) -> Fifteen {
    Fifteen::parse_input(text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .state
}

#[test]
fn random_games_agree_with_the_simple_rules() {
    let mut rng = SmallRng::seed_from_u64(15);
    let mut positions = 0;
    for game in 0..400 {
        let n = if game % 2 == 0 { 4 } else { 6 };
        let first = Player::from_index(game / 2 % 2);
        let mut g = Fifteen::new(n, first);
        let mut s = Simple::from_fast(&g);
        while !g.is_over() {
            check_moves(&g, &s);
            let plain = s.moves();
            let (r, c, v) = plain[rng.gen_range(0..plain.len())];
            let mv = g.check_move(r, c, v).unwrap();
            // Block-sum prediction of the removal step matches play.
            let predicted = g.removals_if(mv.cell as usize, v);
            let before = g.removed();
            g.play(mv);
            s.play(r, c, v);
            assert_eq!(g.removed() & !before, predicted);
            assert!(same(&g, &s), "game {game}\n{}\n{:?}", g.render(), s);
            // Hash is a function of the position.
            let reparsed = parse(&g.write_input(Mode::Game, 1.0));
            assert_eq!(reparsed, g);
            assert_eq!(reparsed.hash(), g.hash());
            assert_eq!(reparsed.canonical(), g.canonical());
            positions += 1;
        }
        assert!(s.over());
        assert_eq!(g.leader(), s.winner());
        assert_eq!(g.result(), Some(s.winner()));
    }
    assert!(positions > 5000);
}

#[test]
fn random_parsed_boards_agree_including_unstable_ones() {
    // Arbitrary boards (cards anywhere, some already over the limit, as a
    // hand-written input may be): the next placement checks every card.
    let mut rng = SmallRng::seed_from_u64(7);
    for t in 0..2000 {
        let n = if t % 2 == 0 { 4usize } else { 6 };
        let full = start_hand(n as u8);
        let mut left = ByPlayer::new(full, full);
        let mover = Player::from_index(t % 2);
        let mut text = format!("FIFTEEN\nGAME\n{}\n10.0\n{n}\n", 1 + t % 2);
        let mut empties = 0;
        for _ in 0..n {
            let mut row = Vec::new();
            for _ in 0..n {
                let k = rng.gen_range(0..10);
                let o = Player::from_index(rng.gen_range(0..2));
                let vi = rng.gen_range(0..5);
                if k < 2 {
                    row.push("X".to_string());
                } else if k < 5 && left[o][vi] > 0 {
                    left[o][vi] -= 1;
                    row.push(format!("{}:{}", o.index() + 1, VALUES[vi]));
                } else {
                    empties += 1;
                    row.push(".".to_string());
                }
            }
            text.push_str(&row.join(" "));
            text.push('\n');
        }
        // Hands: what is left, trimmed so that the cells suffice and the mover has a card.
        let mut budget = empties.min(2 * rng.gen_range(1..6));
        let mut hands = ByPlayer::new(Vec::new(), Vec::new());
        'outer: for p in [mover, mover.other()] {
            for vi in 0..5 {
                for _ in 0..left[p][vi] {
                    if budget == 0 || rng.gen_bool(0.3) {
                        continue 'outer;
                    }
                    hands[p].push(VALUES[vi].to_string());
                    budget -= 1;
                }
            }
        }
        if hands[mover].is_empty() {
            continue;
        }
        for (p, hand) in hands.iter() {
            text.push_str(&format!("{}: {}\n", p.index() + 1, hand.join(" ")));
        }
        let mut g = parse(&text);
        let mut s = Simple::from_fast(&g);
        while !g.is_over() {
            check_moves(&g, &s);
            let plain = s.moves();
            let (r, c, v) = plain[rng.gen_range(0..plain.len())];
            g.play(g.check_move(r, c, v).unwrap());
            s.play(r, c, v);
            assert!(same(&g, &s), "{text}\n{}", g.render());
        }
        assert_eq!(g.leader(), s.winner(), "{text}");
    }
}

const EX3: &str = "FIFTEEN\nSINGLE\n1\n1.0\n4\nX X X X\n1:2 X 1:5 .\n. . 2:2 .\n2:13 . . 1:8\n1:\n2:\n";

#[test]
fn brief_example_3_scores_15_15_and_player_2_wins_the_tie_break() {
    let g = parse(EX3);
    assert!(g.is_over());
    assert_eq!((g.score(Player::One), g.score(Player::Two)), (15, 15));
    assert_eq!(g.result(), Some(Some(Player::Two)));
    assert_eq!(g.outcome(), Some(Outcome::Loss)); // player 1 "to move" has lost
    assert_eq!(eval::terminal(&g), -eval::TIE_BREAK);
}

#[test]
fn brief_example_2_marks_before_removing() {
    // Every card is checked on the sums before any removal, and all the
    // marked cards go together.
    let text = "FIFTEEN\nGAME\n2\n1.0\n4\n. . . .\n. 1:8 . .\n. . . .\n. . . .\n1: 2 3 5 13\n2: 2 3 5 8 13\n";
    let mut g = parse(text);
    // Player 2 puts a 2 next to the 8: 8+2 = 10, nothing goes.
    g.play(g.check_move(1, 2, 2).unwrap());
    assert_eq!(g.removed(), 0);
    // Player 1 puts a 5 on the other side of the 2: 2+8+5 = 15 for the 2: stays.
    g.play(g.check_move(1, 3, 5).unwrap());
    assert_eq!(g.removed(), 0);
    // Player 2 puts a 3 below the 2: the 2 sees 8+5+3+2 = 18 and goes; the 8
    // sees 8+2+3 = 13, the 5 sees 5+2+3 = 10, the 3 sees 3+8+2+5 = 18 and goes.
    g.play(g.check_move(2, 2, 3).unwrap());
    let n = 4;
    assert_eq!(g.removed(), 1 << (n + 2) | 1 << (2 * n + 2));
    assert_eq!(g.value_at(n + 1), 8);
    assert_eq!(g.value_at(n + 3), 5);
}

#[test]
fn parses_the_spec_example_and_round_trips() {
    let text = "FIFTEEN\r\nGAME\n1\n30.0\n\n4\n. . . .  \n. 1:13 . .\n. . 2:8 .\n. . . .\n1: 2 3 5 8\n2: 2 3 5 13";
    let input = Fifteen::parse_input(text).unwrap();
    assert_eq!(input.mode, Mode::Game);
    assert_eq!(input.remaining, 30.0);
    let g = input.state;
    assert_eq!(g.to_move(), Player::One);
    assert_eq!(g.value_at(5), 13);
    assert_eq!(g.owned(Player::Two), 1 << 10);
    assert_eq!(g.hand(Player::Two), [1, 1, 1, 0, 1]);
    let out = g.write_input(Mode::Game, 30.0);
    assert_eq!(
        out,
        "FIFTEEN\nGAME\n1\n30.0\n4\n. . . .\n. 1:13 . .\n. . 2:8 .\n. . . .\n1: 2 3 5 8\n2: 2 3 5 13\n"
    );
    let mv = g.parse_move("0 3 5\n").unwrap();
    assert_eq!(g.format_move(mv), "0 3 5\n");
    assert_eq!(g.describe_move(mv), "(0, 3, 5)");
    assert!(g.render().contains("1:13"));
}

#[test]
fn rejects_bad_inputs_with_the_line() {
    let base = [
        "FIFTEEN",
        "GAME",
        "1",
        "30.0",
        "4",
        ". . . .",
        ". 1:13 . .",
        ". . 2:8 .",
        ". . . .",
        "1: 2 3 5 8",
        "2: 2 3 5 13",
    ];
    let with = |i: usize, s: &str| {
        let mut v: Vec<&str> = base.to_vec();
        v[i] = s;
        v.join("\n")
    };
    let cases: Vec<(String, usize, &str)> = vec![
        (with(2, "3"), 3, "1 or 2"),
        (with(4, "5"), 5, "4 or 6"),
        (with(6, ". 1:12 . ."), 7, "OWNER:CARD"),
        (with(6, ". 3:13 . ."), 7, "OWNER:CARD"),
        (with(6, ". 1:13 ."), 7, "4 tokens"),
        (with(6, ". 1:13 . . ."), 7, "4 tokens"),
        (with(6, ". 1:13 . Y"), 7, "OWNER:CARD"),
        (with(9, "1: 2 3 5 7"), 10, "card values"),
        (with(9, "2 3 5 8"), 10, "player 1's hand"),
        (with(9, "1: 2 3 5 8 13"), 10, "more 13s"),
        (with(10, "2: 2 2 3 5 13"), 11, "more 2s"),
        (with(9, "1:"), 3, "no card in hand"),
        // A card beyond what the game deals is named on its own board line.
        (with(7, "1:13 . 2:8 ."), 8, "row 2 column 0: player 1 has more 13s"),
    ];
    for (text, line, needle) in cases {
        let e = Fifteen::parse_input(&text).unwrap_err();
        assert_eq!(e.line, line, "{text}\n{e}");
        assert!(e.message.contains(needle), "{e} should mention {needle:?}");
    }
    // Truncated file.
    let e = Fifteen::parse_input(&base[..8].join("\n")).unwrap_err();
    assert!(e.message.contains("board row 3"), "{e}");
    // Not enough free cells for the hands.
    let full = "FIFTEEN\nGAME\n1\n30.0\n4\nX X X X\nX X X X\nX X X X\nX X . .\n1: 2 3\n2: 2\n";
    assert!(Fifteen::parse_input(full).unwrap_err().message.contains("free"));
}

#[test]
fn judges_moves() {
    let g = parse("FIFTEEN\nGAME\n2\n30.0\n4\nX . . .\n. 1:13 . .\n. . 2:8 .\n. . . .\n1: 2 3 5 8\n2: 2 3 5 13\n");
    assert!(g.parse_move("0 1 13").is_ok());
    assert!(matches!(g.parse_move("0 1"), Err(MoveError::Malformed(_))));
    assert!(matches!(g.parse_move("a b c"), Err(MoveError::Malformed(_))));
    assert!(matches!(g.parse_move(""), Err(MoveError::Malformed(_))));
    assert!(matches!(g.parse_move("0 0 2"), Err(MoveError::Illegal(m)) if m.contains("removed")));
    assert!(matches!(g.parse_move("1 1 2"), Err(MoveError::Illegal(m)) if m.contains("holds")));
    assert!(matches!(g.parse_move("0 1 8"), Err(MoveError::Illegal(m)) if m.contains("no 8")));
    assert!(matches!(g.parse_move("4 0 2"), Err(MoveError::Illegal(m)) if m.contains("off")));
    assert!(matches!(g.parse_move("0 1 7"), Err(MoveError::Illegal(m)) if m.contains("not a card")));
}

#[test]
fn generates_start_positions_and_dedupes_the_empty_board() {
    let mut o = GenOptions::default();
    let g = Fifteen::generate(&o).unwrap();
    assert_eq!(g.size(), 6);
    assert_eq!(g.hand(Player::One), [2, 2, 2, 3, 2]);
    o.size = Some(4);
    o.first = Player::Two;
    let g = Fifteen::generate(&o).unwrap();
    assert_eq!((g.size(), g.to_move()), (4, Player::Two));
    o.size = Some(5);
    assert!(Fifteen::generate(&o).is_err());
    // Empty 4x4: 3 cell classes (corner, edge, centre) x 5 cards.
    let mut v = Vec::new();
    Fifteen::new(4, Player::One).legal_moves(&mut v);
    assert_eq!(v.len(), 15);
    // Empty 6x6: 6 cell classes x 5 cards.
    v.clear();
    Fifteen::new(6, Player::One).legal_moves(&mut v);
    assert_eq!(v.len(), 30);
}

#[test]
fn every_sample_gets_a_legal_move() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/fifteen");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let g = parse(&text);
        if g.is_over() {
            continue;
        }
        let limits = crate::search::Limits::time(0.05, 0.1);
        let opts = crate::play::ChooseOptions::default();
        let strategy = crate::search::Strategy::Best;
        let mv = crate::play::choose(&g, strategy, &limits, &opts, &mut |_| {}).expect("a move").best;
        let again = g
            .parse_move(&g.format_move(mv))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(again, mv);
        count += 1;
    }
    assert!(count >= 4);
}
