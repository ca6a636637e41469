//! Which file OpenSpec counts a change's tasks in, read from the tree being read as openspec
//! (1.x) resolves it, so that a change whose tasks are counted elsewhere than in its `tasks.md`
//! is reported instead of read.
//!
//! openspec names a change's schema by the change's `.openspec.yaml` (`schema:`), else by
//! `openspec/config.yaml` (or `config.yml`), else `spec-driven`; it looks the name up in the
//! project's `openspec/schemas/<name>/schema.yaml` first, then in a directory of the user's
//! outside the repository, then among its own (whose `spec-driven` tracks `tasks.md`). The tracked
//! artifact is the one whose `generates` is the schema's `apply.tracks`, or the one of id `tasks`
//! when nothing is tracked by name; its `generates` (a file name or a glob) selects the files whose
//! boxes openspec counts, falling back to `tasks.md` when anything fails to resolve or the glob
//! matches no file. speccoder reads `tasks.md` only ([`super::TASK_LIST_FILE`]) and no file
//! outside the tree, so a name no project-local schema holds is taken to track `tasks.md` (as
//! `spec-driven` does: a user's own schema cannot be seen), and a project-local schema whose
//! tracked artifact generates anything but exactly `tasks.md` makes the change one speccoder
//! refuses ([`SpecError::OtherTaskFile`]), whether or not the glob matches a file yet, as does a
//! schema that cannot be read where openspec would read it (a link, which openspec follows; a
//! file too large or not UTF-8). Where openspec would fail on a file and fall back to `tasks.md`
//! (its YAML does not parse, it is a directory, it names nothing), so does this.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use super::error::{SpecError, shown};
use super::text::read_text;
use super::tree::{EntryKind, SourceTree, check_rel_path};
use super::unit::{Format, TASK_LIST_FILE, UnitLoc};
use super::yaml::{self, Node, Parsed};

/// The directory of a project's own OpenSpec schemas.
const SCHEMAS_DIR: &str = "openspec/schemas";
/// The schema openspec uses when nothing names one.
const DEFAULT_SCHEMA: &str = "spec-driven";
/// The project's configuration files, in the order openspec looks for them: the first that exists
/// is read, the second only when the first does not exist.
const CONFIG_FILES: [&str; 2] = ["openspec/config.yaml", "openspec/config.yml"];

/// Where the tasks of a tree's OpenSpec changes are tracked: the project's configuration and each
/// schema read once, however many changes ask.
pub(crate) struct Tracking<'t> {
    /// The tree read.
    tree: &'t dyn SourceTree,
    /// What stands at [`SCHEMAS_DIR`].
    schemas_dir: OnceCell<Option<EntryKind>>,
    /// The schema the project's configuration names.
    configured: OnceCell<Named>,
    /// What each project-local schema tracks, by its name.
    schemas: RefCell<HashMap<String, Rc<Tracked>>>,
}

/// A schema's name as a change's or the project's file gives it.
#[derive(Debug, Clone)]
enum Named {
    /// The name, and the file that names it (`None`: openspec's default).
    Name(String, Option<String>),
    /// openspec cannot read the name and counts `tasks.md`.
    TasksMd,
    /// The file that names it cannot be read here, so which schema it is cannot be told: why.
    Unknown(String),
}

/// Which file a schema's tracked artifact generates.
#[derive(Debug)]
enum Tracked {
    /// `tasks.md`, or nothing openspec resolves, so that it counts `tasks.md`.
    TasksMd,
    /// Another file name or a glob, as written.
    Elsewhere(String),
    /// The schema cannot be read here, so what it tracks cannot be told: why.
    Unknown(String),
}

/// A YAML file of the tree as openspec meets it.
enum YamlFile {
    /// Nothing there.
    Absent,
    /// A directory there: openspec sees a file that fails to read.
    Directory,
    /// A file openspec reads that cannot be read here (a link, a submodule, over the size read,
    /// not UTF-8, stored through a filter): why.
    Unreadable(String),
    /// A file whose text is no YAML document.
    NotYaml,
    /// The document's root.
    Doc(Rc<Node>),
}

impl<'t> Tracking<'t> {
    /// Where the tasks of `tree`'s changes are tracked, nothing read yet.
    pub(crate) fn new(tree: &'t dyn SourceTree) -> Self {
        Tracking {
            tree,
            schemas_dir: OnceCell::new(),
            configured: OnceCell::new(),
            schemas: RefCell::new(HashMap::new()),
        }
    }

    /// The refusal of the unit `loc` when it is an OpenSpec change whose tasks openspec counts in
    /// another file than its `tasks.md`, or in files that cannot be told; `None` when they are in
    /// its `tasks.md` as far as the tree tells.
    ///
    /// # Errors
    /// A repository that cannot be read.
    pub(crate) fn refusal(&self, loc: &UnitLoc) -> Result<Option<SpecError>, SpecError> {
        if loc.format != Format::OpenSpec {
            return Ok(None);
        }
        let schemas_dir = match self.schemas_dir.get() {
            Some(kind) => *kind,
            None => {
                let kind = self.tree.kind(SCHEMAS_DIR)?;
                *self.schemas_dir.get_or_init(|| kind)
            }
        };
        // Without project-local schemas, every name is openspec's own or a user's.
        if matches!(schemas_dir, None | Some(EntryKind::File | EntryKind::Special)) {
            return Ok(None);
        }
        let (name, named_by) = match self.named(loc)? {
            Named::TasksMd => return Ok(None),
            Named::Unknown(why) => return Ok(Some(cannot_tell(loc, &why))),
            Named::Name(name, named_by) => (name, named_by),
        };
        let Some(name) = schema_dir_name(&name) else { return Ok(None) };
        if let Some(kind @ (EntryKind::Link | EntryKind::Submodule)) = schemas_dir {
            let why = format!("`{SCHEMAS_DIR}` is {}, which openspec reads through", a_kind(kind));
            return Ok(Some(cannot_tell(loc, &why)));
        }
        let schema_file = format!("{SCHEMAS_DIR}/{name}/schema.yaml");
        Ok(match &*self.schema(name)? {
            Tracked::TasksMd => None,
            Tracked::Unknown(why) => Some(cannot_tell(loc, why)),
            Tracked::Elsewhere(generates) => Some(SpecError::OtherTaskFile {
                change: loc.name.clone(),
                dir: loc.dir.clone(),
                why: format!(
                    "has its tasks counted in `{}`, which the tracked artifact of its schema `{}` generates (the schema `{}` {})",
                    shown(generates, 200),
                    shown(&schema_file, 300),
                    shown(name, 100),
                    named_by.map_or_else(
                        || "openspec uses when nothing names one".to_owned(),
                        |file| format!("`{}` names", shown(&file, 300))
                    ),
                ),
            }),
        })
    }

    /// The schema name of the change `loc`: its `.openspec.yaml`'s, else the project's.
    fn named(&self, loc: &UnitLoc) -> Result<Named, SpecError> {
        let metadata = format!("{}/.openspec.yaml", loc.dir);
        Ok(match self.yaml(&metadata, "an OpenSpec change's metadata")? {
            YamlFile::Absent => self.configured()?,
            YamlFile::Unreadable(why) => Named::Unknown(why),
            // openspec refuses a metadata file it cannot read or that is no YAML, names no schema
            // or an empty one, and counts `tasks.md` (it never reads the project's name then).
            YamlFile::Directory | YamlFile::NotYaml => Named::TasksMd,
            YamlFile::Doc(root) => match schema_named(&root, &metadata) {
                Ok(Some(name)) => Named::Name(name, Some(metadata)),
                Ok(None) => Named::TasksMd,
                Err(why) => Named::Unknown(why),
            },
        })
    }

    /// The schema name the project's configuration gives, read once.
    fn configured(&self) -> Result<Named, SpecError> {
        if let Some(named) = self.configured.get() {
            return Ok(named.clone());
        }
        let mut named = Named::Name(DEFAULT_SCHEMA.to_owned(), None);
        for config in CONFIG_FILES {
            named = match self.yaml(config, "the OpenSpec configuration")? {
                YamlFile::Absent => continue,
                YamlFile::Unreadable(why) => Named::Unknown(why),
                // openspec ignores a configuration it cannot read or parse (it warns).
                YamlFile::Directory | YamlFile::NotYaml => named,
                YamlFile::Doc(root) => match schema_named(&root, config) {
                    Ok(Some(name)) => Named::Name(name, Some(config.to_owned())),
                    // openspec ignores a `schema` that is no string or an empty one (it warns).
                    Ok(None) => named,
                    Err(why) => Named::Unknown(why),
                },
            };
            break;
        }
        Ok(self.configured.get_or_init(|| named).clone())
    }

    /// What the project-local schema `name` (a directory name) tracks, read once.
    fn schema(&self, name: &str) -> Result<Rc<Tracked>, SpecError> {
        if let Some(tracked) = self.schemas.borrow().get(name) {
            return Ok(Rc::clone(tracked));
        }
        let dir = format!("{SCHEMAS_DIR}/{name}");
        // A name no path can be (a NUL in it) names no directory openspec finds either.
        let kind = if check_rel_path(&dir, false).is_ok() { self.tree.kind(&dir)? } else { None };
        let tracked = match kind {
            // Not the project's: openspec's own, or a user's.
            None | Some(EntryKind::File | EntryKind::Special) => Tracked::TasksMd,
            Some(kind @ (EntryKind::Link | EntryKind::Submodule)) => Tracked::Unknown(format!(
                "`{}` is {}, which openspec reads through",
                shown(&dir, 300),
                a_kind(kind)
            )),
            Some(EntryKind::Dir) => match self.yaml(&format!("{dir}/schema.yaml"), "an OpenSpec schema")? {
                YamlFile::Absent => Tracked::TasksMd,
                YamlFile::Unreadable(why) => Tracked::Unknown(why),
                // openspec fails to load the schema and counts `tasks.md`; a schema whose YAML
                // does not parse is one it cannot load, so its changes are read as openspec
                // reads them, rather than refused for what openspec does not do.
                YamlFile::Directory | YamlFile::NotYaml => Tracked::TasksMd,
                YamlFile::Doc(root) => tracked_by(&root),
            },
        };
        let tracked = Rc::new(tracked);
        self.schemas.borrow_mut().insert(name.to_owned(), Rc::clone(&tracked));
        Ok(tracked)
    }

    /// The YAML file at `path`, read as `what` for a message.
    fn yaml(&self, path: &str, what: &'static str) -> Result<YamlFile, SpecError> {
        if check_rel_path(path, false).is_err() {
            return Ok(YamlFile::Absent);
        }
        if self.tree.kind(path)? == Some(EntryKind::Dir) {
            return Ok(YamlFile::Directory);
        }
        Ok(match read_text(self.tree, path, what) {
            Ok(None) => YamlFile::Absent,
            Ok(Some(text)) => match yaml::parse(&text) {
                Parsed::Doc(root) => YamlFile::Doc(root),
                Parsed::NotYaml => YamlFile::NotYaml,
                Parsed::CannotTell(why) => YamlFile::Unreadable(format!("`{}` {why}", shown(path, 300))),
            },
            Err(e) if e.is_repository_failure() => return Err(e),
            Err(e) => YamlFile::Unreadable(e.to_string()),
        })
    }
}

/// The schema name the document `root` of `file` gives: its `schema` when that is a string not
/// empty, which openspec asks of it; `None` for anything else (a number, `true`, a list; `yes`
/// under `%YAML 1.1`), which openspec does not take for a name.
///
/// # Errors
/// Why the name cannot be told: a `schema` whose type is not resolved here.
fn schema_named(root: &Node, file: &str) -> Result<Option<String>, String> {
    match root.get("schema") {
        Some(schema) if schema.is_doubtful() => Err(format!(
            "`{}` gives `schema` a value whose type speccoder does not resolve (a tag, or under `%YAML 1.1` one that may be a number or a date)",
            shown(file, 300)
        )),
        Some(schema) => Ok(schema.as_str().filter(|name| !name.is_empty()).map(str::to_owned)),
        None => Ok(None),
    }
}

/// The directory name openspec looks a schema up by: `name` less one `.yaml` or `.yml` at its end;
/// `None` for a name that names no directory of its own (empty, `.`, `..`, a path), which openspec
/// resolves to no schema, and counts `tasks.md`. A change's `.openspec.yaml` is taken to name
/// what its project's configuration would: openspec first asks there that the name be one it
/// knows, which a verifier cannot tell of a user's schemas.
fn schema_dir_name(name: &str) -> Option<&str> {
    let name = name.strip_suffix(".yaml").or_else(|| name.strip_suffix(".yml")).unwrap_or(name);
    let drive = matches!(name.as_bytes(), [letter, b':', ..] if letter.is_ascii_alphabetic());
    let bad = name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\']) || drive;
    (!bad).then_some(name)
}

/// What a schema's tracked artifact generates, as openspec picks the artifact: the first whose
/// `generates` is `apply.tracks`, or, when that is null or not there, the first of id `tasks`.
fn tracked_by(root: &Node) -> Tracked {
    let (apply, artifacts) = (root.get("apply"), root.get("artifacts"));
    if [apply, artifacts].contains(&Some(&Node::Beyond)) {
        return Tracked::Unknown(
            "its schema's `apply` or `artifacts` is an alias of a node nested deeper than speccoder reads"
                .to_owned(),
        );
    }
    let tracks = apply.and_then(|apply| apply.get("tracks")).filter(|t| !t.is_null());
    let Some(Node::Seq(artifacts)) = artifacts else { return Tracked::TasksMd };
    let doubtful = |node: Option<&Node>| node.is_some_and(Node::is_doubtful);
    let untyped = || {
        Tracked::Unknown(
            "its schema gives `apply.tracks` or an artifact's `id` or `generates` a value whose type speccoder does not resolve"
                .to_owned(),
        )
    };
    if doubtful(tracks) {
        return untyped();
    }
    let picked = |artifact: &Node| match tracks {
        Some(tracks) => {
            tracks.as_str().is_some_and(|t| artifact.get("generates").and_then(Node::as_str) == Some(t))
        }
        None => artifact.get("id").and_then(Node::as_str) == Some("tasks"),
    };
    for artifact in artifacts {
        match &**artifact {
            Node::Beyond => {
                return Tracked::Unknown(
                    "an artifact of its schema is an alias of a node nested deeper than speccoder reads"
                        .to_owned(),
                );
            }
            artifact if doubtful(artifact.get("id")) || doubtful(artifact.get("generates")) => {
                return untyped();
            }
            artifact if picked(artifact) => {
                return match artifact.get("generates") {
                    None => Tracked::TasksMd,
                    Some(generates) if generates.is_null() => Tracked::TasksMd,
                    Some(generates) => match generates.as_str() {
                        Some(TASK_LIST_FILE) => Tracked::TasksMd,
                        Some(other) => Tracked::Elsewhere(other.to_owned()),
                        None => Tracked::Unknown(
                            "its schema's tracked artifact generates no file name".to_owned(),
                        ),
                    },
                };
            }
            _ => {}
        }
    }
    Tracked::TasksMd
}

/// `a symbolic link` or `a submodule`, for a message.
fn a_kind(kind: EntryKind) -> &'static str {
    if kind == EntryKind::Link { "a symbolic link" } else { "a submodule (another repository)" }
}

/// The refusal of the change `loc` whose tracked task file cannot be told, for `why`.
fn cannot_tell(loc: &UnitLoc, why: &str) -> SpecError {
    SpecError::OtherTaskFile {
        change: loc.name.clone(),
        dir: loc.dir.clone(),
        why: format!(
            "may track its tasks in another file than `{TASK_LIST_FILE}`, which cannot be told: {why}"
        ),
    }
}

/// Refuses the unit `loc` when its tasks are counted elsewhere than in its `tasks.md`
/// ([`Tracking::refusal`]).
///
/// # Errors
/// [`SpecError::OtherTaskFile`], or a repository that cannot be read.
pub(crate) fn refuse_other_task_file(tree: &dyn SourceTree, loc: &UnitLoc) -> Result<(), SpecError> {
    match Tracking::new(tree).refusal(loc)? {
        Some(refused) => Err(refused),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{MemTree, locate_unit};

    /// A project-local schema whose `apply.tracks` and tracked artifact name `generates`.
    fn schema(generates: &str) -> String {
        format!(
            "name: custom\nversion: 1\nartifacts:\n  - id: proposal\n    generates: proposal.md\n    description: d\n    template: proposal.md\n  - id: tasks\n    generates: \"{generates}\"\n    description: d\n    template: tasks.md\n    requires: [proposal]\napply:\n  requires: [tasks]\n  tracks: \"{generates}\"\n"
        )
    }

    /// Two changes, `add-x` and `add-y`, and `files`.
    fn project(files: &[(&str, &str)]) -> MemTree {
        let mut tree = MemTree::from_files([
            ("openspec/changes/add-x/tasks.md", "- [ ] 1.1 a\n"),
            ("openspec/changes/add-y/tasks.md", "- [ ] 1.1 a\n"),
            ("specs/001-a/tasks.md", "- [ ] T001 a\n"),
        ])
        .unwrap();
        for (path, text) in files {
            tree.insert(*path, *text).unwrap();
        }
        tree
    }

    /// The refusal of `unit` in `tree`, as a message.
    fn refused(tree: &dyn SourceTree, unit: &str) -> Option<String> {
        let loc = locate_unit(tree, unit).unwrap();
        Tracking::new(tree).refusal(&loc).unwrap().map(|e| e.to_string())
    }

    #[test]
    fn a_change_s_metadata_names_its_schema_before_the_project_s_configuration() {
        let custom = schema("checklist.md");
        let tree = project(&[
            ("openspec/config.yaml", "schema: custom\ncontext: |\n  a project\n"),
            ("openspec/schemas/custom/schema.yaml", &custom),
            ("openspec/changes/add-x/.openspec.yaml", "schema: spec-driven\ncreated: 2025-01-01\n"),
        ]);
        assert_eq!(refused(&tree, "add-x"), None, "its metadata names openspec's own schema");
        let msg = refused(&tree, "add-y").expect("the configuration names the project's schema");
        for part in [
            "OpenSpec change `add-y` (openspec/changes/add-y) has its tasks counted in `checklist.md`",
            "its schema `openspec/schemas/custom/schema.yaml`",
            "(the schema `custom` `openspec/config.yaml` names)",
            "speccoder reads a change's tasks from `tasks.md` only",
        ] {
            assert!(msg.contains(part), "{part:?} in {msg}");
        }
        assert_eq!(refused(&tree, "001-a"), None, "a Spec Kit unit is never an OpenSpec change");

        let tree = project(&[
            ("openspec/config.yaml", "schema: spec-driven\n"),
            ("openspec/schemas/custom/schema.yaml", &custom),
            ("openspec/changes/add-x/.openspec.yaml", "schema: custom.yaml\n"),
        ]);
        let msg = refused(&tree, "add-x").expect("its metadata names the project's schema");
        assert!(msg.contains("`openspec/changes/add-x/.openspec.yaml` names"), "{msg}");
        assert_eq!(refused(&tree, "add-y"), None);

        let yml = project(&[
            ("openspec/config.yml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", &custom),
        ]);
        assert!(refused(&yml, "add-y").is_some_and(|m| m.contains("`openspec/config.yml` names")));
        let mut both = yml.clone();
        both.insert("openspec/config.yaml", "schema: spec-driven\n").unwrap();
        assert_eq!(refused(&both, "add-y"), None, "`config.yaml` is read before `config.yml`");
    }

    #[test]
    fn a_project_s_own_spec_driven_is_read_by_what_it_tracks() {
        let tracks_tasks = project(&[("openspec/schemas/spec-driven/schema.yaml", &schema("tasks.md"))]);
        assert_eq!(refused(&tracks_tasks, "add-x"), None);
        let tracks_other = project(&[("openspec/schemas/spec-driven/schema.yaml", &schema("checklist.md"))]);
        let msg = refused(&tracks_other, "add-x")
            .expect("nothing names a schema, and the default is the project's");
        assert!(msg.contains("(the schema `spec-driven` openspec uses when nothing names one)"), "{msg}");
        let elsewhere = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/other/schema.yaml", &schema("checklist.md")),
        ]);
        assert_eq!(
            refused(&elsewhere, "add-x"),
            None,
            "a name no project-local schema holds is not the project's"
        );
    }

    #[test]
    fn a_glob_or_another_file_the_tracked_artifact_generates_is_refused_and_tasks_md_is_read() {
        let with = |schema: &str| {
            project(&[
                ("openspec/config.yaml", "schema: custom\n"),
                ("openspec/schemas/custom/schema.yaml", schema),
            ])
        };
        let msg = refused(&with(&schema("tasks/*.md")), "add-x").expect("a glob");
        assert!(msg.contains("counted in `tasks/*.md`"), "{msg}");
        assert!(refused(&with(&schema("./tasks.md")), "add-x").is_some(), "only exactly `tasks.md` is read");
        // Without `apply.tracks` (or with a null one) the tracked artifact is the one of id `tasks`.
        let by_id =
            "artifacts:\n  - id: tasks\n    generates: todo.md\napply:\n  requires: [tasks]\n  tracks: ~\n";
        assert!(refused(&with(by_id), "add-x").is_some_and(|m| m.contains("counted in `todo.md`")));
        let no_apply =
            "artifacts:\n  - {id: notes, generates: notes.md}\n  - {id: tasks, generates: todo.md}\n";
        assert!(refused(&with(no_apply), "add-x").is_some());
        // `apply.tracks` that no artifact generates: openspec counts `tasks.md`.
        let unmatched = "artifacts:\n  - {id: tasks, generates: todo.md}\napply:\n  requires: [tasks]\n  tracks: TODO.md\n";
        assert_eq!(refused(&with(unmatched), "add-x"), None);
        let aliased = "base: &t {id: tasks, generates: todo.md}\nartifacts: [*t]\n";
        assert!(refused(&with(aliased), "add-x").is_some(), "an alias is read as what it names");
        let deep = "hold: [[[[&arts [{id: tasks, generates: todo.md}]]]]]\nartifacts: *arts\n";
        let msg =
            refused(&with(deep), "add-x").expect("what an alias of a node not kept holds cannot be told");
        assert!(
            msg.contains("which cannot be told: its schema's `apply` or `artifacts` is an alias"),
            "{msg}"
        );
    }

    #[test]
    fn yaml_that_does_not_parse_is_read_as_openspec_reads_it_counting_tasks_md() {
        let custom = schema("checklist.md");
        let broken_schema = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", "artifacts: [\n  - id: tasks\n"),
        ]);
        assert_eq!(refused(&broken_schema, "add-x"), None, "openspec cannot load the schema");
        let broken_metadata = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", &custom),
            ("openspec/changes/add-x/.openspec.yaml", "schema: [custom\n"),
        ]);
        assert_eq!(
            refused(&broken_metadata, "add-x"),
            None,
            "openspec refuses the metadata, and counts tasks.md"
        );
        assert!(refused(&broken_metadata, "add-y").is_some());
        let broken_config = project(&[
            ("openspec/config.yaml", "schema: [custom\n"),
            ("openspec/schemas/spec-driven/schema.yaml", &custom),
        ]);
        let msg = refused(&broken_config, "add-x").expect("openspec ignores the configuration: its default");
        assert!(msg.contains("openspec uses when nothing names one"), "{msg}");
        // Nesting the parser does not read is no YAML error another parser would make.
        let deep = format!("{custom}extra: {}{}\n", "[".repeat(300), "]".repeat(300));
        let too_deep = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", &deep),
        ]);
        let msg = refused(&too_deep, "add-x").expect("what it tracks cannot be told");
        assert!(
            msg.contains(
                "which cannot be told: `openspec/schemas/custom/schema.yaml` nests flow collections"
            ),
            "{msg}"
        );
    }

    #[test]
    fn a_schema_name_that_is_no_string_is_no_name_openspec_takes() {
        let custom = schema("checklist.md");
        // openspec ignores the configuration's `schema: 123` (a number), and uses its default.
        let number = project(&[
            ("openspec/config.yaml", "schema: 123\n"),
            ("openspec/schemas/123/schema.yaml", &schema("tasks.md")),
            ("openspec/schemas/spec-driven/schema.yaml", &custom),
        ]);
        let msg = refused(&number, "add-x").expect("the default, the project's own, tracks checklist.md");
        assert!(msg.contains("(the schema `spec-driven` openspec uses when nothing names one)"), "{msg}");
        let quoted = project(&[
            ("openspec/config.yaml", "schema: '123'\n"),
            ("openspec/schemas/123/schema.yaml", &schema("tasks.md")),
            ("openspec/schemas/spec-driven/schema.yaml", &custom),
        ]);
        assert_eq!(refused(&quoted, "add-x"), None, "a quoted `123` is a string");
        let boolean = project(&[
            ("openspec/config.yaml", "%YAML 1.1\n---\nschema: yes\n"),
            ("openspec/schemas/yes/schema.yaml", &schema("tasks.md")),
            ("openspec/schemas/spec-driven/schema.yaml", &custom),
        ]);
        assert!(refused(&boolean, "add-x").is_some(), "`yes` is true under `%YAML 1.1`");
        // openspec refuses a change's metadata whose `schema` is no string, and counts tasks.md.
        let metadata = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", &custom),
            ("openspec/schemas/true/schema.yaml", &custom),
            ("openspec/changes/add-x/.openspec.yaml", "schema: true\n"),
        ]);
        assert_eq!(refused(&metadata, "add-x"), None);
        assert!(refused(&metadata, "add-y").is_some());
        // A type not resolved here: which schema is named cannot be told.
        let dated = project(&[
            ("openspec/config.yaml", "%YAML 1.1\n---\nschema: 2025-01-01\n"),
            ("openspec/schemas/2025-01-01/schema.yaml", &custom),
        ]);
        let msg = refused(&dated, "add-x").expect("a date or a string");
        assert!(
            msg.contains("which cannot be told: `openspec/config.yaml` gives `schema` a value whose type"),
            "{msg}"
        );
        let tagged = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", &custom.replace("tracks: \"", "tracks: !t \"")),
        ]);
        let msg = refused(&tagged, "add-x").expect("a tag not followed");
        assert!(msg.contains("its schema gives `apply.tracks` or an artifact's"), "{msg}");
    }

    #[test]
    fn a_file_with_a_key_given_twice_is_one_openspec_cannot_parse() {
        let custom = schema("checklist.md");
        let config = project(&[
            ("openspec/config.yaml", "schema: custom\nschema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", &schema("tasks.md")),
            ("openspec/schemas/spec-driven/schema.yaml", &custom),
        ]);
        let msg = refused(&config, "add-x").expect("openspec ignores the configuration: its default");
        assert!(msg.contains("openspec uses when nothing names one"), "{msg}");
        let metadata = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", &custom),
            (
                "openspec/changes/add-x/.openspec.yaml",
                "schema: custom\ncreated: 2025-01-01\ncreated: 2025-01-02\n",
            ),
        ]);
        assert_eq!(refused(&metadata, "add-x"), None, "openspec refuses the metadata, and counts tasks.md");
        assert!(refused(&metadata, "add-y").is_some());
        let twice = custom.replace("  - id: proposal\n", "  - id: proposal\n    id: proposal\n");
        let schema_file = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", &twice),
        ]);
        assert_eq!(refused(&schema_file, "add-x"), None, "openspec cannot load the schema");
    }

    #[test]
    fn a_merge_key_under_yaml_1_1_leaves_the_task_file_untold_in_each_file_read() {
        let custom = schema("checklist.md");
        let merged = "%YAML 1.1\n---\nbase: &b {schema: custom}\n<<: *b\n";
        let told = |msg: Option<String>, file: &str| {
            let msg = msg.expect("refused");
            let why =
                format!("which cannot be told: `{file}` merges mappings (a `<<` key under `%YAML 1.1`)");
            assert!(msg.contains(&why), "{msg}");
        };
        let config =
            project(&[("openspec/config.yaml", merged), ("openspec/schemas/custom/schema.yaml", &custom)]);
        told(refused(&config, "add-x"), "openspec/config.yaml");
        let metadata = project(&[
            ("openspec/changes/add-x/.openspec.yaml", merged),
            ("openspec/schemas/custom/schema.yaml", &custom),
        ]);
        told(refused(&metadata, "add-x"), "openspec/changes/add-x/.openspec.yaml");
        assert_eq!(refused(&metadata, "add-y"), None);
        let tracked = "%YAML 1.1\n---\nname: custom\nversion: 1\nbase: &t {id: tasks, description: d, template: t.md}\nartifacts:\n  - <<: *t\n    generates: checklist.md\n";
        let schema_file = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", tracked),
        ]);
        told(refused(&schema_file, "add-x"), "openspec/schemas/custom/schema.yaml");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_where_a_schema_is_read_is_refused_as_a_change_whose_task_file_cannot_be_told() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("openspec/changes/add-x/tasks.md", "- [ ] 1.1 a\n");
        write("openspec/config.yaml", "schema: custom\n");
        write("elsewhere/schema.yaml", &schema("checklist.md"));
        std::fs::create_dir_all(dir.path().join("openspec/schemas")).unwrap();
        std::os::unix::fs::symlink("../../elsewhere", dir.path().join("openspec/schemas/custom")).unwrap();
        let tree = crate::spec::FsTree::new(dir.path());
        let msg = refused(&tree, "add-x").expect("openspec reads the schema through the link");
        assert!(msg.contains("which cannot be told: `openspec/schemas/custom` is a symbolic link"), "{msg}");
    }

    #[test]
    fn a_change_tracked_elsewhere_has_no_task_read_and_says_why() {
        let tree = project(&[
            ("openspec/config.yaml", "schema: custom\n"),
            ("openspec/schemas/custom/schema.yaml", &schema("checklist.md")),
        ]);
        let err = crate::spec::read_task(&tree, "add-x", "1.1").unwrap_err();
        assert!(matches!(err, SpecError::OtherTaskFile { .. }), "{err:?}");
        let err = crate::spec::ticked_tasks(&tree, "add-x").unwrap_err();
        assert!(matches!(err, SpecError::OtherTaskFile { .. }), "{err:?}");
        let err = crate::spec::ticked_ids(&tree, "add-x").unwrap_err();
        assert!(matches!(err, SpecError::OtherTaskFile { .. }), "{err:?}");
        assert!(crate::spec::read_task(&tree, "001-a", "T001").is_ok());
    }
}
