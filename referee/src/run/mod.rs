//! A run from its checked plan to its records: `match` and `tournament`
//! ([`orchestrate`]: manifest, `--resume`, progress, SPRT stop), the
//! pre-flight move ([`preflight`]), the merge of shards ([`merge`]), what
//! is printed while it plays ([`live`], [`progress`]), the out directory
//! and its lock ([`outdir`]), and `play`/`replay` ([`play`]). The games
//! themselves are scheduled in [`crate::schedule`].

pub(crate) mod live;
pub(crate) mod merge;
pub(crate) mod orchestrate;
pub mod outdir;
pub(crate) mod play;
pub(crate) mod preflight;
pub(crate) mod progress;
pub(crate) mod startup;
