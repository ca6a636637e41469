//! Tasks of a unit and the facts a tick records about one: its line, title, story, and the hashes
//! of the line, the section and the requirements it cites.

use std::borrow::Cow;
use std::sync::Arc;

use crate::model::digest::sha256_hex;

use super::bug::{BUG_TASK_PREFIX, bug_line_hash, bug_title, bug_triad, check_bug_slug};
use super::docs::{Section, UnitDocs};
use super::error::{SpecError, shown};
use super::openspec_schema::refuse_other_task_file;
use super::requirement::{Requirement, speckit_cited_ids};
use super::section::StoryFallback;
use super::task_line::{TaskLine, is_task_id, line_hash};
use super::task_list::{TaskList, Unread};
use super::task_lists::TaskLists;
use super::text::read_text;
use super::tree::SourceTree;
use super::unit::{Format, UnitLoc, locate_unit};

/// How many existing task ids an unknown-task error lists.
const KNOWN_SHOWN: usize = 5;

/// A task id as given by a caller (hostile input): a task line's id, or a bug home.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskId {
    /// A task with a line in the unit's tasks.md (`T001`, `1.1`); the format checks its shape.
    Listed(String),
    /// `bug:<slug>`: a trailer-only task whose home is `.specify/bugs/<slug>/`; slug checked.
    Bug(String),
}

impl TaskId {
    /// Reads `bug:<slug>` (checking the slug) or any other text as a listed task id.
    pub fn parse(id: &str) -> Result<Self, SpecError> {
        match id.strip_prefix(BUG_TASK_PREFIX) {
            Some(slug) => {
                check_bug_slug(slug)?;
                Ok(Self::Bug(slug.to_owned()))
            }
            None => Ok(Self::Listed(id.to_owned())),
        }
    }
}

/// What the spec says about one task, with every hash a tick records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFacts {
    /// The unit's format.
    pub format: Format,
    /// The unit's name (feature directory or change id).
    pub unit: String,
    /// The unit's directory, project-relative.
    pub unit_dir: String,
    /// The task list's path, project-relative (for a bug task: its home, `.specify/bugs/<slug>`).
    pub tasks_path: String,
    /// The task id (`T001`, `1.1`).
    pub id: String,
    /// 0-based index of the task's line in the task list (lines as CommonMark splits them: at
    /// `\n`, `\r\n` or a lone `\r`).
    pub line_index: usize,
    /// The task's line without its line ending (and, on the first line, without a byte order
    /// mark).
    pub line: String,
    /// The lines that continue the task's paragraph after its line, each without its ending (a
    /// task wrapped over several lines; see `task_list.rs`): empty for a one-line task and a bug
    /// task. Bound by the task commit's tree, not hashed into `line_hash`.
    pub continuation: Vec<String>,
    /// Whether the box is ticked (`[x]` or `[X]`).
    pub ticked: bool,
    /// Spec Kit: whether the task carries `[P]`.
    pub parallel: bool,
    /// The title: the text after the id and its labels, trimmed.
    pub title: String,
    /// Spec Kit: the task's story label (`US1`); None when unlabelled and for OpenSpec.
    pub story: Option<String>,
    /// `task.line_hash`: sha256 of `line` with every ticked box read as `[ ]`.
    pub line_hash: String,
    /// `spec.section`: the story (`US1`) for a labelled Spec Kit task, otherwise None.
    pub section: Option<String>,
    /// `spec.section_hash`: sha256 of the section text ([`super::speckit_story_text`],
    /// [`super::openspec_change_text`]).
    pub section_hash: String,
    /// Set when the task is labelled `[USn]` and its story text is the whole spec.md, because no
    /// heading gave the story's section: what a writer warns of and a verifier notes.
    pub story_fallback: Option<StoryFallback>,
    /// The cited requirements that a line defines, with their hashes.
    pub requirements: Vec<Requirement>,
    /// Cited requirement ids that no line defines (a caller should warn about them).
    pub uncited_unknown: Vec<String>,
    /// How the published speccoder read the task's line, where it read it otherwise: Spec Kit
    /// labels this crate leaves in the title (a second `[USn]`, `[YOU]`), which it read through,
    /// binding the last `[USn]` ([`TaskLine::labels`]). None where both read the line alike.
    pub published: Option<PublishedLine>,
}

/// A task's line as the published speccoder read it ([`TaskFacts::published`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedLine {
    /// The text after every label, trimmed.
    pub title: String,
    /// The last `[USn]` label's `USn`.
    pub story: Option<String>,
}

impl PublishedLine {
    /// The published reading of `task`, when it differs from this crate's.
    fn of(task: &TaskLine<'_>) -> Option<PublishedLine> {
        let story = task.story_labels().last();
        (task.after_labels != task.title || story != task.story)
            .then(|| PublishedLine { title: task.after_labels.to_owned(), story: story.map(str::to_owned) })
    }
}

impl TaskFacts {
    /// Whether this is a trailer-only task (`bug:<slug>`): no task line, nothing to tick.
    #[must_use]
    pub fn is_trailer_only(&self) -> bool {
        self.id.starts_with(BUG_TASK_PREFIX)
    }

    /// What a writer warns of each id the task cites that no requirement of its spec.md defines
    /// ([`Self::uncited_unknown`]): that it is not traced, and how a requirement is defined
    /// ([`super::requirement::untraced_citation`]).
    #[must_use]
    pub fn untraced_warnings(&self) -> Vec<String> {
        let spec_md = super::unit::spec_md_in(&self.unit_dir);
        self.uncited_unknown.iter().map(|id| super::requirement::untraced_citation(id, &spec_md)).collect()
    }

    /// The text an OpenSpec task cites requirements in ([`cited_text`]): its words name a
    /// requirement only once a delta spec defines one by that name, so what it cites is read
    /// again wherever the documents differ. `None` for Spec Kit, whose text cites its ids by their
    /// shape alone, defined or not ([`Self::requirements`], [`Self::uncited_unknown`]).
    #[must_use]
    pub fn cites_by_name(&self) -> Option<String> {
        let continuation: Vec<&str> = self.continuation.iter().map(String::as_str).collect();
        (self.format == Format::OpenSpec).then(|| cited_text(&self.title, &continuation).into_owned())
    }
}

/// The text of the task list at `path`; Ok(None) when there is none. A symbolic link, a
/// submodule or a directory there, a file over [`super::SPEC_FILE_LIMIT`] bytes or one that is
/// not UTF-8 is refused.
pub(crate) fn read_task_list_at(tree: &dyn SourceTree, path: &str) -> Result<Option<String>, SpecError> {
    read_text(tree, path, "the task list")
}

/// Where `unit` lives and the text of its task list; `None` when it has no task list yet. A
/// change whose tasks openspec counts in another file is refused ([`refuse_other_task_file`]).
pub(crate) fn unit_task_list(
    tree: &dyn SourceTree,
    unit: &str,
) -> Result<Option<(UnitLoc, String)>, SpecError> {
    let loc = locate_unit(tree, unit)?;
    refuse_other_task_file(tree, &loc)?;
    Ok(read_task_list_at(tree, &loc.tasks)?.map(|text| (loc, text)))
}

/// The text of the unit's task list; a missing one is an error.
fn tasks_text(tree: &dyn SourceTree, loc: &UnitLoc) -> Result<String, SpecError> {
    read_task_list_at(tree, &loc.tasks)?.ok_or_else(|| SpecError::MissingFile {
        path: loc.tasks.clone(),
        hint: "the unit has no task list yet; write tasks.md (Spec Kit: `/speckit.tasks`) first",
    })
}

/// `; not read as tasks: line 3 (why), …` for an unknown-task message: the boxes whose word is
/// `id` (less trailing punctuation) first, then the others, at most [`KNOWN_SHOWN`]; empty when
/// every box is a task.
fn unread_note(list: &TaskList, id: &str) -> String {
    let names = |u: &&Unread| u.word.trim_end_matches(|c: char| c.is_ascii_punctuation()) == id;
    let unread = list.unread();
    let shown: Vec<String> = unread
        .iter()
        .filter(names)
        .chain(unread.iter().filter(|u| !names(u)))
        .take(KNOWN_SHOWN)
        .map(|u| format!("line {} `{}` ({})", u.line_index + 1, u.shown, u.reason))
        .collect();
    if shown.is_empty() {
        return String::new();
    }
    let more = unread.len().saturating_sub(shown.len());
    let more = if more > 0 { format!(" (and {more} more)") } else { String::new() };
    format!("; boxes not read as tasks: {}{more}", shown.join("; "))
}

/// The text a task cites requirements in: its title, then each continuation line trimmed, joined
/// by single spaces (as CommonMark renders a soft line break), so that a name wrapped over two
/// lines is still read whole. A one-line task's is its title.
fn cited_text<'t>(title: &'t str, continuation: &[&str]) -> Cow<'t, str> {
    if continuation.is_empty() {
        return Cow::Borrowed(title);
    }
    let mut text = title.to_owned();
    for line in continuation {
        text.push(' ');
        text.push_str(line.trim());
    }
    Cow::Owned(text)
}

/// Why the facts of `task` need the unit's spec documents, for a message; `None` when they need
/// none: an unlabelled Spec Kit task that cites no requirement id (in `cited`, its
/// [`cited_text`]) hashes the empty story and traces nothing, whatever spec.md holds (or whether
/// it is there).
fn needs_docs(loc: &UnitLoc, task: &TaskLine<'_>, cited: &str) -> Option<String> {
    match loc.format {
        Format::OpenSpec => {
            Some(format!("is hashed with its change's delta specs under `{}/`", loc.deltas_dir()))
        }
        Format::SpecKit => {
            let spec = loc.spec_md();
            if let Some(story) = task.story {
                return Some(format!("is labelled `[{story}]`, so its story text is read from `{spec}`"));
            }
            let cited = speckit_cited_ids(cited);
            (!cited.is_empty())
                .then(|| format!("cites {}, whose defining lines are read from `{spec}`", cited.join(", ")))
        }
    }
}

/// The spec documents of one unit, read when a task first needs them ([`needs_docs`]), and
/// derived unless `lists` kept the documents of the same texts ([`TaskLists::docs`]).
struct LazyDocs<'t> {
    /// The tree read.
    tree: &'t dyn SourceTree,
    /// The unit.
    loc: &'t UnitLoc,
    /// Where documents derived lately are kept.
    lists: &'t TaskLists,
    /// The documents, once read.
    docs: Option<Arc<UnitDocs>>,
}

impl<'t> LazyDocs<'t> {
    fn new(tree: &'t dyn SourceTree, loc: &'t UnitLoc, lists: &'t TaskLists) -> Self {
        LazyDocs { tree, loc, lists, docs: None }
    }

    fn get(&mut self) -> Result<&UnitDocs, SpecError> {
        match &mut self.docs {
            Some(docs) => Ok(docs),
            slot @ None => Ok(slot.insert(self.lists.docs(self.tree, self.loc)?)),
        }
    }
}

/// A task as its list reads: the index and text of its line, the parsed line, and the lines that
/// continue its paragraph.
struct Read<'l> {
    /// 0-based index of the task's line.
    index: usize,
    /// The line, without its ending.
    line: &'l str,
    /// The parsed line.
    task: TaskLine<'l>,
    /// [`TaskList::continuation`].
    continuation: Vec<&'l str>,
}

impl<'l> Read<'l> {
    /// The task on line `index` of `list`, when that line holds one.
    fn at(list: &'l TaskList, index: usize) -> Option<Self> {
        let task = list.task_at(index)?;
        Some(Read { index, line: list.line(index), task, continuation: list.continuation(index) })
    }
}

fn facts(loc: &UnitLoc, docs: &mut LazyDocs<'_>, read: &Read<'_>) -> Result<TaskFacts, SpecError> {
    let Read { index: line_index, line, task, continuation } = read;
    let (line_index, line) = (*line_index, *line);
    let cited = cited_text(task.title, continuation);
    let (section, requirements, uncited_unknown) = match needs_docs(loc, task, &cited) {
        None => (Section { name: None, hash: sha256_hex(""), fallback: None }, Vec::new(), Vec::new()),
        Some(why) => {
            let needs = |source| SpecError::TaskNeedsSpec {
                task: task.id.to_owned(),
                tasks_path: loc.tasks.clone(),
                line: line_index + 1,
                why: why.clone(),
                source: Box::new(source),
            };
            let docs = docs.get().map_err(needs)?;
            let section = docs.section(task.story).map_err(needs)?;
            let (requirements, unknown) = docs.citations(&cited).map_err(needs)?;
            (section, requirements, unknown)
        }
    };
    Ok(TaskFacts {
        format: loc.format,
        unit: loc.name.clone(),
        unit_dir: loc.dir.clone(),
        tasks_path: loc.tasks.clone(),
        id: task.id.to_owned(),
        line_index,
        line: line.to_owned(),
        continuation: continuation.iter().map(|l| (*l).to_owned()).collect(),
        ticked: task.ticked,
        parallel: task.parallel,
        title: task.title.to_owned(),
        story: task.story.map(str::to_owned),
        line_hash: line_hash(line),
        section: section.name,
        section_hash: section.hash,
        story_fallback: section.fallback,
        requirements,
        uncited_unknown,
        published: PublishedLine::of(task),
    })
}

/// `facts` (read from `tree`, through `lists`) as the published speccoder read the task's line,
/// which it bound in the evidence it wrote: its title, and its story with that story's text
/// (read from the unit's spec.md when the story is another). `None` when it read the line as
/// this crate does ([`TaskFacts::published`]).
///
/// # Errors
/// [`SpecError::TaskNeedsSpec`]: the story's spec document cannot be read there.
pub fn as_published(
    tree: &dyn SourceTree,
    facts: &TaskFacts,
    lists: &TaskLists,
) -> Result<Option<TaskFacts>, SpecError> {
    let Some(line) = &facts.published else { return Ok(None) };
    let mut read = TaskFacts { title: line.title.clone(), published: None, ..facts.clone() };
    if line.story != facts.story {
        let story = line.story.as_deref();
        let needs = |source| SpecError::TaskNeedsSpec {
            task: facts.id.clone(),
            tasks_path: facts.tasks_path.clone(),
            line: facts.line_index + 1,
            why: format!(
                "is labelled `[{}]` as the published speccoder read its line (the last story label), so its story text is read from `{}`",
                story.unwrap_or_default(),
                super::unit::spec_md_in(&facts.unit_dir)
            ),
            source: Box::new(source),
        };
        let loc = locate_unit(tree, &facts.unit)?;
        let section = lists.docs(tree, &loc).and_then(|docs| docs.section(story)).map_err(needs)?;
        read.story = line.story.clone();
        read.section = section.name;
        read.section_hash = section.hash;
        read.story_fallback = section.fallback;
    }
    Ok(Some(read))
}

fn duplicate(loc: &UnitLoc, id: &str, indices: &[usize]) -> SpecError {
    SpecError::DuplicateTask {
        task: id.to_owned(),
        tasks_path: loc.tasks.clone(),
        lines: super::lines_listed(&indices.iter().map(|i| i + 1).collect::<Vec<_>>()),
    }
}

/// The facts of task `task_id` of `unit`, read from `tree`.
///
/// Errors: an unknown or hostile unit, a bug id (`bug:<slug>` has no task line), an id that is not
/// of the unit's format, a missing or non-UTF-8 task list, an unknown task, a duplicated id, and
/// ([`SpecError::TaskNeedsSpec`], naming the task, its line and why) a spec document the task
/// needs that cannot be read: spec.md for a story task (missing, not UTF-8, a link) or for a
/// task citing requirement ids (not UTF-8, a link, a cited id defined twice), a delta spec.
pub fn read_task(tree: &dyn SourceTree, unit: &str, task_id: &str) -> Result<TaskFacts, SpecError> {
    read_task_with(tree, unit, task_id, &TaskLists::default())
}

/// [`read_task`], with the task list parsed through `lists`.
fn read_task_with(
    tree: &dyn SourceTree,
    unit: &str,
    task_id: &str,
    lists: &TaskLists,
) -> Result<TaskFacts, SpecError> {
    let (loc, list, index) = find_listed(tree, unit, task_id, lists)?;
    let read =
        Read::at(&list, index).ok_or(SpecError::NotATaskLine { line: index + 1, format: loc.format })?;
    facts(&loc, &mut LazyDocs::new(tree, &loc, lists), &read)
}

/// Where the listed task `task_id` of `unit` is: its unit, the reading of its task list, and the
/// index of its line. Nothing but the task list is read: no spec document.
pub(crate) fn find_listed(
    tree: &dyn SourceTree,
    unit: &str,
    task_id: &str,
    lists: &TaskLists,
) -> Result<(UnitLoc, Arc<TaskList>, usize), SpecError> {
    let loc = locate_unit(tree, unit)?;
    refuse_other_task_file(tree, &loc)?;
    let id = match TaskId::parse(task_id)? {
        TaskId::Bug(slug) => return Err(SpecError::TrailerOnlyTask { slug }),
        TaskId::Listed(id) => id,
    };
    if !is_task_id(loc.format, &id) {
        return Err(SpecError::BadTaskId {
            id: shown(&id, 60),
            reason: match loc.format {
                Format::SpecKit => {
                    "a Spec Kit task id is `T`, digits and at most one letter, e.g. `T001` or `T012a`"
                }
                Format::OpenSpec if id.strip_suffix('.').is_some_and(|id| is_task_id(loc.format, id)) => {
                    "an OpenSpec task id is dot-separated numbers, e.g. `1.1` or `1.1a`: a task line's trailing `.` \
                     (`- [ ] 2.2. Title`) is not part of its id, so name it without"
                }
                Format::OpenSpec => {
                    "an OpenSpec task id is dot-separated numbers, e.g. `2` or `1.1`, two or more of which may end in letters, `1.1a`"
                }
            },
        });
    }
    let list = lists.read(tasks_text(tree, &loc)?, loc.format);
    let indices: Vec<usize> = list.lines_of(&id).collect();
    match indices.as_slice() {
        [] => {
            let all = list.tasks();
            let shown_ids: Vec<&str> = all.iter().map(|(_, t)| t.id).take(KNOWN_SHOWN).collect();
            let more = all.len().saturating_sub(KNOWN_SHOWN);
            let mut known = if shown_ids.is_empty() { "none".to_owned() } else { shown_ids.join(", ") };
            if more > 0 {
                known.push_str(&format!(" (and {more} more)"));
            }
            let unread = unread_note(&list, &id);
            drop(all);
            Err(SpecError::UnknownTask {
                task: id,
                tasks_path: loc.tasks.clone(),
                known,
                unread,
                form: loc.format.task_line_form(),
            })
        }
        [index] => {
            let index = *index;
            Ok((loc, list, index))
        }
        several => Err(duplicate(&loc, &id, several)),
    }
}

/// The facts of the trailer-only task `bug:<slug>` of `unit`: the unit must exist and the bug home
/// `.specify/bugs/<slug>/` must hold its three files. `line` is `bug:<slug>` and `line_hash` its
/// sha256 ([`super::bug_line_hash`]); `tasks_path` is the bug home; `title` the assessment's first
/// line; `section` is None and `section_hash` the triad digest ([`super::triad_sha256`]), the text
/// the attempt was given; `ticked` is false (there is no box).
pub fn bug_task_facts(tree: &dyn SourceTree, unit: &str, slug: &str) -> Result<TaskFacts, SpecError> {
    let loc = locate_unit(tree, unit)?;
    let triad = bug_triad(tree, slug)?;
    let assessment = tree.file(&format!("{}/assessment.md", triad.home))?.unwrap_or_default();
    let id = format!("{BUG_TASK_PREFIX}{slug}");
    Ok(TaskFacts {
        format: loc.format,
        unit: loc.name,
        unit_dir: loc.dir,
        tasks_path: triad.home,
        line_index: 0,
        line: id.clone(),
        continuation: Vec::new(),
        ticked: false,
        parallel: false,
        title: bug_title(slug, &assessment),
        story: None,
        line_hash: bug_line_hash(slug),
        section: None,
        section_hash: triad.triad_sha256,
        story_fallback: None,
        requirements: Vec::new(),
        uncited_unknown: Vec::new(),
        published: None,
        id,
    })
}

/// The facts of any task: a listed one ([`read_task`]) or a bug ([`bug_task_facts`]).
pub fn read_any_task(tree: &dyn SourceTree, unit: &str, task_id: &str) -> Result<TaskFacts, SpecError> {
    read_any_task_with(tree, unit, task_id, &TaskLists::default())
}

/// [`read_any_task`], with the task list parsed through `lists`: for a reader that reads the same
/// task lists again (a verifier walking a history).
pub fn read_any_task_with(
    tree: &dyn SourceTree,
    unit: &str,
    task_id: &str,
    lists: &TaskLists,
) -> Result<TaskFacts, SpecError> {
    match TaskId::parse(task_id)? {
        TaskId::Bug(slug) => bug_task_facts(tree, unit, &slug),
        TaskId::Listed(_) => read_task_with(tree, unit, task_id, lists),
    }
}

/// Where task `task_id` of `unit` is written, as a file of `tree` and a 1-based line: its line in
/// the task list (only the task list is read, so a tick whose spec documents are gone is still
/// placed), or a bug task's assessment, line 1.
pub fn task_location(tree: &dyn SourceTree, unit: &str, task_id: &str) -> Result<(String, usize), SpecError> {
    match TaskId::parse(task_id)? {
        TaskId::Bug(slug) => {
            let facts = bug_task_facts(tree, unit, &slug)?;
            Ok((format!("{}/assessment.md", facts.tasks_path), 1))
        }
        TaskId::Listed(_) => {
            let (loc, _, index) = find_listed(tree, unit, task_id, &TaskLists::default())?;
            Ok((loc.tasks, index + 1))
        }
    }
}

/// The facts of every ticked task of `unit`, in line order; a unit without a task list has none.
/// A ticked task whose id appears on more than one task line is an error (it is ambiguous), and
/// so is a spec document a ticked task needs that cannot be read ([`read_task`]).
pub fn ticked_tasks(tree: &dyn SourceTree, unit: &str) -> Result<Vec<TaskFacts>, SpecError> {
    let Some((loc, text)) = unit_task_list(tree, unit)? else {
        return Ok(Vec::new());
    };
    let list = TaskList::read(text, loc.format);
    let lists = TaskLists::default();
    let mut docs = LazyDocs::new(tree, &loc, &lists);
    let mut out = Vec::new();
    for (index, task) in list.tasks().iter().filter(|(_, t)| t.ticked) {
        let same: Vec<usize> = list.lines_of(task.id).collect();
        if same.len() > 1 {
            return Err(duplicate(&loc, task.id, &same));
        }
        let read = Read {
            index: *index,
            line: list.line(*index),
            task: task.clone(),
            continuation: list.continuation(*index),
        };
        out.push(facts(&loc, &mut docs, &read)?);
    }
    Ok(out)
}

/// The line defining requirement `id` in `unit` (Spec Kit id such as `FR-001` in spec.md, or an
/// OpenSpec requirement name in the change's delta specs), trailing whitespace trimmed; Ok(None)
/// when no line defines it; a Spec Kit id that spec.md defines more than once is an error. The
/// drift check compares this line and the text beyond it ([`UnitDocs::requirement_body_hash`]).
pub fn requirement_line(tree: &dyn SourceTree, unit: &str, id: &str) -> Result<Option<String>, SpecError> {
    UnitDocs::of_unit(tree, unit)?.requirement_line(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::digest::sha256_hex;
    use crate::spec::tree::MemTree;
    use crate::spec::{ticked_ids, unread_ticks};

    const SPEC: &str = "# F\n\
        ## User Story 10 - Ten\n\
        ten body\n\
        ## User Story 1 - One\n\
        one body\n\
        ### Detail\n\
        deeper stays\n\
        ## Requirements\n\
        - **FR-001**: First.   \n";

    fn tree(tasks: &[u8]) -> MemTree {
        MemTree::from_files([("specs/001-x/spec.md", SPEC.as_bytes()), ("specs/001-x/tasks.md", tasks)])
            .unwrap()
    }

    /// A line of two story labels binds the first here, its title keeping the second; as the
    /// published speccoder read it, the last, with that story's text, and the title after both.
    #[test]
    fn a_task_of_two_story_labels_is_read_as_ours_and_as_the_published_speccoder_read_it() {
        let t = tree(b"- [x] T001 [US10][US1] Do (FR-001)\n- [ ] T002 [P] [US1] Plain\n");
        let facts = read_task(&t, "001-x", "T001").unwrap();
        assert_eq!((facts.story.as_deref(), facts.title.as_str()), (Some("US10"), "[US1] Do (FR-001)"));
        assert_eq!(facts.section_hash, sha256_hex("## User Story 10 - Ten\nten body"));
        let published = as_published(&t, &facts, &TaskLists::default()).unwrap().expect("read otherwise");
        assert_eq!((published.story.as_deref(), published.title.as_str()), (Some("US1"), "Do (FR-001)"));
        assert_eq!(published.section.as_deref(), Some("US1"));
        let us1 = "## User Story 1 - One\none body\n### Detail\ndeeper stays";
        assert_eq!(published.section_hash, sha256_hex(us1));
        assert_eq!((published.line_hash, published.requirements), (facts.line_hash, facts.requirements));
        let plain = read_task(&t, "001-x", "T002").unwrap();
        assert_eq!(plain.published, None);
        assert_eq!(as_published(&t, &plain, &TaskLists::default()).unwrap(), None);
    }

    #[test]
    fn a_crlf_task_list_yields_lines_without_endings_and_the_matching_story() {
        let t = tree(b"# T\r\n- [ ] T001 [US1] Do (FR-001, FR-404)\r\n");
        let facts = read_task(&t, "001-x", "T001").unwrap();
        assert_eq!(facts.line, "- [ ] T001 [US1] Do (FR-001, FR-404)");
        assert_eq!(facts.line_index, 1);
        assert_eq!(facts.line_hash, sha256_hex("- [ ] T001 [US1] Do (FR-001, FR-404)"));
        assert_eq!(
            facts.section_hash,
            sha256_hex("## User Story 1 - One\none body\n### Detail\ndeeper stays")
        );
        assert_eq!(facts.requirements.len(), 1);
        assert_eq!(facts.requirements[0].hash, sha256_hex("- **FR-001**: First."));
        assert_eq!(facts.uncited_unknown, ["FR-404"]);
    }

    #[test]
    fn a_requirement_cited_on_a_line_the_task_wraps_onto_is_traced_and_the_title_stays_the_first_line_s() {
        let t =
            tree(b"- [x] T001 Do the first part\n  and the rest (FR-001)\n  - [ ] T002 nested (FR-404)\n");
        let facts = read_task(&t, "001-x", "T001").unwrap();
        assert_eq!(
            (facts.title.as_str(), facts.line_hash),
            ("Do the first part", sha256_hex("- [ ] T001 Do the first part"))
        );
        assert_eq!(facts.continuation, ["  and the rest (FR-001)"]);
        let ids: Vec<&str> = facts.requirements.iter().map(|r| r.id.as_str()).collect();
        assert_eq!((ids, facts.uncited_unknown), (vec!["FR-001"], Vec::<String>::new()));
        // An OpenSpec requirement name wrapped over two lines is cited whole.
        let change = MemTree::from_files([
            ("openspec/changes/chg/tasks.md", "- [ ] 1.1 Build the tag\n  filter view\n"),
            (
                "openspec/changes/chg/specs/tags/spec.md",
                "## ADDED Requirements\n\n### Requirement: Tag filter view\nx\n",
            ),
        ])
        .unwrap();
        let facts = read_task(&change, "chg", "1.1").unwrap();
        assert_eq!(facts.requirements.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["Tag filter view"]);
    }

    #[test]
    fn an_openspec_id_asked_for_with_its_line_s_trailing_dot_is_refused_saying_to_leave_the_dot_out() {
        let t = MemTree::from_files([("openspec/changes/chg/tasks.md", "- [ ] 2.2. Integration tests\n")])
            .unwrap();
        let err = read_task(&t, "chg", "2.2.").unwrap_err();
        assert!(matches!(err, SpecError::BadTaskId { .. }), "{err:?}");
        assert!(err.to_string().contains("is not part of its id, so name it without"), "{err}");
        assert_eq!(read_task(&t, "chg", "2.2").unwrap().title, "Integration tests");
        let other = read_task(&t, "chg", "2.x").unwrap_err().to_string();
        assert!(!other.contains("trailing"), "{other}");
    }

    #[test]
    fn a_story_without_a_heading_hashes_the_whole_spec() {
        let facts = read_task(&tree(b"- [ ] T002 [US3] Three\n"), "001-x", "T002").unwrap();
        assert_eq!(facts.section.as_deref(), Some("US3"));
        assert_eq!(facts.section_hash, sha256_hex(SPEC));
    }

    #[test]
    fn duplicate_task_ids_are_ambiguous_and_name_their_lines() {
        let t = tree(b"- [ ] T001 a\n- [x] T001 b\n- [ ] T002 c\n");
        let err = read_task(&t, "001-x", "T001").unwrap_err();
        assert!(matches!(err, SpecError::DuplicateTask { .. }));
        assert!(err.to_string().contains("lines 1, 2"), "{err}");
        assert!(matches!(ticked_tasks(&t, "001-x"), Err(SpecError::DuplicateTask { .. })));
        assert!(read_task(&t, "001-x", "T002").is_ok());
    }

    #[test]
    fn a_task_list_that_is_not_utf8_names_the_file_and_the_byte_offset() {
        let err = read_task(&tree(b"- [ ] T001 ok\n- [ ] T002 \xc3(\n"), "001-x", "T001").unwrap_err();
        assert!(matches!(err, SpecError::NotUtf8 { offset: 25, .. }), "{err:?}");
        assert!(err.to_string().contains("specs/001-x/tasks.md"));
    }

    #[test]
    fn a_missing_task_list_is_an_error_for_one_task_and_empty_for_the_walk() {
        let t = MemTree::from_files([("specs/001-x/spec.md", SPEC)]).unwrap();
        assert!(matches!(read_task(&t, "001-x", "T001"), Err(SpecError::MissingFile { .. })));
        assert!(ticked_tasks(&t, "001-x").unwrap().is_empty());
    }

    #[test]
    fn a_story_task_without_spec_md_is_an_error_but_an_unlabelled_one_is_not() {
        let t = MemTree::from_files([(
            "specs/001-x/tasks.md",
            "- [ ] T001 [US1] Story\n- [ ] T002 Plain (FR-001)\n",
        )])
        .unwrap();
        let err = read_task(&t, "001-x", "T001").unwrap_err();
        assert_eq!(
            err.to_string(),
            "task `T001` (`specs/001-x/tasks.md` line 1) is labelled `[US1]`, so its story text is read \
             from `specs/001-x/spec.md`: `specs/001-x/spec.md` is missing: restore spec.md, or remove \
             the story label from the task line"
        );
        let plain = read_task(&t, "001-x", "T002").unwrap();
        assert_eq!(plain.uncited_unknown, ["FR-001"]);
    }

    #[test]
    fn a_task_that_needs_nothing_from_spec_md_reads_whatever_spec_md_is() {
        let t = MemTree::from_files([
            (
                "specs/001-x/tasks.md",
                &b"- [ ] T001 Plain\n- [ ] T002 Cites (FR-001)\n- [ ] T003 [US1] Story\n"[..],
            ),
            ("specs/001-x/spec.md", &b"\xff not UTF-8"[..]),
        ])
        .unwrap();
        let plain = read_task(&t, "001-x", "T001").unwrap();
        assert_eq!((plain.section, plain.section_hash), (None, sha256_hex("")));
        for (id, needs) in [("T002", "line 2) cites FR-001, whose"), ("T003", "line 3) is labelled `[US1]`")]
        {
            let err = read_task(&t, "001-x", id).unwrap_err();
            assert!(matches!(err, SpecError::TaskNeedsSpec { .. }), "{err:?}");
            let msg = err.to_string();
            assert!(msg.contains(needs) && msg.contains("is not valid UTF-8"), "{msg}");
        }
    }

    #[test]
    fn a_story_hashed_whole_says_so_in_its_facts() {
        let spec = "# Funcionalidad\n### Historia de usuario 1 - Crear\nTexto.\n";
        let t = MemTree::from_files([
            ("specs/001-x/tasks.md", "- [ ] T001 [US1] Crear\n- [ ] T002 Sin historia\n"),
            ("specs/001-x/spec.md", spec),
        ])
        .unwrap();
        let facts = read_task(&t, "001-x", "T001").unwrap();
        assert_eq!(facts.section_hash, sha256_hex(spec));
        let fallback = facts.story_fallback.expect("said");
        assert_eq!((fallback.label.as_str(), fallback.spec_md.as_str()), ("US1", "specs/001-x/spec.md"));
        let msg = fallback.message();
        for part in
            ["[US1]", "`specs/001-x/spec.md`", "`User Story 1`", "line 2 `### Historia de usuario 1 - Crear`"]
        {
            assert!(msg.contains(part), "{part}: {msg}");
        }
        assert_eq!(read_task(&t, "001-x", "T002").unwrap().story_fallback, None);
        assert_eq!(read_task(&tree(b"- [ ] T001 [US1] x\n"), "001-x", "T001").unwrap().story_fallback, None);
    }

    #[test]
    fn the_walk_returns_every_ticked_task_in_line_order() {
        let t = tree(b"- [X] T002 b\n- [ ] T001 a\n  * [x] T003 [US10] c\n");
        let ids: Vec<(String, Option<String>)> =
            ticked_tasks(&t, "001-x").unwrap().into_iter().map(|f| (f.id, f.section)).collect();
        assert_eq!(ids, [("T002".to_owned(), None), ("T003".to_owned(), Some("US10".to_owned()))]);
    }

    #[test]
    fn ticked_ids_are_the_walk_s_tasks_without_their_documents() {
        let t = tree(b"- [X] T002 b\n- [ ] T001 a\n  * [x] T003 [US10] c\n```\n- [x] T004 code\n```\n");
        assert_eq!(ticked_ids(&t, "001-x").unwrap(), ["T002", "T003"]);
        let bare = MemTree::from_files([("specs/001-x/spec.md", "")]).unwrap();
        assert!(ticked_ids(&bare, "001-x").unwrap().is_empty(), "no task list, no ticks");
    }

    #[test]
    fn an_unknown_task_in_an_empty_list_says_there_are_none() {
        let err = read_task(&tree(b"# nothing\n"), "001-x", "T001").unwrap_err();
        assert!(
            err.to_string().contains("tasks there: none; a Spec Kit task line reads `- [ ] T001 Title`"),
            "{err}"
        );
        let t = MemTree::from_files([("openspec/changes/c/tasks.md", "## 1. Impl\n")]).unwrap();
        let err = read_task(&t, "c", "1.1").unwrap_err();
        assert!(
            err.to_string().contains("tasks there: none; an OpenSpec task line reads `- [ ] 1.1 Title`"),
            "{err}"
        );
    }

    #[test]
    fn an_openspec_change_over_32_kib_is_hashed_cut_at_a_character_boundary() {
        let first = "openspec/changes/big/specs/a/spec.md";
        let second = "openspec/changes/big/specs/b/spec.md";
        let first_text = "## ADDED Requirements\n\n### Requirement: Small\nIt SHALL work.\n";
        let head = format!("## {first}\n\n{}\n\n## {second}\n\n", first_text.trim_end());
        // "é" is two bytes: the one that would cross byte 32768 is dropped whole.
        let odd = if head.len() % 2 == 0 { "x" } else { "" };
        let filler = format!("{odd}{}", "é".repeat((32768 - head.len()) / 2 + 10));
        let t = MemTree::from_files([
            ("openspec/changes/big/tasks.md", "## 1. Impl\n- [ ] 1.1 Do the small thing\n"),
            (second, filler.as_str()),
            (first, first_text),
        ])
        .unwrap();
        let facts = read_task(&t, "big", "1.1").unwrap();
        let mut kept = format!("{head}{filler}");
        let mut cut = 32768;
        while !kept.is_char_boundary(cut) {
            cut -= 1;
        }
        assert!(cut < 32768, "the test must straddle a character");
        kept.truncate(cut);
        let expected = format!("{kept}\n[truncated at 32768 bytes]");
        assert_eq!(facts.section_hash, sha256_hex(expected));
        assert_eq!(facts.section, None);
        let ids: Vec<&str> = facts.requirements.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["Small"]);
    }

    #[test]
    fn a_bug_task_reads_its_home_and_is_anchored_by_the_triad() {
        let t = MemTree::from_files([
            ("specs/001-x/spec.md", SPEC),
            (".specify/bugs/b-1/assessment.md", "# Crash on empty tag\n"),
            (".specify/bugs/b-1/fix.md", "F"),
            (".specify/bugs/b-1/test.md", "T"),
        ])
        .unwrap();
        let facts = read_any_task(&t, "001-x", "bug:b-1").unwrap();
        assert!(facts.is_trailer_only() && !facts.ticked);
        assert_eq!(facts.title, "Crash on empty tag");
        assert_eq!(facts.line_hash, sha256_hex("bug:b-1"));
        assert_eq!(facts.section_hash, bug_triad(&t, "b-1").unwrap().triad_sha256);
        assert!(matches!(read_any_task(&t, "002-y", "bug:b-1"), Err(SpecError::UnknownUnit { .. })));
        assert!(matches!(read_any_task(&t, "001-x", "bug:gone"), Err(SpecError::MissingFile { .. })));
    }

    #[test]
    fn bug_task_ids_are_recognised() {
        assert_eq!(TaskId::parse("bug:x-1").unwrap(), TaskId::Bug("x-1".into()));
        assert_eq!(TaskId::parse("T001").unwrap(), TaskId::Listed("T001".into()));
        assert!(TaskId::parse("bug:").is_err());
    }

    #[test]
    fn a_task_line_in_a_fence_or_comment_is_not_the_task_and_the_real_one_is_read() {
        let t = tree(
            b"```\n- [ ] T001 fenced\n```\n<!--\n- [ ] T001 commented\n-->\n- [ ] T001 real\n\n~~~\n- [ ] T002 only fenced\n",
        );
        let facts = read_task(&t, "001-x", "T001").unwrap();
        assert_eq!((facts.line_index, facts.title.as_str()), (6, "real"));
        let err = read_task(&t, "001-x", "T002").unwrap_err();
        assert!(matches!(err, SpecError::UnknownTask { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains("line 10 `- [ ] T002 only fenced` (it is inside a fenced code block"), "{msg}");
    }

    #[test]
    fn an_unknown_task_names_the_box_that_looks_like_it_first() {
        let t = tree(b"- [ ] T001 a\n1. [ ] T003 ordered\n+ [ ] T002 plus\n");
        let msg = read_task(&t, "001-x", "T002").unwrap_err().to_string();
        let at = msg.find("boxes not read as tasks: line 3 `+ [ ] T002 plus` (it has a `+` bullet");
        assert!(at.is_some(), "{msg}");
        assert!(msg.contains("line 2 `1. [ ] T003 ordered` (it is an ordered list item"), "{msg}");
        assert!(msg.contains("tasks there: T001;"), "{msg}");
    }

    #[test]
    fn checked_boxes_that_are_not_tasks_are_listed_with_their_lines_and_unchecked_ones_are_not() {
        let t = tree(
            "- [x] T001 fine\n- [x] \u{422}008 look-alike\n- [x] T009: punctuation\n+ [ ] T010 open\n<!-- - [x] T011 hidden -->\n"
                .as_bytes(),
        );
        let got: Vec<(usize, String)> =
            unread_ticks(&t, "001-x").unwrap().into_iter().map(|u| (u.line, u.reason)).collect();
        let lines: Vec<usize> = got.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [2, 3, 5], "{got:?}");
        assert!(got[0].1.contains("U+0422"), "{got:?}");
        assert!(got[1].1.contains("`T009` must be followed by a space"), "{got:?}");
        assert!(got[2].1.contains("HTML block or comment"), "{got:?}");
        let ticked: Vec<String> = ticked_tasks(&t, "001-x").unwrap().into_iter().map(|f| f.id).collect();
        assert_eq!(ticked, ["T001"]);
        assert!(
            unread_ticks(&MemTree::from_files([("specs/001-x/spec.md", SPEC)]).unwrap(), "001-x")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_bom_and_cr_only_endings_give_the_line_and_hash_without_either() {
        let t = tree("\u{feff}- [ ] T001 [US1] Do (FR-001)\r- [x] T002 Two\r".as_bytes());
        let facts = read_task(&t, "001-x", "T001").unwrap();
        assert_eq!((facts.line_index, facts.line.as_str()), (0, "- [ ] T001 [US1] Do (FR-001)"));
        assert_eq!(facts.line_hash, sha256_hex("- [ ] T001 [US1] Do (FR-001)"));
        let two = read_task(&t, "001-x", "T002").unwrap();
        assert_eq!((two.line_index, two.line_hash), (1, sha256_hex("- [ ] T002 Two")));
    }

    #[test]
    fn a_requirement_defined_twice_refuses_the_tasks_that_cite_it() {
        let spec = "# F\n- **FR-001**: First.\n- **FR-002**: Two.\n- **FR-001**: Again.\n";
        let t = MemTree::from_files([
            ("specs/001-x/spec.md", spec),
            ("specs/001-x/tasks.md", "- [x] T001 Cites it (FR-001)\n- [ ] T002 Not (FR-002)\n"),
        ])
        .unwrap();
        let err = read_task(&t, "001-x", "T001").unwrap_err();
        assert!(err.to_string().contains("`FR-001` is defined more than once"), "{err}");
        assert!(err.to_string().contains("lines 2, 4"), "{err}");
        let err = ticked_tasks(&t, "001-x").unwrap_err();
        assert!(
            matches!(&err, SpecError::TaskNeedsSpec { source, line: 1, .. } if matches!(**source, SpecError::DuplicateRequirement { .. })),
            "{err:?}"
        );
        assert!(
            err.to_string().contains("task `T001` (`specs/001-x/tasks.md` line 1) cites FR-001"),
            "{err}"
        );
        assert!(matches!(
            requirement_line(&t, "001-x", "FR-001"),
            Err(SpecError::DuplicateRequirement { .. })
        ));
        assert_eq!(read_task(&t, "001-x", "T002").unwrap().requirements[0].id, "FR-002");
    }

    #[test]
    fn a_task_list_over_the_limit_is_refused_by_the_writer_and_the_walk() {
        let big = format!("- [x] T001 a\n{}", " ".repeat(crate::spec::SPEC_FILE_LIMIT));
        let t = tree(big.as_bytes());
        assert!(matches!(read_task(&t, "001-x", "T001"), Err(SpecError::FileTooLarge { .. })));
        assert!(matches!(ticked_tasks(&t, "001-x"), Err(SpecError::FileTooLarge { .. })));
        assert!(matches!(unread_ticks(&t, "001-x"), Err(SpecError::FileTooLarge { .. })));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_task_list_or_unit_directory_is_refused_not_taken_for_absent() {
        use crate::spec::FsTree;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("specs/001-x")).unwrap();
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::fs::write(root.join("elsewhere/tasks.md"), "- [x] T001 a\n").unwrap();
        std::os::unix::fs::symlink("../../elsewhere/tasks.md", root.join("specs/001-x/tasks.md")).unwrap();
        let fs = FsTree::new(root);
        for err in [
            read_task(&fs, "001-x", "T001").unwrap_err(),
            ticked_tasks(&fs, "001-x").unwrap_err(),
            unread_ticks(&fs, "001-x").unwrap_err(),
        ] {
            assert!(matches!(err, SpecError::SymbolicLink { .. }), "{err:?}");
            assert!(err.to_string().contains("`specs/001-x/tasks.md` is a symbolic link"), "{err}");
        }
        std::os::unix::fs::symlink("../elsewhere", root.join("specs/002-y")).unwrap();
        let err = read_task(&fs, "002-y", "T001").unwrap_err();
        assert!(err.to_string().contains("`specs/002-y` is a symbolic link"), "{err}");
        let err = crate::spec::list_units(&fs).unwrap_err();
        assert!(err.to_string().contains("`specs/002-y` is a symbolic link"), "{err}");
    }

    #[test]
    fn a_gitlink_where_a_task_list_is_read_is_refused_by_every_reader_of_a_git_tree() {
        let fx = crate::git::test_support::Fixture::new();
        let other = fx.commit_file("other.md", "x\n", "a commit for the gitlink to name").to_string();
        fx.write("specs/001-x/spec.md", SPEC);
        fx.git(&["add", "specs"]);
        fx.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{other},specs/001-x/tasks.md")]);
        fx.git(&["commit", "-q", "-m", "a gitlink where the task list would be"]);
        assert!(fx.git(&["ls-tree", "HEAD", "specs/001-x/tasks.md"]).starts_with("160000 commit "));
        let repo = fx.repo();
        let tree = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
        let loc = locate_unit(&tree, "001-x").unwrap();
        for err in [
            read_task_list_at(&tree, &loc.tasks).unwrap_err(),
            read_task(&tree, "001-x", "T001").unwrap_err(),
            ticked_tasks(&tree, "001-x").unwrap_err(),
            unread_ticks(&tree, "001-x").unwrap_err(),
            crate::spec::unit_ticks(&tree, &loc).unwrap_err(),
        ] {
            assert!(matches!(err, SpecError::Submodule { kind: "file", .. }), "{err:?}");
            assert!(err.to_string().contains("`specs/001-x/tasks.md` is a submodule"), "{err}");
        }
    }

    #[test]
    fn a_task_s_facts_read_through_lists_that_kept_its_unit_s_documents_are_the_facts_read_afresh() {
        let lists = TaskLists::default();
        let ticks = [
            "- [x] T001 [US1] One (FR-001)\n- [ ] T002 [US10] Ten\n",
            "- [x] T001 [US1] One (FR-001)\n- [x] T002 [US10] Ten\n",
        ];
        for tasks in ticks {
            for id in ["T001", "T002"] {
                let through = read_any_task_with(&tree(tasks.as_bytes()), "001-x", id, &lists).unwrap();
                assert_eq!(through, read_task(&tree(tasks.as_bytes()), "001-x", id).unwrap(), "{id}");
            }
        }
        let changed = MemTree::from_files([
            ("specs/001-x/spec.md", SPEC.replace("First.", "Firstly.").replace("one body", "one story")),
            ("specs/001-x/tasks.md", ticks[1].to_owned()),
        ])
        .unwrap();
        let kept = read_any_task_with(&tree(ticks[1].as_bytes()), "001-x", "T001", &lists).unwrap();
        let anew = read_any_task_with(&changed, "001-x", "T001", &lists).unwrap();
        assert_eq!(anew, read_task(&changed, "001-x", "T001").unwrap());
        assert_ne!(anew.requirements, kept.requirements, "the changed spec.md's definition");
        assert_ne!(anew.section_hash, kept.section_hash, "the changed spec.md's story");
    }
}
