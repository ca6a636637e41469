#!/usr/bin/env bash
# Builds the `speccoder` binary the way it is released, and prints its path as the last line.
#
# On Linux with glibc the binary is linked statically (`+crt-static`) at a fixed address
# (`relocation-model=static`): no dynamic loader, no shared libraries to map and bind, no
# relocations to apply at start; and the functions a tick runs are laid out together
# (scripts/symbol-order.txt, see build.rs). `speccoder attest` is a process of a few
# milliseconds, and this takes about a quarter off it (`just bench` measures this build; README.md
# has the figures).
# Static glibc still resolves host names (its `files` and `dns` lookups are built in) for Sigstore.
# The `getrandom` crate finds glibc's getrandom(2) wrapper with dlsym, which a static executable
# cannot do, and would read /dev/urandom instead (after polling /dev/random): told to call it
# directly, it needs no /dev and no extra system calls.
#
# The flags need an explicit `--target`: without one cargo would also apply them to the
# proc-macro crates, which cannot be linked statically. The result is therefore under
# `target/<host triple>/release/`. Elsewhere (macOS, musl hosts) this is a plain release build.
#
# Usage: bash scripts/build-release.sh   (honours CARGO_TARGET_DIR and adds to RUSTFLAGS)
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(rustc -vV | sed -n 's/^host: //p')
target_dir=${CARGO_TARGET_DIR:-target}
case "$host" in
  *-linux-gnu)
    # build.rs hands the linker the functions a tick runs, to lay them out together. The option
    # is lld's, and rustc links with lld by default on x86_64 Linux only.
    order=
    if [[ $host == x86_64-unknown-linux-gnu ]]; then order="$PWD/scripts/symbol-order.txt"; fi
    SPECCODER_SYMBOL_ORDER="$order" \
      RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static --cfg getrandom_backend=\"linux_getrandom\"" \
      cargo build --release --locked --target "$host" --bin speccoder >&2
    bin="$target_dir/$host/release/speccoder"
    ;;
  *)
    cargo build --release --locked --bin speccoder >&2
    bin="$target_dir/release/speccoder"
    ;;
esac
"$bin" --version >&2
echo "$(cd "$(dirname "$bin")" && pwd)/speccoder"
