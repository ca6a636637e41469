//! The end-to-end suite: the built `speccoder` binary against real repositories in temporary
//! directories, checked with real peers (`git`, `ssh-keygen`, `gpg`, `sqv`, `openspec`, a JSON
//! Schema validator), never with the crate's own decoders. One test binary, one module per
//! concern; `common` and `decide_support` are the kits the modules share.

mod common;
mod decide_support;

mod attest;
mod backends;
mod bug_tasks;
mod carry_merges;
mod carry_pinned;
mod decisions;
mod export;
mod held_out;
mod help;
mod hostile_remote;
mod joined_notes;
mod json_paths;
mod opening;
mod policy;
mod project_format;
mod published_policy;
mod published_shapes;
mod quoted_json;
mod quoted_reports;
mod real_shapes;
mod schema;
mod sigstore_endpoints;
mod sigstore_keyless;
mod sigstore_signing;
mod sigstore_tuf;
mod stress;
mod tamper;
mod task_lists;
mod team;
mod verify_output;
mod verify_parallel;
