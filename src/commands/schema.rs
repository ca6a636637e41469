//! `speccoder schema [--check]`.

use std::fs;

use speccoder_attest::exit;
use speccoder_attest::schema;

use crate::cli::SchemaArgs;

pub fn run(args: &SchemaArgs) -> u8 {
    let files = schema::all();
    if args.check {
        let mut differing = Vec::new();
        for f in &files {
            let path = args.out.join(f.name);
            match fs::read_to_string(&path) {
                Ok(text) if text == f.text => {}
                Ok(_) => differing.push(format!("{} differs from what the types generate", path.display())),
                Err(e) => differing.push(format!("{} cannot be read: {e}", path.display())),
            }
        }
        if differing.is_empty() {
            println!("{} schemas in {} are up to date", files.len(), args.out.display());
            return exit::OK;
        }
        for d in &differing {
            eprintln!("speccoder schema --check: {d}");
        }
        eprintln!("run `speccoder schema` to regenerate them, then commit the result");
        return exit::DOES_NOT_HOLD;
    }
    if let Err(e) = fs::create_dir_all(&args.out) {
        eprintln!("speccoder schema: cannot create {}: {e}", args.out.display());
        return exit::INTERNAL;
    }
    for f in &files {
        let path = args.out.join(f.name);
        if let Err(e) = fs::write(&path, &f.text) {
            eprintln!("speccoder schema: cannot write {}: {e}", path.display());
            return exit::INTERNAL;
        }
        println!("wrote {}", path.display());
    }
    exit::OK
}
