//! The `speccoder` binary: parse the command line, run, map the outcome to an exit code.
//!
//! The entry point is C's `main`, not std's `fn main` (`#![no_main]`). Before `fn main`, std's
//! start-up asks glibc for the main thread's stack bounds, which glibc finds by reading
//! `/proc/self/maps`, and sets up an alternate signal stack to report a stack overflow. For a
//! process that lives about 4 ms (`speccoder attest`) that is 2% of its time: a static hello-world
//! took 0.689 ms through std's start-up and 0.605 ms without it (medians of 500 interleaved runs),
//! and a tick 0.06 ms less.
//! What std's start-up does that matters is done in [`start`]; a stack overflow is now a plain
//! SIGSEGV without std's message.

// The test harness brings its own `main` (cli.rs has unit tests).
#![cfg_attr(not(test), no_main)]

mod cli;
mod commands;

use std::ffi::{c_char, c_int};

use clap::Parser;

/// The process's entry point, called by the C runtime with the command line.
#[cfg_attr(not(test), unsafe(export_name = "main"))]
#[cfg_attr(test, allow(dead_code, reason = "the test harness has its own main"))]
extern "C" fn start(argc: c_int, argv: *const *const c_char) -> c_int {
    open_standard_descriptors();
    ignore_sigpipe();
    keep_memory_in_the_heap();
    // SAFETY: the C runtime passes `argc` NUL-terminated strings in `argv`.
    let args = unsafe { arguments(argc, argv) };
    // A panic is reported by the panic hook; its exit code is std's, 101.
    let code = std::panic::catch_unwind(|| run(args)).unwrap_or(101);
    // `exit` flushes stdout first, as returning from std's `fn main` does.
    std::process::exit(code.into())
}

fn run(args: Vec<std::ffi::OsString>) -> u8 {
    let cli = cli::Cli::parse_from(args);
    if let Some(dir) = &cli.dir
        && let Err(e) = std::env::set_current_dir(dir)
    {
        eprintln!("speccoder: cannot change to {}: {e}", dir.display());
        return speccoder_attest::exit::USAGE;
    }
    commands::run(cli.command)
}

/// The command line, as C's `main` receives it, byte for byte.
///
/// Why not `std::env::args_os`: std fills it in its start-up on musl, which this program skips,
/// so a musl build would see an empty command line and only ever print its help. (glibc hands
/// the command line to std before `main` as well, and macOS std asks the system; read here, it
/// is the same on every libc.)
///
/// # Safety
/// `argv` holds `argc` pointers to NUL-terminated strings that outlive the call.
#[cfg(unix)]
unsafe fn arguments(argc: c_int, argv: *const *const c_char) -> Vec<std::ffi::OsString> {
    use std::os::unix::ffi::OsStrExt;
    let count = usize::try_from(argc).unwrap_or(0);
    (0..count)
        .map(|i| {
            // SAFETY: `i < argc`, and each entry is a NUL-terminated string (the caller's promise).
            let arg = unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) };
            std::ffi::OsStr::from_bytes(arg.to_bytes()).to_owned()
        })
        .collect()
}

#[cfg(not(unix))]
unsafe fn arguments(_argc: c_int, _argv: *const *const c_char) -> Vec<std::ffi::OsString> {
    std::env::args_os().collect()
}

/// As std's start-up does: a write to a closed pipe (stdout or stderr) then fails with an error,
/// instead of killing the process without a word.
#[cfg(unix)]
fn ignore_sigpipe() {
    // SAFETY: setting a signal's disposition to `SIG_IGN` runs no code of ours in a handler.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

#[cfg(not(unix))]
fn ignore_sigpipe() {}

/// glibc serves an allocation of 128 KiB or more with a fresh `mmap` and returns it with
/// `munmap` when freed, and gives the heap's free top back past 128 KiB. A tick makes one such
/// allocation, the pack compressor's 260 KiB; this keeps allocations under 1 MiB in the heap and
/// its free memory for reuse, which a process this short has no reason to give back (measured: a
/// tick 0.1 ms faster, medians of 40 interleaved runs, both orders).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_memory_in_the_heap() {
    // SAFETY: mallopt only sets allocator parameters; it is called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 8 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_memory_in_the_heap() {}

/// Opens `/dev/null` on whichever of descriptors 0, 1 and 2 is closed, as std's start-up does.
/// Otherwise the next file opened would take that number, and what is printed to stdout or
/// stderr would be written into it: into a pack or a lock file, say.
#[cfg(unix)]
fn open_standard_descriptors() {
    for fd in 0..=2 {
        // SAFETY: F_GETFD only reads the descriptor's flags.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        // SAFETY: a NUL-terminated path; `open` returns the lowest free descriptor, which is
        // `fd`, since the lower ones are open by now.
        if closed && unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } != fd {
            // std's start-up aborts too: nothing this program prints could be trusted to go
            // where it should.
            std::process::abort();
        }
    }
}

#[cfg(not(unix))]
fn open_standard_descriptors() {}

#[cfg(all(test, unix))]
mod tests {
    use std::ffi::{OsStr, OsString, c_char};
    use std::os::unix::ffi::OsStrExt as _;

    use super::arguments;

    #[test]
    fn the_command_line_is_argv_byte_for_byte_even_when_not_utf8() {
        let argv: Vec<*const c_char> =
            [c"speccoder", c"-C", c"/tmp/\xff\xfe dir", c""].iter().map(|arg| arg.as_ptr()).collect();
        // SAFETY: four pointers to NUL-terminated literals.
        let args = unsafe { arguments(4, argv.as_ptr()) };
        let expected: Vec<OsString> = [&b"speccoder"[..], b"-C", b"/tmp/\xff\xfe dir", b""]
            .iter()
            .map(|arg| OsStr::from_bytes(arg).to_owned())
            .collect();
        assert_eq!(args, expected);
    }

    #[test]
    fn a_negative_or_zero_count_is_an_empty_command_line() {
        // SAFETY: no pointer is read when the count is not positive.
        assert!(unsafe { arguments(0, std::ptr::null()) }.is_empty());
        assert!(unsafe { arguments(-1, std::ptr::null()) }.is_empty());
    }
}
