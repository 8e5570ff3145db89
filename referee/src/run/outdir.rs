//! Ownership of an `--out` directory: one referee at a time (an exclusive
//! advisory lock held for the whole run), and the conditions a run was
//! started with, so `--resume` continues only the same run.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::Path;

/// Name of the lock file inside `--out`.
pub const LOCK_FILE: &str = "referee.lock";

/// The held lock; released when dropped (or when the process ends, however).
#[derive(Debug)]
pub(crate) struct OutLock {
    _file: File,
}

/// The pid the lock's holder wrote.
fn holder_pid(file: &mut std::fs::File) -> String {
    use std::io::Seek;
    let mut holder = String::new();
    let _ = file.rewind();
    let _ = file.read_to_string(&mut holder);
    holder
}

/// Takes the lock; where it is held but the referee that wrote its pid is
/// gone (killed a moment ago), waits up to 5 s for the last of its
/// processes, which share the lock until they exit, to end.
fn lock_or_wait_for_dead_holder(file: &mut std::fs::File) -> Result<(), std::fs::TryLockError> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match file.try_lock() {
            Err(std::fs::TryLockError::WouldBlock) => {
                let pid = holder_pid(file);
                let pid = pid.trim();
                let dead = !pid.is_empty() && !Path::new("/proc").join(pid).exists();
                if !dead || std::time::Instant::now() > deadline {
                    return Err(std::fs::TryLockError::WouldBlock);
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Creates `out` if needed and takes its lock; a second referee on the same
/// directory gets an error naming the holder's pid.
pub(crate) fn lock(out: &Path) -> Result<OutLock, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let path = out.join(LOCK_FILE);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    match lock_or_wait_for_dead_holder(&mut file) {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = holder_pid(&mut file);
            let holder = holder.trim();
            let who = if holder.is_empty() {
                "another referee".to_string()
            } else {
                format!("another referee (pid {holder})")
            };
            return Err(format!(
                "{who} is using {}; wait for it to finish, or choose another --out",
                out.display()
            ));
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(format!("cannot lock {}: {e}", path.display())),
    }
    let pid = std::process::id().to_string();
    let written = file
        .set_len(0)
        .and_then(|_| file.rewind())
        .and_then(|_| file.write_all(pid.as_bytes()));
    written.map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(OutLock { _file: file })
}

/// The settings that decide a run's games, by option name (`--time`, ...),
/// as text so that they can be stored in a manifest and compared.
pub(crate) type Conditions = BTreeMap<String, String>;

/// The differences between the conditions a run was started with and those
/// asked for now, one phrase each (empty if they agree).
pub(crate) fn differences(then: &Conditions, now: &Conditions) -> Vec<String> {
    let none = String::from("(not set)");
    let keys: std::collections::BTreeSet<&String> = then.keys().chain(now.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let (a, b) = (then.get(k).unwrap_or(&none), now.get(k).unwrap_or(&none));
            (a != b).then(|| format!("{k} was {a}, now {b}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_names_the_holder() {
        // Removed when the test ends, pass or fail.
        let scratch = tempfile::tempdir().unwrap();
        let out = scratch.path().join("out");
        let held = lock(&out).unwrap();
        let e = lock(&out).unwrap_err();
        assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
        drop(held);
        // Other tests in this process fork children; one forked while the
        // lock was held keeps a copy of its descriptor, and so the lock,
        // until its exec closes it a moment later.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let again = loop {
            match lock(&out) {
                Err(_) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other,
            }
        };
        again.unwrap();
    }

    #[test]
    fn differences_name_each_changed_condition() {
        let then: Conditions = [("--time".into(), "10".into()), ("--seed".into(), "1".into())].into();
        let now: Conditions = [("--time".into(), "20".into()), ("--seed".into(), "1".into())].into();
        assert_eq!(differences(&then, &now), vec!["--time was 10, now 20".to_string()]);
        assert!(differences(&now, &now).is_empty());
    }
}
