//! Test fixture for the referee's process tests: an agent that misbehaves
//! on request. Usage: `mock-agent BEHAVIOUR [ARG]`, run in a directory with
//! `input.txt`; unless the behaviour is a failure, it then writes a legal
//! move (the test game `testnim` directly, any other game through the agent
//! library with a random legal move).
//!
//! Behaviours: `play`, `burn S` (S CPU seconds), `burn-child S` (in a child
//! process), `burn-threads S` (S in each of two threads), `sleep S`,
//! `crash` (abort), `exit N`, `garbage`, `illegal`, `silent`, `empty`,
//! `check-calibration` (plays only if `calibration.txt` is present), `orphan S` (leave a child burning S s CPU, its pid in `orphan.pid`, and
//! exit), `fail-after N` (plays N moves, then writes garbage; counts in
//! `count.txt`), `handicap PCT [DEPTH]` (our agent, at its default
//! strategy or at fixed-depth alpha-beta, except on about PCT % of
//! positions, picked by the position's hash, a legal move picked by the
//! same hash: an agent of a chosen strength, deterministic with a DEPTH),
//! `hold MIB S` (touch MIB MiB and hold them S seconds, no move),
//! `memfd MIB` and `shm MIB` (the same in memfds of 16 MiB or in one SysV
//! shared memory segment, unmapped, held 3 s, then a move; exit 3 with
//! the error if the call is refused), `reaped-burn N MS` (ignores SIGCHLD,
//! so the kernel reaps its children and their CPU reaches no parent, then
//! starts N children one after another, each burning MS ms, then plays),
//! `inotify N S` (opens up to N inotify instances, holds them S seconds,
//! then plays), `lock-etc S` (exits 4 if `/etc/passwd` is locked already,
//! by a process of an earlier move; else takes an exclusive lock on every
//! file of `/etc` it can open, leaves a detached child holding the
//! `flock`s for a minute, holds them S seconds itself, then plays),
//! `sockets N` (leaves N abstract Unix sockets named `@leak-...`, each
//! kept alive after the agent's death by its own descriptor in flight in
//! its own queue, which is filled with data, then plays; exits 9 first if
//! its network namespace already lists one, an earlier move's), `netns
//! [leave]` (appends its network namespace's cookie to `netns.txt`, then
//! plays; with `leave`, as `sockets 1`).

use std::path::Path;
use std::time::{Duration, Instant};

fn cpu_now() -> f64 {
    agent::process_cpu_seconds()
}

/// Spins until this thread/process has used `secs` more CPU.
fn burn(secs: f64) {
    let start = cpu_now();
    let mut x = 1u64;
    while cpu_now() - start < secs {
        for i in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
    }
    std::hint::black_box(x);
}

fn thread_cpu_now() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime fills our timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn burn_thread(secs: f64) {
    let start = thread_cpu_now();
    let mut x = 1u64;
    while thread_cpu_now() - start < secs {
        for i in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
    }
    std::hint::black_box(x);
}

fn legal_move() {
    let text = std::fs::read_to_string("input.txt").expect("input.txt");
    if text.trim_start().starts_with("TESTNIM") {
        use agent::Notation;
        let inp = agent::TestNim::parse_input(&text).expect("valid input");
        // Take 1: always legal, and keeps games long enough to test.
        let mv = 1.min(inp.state.pile);
        std::fs::write("output.txt", inp.state.format_move(mv)).expect("write");
    } else {
        let opts = agent::AgentOptions {
            dir: ".".into(),
            strategy: agent::Strategy::Random,
            time_scale: 1.0,
        };
        agent::run_turn(&opts).expect("a legal move");
    }
}

/// `handicap PCT [DEPTH]`: see the file's doc. With a DEPTH the same
/// position always gets the same move, so games between such agents
/// replay exactly.
fn handicap(pct: u64, depth: Option<u32>) {
    let text = std::fs::read_to_string("input.txt").expect("input.txt");
    let kind = agent::GameKind::detect(&text).expect("a game the agent library knows");
    agent::with_game!(kind, |G| handicap_turn::<G>(&text, pct, depth));
}

fn handicap_turn<G: agent::FileGame>(text: &str, pct: u64, depth: Option<u32>) {
    let input = G::parse_input(text).expect("valid input");
    let h = input.state.hash().wrapping_mul(0x9E37_79B9_7F4A_7C15);
    if (h >> 40) % 100 < pct {
        let mut moves = Vec::new();
        input.state.legal_moves(&mut moves);
        let mv = moves[(h % moves.len() as u64) as usize];
        std::fs::write("output.txt", input.state.format_move(mv)).expect("write");
        return;
    }
    let opts = agent::AgentOptions {
        dir: ".".into(),
        strategy: depth.map_or(agent::Strategy::Best, agent::Strategy::AlphaBeta),
        time_scale: 1.0,
    };
    agent::run_turn(&opts).expect("a legal move");
}

/// utime + stime of a process in clock ticks (0 if unreadable).
fn orphan_ticks(pid: u32) -> u64 {
    let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    let Some(i) = s.rfind(')') else { return 0 };
    let f: Vec<&str> = s[i + 1..].split_whitespace().collect();
    f.get(11).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0)
        + f.get(12).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0)
}

fn arg_f64(args: &[String], i: usize) -> f64 {
    args.get(i).and_then(|s| s.parse().ok()).unwrap_or(1.0)
}

/// Moves, leaving a child burning `secs` of CPU behind.
fn orphan(secs: f64) {
    let me = std::env::current_exe().expect("own path");
    let child = std::process::Command::new(me)
        .arg("burn-only")
        .arg(secs.to_string())
        .spawn()
        .expect("spawn");
    std::fs::write("orphan.pid", child.id().to_string()).expect("write");
    // Leave only once the orphan has burned 0.2 s of CPU (its charge
    // is then known to be at least that).
    let t = Instant::now();
    while orphan_ticks(child.id()) < 20 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    legal_move();
    std::mem::forget(child);
}

/// Moves, leaving a burner behind in a session of its own.
fn escape() {
    // setsid + double fork: a burner in its own session whose parent
    // is gone. Move only once it has burned 0.2 s, then leave it
    // burning: the referee must charge it and end it.
    let mut fds = [0; 2];
    // SAFETY: single-threaded program: fork, setsid, pipe and write
    // are safe here; the grandchild only burns.
    let burner = unsafe {
        libc::pipe(fds.as_mut_ptr());
        if libc::fork() == 0 {
            libc::setsid();
            let pid = libc::fork();
            if pid == 0 {
                loop {
                    std::hint::black_box(0u64);
                }
            }
            libc::write(fds[1], (&pid as *const i32).cast(), 4);
            libc::_exit(0);
        }
        let mut pid = 0i32;
        libc::read(fds[0], (&mut pid as *mut i32).cast(), 4);
        libc::wait(std::ptr::null_mut());
        pid as u32
    };
    let t = Instant::now();
    while orphan_ticks(burner) < 20 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    legal_move();
}

/// Looks for a note in its user keyring (left by an earlier move of any
/// agent) and exits 3 naming it if found; else leaves one and moves.
fn keyring_note() {
    const KEY_SPEC_USER_KEYRING: libc::c_long = -4;
    const KEYCTL_SEARCH: libc::c_long = 10;
    // SAFETY: keyctl/add_key system calls on NUL-terminated literals.
    unsafe {
        let found = libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_SEARCH,
            KEY_SPEC_USER_KEYRING,
            c"user".as_ptr(),
            c"referee-test-note".as_ptr(),
            0 as libc::c_long,
        );
        if found >= 0 {
            eprintln!("found another move's note in the user keyring");
            std::process::exit(3);
        }
        let note = b"hello";
        libc::syscall(
            libc::SYS_add_key,
            c"user".as_ptr(),
            c"referee-test-note".as_ptr(),
            note.as_ptr(),
            note.len(),
            KEY_SPEC_USER_KEYRING,
        );
    }
    legal_move();
}

/// Reserves and touches `mib` MiB, then moves.
fn hog(mib: usize) {
    // Reserve and touch this many MiB; say so if refused.
    let mut v: Vec<u8> = Vec::new();
    if v.try_reserve_exact(mib << 20).is_err() {
        eprintln!("mock-agent: allocation of {mib} MiB refused");
        std::process::exit(3);
    }
    v.resize(mib << 20, 1);
    std::hint::black_box(&v);
    legal_move();
}

/// Touches `mib` MiB of anonymous memory and holds it `secs` seconds.
fn hold(mib: usize, secs: f64) {
    let v = vec![1u8; mib << 20];
    std::hint::black_box(&v);
    std::thread::sleep(Duration::from_secs_f64(secs));
}

/// Children whose CPU no parent's figure ever holds: with SIGCHLD ignored
/// the kernel reaps them at once; each lives `ms` ms, shorter than the
/// referee's scans of all processes.
fn reaped_burn(n: u32, ms: f64) {
    // SAFETY: signal disposition and fork in this single-threaded program;
    // the child only burns CPU and exits.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_IGN);
        for _ in 0..n {
            let pid = libc::fork();
            if pid == 0 {
                burn(ms / 1000.0);
                libc::_exit(0);
            }
            // Reaped by the kernel: gone once kill(pid, 0) fails.
            while pid > 0 && libc::kill(pid, 0) == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
    legal_move();
}

/// Takes as many of `n` inotify instances as the kernel gives and holds
/// them `secs` seconds (a per-user count the organiser's user shares).
fn inotify(n: usize, secs: f64) {
    // SAFETY: plain system call; the descriptors stay open until exit.
    let got = (0..n).filter(|_| unsafe { libc::inotify_init1(0) } >= 0).count();
    eprintln!("mock-agent: {got} inotify instances");
    std::thread::sleep(Duration::from_secs_f64(secs));
    legal_move();
}

/// Locks every file of `/etc` it can open (flock's exclusive lock, and a
/// POSIX read lock, which a host tool's write lock would wait for) and holds them
/// `secs` seconds: the organiser's tools lock files such as `/etc/passwd`.
fn lock_etc(secs: f64) {
    use rustix::fs::{fcntl_lock, flock, FlockOperation};
    // The move's view of /etc may be lent to later moves: a lock left by
    // an earlier one must have ended with its processes.
    let passwd = std::fs::File::open("/etc/passwd").expect("/etc/passwd in the view");
    if let Err(e) = flock(&passwd, FlockOperation::NonBlockingLockExclusive) {
        eprintln!("mock-agent: /etc/passwd is locked already (an earlier move's lock outlived it): {e}");
        std::process::exit(4);
    }
    drop(passwd);
    let mut held = Vec::new();
    for e in std::fs::read_dir("/etc").into_iter().flatten().flatten() {
        let Ok(f) = std::fs::File::open(e.path()) else { continue };
        let whole = flock(&f, FlockOperation::NonBlockingLockExclusive).is_ok();
        let posix = fcntl_lock(&f, FlockOperation::NonBlockingLockShared).is_ok();
        if whole || posix {
            held.push(f);
        }
    }
    eprintln!("mock-agent: {} files of /etc locked", held.len());
    // SAFETY: single-threaded program: the child only detaches, closes
    // its standard streams and sleeps, holding the flocks it shares.
    unsafe {
        if libc::fork() == 0 {
            libc::setsid();
            for fd in 0..3 {
                libc::close(fd);
            }
            libc::sleep(60);
            libc::_exit(0);
        }
    }
    std::thread::sleep(Duration::from_secs_f64(secs));
    legal_move();
}

/// Exits 3 with `what` and the OS error (a refused system call).
fn refused(what: &str) -> ! {
    eprintln!("mock-agent: {what} refused: {}", std::io::Error::last_os_error());
    std::process::exit(3)
}

/// Fills memfds of 16 MiB (the default --file-size) with `mib` MiB in all,
/// keeps them open but unmapped 3 s, then plays.
fn memfd(mib: usize) {
    let chunk = vec![7u8; 16 << 20];
    let mut fds = Vec::new();
    for _ in 0..mib.div_ceil(16) {
        // SAFETY: a NUL-terminated name; the result is checked.
        let fd = unsafe { libc::memfd_create(c"hold".as_ptr(), 0) };
        if fd < 0 {
            refused("memfd_create");
        }
        // SAFETY: writes from our own buffer to our own descriptor.
        if unsafe { libc::write(fd, chunk.as_ptr().cast(), chunk.len()) } < 0 {
            refused("writing a memfd");
        }
        fds.push(fd);
    }
    std::thread::sleep(Duration::from_secs(3));
    legal_move();
}

/// Fills one SysV shared memory segment of `mib` MiB, detaches it (so no
/// process maps it) and holds it 3 s, then plays.
fn shm(mib: usize) {
    let size = mib << 20;
    // SAFETY: plain System V calls; every result is checked before use.
    unsafe {
        let id = libc::shmget(libc::IPC_PRIVATE, size, libc::IPC_CREAT | 0o600);
        if id < 0 {
            refused("shmget");
        }
        let p = libc::shmat(id, std::ptr::null(), 0);
        if p as isize == -1 {
            refused("shmat");
        }
        std::ptr::write_bytes(p.cast::<u8>(), 1, size);
        libc::shmdt(p);
    }
    std::thread::sleep(Duration::from_secs(3));
    legal_move();
}

/// Legal moves for the first `n` calls in this directory, then garbage.
fn fail_after(n: u32) {
    let done: u32 = std::fs::read_to_string("count.txt")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    std::fs::write("count.txt", (done + 1).to_string()).expect("write");
    if done < n {
        legal_move();
    } else {
        std::fs::write("output.txt", "garbage\n").expect("write");
    }
}

/// The behaviours that hold memory or hide CPU (see the module doc).
/// See `sockets N` in the module doc: what an earlier move left is a
/// message; what this one leaves, kernel memory held after its death.
fn leave_sockets(n: usize) {
    let listed = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
    if listed.contains("@leak-") {
        eprintln!("mock-agent: an earlier move's socket is listed here");
        std::process::exit(9);
    }
    for i in 0..n {
        // SAFETY: socket calls on a sockaddr_un and a msghdr on this stack.
        unsafe {
            let s = libc::socket(libc::AF_UNIX, libc::SOCK_DGRAM, 0);
            let mut addr: libc::sockaddr_un = std::mem::zeroed();
            addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
            let name = format!("leak-{}-{i}", std::process::id());
            for (k, b) in name.bytes().enumerate() {
                addr.sun_path[k + 1] = b as libc::c_char;
            }
            let len = (std::mem::size_of::<libc::sa_family_t>() + 1 + name.len()) as libc::socklen_t;
            let at = (&raw const addr).cast::<libc::sockaddr>();
            if s < 0 || libc::bind(s, at, len) != 0 || libc::connect(s, at, len) != 0 {
                eprintln!("mock-agent: socket {i}: {}", std::io::Error::last_os_error());
                std::process::exit(3);
            }
            // Its own descriptor, in flight in its own queue.
            let mut cmsg = [0u8; 64];
            let mut byte = [0u8; 1];
            let mut iov = libc::iovec {
                iov_base: byte.as_mut_ptr().cast(),
                iov_len: 1,
            };
            let mut msg: libc::msghdr = std::mem::zeroed();
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = cmsg.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(4) as usize;
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(4) as usize;
            libc::CMSG_DATA(c).cast::<i32>().write_unaligned(s);
            if libc::sendmsg(s, &msg, 0) != 1 {
                let e = std::io::Error::last_os_error();
                // The user's descriptors in flight are past its RLIMIT_NOFILE
                // (rootless, every move is one user): leave no more.
                if e.raw_os_error() == Some(libc::ETOOMANYREFS) {
                    break;
                }
                eprintln!("mock-agent: SCM_RIGHTS: {e}");
                std::process::exit(3);
            }
            // Then data, as much as the queue takes.
            let fill = vec![7u8; 16 << 10];
            while libc::send(s, fill.as_ptr().cast(), fill.len(), libc::MSG_DONTWAIT) > 0 {}
        }
    }
    legal_move();
}

/// Appends its network namespace's cookie (which the kernel never gives
/// two namespaces) to `netns.txt`, then leaves a socket (`leave`) or not,
/// and plays.
fn netns_cookie(leave: bool) {
    let mut cookie = 0u64;
    // SAFETY: a socket, and getsockopt into a u64 on this stack.
    let got = unsafe {
        let s = libc::socket(libc::AF_UNIX, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        let mut len = std::mem::size_of::<u64>() as libc::socklen_t;
        let ok = s >= 0 && libc::getsockopt(s, libc::SOL_SOCKET, 71, (&raw mut cookie).cast(), &mut len) == 0;
        libc::close(s);
        ok
    };
    if !got {
        eprintln!("mock-agent: SO_NETNS_COOKIE: {}", std::io::Error::last_os_error());
        std::process::exit(3);
    }
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open("netns.txt")
        .expect("netns.txt");
    std::io::Write::write_all(&mut f, format!("{cookie}\n").as_bytes()).expect("write");
    if leave {
        leave_sockets(1);
    } else {
        legal_move();
    }
}

fn resources(what: &str, args: &[String]) {
    let n = |i: usize, default: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    match what {
        "hog" => hog(n(2, 1024)),
        "hold" => hold(n(2, 1024), arg_f64(args, 3)),
        "memfd" => memfd(n(2, 1024)),
        "shm" => shm(n(2, 1024)),
        "inotify" => inotify(n(2, 1000), arg_f64(args, 3)),
        "lock-etc" => lock_etc(arg_f64(args, 2)),
        "sockets" => leave_sockets(n(2, 16)),
        "netns" => netns_cookie(args.get(2).is_some_and(|a| a == "leave")),
        _ => reaped_burn(n(2, 10) as u32, arg_f64(args, 3)),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // The referee's `--calibrate` runs `CMD calibrate`: answer it whatever
    // the behaviour.
    if args.len() > 1 && args.last().map(String::as_str) == Some("calibrate") {
        std::fs::write("calibration.txt", "nodes_per_second 1000000\n").expect("write");
        return;
    }
    let what = args.get(1).map(String::as_str).unwrap_or("play");
    match what {
        "play" => legal_move(),
        "handicap" => handicap(
            args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0),
            args.get(3).and_then(|s| s.parse().ok()),
        ),
        "burn" => {
            burn(arg_f64(&args, 2));
            legal_move();
        }
        "burn-only" => burn(arg_f64(&args, 2)),
        "burn-child" => {
            let me = std::env::current_exe().expect("own path");
            let st = std::process::Command::new(me)
                .arg("burn-only")
                .arg(arg_f64(&args, 2).to_string())
                .status()
                .expect("spawn");
            assert!(st.success());
            legal_move();
        }
        "burn-threads" => {
            let s = arg_f64(&args, 2);
            let t: Vec<_> = (0..2).map(|_| std::thread::spawn(move || burn_thread(s))).collect();
            for h in t {
                h.join().expect("thread");
            }
            legal_move();
        }
        "sleep" => {
            std::thread::sleep(Duration::from_secs_f64(arg_f64(&args, 2)));
            legal_move();
        }
        "crash" => {
            legal_move();
            std::process::abort();
        }
        "exit" => {
            legal_move();
            std::process::exit(args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1));
        }
        "garbage" => std::fs::write("output.txt", "hello world\n").expect("write"),
        "illegal" => {
            let text = std::fs::read_to_string("input.txt").expect("input.txt");
            if text.trim_start().starts_with("TESTNIM") {
                std::fs::write("output.txt", "3000\n").expect("write");
            } else {
                std::fs::write("output.txt", "E 0,0 15,15\n").expect("write");
            }
        }
        "silent" => {}
        "empty" => std::fs::write("output.txt", "").expect("write"),
        "orphan" => orphan(arg_f64(&args, 2)),
        "escape" => escape(),
        "keyring" => keyring_note(),
        "hog" | "hold" | "memfd" | "shm" | "reaped-burn" | "inotify" | "lock-etc" | "sockets" | "netns" => {
            resources(what, &args)
        }
        "check-calibration" => {
            // Loses (no output) unless the referee copied calibration.txt in.
            if Path::new("calibration.txt").exists() {
                legal_move();
            }
        }
        "fail-after" => fail_after(args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1)),
        "calibrate" => std::fs::write("calibration.txt", "nodes_per_second 1000000\n").expect("write"),
        other => {
            eprintln!("mock-agent: unknown behaviour {other:?}");
            std::process::exit(64);
        }
    }
}
