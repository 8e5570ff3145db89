//! Start boards for the referee: grown like a Hashi puzzle, so that every
//! island faces at least one other across water and every label can be
//! reached. A hidden solution network is grown from one island: each new
//! island is placed along a row or column from an existing one, over water
//! that no hidden bridge covers, and joined to it by one or two bridges.
//! Labels are the hidden degrees (1-4); about a quarter of the islands are
//! left unlabelled for the players to label. The board starts without bridges.

use super::{Hashi, Topology, MAX_N};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Generates an `n`x`n` board from `seed` (player 1 to move, scores 0).
pub fn generate(n: usize, seed: u64) -> Result<Hashi, String> {
    if !(3..=MAX_N).contains(&n) {
        return Err(format!("a Hashi board size must be between 3 and {MAX_N}, found {n}"));
    }
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x0004_A548_4153_4849);
    // Retry the rare layout that came out too small (e.g. an early dead end).
    for _ in 0..100 {
        if let Some(h) = attempt(n, &mut rng) {
            return Ok(h);
        }
    }
    Err(format!("could not generate a {n}x{n} Hashi board"))
}

fn attempt(n: usize, rng: &mut SmallRng) -> Option<Hashi> {
    let target = (n * n / 5).clamp(2, super::MAX_ISLANDS);
    let mut island = vec![false; n * n];
    let mut covered = vec![false; n * n];
    let mut degree = vec![0u8; n * n];
    let mut list: Vec<(usize, usize)> = Vec::new();
    let (r0, c0) = (rng.gen_range(0..n), rng.gen_range(0..n));
    island[r0 * n + c0] = true;
    list.push((r0, c0));
    const DIRS: [(isize, isize); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
    let mut tries = 0;
    while list.len() < target && tries < 2000 {
        tries += 1;
        let (r, c) = list[rng.gen_range(0..list.len())];
        if degree[r * n + c] >= 4 {
            continue;
        }
        let (dr, dc) = DIRS[rng.gen_range(0..4)];
        let len = rng.gen_range(2..=n.max(3) - 1) as isize;
        let (tr, tc) = (r as isize + dr * len, c as isize + dc * len);
        if tr < 0 || tc < 0 || tr >= n as isize || tc >= n as isize {
            continue;
        }
        let (tr, tc) = (tr as usize, tc as usize);
        // The way must be open water, and the new island must not touch
        // another orthogonally (touching islands make unreadable boards).
        let path_clear = (1..len).all(|k| {
            let (pr, pc) = ((r as isize + dr * k) as usize, (c as isize + dc * k) as usize);
            !island[pr * n + pc] && !covered[pr * n + pc]
        });
        if !path_clear || island[tr * n + tc] || covered[tr * n + tc] {
            continue;
        }
        let touches = DIRS.iter().any(|&(er, ec)| {
            let (nr, nc) = (tr as isize + er, tc as isize + ec);
            nr >= 0 && nc >= 0 && nr < n as isize && nc < n as isize && island[nr as usize * n + nc as usize]
        });
        if touches {
            continue;
        }
        let k = if degree[r * n + c] <= 2 && rng.gen_bool(0.35) {
            2
        } else {
            1
        };
        for s in 1..len {
            covered[(r as isize + dr * s) as usize * n + (c as isize + dc * s) as usize] = true;
        }
        island[tr * n + tc] = true;
        degree[r * n + c] += k;
        degree[tr * n + tc] = k;
        list.push((tr, tc));
    }
    if list.len() < target.min(4) {
        return None;
    }
    let topo = Topology::build(n, |r, c| island[r * n + c]).ok()?;
    let labels: Vec<u8> = topo
        .islands
        .iter()
        .map(|&(r, c)| {
            let d = degree[r as usize * n + c as usize];
            if rng.gen_bool(0.25) {
                0
            } else {
                d
            }
        })
        .collect();
    if labels.iter().filter(|&&l| l != 0).count() < 2 {
        return None;
    }
    Some(Hashi::new(topo, &labels))
}
