//! Links the `speccoder` binary as a position-dependent executable on Linux.
//!
//! Why: `speccoder attest` is a short process (a few milliseconds), and a position-independent
//! build of it spends about 1.3 ms more before `main`: the dynamic loader applies some 41,000
//! relative relocations, copying every page of `.data.rel.ro` they touch. Linked at a fixed
//! address the executable needs none of them (`speccoder --version`, median of 150 on a 2-core
//! VM: 3.2 ms and 324 page faults position-independent, 1.9 ms and 134 page faults here).
//!
//! What it costs: the executable image itself is no longer placed at a random address (the heap,
//! the stack and the shared libraries still are), which makes an exploit of a memory-safety bug,
//! should one exist in the C or unsafe code linked in, easier to aim. A packager who wants the
//! position-independent build anyway sets `SPECCODER_PIE=1`.
//!
//! Only the binaries get the flag (`rustc-link-arg-bins`): the library, tests and benches build
//! as usual, and the objects are position-independent either way, so nothing is rebuilt for it.
//!
//! `SPECCODER_SYMBOL_ORDER=FILE` (set by `scripts/build-release.sh`) also hands the linker a
//! symbol ordering file: the functions a tick runs, listed in `scripts/symbol-order.txt` by
//! `scripts/symbol-order.sh`, are laid out together at the start of `.text`. The kernel maps an
//! executable's code as it is first run, 16 pages a fault, so the 1,800 or so functions of a tick
//! spread over 14 MiB of code cost some 80 page faults; grouped, 23 (a tick of the static release
//! build took 259 page faults and 6.8 ms without the list, 191 and 6.0 ms with it, medians of 40
//! interleaved runs on a 2-core VM).
//! The option is lld's (the linker rustc uses on x86_64 Linux since 1.90), hence opt-in; a name
//! the build no longer has is skipped without a warning, so a stale list only orders less.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=SPECCODER_PIE");
    println!("cargo::rerun-if-env-changed=SPECCODER_SYMBOL_ORDER");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let keep_pie = std::env::var_os("SPECCODER_PIE").is_some_and(|v| !v.is_empty() && v != "0");
    if linux && !keep_pie {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
    if let Some(order) = std::env::var_os("SPECCODER_SYMBOL_ORDER").filter(|v| !v.is_empty()) {
        let order = std::path::Path::new(&order);
        assert!(order.is_file(), "SPECCODER_SYMBOL_ORDER names {}, which is not a file", order.display());
        println!("cargo::rerun-if-changed={}", order.display());
        println!("cargo::rustc-link-arg-bins=-Wl,--symbol-ordering-file={}", order.display());
        println!("cargo::rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}
