# Developer shortcuts; README's two commands do not need `just`.

default: test

# Debug build of the binary and library.
build:
    cargo build --locked

# Everything CI runs: peers, lint, schema check, tests.
test:
    bash scripts/test.sh

# clippy with warnings denied, and the rustfmt check.
lint:
    cargo clippy --all-targets --locked -- -D warnings
    cargo fmt --check

# Regenerate the JSON Schemas from the types.
schema:
    cargo run --quiet --locked -- schema

# Benchmarks (release builds; results on stdout, nothing fails on a time).
bench: bench-attest bench-verify

# speccoder attest (six signed lines) against ssh-keygen per line + git notes add; prints both medians.
bench-attest:
    cargo bench --locked --bench attest

# attest verify --branch --all on 1,000, 10,000 and 100,000 synthetic signed ticks, against the
# per-line ssh-keygen pipeline (see benches/verify.sh for the knobs).
bench-verify *SIZES:
    bash benches/verify.sh {{SIZES}}

# attest export against attest verify of the same 10,000 synthetic ticks (benches/export.sh).
bench-export *SIZES:
    bash benches/export.sh {{SIZES}}
