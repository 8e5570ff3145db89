//! A run from its plan to its records: the checked plan built from the
//! arguments ([`plan`]), `match` and `tournament`
//! ([`orchestrate`]: manifest, `--resume`, progress, SPRT stop), the lazy
//! schedule ([`roundrobin`]) and many games at once ([`schedule`]), start
//! positions ([`starts`], [`openings`]), the pre-flight move
//! ([`preflight`]), sharding ([`shard`], [`merge`]), what is printed while
//! it plays ([`live`], [`progress`]), the out directory and its lock
//! ([`outdir`]), and `play`/`replay` ([`play`]).

pub mod live;
pub mod merge;
pub mod openings;
pub mod orchestrate;
pub mod outdir;
pub mod plan;
pub mod play;
pub mod preflight;
pub mod progress;
pub mod roundrobin;
pub mod schedule;
pub mod shard;
pub mod starts;
