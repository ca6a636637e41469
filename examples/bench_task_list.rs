//! How long the task list reader takes on hostile task lists at the size limit
//! (`spec::SPEC_FILE_LIMIT`): deep block quotes, one line of nested bullets, many fences, a fence
//! a whole file long, unmatched brackets and links, emphasis runs, an unclosed comment, many
//! items, one table cell of check marks, and a plain task list of the same size for comparison.
//!
//! `cargo run --release --example bench_task_list [RUNS]` prints, per shape, the size and the
//! fastest of RUNS (default 5) readings through `spec::unread_ticks` and `spec::ticked_tasks`
//! (each reads the whole list). It never fails on a time.

use std::time::{Duration, Instant};

use speccoder_attest::spec::{self, MemTree, SPEC_FILE_LIMIT};

/// The unit's spec: one story, one requirement.
const SPEC: &str = "# F\n## User Story 1 - One\nBody.\n## Requirements\n- **FR-001**: It works.\n";

/// `unit` repeated to fill at most `limit` bytes after `head`, then `tail`.
fn fill(head: &str, unit: &str, tail: &str, limit: usize) -> String {
    let room = limit.saturating_sub(head.len() + tail.len());
    format!("{head}{}{tail}", unit.repeat(room / unit.len().max(1)))
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let l = SPEC_FILE_LIMIT;
    let plain: String = plain_list(l);
    let shapes: Vec<(&str, String)> = vec![
        ("plain tasks", plain),
        ("deep quotes", fill("", ">", " - [x] T1 x\n", l)),
        ("bullets on one line", fill("", "- ", "[x] T1 x\n", l)),
        ("fences", fill("", "```\n", "", l)),
        ("one long fence", fill("", "`", "\n- [x] T1 x\n", l)),
        ("brackets", fill("- [x] T1 ", "[", "\n", l)),
        ("open links", fill("- [x] T1 ", "[a](", "\n", l)),
        ("emphasis", fill("- [x] T1 ", "*a_", "\n", l)),
        ("unclosed comment", fill("<!--\n", "- [x] T1 x\n", "", l)),
        ("nested quotes and items", fill("", "> - > - > - [x] T1\n", "", l)),
        ("look-alike ticks", fill("", "- [x] \u{422}1: x\n", "", l)),
        ("check marks in one cell", fill("| T1 ", "x \u{2705} ", "|\n", l)),
    ];
    println!("{:<26} {:>9} {:>12}", "shape", "bytes", "fastest");
    for (name, tasks) in shapes {
        let tree = MemTree::from_files([
            ("specs/001-x/tasks.md", tasks.as_bytes()),
            ("specs/001-x/spec.md", SPEC.as_bytes()),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let mut best = Duration::MAX;
        for _ in 0..runs {
            let start = Instant::now();
            let unread = spec::unread_ticks(&tree, "001-x").unwrap_or_else(|e| panic!("{name}: {e}"));
            let ticked = spec::ticked_tasks(&tree, "001-x").unwrap_or_else(|e| panic!("{name}: {e}"));
            std::hint::black_box((unread, ticked));
            best = best.min(start.elapsed());
        }
        println!("{name:<26} {:>9} {:>9.1} ms", tasks.len(), best.as_secs_f64() * 1e3);
    }
}

/// A well-formed Spec Kit task list of about `limit` bytes, every task ticked and distinct.
fn plain_list(limit: usize) -> String {
    let mut out = String::new();
    for i in 1.. {
        let line = format!("- [x] T{i:06} [US1] A task of the list (FR-001)\n");
        if out.len() + line.len() > limit {
            break;
        }
        out.push_str(&line);
    }
    out
}
