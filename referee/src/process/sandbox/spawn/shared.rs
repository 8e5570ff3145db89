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

use super::CloneArgs;
use std::ffi::c_void;
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
