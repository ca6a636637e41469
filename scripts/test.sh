#!/usr/bin/env bash
# The project's test command (README and .ci/run both call exactly this): installs the peers,
# then lint, the schema check and every test, on one shared target directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/peers.sh
export PATH="$PWD/.peers/node_modules/.bin:$PATH"
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
cargo run --quiet --locked -- schema --check
cargo test --all-targets --locked
# The build without Sigstore support still works, reports keyless lines as tool_missing, and
# signs Ed25519 with ed25519-dalek where the default build uses aws-lc.
cargo clippy --lib --locked --no-default-features -- -D warnings
cargo test --lib --locked --no-default-features -- verify:: sign::ed25519::
# The binary as released (statically linked on Linux): the end-to-end tests again, against it.
released=$(bash scripts/build-release.sh)
SPECCODER_BIN="$released" cargo test --locked --test '*'
