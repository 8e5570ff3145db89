//! The referee: runs timed games between agent programs (being built; see README).

fn main() {
    eprintln!("referee: not built yet; see README for the plan");
    std::process::exit(2);
}
