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
//! A statically linked build (`-C target-feature=+crt-static`, musl's default) gets no `-no-pie`:
//! rustc links it as a static position-independent executable unless the relocation model is
//! `static`, and such an executable relocates itself at start. Linked with `-no-pie` as well,
//! it crashed before `main`: in musl's `_start_c`, and with glibc in the dynamic loader (seen
//! with rustc 1.95, gdb's backtraces).
//! A static build is position-dependent through `-C relocation-model=static` instead, as
//! `scripts/build-release.sh` builds it.
//!
//! build.rs tells the crate's tests which kind of executable to expect
//! (`SPECCODER_POSITION_DEPENDENT`, `1` or `0`), and tests/attest_e2e/cli.rs reads it with
//! `readelf`.
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
    // `+crt-static` and the relocation model come in the rustflags.
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let keep_pie = std::env::var_os("SPECCODER_PIE").is_some_and(|v| !v.is_empty() && v != "0");
    let codegen = codegen_options();
    let crt_static = crt_static(&codegen);
    if linux && !keep_pie && !crt_static {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
    let static_relocation =
        codegen.iter().rev().find_map(|o| o.strip_prefix("relocation-model=")) == Some("static");
    let position_dependent = linux && (static_relocation || (!crt_static && !keep_pie));
    println!("cargo::rustc-env=SPECCODER_POSITION_DEPENDENT={}", u8::from(position_dependent));
    if let Some(order) = std::env::var_os("SPECCODER_SYMBOL_ORDER").filter(|v| !v.is_empty()) {
        let order = std::path::Path::new(&order);
        assert!(order.is_file(), "SPECCODER_SYMBOL_ORDER names {}, which is not a file", order.display());
        println!("cargo::rerun-if-changed={}", order.display());
        println!("cargo::rustc-link-arg-bins=-Wl,--symbol-ordering-file={}", order.display());
        println!("cargo::rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// The `-C` (`--codegen`) options of the flags cargo hands rustc, as `name=value`, in order (the
/// last of a name wins, as in rustc).
fn codegen_options() -> Vec<String> {
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let flags: Vec<&str> = flags.split('\x1f').collect();
    let mut options = Vec::new();
    for (i, flag) in flags.iter().enumerate() {
        // `-C name=value`, `-Cname=value`, `--codegen name=value`, `--codegen=name=value`.
        let option = match *flag {
            "-C" | "--codegen" => flags.get(i + 1).copied(),
            _ => flag.strip_prefix("-C").or_else(|| flag.strip_prefix("--codegen=")),
        };
        options.extend(option.map(str::to_owned));
    }
    options
}

/// Whether the C runtime is linked statically. cargo's `CARGO_CFG_TARGET_FEATURE` lists
/// `crt-static` when the flags ask for it, but not when it is the target's default, as on musl
/// (seen with cargo 1.95), so the target's default is musl's and the flags' word is final.
fn crt_static(codegen: &[String]) -> bool {
    let listed =
        std::env::var("CARGO_CFG_TARGET_FEATURE").is_ok_and(|f| f.split(',').any(|f| f == "crt-static"));
    let musl = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "musl");
    let mut on = listed || musl;
    for features in codegen.iter().filter_map(|o| o.strip_prefix("target-feature=")) {
        for feature in features.split(',') {
            match feature {
                "+crt-static" => on = true,
                "-crt-static" => on = false,
                _ => {}
            }
        }
    }
    on
}
