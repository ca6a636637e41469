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

# speccoder attest (six signed lines) against ssh-keygen per line + git notes add; prints the ratio.
bench:
    cargo bench --locked --bench attest
