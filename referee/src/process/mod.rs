//! The agent as a process: its command and how the shell splits it
//! ([`command`]), one move run under the sandbox with its CPU charged
//! ([`runner`]), the confinement itself ([`sandbox`]), the files the
//! referee shares with a hostile agent ([`agent_files`]), what an agent says
//! on stderr ([`agentinfo`]), its working directory, bounded and walked
//! without paths ([`workdir`]), and the referee's own signal handling
//! ([`signals`]). The lowest layer: it knows nothing of games or runs.

pub mod agent_files;
pub mod agentinfo;
pub mod command;
pub mod runner;
// Its docs link to some private items (`enter`, `FULL_SCAN_EVERY`); the
// module is being rewritten, and its new docs will link to public ones.
#[allow(rustdoc::private_intra_doc_links)]
pub mod sandbox;
pub mod signals;
pub mod workdir;
