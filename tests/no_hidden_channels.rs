//! No hidden inputs on the play path: a move depends on `input.txt`,
//! `playdata.txt`, `calibration.txt` and the command line only, never on an
//! environment variable or on state a thread keeps between calls. This
//! reads the library's sources and fails on `std::env::var` or
//! `thread_local!` outside the files listed here with their reasons.

use std::path::{Path, PathBuf};

/// Files allowed a thread-local or an environment read, and why.
const ALLOWED: &[(&str, &str)] = &[(
    "src/fuzzing.rs",
    "fuzz and corpus scratch directories, one per thread (tests only)",
)];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The file's code before its `#[cfg(test)]` module, if any.
fn non_test_code(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests").map_or(text, |i| &text[..i])
}

#[test]
fn no_environment_variable_or_thread_local_steers_a_move() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 30, "the library's sources were not found");
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let name = f.file_name().unwrap().to_string_lossy();
        // Test files and the binary's own argument handling are not the play path.
        if name == "tests.rs" || rel.contains("/tests/") || ALLOWED.iter().any(|(a, _)| *a == rel) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for needle in ["std::env::var", "env::var(", "thread_local!"] {
            if non_test_code(&text).contains(needle) {
                found.push(format!("{rel}: {needle}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "hidden inputs on the play path:\n{}",
        found.join("\n")
    );
}
