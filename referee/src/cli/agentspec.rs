//! Agents as command-line entries: `--agent name=N,cmd=CMD[,dir=DIR][,time=T]`,
//! and the agent's home: the directory its command's files are found in.
//!
//! Agents run in a fresh working directory per game (it holds `input.txt`),
//! so a command naming its own files relatively (`python3 my_agent.py`,
//! `./my_agent`, `java -cp . MyAgent`) would not find them there. Those
//! words are made absolute against the agent's home: `dir` when given,
//! resolved from where the referee was started, else that start directory.

pub(crate) use crate::process::command::AgentCommand;
use std::path::{Path, PathBuf};

/// One `--agent` entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AgentSpec {
    /// Name in tables and records.
    pub name: String,
    /// Shell command as given.
    pub cmd: String,
    /// The agent's home, as given (relative to the referee's start directory).
    pub dir: Option<PathBuf>,
    /// CPU seconds per game for this agent (default: `--time`).
    pub time: Option<f64>,
    /// The command that writes its `calibration.txt` (default: `CMD calibrate`).
    pub calibrate: Option<String>,
}

const KEYS: [&str; 5] = ["name", "cmd", "dir", "time", "calibrate"];

impl AgentSpec {
    /// Parses `name=N,cmd=CMD[,dir=DIR][,time=T][,calibrate=CMD]`. A comma starts a new field
    /// only when a known key and `=` follow it, so a command may contain
    /// commas (`cmd=agent --weights 1,2`).
    pub(crate) fn parse(s: &str) -> Result<AgentSpec, String> {
        let usage = "--agent expects name=NAME,cmd=COMMAND[,dir=DIR][,time=SECONDS][,calibrate=COMMAND]";
        let mut fields: Vec<(&str, String)> = Vec::new();
        let mut rest = s;
        loop {
            let Some((key, after)) = rest.split_once('=') else {
                return Err(format!("{usage}; {rest:?} in {s:?} has no KEY="));
            };
            let key = key.trim();
            if !KEYS.contains(&key) {
                return Err(format!("{usage}; unknown key {key:?} in {s:?}"));
            }
            if fields.iter().any(|(k, _)| *k == key) {
                return Err(format!("{usage}; {key}= is given twice in {s:?}"));
            }
            // The value runs to the next ",KEY=" with a known key.
            let end = after
                .match_indices(',')
                .map(|(i, _)| i)
                .find(|&i| {
                    let tail = after[i + 1..].trim_start();
                    KEYS.iter()
                        .any(|k| tail.strip_prefix(k).is_some_and(|t| t.trim_start().starts_with('=')))
                })
                .unwrap_or(after.len());
            fields.push((key, after[..end].trim().to_string()));
            if end == after.len() {
                break;
            }
            rest = &after[end + 1..];
        }
        let get = |k: &str| fields.iter().find(|(key, _)| *key == k).map(|(_, v)| v.clone());
        let name = get("name")
            .filter(|n| !n.is_empty())
            .ok_or_else(|| format!("{usage}; name= is missing or empty in {s:?}"))?;
        let cmd = get("cmd")
            .filter(|c| !c.is_empty())
            .ok_or_else(|| format!("{usage}; cmd= is missing or empty in {s:?}"))?;
        let dir = get("dir").map(PathBuf::from);
        let time = match get("time") {
            None => None,
            Some(t) => match t.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Some(v),
                _ => {
                    return Err(format!(
                        "--agent {name}: time= must be a positive number of CPU seconds, found {t:?}"
                    ))
                }
            },
        };
        let calibrate = get("calibrate").filter(|c| !c.is_empty());
        Ok(AgentSpec {
            name,
            cmd,
            dir,
            time,
            calibrate,
        })
    }

    /// The agent's home as an absolute directory: `dir` resolved from `start`
    /// (the referee's start directory), or `start` itself.
    pub(crate) fn home(&self, start: &Path) -> Result<PathBuf, String> {
        let d = match &self.dir {
            Some(d) => start.join(d),
            None => start.to_path_buf(),
        };
        let abs = std::fs::canonicalize(&d)
            .map_err(|e| format!("agent {}: its directory {} cannot be used: {e}", self.name, d.display()))?;
        if !abs.is_dir() {
            return Err(format!("agent {}: dir={} is not a directory", self.name, d.display()));
        }
        Ok(abs)
    }
}

/// Programs that run a script or a class named by a later word: an agent
/// run through one is named after that word.
const INTERPRETERS: [&str; 12] = [
    "python", "python3", "pypy3", "java", "node", "ruby", "perl", "sh", "bash", "php", "Rscript", "julia",
];

/// The name an agent gets from its command: its program's file stem
/// (`agent`, `my_agent` for `python3 my_agent.py`, `HalmaAgent` for
/// `java -cp . HalmaAgent`).
pub(crate) fn name_from_command(cmd: &str) -> String {
    let words = crate::process::command::words(cmd).unwrap_or_default();
    let stem = |w: &str| {
        let file = w.rsplit('/').next().unwrap_or(w);
        let stem = file.split_once('.').map_or(file, |(s, _)| s);
        stem.to_string()
    };
    let mut it = words.iter().skip_while(|w| w.contains('=') && !w.starts_with('-'));
    let Some(prog) = it.next() else { return "agent".into() };
    let prog_stem = stem(prog);
    let base = prog_stem.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if INTERPRETERS.contains(&prog_stem.as_str()) || INTERPRETERS.contains(&base) {
        // The first word that is neither an option nor an option's value.
        let mut skip_value = false;
        for w in it {
            if skip_value {
                skip_value = false;
            } else if w.starts_with('-') {
                skip_value = matches!(w.as_str(), "-cp" | "-classpath" | "--class-path" | "-m");
            } else {
                return stem(w);
            }
        }
    }
    if prog_stem.is_empty() {
        "agent".into()
    } else {
        prog_stem
    }
}

/// Names from commands, made unique in order (`agent`, `agent-2`).
pub(crate) fn names_from_commands(cmds: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in cmds {
        let base = name_from_command(c);
        let mut name = base.clone();
        let mut k = 2;
        while out.contains(&name) {
            name = format!("{base}-{k}");
            k += 1;
        }
        out.push(name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_are_named_after_their_programs() {
        assert_eq!(
            names_from_commands(&["python3 my_agent.py", "/x/target/release/agent"]),
            ["my_agent", "agent"]
        );
        assert_eq!(
            names_from_commands(&["agent", "agent --strategy minimax", "agent"]),
            ["agent", "agent-2", "agent-3"]
        );
        assert_eq!(name_from_command("java -cp build HalmaAgent"), "HalmaAgent");
        assert_eq!(name_from_command("OMP_NUM_THREADS=1 ./bin/my-bot --fast"), "my-bot");
        assert_eq!(
            name_from_command("python3 -u samples/agents/python/halma_agent.py"),
            "halma_agent"
        );
        assert_eq!(name_from_command(""), "agent");
    }

    #[test]
    fn parses_fields_and_commas_inside_commands() {
        let a = AgentSpec::parse("name=py,cmd=python3 my_agent.py,dir=samples/agents/python,time=2.5").unwrap();
        assert_eq!(a.name, "py");
        assert_eq!(a.cmd, "python3 my_agent.py");
        assert_eq!(a.dir, Some(PathBuf::from("samples/agents/python")));
        assert_eq!(a.time, Some(2.5));
        let b = AgentSpec::parse("cmd=agent --weights 1,2,3, name = x").unwrap();
        assert_eq!(
            (b.name.as_str(), b.cmd.as_str(), b.dir.clone(), b.time),
            ("x", "agent --weights 1,2,3", None, None)
        );
        for (bad, says) in [
            ("name=a", "cmd= is missing"),
            ("cmd=a", "name= is missing"),
            ("nme=a,cmd=b", "unknown key \"nme\""),
            ("name=a,cmd=b,name=c", "given twice"),
            ("name=a,cmd=b,time=-1", "positive number"),
            ("name=a,cmd=b,time=inf", "positive number"),
            ("python3 x.py", "no KEY="),
        ] {
            let e = AgentSpec::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        // An unknown key after a comma stays part of the command (pre-flight
        // then shows the command as run).
        assert_eq!(AgentSpec::parse("name=a,cmd=b,colour=red").unwrap().cmd, "b,colour=red");
    }

    #[test]
    fn an_agents_home_must_be_a_directory() {
        let home = std::env::temp_dir().join(format!("referee-spec-home-{}", std::process::id()));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("my_agent.py"), "").unwrap();
        let abs = std::fs::canonicalize(&home).unwrap();
        let spec = AgentSpec::parse(&format!("name=a,cmd=x,dir={}", home.display())).unwrap();
        assert_eq!(spec.home(Path::new("/")).unwrap(), abs);
        let spec = AgentSpec::parse("name=a,cmd=x,dir=no/such/dir").unwrap();
        let e = spec.home(&abs).unwrap_err();
        assert!(e.contains("agent a") && e.contains("no/such/dir"), "{e}");
        let spec = AgentSpec::parse("name=a,cmd=x,dir=my_agent.py").unwrap();
        assert!(spec.home(&abs).unwrap_err().contains("not a directory"));
        std::fs::remove_dir_all(home).unwrap();
    }
}
