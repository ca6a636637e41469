//! Requirements a task title cites and the lines that define them.
//!
//! Spec Kit: ids like `FR-001`, `SC-001` (`[A-Z]{2,}-[0-9]+`), and `FR-009a`, `SC-002b` with one
//! letter after the number, as Spec Kit's clarify step adds them between existing ones
//! (`[A-Z]{2,}-[0-9]+[A-Za-z]?`); defined in spec.md by a line of one of the forms of [`Form`]:
//! Spec Kit's template form `- **FR-001**: text`, a line or item that begins with the id and a
//! colon (`FR-004: text`, `- FR-002: text`, `1. FR-009: text`), a heading (`#### FR-005: title`),
//! a table's row whose first cell is the id (`| FR-02 | text | P1 |`); an id a stronger form
//! defines is defined by that form alone, its weaker lines references to it ([`Form::rank`]). A
//! title cites an id when the id appears in it as a whole word (no letter, digit or `_` of its word
//! beside it, as Unicode's word boundaries tell: [`one_word`]), so `FR-009` and `FR-009a` are two
//! ids and neither cites the other, and `实现FR-001的` cites `FR-001`.
//! OpenSpec: `### Requirement: <name>` lines of the change's delta specs, read as openspec reads
//! them (the keyword in any letter case, blanks after `###` optional), the name as the heading
//! renders (no closing `#`s, emphasis or doubled blanks, a no-break space a blank); a title cites
//! a requirement when the full name appears in it as whole words, in any letter case, the title
//! read as rendered the same way.
//! Either: a line CommonMark reads as code or raw HTML (a fence, a comment) defines nothing.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use unicode_segmentation::UnicodeSegmentation;

use crate::model::digest::sha256_hex;

use super::error::SpecError;
use super::section::Delta;
use super::task_list::is_inline;
use super::text::{heading_level, lines_at};

/// What a line defining a requirement holds: where in the line its id or name is, the name as a
/// reader sees it where that is not the text there (an OpenSpec heading's markup), and the form
/// of the definition.
type Found = (Range<usize>, Option<Box<str>>, Form);

/// How a line defines a requirement: what its text beyond the line is, and how strongly it
/// defines ([`Form::rank`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// Spec Kit's template form, the one its template writes and the only one read before the
    /// others: `**<id>**` at the start of a line or of a `-`/`*` item (`- **FR-001**: text`,
    /// `**FR-003**: text`, `- **FR-007** text`, `- **FR-008:** text`). Its text beyond the line
    /// is the rest of its paragraph ([`speckit_wrapped`]).
    Template,
    /// The id at the start of a line or of any list item, followed by a colon, or bold
    /// (`FR-004: text`, `- FR-002: text`, `+ FR-002: text`, `1. FR-009: text`,
    /// `1. **FR-009**: text`). Its text beyond the line is the rest of its paragraph, as the
    /// template form's.
    Item,
    /// A heading whose text begins with the id and a colon, or is the id (`#### FR-005: title`,
    /// `### FR-005`); an OpenSpec `### Requirement: <name>` heading too. Its text beyond the line
    /// is its section ([`speckit_section`]).
    Heading,
    /// A row of a table's body (not its header) whose first cell is the id alone, bold or not
    /// (`| FR-02 | Text search | P1 |`): its cells are its text, none beyond the line.
    Row,
}

impl Form {
    /// How strongly the form defines, the strongest 0: a spec.md that defines an id in several
    /// forms defines it by the strongest alone, and its lines of weaker forms refer to it (a
    /// summary table, a traceability row after a `- **FR-001**:` list). The template form is the
    /// strongest, so that every requirement read before the other forms were keeps its
    /// definition; a table row the weakest, as a table listing ids in its first column is as
    /// often an index of requirements defined above as their definitions.
    fn rank(self) -> u8 {
        match self {
            Form::Template => 0,
            Form::Item | Form::Heading => 1,
            Form::Row => 2,
        }
    }
}

/// A requirement a task cites: its id, its defining line and that line's hash, and the hash of
/// its text beyond that line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The id (`FR-001`) or, for OpenSpec, the requirement's name (`Filter by tag`).
    pub id: String,
    /// The defining line, trailing whitespace trimmed.
    pub line: String,
    /// `requirement_hash`: sha256 of `line` (trailing whitespace already trimmed).
    pub hash: String,
    /// The sha256 of the requirement's text beyond its defining line, which the drift check holds
    /// the head to beside `hash` ([`super::UnitDocs::requirement_body_hash`]: an OpenSpec
    /// requirement's statement and scenarios, the lines a Spec Kit one wraps onto); `None` until
    /// its documents tell it.
    pub body: Option<String>,
    /// OpenSpec: the delta section it sits under, which the drift check holds the head to too
    /// ([`super::UnitDocs::requirement_section`]); `None` for Spec Kit, or until its documents tell it.
    pub section: Option<String>,
    /// OpenSpec: the capability whose delta spec defines it, which openspec applies it to and the
    /// drift check holds the head to beside `section` ([`super::UnitDocs::requirement_capability`]);
    /// `None` for Spec Kit, or until its documents tell it.
    pub capability: Option<String>,
}

impl Requirement {
    /// The requirement `id` defined by `line` (trailing whitespace is trimmed here), its body not
    /// yet told.
    #[must_use]
    pub fn new(id: &str, line: &str) -> Self {
        let line = line.trim_end();
        let (body, section, capability) = (None, None, None);
        Self { id: id.to_owned(), line: line.to_owned(), hash: sha256_hex(line), body, section, capability }
    }
}

/// A requirement definition found in a spec file: (id or name, defining line untrimmed, 0-based
/// index of that line in its file).
pub(crate) type Definition<'a> = (&'a str, &'a str, usize);

/// Where a requirement is defined in a spec file's text: the byte ranges of its id (or name) and
/// of its line (untrimmed), and the line's 0-based index. What a reader of many citations keeps,
/// so that the text is searched for definitions once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DefinedAt {
    /// The id or name, within the text.
    id: Range<usize>,
    /// The name as its heading renders, where that is not the text at `id`.
    shown: Option<Box<str>>,
    /// The defining line, within the text.
    line: Range<usize>,
    /// The 0-based index of the line.
    index: usize,
    /// How the line defines it.
    form: Form,
}

impl DefinedAt {
    /// The definition as it reads in `text`, the text it was found in: its id or name as shown.
    pub(crate) fn in_text<'t>(&'t self, text: &'t str) -> Definition<'t> {
        #[cfg(test)]
        DEFINITIONS_READ.with(|read| read.set(read.get() + 1));
        let part = |range: &Range<usize>| text.get(range.clone()).unwrap_or_default();
        (self.shown.as_deref().unwrap_or_else(|| part(&self.id)), part(&self.line), self.index)
    }

    /// Where the defining line starts in the text it was found in.
    pub(crate) fn start(&self) -> usize {
        self.line.start
    }

    /// How the line defines the requirement.
    pub(crate) fn form(&self) -> Form {
        self.form
    }

    /// The lines of `text` after the defining line, each with its byte offset in `text`: a walk
    /// from the definition's own line on, never from the start of the text.
    pub(crate) fn lines_after<'t>(&self, text: &'t str) -> impl Iterator<Item = (usize, &'t str)> {
        let end = self.line.end;
        // What follows the line, from its ending on: the first line read is that ending's.
        let rest = text.get(end..).unwrap_or_default();
        lines_at(rest).skip(1).map(move |(start, line)| (end + start, line))
    }
}

/// Every definition in `text`, in line order: the lines on which `defines` finds an id.
fn defined_in(text: &str, defines: fn(&str) -> Option<Found>) -> Vec<DefinedAt> {
    lines_at(text)
        .enumerate()
        .filter_map(|(index, (start, line))| {
            defines(line).map(|(id, shown, form)| DefinedAt {
                id: start + id.start..start + id.end,
                shown,
                line: start..start + line.len(),
                index,
                form,
            })
        })
        .collect()
}

/// `defined` (found in a text) without the definitions in `literal`, the text's
/// [`literal_ranges`]: a requirement's line in a code block or a comment is no definition.
fn outside_literals(defined: Vec<DefinedAt>, literal: &[Range<usize>]) -> impl Iterator<Item = DefinedAt> {
    defined.into_iter().filter(move |def| !in_literal(literal, def.id.start))
}

/// Whether `id` has the shape of a Spec Kit requirement id: 2+ capitals, `-`, ASCII digits, and
/// at most one ASCII letter after them (`FR-009a`).
#[must_use]
pub fn is_speckit_requirement_id(id: &str) -> bool {
    id_len(id) == Some(id.len())
}

/// The byte length of the requirement id `s` starts with (2+ capitals, `-`, ASCII digits, at most
/// one ASCII letter), when it starts with one that no letter, digit or `_` of its word continues
/// ([`runs_on`]).
fn id_len(s: &str) -> Option<usize> {
    let letters = s.bytes().take_while(u8::is_ascii_uppercase).count();
    let digits = s.get(letters..)?.strip_prefix('-')?;
    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
    if letters < 2 || n == 0 {
        return None;
    }
    let suffix = usize::from(digits.as_bytes().get(n).is_some_and(u8::is_ascii_alphabetic));
    let len = letters + 1 + n + suffix;
    let last = s.get(..len)?.chars().next_back()?;
    (!runs_on(last, s.get(len..)?.chars().next())).then_some(len)
}

/// The colons that may follow a Spec Kit requirement's id on its defining line: ASCII's, and the
/// fullwidth one Chinese and Japanese are written with (`**FR-001**：`).
const COLONS: [char; 2] = [':', '\u{FF1A}'];

/// The id a line of Spec Kit's template form defines ([`Form::Template`]): optional indentation,
/// an optional `-`/`*` bullet and blanks, then `**<id>**` (a colon just inside the closing `**` is
/// allowed: `**FR-001:**`, [`COLONS`]).
#[must_use]
pub fn speckit_defined_id(line: &str) -> Option<&str> {
    speckit_defined_span(line).and_then(|id| line.get(id))
}

/// Where in `line` the id it defines is ([`speckit_defined_id`]).
fn speckit_defined_span(line: &str) -> Option<Range<usize>> {
    let rest = line.trim_start_matches([' ', '\t']);
    let rest = match rest.strip_prefix(['-', '*']) {
        Some(after) if after.starts_with([' ', '\t']) => after.trim_start_matches([' ', '\t']),
        _ => rest,
    };
    let inner = rest.strip_prefix("**")?;
    let end = inner.find("**")?;
    let id = inner.get(..end)?;
    let id = id.strip_suffix(COLONS).unwrap_or(id);
    // Every step above takes a suffix of the line, so the id starts where `inner` does.
    let start = line.len() - inner.len();
    is_speckit_requirement_id(id).then_some(start..start + id.len())
}

/// An id at the start of a text, as a definition other than the template form's begins with it
/// ([`leading_id`]).
struct Leading<'a> {
    /// Where the id is in the text.
    id: Range<usize>,
    /// Whether it is bold (`**FR-001**`, `**FR-001:**`).
    bold: bool,
    /// Whether a colon follows it ([`COLONS`]): inside the bold, or after it and any blanks.
    colon: bool,
    /// The text after the id, its closing `**` and that colon.
    rest: &'a str,
}

/// The id `s` begins with, bold or plain ([`Leading`]).
fn leading_id(s: &str) -> Option<Leading<'_>> {
    let (bold, inner) = s.strip_prefix("**").map_or((false, s), |inner| (true, inner));
    let len = id_len(inner)?;
    let start = s.len() - inner.len();
    let mut rest = inner.get(len..)?;
    let mut colon = false;
    if bold {
        if let Some(after) = rest.strip_prefix(COLONS) {
            (colon, rest) = (true, after);
        }
        rest = rest.strip_prefix("**")?;
    }
    if let Some(after) = rest.trim_start_matches([' ', '\t']).strip_prefix(COLONS) {
        (colon, rest) = (true, after);
    }
    Some(Leading { id: start..start + len, bold, colon, rest })
}

/// What `s` (a line without its indentation) holds after a list item's marker and the blanks
/// after it: a bullet (`-`, `*`, `+`) or an ordered item's number (`1.`, `1)`, up to 9 digits).
fn after_list_marker(s: &str) -> Option<&str> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let after = match digits {
        0 => s.strip_prefix(['-', '*', '+'])?,
        1..=9 => s.get(digits..)?.strip_prefix(['.', ')'])?,
        _ => return None,
    };
    after.starts_with([' ', '\t']).then(|| after.trim_start_matches([' ', '\t']))
}

/// Where the id a Spec Kit line defines is, and the form it defines it in ([`Form`]), as far as
/// the line alone tells: a line of a table's shape ([`Form::Row`]) defines only where CommonMark
/// reads a table's body row there ([`first_cells`]), and any line only outside code and raw HTML
/// ([`literal_ranges`]).
fn speckit_line_form(line: &str) -> Option<(Range<usize>, Form)> {
    if let Some(id) = speckit_defined_span(line) {
        return Some((id, Form::Template));
    }
    // Where in the line an id found in `part`, a suffix of it, is.
    let at = |part: &str, id: Range<usize>| {
        let start = line.len() - part.len();
        start + id.start..start + id.end
    };
    if let Some(level) = heading_level(line) {
        let text = line.get(level..)?.trim_start_matches([' ', '\t']);
        return heading_id(text).map(|id| (at(text, id), Form::Heading));
    }
    let text = line.trim_start_matches([' ', '\t']);
    if let Some((cell, id)) = row_id(text) {
        return Some((at(cell, id), Form::Row));
    }
    let item = after_list_marker(text).unwrap_or(text);
    let lead = leading_id(item)?;
    (lead.colon || lead.bold).then(|| (at(item, lead.id), Form::Item))
}

/// Where in a heading's text (after its `#`s and blanks) the id it defines is: the id begins it,
/// followed by a colon or by nothing but a closing run of `#`s.
fn heading_id(text: &str) -> Option<Range<usize>> {
    let lead = leading_id(text)?;
    let alone = lead.rest.trim_matches([' ', '\t', '#']).is_empty() && !lead.rest.starts_with('#');
    (lead.colon || alone).then_some(lead.id)
}

/// The first cell of a line of a table's shape (without its indentation) and where in it the id
/// that cell holds alone is: `| FR-02 | text |`, or `FR-02 | text` without the leading pipe.
fn row_id(text: &str) -> Option<(&str, Range<usize>)> {
    let cell = text.strip_prefix('|').or_else(|| id_len(text).map(|_| text))?;
    let cell = cell.trim_start_matches([' ', '\t']);
    let lead = leading_id(cell).filter(|lead| !lead.colon)?;
    lead.rest.trim_start_matches([' ', '\t']).starts_with('|').then_some((cell, lead.id))
}

/// The byte ranges of the first cell of each row of a table's body in `text`, in order, as GFM
/// reads tables (pulldown-cmark's tables): where a row of a table may define a requirement
/// ([`Form::Row`]). A header's cells are not among them.
fn first_cells(text: &str) -> Vec<Range<usize>> {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let mut out = Vec::new();
    let mut row_begins = false;
    for (event, range) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::TableRow) => row_begins = true,
            Event::Start(Tag::TableCell) if row_begins => {
                row_begins = false;
                out.push(range);
            }
            _ => {}
        }
    }
    out
}

/// `defined` (found in `text`, in line order) without each definition of an id that a stronger
/// form defines too ([`Form::rank`]): what refers to a requirement, not what defines it. An id
/// that only weaker forms than the template's define, on more than one line of its strongest
/// (a heading and a summary line, a table and a traceability table), is left out whole: which
/// line a citation means is a guess, and such an id was untraced before these forms were read,
/// so evidence that cites it reads as it did. Two template lines stay, to be refused.
fn strongest(defined: Vec<DefinedAt>, text: &str) -> Vec<DefinedAt> {
    if defined.iter().all(|at| at.form.rank() == 0) {
        return defined;
    }
    let id = |at: &DefinedAt| text.get(at.id.clone()).unwrap_or_default().to_owned();
    // Each id's strongest rank, and how many lines of that rank define it.
    let mut best: std::collections::HashMap<String, (u8, usize)> = std::collections::HashMap::new();
    for at in &defined {
        let (rank, lines) = best.entry(id(at)).or_insert((u8::MAX, 0));
        match at.form.rank().cmp(rank) {
            std::cmp::Ordering::Less => (*rank, *lines) = (at.form.rank(), 1),
            std::cmp::Ordering::Equal => *lines += 1,
            std::cmp::Ordering::Greater => {}
        }
    }
    let kept = |at: &DefinedAt| {
        best.get(&id(at)).is_some_and(|&(rank, lines)| rank == at.form.rank() && (rank == 0 || lines == 1))
    };
    defined.into_iter().filter(kept).collect()
}

/// Where each Spec Kit requirement definition in `spec_md` is, in line order: the lines of one
/// of the forms of [`Form`], none in a code block or a comment ([`outside_literals`]), a row only
/// in a table's body ([`first_cells`]), and of each id only the lines of the strongest form that
/// defines it ([`strongest`]). spec.md is parsed for them only when a line may define.
pub(crate) fn speckit_defined(spec_md: &str) -> Vec<DefinedAt> {
    let defined = defined_in(spec_md, |line| speckit_line_form(line).map(|(id, form)| (id, None, form)));
    if defined.is_empty() {
        return defined;
    }
    let mut shown: Vec<DefinedAt> = outside_literals(defined, &literal_ranges(spec_md)).collect();
    if shown.iter().any(|at| at.form == Form::Row) {
        let cells = first_cells(spec_md);
        shown.retain(|at| at.form != Form::Row || in_literal(&cells, at.id.start));
    }
    strongest(shown, spec_md)
}

/// The section of Spec Kit requirement `at` of `text`, defined by a heading ([`Form::Heading`]):
/// the lines after the heading up to the next heading of its level or a higher one, or to the
/// line at `next` (where the next requirement's definition begins), each trimmed and joined by
/// `\n`, blank lines at either end dropped; empty for a heading with nothing under it. A line in
/// `literal` (the text's [`literal_ranges`]: a fence's line) ends nothing.
pub(crate) fn speckit_section(
    text: &str,
    at: &DefinedAt,
    next: Option<usize>,
    literal: &[Range<usize>],
) -> String {
    let heading = text.get(at.line.clone()).unwrap_or_default();
    let level = heading_level(heading).unwrap_or(1);
    let ends = |(start, line): &(usize, &str)| {
        next.is_some_and(|next| *start >= next)
            || (heading_level(line).is_some_and(|l| l <= level) && !in_literal(literal, *start))
    };
    let body: Vec<&str> =
        at.lines_after(text).take_while(|l| !ends(l)).map(|(_, line)| line.trim()).collect();
    let first = body.iter().position(|line| !line.is_empty()).unwrap_or(body.len());
    let last = body.iter().rposition(|line| !line.is_empty()).map_or(first, |last| last + 1);
    body.get(first..last).unwrap_or_default().join("\n")
}

/// The lines of a Spec Kit spec.md as its requirements' bodies read them ([`speckit_wrapped`]),
/// found once per text: a paragraph may run on with requirements of their own that no colon
/// follows (`**FR-2** x`), each one's body holding the lines of those after it
/// ([`starts_definition`]), and every body is then one slice of `joined`, its lines never read
/// again.
#[derive(Debug)]
pub(crate) struct WrapLines {
    /// Each line of the text, without its ending, in order.
    lines: Vec<Range<usize>>,
    /// For each line, the first line at or after it that begins a requirement of its own
    /// ([`starts_definition`]), or the number of lines.
    next_start: Vec<usize>,
    /// Every line trimmed, the lines joined by `\n`.
    joined: String,
    /// Where each line begins in `joined`, then one past `joined`'s end.
    at: Vec<usize>,
}

impl WrapLines {
    /// The lines of `text`, read once.
    pub(crate) fn new(text: &str) -> Self {
        let (mut lines, mut starts, mut at) = (Vec::new(), Vec::new(), Vec::new());
        let mut joined = String::with_capacity(text.len());
        for (start, line) in lines_at(text) {
            if !lines.is_empty() {
                joined.push('\n');
            }
            lines.push(start..start + line.len());
            starts.push(starts_definition(line));
            at.push(joined.len());
            joined.push_str(line.trim());
        }
        at.push(joined.len() + 1);
        let mut next_start = vec![lines.len(); lines.len()];
        let mut next = lines.len();
        for (index, starts) in starts.iter().enumerate().rev() {
            if *starts {
                next = index;
            }
            if let Some(slot) = next_start.get_mut(index) {
                *slot = next;
            }
        }
        Self { lines, next_start, joined, at }
    }
}

/// The lines after the line of Spec Kit definition `at` in `text` that CommonMark continues its
/// paragraph (or its list item's paragraph) with, up to a line that defines another requirement
/// ([`starts_definition`]), each trimmed and joined by `\n`: what a formatter wraps a long
/// requirement onto. Never a nested list, the next item or another block; inside an HTML block a
/// browser shows, the run of its text ([`html_text_runs`]); empty for a requirement of one line.
/// `lines` are `text`'s, read once ([`WrapLines::new`]); `paragraphs` gives `text`'s
/// [`paragraph_ranges`], asked only when the next line may continue the paragraph: it is not
/// blank (spaces and tabs alone, as CommonMark reads a blank line: a no-break space is text) and
/// defines no requirement (as in a list of them).
pub(crate) fn speckit_wrapped<'w, 'p>(
    lines: &'w WrapLines,
    text: &str,
    at: &DefinedAt,
    paragraphs: impl FnOnce() -> &'p [Range<usize>],
) -> &'w str {
    let first = at.index + 1;
    let blank = |line: &str| line.bytes().all(|b| matches!(b, b' ' | b'\t'));
    let Some(next) = lines.lines.get(first).and_then(|line| text.get(line.clone())) else {
        return "";
    };
    let next_start = lines.next_start.get(first).copied().unwrap_or(first);
    if blank(next) || next_start == first {
        return "";
    }
    let paragraphs = paragraphs();
    let after = paragraphs.partition_point(|r| r.start <= at.id.start);
    let Some(end) = after
        .checked_sub(1)
        .and_then(|i| paragraphs.get(i))
        .filter(|r| r.contains(&at.id.start))
        .map(|r| r.end)
    else {
        return "";
    };
    // The lines from `first` on that start inside the paragraph, up to the next definition.
    let inside = lines.lines.get(first..).unwrap_or_default().partition_point(|line| line.start < end);
    let last = (first + inside).min(next_start);
    match (lines.at.get(first), lines.at.get(last)) {
        (Some(from), Some(to)) if last > first => lines.joined.get(*from..to - 1).unwrap_or_default(),
        _ => "",
    }
}

/// Whether `line` begins a requirement of its own inside a paragraph: a line of the template form
/// ([`speckit_defined_span`]) whose id a colon follows (`**FR-002**:`, `**FR-002:**`,
/// `**FR-002**：`: [`COLONS`]), as a list of requirements written without bullets reads, or a line
/// of another form ([`speckit_line_form`]: `FR-002: text`, a heading, a table's row). A wrapped
/// line may begin with a bold name of the same shape (`**ISO-8601** in UTC`), which is the
/// requirement's own text, not the next one.
fn starts_definition(line: &str) -> bool {
    match speckit_line_form(line) {
        Some((id, Form::Template)) => {
            let after = line.get(id.end..).unwrap_or_default();
            after.strip_prefix(COLONS).is_some_and(|rest| rest.starts_with("**"))
                || after
                    .strip_prefix("**")
                    .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(COLONS))
        }
        Some(_) => true,
        None => false,
    }
}

/// The byte ranges of `text` that CommonMark reads as the text of one paragraph (a run of
/// pulldown-cmark's inline events, [`is_inline`]), in order: a list item's paragraph ends where a
/// nested list, the next item or any other block begins. A code block holds none; an HTML block a
/// browser shows (`<details>`, `<div>`) holds the runs of text of [`html_text_runs`].
pub(crate) fn paragraph_ranges(text: &str) -> Vec<Range<usize>> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut out = Vec::new();
    let mut run: Option<Range<usize>> = None;
    let mut in_block = false;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_block = true,
            Event::Start(Tag::HtmlBlock) => {
                out.extend(run.take());
                out.extend(html_text_runs(text, range.clone()));
                in_block = true;
            }
            Event::End(TagEnd::CodeBlock | TagEnd::HtmlBlock) => in_block = false,
            _ => {}
        }
        if !in_block && is_inline(&event) {
            let held = run.get_or_insert(range.clone());
            held.end = held.end.max(range.end);
        } else {
            out.extend(run.take());
        }
    }
    out.extend(run);
    out
}

/// The requirement ids `title` cites (whole words of the form `[A-Z]{2,}-[0-9]+[A-Za-z]?`: no
/// letter, digit or `_` of their word right before or right after, [`runs_into`], [`runs_on`]),
/// each once, in the order they first appear.
#[must_use]
pub fn speckit_cited_ids(title: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut before: Option<char> = None;
    for (at, c) in title.char_indices() {
        let starts_word = c.is_ascii_uppercase() && !runs_into(before, c);
        before = Some(c);
        if !starts_word {
            continue;
        }
        let Some(rest) = title.get(at..) else {
            continue;
        };
        if let Some(id) = id_len(rest).and_then(|len| rest.get(..len))
            && seen.insert(id)
        {
            out.push(id.to_owned());
        }
    }
    out
}

/// The requirement name an OpenSpec line defines, as openspec reads the line
/// (`/^###\s*Requirement:\s*(.+)\s*$/i`: `### Requirement: <name>`, `###requirement:<name>`) and
/// a reader sees the heading ([`rendered_name`]); never an empty name.
#[must_use]
pub fn openspec_defined_name(line: &str) -> Option<Cow<'_, str>> {
    let (name, shown, _) = openspec_defined_span(line)?;
    match shown {
        Some(shown) => Some(Cow::Owned(shown.into())),
        None => line.get(name).map(Cow::Borrowed),
    }
}

/// Where in `line` the requirement name it defines is, and the name shown where that differs
/// ([`openspec_defined_name`]); a heading's form.
fn openspec_defined_span(line: &str) -> Option<Found> {
    const KEYWORD: &str = "Requirement:";
    let rest = line.strip_prefix("###")?.trim_start();
    let keyword = rest.get(..KEYWORD.len()).filter(|k| k.eq_ignore_ascii_case(KEYWORD))?;
    let after = rest.get(keyword.len()..)?.trim_start();
    let name = after.trim_end();
    // `after` is a suffix of the line, and the name starts where it does.
    let start = line.len() - after.len();
    let shown = rendered_name(name);
    if shown.is_empty() {
        return None;
    }
    Some((start..start + name.len(), (shown != name).then(|| shown.into()), Form::Heading))
}

/// `name`, the text after `Requirement:` on a heading line or a task's title, as a reader sees it:
/// read by pulldown-cmark as an ATX heading's text, so that a closing run of `#`s, emphasis, links
/// and inline HTML are markup and escapes and entities are resolved; each run of white space (in
/// Unicode's sense: a no-break space is a blank to a reader) one blank, and the ends trimmed.
fn rendered_name(name: &str) -> String {
    use pulldown_cmark::{Event, Parser};
    let heading = format!("# {name}");
    let mut text = String::new();
    for event in Parser::new(&heading) {
        if let Event::Text(part) | Event::Code(part) = event {
            text.push_str(&part);
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    words.join(" ").trim().to_owned()
}

/// Where each OpenSpec requirement definition in `deltas` is: the delta's position in `deltas`
/// and the place in its text, sorted by the delta's path, then in line order. `literals` holds
/// each delta's [`literal_ranges`]: a heading-shaped line there (an example in a fence, a
/// comment) defines nothing.
pub(crate) fn openspec_defined(deltas: &[Delta], literals: &[Vec<Range<usize>>]) -> Vec<(usize, DefinedAt)> {
    let mut sorted: Vec<(usize, &Delta)> = deltas.iter().enumerate().collect();
    sorted.sort_by(|(_, a), (_, b)| a.path.cmp(&b.path));
    sorted
        .into_iter()
        .flat_map(|(at, d)| {
            let literal = literals.get(at).map_or(&[][..], Vec::as_slice);
            outside_literals(defined_in(&d.text, openspec_defined_span), literal).map(move |def| (at, def))
        })
        .collect()
}

/// The byte ranges of `text` where a line is shown as no text of the document, as pulldown-cmark
/// finds them: a fenced or indented code block (an example), an HTML comment, and an HTML block
/// of CommonMark's kinds 1 and 2 (a comment, `<pre>`, `<script>`, `<style>`, `<textarea>`). A
/// line there shaped like a heading or a requirement is none. Other HTML blocks (`<details>`,
/// `<div>`) show their lines as text, so only the comments in them are such ranges, as a comment
/// inside a paragraph is.
pub(crate) fn literal_ranges(text: &str) -> Vec<Range<usize>> {
    use pulldown_cmark::{Event, Parser, Tag};
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => ranges.push(range),
            Event::Start(Tag::HtmlBlock) => ranges.extend(unshown_in_html(text, range)),
            // A comment inside a paragraph, which may run over lines (`note <!--` ... `-->`).
            Event::InlineHtml(html) if html.starts_with("<!--") => {
                let comment = text.get(range.start..).and_then(|rest| HTML_COMMENT.find(rest));
                let end = comment.map_or(range.end, |c| range.start + c.end());
                if !ranges.last().is_some_and(|last| last.contains(&range.start)) {
                    ranges.push(range.start..end);
                }
            }
            _ => {}
        }
    }
    ranges
}

/// An HTML block that shows none of its lines: a comment, or a `<pre>`, `<script>`, `<style>` or
/// `<textarea>` element (CommonMark's HTML blocks of kinds 1 and 2; `<pre>` as a fence would).
static UNSHOWN_HTML_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^[ \t]*(?:<!--|<(?:pre|script|style|textarea)(?:[\s>]|$))")
        .unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
});

/// An HTML comment, to its end or to the end of the text when it is not closed.
static HTML_COMMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<!--.*?(?:-->|\z)").unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
});

/// The ranges of the HTML block at `block` of `text` that show nothing: the whole block
/// ([`UNSHOWN_HTML_BLOCK`]), else each comment in it.
fn unshown_in_html(text: &str, block: Range<usize>) -> Vec<Range<usize>> {
    let html = text.get(block.clone()).unwrap_or_default();
    if UNSHOWN_HTML_BLOCK.is_match(html) {
        return vec![block];
    }
    HTML_COMMENT.find_iter(html).map(|c| block.start + c.start()..block.start + c.end()).collect()
}

/// A line of an HTML block that shows no text: tags alone (`</details>`, `<div class="x">`).
static TAGS_ALONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]*(?:</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>[ \t]*)+$")
        .unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
});

/// The runs of lines of the HTML block at `block` of `text` that a browser shows as one text, as
/// a paragraph would: each ends at a line of tags alone ([`TAGS_ALONE`]: the element's end, the
/// next one's start), a line that begins in a comment, or the block's end ([`unshown_in_html`]:
/// none in a `<pre>` or a comment block). CommonMark ends such a block at a blank line.
fn html_text_runs(text: &str, block: Range<usize>) -> Vec<Range<usize>> {
    let hidden = unshown_in_html(text, block.clone());
    let mut out = Vec::new();
    let mut run: Option<Range<usize>> = None;
    for (start, line) in lines_at(text.get(block.clone()).unwrap_or_default()) {
        let start = block.start + start;
        if TAGS_ALONE.is_match(line) || in_literal(&hidden, start) {
            out.extend(run.take());
        } else {
            run.get_or_insert(start..start).end = start + line.len();
        }
    }
    out.extend(run);
    out
}

/// Whether the byte at `offset` lies in one of `ranges` (sorted and apart, as [`literal_ranges`]
/// and [`first_cells`] give them).
pub(crate) fn in_literal(ranges: &[Range<usize>], offset: usize) -> bool {
    let after = ranges.partition_point(|r| r.start <= offset);
    after > 0 && ranges[after - 1].contains(&offset)
}

/// Whether `c` is a character of a word: a letter, a digit or `_`.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `before` and `after`, side by side in a title, are of one word: both are word
/// characters ([`is_word_char`]) and no word boundary falls between them. The boundaries are
/// Unicode's (UAX #29), so that Han, hiragana or katakana next to Latin letters or digits ends a
/// word (`实现FR-001的`, `…に日付の書式を…`) while Latin letters and digits run on (`XFR-001`,
/// `FR-001a`, `Cafés`), and a Han character or a kana is a word of its own (no dictionary tells
/// where a Chinese or Japanese word ends); one falls too where Hangul meets another script, as
/// Korean writes its particles onto the word before them (`FR-001을`), which UAX #29 reads as one
/// word. A combining mark that is a letter (a Devanagari vowel sign) is of one word with the
/// characters beside it: which character it is written on, a pair alone cannot tell. One pair is
/// asked at a time, so that a title costs its length whatever it holds.
fn one_word(before: char, after: char) -> bool {
    use unicode_script::{Script, UnicodeScript};
    if !is_word_char(before) || !is_word_char(after) {
        return false;
    }
    if is_mark(before) || is_mark(after) {
        return true;
    }
    let hangul = |c: char| c.script() == Script::Hangul;
    !boundary_between(before, after) && hangul(before) == hangul(after)
}

/// Whether `c` is a combining mark, or another character Unicode's word boundaries join to the
/// one before it (UAX #29's Extend and Format): none falls between it and a blank before it.
fn is_mark(c: char) -> bool {
    !boundary_between(' ', c)
}

/// Whether a word boundary of UAX #29 falls between `a` and `b` in the text of these two.
fn boundary_between(a: char, b: char) -> bool {
    // Two characters take at most 8 bytes in UTF-8.
    let mut pair = [0; 8];
    let first = a.encode_utf8(&mut pair).len();
    let second = b.encode_utf8(&mut pair[first..]).len();
    let pair = std::str::from_utf8(&pair[..first + second]).unwrap_or_default();
    pair.split_word_bound_indices().nth(1).is_some()
}

/// Whether the text before a cited id or name, whose first character is `first`, runs into it: the
/// character right before (`before`, `None` at the start) is a word character of one word with
/// `first` ([`one_word`]), or any word character when `first` is none (`x(beta)` holds no
/// `(beta)`).
fn runs_into(before: Option<char>, first: char) -> bool {
    before.is_some_and(|b| is_word_char(b) && (!is_word_char(first) || one_word(b, first)))
}

/// Whether the text after a cited id or name, whose last character is `last`, runs on from it, as
/// [`runs_into`] tells it of the text before (`C++x` holds no `C++`).
fn runs_on(last: char, after: Option<char>) -> bool {
    after.is_some_and(|a| is_word_char(a) && (!is_word_char(last) || one_word(last, a)))
}

/// The most bytes of a task's title that the requirement names it could cite are searched
/// through, all names together ([`titles_cite`]): a title of 64 KiB against 8,192 names made of
/// its words. Each such name is searched through the whole title, in one pass ([`holds_whole`]),
/// so a change whose names a crafted title holds every word of would cost names × title; past
/// this it is refused.
pub(crate) const CITE_SEARCH_LIMIT: usize = 512 << 20;

/// Which of `names` `title` holds as whole words, in any letter case, one answer a name: whether
/// somewhere the lowercased title holds the lowercased name with no letter, digit or `_` of its
/// word right before or right after it ([`runs_into`], [`runs_on`]; an empty name never). The title is lowercased once, each distinct
/// name is searched once, and only when each of its words is a word of the title (a name that
/// stands whole in the title has no word the title lacks), so that many names a title cannot
/// hold cost a lookup of their words each, not a search of the title each.
///
/// # Errors
/// [`SpecError::CitationsTooCostly`] when the names left to search, each through the whole
/// title, would pass [`CITE_SEARCH_LIMIT`] bytes.
pub fn titles_cite(title: &str, names: &[&str]) -> Result<Vec<bool>, SpecError> {
    let title = title.to_lowercase();
    let title_words: std::collections::HashSet<&str> = words(&title).collect();
    // Each name lowercased, or None when a word of it is not a word of the title.
    let candidates: Vec<Option<String>> = names
        .iter()
        .map(|name| name.to_lowercase())
        .map(|name| {
            let held = words(&name).all(|w| title_words.contains(w));
            held.then_some(name)
        })
        .collect();
    let distinct: std::collections::HashSet<&str> = candidates.iter().flatten().map(String::as_str).collect();
    let too_costly = || SpecError::CitationsTooCostly {
        title: title.len(),
        names: distinct.len(),
        limit: CITE_SEARCH_LIMIT,
    };
    if distinct.len().saturating_mul(title.len()) > CITE_SEARCH_LIMIT {
        return Err(too_costly());
    }
    let mut held = std::collections::HashSet::new();
    for name in &distinct {
        if holds_whole(&title, name).map_err(|_| too_costly())? {
            held.insert(*name);
        }
    }
    Ok(candidates.iter().map(|name| name.as_deref().is_some_and(|name| held.contains(name))).collect())
}

/// The words of `text`: its runs of letters, digits and `_`, each split where a word boundary
/// falls inside it ([`one_word`]). Where a name stands whole in a title ([`holds_whole`]), each of
/// its words is one of the title's: a pair of characters is of one word wherever it stands.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        loop {
            let (start, first) = chars.next()?;
            let (mut last, mut end) = (first, start + first.len_utf8());
            while let Some(&(at, c)) = chars.peek().filter(|(_, c)| one_word(last, *c)) {
                chars.next();
                (last, end) = (c, at + c.len_utf8());
            }
            if is_word_char(first) {
                return text.get(start..end);
            }
        }
    })
}

/// Whether `title` holds `name` (both lowercased) with no word character of its word right before
/// or right after it ([`runs_into`], [`runs_on`]); never an empty name. Every place `name` stands in `title` is found in one pass over
/// the title (overlapping places too: `a a` in `a a a` stands at 0 and at 2), so that a name
/// standing in many places inside words costs the title's length, not its length for each place.
///
/// # Errors
/// The automaton of the name cannot be built: never for a name no longer than a title
/// [`titles_cite`] searches ([`CITE_SEARCH_LIMIT`] bytes at most: fewer states and transitions
/// than the automaton's limit, 2³¹).
fn holds_whole(title: &str, name: &str) -> Result<bool, aho_corasick::BuildError> {
    #[cfg(test)]
    TITLE_SEARCHES.with(|searches| searches.set(searches.get() + 1));
    if name.is_empty() || name.len() > title.len() {
        return Ok(false);
    }
    // The noncontiguous automaton is the one every other is built from: the cheapest to build for
    // one name, which is searched once.
    let automaton = aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
        .build([name])?;
    // An overlapping search fails only on a leftmost match kind, never on the builder's default.
    let (Some(first), Some(last)) = (name.chars().next(), name.chars().next_back()) else {
        return Ok(false);
    };
    Ok(automaton.find_overlapping_iter(title).any(|place| {
        let before = title.get(..place.start()).and_then(|s| s.chars().next_back());
        let after = title.get(place.end()..).and_then(|s| s.chars().next());
        !runs_into(before, first) && !runs_on(last, after)
    }))
}

#[cfg(test)]
thread_local! {
    /// How many definitions [`speckit_definition`] searched on this thread, for the tests that
    /// hold a task's citations to one search of each cited id's own definitions.
    pub(crate) static SEARCHED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many definitions [`DefinedAt::in_text`] read back on this thread, for the tests that
    /// hold a unit's lookups to a cost that grows with its definitions, not their square.
    pub(crate) static DEFINITIONS_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How often [`holds_whole`] searched a title on this thread, for the tests that hold a
    /// title's citations to one search of each distinct name the title could hold.
    static TITLE_SEARCHES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The line that defines Spec Kit requirement `id` among `defs` (read from `path`); Ok(None) when
/// none does. An id defined on more than one line is refused, naming the lines: which of them a
/// citation means would be a guess.
pub(crate) fn speckit_definition<'d>(
    defs: &[Definition<'d>],
    id: &str,
    path: &str,
) -> Result<Option<&'d str>, SpecError> {
    #[cfg(test)]
    SEARCHED.with(|searched| searched.set(searched.get() + defs.len()));
    let mut found = defs.iter().filter(|(def, _, _)| *def == id);
    let Some(&(_, line, _)) = found.next() else {
        return Ok(None);
    };
    let again: Vec<usize> = found.map(|(_, _, index)| index + 1).collect();
    if again.is_empty() {
        return Ok(Some(line));
    }
    let first = defs.iter().find(|(def, _, _)| *def == id).map_or(0, |(_, _, index)| index + 1);
    let lines: Vec<String> = std::iter::once(first).chain(again).map(|n| n.to_string()).collect();
    Err(SpecError::DuplicateRequirement { id: id.to_owned(), path: path.to_owned(), lines: lines.join(", ") })
}

/// The requirements `title` cites, each among the definitions `definitions_of` gives for its id
/// (read from `path`), and the cited Spec Kit ids that no line defines. A cited id defined on more
/// than one line is refused.
pub(crate) fn speckit_citations<'d>(
    title: &str,
    definitions_of: impl Fn(&str) -> Vec<Definition<'d>>,
    path: &str,
) -> Result<(Vec<Requirement>, Vec<String>), SpecError> {
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    for id in speckit_cited_ids(title) {
        match speckit_definition(&definitions_of(&id), &id, path)? {
            Some(line) => found.push(Requirement::new(&id, line)),
            None => unknown.push(id),
        }
    }
    Ok((found, unknown))
}

/// What a writer says of Spec Kit requirement `id`, which a task cites and no line of `spec_md`
/// (its path) defines in a form this reader reads ([`Form`]): that it is not traced, the forms
/// that define a requirement, and that a mention defines nothing.
#[must_use]
pub fn untraced_citation(id: &str, spec_md: &str) -> String {
    format!(
        "the task cites {id}, which no requirement of `{spec_md}` defines; it is not traced: a requirement is \
         defined by a line that begins with its id, bold or followed by a colon (`- **{id}**: text`, \
         `{id}: text`, `- {id}: text`, `1. {id}: text`), by a heading that does (`#### {id}: title`, its \
         section the text), or by a table's row whose first cell is the id alone (`| {id} | text |`); \
         an id elsewhere (`see {id}`, inside a sentence, in code) is a mention, and one these forms \
         but the first define on two lines (a heading and a summary line, two tables) defines nothing \
         until one of them is written as `- **{id}**: text`"
    )
}

/// The requirements `title` cites among OpenSpec `defs`, in definition order, each name once: the
/// title read as rendered, as each name is ([`rendered_name`]), so that `*filter*  by tag` cites
/// `Filter by tag`.
///
/// # Errors
/// [`SpecError::CitationsTooCostly`], from [`titles_cite`].
pub(crate) fn openspec_citations(
    title: &str,
    defs: &[Definition<'_>],
) -> Result<Vec<Requirement>, SpecError> {
    let names: Vec<&str> = defs.iter().map(|(name, _, _)| *name).collect();
    let mut seen = std::collections::HashSet::new();
    Ok(defs
        .iter()
        .zip(titles_cite(&rendered_name(title), &names)?)
        .filter(|((name, _, _), cited)| *cited && seen.insert(*name))
        .map(|((name, line, _), _)| Requirement::new(name, line))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `title` holds `name` as whole words, in any letter case ([`titles_cite`] of one name).
    fn title_cites_name(title: &str, name: &str) -> bool {
        titles_cite(title, &[name]).expect("one name is within the limit")[0]
    }

    /// The definitions of one id among `defs`, as [`UnitDocs`](super::super::UnitDocs) looks them up.
    fn of<'a, 'd>(defs: &'a [Definition<'d>]) -> impl Fn(&str) -> Vec<Definition<'d>> + 'a {
        move |id| defs.iter().filter(|(def, _, _)| *def == id).copied().collect()
    }

    /// The Spec Kit definitions in `spec_md`, as they read (an id is never shown otherwise).
    fn speckit_definitions(spec_md: &str) -> Vec<Definition<'_>> {
        let part = |range: &Range<usize>| &spec_md[range.clone()];
        speckit_defined(spec_md).iter().map(|at| (part(&at.id), part(&at.line), at.index)).collect()
    }

    #[test]
    fn spec_kit_definitions_are_bold_ids_at_the_start_of_a_line() {
        assert_eq!(speckit_defined_id("- **FR-001**: System MUST tag"), Some("FR-001"));
        assert_eq!(speckit_defined_id("  * **SC-002**: 95% of users"), Some("SC-002"));
        assert_eq!(speckit_defined_id("**NFR-10:** fast"), Some("NFR-10"));
        assert_eq!(speckit_defined_id("- see **FR-001**"), None);
        assert_eq!(speckit_defined_id("- **F-001**: one letter"), None);
        assert_eq!(speckit_defined_id("- **FR-**: no digits"), None);
        assert_eq!(speckit_defined_id("- **FR-009a**: clarified"), Some("FR-009a"));
        assert_eq!(speckit_defined_id("- **SC-002B** *(clarified)*: later"), Some("SC-002B"));
        assert_eq!(speckit_defined_id("- **FR-012a** : à la française"), Some("FR-012a"));
        assert_eq!(speckit_defined_id("- **FR-009ab**: two letters"), None);
        assert_eq!(speckit_defined_id("- **FR-009a1**: a digit after the letter"), None);
    }

    #[test]
    fn a_letter_suffixed_id_and_its_base_are_two_ids_neither_citing_the_other() {
        assert_eq!(speckit_cited_ids("Do it (FR-009a)"), ["FR-009a"]);
        assert_eq!(speckit_cited_ids("Do it (FR-009)"), ["FR-009"]);
        assert_eq!(
            speckit_cited_ids("FR-009, FR-009a; SC-002b/SC-002B."),
            ["FR-009", "FR-009a", "SC-002b", "SC-002B"]
        );
        assert!(speckit_cited_ids("FR-009ab FR-009a1 FR-009a_ FR-009_a").is_empty());
        let spec = "- **FR-009**: Base.\n- **FR-009a**: Clarified.\n";
        let defs = speckit_definitions(spec);
        let (found, unknown) = speckit_citations("Only the base (FR-009)", of(&defs), "spec.md").unwrap();
        assert_eq!((found.len(), found[0].line.as_str()), (1, "- **FR-009**: Base."));
        assert!(unknown.is_empty());
        let (found, _) = speckit_citations("Only the clarification (FR-009a)", of(&defs), "spec.md").unwrap();
        assert_eq!((found.len(), found[0].line.as_str()), (1, "- **FR-009a**: Clarified."));
        assert_eq!(found[0].hash, sha256_hex(b"- **FR-009a**: Clarified."));
        assert!(is_speckit_requirement_id("FR-009a") && is_speckit_requirement_id("NFR-10"));
        assert!(!is_speckit_requirement_id("FR-009ab") && !is_speckit_requirement_id("FR-a"));
    }

    #[test]
    fn a_title_cites_spec_kit_ids_only_as_whole_words() {
        assert_eq!(
            speckit_cited_ids("Add tags (FR-001, FR-003) and FR-001 again; SC-001."),
            ["FR-001", "FR-003", "SC-001"]
        );
        assert!(speckit_cited_ids("XFR-0012ab FR-001b2 _FR-001 fr-001").is_empty());
        assert_eq!(speckit_cited_ids("XFR-001"), ["XFR-001"]);
        assert_eq!(speckit_cited_ids("FR-FR-001 ÉSC-1 é SC-2"), ["FR-001", "SC-2"]);
        assert_eq!(speckit_cited_ids("[FR-7]/SC-08—done"), ["FR-7", "SC-08"]);
    }

    #[test]
    fn an_id_written_against_chinese_japanese_or_korean_text_is_cited_and_one_against_latin_is_not() {
        assert_eq!(speckit_cited_ids("实现FR-001的CSV导出"), ["FR-001"]);
        assert_eq!(speckit_cited_ids("FR-002を実装する、SC-001b（性能）"), ["FR-002", "SC-001b"]);
        assert_eq!(speckit_cited_ids("データFR-003とFR-004を"), ["FR-003", "FR-004"]);
        assert_eq!(speckit_cited_ids("FR-005을 구현하고 한국FR-006"), ["FR-005", "FR-006"]);
        // Latin letters and digits (ASCII or fullwidth) and `_` run on.
        for title in ["ÀFR-001", "FR-001é", "éFR-001", "_FR-001", "FR-001_", "１FR-001", "FR-001１"] {
            assert!(speckit_cited_ids(title).is_empty(), "{title}");
        }
        assert_eq!(speckit_cited_ids("XFR-001 FR-001a"), ["XFR-001", "FR-001a"]);
    }

    #[test]
    fn a_requirement_name_written_inside_chinese_japanese_or_korean_text_is_cited_as_a_latin_one_between_blanks_is()
     {
        let cites = |title: &str, name: &str| title_cites_name(title, name);
        assert!(cites("web/src/i18n/date.ts に日付の書式を実装する", "日付の書式"));
        assert!(cites("实现日期格式的导出", "日期格式"));
        assert!(cites("データベースの移行", "データベース"));
        assert!(cites("날짜 형식 구현", "날짜 형식"));
        assert!(cites("Add the Filter-by-tag선택기", "filter-by-tag"));
        // Katakana runs on as one word, as Latin letters do; a combining mark stays with its letter.
        assert!(!cites("データベースの移行", "データ"));
        assert!(!cites("Serve Cafés", "Café") && cites("Serve Café now", "Café"));
        assert!(!cites("Serve Cafe\u{301}s", "Cafe\u{301}") && cites("Serve Cafe\u{301}", "Cafe\u{301}"));
        assert!(cites("हिंदी में", "हिंदी") && !cites("हिंदी", "दी"));
    }

    #[test]
    fn the_requirement_hash_is_the_defining_line_with_trailing_whitespace_trimmed() {
        let spec = "## Requirements\n- **FR-001**: System MUST store tags.  \t\r\n- **FR-002**: y\n";
        let defs = speckit_definitions(spec);
        let (found, unknown) =
            speckit_citations("Store tags (FR-001, FR-009)", of(&defs), "spec.md").unwrap();
        assert_eq!(unknown, ["FR-009"]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id, "FR-001");
        assert_eq!(found[0].line, "- **FR-001**: System MUST store tags.");
        assert_eq!(found[0].hash, sha256_hex(b"- **FR-001**: System MUST store tags."));
    }

    #[test]
    fn openspec_definitions_are_requirement_headings_of_the_deltas() {
        assert_eq!(
            openspec_defined_name("### Requirement: Filter by tag  ").as_deref(),
            Some("Filter by tag")
        );
        assert_eq!(
            openspec_defined_name("###\tRequirement:\u{a0}Tagged \u{3000}").as_deref(),
            Some("Tagged")
        );
        assert_eq!(openspec_defined_name("### Requirement:"), None);
        assert_eq!(openspec_defined_name("### Requirement: \u{a0}"), None);
        assert_eq!(openspec_defined_name("#### Requirement: deeper"), None);
        assert_eq!(openspec_defined_name("- FROM: `### Requirement: Old`"), None);
    }

    #[test]
    fn a_title_cites_an_openspec_requirement_by_its_full_name_as_whole_words() {
        assert!(title_cites_name("Implement filter by tag in the list", "Filter by tag"));
        assert!(title_cites_name("FILTER BY TAG.", "Filter by tag"));
        assert!(!title_cites_name("Filter by tags", "Filter by tag"));
        assert!(!title_cites_name("Refilter by tag", "Filter by tag"));
        assert!(!title_cites_name("Filter by", "Filter by tag"));
        assert!(title_cites_name("aa a a", "a a"));
        assert!(title_cites_name("Grüße für Ünïcode", "für ünïcode"));
    }

    #[test]
    fn openspec_citations_hash_the_defining_heading_once_per_name() {
        let deltas = [
            Delta {
                path: "openspec/changes/c/specs/b/spec.md".into(),
                text: "### Requirement: Filter by tag\n".into(),
            },
            Delta {
                path: "openspec/changes/c/specs/a/spec.md".into(),
                text: "## ADDED Requirements\n### Requirement: Filter by tag \n### Requirement: Other\n"
                    .into(),
            },
        ];
        let defined = openspec_defined(&deltas, &[]);
        let defs: Vec<Definition<'_>> =
            defined.iter().map(|(doc, at)| at.in_text(&deltas[*doc].text)).collect();
        let found = openspec_citations("1.1 Wire filter by tag", &defs).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id, "Filter by tag");
        assert_eq!(found[0].hash, sha256_hex(b"### Requirement: Filter by tag"));
    }

    #[test]
    fn an_openspec_name_is_its_heading_as_rendered_without_closing_hashes_emphasis_or_doubled_blanks() {
        for line in [
            "### Requirement: Filter by tag ###",
            "### Requirement: Filter by tag #  ",
            "### Requirement: Filter  by\ttag",
            "### Requirement: **Filter by tag**",
            "### Requirement: *Filter* by `tag`",
            "### Requirement: <b>Filter</b> by [tag](#tags) ###",
        ] {
            assert_eq!(openspec_defined_name(line).as_deref(), Some("Filter by tag"), "{line}");
        }
        assert_eq!(openspec_defined_name("### Requirement: Use C#").as_deref(), Some("Use C#"));
        assert_eq!(openspec_defined_name("### Requirement: Tags \\###").as_deref(), Some("Tags ###"));
        assert_eq!(openspec_defined_name("### Requirement: ###"), None);
        assert_eq!(openspec_defined_name("### Requirement: <span></span>"), None);
    }

    #[test]
    fn an_openspec_requirement_heading_is_read_in_any_letter_case_and_without_a_blank_as_openspec_reads_it() {
        for line in [
            "### requirement: Filter by tag",
            "### REQUIREMENT: Filter by tag",
            "###Requirement: Filter by tag",
            "###requirement:Filter by tag",
        ] {
            assert_eq!(openspec_defined_name(line).as_deref(), Some("Filter by tag"), "{line}");
        }
        for line in [
            "#### requirement: deeper",
            "## Requirement: higher",
            " ### Requirement: x",
            "### Requirements: x",
        ] {
            assert_eq!(openspec_defined_name(line), None, "{line}");
        }
    }

    #[test]
    fn a_title_cites_an_openspec_requirement_by_its_rendered_name_and_hashes_the_line_as_written() {
        let heading = "### Requirement: **Filter  by tag** ###";
        let deltas = [Delta {
            path: "openspec/changes/c/specs/a/spec.md".into(),
            text: format!("## ADDED Requirements\n{heading}\nIt SHALL filter.\n"),
        }];
        let defined = openspec_defined(&deltas, &[]);
        let defs: Vec<Definition<'_>> =
            defined.iter().map(|(doc, at)| at.in_text(&deltas[*doc].text)).collect();
        let found = openspec_citations("1.2 Implement filter by tag", &defs).unwrap();
        assert_eq!(found.len(), 1, "{defs:?}");
        assert_eq!((found[0].id.as_str(), found[0].hash.clone()), ("Filter by tag", sha256_hex(heading)));
    }

    #[test]
    fn a_title_cites_an_openspec_requirement_as_both_render_with_emphasis_doubled_or_no_break_blanks() {
        for (title, heading) in [
            ("1.2 Implement *filter* by tag", "### Requirement: Filter by tag"),
            ("1.2 Implement filter  by tag", "### Requirement: Filter by tag"),
            ("1.2 Implement filter by tag", "### Requirement: Filter&nbsp;by tag"),
            ("1.2 Implement filter by tag", "### Requirement: Filter\u{a0}by tag"),
            ("1.2 Implement filter\u{a0}by `tag`", "### Requirement: *Filter*  by\u{3000}tag"),
        ] {
            let deltas =
                [Delta { path: "openspec/changes/c/specs/a/spec.md".into(), text: format!("{heading}\n") }];
            let defined = openspec_defined(&deltas, &[]);
            let defs: Vec<Definition<'_>> =
                defined.iter().map(|(_, at)| at.in_text(&deltas[0].text)).collect();
            let found = openspec_citations(title, &defs).unwrap();
            let cited: Vec<(&str, &str)> = found.iter().map(|r| (r.id.as_str(), r.hash.as_str())).collect();
            assert_eq!(cited, [("Filter by tag", sha256_hex(heading).as_str())], "{title:?} / {heading:?}");
        }
        assert!(
            openspec_citations("1.2 Implement filter by tags", &[("Filter by tag", "", 0)])
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_spec_kit_requirement_line_in_a_comment_or_a_code_block_defines_nothing() {
        let spec = "## Requirements\n\n<!-- earlier wording\n- **FR-001**: Old.\n-->\n\n```\n- **FR-002**: An example.\n```\n\n    - **FR-003**: Indented code.\n\n- **FR-004**: Shown.\n  <!-- - **FR-005**: inline -->\n";
        let defined = speckit_defined(spec);
        let ids: Vec<&str> = defined.iter().map(|at| at.in_text(spec).0).collect();
        assert_eq!(ids, ["FR-004"]);
    }

    #[test]
    fn a_requirement_line_an_html_block_shows_defines_it_and_one_a_comment_or_pre_hides_does_not() {
        let spec = "## Requirements\n\n<details><summary>Core</summary>\n- **FR-001**: Shown in details.\n<!-- - **FR-002**: hidden -->\n</details>\n\n<pre>\n- **FR-003**: An example.\n</pre>\n\n<div>\n- **FR-004**: Shown in a div.\n</div>\n";
        let defined = speckit_defined(spec);
        let ids: Vec<&str> = defined.iter().map(|at| at.in_text(spec).0).collect();
        assert_eq!(ids, ["FR-001", "FR-004"]);
        let delta = "## ADDED Requirements\n\n<details>\n### Requirement: Folded\nIt SHALL show.\n</details>\n\n<!--\n### Requirement: Gone\n-->\n";
        let defined = defined_in(delta, openspec_defined_span);
        let shown: Vec<DefinedAt> = outside_literals(defined, &literal_ranges(delta)).collect();
        let names: Vec<&str> = shown.iter().map(|at| at.in_text(delta).0).collect();
        assert_eq!(names, ["Folded"]);
    }

    /// The lines Spec Kit requirement `id` of `spec` wraps onto, joined ([`speckit_wrapped`]).
    fn wrapped(spec: &str, id: &str) -> String {
        let defined = speckit_defined(spec);
        let at = defined.iter().find(|at| at.in_text(spec).0 == id).expect("the id is defined");
        let paragraphs = paragraph_ranges(spec);
        speckit_wrapped(&WrapLines::new(spec), spec, at, || paragraphs.as_slice()).to_owned()
    }

    #[test]
    fn a_requirement_wrapped_inside_a_details_or_div_block_goes_on_to_a_comment_a_tag_line_or_the_next_definition()
     {
        for (open, close) in [("<details>", "</details>"), ("<div class=\"core\">", "</div>")] {
            let spec = format!(
                "## Requirements\n\n{open}\n- **FR-001**: System MUST let a reader attach\n  one or more tags\n  to a saved bookmark.\n<!-- an earlier wording -->\n- **FR-002**: Another,\nwrapped too.\n- **FR-003**: One line.\n{close}\n\nAfter.\n"
            );
            assert_eq!(wrapped(&spec, "FR-001"), "one or more tags\nto a saved bookmark.", "{spec}");
            assert_eq!(wrapped(&spec, "FR-002"), "wrapped too.", "{spec}");
            assert!(wrapped(&spec, "FR-003").is_empty(), "the closing tag is no text: {spec}");
        }
        let until_blank =
            "<details><summary>Core</summary>\n- **FR-001**: Shown,\nwrapped\n\nnot in the block\n";
        assert_eq!(wrapped(until_blank, "FR-001"), "wrapped");
    }

    #[test]
    fn a_requirement_line_in_a_comment_that_a_paragraph_opens_defines_nothing() {
        let spec = "## Requirements\n\n- **FR-001**: Shown.\n\nReviewer note <!--\n**FR-001**: earlier draft wording\n-->\n\nSee `<!--` and\n- **FR-002**: Shown too.\n";
        let defined = speckit_defined(spec);
        let ids: Vec<&str> = defined.iter().map(|at| at.in_text(spec).0).collect();
        assert_eq!(ids, ["FR-001", "FR-002"]);
    }

    #[test]
    fn a_spec_file_with_lone_cr_endings_defines_its_requirements_and_their_bodies_as_with_lf() {
        let lf = "## Requirements\n- **FR-001**: First.\n- **FR-002**: Second.\n";
        let cr = lf.replace('\n', "\r");
        let defined = speckit_defined(&cr);
        let found: Vec<(&str, &str, usize)> = defined.iter().map(|at| at.in_text(&cr)).collect();
        assert_eq!(found, [("FR-001", "- **FR-001**: First.", 1), ("FR-002", "- **FR-002**: Second.", 2)]);
        let delta = "### Requirement: A\nIt SHALL.\n\n#### Scenario: s\n- THEN done\n";
        for text in [delta.to_owned(), delta.replace('\n', "\r")] {
            let defined = defined_in(&text, openspec_defined_span);
            let body: Vec<&str> = defined[0].lines_after(&text).map(|(_, line)| line).collect();
            assert_eq!(body, ["It SHALL.", "", "#### Scenario: s", "- THEN done"], "{text:?}");
        }
    }

    /// The Spec Kit definitions in `spec`, each its id, its line and its form.
    fn forms(spec: &str) -> Vec<(&str, &str, Form)> {
        speckit_defined(spec)
            .iter()
            .map(|at| (&spec[at.id.clone()], &spec[at.line.clone()], at.form))
            .collect()
    }

    #[test]
    fn each_form_a_spec_kit_requirement_is_written_in_defines_it_by_its_line() {
        // Each case: what comes before the defining line, the line, the id it defines, its form.
        let table = "| ID | Requirement | Priority |\n|----|-------------|----------|\n";
        let in_item = "- | ID | x |\n  |---|---|\n";
        for (before, line, id, form) in [
            (table, "| FR-02 | Text search (ILIKE) | P1 |", "FR-02", Form::Row),
            (table, "|  **NFR-01**  | Fast | P2 |", "NFR-01", Form::Row),
            ("ID | Requirement\n---|---\n", "SC-3 | Under a second", "SC-3", Form::Row),
            (in_item, "  | FR-7a | in an item |", "FR-7a", Form::Row),
            ("", "- FR-002: System MUST export CSV.", "FR-002", Form::Item),
            ("", "* FR-002: text", "FR-002", Form::Item),
            ("", "+ FR-002: text", "FR-002", Form::Item),
            ("", "FR-004: text", "FR-004", Form::Item),
            ("", "FR-004 : text", "FR-004", Form::Item),
            ("", "FR-004：テキスト", "FR-004", Form::Item),
            ("", "1. **FR-009**: text", "FR-009", Form::Item),
            ("", "1. FR-009: text", "FR-009", Form::Item),
            ("", "12) FR-009b: text", "FR-009b", Form::Item),
            ("", "+ **FR-011** text", "FR-011", Form::Item),
            ("", "  - FR-012:text", "FR-012", Form::Item),
            ("", "#### FR-005: Heading form", "FR-005", Form::Heading),
            ("", "### FR-006", "FR-006", Form::Heading),
            ("", "## **SC-007**: Bold heading ##", "SC-007", Form::Heading),
            ("", "### FR-008 ###", "FR-008", Form::Heading),
            ("", "- **FR-001**: The template form.", "FR-001", Form::Template),
        ] {
            let spec = format!("{before}{line}\nA paragraph after it.\n");
            assert_eq!(forms(&spec), [(id, line, form)], "{spec:?}");
        }
    }

    #[test]
    fn a_mention_of_an_id_defines_no_requirement() {
        let table = "| ID | Requirement |\n|----|----|\n";
        for spec in [
            "- see FR-002\n".to_owned(),
            "FR-002 and FR-003 apply.\n".into(),
            "The system follows FR-002: exports stay CSV.\n".into(),
            "- FR-002\n".into(),
            "- FR-002 - text\n".into(),
            "- `FR-002`: text\n".into(),
            "1. See **FR-002**: text\n".into(),
            "FR-002a1: not an id\n".into(),
            "FR-002ab: not an id\n".into(),
            "XFR-0012ab: not an id\n".into(),
            format!("{table}| US2 | FR-02, FR-03 |\n"),
            format!("{table}| FR-01, FR-02 | two ids |\n"),
            format!("{table}| `FR-02` | in code |\n"),
            format!("{table}| FR-02 (P1) | more than the id |\n"),
            format!("{table}| FR-02: | a colon |\n"),
            "| FR-01 | FR-02 |\n|---|---|\n| x | y |\n".into(),
            "| FR-02 | no table without its delimiter row |\n".into(),
            "Paragraph\nFR-02 | a pipe in a paragraph\n".into(),
            "### FR-001 and FR-002\n".into(),
            "### See FR-001: text\n".into(),
            "### FR-001#\n".into(),
            "#FR-001: no heading\n".into(),
            "```\nFR-002: in a fence\n| FR-03 | x |\n#### FR-004: title\n```\n".into(),
            "    FR-002: indented code\n".into(),
            "<!--\nFR-002: in a comment\n-->\n".into(),
            "<pre>\n1. FR-002: in a pre\n</pre>\n".into(),
            format!("<!--\n{table}| FR-02 | x |\n-->\n"),
        ] {
            assert_eq!(forms(&spec), [], "{spec:?}");
        }
    }

    #[test]
    fn an_id_a_stronger_form_defines_is_defined_by_it_alone_and_two_of_the_strongest_are_refused() {
        let index = "\n| Requirement | Story |\n|---|---|\n| FR-001 | US1 |\n| FR-002 | US2 |\n";
        let spec = format!("- **FR-001**: Template.\n- FR-002: Item.\n{index}");
        let found: Vec<(&str, Form)> = forms(&spec).into_iter().map(|(id, _, form)| (id, form)).collect();
        assert_eq!(
            found,
            [("FR-001", Form::Template), ("FR-002", Form::Item)],
            "the index rows refer to them"
        );
        let defs = speckit_definitions(&spec);
        let (cited, unknown) = speckit_citations("Do it (FR-001, FR-002)", of(&defs), "spec.md").unwrap();
        let lines: Vec<&str> = cited.iter().map(|r| r.line.as_str()).collect();
        assert_eq!((lines, unknown.len()), (vec!["- **FR-001**: Template.", "- FR-002: Item."], 0));
        // A template line keeps its id whatever other form repeats it (as every reading before).
        let spec = "#### FR-003: Heading\n- **FR-003**: Template.\n1. FR-003: Item.\n";
        assert_eq!(forms(spec), [("FR-003", "- **FR-003**: Template.", Form::Template)]);
        // Two template lines are a requirement defined twice, refused as ever.
        let twice = "- **FR-004**: One.\n- **FR-004**: Two.\n";
        let err =
            speckit_citations("Do it (FR-004)", of(&speckit_definitions(twice)), "spec.md").unwrap_err();
        assert!(matches!(err, SpecError::DuplicateRequirement { .. }), "{err}");
        // Two lines of a weaker form define nothing, as before those forms were read: the citation
        // is untraced, and an id the weaker forms define once beside it is read.
        for twice in [
            "#### FR-04: Heading\nFR-04: Item.\nFR-05: Once.\n".to_owned(),
            "| ID | x |\n|---|---|\n| FR-04 | One |\n| FR-05 | Once |\n\n| ID | y |\n|---|---|\n| FR-04 | Two |\n".into(),
            "- FR-04: One.\n1. FR-04: Two.\n- FR-05: Once.\n".into(),
        ] {
            let defs = speckit_definitions(&twice);
            let (cited, unknown) = speckit_citations("Do it (FR-04, FR-05)", of(&defs), "spec.md").unwrap();
            let ids: Vec<&str> = cited.iter().map(|r| r.id.as_str()).collect();
            assert_eq!((ids, unknown), (vec!["FR-05"], vec!["FR-04".to_owned()]), "{twice:?}");
        }
    }

    #[test]
    fn a_line_or_item_of_another_form_ends_the_paragraph_a_requirement_wraps_onto() {
        let spec = "**FR-001**: First,\nwrapped.\nFR-002: Second\nwrapped too.\n1. FR-003: Third\n";
        assert_eq!(wrapped(spec, "FR-001"), "wrapped.");
        assert_eq!(wrapped(spec, "FR-002"), "wrapped too.");
        assert!(wrapped(spec, "FR-003").is_empty());
    }

    #[test]
    fn the_warning_of_an_untraced_citation_names_the_file_and_the_forms_to_write() {
        let said = untraced_citation("FR-02", "specs/009-user-directory/spec.md");
        for part in [
            "FR-02, which no requirement of `specs/009-user-directory/spec.md` defines; it is not traced",
            "`- **FR-02**: text`",
            "`FR-02: text`",
            "`- FR-02: text`",
            "`1. FR-02: text`",
            "`#### FR-02: title`",
            "`| FR-02 | text |`",
            "`see FR-02`",
            "defines nothing until one of them is written as `- **FR-02**: text`",
        ] {
            assert!(said.contains(part), "{part:?} in {said}");
        }
    }

    #[test]
    fn a_spec_kit_requirement_defined_twice_is_refused_naming_both_lines() {
        let spec = "## Requirements\n- **FR-001**: First.\n- **FR-002**: Other.\n\n* **FR-001**: Again.\n";
        let defs = speckit_definitions(spec);
        let err = speckit_citations("Do it (FR-001)", of(&defs), "specs/001-x/spec.md").unwrap_err();
        assert!(matches!(err, SpecError::DuplicateRequirement { .. }));
        let msg = err.to_string();
        assert!(msg.contains("`FR-001`") && msg.contains("specs/001-x/spec.md"), "{msg}");
        assert!(msg.contains("lines 2, 5"), "{msg}");
        // An id defined once is read as before, even beside a duplicated one.
        let (found, _) = speckit_citations("Other (FR-002)", of(&defs), "spec.md").unwrap();
        assert_eq!(found[0].line, "- **FR-002**: Other.");
        assert!(speckit_definition(&defs, "FR-001", "spec.md").is_err());
        assert_eq!(speckit_definition(&defs, "FR-404", "spec.md").unwrap(), None);
    }

    /// A reading of definitions one line at a time: a line's offset and text to the id it defines
    /// and how strongly ([`Form::rank`]).
    type Scan<'a> = &'a dyn Fn(usize, &str) -> Option<(String, u8)>;

    /// A spec text built from lines that define requirements (in both formats, with the
    /// variations the readers allow) and lines that do not, with LF, CRLF or lone CR endings.
    fn any_spec() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let line = prop_oneof![
            "[ \t]{0,2}([-*][ \t])?\\*\\*[A-Z]{1,3}-[0-9]{0,3}[a-zA-Z]{0,2}:?\\*\\*:? [a-zé ]{0,8}",
            // Ids of a few shapes, so that one id is often defined in several forms.
            "([-*][ \t])?\\*\\*(AB|FR)-[0-9]\\*\\*: [a-z ]{0,6}",
            "[ \t]{0,2}([-*+][ \t]|[0-9]{1,2}[.)][ \t])?(\\*\\*)?(AB|FR|[A-Z]{1,3})-[0-9]{0,2}[a-z]{0,2}(\\*\\*)?[ \t]?:? [a-z ]{0,6}",
            "#{1,4}[ \t](\\*\\*)?(AB|FR)-[0-9]{1,2}(\\*\\*)?:?( [a-z#]{0,4})?",
            "###[ \t]{0,2}(Requirement|requirement|REQUIREMENT):[ \t\u{a0}]{0,2}[A-Za-zü *]{0,8}[ \t]{0,2}#{0,2}",
            "[#*a-z -]{0,12}",
            Just(String::new()),
        ];
        let ending = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
        (proptest::collection::vec(line, 0..12), ending).prop_map(|(lines, ending)| lines.join(ending))
    }

    /// Whether `title` cites `name` as the words say it, one name at a time: every place the
    /// lowercased name stands in the lowercased title, with no word character either side.
    fn cites_one_by_one(title: &str, name: &str) -> bool {
        let (title, name) = (title.to_lowercase(), name.to_lowercase());
        !name.is_empty()
            && title.char_indices().any(|(start, _)| {
                let (first, last) = (name.chars().next().unwrap(), name.chars().next_back().unwrap());
                title[start..].starts_with(&name)
                    && !runs_into(title[..start].chars().next_back(), first)
                    && !runs_on(last, title[start + name.len()..].chars().next())
            })
    }

    #[test]
    fn a_title_is_searched_once_for_each_distinct_name_whose_words_it_holds_and_never_for_others() {
        let searches = |names: &[String]| {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let before = TITLE_SEARCHES.with(std::cell::Cell::get);
            let cited = titles_cite("Wire the filter by tag into the list view", &names).unwrap();
            (TITLE_SEARCHES.with(std::cell::Cell::get) - before, cited.iter().filter(|c| **c).count())
        };
        let foreign: Vec<String> = (0..1000).map(|n| format!("Requirement number {n}")).collect();
        assert_eq!(searches(&foreign), (0, 0), "no title word is in these names: nothing to search");
        let same: Vec<String> =
            (0..1000).map(|n| ["Filter by tag", "FILTER BY TAG"][n % 2].to_owned()).collect();
        assert_eq!(searches(&same), (1, 1000), "one distinct name, searched once, cited by each");
    }

    #[test]
    fn a_title_holding_every_word_of_too_many_names_is_refused_before_any_is_searched() {
        let title: String = (0..12_000).map(|n| format!("x{n} ")).collect();
        // Never side by side in the title, so each would be searched through all of it.
        let crafted: Vec<String> = (0..8_000).map(|n| format!("x{n} x{}", n + 2)).collect();
        let names: Vec<&str> = crafted.iter().map(String::as_str).collect();
        let before = TITLE_SEARCHES.with(std::cell::Cell::get);
        let err = titles_cite(&title, &names).unwrap_err();
        assert_eq!(TITLE_SEARCHES.with(std::cell::Cell::get), before, "nothing searched");
        assert!(
            matches!(err, SpecError::CitationsTooCostly { names: 8_000, limit: CITE_SEARCH_LIMIT, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("shorten the task's title"), "{err}");
        // The same title against as many names it cannot hold is answered.
        let foreign: Vec<String> = (0..8_000).map(|n| format!("x{n} y")).collect();
        let names: Vec<&str> = foreign.iter().map(String::as_str).collect();
        assert!(titles_cite(&title, &names).unwrap().iter().all(|cited| !cited));
    }

    #[test]
    fn names_that_are_words_of_one_another_are_each_found_where_they_stand_whole() {
        let names = ["tag", "Filter by tag", "filter BY TAG", "by", "", "tags", "Ünï", "a a"];
        let cited = titles_cite("Implement FILTER by tag; ünï-code, aa a a", &names).unwrap();
        assert_eq!(cited, [true, true, true, true, false, false, true, true]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 2000, failure_persistence: None, ..Default::default() })]

        #[test]
        fn a_title_cites_each_name_as_a_search_of_that_name_alone_finds_it(
            title in "[aAbB _.üÜ日付のデタ한국\u{301}-]{0,24}",
            names in proptest::collection::vec("[aAbB _üÜ日付のデタ한국\u{301}]{0,6}", 0..8),
        ) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let expected: Vec<bool> = names.iter().map(|name| cites_one_by_one(&title, name)).collect();
            proptest::prop_assert_eq!(titles_cite(&title, &names).unwrap(), expected, "{:?} {:?}", title, names);
        }

        #[test]
        fn the_lines_after_a_definition_are_those_a_walk_from_the_start_finds_after_its_line(
            text in any_spec(),
            ending in proptest::bool::ANY,
        ) {
            let text = if ending { format!("{text}\n") } else { text };
            for at in speckit_defined(&text).iter().chain(&defined_in(&text, openspec_defined_span)) {
                let from_start: Vec<(usize, &str)> = lines_at(&text).skip(at.index + 1).collect();
                let from_its_line: Vec<(usize, &str)> = at.lines_after(&text).collect();
                proptest::prop_assert_eq!(from_its_line, from_start, "{:?}", text);
            }
        }

        #[test]
        fn every_definition_found_once_is_where_its_line_has_it(text in any_spec()) {
            // Spec Kit's ids in a code block (a line indented by a tab) define nothing, of an id
            // defined in several forms only its strongest form's lines define it, and an id whose
            // strongest form is weaker than the template's defines nothing on two lines of it.
            let literal = literal_ranges(&text);
            let speckit = |start: usize, line: &str| {
                let (id, form) = speckit_line_form(line)?;
                (!in_literal(&literal, start + id.start)).then(|| (line[id].to_owned(), form.rank()))
            };
            let openspec = |_: usize, line: &str| openspec_defined_name(line).map(|name| (name.into_owned(), 0));
            let scans: [(Scan<'_>, _); 2] =
                [(&speckit, speckit_defined(&text)), (&openspec, defined_in(&text, openspec_defined_span))];
            for (defines, found) in scans {
                let each: Vec<((String, u8), &str, usize)> = lines_at(&text)
                    .enumerate()
                    .filter_map(|(index, (start, line))| defines(start, line).map(|id| (id, line, index)))
                    .collect();
                let strongest = |id: &str| each.iter().filter(|((other, _), _, _)| other == id).map(|((_, rank), _, _)| *rank).min();
                let lines_of = |id: &str, rank: u8| each.iter().filter(|((other, r), _, _)| other == id && *r == rank).count();
                let expected: Vec<(String, &str, usize)> = each
                    .iter()
                    .filter(|((id, rank), _, _)| strongest(id) == Some(*rank) && (*rank == 0 || lines_of(id, *rank) == 1))
                    .map(|((id, _), line, index)| (id.clone(), *line, *index))
                    .collect();
                let got: Vec<(String, &str, usize)> =
                    found.iter().map(|at| at.in_text(&text)).map(|(id, line, index)| (id.to_owned(), line, index)).collect();
                proptest::prop_assert_eq!(&got, &expected, "{:?}", text);
                for at in &found {
                    proptest::prop_assert!(at.line.start <= at.id.start && at.id.end <= at.line.end);
                    let id = &text[at.id.clone()];
                    proptest::prop_assert!(!id.is_empty() && id == id.trim(), "{:?}: id {:?}", text, id);
                    let (before, after) = (&text[at.line.start..at.id.start], &text[at.id.end..at.line.end]);
                    let marker = before.trim_matches([' ', '\t']);
                    let marker = marker.trim_end_matches(['.', ')']).trim_start_matches(|c: char| c.is_ascii_digit());
                    proptest::prop_assert!(
                        before.ends_with("**")
                            || before.trim_end().to_lowercase().ends_with("requirement:")
                            || ["", "-", "*", "+"].contains(&marker)
                            || marker.bytes().all(|b| b == b'#'),
                        "{:?}: before the id {:?}", text, before
                    );
                    proptest::prop_assert!(
                        after.trim_start_matches(COLONS).starts_with("**")
                            || after.trim_start_matches([' ', '\t']).starts_with(COLONS)
                            || after.trim_matches([' ', '\t', '#']).is_empty(),
                        "{:?}: after the id {:?}", text, after
                    );
                }
            }
        }
    }
}
