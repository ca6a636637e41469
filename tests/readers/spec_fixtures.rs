//! The spec readers on the fixture projects under `fixtures/`, read through the work-tree adapter.
//!
//! Every expected digest is a literal computed outside this crate with coreutils' `sha256sum`,
//! from the fixture's own bytes, in the fixture's directory (`fixtures/speckit/specs/<UNIT>`, or
//! `fixtures/openspec`):
//!
//! - a task line (`line_hash`): `sed -n <line>p tasks.md | tr -d '\n' | sha256sum`;
//! - a requirement line (`requirement_hash`): `sed -n <line>p spec.md | tr -d '\n' | sha256sum`;
//! - a Spec Kit story (`section_hash`): its lines, joined, without the last newline:
//!   `sed -n '10,25p' spec.md | head -c -1 | sha256sum` (story 1; story 2 is lines 26 to 40);
//! - the OpenSpec change (`section_hash`), its one delta spec under its heading:
//!   `f=openspec/changes/add-tag-filter/specs/tags/spec.md; printf '## %s\n\n%s' "$f" "$(cat "$f")" | sha256sum`;
//! - the empty section: `printf '' | sha256sum`.

use speccoder_attest::spec::*;

fn fixture(name: &str) -> FsTree {
    FsTree::new(format!("{}/fixtures/{name}", env!("CARGO_MANIFEST_DIR")))
}

/// A memory copy of a fixture, to modify without touching the disk.
fn mem_copy(tree: &FsTree) -> MemTree {
    let mut out = MemTree::new();
    let mut pending = vec![String::new()];
    while let Some(dir) = pending.pop() {
        for (name, kind) in tree.entries(&dir).unwrap().unwrap() {
            let path = if dir.is_empty() { name } else { format!("{dir}/{name}") };
            if kind == EntryKind::Dir {
                pending.push(path);
            } else {
                let bytes = tree.file(&path).unwrap().unwrap();
                out.insert(path, bytes).unwrap();
            }
        }
    }
    out
}

const UNIT: &str = "001-bookmark-tags";
const CHANGE: &str = "add-tag-filter";

const US1_TEXT: &str = "### User Story 1 - Tag a bookmark (Priority: P1)

A reader who saves many links loses track of them. They attach one or more short tags to a bookmark
so that related links belong together.

**Why this priority**: Tagging is the heart of the feature; nothing else works without it.

**Independent Test**: Add a tag to one bookmark and reload the list; the bookmark shows the tag.

**Acceptance Scenarios**:

1. **Given** a saved bookmark without tags, **When** the reader adds the tag `rust`, **Then** the bookmark shows the tag `rust`.
2. **Given** a bookmark tagged `rust`, **When** the reader adds `Rust` again, **Then** the bookmark still has exactly one tag `rust`.

---
";

#[test]
fn both_fixtures_list_their_one_unit() {
    let speckit = list_units(&fixture("speckit")).unwrap();
    assert_eq!(speckit.len(), 1);
    assert_eq!(speckit[0].format, Format::SpecKit);
    assert_eq!(speckit[0].name, UNIT);
    let openspec = list_units(&fixture("openspec")).unwrap();
    assert_eq!(openspec.len(), 1);
    assert_eq!(openspec[0].format, Format::OpenSpec);
    assert_eq!(openspec[0].dir, "openspec/changes/add-tag-filter");
}

#[test]
fn a_spec_kit_story_task_carries_its_line_story_and_requirement_hashes() {
    let t = read_task(&fixture("speckit"), UNIT, "T005").unwrap();
    assert_eq!(t.format, Format::SpecKit);
    assert_eq!(t.unit_dir, "specs/001-bookmark-tags");
    assert_eq!(t.tasks_path, "specs/001-bookmark-tags/tasks.md");
    assert_eq!(t.line_index, 22);
    assert_eq!(
        t.line,
        "- [ ] T005 [US1] Implement adding a tag to a bookmark in src/tags/store.rs (FR-001, FR-002)"
    );
    assert!(!t.ticked && !t.parallel);
    assert_eq!(t.title, "Implement adding a tag to a bookmark in src/tags/store.rs (FR-001, FR-002)");
    assert_eq!(t.story.as_deref(), Some("US1"));
    assert_eq!(t.section.as_deref(), Some("US1"));
    assert_eq!(t.line_hash, "e7f7668be51deaff1b86a4e5bec8364106e6d87737f193ff7bf28d015141e1b3");
    let spec_md = fixture("speckit").file(&format!("specs/{UNIT}/spec.md")).unwrap().unwrap();
    assert_eq!(speckit_story_text(&String::from_utf8(spec_md).unwrap(), "US1"), US1_TEXT);
    assert_eq!(t.section_hash, "2068d4bf0f3a33d03c090e6db3eaa3d7b65beeee5c4ad232911398356909c116");
    let ids: Vec<&str> = t.requirements.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["FR-001", "FR-002"]);
    assert_eq!(t.requirements[0].hash, "409f7403ac31f2fa425e0b9ea3de2d0fbb989468a913b5b1986005c340d98657");
    assert_eq!(
        t.requirements[1].line,
        "- **FR-002**: System MUST store tags in lowercase and treat tags that differ only in letter case as one tag."
    );
    assert!(t.uncited_unknown.is_empty());
}

#[test]
fn a_spec_kit_task_of_story_two_hashes_story_two_up_to_the_edge_cases() {
    let t = read_task(&fixture("speckit"), UNIT, "T007").unwrap();
    assert!(t.parallel);
    assert_eq!(t.section.as_deref(), Some("US2"));
    assert_eq!(t.section_hash, "6ea2e5125787cb1ae44b7b17bce0fe0a820b996ad7d95a0ebb8b764fa2fd77a4");
}

#[test]
fn an_unlabelled_spec_kit_task_hashes_the_empty_section() {
    let t = read_task(&fixture("speckit"), UNIT, "T003").unwrap();
    assert_eq!(t.story, None);
    assert_eq!(t.section, None);
    assert_eq!(t.section_hash, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    let ids: Vec<&str> = t.requirements.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["FR-002", "FR-004"]);
    let sc = read_task(&fixture("speckit"), UNIT, "T006").unwrap();
    assert_eq!(
        sc.requirements[0].line,
        "- **SC-001**: A reader can tag a bookmark from the bookmark list in under 5 seconds."
    );
    assert_eq!(sc.requirements[0].hash, "f7968bf3a938a60464bfa9ada232965f92618b8ea135cbff75fd9cb543a65755");
}

#[test]
fn checklists_are_never_task_lists_so_an_untouched_fixture_has_no_ticked_tasks() {
    assert!(ticked_tasks(&fixture("speckit"), UNIT).unwrap().is_empty());
    assert!(ticked_tasks(&fixture("openspec"), CHANGE).unwrap().is_empty());
}

#[test]
fn a_ticked_task_keeps_its_line_hash_and_is_walked_by_the_verifier() {
    let disk = fixture("speckit");
    let before = read_task(&disk, UNIT, "T004").unwrap();
    let mut tree = mem_copy(&disk);
    let tasks = tree.file(&before.tasks_path).unwrap().unwrap();
    let ticked = tick(&tasks, before.line_index, Format::SpecKit).unwrap();
    let changed: Vec<usize> = (0..tasks.len()).filter(|&i| tasks[i] != ticked[i]).collect();
    assert_eq!(changed.len(), 1);
    assert_eq!(ticked[changed[0]], b'X');
    tree.insert(before.tasks_path.clone(), ticked).unwrap();
    let walked = ticked_tasks(&tree, UNIT).unwrap();
    assert_eq!(walked.len(), 1);
    let after = &walked[0];
    assert_eq!(after.id, "T004");
    assert!(after.ticked);
    assert!(after.line.starts_with("- [X] T004 [P] [US1]"));
    assert_eq!(after.line_hash, before.line_hash);
    assert_eq!(after.section_hash, before.section_hash);
    assert_eq!(after.requirements, before.requirements);
}

#[test]
fn an_openspec_task_hashes_the_whole_change_and_cites_requirements_by_name() {
    let t = read_task(&fixture("openspec"), CHANGE, "1.2").unwrap();
    assert_eq!(t.format, Format::OpenSpec);
    assert_eq!(t.title, "Implement filter by tag in src/tags/store.rs");
    assert_eq!(t.line_index, 2);
    assert_eq!(t.section, None);
    assert_eq!(t.story, None);
    assert_eq!(t.section_hash, "70dd23dcf52f217719738f9d4e2efdfb0c507d8d242a96d0dada4822b03dffcc");
    let ids: Vec<&str> = t.requirements.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["Filter by tag"]);
    assert_eq!(t.requirements[0].hash, "141ac3be0f630a0e002f79fcb027798ec791f9b44cf64ffd1af574ba86631cd0");
    let empty = read_task(&fixture("openspec"), CHANGE, "1.4").unwrap();
    assert_eq!(empty.requirements[0].id, "Empty filter result");
    assert_eq!(empty.section_hash, t.section_hash);
    let docs = read_task(&fixture("openspec"), CHANGE, "2.1").unwrap();
    assert!(docs.requirements.is_empty());
}

#[test]
fn an_openspec_tick_writes_a_lowercase_x() {
    let disk = fixture("openspec");
    let t = read_task(&disk, CHANGE, "1.1").unwrap();
    let tasks = disk.file(&t.tasks_path).unwrap().unwrap();
    let ticked = tick(&tasks, t.line_index, Format::OpenSpec).unwrap();
    let text = String::from_utf8(ticked).unwrap();
    assert!(text.contains("- [x] 1.1 Write the failing test"));
}

#[test]
fn requirement_lines_are_read_for_drift_checks_in_both_formats() {
    assert_eq!(
        requirement_line(&fixture("speckit"), UNIT, "FR-003").unwrap().as_deref(),
        Some("- **FR-003**: System MUST let a reader remove a tag from a bookmark.")
    );
    assert_eq!(requirement_line(&fixture("speckit"), UNIT, "FR-999").unwrap(), None);
    assert_eq!(
        requirement_line(&fixture("openspec"), CHANGE, "Filter by tag").unwrap().as_deref(),
        Some("### Requirement: Filter by tag")
    );
}

#[test]
fn an_unknown_task_says_which_tasks_exist() {
    let err = read_task(&fixture("speckit"), UNIT, "T009").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("T001, T002, T003, T004, T005 (and 3 more)"), "{msg}");
    assert!(msg.contains("specs/001-bookmark-tags/tasks.md"), "{msg}");
}

#[test]
fn ids_of_the_wrong_shape_and_bug_ids_are_refused_with_a_reason() {
    assert!(matches!(read_task(&fixture("speckit"), UNIT, "1.1"), Err(SpecError::BadTaskId { .. })));
    assert!(matches!(read_task(&fixture("openspec"), CHANGE, "T001"), Err(SpecError::BadTaskId { .. })));
    assert!(matches!(
        read_task(&fixture("speckit"), UNIT, "bug:crash"),
        Err(SpecError::TrailerOnlyTask { .. })
    ));
    assert!(matches!(read_task(&fixture("speckit"), UNIT, "bug:../x"), Err(SpecError::BadBugSlug { .. })));
    assert!(matches!(
        read_task(&fixture("speckit"), "../speckit", "T001"),
        Err(SpecError::BadUnitName { .. })
    ));
}

#[test]
fn tree_task_lines_answer_every_task_as_read_any_task_does_including_its_errors() {
    let mut tree = mem_copy(&fixture("speckit"));
    let tasks_path = format!("specs/{UNIT}/tasks.md");
    let mut text = String::from_utf8(tree.file(&tasks_path).unwrap().unwrap()).unwrap();
    // A second line for T002 makes its id ambiguous; every other task stays readable.
    text.push_str("- [ ] T002 Again, on a second line\n");
    tree.insert(tasks_path, text).unwrap();
    let lines = TreeTaskLines::new(tree.clone());
    let asked = [
        (UNIT, "T001"),
        (UNIT, "T002"),
        (UNIT, "T003"),
        (UNIT, "T999"),
        (UNIT, "1.1"),
        (UNIT, "bug:no-such-bug"),
        ("002-not-here", "T001"),
        ("../escape", "T001"),
    ];
    // Twice: the second round is answered from what the first one read.
    for _ in 0..2 {
        for (unit, task) in asked {
            let expected = read_any_task(&tree, unit, task)
                .map(|f| (f.line_hash, f.continuation, f.ticked))
                .map_err(|e| e.to_string());
            let got = (lines.wording(unit, task))
                .map(|w| (w.line_hash, w.continuation, w.ticked))
                .map_err(|e| e.to_string());
            assert_eq!(got, expected, "{unit}/{task}");
        }
    }
    assert!(lines.wording(UNIT, "T001").map(|w| w.line_hash).is_ok());
    assert!(lines.wording(UNIT, "T002").map(|w| w.line_hash).unwrap_err().to_string().contains("T002"));
}

/// A tree that counts how often each file is read.
struct Counting {
    tree: MemTree,
    reads: std::cell::RefCell<std::collections::HashMap<String, usize>>,
}

impl SourceTree for Counting {
    fn file(&self, path: &str) -> Result<Option<Vec<u8>>, SpecError> {
        *self.reads.borrow_mut().entry(path.to_owned()).or_default() += 1;
        self.tree.file(path)
    }
    fn entries(&self, dir: &str) -> Result<Option<Vec<(String, EntryKind)>>, SpecError> {
        self.tree.entries(dir)
    }
    fn kind(&self, path: &str) -> Result<Option<EntryKind>, SpecError> {
        self.tree.kind(path)
    }
    fn undecodable(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, SpecError> {
        self.tree.undecodable(dir)
    }
    fn filter_driver(&self, path: &str) -> Result<Option<String>, SpecError> {
        self.tree.filter_driver(path)
    }
}

#[test]
fn tree_task_lines_read_a_units_task_list_once_for_all_its_tasks() {
    let counting = Counting { tree: mem_copy(&fixture("speckit")), reads: Default::default() };
    let lines = TreeTaskLines::new(counting);
    for task in ["T001", "T003", "T004", "T005", "T001"] {
        let expected = read_any_task(&lines.tree().tree, UNIT, task).unwrap().line_hash;
        assert_eq!(lines.wording(UNIT, task).map(|w| w.line_hash).unwrap(), expected, "{task}");
    }
    assert_eq!(lines.tree().reads.borrow().get(&format!("specs/{UNIT}/tasks.md")), Some(&1));
}
