//! How long the task list reader takes on hostile task lists at the size limit
//! (`spec::SPEC_FILE_LIMIT`): deep block quotes, one line of nested bullets, many fences, a fence
//! a whole file long, unmatched brackets and links, emphasis runs, an unclosed comment, many
//! items, one table cell of check marks, boxes and check marks before a line's trailing blanks,
//! boxes in one long word, check marks after a cell's blanks, one ticked id on every line, an
//! OpenSpec title holding a requirement's name only inside words, and a plain task list of the
//! same size for comparison.
//!
//! `cargo run --release --example bench_task_list [RUNS]` prints, per shape, the size, the
//! fastest of RUNS (default 5) readings through `spec::unread_ticks` and `spec::ticked_tasks`
//! (each reads the whole list, and the second the requirements each ticked task cites), and the
//! fastest of RUNS lookups of the tasks by id: the ticked boxes (`spec::ticked_boxes_at`) and a
//! task's wording (`spec::TreeTaskLines`). It never fails on a time.

use std::time::{Duration, Instant};

use speccoder_attest::spec::{self, MemTree, SPEC_FILE_LIMIT, SpecError, TreeTaskLines};

/// The unit's spec: one story, one requirement.
const SPEC: &str = "# F\n## User Story 1 - One\nBody.\n## Requirements\n- **FR-001**: It works.\n";

/// `unit` repeated to fill at most `limit` bytes after `head`, then `tail`.
fn fill(head: &str, unit: &str, tail: &str, limit: usize) -> String {
    let room = limit.saturating_sub(head.len() + tail.len());
    format!("{head}{}{tail}", unit.repeat(room / unit.len().max(1)))
}

/// A unit's files: (path, text).
type Files = Vec<(&'static str, String)>;

/// The files of a Spec Kit unit `001-x` whose task list is `tasks`.
fn speckit(tasks: String) -> Files {
    vec![("specs/001-x/tasks.md", tasks), ("specs/001-x/spec.md", SPEC.to_owned())]
}

/// An OpenSpec change `add-x` whose one ticked task's title is `a aa aa … aa` (all the list can
/// hold) and whose one requirement is named `a aa aa … aa a` (half as long): the name stands in the
/// title at every `aa`, each place flanked by a letter, so it is cited nowhere.
fn openspec_title_inside_words(limit: usize) -> Files {
    let tasks = fill("## 1. Impl\n- [x] 1.1 a", " aa", "\n", limit);
    let name = fill("a", " aa", " a", limit / 2);
    let spec = format!(
        "## ADDED Requirements\n### Requirement: {name}\nThe system SHALL x.\n\n#### Scenario: s\n- **WHEN** x\n- **THEN** y\n"
    );
    vec![
        ("openspec/config.yaml", "schema: spec-driven\n".to_owned()),
        ("openspec/changes/add-x/proposal.md", "## Why\nx\n\n## What Changes\n- x\n".to_owned()),
        ("openspec/changes/add-x/tasks.md", tasks),
        ("openspec/changes/add-x/specs/cap/spec.md", spec),
    ]
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let l = SPEC_FILE_LIMIT;
    let plain: String = plain_list(l);
    let trailing_blanks = format!("{}\n", " ".repeat(l / 2));
    let shapes: Vec<(&str, &str, Files)> = vec![
        ("plain tasks", "001-x", speckit(plain)),
        ("deep quotes", "001-x", speckit(fill("", ">", " - [x] T1 x\n", l))),
        ("bullets on one line", "001-x", speckit(fill("", "- ", "[x] T1 x\n", l))),
        ("fences", "001-x", speckit(fill("", "```\n", "", l))),
        ("one long fence", "001-x", speckit(fill("", "`", "\n- [x] T1 x\n", l))),
        ("brackets", "001-x", speckit(fill("- [x] T1 ", "[", "\n", l))),
        ("open links", "001-x", speckit(fill("- [x] T1 ", "[a](", "\n", l))),
        ("emphasis", "001-x", speckit(fill("- [x] T1 ", "*a_", "\n", l))),
        ("unclosed comment", "001-x", speckit(fill("<!--\n", "- [x] T1 x\n", "", l))),
        ("nested quotes and items", "001-x", speckit(fill("", "> - > - > - [x] T1\n", "", l))),
        ("look-alike ticks", "001-x", speckit(fill("", "- [x] \u{422}1: x\n", "", l))),
        ("check marks in one cell", "001-x", speckit(fill("| T1 ", "x \u{2705} ", "|\n", l))),
        (
            "marks, then blanks",
            "001-x",
            speckit(fill("- [x] T1 a\n\nT2 a ", "\u{2713}", &trailing_blanks, l)),
        ),
        ("boxes, then blanks", "001-x", speckit(fill("- [x] T1 a\n\nT2 a ", "[x] ", &trailing_blanks, l))),
        ("boxes in one word", "001-x", speckit(fill("- [x] T1 a\n\nrun ", "[x]a", "\n", l))),
        (
            "marks after cell blanks",
            "001-x",
            speckit(fill(&format!("| {}", " ".repeat(l / 2)), "\u{2713} ", "|\n", l)),
        ),
        ("one ticked id a line", "001-x", speckit(fill("- [ ] T2 real\n", "- [x] T1\n", "", l))),
        ("title holds name in words", "add-x", openspec_title_inside_words(l)),
    ];
    println!("{:<26} {:>9} {:>12} {:>12}", "shape", "bytes", "fastest", "by id");
    for (name, unit, files) in shapes {
        let tree = MemTree::from_files(files.iter().map(|(path, text)| (*path, text.as_bytes())))
            .unwrap_or_else(|e| panic!("{e}"));
        let bytes =
            files.iter().find(|(path, _)| path.ends_with("tasks.md")).map_or(0, |(_, text)| text.len());
        let (mut best, mut by_id) = (Duration::MAX, Duration::MAX);
        for _ in 0..runs {
            let start = Instant::now();
            let unread = spec::unread_ticks(&tree, unit).unwrap_or_else(|e| panic!("{name}: {e}"));
            let ticked = match spec::ticked_tasks(&tree, unit) {
                Ok(ticked) => ticked.len(),
                // One id on many task lines: what the reader says of it.
                Err(SpecError::DuplicateTask { .. }) => 0,
                Err(e) => panic!("{name}: {e}"),
            };
            std::hint::black_box((unread, ticked));
            best = best.min(start.elapsed());
            let lines = TreeTaskLines::new(tree.clone());
            let start = Instant::now();
            let loc = spec::locate_unit(&tree, unit).unwrap_or_else(|e| panic!("{name}: {e}"));
            let boxes = spec::ticked_boxes_at(&tree, &loc).unwrap_or_else(|e| panic!("{name}: {e}"));
            let wording = lines.wording(unit, if unit == "add-x" { "1.1" } else { "T2" }).ok();
            std::hint::black_box((boxes.boxes().count(), wording));
            by_id = by_id.min(start.elapsed());
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!("{name:<26} {bytes:>9} {:>9.1} ms {:>9.1} ms", ms(best), ms(by_id));
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
