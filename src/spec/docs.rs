//! The documents a unit's hashes are computed from, derived once per text (a verifier's
//! [`super::TaskLists`] keeps the latest): Spec Kit's spec.md, or an OpenSpec change's delta specs.

use std::borrow::Cow;
use std::sync::{Mutex, OnceLock, PoisonError};

use crate::model::digest::sha256_hex;

use super::error::SpecError;
use super::requirement::{
    DefinedAt, Definition, Form, Requirement, WrapLines, in_literal, literal_ranges, openspec_citations,
    openspec_defined, paragraph_ranges, speckit_citations, speckit_cited_ids, speckit_defined,
    speckit_definition, speckit_section, speckit_wrapped,
};
use super::section::{
    Delta, DeltaSection, StoryFallback, delta_sections, openspec_change_text, speckit_story,
};
use super::text::{DELTAS_LIMIT, heading_level, read_text};
use super::tree::{EntryKind, SourceTree, join};
use super::unit::{Format, UnitLoc, locate_unit};

/// What [`UnitDocs::requirement_section`] says of a requirement under no delta section (before
/// the first, or under another heading), which openspec reads as no delta of the change.
pub const NO_DELTA_SECTION: &str = "no delta section";

/// How many story sections a [`UnitDocs`] keeps: a unit's stories are a few; a task list naming
/// more has the others' found anew each time.
const SECTIONS_KEPT: usize = 32;

/// The spec documents of one unit, with their requirement definitions found once: a task's
/// citations and a drift check's requirement lines are looked up among them.
#[derive(Debug)]
pub struct UnitDocs {
    /// Spec Kit: spec.md's path and its text when present; `None` for OpenSpec.
    spec_md: Option<(String, Option<String>)>,
    /// OpenSpec: every delta spec of the change, sorted by path; empty for Spec Kit.
    deltas: Vec<Delta>,
    /// OpenSpec: the folder of those delta specs (`<change>/specs`), which each capability's name
    /// is read from ([`Self::requirement_capability`]); empty for Spec Kit.
    deltas_dir: String,
    /// OpenSpec: the section hash, the same for every task of the change.
    change_hash: Option<String>,
    /// Every requirement definition of the documents above, found when they were read, in the
    /// order citations are searched: the document's position in `deltas` (0 for spec.md) and
    /// where in its text.
    defined: Vec<(usize, DefinedAt)>,
    /// Where in `defined` each id is defined, built once for every lookup ([`Self::defined_as`]).
    by_id: OnceLock<std::collections::HashMap<String, Vec<usize>>>,
    /// Each document's code, comments and unshown HTML ([`literal_ranges`]), where no line is a
    /// heading: every OpenSpec delta's; spec.md's where a heading defines a requirement, whose
    /// section no heading there ends ([`speckit_section`]), else none.
    literals: Vec<Vec<std::ops::Range<usize>>>,
    /// Spec Kit: spec.md's paragraphs ([`paragraph_ranges`]), found on the first question of a
    /// requirement that may wrap ([`speckit_wrapped`]).
    paragraphs: OnceLock<Vec<std::ops::Range<usize>>>,
    /// Spec Kit: spec.md's lines as its requirements' bodies read them ([`WrapLines`]), read on
    /// the first question of a body, so that every body is found without reading its lines again.
    wrap_lines: OnceLock<WrapLines>,
    /// OpenSpec: each delta's sections and their operations ([`delta_sections`]), found on the
    /// first question of the section a requirement sits under.
    delta_sections: OnceLock<Vec<Vec<DeltaSection>>>,
    /// Spec Kit: the sections of the stories asked for, by label, at most `SECTIONS_KEPT`.
    sections: Mutex<Vec<(String, Section)>>,
}

/// The texts of a unit's documents as read from a tree: what a [`UnitDocs`] is derived from.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DocTexts {
    /// Spec Kit: spec.md's path, and its text when present.
    SpecKit(String, Option<String>),
    /// OpenSpec: the folder of the change's delta specs (`<change>/specs`), and every delta spec
    /// under it, sorted by path.
    OpenSpec(String, Vec<Delta>),
}

impl DocTexts {
    /// Reads the documents of `loc` from `tree`.
    pub(crate) fn read(tree: &dyn SourceTree, loc: &UnitLoc) -> Result<Self, SpecError> {
        Ok(match loc.format {
            Format::SpecKit => {
                let path = loc.spec_md();
                let text = read_text(tree, &path, "spec.md")?;
                DocTexts::SpecKit(path, text)
            }
            Format::OpenSpec => {
                let dir = loc.deltas_dir();
                let deltas = read_deltas(tree, &dir)?;
                DocTexts::OpenSpec(dir, deltas)
            }
        })
    }

    /// How many bytes of text these are.
    pub(crate) fn text_bytes(&self) -> usize {
        match self {
            DocTexts::SpecKit(_, text) => text.as_ref().map_or(0, String::len),
            DocTexts::OpenSpec(_, deltas) => deltas.iter().map(|d| d.text.len()).sum(),
        }
    }
}

/// What a task's section is: its name (`US1` or none) and the sha256 of its text.
#[derive(Debug, Clone)]
pub(crate) struct Section {
    /// `spec.section`: `USn` for a labelled Spec Kit task, otherwise None.
    pub(crate) name: Option<String>,
    /// `spec.section_hash`.
    pub(crate) hash: String,
    /// Set when the story's text is the whole spec.md: why.
    pub(crate) fallback: Option<StoryFallback>,
}

impl UnitDocs {
    /// The documents of `unit` in `tree`.
    ///
    /// # Errors
    /// An unknown or hostile unit, or a document that cannot be read (see [`UnitDocs::load`]).
    pub fn of_unit(tree: &dyn SourceTree, unit: &str) -> Result<Self, SpecError> {
        Self::load(tree, &locate_unit(tree, unit)?)
    }

    /// Reads the documents of `loc` from `tree`.
    pub(crate) fn load(tree: &dyn SourceTree, loc: &UnitLoc) -> Result<Self, SpecError> {
        Ok(Self::derive(DocTexts::read(tree, loc)?))
    }

    /// The documents `texts` hold, their requirement definitions found.
    pub(crate) fn derive(texts: DocTexts) -> Self {
        let (spec_md, (deltas_dir, deltas), change_hash, defined, literals) = match texts {
            DocTexts::SpecKit(path, text) => {
                let defined = text.as_deref().map(speckit_defined).unwrap_or_default();
                let sections = defined.iter().any(|at| at.form() == Form::Heading);
                let literals = text.as_deref().filter(|_| sections).map(literal_ranges).into_iter().collect();
                let defined = defined.into_iter().map(|at| (0, at)).collect();
                (Some((path, text)), (String::new(), Vec::new()), None, defined, literals)
            }
            DocTexts::OpenSpec(dir, deltas) => {
                let change_hash = sha256_hex(openspec_change_text(&deltas));
                let literals: Vec<_> = deltas.iter().map(|d| literal_ranges(&d.text)).collect();
                let defined = openspec_defined(&deltas, &literals);
                (None, (dir, deltas), Some(change_hash), defined, literals)
            }
        };
        let (by_id, paragraphs, sections) = (OnceLock::new(), OnceLock::new(), Mutex::default());
        let (wrap_lines, delta_sections) = (OnceLock::new(), OnceLock::new());
        Self {
            spec_md,
            deltas,
            deltas_dir,
            change_hash,
            defined,
            by_id,
            literals,
            paragraphs,
            wrap_lines,
            delta_sections,
            sections,
        }
    }

    /// Whether these are the documents `texts` hold: the same format, paths and texts, so that
    /// every fact derived here is the one a derivation of `texts` would give.
    pub(crate) fn is_derived_from(&self, texts: &DocTexts) -> bool {
        match texts {
            DocTexts::SpecKit(path, text) => {
                self.spec_md.as_ref().is_some_and(|(ours, our_text)| ours == path && our_text == text)
            }
            DocTexts::OpenSpec(dir, deltas) => {
                self.spec_md.is_none() && self.deltas_dir == *dir && self.deltas == *deltas
            }
        }
    }

    /// The section of a task labelled with `story` (Spec Kit `USn`; ignored for OpenSpec): a
    /// story's found once ([`Self::story_section`]), then kept.
    pub(crate) fn section(&self, story: Option<&str>) -> Result<Section, SpecError> {
        if let Some(hash) = &self.change_hash {
            return Ok(Section { name: None, hash: hash.clone(), fallback: None });
        }
        let Some(story) = story else {
            return Ok(Section { name: None, hash: sha256_hex(""), fallback: None });
        };
        let mut sections = self.sections.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, kept)) = sections.iter().find(|(label, _)| label == story) {
            return Ok(kept.clone());
        }
        let section = self.story_section(story)?;
        if sections.len() < SECTIONS_KEPT {
            sections.push((story.to_owned(), section.clone()));
        }
        Ok(section)
    }

    /// The section of story `story` of a Spec Kit unit's spec.md, found anew.
    fn story_section(&self, story: &str) -> Result<Section, SpecError> {
        match &self.spec_md {
            Some((path, Some(text))) => {
                let (text, why) = speckit_story(text, story);
                Ok(Section {
                    name: Some(story.to_owned()),
                    hash: sha256_hex(text),
                    fallback: why.map(|why| StoryFallback {
                        label: story.to_owned(),
                        spec_md: path.clone(),
                        why,
                    }),
                })
            }
            Some((path, None)) => Err(SpecError::MissingFile {
                path: path.clone(),
                hint: "restore spec.md, or remove the story label from the task line",
            }),
            None => Ok(Section { name: None, hash: sha256_hex(""), fallback: None }),
        }
    }

    /// The requirement definitions, as they read in their documents.
    fn definitions(&self) -> Vec<Definition<'_>> {
        self.defined.iter().filter_map(|(doc, at)| self.text(*doc).map(|text| at.in_text(text))).collect()
    }

    /// The definitions of `id` alone, in the order citations are searched ([`Self::defined_as`]).
    fn definitions_of(&self, id: &str) -> Vec<Definition<'_>> {
        self.defined_as(id).map(|(_, text, at)| at.in_text(text)).collect()
    }

    /// Where `id` is defined, in the order citations are searched: each document's position,
    /// text, and place in it. Looked up in `by_id`, made on the first question and used by every
    /// lookup of one id, so that many ids search the definitions once, not once an id.
    fn defined_as(&self, id: &str) -> impl Iterator<Item = (usize, &str, &DefinedAt)> {
        let by_id = self.by_id.get_or_init(|| {
            let mut by_id: std::collections::HashMap<String, Vec<usize>> = std::collections::HashMap::new();
            for (at, (doc, defined)) in self.defined.iter().enumerate() {
                if let Some(text) = self.text(*doc) {
                    by_id.entry(defined.in_text(text).0.to_owned()).or_default().push(at);
                }
            }
            by_id
        });
        by_id
            .get(id)
            .into_iter()
            .flatten()
            .filter_map(|at| self.defined.get(*at))
            .filter_map(|(doc, defined)| Some((*doc, self.text(*doc)?, defined)))
    }

    /// The text of document `doc` (see `defined`).
    fn text(&self, doc: usize) -> Option<&str> {
        match &self.spec_md {
            Some((_, text)) => text.as_deref(),
            None => self.deltas.get(doc).map(|d| d.text.as_str()),
        }
    }

    /// The requirements `text` (a task's title, with the lines it wraps onto) cites, each with its
    /// body ([`Self::requirement_body_hash`]), and the cited ids that no line defines. A cited Spec
    /// Kit id that spec.md defines more than once is refused.
    pub(crate) fn citations(&self, text: &str) -> Result<(Vec<Requirement>, Vec<String>), SpecError> {
        let (mut cited, unknown) = match &self.spec_md {
            Some((path, _)) => speckit_citations(text, |id| self.definitions_of(id), path)?,
            None => (openspec_citations(text, &self.definitions())?, Vec::new()),
        };
        for requirement in &mut cited {
            requirement.body = self.requirement_body_hash(&requirement.id);
            requirement.section = self.requirement_section(&requirement.id);
            requirement.capability = self.requirement_capability(&requirement.id);
        }
        Ok((cited, unknown))
    }

    /// The ids `text` (a task's title, with the lines it wraps onto) cites as these documents
    /// read it, in the order [`Self::citations`] finds them: Spec Kit's by their shape, defined or
    /// not; OpenSpec's the names of the requirements defined here that it holds as whole words.
    ///
    /// # Errors
    /// [`SpecError::CitationsTooCostly`], for OpenSpec names too many to search `text` for.
    pub fn cited_ids(&self, text: &str) -> Result<Vec<String>, SpecError> {
        if self.spec_md.is_some() {
            return Ok(speckit_cited_ids(text));
        }
        Ok(openspec_citations(text, &self.definitions())?.into_iter().map(|r| r.id).collect())
    }

    /// Whether these are a Spec Kit unit's documents (spec.md), not an OpenSpec change's.
    #[must_use]
    pub fn is_spec_kit(&self) -> bool {
        self.spec_md.is_some()
    }

    /// The line defining requirement `id`, trailing whitespace trimmed. Spec Kit: an id defined
    /// more than once is refused; OpenSpec: the first in path order.
    ///
    /// # Errors
    /// A Spec Kit id that spec.md defines on more than one line.
    pub fn requirement_line(&self, id: &str) -> Result<Option<String>, SpecError> {
        let defs = self.definitions_of(id);
        let line = match &self.spec_md {
            Some((path, _)) => speckit_definition(&defs, id, path)?,
            None => defs.iter().find(|(def, _, _)| *def == id).map(|(_, line, _)| *line),
        };
        Ok(line.map(|line| line.trim_end().to_owned()))
    }

    /// The sha256 of requirement `id`'s body, for a drift check beside its defining line (whose
    /// hash, `requirement_hash`, it never changes). For OpenSpec, where the `### Requirement:` line
    /// only names the requirement, the lines after it up to the next heading of level 1 to 3 (its
    /// statement and its scenarios), each without trailing whitespace, blank lines at the end
    /// dropped. For Spec Kit, as the form of its definition has it ([`Self::speckit_body`]): the
    /// lines its paragraph wraps onto after the defining line, as CommonMark continues a paragraph
    /// or a list item's paragraph ([`speckit_wrapped`]), each trimmed (the hash of the empty text
    /// for a requirement of one line); a heading's section ([`speckit_section`]); for a table's
    /// row, whose cells are all on its line, the hash of the empty text. A name defined more than
    /// once (two capabilities' deltas, or one twice) has the bodies of every definition, in path
    /// order, each after its defining line: a change to any of them is a change. `None` for a name
    /// no document defines.
    #[must_use]
    pub fn requirement_body_hash(&self, id: &str) -> Option<String> {
        let bodies: Vec<(String, Cow<'_, str>)> =
            self.defined_as(id).map(|(doc, text, at)| self.body(doc, text, at)).collect();
        match bodies.as_slice() {
            [] => None,
            [(_, one)] => Some(sha256_hex(one.as_bytes())),
            several => {
                let joined: Vec<String> =
                    several.iter().map(|(line, body)| format!("{line}\n{body}")).collect();
                Some(sha256_hex(joined.join("\n\n")))
            }
        }
    }

    /// The delta section OpenSpec requirement `id` sits under, as openspec reads the change
    /// ([`delta_sections`]): its operation (`ADDED`, `MODIFIED`, `REMOVED`, `RENAMED`), or
    /// [`NO_DELTA_SECTION`]; for a name defined more than once, each definition's in path order,
    /// joined by `, `. `None` for Spec Kit, and for a name no document defines.
    #[must_use]
    pub fn requirement_section(&self, id: &str) -> Option<String> {
        if self.spec_md.is_some() {
            return None;
        }
        let sections = self.delta_sections.get_or_init(|| {
            let literal = |doc: usize| self.literals.get(doc).map_or(&[][..], Vec::as_slice);
            self.deltas.iter().enumerate().map(|(doc, d)| delta_sections(&d.text, literal(doc))).collect()
        });
        let under = |doc: usize, at: &DefinedAt| {
            let sections = sections.get(doc).map_or(&[][..], Vec::as_slice);
            let before = sections.partition_point(|(start, _)| *start < at.start());
            before.checked_sub(1).and_then(|last| sections.get(last)?.1).unwrap_or(NO_DELTA_SECTION)
        };
        let each: Vec<&str> = self.defined_as(id).map(|(doc, _, at)| under(doc, at)).collect();
        (!each.is_empty()).then(|| each.join(", "))
    }

    /// The capability OpenSpec requirement `id` is defined for, which openspec applies it to: its
    /// delta spec's folder below the change's `specs/` (`auth` for `<change>/specs/auth/spec.md`,
    /// `area/auth` for a nested one), the same after the change is archived; empty for a spec.md
    /// directly in `specs/`, which openspec reads for no capability. For a name defined more than
    /// once, each definition's in path order, joined by `, ` (as [`Self::requirement_section`]).
    /// `None` for Spec Kit, and for a name no document defines.
    #[must_use]
    pub fn requirement_capability(&self, id: &str) -> Option<String> {
        if self.spec_md.is_some() {
            return None;
        }
        let capability = |doc: usize| {
            let path = self.deltas.get(doc).map_or("", |d| d.path.as_str());
            let below = path.strip_prefix(self.deltas_dir.as_str()).and_then(|p| p.strip_prefix('/'));
            let below = below.unwrap_or(path);
            below.strip_suffix("spec.md").map_or(below, |dir| dir.strip_suffix('/').unwrap_or(dir))
        };
        let each: Vec<&str> = self.defined_as(id).map(|(doc, _, _)| capability(doc)).collect();
        (!each.is_empty()).then(|| each.join(", "))
    }

    /// The defining line (trimmed) and the body after it of the requirement defined at `at` in
    /// document `doc`, whose text is `text` ([`Self::requirement_body_hash`]): read from its own
    /// line on.
    fn body<'s>(&'s self, doc: usize, text: &'s str, at: &DefinedAt) -> (String, Cow<'s, str>) {
        let (_, line, _) = at.in_text(text);
        let literal = self.literals.get(doc).map_or(&[][..], Vec::as_slice);
        if self.spec_md.is_some() {
            return (line.trim_end().to_owned(), self.speckit_body(text, at, literal));
        }
        let ends = |(start, line): &(usize, &str)| {
            heading_level(line).is_some_and(|level| level <= 3) && !in_literal(literal, *start)
        };
        let mut body: Vec<&str> =
            at.lines_after(text).take_while(|l| !ends(l)).map(|(_, line)| line.trim_end()).collect();
        while body.last().is_some_and(|l| l.is_empty()) {
            body.pop();
        }
        (line.trim_end().to_owned(), Cow::Owned(body.join("\n")))
    }

    /// The text beyond its defining line of the Spec Kit requirement defined at `at` in spec.md,
    /// whose text is `text` and code `literal`, as its form has it ([`Form`]): the rest of the
    /// paragraph of a line or an item ([`speckit_wrapped`]), a heading's section up to the next
    /// definition ([`speckit_section`]), nothing for a table's row.
    fn speckit_body<'s>(
        &'s self,
        text: &'s str,
        at: &DefinedAt,
        literal: &[std::ops::Range<usize>],
    ) -> Cow<'s, str> {
        match at.form() {
            Form::Template | Form::Item => {
                let paragraphs = || self.paragraphs.get_or_init(|| paragraph_ranges(text)).as_slice();
                let lines = self.wrap_lines.get_or_init(|| WrapLines::new(text));
                Cow::Borrowed(speckit_wrapped(lines, text, at, paragraphs))
            }
            Form::Heading => {
                let after = self.defined.partition_point(|(_, def)| def.start() <= at.start());
                let next = self.defined.get(after).map(|(_, def)| def.start());
                Cow::Owned(speckit_section(text, at, next, literal))
            }
            Form::Row => Cow::Borrowed(""),
        }
    }
}

/// Every file named `spec.md` at any depth under `dir` (including `dir/spec.md`), sorted by path,
/// at most [`DELTAS_LIMIT`] bytes of them together. Walks with an explicit stack, so a deep tree
/// cannot exhaust the call stack.
pub(crate) fn read_deltas(tree: &dyn SourceTree, dir: &str) -> Result<Vec<Delta>, SpecError> {
    let mut out = Vec::new();
    let mut held = 0;
    let mut pending = vec![dir.to_owned()];
    while let Some(at) = pending.pop() {
        for (name, kind) in tree.entries(&at)?.unwrap_or_default() {
            let path = join(&at, &name);
            if kind == EntryKind::Dir {
                pending.push(path);
            } else if name == "spec.md"
                && let Some(text) = read_text(tree, &path, "a delta spec")?
            {
                held += text.len();
                if held > DELTAS_LIMIT {
                    return Err(SpecError::DeltasTooLarge {
                        dir: dir.to_owned(),
                        count: out.len() + 1,
                        limit: DELTAS_LIMIT,
                    });
                }
                out.push(Delta { path, text });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::tree::MemTree;

    #[test]
    fn delta_specs_are_found_at_any_depth_and_sorted_by_path() {
        let tree = MemTree::from_files([
            ("c/specs/b/spec.md", "B"),
            ("c/specs/a/deep/spec.md", "AD"),
            ("c/specs/a/notes.md", "no"),
            ("c/specs/spec.md", "TOP"),
            ("c/tasks.md", "no"),
        ])
        .unwrap();
        let got: Vec<(String, String)> =
            read_deltas(&tree, "c/specs").unwrap().into_iter().map(|d| (d.path, d.text)).collect();
        assert_eq!(
            got,
            [
                ("c/specs/a/deep/spec.md".to_owned(), "AD".to_owned()),
                ("c/specs/b/spec.md".to_owned(), "B".to_owned()),
                ("c/specs/spec.md".to_owned(), "TOP".to_owned()),
            ]
        );
        assert!(read_deltas(&tree, "missing").unwrap().is_empty());
    }

    #[test]
    fn a_change_whose_delta_specs_together_pass_the_limit_is_refused_naming_its_folder() {
        let full = format!("### Requirement: R\n{}", "x".repeat(crate::spec::SPEC_FILE_LIMIT - 20));
        let change = |folders: usize| {
            let files = (0..folders).map(|n| (format!("c/specs/cap{n}/spec.md"), full.clone()));
            read_deltas(&MemTree::from_files(files).unwrap(), "c/specs")
        };
        let fit = DELTAS_LIMIT / full.len();
        assert_eq!(change(fit).unwrap().len(), fit);
        let err = change(fit + 1).unwrap_err();
        assert!(
            matches!(&err, SpecError::DeltasTooLarge { dir, count, .. } if dir == "c/specs" && *count == fit + 1),
            "{err}"
        );
        assert!(err.to_string().contains("split the change"), "{err}");
    }

    #[test]
    fn a_change_s_delta_folders_are_found_with_as_few_reads_of_each_tree_however_many_there_are() {
        let most_reads = |deltas: usize| {
            let fx = crate::git::test_support::Fixture::new();
            for n in 0..deltas {
                fx.write(
                    &format!("openspec/changes/c/specs/cap{n}/spec.md"),
                    format!("### Requirement: R{n}\n"),
                );
            }
            fx.git(&["add", "."]);
            fx.git(&["commit", "-q", "-m", "deltas"]);
            let repo = fx.repo();
            let view = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
            assert_eq!(read_deltas(&view, "openspec/changes/c/specs").unwrap().len(), deltas);
            view.most_reads_of_a_tree()
        };
        assert_eq!(
            most_reads(40),
            most_reads(4),
            "the `specs` folder is read as often for 40 deltas as for 4"
        );
    }

    #[test]
    fn a_title_citing_many_ids_searches_each_id_s_own_definitions_only() {
        let searched = |ids: usize| {
            let spec: String = (0..ids).map(|n| format!("- **FR-{n:03}**: System MUST {n}.\n")).collect();
            let tree =
                MemTree::from_files([("specs/001-x/spec.md", spec), ("specs/001-x/tasks.md", String::new())])
                    .unwrap();
            let docs = UnitDocs::of_unit(&tree, "001-x").unwrap();
            let title: Vec<String> = (0..ids).map(|n| format!("FR-{n:03}")).collect();
            let before = crate::spec::requirement::SEARCHED.with(std::cell::Cell::get);
            let (found, unknown) = docs.citations(&format!("Do it ({})", title.join(", "))).unwrap();
            assert_eq!((found.len(), unknown.len()), (ids, 0));
            crate::spec::requirement::SEARCHED.with(std::cell::Cell::get) - before
        };
        assert_eq!(searched(40), 40, "one definition searched for each of 40 cited ids");
        assert_eq!(searched(4), 4);
    }

    fn speckit_docs(spec: &str) -> UnitDocs {
        let t = MemTree::from_files([("specs/001-x/spec.md", spec), ("specs/001-x/tasks.md", "")]).unwrap();
        UnitDocs::of_unit(&t, "001-x").unwrap()
    }

    #[test]
    fn a_spec_kit_requirement_s_body_is_what_its_paragraph_wraps_onto_never_a_nested_list_or_the_next_item() {
        let spec = "## Requirements\n\n- **FR-001**: System MUST let a reader attach\n  one or more tags.\n  - a nested note\n- **FR-002**: Lowercase.\nlazy line of FR-002\n\nAfter the list.\n";
        let docs = speckit_docs(spec);
        assert_eq!(docs.requirement_body_hash("FR-001"), Some(sha256_hex("one or more tags.")));
        assert_eq!(docs.requirement_body_hash("FR-002"), Some(sha256_hex("lazy line of FR-002")));
        // Cited, it keeps its defining line's hash, and carries its body beside it.
        let (found, _) = docs.citations("Do it (FR-001)").unwrap();
        assert_eq!(found[0].hash, sha256_hex("- **FR-001**: System MUST let a reader attach"));
        assert_eq!(found[0].body, docs.requirement_body_hash("FR-001"));
        // Indentation is no part of the wrapped text.
        let indented = speckit_docs(&spec.replace("  one or more", "      one or more"));
        assert_eq!(indented.requirement_body_hash("FR-001"), docs.requirement_body_hash("FR-001"));
        let crlf = speckit_docs(&spec.replace('\n', "\r\n"));
        assert_eq!(crlf.requirement_body_hash("FR-001"), docs.requirement_body_hash("FR-001"));
    }

    #[test]
    fn a_heading_s_requirement_has_its_section_for_body_an_item_its_paragraph_and_a_row_none() {
        let spec = "## Requirements\n\n#### FR-005: Export\n\nThe system MUST export CSV.\n  Wrapped.\n\n```\n# a fence's line\n```\n- detail\n\n##### Notes\nnested\n\n#### FR-006: Heading alone\n#### FR-007: Next\nIts text.\nFR-008: An item under it.\nwrapped\n\n| ID | Req |\n|---|---|\n| FR-09 | Row text |\n| FR-10 | Other |\n";
        let docs = speckit_docs(spec);
        let body = |id: &str| docs.requirement_body_hash(id);
        let section = "The system MUST export CSV.\nWrapped.\n\n```\n# a fence's line\n```\n- detail\n\n##### Notes\nnested";
        assert_eq!(body("FR-005"), Some(sha256_hex(section)), "to the next heading of its level");
        assert_eq!(body("FR-006"), Some(sha256_hex("")), "nothing under it");
        assert_eq!(body("FR-007"), Some(sha256_hex("Its text.")), "to the next definition");
        assert_eq!(body("FR-008"), Some(sha256_hex("wrapped")), "an item's paragraph");
        assert_eq!(body("FR-09"), Some(sha256_hex("")), "a row's cells are its line");
        assert_eq!(docs.requirement_line("FR-09").unwrap().as_deref(), Some("| FR-09 | Row text |"));
        assert_eq!(docs.requirement_line("FR-005").unwrap().as_deref(), Some("#### FR-005: Export"));
        let (cited, unknown) = docs.citations("Do it (FR-005, FR-09, FR-404)").unwrap();
        let hashes: Vec<&str> = cited.iter().map(|r| r.hash.as_str()).collect();
        assert_eq!(hashes, [sha256_hex("#### FR-005: Export"), sha256_hex("| FR-09 | Row text |")]);
        assert_eq!(unknown, ["FR-404"]);
        // A line of the section reworded is a change of its body; a row's of its line.
        let reworded = speckit_docs(&spec.replace("- detail", "- other detail"));
        assert_ne!(reworded.requirement_body_hash("FR-005"), body("FR-005"));
        let row = speckit_docs(&spec.replace("Row text", "Row wording"));
        assert_eq!(row.requirement_line("FR-09").unwrap().as_deref(), Some("| FR-09 | Row wording |"));
    }

    #[test]
    fn a_spec_kit_requirement_of_one_line_has_the_empty_body_whatever_follows_it_in_another_block() {
        let empty = Some(sha256_hex(""));
        for spec in [
            "- **FR-001**: One line.\n- **FR-002**: Two.\n",
            "- **FR-001**: One line.\n### Key Entities\n",
            "- **FR-001**: One line.\n\nA paragraph.\n",
            "- **FR-001**: One line.",
        ] {
            assert_eq!(speckit_docs(spec).requirement_body_hash("FR-001"), empty, "{spec:?}");
        }
        // A line in a fence defines nothing, so it has no body either.
        let fenced = speckit_docs("```\n- **FR-001**: In a fence.\nnot wrapped\n```\n");
        assert_eq!(fenced.requirement_body_hash("FR-001"), None);
        // A line defining another requirement starts that one, though CommonMark continues the
        // paragraph with it.
        let plain = speckit_docs("**FR-001**: First\n**FR-002**: Second\nwrapped\n");
        assert_eq!(plain.requirement_body_hash("FR-001"), empty);
        assert_eq!(plain.requirement_body_hash("FR-002"), Some(sha256_hex("wrapped")));
        assert_eq!(plain.requirement_body_hash("FR-003"), None);
    }

    #[test]
    fn a_requirement_a_fullwidth_colon_follows_begins_a_requirement_of_its_own_as_an_ascii_colon_does() {
        // Chinese and Japanese write the colon fullwidth: FR-002 is no wrapped line of FR-001's.
        let empty = Some(sha256_hex(""));
        for spec in [
            "**FR-001**：系统必须支持导出CSV。\n**FR-002**：系统必须支持导出PDF。\n",
            "**FR-001：** 系统必须支持导出CSV。\n**FR-002：** 系统必须支持导出PDF。\n",
            "**FR-001** ：系统必须支持导出CSV。\n**FR-002** ：系统必须支持导出PDF。\n",
        ] {
            let docs = speckit_docs(spec);
            assert_eq!(docs.requirement_body_hash("FR-001"), empty, "{spec}");
            assert_eq!(docs.requirement_body_hash("FR-002"), empty, "{spec}");
            let (found, unknown) = docs.citations("实现 FR-002 的导出").unwrap();
            assert_eq!((found[0].line.as_str(), unknown.len()), (spec.lines().nth(1).unwrap(), 0), "{spec}");
        }
    }

    #[test]
    fn a_wrapped_line_of_a_no_break_space_or_beginning_with_a_bold_name_stays_in_the_requirement_s_body() {
        // CommonMark reads only spaces and tabs as a blank line: a no-break space is text, and
        // the paragraph goes on past it.
        let nbsp = "- **FR-001**: System MUST let a reader attach\n\u{a0}\n  one or more tags.\n";
        let reworded = nbsp.replace("one or more tags.", "NO tags, ever.");
        let body = |spec: &str| speckit_docs(spec).requirement_body_hash("FR-001");
        assert_ne!(body(nbsp), Some(sha256_hex("")), "the lines after the no-break space are its body");
        assert_ne!(body(nbsp), body(&reworded));
        // A bold name of an id's shape without a definition's colon is the requirement's own text.
        let named = "- **FR-001**: Times MUST be written in\n  **ISO-8601** in UTC, and MUST NOT let a reader\n  attach tags.\n";
        let changed = named.replace("MUST NOT let", "MAY let");
        assert_ne!(body(named), body(&changed), "the words after the bold name are bound too");
    }

    #[test]
    fn a_paragraph_running_on_with_requirements_without_a_colon_binds_each_to_every_line_after_it() {
        // Each line defines its id, and only a definition its colon follows begins a requirement
        // of its own: the lines before such a one wrap onto the lines after them.
        let spec = "## Requirements\n\n**FR-1** x\n**FR-2** y\n**FR-3** z\n**FR-4**: w\nwrapped\n\nAfter.\n";
        let docs = speckit_docs(spec);
        let body = |id: &str| docs.requirement_body_hash(id);
        assert_eq!(body("FR-1"), Some(sha256_hex("**FR-2** y\n**FR-3** z")));
        assert_eq!(body("FR-2"), Some(sha256_hex("**FR-3** z")));
        assert_eq!(body("FR-3"), Some(sha256_hex("")));
        assert_eq!(body("FR-4"), Some(sha256_hex("wrapped")));
        for (id, line) in [("FR-1", "**FR-1** x"), ("FR-2", "**FR-2** y"), ("FR-3", "**FR-3** z")] {
            assert_eq!(docs.requirement_line(id).unwrap().as_deref(), Some(line), "{id} is defined");
        }
    }

    fn openspec_docs(delta: &str) -> UnitDocs {
        let t = MemTree::from_files([
            ("openspec/changes/chg/tasks.md", "- [ ] 1.1 Do it\n"),
            ("openspec/changes/chg/specs/auth/spec.md", delta),
        ])
        .unwrap();
        UnitDocs::of_unit(&t, "chg").unwrap()
    }

    #[test]
    fn the_ids_a_text_cites_are_the_names_an_openspec_change_defines_and_spec_kit_ids_by_their_shape() {
        let text = "Add the tag selector to the list view (FR-001)";
        assert_eq!(openspec_docs("### Requirement: List view\n").cited_ids(text).unwrap(), ["List view"]);
        let both = "### Requirement: Tag selector\n### Requirement: List view\n### Requirement: Tags\n";
        assert_eq!(openspec_docs(both).cited_ids(text).unwrap(), ["Tag selector", "List view"]);
        assert_eq!(speckit_docs("- **FR-002**: Other.\n").cited_ids(text).unwrap(), ["FR-001"]);
    }

    #[test]
    fn an_openspec_requirement_s_body_runs_to_the_next_heading_of_level_three_or_less_scenarios_included() {
        let delta = "## ADDED Requirements\n### Requirement: OTP\nUsers MUST give a code.  \n\n#### Scenario: asked\n- THEN a code\n\n### Requirement: Other\nx\n";
        let body = openspec_docs(delta).requirement_body_hash("OTP").unwrap();
        assert_eq!(body, sha256_hex("Users MUST give a code.\n\n#### Scenario: asked\n- THEN a code"));
        // The next requirement's text is not part of it; trailing blanks are not either.
        let edited = delta.replace("x\n", "y\n").replace("- THEN a code\n", "- THEN a code   \n\n\n");
        assert_eq!(openspec_docs(&edited).requirement_body_hash("OTP").unwrap(), body);
        // A word of its statement or of a scenario changes it.
        let weaker = delta.replace("MUST", "MAY");
        assert_ne!(openspec_docs(&weaker).requirement_body_hash("OTP").unwrap(), body);
        let scenario = delta.replace("a code\n\n###", "no code\n\n###");
        assert_ne!(openspec_docs(&scenario).requirement_body_hash("OTP").unwrap(), body);
        assert_eq!(openspec_docs(delta).requirement_body_hash("Missing"), None);
    }

    #[test]
    fn an_openspec_requirement_s_section_is_the_delta_operation_openspec_reads_it_under() {
        let delta = "\u{feff}## added requirements\n### Requirement: A\nx\n```\n## REMOVED Requirements\n```\n### Requirement: B\n## REMOVED  Requirements\n### Requirement: C\n##\tRENAMED Requirements \n### Requirement: D\n";
        let docs = openspec_docs(delta);
        let section = |id: &str| docs.requirement_section(id);
        // A fenced heading opens no section; two blanks make a title openspec does not know.
        assert_eq!([section("A"), section("B")], [Some("ADDED".into()), Some("ADDED".into())]);
        assert_eq!(section("C").as_deref(), Some(NO_DELTA_SECTION));
        assert_eq!(section("D").as_deref(), Some("RENAMED"));
        assert_eq!(section("Missing"), None);
        assert_eq!(
            openspec_docs("### Requirement: A\n").requirement_section("A").as_deref(),
            Some(NO_DELTA_SECTION)
        );
        let twice =
            "## ADDED Requirements\n### Requirement: A\n## MODIFIED Requirements\n### Requirement: A\n";
        assert_eq!(openspec_docs(twice).requirement_section("A").as_deref(), Some("ADDED, MODIFIED"));
        assert_eq!(docs.citations("Do A").unwrap().0[0].section.as_deref(), Some("ADDED"));
        assert_eq!(speckit_docs("- **FR-001**: x\n").requirement_section("FR-001"), None);
    }

    #[test]
    fn an_openspec_requirement_s_capability_is_its_delta_spec_s_folder_below_the_change_s_specs_archived_or_not()
     {
        let change = |dir: &str, files: &[(&str, &str)]| {
            let mut all = vec![(format!("{dir}/tasks.md"), "- [ ] 1.1 Do it\n".to_owned())];
            all.extend(files.iter().map(|(path, text)| (format!("{dir}/specs/{path}"), (*text).to_owned())));
            UnitDocs::of_unit(&MemTree::from_files(all).unwrap(), "chg").unwrap()
        };
        let files = [
            ("auth/spec.md", "## ADDED Requirements\n### Requirement: A\n### Requirement: Twice\n"),
            ("area/billing/spec.md", "## MODIFIED Requirements\n### Requirement: B\n"),
            ("specs/spec.md", "## ADDED Requirements\n### Requirement: Twice\n"),
            ("spec.md", "## ADDED Requirements\n### Requirement: Top\n"),
        ];
        let active = change("openspec/changes/chg", &files);
        let capability = |id: &str| active.requirement_capability(id);
        assert_eq!(capability("A").as_deref(), Some("auth"));
        assert_eq!(capability("B").as_deref(), Some("area/billing"), "a nested folder names it whole");
        assert_eq!(capability("Twice").as_deref(), Some("auth, specs"), "each definition's, in path order");
        assert_eq!(capability("Top").as_deref(), Some(""), "a spec.md directly in specs/ is no capability's");
        assert_eq!(capability("Missing"), None);
        // Archived, the change's folder moves and each capability stays.
        let archived = change("openspec/changes/archive/2026-01-01-chg", &files);
        for id in ["A", "B", "Twice", "Top"] {
            assert_eq!(archived.requirement_capability(id), capability(id), "{id}");
        }
        let (cited, _) = active.citations("Do B").unwrap();
        assert_eq!(cited[0].capability.as_deref(), Some("area/billing"));
        assert_eq!(speckit_docs("- **FR-001**: x\n").requirement_capability("FR-001"), None);
    }

    #[test]
    fn a_heading_shaped_line_in_a_fence_or_a_comment_neither_ends_a_body_nor_defines_a_requirement() {
        let delta = "## ADDED Requirements\n### Requirement: OTP\nUsers MUST give a code.\n```markdown\n## Not a heading\n### Requirement: OTP\n```\n<!--\n## Nor this\n-->\n#### Scenario: asked\n- THEN a code\n";
        let docs = openspec_docs(delta);
        let body = docs.requirement_body_hash("OTP").unwrap();
        let expected = "Users MUST give a code.\n```markdown\n## Not a heading\n### Requirement: OTP\n```\n<!--\n## Nor this\n-->\n#### Scenario: asked\n- THEN a code";
        assert_eq!(body, sha256_hex(expected));
        // The scenario after the fence is the requirement's: changing it changes the body.
        let changed = openspec_docs(&delta.replace("- THEN a code", "- THEN no code"));
        assert_ne!(changed.requirement_body_hash("OTP").unwrap(), body);
        // The fenced copy of the heading defines nothing: one definition, the real one.
        assert_eq!(docs.definitions_of("OTP").len(), 1);
    }

    #[test]
    fn a_requirement_defined_twice_has_both_bodies_so_a_change_to_either_is_one() {
        let delta =
            "## ADDED Requirements\n### Requirement: OTP\nFirst MUST.\n### Requirement: OTP\nSecond MUST.\n";
        let both = openspec_docs(delta).requirement_body_hash("OTP").unwrap();
        assert_eq!(
            both,
            sha256_hex("### Requirement: OTP\nFirst MUST.\n\n### Requirement: OTP\nSecond MUST.")
        );
        let second = openspec_docs(&delta.replace("Second MUST", "Second MAY")).requirement_body_hash("OTP");
        assert_ne!(second.unwrap(), both);
    }

    #[test]
    fn an_id_defined_twice_or_wrapped_keeps_its_body_hash_and_the_definitions_a_scan_of_every_one_gives() {
        let spec = "- **FR-001**: First MUST\n  wrap here.\n- **FR-002**: Once.\n\n**FR-001**: Again MUST\nwrap there.\n";
        let delta_a =
            "## ADDED Requirements\n### Requirement: OTP\nFirst MUST.\n\n### Requirement: Once\nx\n";
        let delta_b = "## ADDED Requirements\n### Requirement: OTP\r\nSecond MUST.\r\n#### Scenario: s\r\n";
        let openspec = MemTree::from_files([
            ("openspec/changes/chg/tasks.md", "- [ ] 1.1 Do it\n"),
            ("openspec/changes/chg/specs/b/spec.md", delta_b),
            ("openspec/changes/chg/specs/a/spec.md", delta_a),
        ])
        .unwrap();
        let openspec = UnitDocs::of_unit(&openspec, "chg").unwrap();
        let speckit = speckit_docs(spec);
        let cases = [
            (
                &speckit,
                "FR-001",
                "- **FR-001**: First MUST\nwrap here.\n\n**FR-001**: Again MUST\nwrap there.",
            ),
            (&speckit, "FR-002", ""),
            (
                &openspec,
                "OTP",
                "### Requirement: OTP\nFirst MUST.\n\n### Requirement: OTP\nSecond MUST.\n#### Scenario: s",
            ),
            (&openspec, "Once", "x"),
        ];
        for (docs, id, body) in cases {
            assert_eq!(docs.requirement_body_hash(id), Some(sha256_hex(body)), "{id}");
            let scanned: Vec<Definition<'_>> =
                docs.definitions().into_iter().filter(|(def, _, _)| *def == id).collect();
            assert_eq!(docs.definitions_of(id), scanned, "{id}");
        }
        assert_eq!(openspec.requirement_body_hash("Missing"), None);
        assert!(speckit.requirement_line("FR-001").is_err(), "a Spec Kit id defined twice is refused");
        assert_eq!(openspec.requirement_line("OTP").unwrap().as_deref(), Some("### Requirement: OTP"));
    }

    /// The definitions read back and the lines read to cite every one of `ids` in a task of
    /// `docs`' unit and check each for drift, as attest and verify do.
    fn reads_to_cite(docs: &UnitDocs, ids: &[String]) -> (usize, usize) {
        use crate::spec::requirement::DEFINITIONS_READ;
        use crate::spec::text::LINES_READ;
        let count = || (DEFINITIONS_READ.with(std::cell::Cell::get), LINES_READ.with(std::cell::Cell::get));
        let before = count();
        let (found, unknown) = docs.citations(&format!("Do it ({})", ids.join(", "))).unwrap();
        assert_eq!((found.len(), unknown.len()), (ids.len(), 0));
        for id in ids {
            assert!(docs.requirement_line(id).unwrap().is_some());
            assert!(docs.requirement_body_hash(id).is_some());
        }
        let after = count();
        (after.0 - before.0, after.1 - before.1)
    }

    /// A Spec Kit unit of `n` requirements, each wrapped onto a second line, and their ids.
    fn speckit_of(n: usize) -> (UnitDocs, Vec<String>) {
        let spec: String = (0..n).map(|k| format!("- **FR-{k:03}**: System MUST\n  do {k}.\n")).collect();
        (speckit_docs(&spec), (0..n).map(|k| format!("FR-{k:03}")).collect())
    }

    /// A Spec Kit unit of `n` requirements in one paragraph, a line each and no colon after any
    /// id, so that each one's body is every line after it; and their ids.
    fn speckit_run_on_of(n: usize) -> (UnitDocs, Vec<String>) {
        let spec: String = (0..n).map(|k| format!("**FR-{k:03}** System MUST do {k}.\n")).collect();
        (speckit_docs(&spec), (0..n).map(|k| format!("FR-{k:03}")).collect())
    }

    /// An OpenSpec change of `n` requirements, each with a statement and a scenario, and their names.
    fn openspec_of(n: usize) -> (UnitDocs, Vec<String>) {
        let requirements: String = (0..n)
            .map(|k| format!("### Requirement: R{k:03}\nIt MUST do {k}.\n\n#### Scenario: s\n"))
            .collect();
        let delta = format!("## ADDED Requirements\n{requirements}");
        (openspec_docs(&delta), (0..n).map(|k| format!("R{k:03}")).collect())
    }

    /// That citing ten more requirements of the units `unit_of` makes (of as many requirements as
    /// it is told, and their ids) costs as many more reads at 20 as at 10.
    fn ten_more_cost_the_same(format: &str, unit_of: fn(usize) -> (UnitDocs, Vec<String>)) {
        let reads = |n| {
            let (docs, ids) = unit_of(n);
            reads_to_cite(&docs, &ids)
        };
        let (ten, twenty, thirty) = (reads(10), reads(20), reads(30));
        let more = |from: (usize, usize), to: (usize, usize)| (to.0 - from.0, to.1 - from.1);
        assert_eq!(
            more(twenty, thirty),
            more(ten, twenty),
            "{format}: ten more cited requirements cost as many more reads (definitions, lines) at 20 as at 10"
        );
    }

    #[test]
    fn each_further_cited_requirement_costs_the_same_reads_however_many_the_unit_defines() {
        ten_more_cost_the_same("Spec Kit", speckit_of);
        ten_more_cost_the_same("Spec Kit, one paragraph without colons", speckit_run_on_of);
        ten_more_cost_the_same("OpenSpec", openspec_of);
    }

    #[test]
    fn a_story_s_section_asked_again_is_the_one_found_first_and_what_a_fresh_search_finds() {
        let docs = speckit_docs("# F\n## User Story 1 - One\none body\n## User Story 2 - Two\ntwo body\n");
        let hash = |story: &str| docs.section(Some(story)).unwrap().hash;
        let (one, two) = (hash("US1"), hash("US2"));
        assert_eq!(docs.sections.lock().unwrap().len(), 2);
        assert_eq!((hash("US1"), hash("US2")), (one.clone(), two.clone()));
        assert_eq!(one, docs.story_section("US1").unwrap().hash);
        assert_ne!(one, two);
        let fallback = docs.section(Some("US9")).unwrap();
        assert!(fallback.fallback.is_some(), "no heading for US9: the whole spec.md");
        assert_eq!(docs.section(Some("US9")).unwrap().fallback, fallback.fallback);
        for n in 0..2 * SECTIONS_KEPT {
            let story = format!("US{}", 10 + n);
            assert_eq!(hash(&story), docs.story_section(&story).unwrap().hash);
        }
        assert_eq!(docs.sections.lock().unwrap().len(), SECTIONS_KEPT, "no more kept than that");
    }
}
