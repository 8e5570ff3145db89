//! A fresh scratch directory for one test, removed when it is dropped: the
//! one helper of the library's unit tests and of the integration tests
//! (`tests/common/mod.rs` includes this file), on the `tempfile` crate.

use std::ops::Deref;
use std::path::Path;

/// A directory of its own for one test (a unique name under the system's
/// temporary directory); it and its contents go when this is dropped.
pub struct Scratch(tempfile::TempDir);

/// A new scratch directory whose name starts with `agent-{name}-`.
pub fn scratch(name: &str) -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix(&format!("agent-{name}-"))
        .tempdir()
        .unwrap_or_else(|e| panic!("cannot make a scratch directory for {name}: {e}"));
    Scratch(dir)
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}
