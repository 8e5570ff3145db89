//! Criterion benches for Halma move generation and evaluation on the
//! fixed positions of `samples/halma/`.

use agent::games::halma::eval::HalmaEval;
use agent::games::halma::simple::to_simple;
use agent::games::halma::{perft, Halma, Reading};
use agent::search::Evaluator;
use agent::search::Game;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::path::Path;

fn sample(name: &str) -> Halma {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/halma").join(name);
    let text = agent::read_bounded(&path).expect("sample");
    <Halma as agent::Notation>::parse_input(&text).expect("sample").state
}

fn movegen(c: &mut Criterion) {
    for name in ["start_black.txt", "midgame_1.txt", "late_black.txt"] {
        let pos = sample(name);
        let mut buf = Vec::with_capacity(256);
        c.bench_function(&format!("halma legal_moves {name}"), |b| {
            b.iter(|| {
                buf.clear();
                black_box(&pos).moves(Reading::Narrow, &mut buf);
                buf.len()
            })
        });
        let simple = to_simple(&pos);
        c.bench_function(&format!("halma simple legal {name}"), |b| {
            b.iter(|| black_box(&simple).legal(true).len())
        });
    }
    let pos = sample("midgame_1.txt");
    c.bench_function("halma perft(2) midgame_1", |b| b.iter(|| perft(black_box(&pos), 2)));
}

fn evaluation(c: &mut Criterion) {
    for name in ["midgame_1.txt", "late_black.txt", "endgame_1.txt"] {
        let pos = sample(name);
        c.bench_function(&format!("halma evaluate {name}"), |b| {
            b.iter(|| HalmaEval.evaluate(black_box(&pos)))
        });
        c.bench_function(&format!("halma outcome {name}"), |b| {
            b.iter(|| black_box(&pos).outcome())
        });
    }
}

criterion_group!(benches, movegen, evaluation);
criterion_main!(benches);
