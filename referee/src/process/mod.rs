//! The agent as a process: its command and how the shell splits it
//! ([`command`]), how its program and files are found ([`resolve`]), one move run under the sandbox with its CPU charged
//! ([`runner`]), the confinement itself ([`sandbox`]), the files the
//! referee shares with a hostile agent ([`agent_files`]), what an agent says
//! on stderr ([`agentinfo`]) and its working directory, bounded and walked
//! without paths ([`workdir`]). The lowest layer: it knows nothing of
//! games or runs.

pub mod agent_files;
pub(crate) mod agentinfo;
pub(crate) mod closer;
pub mod command;
pub(crate) mod resolve;
pub mod runner;
pub mod sandbox;
pub(crate) mod workdir;
