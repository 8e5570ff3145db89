use super::*;
use crate::driver::{turn, AgentOptions};
use crate::protocol::{GenOptions, Mode, MoveError, Setup};
use crate::search::{minimax, Limits, Strategy};
use rand::SeedableRng;

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
