//! Every command the documentation shows in a `console` block (lines that
//! start with `$ `) runs as printed, from a fresh directory that holds the
//! repository's `samples/`, with the built `agent` and `referee` first on
//! `PATH` (as `make install` would put them). A command that breaks fails
//! this test, so the README cannot drift from the programs. Every other
//! fenced block is a format (```text, ```toml) or says on the line before
//! it why it is not run (`<!-- not run: needs a person at the terminal -->`),
//! so no command block is left out of the test unnoticed.

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

/// Languages of fenced blocks that hold commands: such a block is a
/// `console` block (run) or marked as not run, with its reason.
const SHELL_LANGS: [&str; 4] = ["", "sh", "bash", "shell"];

/// The fenced blocks of `text` that could hold commands but are neither
/// run (`console`) nor marked `<!-- not run: REASON -->` on the line
/// before, with a reason: (line number, opening fence).
fn unmarked_blocks(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut open = false;
    let mut before = "";
    for (i, line) in text.lines().enumerate() {
        let l = line.trim_start();
        if let Some(lang) = l.strip_prefix("```") {
            if !open && SHELL_LANGS.contains(&lang.trim()) {
                let reason = before
                    .trim()
                    .strip_prefix("<!-- not run:")
                    .and_then(|r| r.strip_suffix("-->"))
                    .map(str::trim);
                if reason.is_none_or(str::is_empty) {
                    out.push((i + 1, l.to_string()));
                }
            }
            open = !open;
        }
        before = line;
    }
    out
}

#[test]
fn every_fenced_block_is_run_or_says_why_not() {
    let mut unmarked = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (line, fence) in unmarked_blocks(&text) {
            unmarked.push(format!("{}:{line}: {fence}", doc.display()));
        }
    }
    assert!(
        unmarked.is_empty(),
        "blocks neither run (```console) nor a format (```text) nor marked `<!-- not run: REASON -->` on the line before:\n{}",
        unmarked.join("\n")
    );
}

#[test]
fn a_block_is_left_out_only_with_its_reason() {
    let md = "```console\n$ ok\n```\n<!-- not run: needs Slurm -->\n```sh\nsbatch x\n```\n```text\nBOARD\n```\n<!-- not run: -->\n```\nmake test\n```\n```bash\nrm -rf x\n```\n";
    assert_eq!(
        unmarked_blocks(md),
        vec![(12, "```".to_string()), (15, "```bash".to_string())]
    );
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
