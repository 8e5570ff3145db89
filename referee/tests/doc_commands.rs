//! Every command the documentation shows in a `console` block (lines that
//! start with `$ `) runs as printed, from a fresh directory that holds the
//! repository's `samples/`, with the built `agent` and `referee` first on
//! `PATH` (as `make install` would put them). A command that breaks fails
//! this test, so the README cannot drift from the programs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The commands of every ```console block of `text`, block by block.
fn console_blocks(text: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, l) if l.starts_with("```console") => current = Some(Vec::new()),
            (Some(_), l) if l.starts_with("```") => blocks.extend(current.take()),
            (Some(b), l) => {
                if let Some(cmd) = l.strip_prefix("$ ") {
                    b.push(cmd.to_string());
                } else if let Some(last) = b.last_mut().filter(|c| c.ends_with('\\')) {
                    last.pop();
                    last.push_str(l);
                }
            }
            _ => {}
        }
    }
    blocks
}

/// Markdown files: README.md and everything under docs/.
fn documents() -> Vec<PathBuf> {
    let mut out = vec![repo().join("README.md")];
    let mut dirs = vec![repo().join("docs")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_console_command_in_the_docs_runs_as_printed() {
    let bin = repo().join("target/release");
    for b in ["agent", "referee"] {
        assert!(
            bin.join(b).exists(),
            "{} is missing: build the workspace first (make test does)",
            b
        );
    }
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (n, block) in console_blocks(&text).into_iter().enumerate() {
            // Each block from its own fresh directory, as a new user starts.
            let dir = std::env::temp_dir().join(format!("referee-doc-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::os::unix::fs::symlink(repo().join("samples"), dir.join("samples")).unwrap();
            for cmd in &block {
                let o = Command::new("bash")
                    .args(["-c", cmd])
                    .current_dir(&dir)
                    .env("PATH", &path)
                    // A match without --out writes to a new temp directory:
                    // this block's, removed with it.
                    .env("TMPDIR", &dir)
                    .output()
                    .unwrap();
                assert!(
                    o.status.success(),
                    "{}: `{cmd}` failed ({}):\n{}{}",
                    doc.display(),
                    o.status,
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                );
                ran += 1;
            }
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    // The README's own walk-through alone has eight commands.
    assert!(
        ran >= 8,
        "only {ran} documented commands found: is the README's walk-through still in console blocks?"
    );
}

#[test]
fn console_blocks_are_read_with_their_continuation_lines() {
    let md = "text\n```console\n$ one\n$ two \\\n    --flag\noutput line\n```\n```\n$ not a command\n```\n";
    assert_eq!(
        console_blocks(md),
        vec![vec!["one".to_string(), "two --flag".to_string()]]
    );
}
