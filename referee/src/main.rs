//! The `referee` binary: timed games, matches and tournaments between agent
//! programs, a human seat, and replays of recorded games (see [`referee::app`]).

fn main() -> std::process::ExitCode {
    referee::app::main()
}
