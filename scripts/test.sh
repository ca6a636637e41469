#!/usr/bin/env bash
# The project's test command (README and .ci/run both call exactly this): installs the peers,
# then lint, the docs, the schema check and every test, on one shared target directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/peers.sh
export PATH="$PWD/.peers/node_modules/.bin:$PATH"
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
# The docs, private items included, link only to items that exist.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --document-private-items --locked
cargo run --quiet --locked -- schema --check
# Every test, the end-to-end ones against the debug binary this build makes (its hashing,
# signature and inflate crates optimized: Cargo.toml's [profile.dev.package]); a second, release
# build of everything would double the build for the same code.
unset SPECCODER_BIN
cargo test --all-targets --locked
# The build without Sigstore support still works, and reports keyless lines as tool_missing.
cargo clippy --lib --locked --no-default-features -- -D warnings
cargo test --lib --locked --no-default-features -- verify:: check::
