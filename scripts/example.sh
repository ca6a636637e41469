#!/usr/bin/env bash
# The bundled example: builds speccoder and checks that the published schemas match the types.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --locked -- schema --check
