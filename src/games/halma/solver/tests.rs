//! The race solver against a plain breadth-first search over the real move
//! generator, and the separation detector against the real move generator.

use super::bound::*;
use super::frame::*;
use super::ida::*;
use super::moves::*;
use super::play::*;
use super::stuck::*;
use super::tight::*;
use super::*;
use crate::games::halma::bitboard::{level, Bitboard, CAMP, LEVEL_GE};
use crate::games::halma::{HMove, Halma, Reading};
use crate::protocol::{ByPlayer, Player, View};
use rand::Rng;
use rand::rngs::SmallRng;
use rand::SeedableRng;

mod bounds;

/// A black-only position with black to move (the opponent left out).
pub(super) fn alone(pieces: Bitboard) -> Halma {
    Halma::from_pieces(pieces, Bitboard::EMPTY, Player::One)
}

/// Shortest number of plays for black alone to fill its goal, by
/// breadth-first search over the real move generator; `None` beyond
/// `max_depth` plays or `max_states` positions.
pub(super) fn bfs(start: Bitboard, max_depth: u32, max_states: usize) -> Option<u32> {
    if (start & GOAL) == GOAL {
        return Some(0);
    }
    // Not FxHash: its low bits, which pick the bucket, hardly change
    // between boards that differ in a few cells, and probing took most of
    // this search's time.
    let mut seen = std::collections::HashSet::with_hasher(MixedBoards);
    seen.insert(start);
    let mut layer = vec![start];
    let mut moves = Vec::new();
    for depth in 1..=max_depth {
        let mut next = Vec::new();
        for &b in &layer {
            let pos = alone(b);
            moves.clear();
            pos.moves(Reading::Narrow, &mut moves);
            for &m in &moves {
                let mut c = b;
                c.clear(m.from);
                c.set(m.to);
                if (c & GOAL) == GOAL {
                    return Some(depth);
                }
                if seen.insert(c) {
                    next.push(c);
                }
            }
            if seen.len() > max_states {
                return None;
            }
        }
        layer = next;
    }
    None
}

/// Hashes a board's words through the crate's bit mixer, which spreads
/// every bit into the low ones.
#[derive(Default, Clone, Copy)]
struct MixedBoards;

impl std::hash::BuildHasher for MixedBoards {
    type Hasher = Mixer;
    fn build_hasher(&self) -> Mixer {
        Mixer(0)
    }
}

struct Mixer(u64);

impl std::hash::Hasher for Mixer {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, w: u64) {
        self.0 = crate::search::mix::splitmix64(self.0 ^ w);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) const PIECES_ALL: u32 = crate::games::halma::PIECES;

#[test]
fn lower_bound_is_zero_only_at_home_and_never_above_the_truth() {
    assert_eq!(lower_bound(GOAL), 0);
    let mut rng = SmallRng::seed_from_u64(7);
    for _ in 0..60 {
        let outside = rng.gen_range(1..=3);
        let b = random_race(&mut rng, outside, 20);
        assert!(lower_bound(b) >= 1);
        if let Some(d) = bfs(b, 5, 100_000) {
            assert!(lower_bound(b) <= d, "bound {} above BFS {d}:{b:?}", lower_bound(b));
        }
    }
}

#[test]
fn solver_agrees_with_breadth_first_search() {
    let mut rng = SmallRng::seed_from_u64(16);
    let mut solver = Solver::new(16);
    let mut checked = 0;
    let mut longest = 0;
    for _ in 0..80 {
        let outside = rng.gen_range(1..=3);
        let b = random_race(&mut rng, outside, 21);
        let Some(want) = bfs(b, 5, 80_000) else { continue };
        // Floor 0: the BFS's plays are unrestricted; pieces this far
        // forward cannot reach down to the own camp within a few plays.
        let side = RaceSide { pieces: b, floor: 0 };
        let got = solver.solve(&side, Budget::seconds(60.0));
        let Finish::Exact { plays, first } = got else {
            panic!("no exact answer for {b:?}: {got:?}")
        };
        assert_eq!(plays, want, "solver vs BFS on {b:?}");
        // The first play is a legal play and leaves a position one shorter.
        let m = first.expect("a first play when not finished");
        assert!(alone(b).is_legal(m, Reading::Narrow), "{m:?} illegal in {b:?}");
        let mut after = b;
        after.clear(m.from);
        after.set(m.to);
        assert_eq!(
            bfs(after, 5, 80_000),
            Some(want - 1),
            "first play {m:?} of {b:?} is not on a shortest finish"
        );
        checked += 1;
        longest = longest.max(want);
    }
    assert!(checked >= 40, "only {checked} positions were small enough for the BFS");
    assert!(
        longest >= 3,
        "the random positions were all trivial (longest {longest})"
    );
}

/// Black pieces at levels >= `lo_b`, white pieces at levels <= `hi_w`
/// (black's frame), 19 each, random.
pub(super) fn random_split(rng: &mut SmallRng, lo_b: u32, hi_w: u32) -> Halma {
    let mut sets = [Bitboard::EMPTY; 2];
    for (i, set) in sets.iter_mut().enumerate() {
        let mut n = 0;
        while n < PIECES_ALL {
            let c: u8 = rng.gen();
            let ok = if i == 0 { level(c) >= lo_b } else { level(c) <= hi_w };
            if ok && !set.has(c) {
                set.set(c);
                n += 1;
            }
        }
    }
    let side = if rng.gen_bool(0.5) { Player::One } else { Player::Two };
    Halma::from_pieces(sets[0], sets[1], side)
}

pub(super) fn move_set(pos: &Halma, reading: Reading) -> Vec<HMove> {
    let mut v = Vec::new();
    pos.moves(reading, &mut v);
    v.sort();
    v
}

/// The side to move's plays in `pos`, and with the opponent's pieces taken off.
pub(super) fn with_and_without_opponent(pos: &Halma, reading: Reading) -> (Vec<HMove>, Vec<HMove>) {
    let me = pos.side();
    let mut sets = ByPlayer::new(Bitboard::EMPTY, Bitboard::EMPTY);
    sets[me] = pos.pieces(me);
    let bare = Halma::from_pieces(sets[Player::One], sets[Player::Two], me);
    (move_set(pos, reading), move_set(&bare, reading))
}

pub(super) fn adjacent(a: Bitboard, b: Bitboard) -> bool {
    !(a.neighbours() & b).is_empty()
}

#[test]
fn separated_positions_have_no_interaction() {
    let mut rng = SmallRng::seed_from_u64(5);
    let mut separated = 0;
    let mut refused = 0;
    for _ in 0..3000 {
        let lo_b = rng.gen_range(10..=20);
        let hi_w = lo_b - rng.gen_range(1..=8).min(lo_b - 5);
        let pos = random_split(&mut rng, lo_b, hi_w);
        let Some(sides) = race_sides(&pos) else {
            refused += 1;
            continue;
        };
        separated += 1;
        // The next play of either side, whatever it is, is the same with
        // and without the opponent's pieces on the board.
        for side in Player::ALL {
            let p = Halma::from_pieces(pos.pieces(Player::One), pos.pieces(Player::Two), side);
            for reading in [Reading::Narrow, Reading::Wide] {
                let (with, without) = with_and_without_opponent(&p, reading);
                assert_eq!(
                    with,
                    without,
                    "an opponent piece changes {side:?}'s plays:\n{}",
                    p.render()
                );
            }
        }
        // Region plays by both sides, at random, never bring opposing
        // pieces next to each other, and the opponent never takes away a
        // region play.
        let mut cur = sides;
        let mut buf = vec![(0i16, HMove::new(0, 0)); MOVE_CAP];
        let mut side = pos.side();
        for _ in 0..40 {
            let region = LEVEL_GE[cur[side].floor as usize] & !CAMP[Player::One];
            let n = generate(cur[side].pieces, region, false, &mut buf);
            let real = Halma::from_pieces(
                to_frame(Player::One, cur[Player::One].pieces),
                to_frame(Player::Two, cur[Player::Two].pieces),
                side,
            );
            let mut legal = Vec::new();
            real.moves(Reading::Narrow, &mut legal);
            for &(_, m) in &buf[..n] {
                assert!(legal.contains(&from_frame(side, m)), "region play {m:?} not legal");
            }
            if n == 0 {
                break;
            }
            let (_, m) = buf[rng.gen_range(0..n)];
            cur[side].pieces.clear(m.from);
            cur[side].pieces.set(m.to);
            let black = cur[Player::One].pieces;
            let white = rotate(cur[Player::Two].pieces);
            assert!(!adjacent(black, white), "region plays brought the armies together");
            side = side.other();
        }
    }
    assert!(
        separated >= 500 && refused >= 500,
        "{separated} separated, {refused} refused"
    );
}

#[test]
fn detector_refuses_touching_armies_and_accepts_a_finished_crossing() {
    // The start: nothing is separated.
    assert!(race_sides(&Halma::start(Player::One)).is_none());
    // Each army in the other's camp region: separated, each needs 0 plays.
    let pos = Halma::from_pieces(CAMP[Player::Two], CAMP[Player::One], Player::One);
    let sides = race_sides(&pos).expect("swapped camps are separated");
    let mut solver = Solver::new(10);
    for c in Player::ALL {
        assert_eq!(sides[c].pieces, GOAL);
        assert_eq!(
            solver.solve(&sides[c], Budget::seconds(1.0)),
            Finish::Exact { plays: 0, first: None }
        );
    }
}

#[test]
fn white_is_solved_in_the_turned_frame() {
    // White's goal is black's camp: move one white piece out to a cell two
    // steps from its hole; the solver finds a 2-play finish for white and
    // its first play is legal on the real board.
    let mut white = CAMP[Player::One];
    let hole = crate::games::halma::bitboard::cell(4, 1);
    white.clear(hole);
    white.set(crate::games::halma::bitboard::cell(6, 3));
    let pos = Halma::from_pieces(CAMP[Player::Two], white, Player::Two);
    let mut solver = Solver::new(12);
    let (m, plays) = best_finish(&mut solver, &pos, Budget::seconds(5.0)).expect("separated and solved");
    assert!(pos.is_legal(m, Reading::Narrow), "{m:?}");
    let sides = race_sides(&pos).unwrap();
    let want = bfs(sides[Player::Two].pieces, 4, 100_000).unwrap();
    assert_eq!(plays, want);
    assert!(plays >= 1);
}

#[test]
fn budget_runs_out_with_a_bound_not_a_guess() {
    let mut rng = SmallRng::seed_from_u64(99);
    let b = random_race(&mut rng, 12, 12);
    let mut solver = Solver::new(12);
    let r = solver.solve(
        &RaceSide { pieces: b, floor: 10 },
        Budget {
            deadline: f64::INFINITY,
            max_nodes: 50,
        },
    );
    assert!(matches!(r, Finish::AtLeast(n) if n >= 12), "{r:?}");
}

#[test]
fn race_score_says_the_side_to_move_wins_ties() {
    // Moving first, the side to move finishes first when it needs no more plays.
    assert!(race_score(3, 3) >= RACE_WIN);
    assert!(race_score(2, 5) > race_score(3, 5));
    assert!(race_score(4, 3) <= -RACE_WIN);
    assert!(race_score(6, 3) < race_score(4, 3));
    assert!(race_score(40, 1).abs() < crate::search::WIN_THRESHOLD);
}

/// Both camps swapped, then the given pieces moved (from, to) out of their
/// goals: a separated position with short races.
pub(super) fn short_race(black_moves: &[(u8, u8)], white_moves: &[(u8, u8)], side: Player) -> Halma {
    let (mut black, mut white) = (CAMP[Player::Two], CAMP[Player::One]);
    for &(from, to) in black_moves {
        black.clear(from);
        black.set(to);
    }
    for &(from, to) in white_moves {
        white.clear(from);
        white.set(to);
    }
    Halma::from_pieces(black, white, side)
}

#[test]
fn race_value_is_the_solved_race_and_the_search_stops_there() {
    use crate::games::halma::bitboard::cell;
    use crate::games::halma::eval::HalmaEval;
    use crate::search::{Evaluator, Game, Limits, Strategy};
    // Each side's corner piece 3 cells out of its goal.
    let black = [(cell(15, 15), cell(12, 12))];
    let white = [(cell(0, 0), cell(3, 3))];
    for side in Player::ALL {
        let pos = short_race(&black, &white, side);
        let sides = race_sides(&pos).expect("separated");
        let need = |c: Player| bfs(sides[c].pieces, 6, 200_000).expect("short race");
        let (mine, theirs) = (need(side), need(side.other()));
        // A search from a root that is not separated stops at separated
        // positions and scores their races.
        let mut ctx = RaceContext::default();
        ctx.begin(&Halma::start(Player::One), &Limits::depth(3));
        assert_eq!(HalmaEval.exact_value(&pos, &mut ctx), Some(race_score(mine, theirs)), "{side:?} to move");
        let opts = crate::play::ChooseOptions::default();
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let best = moves
            .iter()
            .map(|&m| {
                let mut child = pos;
                child.play(m);
                -HalmaEval.exact_value(&child, &mut ctx).expect("every child is a solved race")
            })
            .max();
        assert!(best.unwrap().abs() >= RACE_WIN);
        // From a separated root the race move decides, or the ordinary
        // search without race scores.
        let c = crate::play::choose(&pos, Strategy::AlphaBeta(3), &Limits::depth(3), &opts, &mut |_| {})
            .expect("a move");
        let race_scores = RACE_WIN..crate::search::WIN_THRESHOLD;
        assert!(
            c.score.is_some_and(|s| !race_scores.contains(&s.abs())),
            "{side:?}: {:?}",
            c.score
        );
        ctx.begin(&pos, &Limits::depth(3));
        assert_eq!(HalmaEval.exact_value(&pos, &mut ctx), None);
    }
    // Not separated: no value.
    let mut ctx = RaceContext::default();
    assert_eq!(HalmaEval.exact_value(&Halma::start(Player::One), &mut ctx), None);
}

#[test]
fn a_bound_decides_the_race_only_when_it_is_enough() {
    let exact = |plays| Finish::Exact { plays, first: None };
    assert_eq!(decided(exact(3), exact(7)), Some(race_score(3, 7)));
    assert_eq!(decided(exact(7), exact(3)), Some(race_score(7, 3)));
    // Mine exact, theirs at least 5: 3 wins whatever theirs is; 6 may not.
    assert_eq!(decided(exact(3), Finish::AtLeast(5)), Some(race_score(3, 5)));
    assert_eq!(decided(exact(6), Finish::AtLeast(5)), None);
    // Theirs exact: at least 6 loses to 4; at least 4 may still win.
    assert_eq!(decided(Finish::AtLeast(6), exact(4)), Some(race_score(6, 4)));
    assert_eq!(decided(Finish::AtLeast(4), exact(4)), None);
    assert_eq!(decided(Finish::AtLeast(2), Finish::AtLeast(9)), None);
}

/// The goal with `holes` random cells empty.
pub(super) fn goal_with_holes(rng: &mut SmallRng, holes: u32) -> Bitboard {
    let goal: Vec<u8> = GOAL.iter().collect();
    let mut b = GOAL;
    let mut emptied = 0;
    while emptied < holes {
        let c = goal[rng.gen_range(0..goal.len())];
        if b.has(c) {
            b.clear(c);
            emptied += 1;
        }
    }
    b
}

/// The goal with `holes` random cells empty and a cluster of as many
/// outsiders: a random cell at levels `lo..=22` and the rest next to it.
pub(super) fn far_cluster(rng: &mut SmallRng, holes: u32, lo: u32) -> Bitboard {
    let mut b = goal_with_holes(rng, holes);
    let first = loop {
        let c: u8 = rng.gen();
        if !GOAL.has(c) && (lo..=22).contains(&level(c)) {
            break c;
        }
    };
    b.set(first);
    let mut placed = 1;
    while placed < holes {
        let near: Vec<u8> = ((b & !GOAL).neighbours() & !b & !GOAL & LEVEL_GE[lo as usize]).iter().collect();
        b.set(near[rng.gen_range(0..near.len())]);
        placed += 1;
    }
    b
}

#[test]
fn isolation_bounds_hold_against_breadth_first_search() {
    // Far stragglers, alone or in pairs: the races the isolation bounds are
    // for, with few enough holes for a plain BFS to finish.
    let mut rng = SmallRng::seed_from_u64(23);
    let (mut checked, mut raised) = (0, 0);
    let mut solver = Solver::new(16);
    for i in 0..50 {
        let holes = 1 + i % 2;
        let b = far_cluster(&mut rng, holes, 12);
        let Some(want) = bfs(b, 8, 60_000) else { continue };
        let lb = lower_bound(b);
        assert!(lb <= want, "bound {lb} above BFS {want}:{b:?}");
        if isolation_plays(b) > band_plays(b) {
            raised += 1;
        }
        let got = solver.solve(&RaceSide { pieces: b, floor: 0 }, Budget::seconds(60.0));
        assert_eq!(got.bound(), want, "solver vs BFS on {b:?}");
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} races were small enough for the BFS");
    eprintln!("isolation: {checked} checked, {raised} raised");
    assert!(raised >= 5, "the isolation bounds mattered in only {raised} races");
}

#[test]
fn parity_bound_holds_against_breadth_first_search() {
    // Outsiders near the goal, the rest on random goal cells: parity
    // surpluses and edge cells both occur, and BFS still finishes.
    let mut rng = SmallRng::seed_from_u64(41);
    let (mut checked, mut raised) = (0, 0);
    for _ in 0..300 {
        let outside = rng.gen_range(1..=3);
        let b = random_race(&mut rng, outside, 20);
        let Some(want) = bfs(b, 6, 60_000) else { continue };
        let lb = lower_bound(b);
        let parity = (b & !GOAL).count() + parity_plays(b);
        assert!(parity <= want, "parity bound {parity} above BFS {want}:{b:?}");
        assert!(lb <= want, "bound {lb} above BFS {want}:{b:?}");
        if parity_plays(b) > isolation_plays(b).max(band_plays(b)) {
            raised += 1;
        }
        checked += 1;
    }
    eprintln!("parity: {checked} checked, {raised} raised");
    assert!(checked >= 100, "only {checked} races were small enough for the BFS");
    assert!(raised >= 5, "parity raised the bound in only {raised} races");
}

/// Plays one of `b`'s region plays, drawn by `rng`, and returns it; `None`
/// when there is none.
pub(super) fn random_play(b: &mut Bitboard, region: Bitboard, rng: &mut SmallRng, buf: &mut [(i16, HMove)]) -> Option<HMove> {
    let n = generate(*b, region, false, buf);
    if n == 0 {
        return None;
    }
    let (_, m) = buf[rng.gen_range(0..n)];
    b.clear(m.from);
    b.set(m.to);
    Some(m)
}

#[test]
fn counts_follow_plays() {
    // The search's counts and goal pattern, updated play by play, stay
    // those of the pieces.
    let mut rng = SmallRng::seed_from_u64(3);
    let mut buf = vec![(0i16, HMove::new(0, 0)); MOVE_CAP];
    for _ in 0..50 {
        let outside = rng.gen_range(1..=8);
        let mut b = random_race(&mut rng, outside, 12);
        let mut counts = Counts::of(b);
        let mut pattern = goal_db::pattern(b);
        for _ in 0..30 {
            let m = random_play(&mut b, LEVEL_GE[10], &mut rng, &mut buf).expect("a race has a play");
            counts = counts.after(m);
            assert_eq!(counts, Counts::of(b));
            pattern ^= goal_db::BIT[m.from as usize] ^ goal_db::BIT[m.to as usize];
            assert_eq!(pattern, goal_db::pattern(b));
            assert_eq!(bound_with(b, counts), lower_bound(b));
        }
    }
}

/// The bench's realistic races, from the file `RACE_CACHE` names (written
/// by `agent halma race-bench --save-races FILE`, since the self-play that
/// finds them takes minutes and lives with the tools).
pub(super) fn selfplay_races_cached() -> Vec<Bitboard> {
    let path = std::env::var("RACE_CACHE").expect("RACE_CACHE names the file of `agent halma race-bench --save-races`");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .map(|l| {
            let w: Vec<u64> = l.split(' ').map(|x| u64::from_str_radix(x, 16).unwrap()).collect();
            Bitboard([w[0], w[1], w[2], w[3]])
        })
        .collect()
}

/// Diagnostics, not a check: the bound's terms, the answer and the effort
/// on the bench's realistic races of 7 to 9 outsiders
/// (`agent halma race-bench --save-races /tmp/races.txt --positions 0`, then
/// `RACE_CACHE=/tmp/races.txt cargo test --release -p agent --lib
/// hard_races_report -- --ignored --nocapture`). `RACE_PICK=i` keeps the
/// i-th race of each count, `RACE_REPEAT=k` times the k-th of k solves (the
/// first pays for the table's fresh pages), `RACE_TT` sets the table's log2.
#[test]
#[ignore]
fn hard_races_report() {
    let races = selfplay_races_cached();
    // RACE_MAX_N (7 to 9) and RACE_SECONDS (20) shorten a run.
    let env = |k: &str, d: f64| std::env::var(k).ok().and_then(|s| s.parse().ok()).unwrap_or(d);
    let (max_n, seconds) = (env("RACE_MAX_N", 9.0) as u32, env("RACE_SECONDS", 20.0));
    let mut solver = Solver::new(env("RACE_TT", 20.0) as u32);
    let pick = std::env::var("RACE_PICK").ok().and_then(|s| s.parse::<usize>().ok());
    for n in 7..=max_n {
        for (i, b) in races.iter().filter(|b| (**b & !GOAL).count() == n).take(9).enumerate() {
            if pick.is_some_and(|p| p != i) {
                continue;
            }
            for _ in 1..env("RACE_REPEAT", 1.0) as u32 {
                solver.solve(&RaceSide { pieces: *b, floor: 10 }, Budget::seconds(seconds));
            }
            let t = crate::clock::CpuTimer::start();
            let r = solver.solve(&RaceSide { pieces: *b, floor: 10 }, Budget::seconds(seconds));
            let s = t.elapsed();
            eprintln!(
                "n={n} lb={} band={} iso={} par={} goal={} -> {:?} in {s:.3}s {} nodes {} expanded{:?}",
                lower_bound(*b),
                band_plays(*b),
                isolation_plays(*b),
                Counts::of(*b).parity(),
                goal_db::goal_plays(goal_db::table(), *b),
                r.bound(),
                solver.nodes(),
                solver.expanded(),
                b
            );
        }
    }
}

#[test]
fn goal_pattern_is_the_goal_cells_in_order() {
    let mut rng = SmallRng::seed_from_u64(11);
    for _ in 0..2000 {
        let b = Bitboard([rng.gen(), rng.gen(), rng.gen(), rng.gen()]);
        assert_eq!(goal_db::pattern(b), goal_db::pattern_slow(b), "{b:?}");
    }
    assert_eq!(goal_db::pattern(GOAL), (1 << 19) - 1);
    assert_eq!(goal_db::pattern(!GOAL), 0);
    // Every pattern can be completed (no unreachable 255 left over), and the
    // full goal needs nothing.
    let table = goal_db::table();
    assert!(table.iter().all(|&w| w <= 4), "max {:?}", table.iter().max());
    assert_eq!(table[(1 << 19) - 1], 0);
}

#[test]
fn goal_database_and_entry_checks_hold_against_breadth_first_search() {
    // Outsiders a few levels short of the goal and holes anywhere in it,
    // deep ones included: the goal database's plays inside the goal and
    // the checks of a finish in one play per outsider must never claim
    // more than the true minimum. Fails if either ever does.
    let mut rng = SmallRng::seed_from_u64(97);
    let mut solver = Solver::new(16);
    let (mut checked, mut goal_raised, mut refuted, mut stuck_raised) = (0, 0, 0, 0);
    for _ in 0..400 {
        let outside = rng.gen_range(1..=4);
        let b = random_race(&mut rng, outside, 19);
        let Some(want) = bfs(b, 6, 60_000) else { continue };
        let lb = lower_bound(b);
        assert!(lb <= want, "bound {lb} above BFS {want}:{b:?}");
        let goal = goal_db::goal_plays(goal_db::table(), b);
        assert!(outside + goal <= want, "goal database {goal} above BFS {want}:{b:?}");
        goal_raised += u32::from(goal > 0);
        let region = LEVEL_GE[0] & !CAMP[Player::One];
        let stuck = stuck_plays(&Stuck::find(b, region));
        assert!(outside + stuck + goal <= want, "stuck {stuck} + goal {goal} above BFS {want}:{b:?}");
        stuck_raised += u32::from(stuck > 0);
        let both = isolated_and_stuck(b, &Stuck::find(b, region));
        assert!(outside + both + goal <= want, "isolated and stuck {both} + goal {goal} above BFS {want}:{b:?}");
        let one_each = holes_matched(b, region) && all_can_enter(b, region);
        assert!(one_each || want > outside, "entry checks refute a finish in {want}:{b:?}");
        refuted += u32::from(!one_each);
        let got = solver.solve(&RaceSide { pieces: b, floor: 0 }, Budget::seconds(60.0));
        assert_eq!(got.bound(), want, "solver vs BFS on {b:?}");
        checked += 1;
    }
    eprintln!("goal database: {checked} checked, {goal_raised} raised, {refuted} refuted, {stuck_raised} stuck");
    assert!(checked >= 80, "only {checked} races were small enough for the BFS");
    assert!(goal_raised >= 5, "the goal database mattered in only {goal_raised} races");
    assert!(refuted >= 5, "the entry checks refuted only {refuted} races");
}
