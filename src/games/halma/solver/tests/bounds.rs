//! The race solver's bounds and their parts (the goal database, stuck
//! pieces, packing and isolation, the memos) against breadth-first search
//! and against the solver without them; the shared helpers are in
//! the parent `tests` module.

use crate::games::halma::solver::bound::*;
use crate::games::halma::solver::frame::*;
use crate::games::halma::solver::ida::*;
use crate::games::halma::solver::memo::*;
use crate::games::halma::solver::moves::*;
use crate::games::halma::solver::stuck::*;
use crate::games::halma::solver::tight::*;
use crate::games::halma::solver::*;
use crate::games::halma::bitboard::{level, min_level, Bitboard, CAMP, LEVEL_GE};
use crate::games::halma::HMove;
use crate::protocol::{Player, View};
use rand::Rng;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use super::*;

#[test]
fn stuck_plays_hold_against_breadth_first_search() {
    // Far stragglers, alone or in pairs or threes, and two outsiders
    // anywhere from level 14: stuck pieces that need one or two plays
    // ending outside the goal. Fails if the claim ever exceeds the truth.
    let mut rng = SmallRng::seed_from_u64(31);
    let region = LEVEL_GE[0] & !CAMP[Player::One];
    let (mut checked, mut two, mut added) = (0, 0, 0);
    for i in 0..240 {
        let b = if i % 2 == 0 {
            far_cluster(&mut rng, 1 + i % 3, 14)
        } else {
            random_race(&mut rng, 2, 14)
        };
        let Some(want) = bfs(b, 8, 60_000) else { continue };
        let outside = (b & !GOAL).count();
        let stuck = stuck_plays(&Stuck::find(b, region));
        let goal = goal_db::goal_plays(goal_db::table(), b);
        assert!(outside + stuck + goal <= want, "stuck {stuck} + goal {goal} above BFS {want}:{b:?}");
        two += u32::from(stuck == 2);
        let both = isolated_and_stuck(b, &Stuck::find(b, region));
        assert!(outside + both + goal <= want, "isolated and stuck {both} + goal {goal} above BFS {want}:{b:?}");
        added += u32::from(both > stuck.max(isolation_plays(b)));
        checked += 1;
    }
    eprintln!("stuck: {checked} checked, {two} needing two, {added} added to isolation");
    assert!(checked >= 40, "only {checked} races were small enough for the BFS");
    assert!(two >= 5, "two stuck plays in only {two} races");
}

#[test]
fn the_embedded_goal_database_is_the_one_built_today() {
    // Regenerate with `agent halma goal-db src/games/halma/solver/goal_db.bin`.
    assert!(
        *super::goal_db::build() == *super::goal_db::table(),
        "goal_db.bin is stale"
    );
}

/// The goal with `holes` random cells empty and as many outsiders on random
/// cells of levels `lo..=24`, each with no other piece next to it, except
/// with `pair` the second, which stands next to the first.
fn scattered(rng: &mut SmallRng, holes: u32, lo: u32, pair: bool) -> Bitboard {
    let mut b = goal_with_holes(rng, holes);
    let mut placed = 0;
    while placed < holes {
        let c: u8 = rng.gen();
        let fits = if pair && placed == 1 {
            (b & !GOAL).neighbours().has(c)
        } else {
            !b.neighbours().has(c)
        };
        if fits && !b.has(c) && !GOAL.has(c) && (lo..=24).contains(&level(c)) {
            b.set(c);
            placed += 1;
        }
    }
    b
}

#[test]
fn packed_isolation_holds_against_breadth_first_search() {
    // Two or three outsiders, each alone, or a pair and a lone one: the
    // isolation plays of several pieces and groups add up when they lie far
    // enough apart. Fails if the sum ever
    // claims more than the true minimum.
    let mut rng = SmallRng::seed_from_u64(57);
    let mut solver = Solver::new(16);
    let (mut checked, mut summed, mut stuck_added) = (0, 0, 0);
    for i in 0..90 {
        let b = scattered(&mut rng, 2 + u32::from(i % 4 < 2), 19, i % 4 == 1);
        let Some(want) = bfs(b, 8, 400_000) else { continue };
        let outside = (b & !GOAL).count();
        let iso = isolation_plays(b);
        let goal = goal_db::goal_plays(goal_db::table(), b);
        assert!(outside + iso + goal <= want, "isolation {iso} + goal {goal} above BFS {want}:{b:?}");
        let both = isolated_and_stuck(b, &Stuck::find(b, LEVEL_GE[0] & !CAMP[Player::One]));
        assert!(outside + both + goal <= want, "isolated and stuck {both} + goal {goal} above BFS {want}:{b:?}");
        stuck_added += u32::from(both > iso);
        let lb = lower_bound(b);
        assert!(lb <= want, "bound {lb} above BFS {want}:{b:?}");
        // More than any one piece's or group's argument alone.
        let single = (b & !GOAL)
            .iter()
            .map(|p| {
                let near = (b & !Bitboard::single(p)).iter().map(|q| chebyshev(p, q)).min().unwrap_or(99);
                near.min(u32::from(GOAL_DIST[p as usize])).saturating_sub(1)
            })
            .max()
            .unwrap_or(0);
        summed += u32::from(iso > single);
        let got = solver.solve(&RaceSide { pieces: b, floor: 0 }, Budget::seconds(60.0));
        assert_eq!(got.bound(), want, "solver vs BFS on {b:?}");
        checked += 1;
    }
    eprintln!("packed isolation: {checked} checked, {summed} summed, {stuck_added} with stuck pieces added");
    assert!(checked >= 25, "only {checked} races were small enough for the BFS");
    assert!(summed >= 5, "the sum beat a single piece in only {summed} races");
}

#[test]
fn ball2_is_the_cells_within_two() {
    for c in 0..=255u8 {
        for d in 0..=255u8 {
            let want = c != d && chebyshev(c, d) <= 2;
            assert_eq!(BALL2[c as usize].has(d), want, "{c} {d}");
        }
    }
}

#[test]
fn stuck_pieces_add_to_isolation_against_the_solver_without_them() {
    // A pair of outsiders (stuck, yet no isolation unit) and a lone one far
    // from it: the stuck pair's play adds to the lone piece's isolation
    // plays when their zones are apart. Fails if the sum ever claims more
    // than the true minimum.
    // The reference is the solver without this argument (checked against
    // BFS by the other tests): BFS cannot finish these races.
    let mut rng = SmallRng::seed_from_u64(73);
    let region = LEVEL_GE[0] & !CAMP[Player::One];
    let mut reference = Solver::new(18);
    reference.zones = false;
    let mut solver = Solver::new(18);
    let (mut checked, mut added) = (0, 0);
    for _ in 0..50 {
        let mut b = scattered(&mut rng, 2, 18, true);
        // The lone piece: 4 or more from the pair, and a third hole.
        let hole = loop {
            let c = GOAL.iter().nth(rng.gen_range(0..19)).unwrap();
            if b.has(c) {
                break c;
            }
        };
        b.clear(hole);
        let pair = b & !GOAL;
        loop {
            let c: u8 = rng.gen();
            let far = pair.iter().all(|p| chebyshev(p, c) >= 4);
            if far && !GOAL.has(c) && (17..=22).contains(&level(c)) {
                b.set(c);
                break;
            }
        }
        let Finish::Exact { plays: want, .. } = reference.solve(&RaceSide { pieces: b, floor: 0 }, Budget::seconds(5.0))
        else {
            continue;
        };
        let outside = (b & !GOAL).count();
        let goal = goal_db::goal_plays(goal_db::table(), b);
        let both = isolated_and_stuck(b, &Stuck::find(b, region));
        assert!(outside + both + goal <= want, "isolated and stuck {both} + goal {goal} above BFS {want}:{b:?}");
        assert!(lower_bound(b) <= want);
        added += u32::from(both > isolation_plays(b).max(stuck_plays(&Stuck::find(b, region))));
        let got = solver.solve(&RaceSide { pieces: b, floor: 0 }, Budget::seconds(5.0));
        assert_eq!(got.bound(), want, "solver with and without the zones on {b:?}");
        checked += 1;
    }
    eprintln!("isolated and stuck: {checked} checked, {added} added");
    assert!(checked >= 30, "only {checked} races were solved");
    assert!(added >= 4, "stuck pieces added to isolation in only {added} races");
}

#[test]
#[ignore]
fn trace_hard_races() {
    let races = selfplay_races_cached();
    let mut solver = Solver::new(20);
    let region = LEVEL_GE[10] & !CAMP[Player::One];
    let which: usize = std::env::var("TRACE_N").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    for b in races.iter().filter(|b| (**b & !GOAL).count() == which as u32).take(9) {
        let r = solver.solve(&RaceSide { pieces: *b, floor: 10 }, Budget::seconds(20.0));
        if solver.nodes() < 100_000 {
            continue;
        }
        let Finish::Exact { plays, .. } = r else { continue };
        let path: Vec<HMove> = solver.path[..plays as usize].to_vec();
        let mut cur = *b;
        for (i, m) in path.iter().enumerate() {
            let out = (cur & !GOAL).count();
            let found = Stuck::find(cur, region);
            eprintln!(
                "g={i} left={} out={out} lb={} iso={} isz={} stuck={} nstuck={} goal={} par={}\n{}",
                plays as usize - i,
                lower_bound(cur),
                isolation_plays(cur),
                isolated_and_stuck(cur, &found),
                stuck_plays(&found),
                found.stuck.len(),
                goal_db::goal_plays(goal_db::table(), cur),
                Counts::of(cur).parity(),
                alone(cur).render()
            );
            eprintln!("play {:?} ({} -> {})", m, level(m.from), level(m.to));
            cur.clear(m.from);
            cur.set(m.to);
        }
    }
}


#[test]
fn bound_within_a_room_decides_as_the_full_bound() {
    // Races of 1 to 9 outsiders, lone pieces and crowds: for every room,
    // the bound that may skip the isolation packing is never above the
    // full one and exceeds the room exactly when the full one does. Fails
    // on any difference.
    let mut rng = SmallRng::seed_from_u64(83);
    let mut skipped = 0;
    for i in 0..3000 {
        let b = random_race(&mut rng, 1 + i % 9, 10 + i % 12);
        let counts = Counts::of(b);
        let full = bound_with(b, counts);
        for room in counts.outside..=full + 2 {
            let part = bound_within(b, counts, room, || Packing::new().plays(b));
            assert!(part <= full, "{part} above the full bound {full}:{b:?}");
            assert_eq!(part > room, full > room, "room {room}: {part} vs {full}:{b:?}");
            skipped += u32::from(part < full);
        }
    }
    assert!(skipped >= 500, "the isolation packing was skipped below the full bound only {skipped} times");
}

#[test]
fn a_reused_table_answers_as_a_fresh_one() {
    // Over 300 solves (the generation counter wraps at 255) one solver
    // with a small table gives the same answers after the same number of
    // nodes as a fresh solver each time: entries of earlier solves count
    // as empty. Fails on any difference.
    let mut rng = SmallRng::seed_from_u64(89);
    let mut reused = Solver::new(10);
    for i in 0..300 {
        let b = random_race(&mut rng, 2 + i % 3, 18);
        let side = RaceSide { pieces: b, floor: 0 };
        let budget = Budget {
            deadline: f64::INFINITY,
            max_nodes: 20_000,
        };
        let mut fresh = Solver::new(10);
        let want = fresh.solve(&side, budget);
        assert_eq!(reused.solve(&side, budget), want, "solve {i}: {b:?}");
        assert_eq!(reused.nodes(), fresh.nodes(), "solve {i}: {b:?}");
    }
}

#[test]
fn outsiders_that_do_not_enter_leave_the_goal_database_against_breadth_first_search() {
    // The search generates only entering plays for the outsiders when the
    // room left is below `outside + inside`: every other play of an
    // outsider leaves a position that needs at least that many plays.
    // Checked for every such play of races BFS can finish; fails on any
    // overestimate.
    let mut rng = SmallRng::seed_from_u64(101);
    let region = LEVEL_GE[0] & !CAMP[Player::One];
    let mut buf = vec![(0i16, HMove::new(0, 0)); MOVE_CAP];
    let (mut checked, mut inside_positive) = (0, 0);
    for _ in 0..200 {
        let outside = rng.gen_range(1..=3);
        let b = random_race(&mut rng, outside, 20);
        let inside = goal_db::goal_plays(goal_db::table(), b);
        let n = generate(b, region, false, &mut buf);
        for &(_, m) in &buf[..n] {
            if GOAL.has(m.from) || GOAL.has(m.to) {
                continue;
            }
            let mut child = b;
            child.clear(m.from);
            child.set(m.to);
            let Some(want) = bfs(child, 5, 30_000) else { continue };
            assert!(outside + inside <= want, "{outside} + {inside} above BFS {want} after {m:?}:{b:?}");
            checked += 1;
            inside_positive += u32::from(inside > 0);
        }
    }
    eprintln!("outsiders' other plays: {checked} checked, {inside_positive} with plays inside the goal");
    assert!(checked >= 200, "only {checked} plays were checked");
    assert!(inside_positive >= 20, "plays inside the goal were needed after only {inside_positive}");
}

#[test]
fn occupied_levels_are_the_levels_of_the_cells() {
    // Against the cell-by-cell definition, on random sets of every size.
    let mut rng = SmallRng::seed_from_u64(107);
    for i in 0..5000 {
        let mut b = Bitboard::EMPTY;
        for _ in 0..i % 40 {
            b.set(rng.gen());
        }
        let want = b.iter().fold(0u32, |m, c| m | 1 << level(c));
        assert_eq!(occupied_levels(b), want, "{b:?}");
    }
}

#[test]
fn counts_of_one_cell_are_its_class_goal_and_edge() {
    // The per-cell table behind `Counts::add` against the definitions.
    for c in 0..=255u8 {
        let k = Counts::of(Bitboard::single(c));
        let mut class = [0; 4];
        class[class_of(c)] = 1;
        assert_eq!(k.class, class, "cell {c}");
        assert_eq!(k.in_goal, u32::from(GOAL.has(c)), "cell {c}");
        assert_eq!(k.outside, u32::from(!GOAL.has(c)), "cell {c}");
        let mut edge = [0; 4];
        edge[class_of(c)] = u32::from(GOAL_EDGE.has(c));
        assert_eq!(k.edge, edge, "cell {c}");
    }
}

/// The plays ending outside the goal or inside it that the stuck arguments
/// of a tight node claim beyond one per outsider: the stuck plays (up to
/// three) or the isolated and stuck ones when the goal's pieces may move,
/// and, with no play inside the goal, those of the outsiders that cannot
/// reach a hole.
fn stuck_waste(b: Bitboard, region: Bitboard) -> (u32, u32, u32) {
    let ops = |found: &Stuck| {
        let n = stuck_ops(found, &mut Bitboard::default(), 3);
        // As strong as the argument of two at least.
        assert!(n >= stuck_plays(found) || found.stuck.len() > THREE_PIECES, "{n} below stuck plays:{b:?}");
        n
    };
    let goal = goal_db::goal_plays(goal_db::table(), b);
    let (found, in_holes) = (Stuck::find(b, region), Stuck::find_holes(b, region));
    let any = ops(&found).max(isolated_and_stuck(b, &found));
    let holes = ops(&in_holes).max(isolated_and_stuck(b, &in_holes));
    (any, holes, (goal + any).max(holes.min(any + 1)))
}

#[test]
fn three_stuck_plays_and_the_holes_hold_against_breadth_first_search() {
    // Far stragglers, alone or in twos and threes, and two or three
    // outsiders anywhere from level 14: the stuck outsiders' plays when no
    // two plays unstick them all, and when, with the goal's pieces never
    // moving, only the holes are entries. Fails if a claim ever exceeds
    // the true minimum.
    let mut rng = SmallRng::seed_from_u64(41);
    let region = LEVEL_GE[0] & !CAMP[Player::One];
    let (mut checked, mut three, mut holes_added) = (0, 0, 0);
    for i in 0..300 {
        let b = if i % 2 == 0 {
            far_cluster(&mut rng, 1 + i % 3, 13)
        } else {
            random_race(&mut rng, 2, 14)
        };
        let Some(want) = bfs(b, 8, 60_000) else { continue };
        let outside = (b & !GOAL).count();
        let (any, holes, waste) = stuck_waste(b, region);
        assert!(outside + waste <= want, "stuck {any}, before the holes {holes}: {waste} above BFS {want}:{b:?}");
        assert!(holes >= any || holes < 2, "fewer stuck plays before the holes than before the goal:{b:?}");
        three += u32::from(stuck_ops(&Stuck::find(b, region), &mut Bitboard::default(), 3) == 3);
        holes_added += u32::from(waste > goal_db::goal_plays(goal_db::table(), b) + any);
        checked += 1;
    }
    eprintln!("three stuck plays: {checked} checked, {three} three, {holes_added} added by the holes");
    assert!(checked >= 40, "only {checked} races were small enough for the BFS");
    assert!(three >= 5, "three stuck plays in only {three} races");
    assert!(holes_added >= 5, "the holes added a play in only {holes_added} races");
}

#[test]
fn stuck_before_the_holes_and_three_stuck_plays_against_the_solver_without_them() {
    // Stragglers in twos and threes with holes anywhere, and three
    // outsiders from level 18: the solver with the three stuck plays, the
    // stuck plays before the holes and their memo gives the answers of the
    // solver without them (itself checked against BFS). Fails on any
    // difference.
    let mut rng = SmallRng::seed_from_u64(59);
    let mut reference = Solver::new(18);
    reference.memo = None;
    let mut solver = Solver::new(18);
    let (mut checked, mut fewer, mut nodes, mut nodes_before) = (0, 0, 0, 0);
    for i in 0..40 {
        let b = if i % 2 == 0 {
            far_cluster(&mut rng, 2 + i % 3, 15)
        } else {
            random_race(&mut rng, 3, 18)
        };
        let side = RaceSide { pieces: b, floor: 10 };
        let Finish::Exact { plays: want, .. } = reference.solve(&side, Budget::seconds(0.3)) else {
            continue;
        };
        let got = solver.solve(&side, Budget::seconds(10.0));
        assert_eq!(got.bound(), want, "solver with and without the stuck plays before the holes on {b:?}");
        fewer += u32::from(solver.nodes() < reference.nodes());
        nodes += solver.nodes();
        nodes_before += reference.nodes();
        checked += 1;
    }
    eprintln!("stuck before the holes: {checked} checked, {fewer} with fewer nodes, {nodes} nodes against {nodes_before}");
    assert!(checked >= 20, "only {checked} races were solved");
    assert!(fewer >= 5, "fewer nodes in only {fewer} races");
}

#[test]
fn the_stuck_plays_memo_answers_as_a_fresh_count() {
    // Random walks of plays from far stragglers: the memo's answer (kept
    // for the stuck pieces and the stones the count looked at, fewer
    // stones giving no fewer plays, more no more) is never above the fresh
    // count, and mostly equal. Fails if it is ever above.
    let mut rng = SmallRng::seed_from_u64(67);
    let region = LEVEL_GE[10] & !CAMP[Player::One];
    let mut memo = OpsMemo::new();
    let mut buf = vec![(0i16, HMove::new(0, 0)); MOVE_CAP];
    let (mut checked, mut hits, mut equal, mut three) = (0, 0, 0, 0);
    for i in 0..200 {
        let mut b = far_cluster(&mut rng, 2 + i % 3, 14);
        for _ in 0..30 {
            for holes in [false, true] {
                let found = if holes { Stuck::find_holes(b, region) } else { Stuck::find(b, region) };
                if found.stuck.is_empty() {
                    continue;
                }
                let fresh = stuck_ops(&found, &mut Bitboard::default(), 3);
                let cap = rng.gen_range(1..=3);
                hits += u32::from(memo.lookup(&found, OpsMemo::key(&found), cap).is_some());
                let got = memo.ops(&found, cap);
                assert!(got <= fresh.min(cap), "memo {got} above the fresh {fresh} on {b:?} (holes {holes})");
                equal += u32::from(got == fresh.min(cap));
                three += u32::from(fresh == 3);
                checked += 1;
            }
            if random_play(&mut b, region, &mut rng, &mut buf).is_none() {
                break;
            }
        }
    }
    eprintln!("stuck plays memo: {checked} checked, {hits} hits, {equal} equal, {three} three");
    assert!(checked >= 1000, "only {checked} positions with stuck outsiders");
    assert!(hits >= 300, "the memo answered only {hits} times");
    assert!(equal * 10 >= checked * 9, "the memo equals the fresh count only {equal} times of {checked}");
    assert!(three >= 50, "three stuck plays at only {three} positions");
}

#[test]
fn the_outside_memo_answers_as_a_fresh_bound() {
    // Random walks from far stragglers, each position met again under
    // other goal patterns (the same outsiders): the memo's static bound
    // equals a fresh one at every room, and the tight nodes' bound from the
    // memo is never above a fresh one (memos only ever give lower bounds),
    // mostly equal. Fails if the memo's answer ever differs from or exceeds
    // the fresh one, or if it is seldom reused.
    let mut rng = SmallRng::seed_from_u64(71);
    let region = LEVEL_GE[10] & !CAMP[Player::One];
    let generation = 1;
    let mut memo = OutsideMemo::new(12);
    let mut ops = OpsMemo::new();
    let mut buf = vec![(0i16, HMove::new(0, 0)); MOVE_CAP];
    let (mut checked, mut tight, mut equal, mut reused) = (0, 0, 0, 0);
    for i in 0..120 {
        let mut b = far_cluster(&mut rng, 2 + i % 3, 14);
        for _ in 0..20 {
            let okey = b.iter().fold(0u64, |k, c| k ^ outside_key(c));
            let mut variant = b;
            for _ in 0..4 {
                let counts = Counts::of(variant);
                let full = bound_with(variant, counts);
                for room in counts.outside..=full + 2 {
                    let known = memo.entry(okey, generation).pack != UNKNOWN;
                    let got = memo.bound(variant, okey, counts, room, generation, &mut Packing::new());
                    let fresh = bound_within(variant, counts, room, || Packing::new().plays(variant));
                    assert_eq!(got, fresh, "room {room}: memo {got}, fresh {fresh} on {variant:?}");
                    reused += u32::from(known);
                    let shared = tight_bound(variant, region, counts.outside, room, true, &mut Packing::new(), Some(&mut ops), &mut memo, okey, generation);
                    let alone = tight_bound(
                        variant,
                        region,
                        counts.outside,
                        room,
                        true,
                        &mut Packing::new(),
                        Some(&mut OpsMemo::new()),
                        &mut OutsideMemo::new(8),
                        okey,
                        generation,
                    );
                    assert!(shared.unwrap_or(0) <= alone.unwrap_or(0), "room {room}: memo {shared:?} above the fresh {alone:?} on {variant:?}");
                    equal += u32::from(shared == alone);
                    tight += u32::from(alone.is_some());
                    checked += 1;
                }
                // Another goal pattern, the same outsiders.
                let (inside, holes) = (variant & GOAL, GOAL & !variant);
                if holes.is_empty() {
                    break;
                }
                let from = inside.iter().nth(rng.gen_range(0..inside.count() as usize)).unwrap();
                let to = holes.iter().nth(rng.gen_range(0..holes.count() as usize)).unwrap();
                variant.clear(from);
                variant.set(to);
            }
            if random_play(&mut b, region, &mut rng, &mut buf).is_none() {
                break;
            }
        }
    }
    eprintln!("outside memo: {checked} checked, {reused} reused packings, {tight} refuted rooms, {equal} equal");
    assert!(checked >= 5000, "only {checked} checks");
    assert!(reused * 4 >= checked, "the memo's packing was reused only {reused} times of {checked}");
    assert!(tight >= 500, "a tight bound refuted only {tight} rooms");
    assert!(equal * 20 >= checked * 19, "the memo's tight bound equals the fresh one only {equal} times of {checked}");
}

#[test]
fn band_plays_match_a_level_by_level_scan() {
    // The plain reading of the band argument: from the rear outsider up to
    // the goal, count the runs of four empty levels, starting afresh after
    // each. Fails if the bit-parallel count ever differs.
    let simple = |b: Bitboard| {
        let outside = b & !GOAL;
        if outside.is_empty() {
            return 0;
        }
        let rear = min_level(outside) as usize;
        let empty_level = |l: usize| b.iter().all(|c| level(c) as usize != l);
        let (mut bands, mut run) = (0, 0);
        for l in rear + 1..GOAL_LOW {
            run = if empty_level(l) { run + 1 } else { 0 };
            if run == 4 {
                bands += 1;
                run = 0;
            }
        }
        bands
    };
    let mut rng = SmallRng::seed_from_u64(73);
    let mut seen = [0u32; 4];
    for i in 0..20_000 {
        // Sparse rears make long empty runs likely.
        let b = random_race(&mut rng, 1 + i % 6, 10 + i % 12);
        let want = simple(b);
        assert_eq!(band_plays(b), want, "{b:?}");
        seen[want.min(3) as usize] += 1;
    }
    assert!(seen[1] >= 100 && seen[2] >= 10, "too few positions with bands: {seen:?}");
}
