//! `speccoder schema [--check]`.

use std::fs;

use speccoder_attest::schema;
use speccoder_attest::{exit, input, output_file};

use crate::cli::SchemaArgs;

pub fn run(args: &SchemaArgs) -> u8 {
    let files = schema::all();
    if args.check {
        let mut differing = Vec::new();
        for f in &files {
            let path = args.out.join(f.name);
            // A file larger than twice what the types generate differs, and is not read whole.
            let bound = u64::try_from(f.text.len()).unwrap_or(u64::MAX).saturating_mul(2);
            match input::read_regular(&path, bound) {
                Ok(bytes) if bytes == f.text.as_bytes() => {}
                Ok(_) | Err(input::InputError::TooLarge { .. }) => {
                    differing.push(format!("{} differs from what the types generate", path.display()));
                }
                Err(e) => differing.push(format!("{} cannot be read: {}", path.display(), e.reason())),
            }
        }
        if differing.is_empty() {
            super::output::to_stdout(format_args!(
                "{} schemas in {} are up to date",
                files.len(),
                args.out.display()
            ));
            return exit::OK;
        }
        for d in &differing {
            super::output::to_stderr(format_args!("speccoder schema --check: {d}"));
        }
        super::output::to_stderr(format_args!(
            "run `speccoder schema` to regenerate them, then commit the result"
        ));
        return exit::DOES_NOT_HOLD;
    }
    if let Err(e) = fs::create_dir_all(&args.out) {
        super::output::to_stderr(format_args!("speccoder schema: cannot create {}: {e}", args.out.display()));
        return exit::INTERNAL;
    }
    for f in &files {
        let path = args.out.join(f.name);
        if let Err(e) = output_file::write_whole(&path, f.text.as_bytes()) {
            super::output::to_stderr(format_args!("speccoder schema: {e}"));
            return exit::INTERNAL;
        }
        super::output::to_stdout(format_args!("wrote {}", path.display()));
    }
    exit::OK
}
