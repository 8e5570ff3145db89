//! Starting the child in the referee's own address space (`CLONE_VM`, as
//! `posix_spawn` does), on a stack of its own, instead of in a copy.
//!
//! A copy is dear for a referee holding a class's records: `clone3` copies
//! its page tables, the child's first writes fault pages in one by one, and
//! `exec` tears the copy down again. In a grading run of 20 students that
//! was about 4 % of all the machine's CPU (a `perf` profile of
//! `scripts/grade-throughput.sh`), on every move, charged to nobody.
//!
//! Sharing is safe here because the child already lives by the rules a
//! shared address space needs: it only makes raw system calls on data the
//! parent prepared and keeps alive until the child has executed or died
//! (the parent's `spawn` waits for that before it returns), allocates
//! nothing, and leaves through `execve` or `_exit`. Only the rootless
//! start keeps the copy: its child stays alive as the move's init, long
//! after `spawn` returns.

use super::child::{self, Wipe};
use super::{CloneArgs, Launch};
use std::ffi::{c_char, c_void};
use std::os::fd::RawFd;
use std::ptr::NonNull;

/// Bytes of the child's stack; it needs a few kilobytes (the deepest frame
/// is the mount plan's loop), and untouched pages cost nothing.
const STACK_BYTES: usize = 256 << 10;
/// The inaccessible page under the stack: an overflow faults there
/// instead of writing into the referee's memory.
const GUARD_BYTES: usize = 4096;

/// A stack for one child, freed when dropped (only once the child has
/// executed or died).
pub(super) struct Stack {
    base: NonNull<c_void>,
}

impl Stack {
    /// Maps a fresh stack with its guard page.
    pub(super) fn new() -> std::io::Result<Stack> {
        use rustix::mm::{mmap_anonymous, mprotect, MapFlags, MprotectFlags, ProtFlags};
        let len = STACK_BYTES + GUARD_BYTES;
        let rw = ProtFlags::READ | ProtFlags::WRITE;
        // SAFETY: a new private anonymous mapping, at an address the kernel
        // picks, owned by the returned Stack alone; the guard is its own
        // first page.
        unsafe {
            let p = mmap_anonymous(std::ptr::null_mut(), len, rw, MapFlags::PRIVATE | MapFlags::STACK)?;
            let stack = Stack {
                base: NonNull::new(p).ok_or_else(|| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?,
            };
            mprotect(p, GUARD_BYTES, MprotectFlags::empty())?;
            Ok(stack)
        }
    }

    /// Points `args` at this stack: the kernel starts the child with its
    /// stack pointer at the top.
    pub(super) fn lend(&self, args: &mut CloneArgs) {
        args.stack = self.base.as_ptr() as u64 + GUARD_BYTES as u64;
        args.stack_size = STACK_BYTES as u64;
        args.flags |= libc::CLONE_VM as u64;
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: our own mapping, which no child uses any more (the owner
        // forgets a Stack whose child's end it could not confirm).
        unsafe {
            let _ = rustix::mm::munmap(self.base.as_ptr(), STACK_BYTES + GUARD_BYTES);
        }
    }
}

/// What the child runs with, behind the one pointer its entry takes.
pub(super) struct ChildCall<'a> {
    pub(super) launch: &'a Launch<'a>,
    pub(super) err: RawFd,
    pub(super) envp: &'a [*const c_char],
    pub(super) status: RawFd,
    pub(super) wipe: Wipe,
}

/// The child's side of every start ([`clone3_on_stack`]'s, or the copy's).
pub(super) extern "C" fn child_entry(call: *const std::ffi::c_void) -> ! {
    // SAFETY: `spawn` passes its own ChildCall and keeps it (and all it
    // points to) alive and unchanged until this child has executed or died.
    let c = unsafe { &*call.cast::<ChildCall<'_>>() };
    child::child(c.launch, c.err, c.envp, c.status, c.wipe)
}

/// A stack of its own for the child when it may share the referee's
/// memory: every start but the rootless one, whose child
/// outlives `spawn` as the move's init.
pub(super) fn shared_stack(l: &Launch<'_>) -> std::io::Result<Option<Stack>> {
    if cfg!(target_arch = "x86_64") && !l.reaper() {
        Stack::new().map(Some)
    } else {
        Ok(None)
    }
}

/// `clone3(args)`; the child starts on `args.stack` in `entry(arg)`, which
/// never returns. Returns what the parent gets: the child's pid or -errno.
///
/// # Safety
/// `args` must lend a live [`Stack`] (with `CLONE_VM`), and `arg` and
/// everything `entry` reads through it must stay valid and unchanged
/// until the child has executed or died.
#[cfg(target_arch = "x86_64")]
pub(super) unsafe fn clone3_on_stack(
    args: &mut CloneArgs,
    entry: extern "C" fn(*const c_void) -> !,
    arg: *const c_void,
) -> i64 {
    let ret: i64;
    // The child returns from the system call with its stack pointer at the
    // top of the new stack (16-byte aligned), where nothing of this frame
    // is: it must not return from here, so it calls `entry` at once, with
    // the registers the call kept (r12, r13).
    std::arch::asm!(
        "syscall",
        "test rax, rax",
        "jnz 2f",
        "mov rdi, r12",
        "call r13",
        "ud2",
        "2:",
        inlateout("rax") libc::SYS_clone3 => ret,
        in("rdi") args as *mut CloneArgs,
        in("rsi") std::mem::size_of::<CloneArgs>(),
        in("r12") arg,
        in("r13") entry,
        lateout("rcx") _,
        lateout("r11") _,
    );
    ret
}

#[cfg(test)]
mod tests {
    use super::super::{spawn, Exec, Launch};
    use crate::process::sandbox::pgroup::wait4;
    use std::ffi::CString;
    use std::os::fd::AsRawFd;

    /// A launch of `exec` in `dir` without confinement (the shared start),
    /// its streams on /dev/null.
    fn launch(dir: &str, exec: Exec, null: &std::fs::File) -> Launch<'static> {
        let fd = null.as_raw_fd();
        Launch {
            exec,
            dir: CString::new(dir).unwrap(),
            stdio: [fd, fd, fd],
            env: vec![c"PATH=/usr/bin:/bin".into()],
            limits: None,
            confine: None,
        }
    }

    #[test]
    fn children_started_in_the_referees_memory_run_and_end_one_after_another() {
        let null = std::fs::File::options()
            .read(true)
            .write(true)
            .open("/dev/null")
            .unwrap();
        // Each start maps a stack and unmaps it once its child has executed:
        // many in a row would fault if one were unmapped under a child.
        for i in 0..200 {
            let exit = if i % 2 == 0 { "exit 0" } else { "exit 3" };
            let l = launch("/", Exec::shell(CString::new(exit).unwrap()), &null);
            let started = spawn(&l).unwrap();
            let (_, status, _) = wait4(started.pid, 0).unwrap();
            assert!(libc::WIFEXITED(status), "start {i}: wait status {status}");
            assert_eq!(libc::WEXITSTATUS(status), if i % 2 == 0 { 0 } else { 3 }, "start {i}");
        }
    }

    #[test]
    fn a_child_that_fails_before_exec_is_reported_with_its_stage() {
        let null = std::fs::File::open("/dev/null").unwrap();
        let l = launch("/no/such/dir/here", Exec::shell(c"exit 0".into()), &null);
        let e = spawn(&l).err().expect("a start in a missing directory must fail");
        let msg = e.to_string();
        assert!(msg.contains("entering the working directory"), "{msg}");
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound, "{msg}");
    }
}
