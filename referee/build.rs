//! Build script: records the git commit for `referee --version` and game
//! records, and tells the tests where the `mock-agent` fixture is built.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    // Outside a git checkout (a source tarball, a crate download) the commit is "unknown".
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=REFEREE_GIT_COMMIT={commit}");
    // Rebuild when HEAD moves: HEAD itself (branch switches), and the
    // branch's loose ref or packed-refs (commits), whichever exist: cargo
    // reruns a build script on every build while a watched file is missing
    // (a fresh clone has no packed-refs), so only existing files are named.
    // `--git-path` resolves worktrees too.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for p in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &p]).filter(|p| std::path::Path::new(p).exists()) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");

    // The `mock-agent` test fixture is an example, so `cargo install` leaves it
    // out; `cargo test` builds examples next to the profile's binaries, i.e.
    // <target>/<profile>/examples, and OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out.
    if let Some(profile_dir) = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .and_then(|p| p.ancestors().nth(3).map(PathBuf::from))
    {
        let exe = profile_dir
            .join("examples")
            .join(format!("mock-agent{}", std::env::consts::EXE_SUFFIX));
        println!("cargo:rustc-env=MOCK_AGENT={}", exe.display());
    }
}
