//! The one reader of a task list (`tasks.md`): the file as CommonMark renders it.
//!
//! A task is a list item whose task-list box (`[ ]`, `[x]`, `[X]`, GitHub's extension) sits on its
//! bullet's line, and whose line is a task line of the unit's format ([`super::parse_task_line`]).
//! What CommonMark shows as code (fenced or indented code blocks) or passes through as HTML (HTML
//! blocks, comments) holds no task. Every other box is kept as an [`Unread`] with the reason: a `+`
//! bullet, an ordered item, a block quote, an id that is not one (`T008:`, a Cyrillic `Т008`), a
//! box on the line after its bullet, a box in a code block or comment, a box written out of shape
//! (`[ x ]`, `-[x]`) that other tools still count, and outside code blocks and comments a box no
//! list item holds that a person reads for a task ([`loose_box`]: `[x] T002`, a table row,
//! `- ✅ T001`, `- T001 ✔ done`), looked for in the text the line shows ([`SeenLines`]:
//! `[&#120;]`, `**[x]**`, `:white_check_mark:`, the lines of an HTML block). So a writer can refuse it by its line, and a verifier never skips a
//! checked one.
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`, as in CommonMark; a UTF-8 byte order mark at the start
//! of the file is not part of the first line. Line `i` here is line index `i` wherever a task list
//! is read or ticked.
//!
//! pulldown-cmark (the CommonMark parser rustdoc uses) decides the block structure, because
//! CommonMark's container rules (list continuation, lazy lines, tab stops, seven kinds of HTML
//! block, fences inside items) are too many to re-derive safely by hand; the file is bounded by
//! [`SPEC_FILE_LIMIT`](super::SPEC_FILE_LIMIT) before it is parsed.
//!
//! A task's text is its paragraph: its line, and the lines CommonMark continues that paragraph
//! with (indented or lazy continuation lines, as a formatter wraps a long task), never a nested
//! list or a later paragraph of its item ([`TaskList::continuation`]).
//!
//! A reading owns its text, so that [`super::TaskLists`] can keep it: a verifier walking a
//! history reads each list more than once and parses it once.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, LazyLock, OnceLock};

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use regex::Regex;

use super::task_line::{TaskLine, TaskSpans, is_task_id};
use super::text::line_ranges;
use super::unit::Format;
use crate::model::clean::shown_if_clean;

/// How many characters of a line an [`Unread`] keeps for display.
const SHOWN_LINE: usize = 200;

/// A UTF-8 byte order mark.
const BOM: &str = "\u{feff}";

/// A box: an opening bracket ([`OPENER`]), at most one visible mark with blanks, invisible
/// characters and combining marks (format characters, nonspacing and enclosing marks, such as
/// U+200B or U+0301) around it, a closing bracket ([`CLOSER`]). The group captures what the box
/// holds ([`reads_as_checked`] judges it).
const BOX: &str = r"{OPENER}([\s\p{Mn}\p{Me}\p{Cf}]*(?:[^\s\p{Mn}\p{Me}\p{Cf}{CLOSER}][\p{Mn}\p{Me}\p{Cf}]*)?[\s\p{Mn}\p{Me}\p{Cf}]*){CLOSER}";

/// The brackets a person reads a box between, as [`BOX`] opens one: ASCII's `[`, and every
/// opening bracket of Unicode beyond ASCII (general category Ps), among them those input methods
/// type for `[`: fullwidth `［`, CJK `【`, `「`, `『`, `〔`, `〖`, `〈`, `《`, mathematical `⟦`. Never
/// a parenthesis or a brace, ASCII's `(` and `{` or the fullwidth `（` and `｛` CJK input methods
/// type for them, which ordinary text holds (`(x)`, Chinese numbering `（一）`).
const OPENER: &str = r"[\p{Ps}--[(\{\x{FF08}\x{FF5B}]]";

/// The brackets that close a box ([`BOX`]): `]`, and every closing bracket of Unicode beyond
/// ASCII (general category Pe); never `)`, `}`, `）` or `｝`. Any of them closes a box any
/// [`OPENER`] opens.
const CLOSER: &str = r"[\p{Pe}--[)\}\x{FF09}\x{FF5D}]]";

/// A fixed pattern holding [`BOX`] where it says `{BOX}` and [`OPENER`] and [`CLOSER`] where it
/// says `{OPENER}` and `{CLOSER}`, compiled.
fn with_box(pattern: &str) -> Regex {
    let pattern = pattern.replace("{BOX}", BOX).replace("{OPENER}", OPENER).replace("{CLOSER}", CLOSER);
    Regex::new(&pattern).unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
}

/// A closing bracket of a box ([`CLOSER`]).
static BOX_CLOSER: LazyLock<Regex> = LazyLock::new(|| with_box("{CLOSER}"));

/// A bracket of a box, opening or closing ([`OPENER`], [`CLOSER`]).
static BOX_BRACKET: LazyLock<Regex> = LazyLock::new(|| with_box("{OPENER}|{CLOSER}"));

/// What follows the first closing bracket of a box in `s` ([`CLOSER`]), if one is there.
fn after_closer(s: &str) -> Option<&str> {
    BOX_CLOSER.find(s).and_then(|closer| s.get(closer.end()..))
}

/// Any line another tool or a person could read as a task: optional blanks, `>` and invisible
/// characters ([`is_invisible`]), a `-`, `*` or `+` bullet or
/// an ordered `1.` / `1)`, optional blanks, then a [`BOX`], not followed by `(` or `[` (that
/// would be a link). As wide as the OpenSpec CLI's own reading, so that no box it counts escapes
/// this one.
static BOX_LINE: LazyLock<Regex> = LazyLock::new(|| {
    with_box(r"^[\s>\x{FEFF}\x{200B}-\x{200D}\x{2060}]*(?:[-*+]|[0-9]{1,9}[.)])\s*({BOX})(?:[^(\[]|$)")
});

/// Inside a code block or an HTML block (where nothing is rendered as a list), a box behind a
/// bullet anywhere on the line, after the start or a blank: `<!-- - [x] T006`, `  1. [x] T1`.
static BOX_IN_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    with_box(r"(?:^|[\s>\x{FEFF}\x{200B}-\x{200D}\x{2060}])(?:[-*+]|[0-9]{1,9}[.)])\s*({BOX})(?:[^(\[]|$)")
});

/// A [`BOX`] anywhere in a line, not followed by `(` or `[` (a link): where [`loose_box`] looks
/// for a task's box that is neither behind a bullet nor in a code block (a table cell, a heading,
/// running text, a line without a bullet, an HTML block).
static ANY_BOX: LazyLock<Regex> = LazyLock::new(|| with_box(r"{BOX}(?:[^(\[]|$)"));

/// What a box holds when it reads as marked: one visible character of a class a person reads as a
/// mark (a letter, a letter-like number such as `ⅹ`, a symbol), with blanks, invisible
/// characters and combining marks around it. The group captures that character.
static MARK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[\s\p{Mn}\p{Me}\p{Cf}]*([\p{L}\p{Nl}\p{So}\p{Sm}])[\s\p{Mn}\p{Me}\p{Cf}]*$")
        .unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
});

/// What an open box holds: blanks, invisible characters and combining marks only.
static BLANK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[\s\p{Mn}\p{Me}\p{Cf}]*$").unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
});

/// Marks of the [`MARK`] classes that do not read as done: a ballot `✗` or `✘` (lists use it for
/// "not done") and an empty box `☐` or `□`.
const NOT_DONE: [char; 4] = ['\u{2717}', '\u{2718}', '\u{2610}', '\u{25a1}'];

/// An HTML tag (its name captured), or a declaration or CDATA section (`<!DOCTYPE …>`,
/// `<![CDATA[…]]>`): markup a browser does not show as text.
static HTML_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"</?([A-Za-z][A-Za-z0-9-]*)(?:[\s/][^<>]*)?>|<![^<>]*>|<\?[^<>]*>")
        .unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
});

/// An HTML character reference: decimal, hexadecimal or named.
static CHARACTER_REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
        .unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
});

/// A check mark: [`reads_as_checked`]'s `✓`, `✔`, `☑`, `☒`, `✅`, `🗸`, `🗹`, with any variation
/// selectors (the emoji and the text one) and invisible characters (U+200B) after it, which show
/// nothing of their own.
const CHECK_MARK: &str =
    r"[\x{2713}\x{2714}\x{2611}\x{2612}\x{2705}\x{1F5F8}\x{1F5F9}][\x{FE00}-\x{FE0F}\p{Cf}]*";

/// Where a line's text starts: optional blanks, `>` and invisible characters (U+200B), an optional
/// bullet (`-`, `*`, `+`, `1.`, `1)`) or heading marker (`#` to `######`, as `### T001 ✅ Title`
/// heads a task), blanks and invisible characters.
const LEAD: &str = r"^[\s>\p{Cf}]*(?:(?:[-*+]|[0-9]{1,9}[.)]|#{1,6})[\s\p{Cf}]+)?";

/// A fixed pattern holding [`CHECK_MARK`] and [`LEAD`] where it says `{MARK}` and `{LEAD}`, compiled.
fn with_mark(pattern: &str) -> Regex {
    let pattern = pattern.replace("{MARK}", CHECK_MARK).replace("{LEAD}", LEAD);
    Regex::new(&pattern).unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
}

/// A check mark standing where a list item's box would be, then a word: the line's [`LEAD`], a
/// [`CHECK_MARK`], blanks, the word.
static CHECK_MARK_LINE: LazyLock<Regex> =
    LazyLock::new(|| with_mark(r"{LEAD}({MARK})[\s\p{Cf}]*([^\s\p{Cf}]+)"));

/// A [`CHECK_MARK`] anywhere in a line: where [`loose_box`] looks for one after a task id or in a
/// table cell.
static ANY_CHECK_MARK: LazyLock<Regex> = LazyLock::new(|| with_mark(r"{MARK}"));

/// The first word of a line's text (after its [`LEAD`]) and the blanks after it, which end where
/// the text after that word starts: a task id there names the line ([`loose_box`]).
static LEAD_WORD: LazyLock<Regex> = LazyLock::new(|| with_mark(r"{LEAD}([^\s\p{Cf}]+)[\s\p{Cf}]*"));

/// GitHub's emoji shortcodes (its gemoji names) that render as a check mark or a ticked box, each
/// with the character it renders as. Ours, and this small: CommonMark leaves a shortcode as text,
/// GitHub shows the emoji, and a person reads a task list as GitHub shows it.
const CHECK_MARK_SHORTCODES: [(&str, &str); 3] = [
    (":white_check_mark:", "\u{2705}"),
    (":heavy_check_mark:", "\u{2714}\u{fe0f}"),
    (":ballot_box_with_check:", "\u{2611}\u{fe0f}"),
];

/// A box in a task list that is not read as a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unread {
    /// 0-based index of its line.
    pub(crate) line_index: usize,
    /// Whether the box's mark reads as checked ([`reads_as_checked`]): `x`, `X` or a look-alike.
    pub(crate) checked: bool,
    /// The first word after the box (empty when none), to match it to an id a caller names.
    pub(crate) word: String,
    /// The line, control characters escaped, cut at 200 characters.
    pub(crate) shown: String,
    /// Why it is not a task, for a person.
    pub(crate) reason: String,
}

/// A task list as CommonMark renders it: its text, its lines, its tasks and the boxes that are
/// not tasks.
pub(crate) struct TaskList {
    /// The text read.
    text: String,
    /// The format it was read as.
    format: Format,
    /// Each line's byte range in `text`, without its ending (line 0 starts after a BOM).
    lines: Vec<Range<usize>>,
    /// The tasks in line order.
    tasks: Vec<Listed>,
    /// The boxes that are not tasks, in line order, at most one per line.
    unread: Vec<Unread>,
    /// The tasks' ids, indexed on the first lookup ([`Self::lines_of`]) and shared by the
    /// readings made from this one by ticks, whose ids are where this one's are
    /// ([`Self::with_marks_of`]).
    by_id: Arc<OnceLock<Ids>>,
    /// The places in `tasks` of the ticked boxes, each id once ([`Self::ticked_boxes`]), found
    /// on the first question.
    ticked: OnceLock<Vec<usize>>,
}

/// A task of a reading.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    /// The index of its line.
    index: usize,
    /// The parsed line, as ranges into it.
    spans: TaskSpans,
    /// The index of the last line of its paragraph (`index` when the task is one line).
    last: usize,
}

/// The ids of a reading's tasks, indexed for lookups by id.
struct Ids {
    /// Each task's id, as a range of the text, by the task's place in `tasks`.
    at: Vec<Range<usize>>,
    /// The places in `tasks` sorted by id, those of one id in line order.
    sorted: Vec<usize>,
    /// By place in `tasks`: whether another task has the same id.
    repeated: Vec<bool>,
}

impl Ids {
    /// The index of the ids of `list`'s tasks.
    fn of(list: &TaskList) -> Self {
        let at: Vec<Range<usize>> = (list.tasks.iter())
            .map(|task| {
                let start = list.line_start(task.index).unwrap_or_default();
                let id = task.spans.id_range();
                start + id.start..start + id.end
            })
            .collect();
        let id = |place: usize| {
            at.get(place).and_then(|r| list.text.as_bytes().get(r.clone())).unwrap_or_default()
        };
        let mut sorted: Vec<usize> = (0..at.len()).collect();
        sorted.sort_by(|a, b| id(*a).cmp(id(*b)));
        let mut repeated = vec![false; at.len()];
        for pair in sorted.windows(2) {
            if let [a, b] = *pair
                && id(a) == id(b)
            {
                repeated[a] = true;
                repeated[b] = true;
            }
        }
        Ids { at, sorted, repeated }
    }

    /// How many bytes the index holds.
    fn held_bytes(tasks: usize) -> usize {
        tasks * (size_of::<Range<usize>>() + size_of::<usize>() + size_of::<bool>())
    }
}

/// Where a box was found while walking the rendered document.
struct Found {
    /// Byte offset of its `[` in the text.
    at: usize,
    /// Whether it holds `x` or `X`.
    checked: bool,
    /// Whether CommonMark (with task lists) renders it as the box of a task item.
    rendered: bool,
    /// Byte offset (in the text) where the last inline of its paragraph ends: the box's own when
    /// nothing follows it.
    end: usize,
}

impl TaskList {
    /// Reads `text` (at most [`super::SPEC_FILE_LIMIT`] bytes; see [`super::text::check_size`]) as a task list of
    /// `format`.
    pub(crate) fn read(text: String, format: Format) -> Self {
        let base = if text.starts_with(BOM) { BOM.len() } else { 0 };
        let lines: Vec<Range<usize>> = line_ranges(&text, base).collect();
        let Walked { found, blocks, seen } = walk(&text, base, &lines);
        let mut taken = vec![false; lines.len()];
        let mut list = TaskList {
            text,
            format,
            lines,
            tasks: Vec::new(),
            unread: Vec::new(),
            by_id: Arc::default(),
            ticked: OnceLock::new(),
        };
        for f in found {
            let index = list.line_of(f.at);
            let Some(slot) = taken.get_mut(index).filter(|taken| !**taken) else {
                continue;
            };
            *slot = true;
            let line = list.line(index);
            let col = f.at - list.line_start(index).unwrap_or_default();
            match TaskSpans::parse(format, line).filter(|_| f.rendered) {
                Some(spans) if spans.box_at() == col + 1 => {
                    let last = list.line_of(f.end.saturating_sub(1)).max(index);
                    list.tasks.push(Listed { index, spans, last });
                }
                _ => {
                    let reason = why_not(format, line, col, f.rendered);
                    list.push_unread(index, f.checked, col, reason);
                }
            }
        }
        // Boxes that CommonMark does not render as task items but other tools count, or that sit
        // in a code block or comment behind other text (`<!-- - [x] T006`).
        for (index, taken) in taken.into_iter().enumerate() {
            let line = list.line(index);
            let start = list.line_start(index).unwrap_or_default();
            if taken {
                continue;
            }
            let Some((col, checked, inside)) = box_in_line(line, start, &blocks) else {
                let seen = seen.binary_search_by_key(&index, |s| s.index).ok().and_then(|at| seen.get(at));
                let in_block = |col: usize| block_at(&blocks, start + col).is_some();
                if let Some(loose) = loose_at(format, line, seen, in_block) {
                    list.push_loose(index, loose);
                }
                continue;
            };
            let reason = match inside {
                Some(inside) => format!(
                    "it is inside {inside}, which CommonMark shows as code or passes through, \
                     never as a task"
                ),
                None => why_not(format, line, col, false),
            };
            list.push_unread(index, checked, col, reason);
        }
        list.unread.sort_by_key(|u| u.line_index);
        list
    }

    /// The reading of `text` as this reading's format, made from this reading when the two texts
    /// differ only in the marks of boxes this reading holds as tasks, each ` `, `x` or `X` on both
    /// sides (a tick, or one taken back). CommonMark with task lists reads such a box the same
    /// whatever its mark (pulldown-cmark's `scan_task_list_marker` takes one byte either way, and
    /// only the marker's `checked` depends on it), so every line, block and other box reads as
    /// here, and only the changed task lines are parsed again. `text` comes back when it differs
    /// anywhere else, or in length: it is then read whole ([`Self::read`]).
    pub(crate) fn with_marks_of(&self, text: String) -> Result<TaskList, String> {
        let Some(changed) = self.changed_marks(&text) else {
            return Err(text);
        };
        let mut tasks = self.tasks.clone();
        for slot in changed {
            let task = &mut tasks[slot];
            let line = self.lines.get(task.index).and_then(|r| text.get(r.clone())).unwrap_or_default();
            match TaskSpans::parse(self.format, line) {
                Some(spans) if spans.box_at() == task.spans.box_at() && spans.same_id_place(&task.spans) => {
                    task.spans = spans;
                }
                _ => return Err(text),
            }
        }
        let (format, lines, unread) = (self.format, self.lines.clone(), self.unread.clone());
        let by_id = Arc::clone(&self.by_id);
        Ok(TaskList { text, format, lines, tasks, unread, by_id, ticked: OnceLock::new() })
    }

    /// The tasks (their places in `tasks`) whose marks `text` changes, when it differs from this
    /// reading's text only in marks of task boxes (` `, `x`, `X` on both sides); `None` otherwise.
    fn changed_marks(&self, text: &str) -> Option<Vec<usize>> {
        const CHUNK: usize = 64;
        let (ours, theirs) = (self.text.as_bytes(), text.as_bytes());
        if ours.len() != theirs.len() {
            return None;
        }
        let is_mark = |b: u8| matches!(b, b' ' | b'x' | b'X');
        let mut changed = Vec::new();
        for (n, (a, b)) in ours.chunks(CHUNK).zip(theirs.chunks(CHUNK)).enumerate() {
            if a == b {
                continue;
            }
            for (i, (&x, &y)) in a.iter().zip(b).enumerate().filter(|(_, (x, y))| x != y) {
                let slot = self.task_of_mark(n * CHUNK + i).filter(|_| is_mark(x) && is_mark(y))?;
                changed.push(slot);
            }
        }
        Some(changed)
    }

    /// The task (its place in `tasks`) whose box's mark is byte `at` of the text, if any.
    fn task_of_mark(&self, at: usize) -> Option<usize> {
        let index = self.line_of(at);
        let slot = self.tasks.binary_search_by_key(&index, |task| task.index).ok()?;
        let start = self.line_start(index)?;
        (start + self.tasks[slot].spans.box_at() == at).then_some(slot)
    }

    /// Whether this is the reading of `text` as `format`.
    pub(crate) fn is_reading_of(&self, text: &str, format: Format) -> bool {
        self.format == format && self.text == text
    }

    /// About how many bytes this reading holds: what its text and what was parsed from it
    /// allocate (with the most its index of ids and its ticked boxes will), with a few dozen
    /// bytes of the allocator's own for each allocation.
    pub(crate) fn held_bytes(&self) -> usize {
        const PER_ALLOCATION: usize = 32;
        // The index of ids counts with the reading that made it, not with those sharing it.
        let ids = if Arc::strong_count(&self.by_id) == 1 {
            Ids::held_bytes(self.tasks.len()) + 3 * PER_ALLOCATION
        } else {
            0
        };
        let unread: usize =
            self.unread.iter().map(|u| u.word.capacity() + u.shown.capacity() + 2 * PER_ALLOCATION).sum();
        size_of::<Self>()
            + self.text.capacity()
            + self.lines.capacity() * size_of::<Range<usize>>()
            + self.tasks.capacity() * size_of::<Listed>()
            + self.unread.capacity() * size_of::<Unread>()
            + unread
            + ids
            + self.tasks.len() * size_of::<usize>()
            + 6 * PER_ALLOCATION
    }

    /// The text read, and the format it was read as.
    pub(crate) fn source(&self) -> (&str, Format) {
        (&self.text, self.format)
    }

    /// The line with index `index`, without its ending.
    pub(crate) fn line(&self, index: usize) -> &str {
        self.lines.get(index).and_then(|r| self.text.get(r.clone())).unwrap_or_default()
    }

    /// How many lines the task list has (no empty line follows a final line ending).
    pub(crate) fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Byte offset in the text where line `index` starts.
    pub(crate) fn line_start(&self, index: usize) -> Option<usize> {
        self.lines.get(index).map(|r| r.start)
    }

    /// The tasks in line order: (line index, the parsed line).
    pub(crate) fn tasks(&self) -> Vec<(usize, TaskLine<'_>)> {
        self.tasks.iter().map(|task| (task.index, task.spans.on(self.line(task.index)))).collect()
    }

    /// The task on line `index`, when that line holds one.
    pub(crate) fn task_at(&self, index: usize) -> Option<TaskLine<'_>> {
        let at = self.tasks.binary_search_by_key(&index, |task| task.index).ok()?;
        self.tasks.get(at).map(|task| task.spans.on(self.line(task.index)))
    }

    /// The lines that continue the paragraph of the task on line `index` after that line, each
    /// without its ending: what CommonMark reads as the same paragraph (an indented or a lazy
    /// continuation line), never a nested list, a later paragraph of the item or a following
    /// block. Empty for a task of one line, and when line `index` holds no task.
    pub(crate) fn continuation(&self, index: usize) -> Vec<&str> {
        let Ok(at) = self.tasks.binary_search_by_key(&index, |task| task.index) else {
            return Vec::new();
        };
        let last = self.tasks.get(at).map_or(index, |task| task.last);
        (index + 1..=last).map(|i| self.line(i)).collect()
    }

    /// The indices of the lines of the tasks whose id is `id`, in line order: looked up in an
    /// index of the ids made once for this reading and those made from it by ticks.
    pub(crate) fn lines_of(&self, id: &str) -> impl Iterator<Item = usize> {
        let places = self.places_of(id).iter();
        places.filter_map(|place| self.tasks.get(*place)).map(|task| task.index)
    }

    /// The places in `tasks` of the tasks whose id is `id`, in line order.
    fn places_of(&self, id: &str) -> &[usize] {
        let ids = self.ids();
        let from = ids.sorted.partition_point(|place| self.id_bytes(ids, *place) < id.as_bytes());
        let rest = ids.sorted.get(from..).unwrap_or_default();
        // Found by bisection too, so that a lookup of an id many tasks have does not walk them all.
        let count = rest.partition_point(|place| self.id_bytes(ids, *place) == id.as_bytes());
        rest.get(..count).unwrap_or_default()
    }

    /// The index of the tasks' ids, made on the first question.
    fn ids(&self) -> &Ids {
        self.by_id.get_or_init(|| Ids::of(self))
    }

    /// The id of the task at `place` in `tasks`, as bytes of the text.
    fn id_bytes(&self, ids: &Ids, place: usize) -> &[u8] {
        ids.at.get(place).and_then(|r| self.text.as_bytes().get(r.clone())).unwrap_or_default()
    }

    /// The ticked boxes, each id once, in the order of their first ticked line: each id with
    /// whether more than one task line has it (ticked or not). Found once for this reading.
    pub(crate) fn ticked_boxes(&self) -> impl Iterator<Item = (&str, bool)> {
        let ids = self.ids();
        let ticked = self.ticked.get_or_init(|| {
            // The first ticked task of each id, found in one walk of the index (the places of one
            // id are side by side, in line order), not in a walk of the id's places for each
            // ticked task.
            let ticked = |place: &usize| self.tasks.get(*place).is_some_and(|task| task.spans.ticked());
            let same_id = |a: &usize, b: &usize| self.id_bytes(ids, *a) == self.id_bytes(ids, *b);
            let mut first: Vec<usize> = ids
                .sorted
                .chunk_by(same_id)
                .filter_map(|places| places.iter().copied().find(ticked))
                .collect();
            first.sort_unstable();
            first
        });
        ticked.iter().filter_map(|place| {
            let task = self.tasks.get(*place)?;
            Some((
                task.spans.id_on(self.line(task.index)),
                ids.repeated.get(*place).copied().unwrap_or_default(),
            ))
        })
    }

    /// Whether `id` is ticked on one task line and no other task line has it.
    pub(crate) fn ticks_on_one_line(&self, id: &str) -> bool {
        match self.places_of(id) {
            [place] => self.tasks.get(*place).is_some_and(|task| task.spans.ticked()),
            _ => false,
        }
    }

    /// The ids of the ticked tasks, in line order.
    pub(crate) fn ticked_ids(&self) -> Vec<String> {
        self.tasks().into_iter().filter(|(_, task)| task.ticked).map(|(_, task)| task.id.to_owned()).collect()
    }

    /// The boxes that are not read as tasks, in line order.
    pub(crate) fn unread(&self) -> &[Unread] {
        &self.unread
    }

    /// The index of the line holding byte offset `at`.
    fn line_of(&self, at: usize) -> usize {
        line_of(&self.lines, at)
    }

    /// Keeps `loose`, on line `index`, as a box not read as a task, named by its task id.
    fn push_loose(&mut self, index: usize, loose: LooseBox) {
        self.push_unread(index, loose.checked, loose.col, loose.reason);
        if let Some(unread) = self.unread.last_mut() {
            unread.word = loose.id;
        }
    }

    fn push_unread(&mut self, index: usize, checked: bool, col: usize, reason: String) {
        let line = self.line(index);
        let word = line
            .get(col..)
            .and_then(after_closer)
            .map_or("", |after| after.split_whitespace().next().unwrap_or_default());
        self.unread.push(Unread {
            line_index: index,
            checked,
            word: word.to_owned(),
            shown: shown_if_clean(line, SHOWN_LINE),
            reason,
        });
    }
}

/// A box that is neither behind a bullet nor in a block, with the task id a person reads it for
/// ([`loose_box`]).
struct LooseBox {
    /// Byte offset of its `[` (or its check mark) in the line.
    col: usize,
    /// Whether its mark reads as checked ([`reads_as_checked`]).
    checked: bool,
    /// The task id it is read for.
    id: String,
    /// Why it is not a task, for a person.
    reason: String,
}

/// The loose box ([`loose_box`]) of a line not read as a task: looked for in `seen`, the text a
/// person sees on the line ([`SeenLines`]), when that differs from the line's source; else in the
/// line itself, unless the box is in a code block (`in_block` at its byte offset in the line: a
/// code block shows examples, and every line of an HTML block has a seen text).
fn loose_at(
    format: Format,
    line: &str,
    seen: Option<&SeenLine>,
    in_block: impl Fn(usize) -> bool,
) -> Option<LooseBox> {
    let Some(seen) = seen else {
        return loose_box(format, line, None).filter(|loose| !in_block(loose.col));
    };
    let place = if seen.html {
        "an HTML block, which shows it as text".to_owned()
    } else {
        format!(
            "text that shows as `{}` (markup around or inside its box or mark: a character \
             reference, an escape, emphasis, HTML or an emoji shortcode)",
            shown_if_clean(seen.text.trim(), 60)
        )
    };
    loose_box(format, &seen.text, Some(&place))
}

/// The box of `line` a person reads as a task of `format` although no list item holds it: a box
/// (open, or with a mark that reads as checked) followed by a task id (`[x] T002 Deploy`,
/// `### - [x] T005`, `text [x] T007`); a box or a check mark that is the state of the task id the
/// line's text starts with, standing right after it or ending the line (`- T009 [x] Deploy`,
/// `- **T009** ✔ done`, `- T009 Deploy ✅`); a box in a table row that holds a task id in a cell
/// (`| T003 Migrate | [x] |`), or a check mark starting a cell of such a row (`| T003 | ✅ |`); a
/// check mark where a list item's box would be (`- ✅ T001: …`, `✅ T004`), as agents often mark a
/// task done. Other tools count none of them, and a person reads each as done when checked, so a
/// verifier reports it rather than passing over it. `place` names where the box is when the line
/// alone does not tell (it is the text a line shows).
fn loose_box(format: Format, line: &str, place: Option<&str>) -> Option<LooseBox> {
    let is_id = |word: &str| {
        let word = id_word(word);
        is_task_id(format, word).then(|| word.to_owned())
    };
    if let Some(caps) = CHECK_MARK_LINE.captures(line) {
        let (mark, word) = (caps.get(1)?, caps.get(2)?);
        if let Some(id) = is_id(word.as_str()) {
            let place = place.map(|place| format!(", in {place}")).unwrap_or_default();
            let reason = format!(
                "it is a check mark (`{}`), not a box{place}: a task reads `- [x] {id} …`",
                mark.as_str()
            );
            return Some(LooseBox { col: mark.start(), checked: true, id, reason });
        }
    }
    if !(ANY_BOX.is_match(line) || ANY_CHECK_MARK.is_match(line)) {
        return None;
    }
    let around = Around::of(line, &is_id);
    let spot = box_spot(format, line, &around).or_else(|| mark_spot(line, &around, &is_id))?;
    let place = place.unwrap_or_else(|| around.place(line, spot.after_lead));
    let what = spot.mark.map_or_else(|| "its box".to_owned(), |mark| format!("its check mark (`{mark}`)"));
    let id = spot.id;
    let reason = format!(
        "{what} is in {place}, not the box of a list item (`- [ ] {id} …` on a line of its own), so no \
         tool reads it as a task"
    );
    Some(LooseBox { col: spot.col, checked: spot.checked, id, reason })
}

/// Whether `c` is cut from a word read for a task id ([`id_word`]): ASCII punctuation but `.`.
fn cut_from_word(c: char) -> bool {
    c.is_ascii_punctuation() && c != '.'
}

/// The task id a word is read as ([`loose_box`]): the word without the ASCII punctuation around
/// it but a `.` (`**T001**`), then without a `.` or `:` ending it (`T001:`, `1.1.`).
fn id_word(word: &str) -> &str {
    id_word_end(word.trim_start_matches(cut_from_word))
}

/// `word` without the ASCII punctuation ending it (but a `.`), then without a `.` or `:` ending
/// it: where [`id_word`] ends.
fn id_word_end(word: &str) -> &str {
    word.trim_end_matches(cut_from_word).trim_end_matches(['.', ':'])
}

/// A box or check mark of a line no list item holds, and the task id a person reads it for
/// ([`loose_box`]).
struct Spot<'l> {
    /// Byte offset of its `[` (or its check mark) in the line.
    col: usize,
    /// Whether it reads as checked (a check mark always does).
    checked: bool,
    /// The task id it is read for.
    id: String,
    /// The check mark, when it is one rather than a box.
    mark: Option<&'l str>,
    /// Whether it is read for the task id the line's text starts with.
    after_lead: bool,
}

/// What a line no list item holds says of the task its boxes and check marks are read for.
struct Around {
    /// The task id the line's text starts with ([`LEAD_WORD`]), and where the text after it starts.
    lead: Option<(String, usize)>,
    /// Whether the line is a table row (it starts with `|`).
    table: bool,
    /// The first task id among the words of the row's cells, when it is a table row.
    table_id: Option<String>,
    /// Where the blanks that end the line start (the line's length when none do).
    blank_from: usize,
}

impl Around {
    /// What `line` says, its words read as task ids by `is_id`.
    fn of(line: &str, is_id: &impl Fn(&str) -> Option<String>) -> Self {
        let lead = LEAD_WORD
            .captures(line)
            .and_then(|caps| Some((is_id(caps.get(1)?.as_str())?, caps.get(0)?.end())));
        let table = line.trim_start_matches([' ', '\t']).starts_with('|');
        let table_id =
            table.then(|| line.split(|c: char| c.is_whitespace() || c == '|').find_map(is_id)).flatten();
        Around { lead, table, table_id, blank_from: line.trim_end().len() }
    }

    /// The task id the line's text starts with, when what stands at `at` and ends at `end` (byte
    /// offsets in the line) is that task's state: right after the id, or ending the line (only
    /// blanks after it). The line's trailing blanks are found once, not once for each box or mark.
    fn lead_id(&self, at: usize, end: usize) -> Option<String> {
        let (id, after) = self.lead.as_ref()?;
        (at == *after || end >= self.blank_from).then(|| id.clone())
    }

    /// Where a box or check mark of `line` is, for a person; `after_lead`: read for the task id
    /// the line starts with.
    fn place(&self, line: &str, after_lead: bool) -> &'static str {
        let trimmed = line.trim_start_matches([' ', '\t']);
        if self.table {
            "a table row"
        } else if after_lead {
            "the text after its task id"
        } else if trimmed.starts_with('#') {
            "a heading"
        } else if trimmed.starts_with('[') {
            "a line without a list bullet"
        } else {
            "running text"
        }
    }
}

/// The first box of `line` (open, or reading as checked) read for a task of `format`: the id right
/// after it, else the id the line starts with ([`Around::lead_id`]), else the id of a table row's
/// cells.
fn box_spot<'l>(format: Format, line: &'l str, around: &Around) -> Option<Spot<'l>> {
    let mut words = WordsAfter { line, word_end: 0, id_end: 0, kept_from: 0 };
    ANY_BOX.captures_iter(line).find_map(|caps| {
        let (shape, mark) = (caps.get(0)?, caps.get(1)?);
        let checked = reads_as_checked(mark.as_str());
        if !(checked || BLANK.is_match(mark.as_str())) {
            return None;
        }
        let after = after_closer(line.get(shape.start()..)?)?;
        let first_word = words.id_word(line.len() - after.len());
        let (id, after_lead) = match first_word.filter(|word| is_task_id(format, word)) {
            Some(id) => (id.to_owned(), false),
            None => match around.lead_id(shape.start(), line.len() - after.len()) {
                Some(id) => (id, true),
                None => (around.table_id.clone()?, false),
            },
        };
        Some(Spot { col: shape.start(), checked, id, mark: None, after_lead })
    })
}

/// The first check mark of `line` read for a task: the state of the id the line starts with
/// ([`Around::lead_id`]), or starting a table cell that names no task itself, in a row whose
/// cells name one.
fn mark_spot<'l>(
    line: &'l str,
    around: &Around,
    is_id: &impl Fn(&str) -> Option<String>,
) -> Option<Spot<'l>> {
    // The cells are found as the marks go along the line, each stretch of it searched once, so
    // that a line of many marks and few `|` costs its length, not its length for each mark.
    let mut cells = Cells { line, searched: 0, last_bar: None, filled_to: 0 };
    ANY_CHECK_MARK.find_iter(line).find_map(|mark| {
        let rest = line.get(mark.end()..)?;
        let spot = |id, after_lead| Spot {
            col: mark.start(),
            checked: true,
            id,
            mark: Some(mark.as_str()),
            after_lead,
        };
        if let Some(id) = around.lead_id(mark.start(), mark.end()) {
            return Some(spot(id, true));
        }
        let blank_before = cells.blank_before(mark.start())?;
        if !(around.table && blank_before) {
            return None;
        }
        // A mark starting a cell: at most one a cell, so each cell after one is read once.
        let cell_after = rest.split('|').next().unwrap_or_default();
        if cell_after.split_whitespace().any(|word| is_id(word).is_some()) {
            return None;
        }
        Some(spot(around.table_id.clone()?, false))
    })
}

/// The table cells of a line, found left to right ([`mark_spot`]).
struct Cells<'l> {
    /// The line.
    line: &'l str,
    /// How much of the line was searched for a `|`.
    searched: usize,
    /// Where the last `|` of the searched part is.
    last_bar: Option<usize>,
    /// Where the last character of the searched part that is not a blank ends (0: none is).
    filled_to: usize,
}

impl Cells<'_> {
    /// Whether the line's cell before `at` (at or past what was asked before) holds only blanks
    /// from the last `|` before `at`; None when no `|` comes before it. Each stretch is searched
    /// once, its blanks too, so that a cell of many blanks before many marks costs its length.
    fn blank_before(&mut self, at: usize) -> Option<bool> {
        let stretch = self.line.get(self.searched..at)?;
        if let Some(bar) = stretch.rfind('|') {
            self.last_bar = Some(self.searched + bar);
        }
        let filled = stretch.trim_end();
        if !filled.is_empty() {
            self.filled_to = self.searched + filled.len();
        }
        self.searched = at;
        // The `|` itself is not a blank: the cell is blank when nothing after it is filled.
        Some(self.filled_to <= self.last_bar? + 1)
    }
}

/// The first words after the boxes of a line, read for task ids, asked left to right
/// ([`box_spot`]: each place asked is right after a box, so a box stands between two). A box in
/// the middle of a long word (`[x]a[x]a…`, `[]![]!…`) shares the rest of that word with every box
/// after it: each word's end, where it ends once read as an id ([`id_word`]), and the punctuation
/// before the rest of it are found once, so that a line of many boxes costs its length, not its
/// length for each box.
struct WordsAfter<'l> {
    /// The line.
    line: &'l str,
    /// Where the last word found ends (at a blank or the line's end; 0: none was found).
    word_end: usize,
    /// Where that word ends once read as an id: without the punctuation [`id_word`] cuts from its
    /// end, whatever it starts with.
    id_end: usize,
    /// The first character at or after the last place asked that [`id_word`] keeps at the start
    /// of a word (`word_end` when none is).
    kept_from: usize,
}

impl<'l> WordsAfter<'l> {
    /// The first word of the line after byte `at` (at or past what was asked before), as
    /// [`id_word`] reads it; None when only blanks follow `at`.
    fn id_word(&mut self, at: usize) -> Option<&'l str> {
        let rest = self.line.get(at..)?;
        let start = at + (rest.len() - rest.trim_start().len());
        if start == self.line.len() {
            return None;
        }
        if start >= self.word_end {
            let word = self.line.get(start..)?;
            let word = word.split(char::is_whitespace).next().unwrap_or(word);
            self.word_end = start + word.len();
            self.id_end = start + id_word_end(word).len();
            self.kept_from = start;
        }
        // What was passed over before is still punctuation to pass over: each character once.
        let from = self.kept_from.max(start);
        let unkept = self.line.get(from..self.word_end)?;
        self.kept_from = self.word_end - unkept.trim_start_matches(cut_from_word).len();
        self.line.get(self.kept_from..self.id_end.max(self.kept_from))
    }
}

/// What walking the rendered document finds.
struct Walked {
    /// The boxes of list items.
    found: Vec<Found>,
    /// The code and HTML blocks, with what they are, for reasons.
    blocks: Vec<(Range<usize>, &'static str)>,
    /// The text a person sees on each line where it differs from the line's source, in line order.
    seen: Vec<SeenLine>,
}

/// Walks the rendered document (from byte `base`; `lines` are its lines): the boxes of list items,
/// the code and HTML blocks with what they are, for reasons, and the text lines show.
fn walk(text: &str, base: usize, lines: &[Range<usize>]) -> Walked {
    let mut found: Vec<Found> = Vec::new();
    let mut blocks = Vec::new();
    let mut seen = SeenLines::new(text, lines);
    let body = lone_cr_as_lf(text.get(base..).unwrap_or_default());
    // Set at the start of a list item until its first content is seen.
    let mut item_open = false;
    // The task box (its place in `found`) whose paragraph is being read.
    let mut paragraph: Option<usize> = None;
    for (event, range) in Parser::new_ext(&body, Options::ENABLE_TASKLISTS).into_offset_iter() {
        let range = range.start + base..range.end + base;
        seen.read(&event, &range);
        if let Some(task) = paragraph.and_then(|at| found.get_mut(at)) {
            if is_inline(&event) {
                task.end = task.end.max(range.end);
                continue;
            }
            paragraph = None;
        }
        match event {
            Event::Start(Tag::Item) => {
                item_open = true;
                continue;
            }
            Event::Start(Tag::Paragraph | Tag::Heading { .. }) if item_open => continue,
            Event::TaskListMarker(checked) => {
                paragraph = Some(found.len());
                found.push(Found { at: range.start, checked, rendered: true, end: range.end });
                item_open = false;
                continue;
            }
            Event::Start(Tag::CodeBlock(kind)) => blocks.push((
                range.clone(),
                match kind {
                    CodeBlockKind::Fenced(_) => "a fenced code block",
                    CodeBlockKind::Indented => "an indented code block",
                },
            )),
            Event::Start(Tag::HtmlBlock) => blocks.push((range.clone(), "an HTML block or comment")),
            _ => {}
        }
        // An item whose text starts with a box that is not its task-list box (it is on a line of
        // its own, or a link): rendered as text, and still a box to a reader.
        if item_open && let Some(checked) = text.get(range.start..).and_then(leading_box) {
            found.push(Found { at: range.start, checked, rendered: false, end: range.start });
        }
        item_open = false;
    }
    Walked { found, blocks, seen: seen.finish() }
}

/// A line's text as a person sees it, where that differs from the line's source.
struct SeenLine {
    /// The index of the line.
    index: usize,
    /// What it shows: character references decoded, escapes, emphasis and HTML markup gone,
    /// inline code with no box in it, check-mark shortcodes as GitHub renders them.
    text: String,
    /// Whether the line is in an HTML block.
    html: bool,
}

/// The line being read by [`SeenLines`].
struct Reading {
    /// Its index.
    index: usize,
    /// Where the last piece of its text ended in the source, once one was read.
    end: Option<usize>,
    /// Whether what it shows differs from its source so far.
    differs: bool,
    /// Whether it holds a task box, whose line is read as a task and needs no seen text.
    task: bool,
}

/// Builds the text each line shows from the rendered document's events (what pulldown-cmark
/// decodes, escapes and leaves out), keeping it for the lines where it differs from the source: a
/// box written `[&#120;]`, `\[x\]`, `**[x]**` or inside HTML, or a check mark written
/// `:white_check_mark:`, is read as a person sees it.
struct SeenLines<'t> {
    /// The text read.
    text: &'t str,
    /// Its lines.
    lines: &'t [Range<usize>],
    /// The line being read.
    reading: Option<Reading>,
    /// Its text so far.
    shown: String,
    /// Inside a code block, whose text shows as code.
    in_code: bool,
    /// Inside an HTML comment of an HTML block, at the end of the last line read.
    in_comment: bool,
    /// The lines kept, in line order.
    done: Vec<SeenLine>,
}

impl<'t> SeenLines<'t> {
    fn new(text: &'t str, lines: &'t [Range<usize>]) -> Self {
        let (reading, shown, in_code, in_comment, done) = (None, String::new(), false, false, Vec::new());
        SeenLines { text, lines, reading, shown, in_code, in_comment, done }
    }

    /// Reads one event, at `range` of the text.
    fn read(&mut self, event: &Event<'_>, range: &Range<usize>) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => self.in_code = true,
            Event::End(TagEnd::CodeBlock) => self.in_code = false,
            Event::Start(Tag::HtmlBlock) => self.in_comment = false,
            Event::Text(text) if !self.in_code => self.piece(range, &shortcodes_shown(text), false),
            Event::Code(code) => {
                self.piece(range, &format!("`{}`", BOX_BRACKET.replace_all(code, "\u{fffd}")), true);
            }
            Event::InlineHtml(html) => self.piece(range, &html_shown(html, &mut false), true),
            Event::Html(html) => self.html(range.start, html),
            Event::TaskListMarker(_) => self.line_at(range.start).task = true,
            Event::Start(_) if is_inline(event) => {
                self.line_at(range.start).differs = true;
            }
            _ => {}
        }
    }

    /// The line holding byte `at`, read from now on (the one read before is done).
    fn line_at(&mut self, at: usize) -> &mut Reading {
        let index = line_of(self.lines, at);
        if self.reading.as_ref().is_some_and(|r| r.index != index) {
            self.flush();
        }
        self.reading.get_or_insert(Reading { index, end: None, differs: false, task: false })
    }

    /// A piece of inline text at `range` that shows as `shown`; `markup`: it shows otherwise than
    /// its source whatever it holds (inline code, HTML). A piece over several lines (a code span,
    /// a comment) leaves the lines after its first showing what follows it.
    fn piece(&mut self, range: &Range<usize>, shown: &str, markup: bool) {
        let source = self.text.get(range.clone()).unwrap_or_default();
        let line = self.line_at(range.start);
        line.differs |= markup || shown != source || line.end.is_some_and(|end| end != range.start);
        line.end = Some(range.end);
        self.shown.push_str(shown);
        let last = line_of(self.lines, range.end.saturating_sub(1).max(range.start));
        for index in line_of(self.lines, range.start) + 1..=last {
            self.flush();
            self.reading = Some(Reading { index, end: Some(range.end), differs: true, task: false });
        }
    }

    /// `html`, the lines of an HTML block from byte `at`: each as a browser shows it.
    fn html(&mut self, at: usize, html: &str) {
        self.flush();
        let first = line_of(self.lines, at);
        for (n, line) in html.split_inclusive('\n').enumerate() {
            let line = line.trim_end_matches(['\n', '\r']);
            let text = html_shown(line, &mut self.in_comment);
            self.done.push(SeenLine { index: first + n, text, html: true });
        }
    }

    /// Ends the line being read, keeping its text when it differs from its source.
    fn flush(&mut self) {
        if let Some(line) = self.reading.take().filter(|r| r.differs && !r.task) {
            self.done.push(SeenLine { index: line.index, text: self.shown.clone(), html: false });
        }
        self.shown.clear();
    }

    /// The lines kept, in line order.
    fn finish(mut self) -> Vec<SeenLine> {
        self.flush();
        self.done.sort_by_key(|line| line.index);
        self.done
    }
}

/// What a line of HTML shows as text: its comments (one left open at its end sets `in_comment`,
/// which says whether one was open at its start) and tags gone, a table cell's tags read as `|`,
/// character references decoded as pulldown-cmark decodes them in text, check-mark shortcodes as
/// GitHub renders them ([`shortcodes_shown`]).
fn html_shown(line: &str, in_comment: &mut bool) -> String {
    let mut visible = String::new();
    let mut rest = line;
    loop {
        if *in_comment {
            let Some(end) = rest.find("-->") else { break };
            rest = rest.get(end + 3..).unwrap_or_default();
            *in_comment = false;
        }
        let Some(start) = rest.find("<!--") else {
            visible.push_str(rest);
            break;
        };
        visible.push_str(rest.get(..start).unwrap_or_default());
        rest = rest.get(start + 4..).unwrap_or_default();
        *in_comment = true;
    }
    let untagged = HTML_TAG.replace_all(&visible, |caps: &regex::Captures<'_>| {
        let cell =
            caps.get(1).is_some_and(|n| ["td", "th"].iter().any(|c| n.as_str().eq_ignore_ascii_case(c)));
        if cell { "|" } else { " " }
    });
    let text = CHARACTER_REFERENCE.replace_all(&untagged, |caps: &regex::Captures<'_>| decoded(&caps[0]));
    shortcodes_shown(&text).into_owned()
}

/// `text` with each of [`CHECK_MARK_SHORTCODES`] shown as the check mark GitHub renders it as.
fn shortcodes_shown(text: &str) -> Cow<'_, str> {
    let mut shown = Cow::Borrowed(text);
    for (code, mark) in CHECK_MARK_SHORTCODES {
        if shown.contains(code) {
            shown = Cow::Owned(shown.replace(code, mark));
        }
    }
    shown
}

/// What pulldown-cmark renders the character reference `reference` as in text (itself when it
/// names no character).
fn decoded(reference: &str) -> String {
    let mut out = String::new();
    for event in Parser::new(reference) {
        if let Event::Text(text) = event {
            out.push_str(&text);
        }
    }
    out
}

/// The index of the line (of `lines`, in order) holding byte offset `at`.
fn line_of(lines: &[Range<usize>], at: usize) -> usize {
    lines.partition_point(|r| r.start <= at).saturating_sub(1)
}

/// Whether `event` is part of a paragraph's text (text, code spans, breaks, inline HTML, the
/// start or end of emphasis or a link): any other ends the paragraph it follows.
pub(crate) fn is_inline(event: &Event<'_>) -> bool {
    let inline_tag = |tag: &Tag<'_>| {
        matches!(
            tag,
            Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript
                | Tag::Link { .. }
                | Tag::Image { .. }
        )
    };
    match event {
        Event::Start(tag) => inline_tag(tag),
        Event::End(end) => matches!(
            end,
            TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Superscript
                | TagEnd::Subscript
                | TagEnd::Link
                | TagEnd::Image
        ),
        Event::Text(_)
        | Event::Code(_)
        | Event::InlineMath(_)
        | Event::DisplayMath(_)
        | Event::InlineHtml(_)
        | Event::FootnoteReference(_)
        | Event::SoftBreak
        | Event::HardBreak => true,
        Event::Html(_) | Event::Rule | Event::TaskListMarker(_) => false,
    }
}

/// The box of a line that starts at byte `start` (the first checked one inside a block): (its
/// byte offset in the line, whether it is checked, the block it is inside). A line that is no
/// list item to CommonMark counts when another tool would read it as one ([`BOX_LINE`]); inside a
/// code or HTML block, a box behind a bullet anywhere on the line counts ([`BOX_IN_BLOCK`]).
fn box_in_line(
    line: &str,
    start: usize,
    blocks: &[(Range<usize>, &'static str)],
) -> Option<(usize, bool, Option<&'static str>)> {
    let block_at = |at: usize| block_at(blocks, at);
    let shape = |caps: regex::Captures<'_>| {
        let (shape, mark) = (caps.get(1)?, caps.get(2)?);
        Some((shape.start(), reads_as_checked(mark.as_str())))
    };
    if let Some((col, checked)) = BOX_LINE.captures(line).and_then(shape) {
        return Some((col, checked, block_at(start + col)));
    }
    let in_block: Vec<(usize, bool, &'static str)> = BOX_IN_BLOCK
        .captures_iter(line)
        .filter_map(shape)
        .filter_map(|(col, checked)| block_at(start + col).map(|inside| (col, checked, inside)))
        .collect();
    let first = in_block.iter().find(|(_, checked, _)| *checked).or(in_block.first())?;
    Some((first.0, first.1, Some(first.2)))
}

/// The block (of `blocks`, in document order, never overlapping) that byte `at` is inside, if any.
fn block_at(blocks: &[(Range<usize>, &'static str)], at: usize) -> Option<&'static str> {
    let i = blocks.partition_point(|(range, _)| range.start <= at).checked_sub(1)?;
    blocks.get(i).filter(|(range, _)| range.contains(&at)).map(|(_, inside)| *inside)
}

/// Whether `c` is a character a person cannot see that the box rules let stand before a bullet:
/// a byte order mark, a zero-width space, non-joiner or joiner, a word joiner.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{feff}' | '\u{200b}'..='\u{200d}' | '\u{2060}')
}

/// Whether what a box holds reads as checked to a person, by class ([`MARK`]): `x` or `X`, a letter
/// or letter-like number beyond ASCII that reads as one ([`reads_as_x`]: Cyrillic `х`, fullwidth
/// `ｘ`, `𝐱`, `ⅹ`, `Ⅹ`), one of [`DONE_SIGNS`] (`済`, `完`, `〇`), or a symbol (`×`, `✕`, `✖`, `✓`,
/// `✔`, `☑`, `☒`, `✅`, `🗸`), whatever blanks, invisible characters (U+200B, an emoji selector) or
/// combining marks (U+0301) surround it. Not an ASCII label or sign (`[P]`, `[-]`, `[~]`, `[?]`),
/// not another letter or number, which numbers a list (`[一]`, `[가]`, `[Ⅱ]`), nor
/// [`NOT_DONE`]'s ballots and empty boxes.
fn reads_as_checked(held: &str) -> bool {
    let Some(mark) = MARK.captures(held).and_then(|caps| caps.get(1)?.as_str().chars().next()) else {
        return false;
    };
    if mark.is_ascii() {
        return matches!(mark, 'x' | 'X');
    }
    let letter_or_number = mark.is_alphanumeric();
    reads_as_x(mark) || DONE_SIGNS.contains(&mark) || !(letter_or_number || NOT_DONE.contains(&mark))
}

/// Letters a person reads for `x` though no Unicode decomposition makes them one: Cyrillic `х`,
/// `Х`, `ҳ`, `Ҳ` and Greek `χ`, `Χ`.
const X_OF_OTHER_SCRIPTS: [char; 6] = ['\u{445}', '\u{425}', '\u{4b3}', '\u{4b2}', '\u{3c7}', '\u{3a7}'];

/// Signs for "done" that CJK task lists put in a box: `済`, `完`, `了`, `終`, `终`, the Korean
/// `완`, and the ideographic circle `〇` that marks "yes" (a circle symbol `○` reads so by class).
const DONE_SIGNS: [char; 7] =
    ['\u{6e08}', '\u{5b8c}', '\u{4e86}', '\u{7d42}', '\u{7ec8}', '\u{c644}', '\u{3007}'];

/// Whether `c` reads as the letter `x`: one of [`X_OF_OTHER_SCRIPTS`], or a character whose
/// compatibility decomposition, marks aside, is `x` or `X` (fullwidth `ｘ`, `𝐱`, the Roman numeral
/// ten `ⅹ`, `ẋ`).
fn reads_as_x(c: char) -> bool {
    use unicode_normalization::UnicodeNormalization as _;
    if X_OF_OTHER_SCRIPTS.contains(&c) {
        return true;
    }
    let mut base = std::iter::once(c).nfkd().filter(|d| !unicode_normalization::char::is_combining_mark(*d));
    matches!((base.next(), base.next()), (Some('x' | 'X'), None))
}

/// `text` with every lone `\r` (one not followed by `\n`) made a `\n`: the same line endings to
/// CommonMark, at the same byte offsets. pulldown-cmark takes a lone `\r` for text in places (it
/// ends neither a fence's info string nor an HTML block), so it reads this copy.
fn lone_cr_as_lf(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let lone = |at: usize| bytes.get(at) == Some(&b'\r') && bytes.get(at + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        out.push(if lone(at) { '\n' } else { c });
    }
    Cow::Owned(out)
}

/// `Some(checked)` when `s` starts with a `[ ]`, `[x]` or `[X]` box followed by whitespace or the end.
fn leading_box(s: &str) -> Option<bool> {
    let checked = match s.as_bytes() {
        [b'[', b' ', b']', ..] => false,
        [b'[', b'x' | b'X', b']', ..] => true,
        _ => return None,
    };
    s.get(3..)?.chars().next().is_none_or(char::is_whitespace).then_some(checked)
}

/// The code point of the white space `s` starts with when it is neither a space nor a tab (a
/// no-break space, an ideographic space), which CommonMark does not take for the space a list
/// item needs: a person sees a space there.
fn other_space(s: &str) -> Option<String> {
    let c = s.chars().next().filter(|c| c.is_whitespace() && !matches!(c, ' ' | '\t'))?;
    Some(format!("U+{:04X}", u32::from(c)))
}

/// Why the box at byte `col` of `line` is not read as a task of `format`. `rendered`: whether
/// CommonMark renders it as the box of a task item.
fn why_not(format: Format, line: &str, col: usize, rendered: bool) -> String {
    let before = line.get(..col).unwrap_or_default();
    let lead = before.trim_start_matches([' ', '\t']);
    let from_box = line.get(col..).unwrap_or_default();
    if let Some(reason) = bullet_problem(lead) {
        return reason;
    }
    let after_box = match box_problem(from_box) {
        Ok(after_box) => after_box,
        Err(reason) => return reason,
    };
    let Some(word) = after_box.split_whitespace().next() else {
        return "there is no task id after its box".to_owned();
    };
    if let Some(reason) = id_problem(format, word) {
        return reason;
    }
    // The id is followed by what split it off: a space that is no space or tab is named.
    let after_id = after_box.trim_start_matches([' ', '\t']).get(word.len()..).unwrap_or_default();
    if let Some(space) = other_space(after_id) {
        return format!(
            "the space after its id `{}` is {space}, not a space or a tab",
            shown_if_clean(word, 20)
        );
    }
    if rendered {
        "its line is not a task line as speccoder reads one".to_owned()
    } else {
        "CommonMark does not render it as a task item here (a continuation of the text above, \
         or indented into a code block)"
            .to_owned()
    }
}

/// What a box out of shape (`inside`, from its opening bracket to its closing one) holds that
/// looks like what it is not, named by code point: brackets other than `[` and `]` (the fullwidth
/// `［］`), else the first character beyond ASCII (a mark that looks like a space or an `x`).
fn named_in_box(inside: &str) -> String {
    let (first, last) = (inside.chars().next(), inside.chars().next_back());
    if let (Some(open), Some(close)) = (first, last)
        && open != '['
        && after_closer(inside) == Some("")
    {
        let (open, close) = (u32::from(open), u32::from(close));
        return format!(" (its brackets are U+{open:04X} and U+{close:04X}, not `[` and `]`)");
    }
    let odd = inside.chars().find(|c| !c.is_ascii());
    odd.map(|c| format!(" (it holds U+{:04X})", u32::from(c))).unwrap_or_default()
}

/// What keeps `lead` (the line before the box, without its indentation) from being a `-` or `*`
/// bullet followed by spaces or tabs, if anything.
fn bullet_problem(lead: &str) -> Option<String> {
    let bullets = "speccoder reads `-` and `*` bullets only";
    if let Some(c) = lead.chars().next().filter(|c| is_invisible(*c)) {
        return Some(format!(
            "an invisible U+{:04X} stands before its bullet (a byte order mark or a zero-width character: a person sees a task, a Markdown reader does not); remove it",
            u32::from(c)
        ));
    }
    if lead.starts_with('>') {
        return Some("it is inside a block quote".to_owned());
    }
    if lead.starts_with('+') {
        return Some(format!("it has a `+` bullet; {bullets}"));
    }
    if lead.starts_with(|c: char| c.is_ascii_digit()) {
        return Some(format!("it is an ordered list item; {bullets}"));
    }
    if lead.is_empty() {
        return Some("its box is not on the line of its bullet".to_owned());
    }
    let after_bullet = lead.get(1..).unwrap_or_default();
    if let Some(space) = other_space(after_bullet.trim_start_matches([' ', '\t'])) {
        return Some(format!("the space between its bullet and its box is {space}, not a space or a tab"));
    }
    if !lead.starts_with(['-', '*']) || !after_bullet.trim_start_matches([' ', '\t']).is_empty() {
        return Some(
            "its box does not directly follow a `-` or `*` bullet (two list items on one line?)".to_owned(),
        );
    }
    if after_bullet.is_empty() {
        return Some("there is no space between its bullet and its box".to_owned());
    }
    None
}

/// The text after the box that starts `from_box`, when the box is `[ ]`, `[x]` or `[X]` followed
/// by a space, a tab or the line's end; else what is wrong with it.
fn box_problem(from_box: &str) -> Result<&str, String> {
    let Some(after_box) = ["[ ]", "[x]", "[X]"].iter().find_map(|b| from_box.strip_prefix(b)) else {
        let end = BOX_CLOSER.find(from_box).map_or(from_box.len(), |closer| closer.end());
        let inside = from_box.get(..end).unwrap_or_default();
        let named = named_in_box(inside);
        return Err(format!("its box `{}` is not `[ ]`, `[x]` or `[X]`{named}", shown_if_clean(inside, 20)));
    };
    if let Some(space) = other_space(after_box) {
        return Err(format!("the space after its box is {space}, not a space or a tab"));
    }
    if !after_box.is_empty() && !after_box.starts_with([' ', '\t']) {
        return Err("there is no space after its box".to_owned());
    }
    Ok(after_box)
}

/// What keeps `word`, the first word after a box, from being a task id of `format`, if anything.
fn id_problem(format: Format, word: &str) -> Option<String> {
    let id = match format {
        Format::SpecKit => word,
        Format::OpenSpec => word.strip_suffix('.').unwrap_or(word),
    };
    if is_task_id(format, id) {
        return None;
    }
    let name = format.with_article();
    let shape = match format {
        Format::SpecKit => "`T`, digits and at most one letter, e.g. `T001` or `T012a`",
        Format::OpenSpec => {
            "dot-separated numbers, e.g. `2` or `1.1`, two or more of which may end in letters, `1.1a`"
        }
    };
    let word_shown = shown_if_clean(word, 40);
    if let Some(c) = word.chars().find(|c| !c.is_ascii()) {
        return Some(format!(
            "`{word_shown}` is not {name} task id: it holds U+{:04X}, which is not an ASCII \
             letter or digit (a task id is {shape})",
            u32::from(c)
        ));
    }
    let bare = word.trim_end_matches(|c: char| c.is_ascii_punctuation());
    if bare.len() < word.len() && is_task_id(format, bare) {
        return Some(format!(
            "`{word_shown}` is not {name} task id: the id `{bare}` must be followed by a space"
        ));
    }
    Some(format!("`{word_shown}` is not {name} task id (a task id is {shape})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &TaskList) -> Vec<(usize, &str, bool)> {
        list.tasks().into_iter().map(|(i, t)| (i, t.id, t.ticked)).collect()
    }

    fn unread(list: &TaskList) -> Vec<(usize, bool)> {
        list.unread().iter().map(|u| (u.line_index, u.checked)).collect()
    }

    fn read(text: &str) -> TaskList {
        TaskList::read(text.to_owned(), Format::SpecKit)
    }

    fn reason_at(list: &TaskList, line_index: usize) -> String {
        list.unread()
            .iter()
            .find(|u| u.line_index == line_index)
            .unwrap_or_else(|| panic!("no unread box on line {line_index}: {:?}", list.unread()))
            .reason
            .clone()
    }

    #[test]
    fn a_plain_task_list_yields_its_tasks_and_nothing_unread() {
        let list = read("# Tasks\n\n- [ ] T001 a\n- [x] T002 b\n  * [X] T003 [US1] c\n");
        assert_eq!(ids(&list), [(2, "T001", false), (3, "T002", true), (4, "T003", true)]);
        assert!(list.unread().is_empty(), "{:?}", list.unread());
        assert_eq!(list.line_count(), 5);
    }

    #[test]
    fn a_check_mark_or_a_look_alike_of_x_reads_as_checked_and_a_ballot_x_or_a_dash_does_not() {
        let marks =
            ["✓", "✔", "✔\u{fe0f}", "☑", "☒", "✅", "🗸", "х", "Х", "ｘ", "×", "✗", "✘", "-", "~", "?"];
        let text: String =
            marks.iter().enumerate().map(|(i, m)| format!("- [{m}] T{:03} a\n", i + 1)).collect();
        let list = read(&text);
        assert!(ids(&list).is_empty(), "{:?}", ids(&list));
        let checked: Vec<bool> = unread(&list).into_iter().map(|(_, checked)| checked).collect();
        let expected: Vec<bool> = marks.iter().map(|m| !matches!(*m, "✗" | "✘" | "-" | "~" | "?")).collect();
        assert_eq!(checked, expected);
        assert!(reason_at(&list, 7).contains("(it holds U+0445)"), "{}", reason_at(&list, 7));
    }

    #[test]
    fn an_invisible_character_before_a_bullet_hides_no_box_and_is_named() {
        let list = read("- [ ] T001 a\n\u{feff}- [x] T002 b\n\u{200b}- [ ] T003 c\n- [\u{a0}] T004 d\n");
        assert_eq!(ids(&list), [(0, "T001", false)]);
        assert_eq!(unread(&list), [(1, true), (2, false), (3, false)]);
        assert!(
            reason_at(&list, 1).contains("an invisible U+FEFF stands before its bullet"),
            "{}",
            reason_at(&list, 1)
        );
        assert!(reason_at(&list, 2).contains("U+200B"), "{}", reason_at(&list, 2));
        assert!(reason_at(&list, 3).contains("(it holds U+00A0)"), "{}", reason_at(&list, 3));
    }

    #[test]
    fn a_backtick_fence_holds_no_task_and_its_boxes_are_unread() {
        let list = read("```\n- [x] T001 fake\n```\n- [ ] T001 real\n");
        assert_eq!(ids(&list), [(3, "T001", false)]);
        assert_eq!(unread(&list), [(1, true)]);
        assert!(reason_at(&list, 1).contains("inside a fenced code block"), "{}", reason_at(&list, 1));
    }

    #[test]
    fn a_tilde_fence_with_an_info_string_and_indentation_holds_no_task() {
        let list = read("   ~~~~ markdown\n- [ ] T001 fake\n~~~\n  ~~~~~\n- [ ] T002 real\n");
        assert_eq!(ids(&list), [(4, "T002", false)]);
        assert_eq!(unread(&list), [(1, false)]);
    }

    #[test]
    fn a_closing_fence_must_be_as_long_and_of_the_same_kind() {
        // ```` is closed neither by ``` nor by ~~~~, only by ```` (or longer).
        let list = read("````\n```\n~~~~\n- [ ] T001 fake\n`````\n- [ ] T002 real\n");
        assert_eq!(ids(&list), [(5, "T002", false)]);
    }

    #[test]
    fn a_fence_indented_four_spaces_is_indented_code_and_opens_no_fence() {
        let list = read("Text\n\n    ```\n- [ ] T001 real\n");
        assert_eq!(ids(&list), [(3, "T001", false)]);
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end_of_the_document() {
        let list = read("- [ ] T001 a\n\n```\n- [ ] T002 fake\n- [x] T003 fake\n");
        assert_eq!(ids(&list), [(0, "T001", false)]);
        assert_eq!(unread(&list), [(3, false), (4, true)]);
    }

    #[test]
    fn an_indented_code_block_holds_no_task_but_a_nested_item_is_one() {
        let code = read("Some text.\n\n    - [ ] T001 code\n\n- [ ] T002 real\n");
        assert_eq!(ids(&code), [(4, "T002", false)]);
        assert!(reason_at(&code, 2).contains("indented code block"));
        let nested = read("- [ ] T001 a\n\n    - [ ] T002 nested\n\t- [x] T003 tab\n");
        assert_eq!(ids(&nested), [(0, "T001", false), (2, "T002", false), (3, "T003", true)]);
    }

    #[test]
    fn a_one_line_html_comment_holds_no_task() {
        let list = read("<!-- - [ ] T001 fake -->\n- [ ] T002 real\n");
        assert_eq!(ids(&list), [(1, "T002", false)]);
    }

    #[test]
    fn a_multi_line_html_comment_holds_no_task() {
        let list = read("- [ ] T001 a\n\n<!--\n- [x] T002 fake\n\n- [ ] T003 fake\n-->\n- [ ] T004 b\n");
        assert_eq!(ids(&list), [(0, "T001", false), (7, "T004", false)]);
        assert_eq!(unread(&list), [(3, true), (5, false)]);
        assert!(reason_at(&list, 3).contains("HTML block or comment"));
    }

    #[test]
    fn a_box_behind_the_opening_of_a_comment_is_unread_and_an_unclosed_comment_hides_no_tick() {
        let list = read("- [ ] T001 a\n<!-- - [x] T002 hidden\n- [ ] T003 swallowed\n  1. [X] T004 too\n");
        assert_eq!(ids(&list), [(0, "T001", false)]);
        assert_eq!(unread(&list), [(1, true), (2, false), (3, true)]);
        assert!(reason_at(&list, 1).contains("HTML block or comment"), "{}", reason_at(&list, 1));
        // In text that CommonMark renders, prose that mentions a box is not one.
        assert!(read("Write - [x] to mark a task done.\n").unread().is_empty());
        // In a code block, a box must follow a blank: `'- [x]` in a string is not one.
        assert!(read("```\necho '- [x] done'\n```\n").unread().is_empty());
    }

    #[test]
    fn an_html_block_holds_no_task_until_its_blank_line() {
        let list = read("<details>\n- [x] T001 raw\n</details>\n\n- [ ] T002 real\n");
        assert_eq!(ids(&list), [(4, "T002", false)]);
        assert_eq!(unread(&list), [(1, true)]);
    }

    #[test]
    fn star_and_dash_bullets_are_read_and_plus_is_refused_by_name() {
        let list = read("- [x] T001 a\n* [x] T002 b\n+ [x] T003 c\n");
        assert_eq!(ids(&list), [(0, "T001", true), (1, "T002", true)]);
        assert_eq!(unread(&list), [(2, true)]);
        assert_eq!(list.unread()[0].word, "T003");
        assert!(reason_at(&list, 2).contains("`+` bullet"), "{}", reason_at(&list, 2));
    }

    #[test]
    fn ordered_items_are_refused_by_name() {
        let list = read("1. [x] T001 a\n2) [ ] T002 b\n");
        assert!(ids(&list).is_empty());
        assert_eq!(unread(&list), [(0, true), (1, false)]);
        assert!(reason_at(&list, 0).contains("ordered list item"));
        assert!(reason_at(&list, 1).contains("ordered list item"));
    }

    #[test]
    fn boxes_in_block_quotes_and_on_the_line_after_their_bullet_are_unread() {
        let list = read("> - [x] T001 quoted\n\n-\n  [x] T002 late\n\n- - [x] T003 nested\n");
        assert!(ids(&list).is_empty(), "{:?}", ids(&list));
        assert_eq!(unread(&list), [(0, true), (3, true), (5, true)]);
        assert!(reason_at(&list, 0).contains("block quote"));
        assert!(reason_at(&list, 3).contains("not on the line of its bullet"));
        assert!(reason_at(&list, 5).contains("does not directly follow"));
    }

    #[test]
    fn a_box_written_as_a_link_label_is_still_unread() {
        let list = read("[x]: https://example.com\n\n-\n  [x] T001 link\n");
        assert_eq!(unread(&list), [(3, true)]);
    }

    #[test]
    fn a_look_alike_id_is_unread_and_names_the_character() {
        let list = read("- [x] \u{422}008 cyrillic\n");
        assert!(ids(&list).is_empty());
        let reason = reason_at(&list, 0);
        assert!(reason.contains("U+0422"), "{reason}");
        assert_eq!(list.unread()[0].word, "\u{422}008");
    }

    #[test]
    fn punctuation_after_an_id_is_unread_and_says_so() {
        let list = read("- [x] T008: done\n- [X] T009, too\n");
        assert_eq!(unread(&list), [(0, true), (1, true)]);
        assert!(reason_at(&list, 0).contains("the id `T008` must be followed by a space"));
        let openspec =
            TaskList::read("- [x] 1.1: done\n- [x] 1.2. fine\n- [x] x.1 no\n".into(), Format::OpenSpec);
        assert_eq!(ids(&openspec), [(1, "1.2", true)]);
        assert!(
            reason_at(&openspec, 0).contains("`1.1:` is not an OpenSpec task id"),
            "{}",
            reason_at(&openspec, 0)
        );
        assert!(
            reason_at(&openspec, 2).contains("`x.1` is not an OpenSpec task id"),
            "{}",
            reason_at(&openspec, 2)
        );
        assert!(reason_at(&list, 0).contains("`T008:` is not a Spec Kit task id"), "{}", reason_at(&list, 0));
    }

    #[test]
    fn a_box_not_read_as_a_task_is_quoted_only_when_its_line_and_its_word_pass_the_clean_check() {
        let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
        let list = read(&format!(
            "- [y] T005 [US1] use {token}\n- [ ] T006\u{a0}[US1] use {token}\n- [x] {token} done\n- [y] T007 b\n"
        ));
        let not_shown = "(a value not shown, as it holds a GitHub token)";
        for u in &list.unread()[..3] {
            assert_eq!(u.shown, not_shown, "line {}", u.line_index);
            assert!(!u.reason.contains(&token[..20]), "{}", u.reason);
        }
        assert!(reason_at(&list, 2).contains(not_shown), "{}", reason_at(&list, 2));
        assert_eq!(list.unread()[3].shown, "- [y] T007 b", "a clean line is quoted");
    }

    #[test]
    fn boxes_out_of_shape_that_other_tools_count_are_unread() {
        let list = read("- [ x ] T001 a\n-[x] T002 b\n- [x]T003 c\n- [x]\n- [x] done without an id\n");
        assert!(ids(&list).is_empty());
        assert_eq!(unread(&list), [(0, true), (1, true), (2, true), (3, true), (4, true)]);
        assert!(reason_at(&list, 0).contains("is not `[ ]`"), "{}", reason_at(&list, 0));
        assert!(reason_at(&list, 1).contains("no space between"), "{}", reason_at(&list, 1));
        assert!(reason_at(&list, 2).contains("no space after"), "{}", reason_at(&list, 2));
        assert!(reason_at(&list, 3).contains("no task id"), "{}", reason_at(&list, 3));
        assert!(reason_at(&list, 4).contains("`done` is not"), "{}", reason_at(&list, 4));
    }

    #[test]
    fn a_box_between_fullwidth_or_lenticular_brackets_is_a_box_checked_unless_blank() {
        let list = read(
            "- [ ] T001 a\n- \u{ff3b}x\u{ff3d} T002 b\n- \u{3010}x\u{3011} T003 c\n\
             - \u{ff3b}\u{3000}\u{ff3d} T004 d\n- \u{3010} \u{3011} T005 e\n- \u{ff3b}\u{2713}\u{ff3d} T006 f\n",
        );
        assert_eq!(ids(&list), [(0, "T001", false)]);
        assert_eq!(unread(&list), [(1, true), (2, true), (3, false), (4, false), (5, true)]);
        assert_eq!(checked_unread(&list), [(1, "T002"), (2, "T003"), (5, "T006")]);
        let reason = reason_at(&list, 1);
        assert!(reason.contains("its box `\u{ff3b}x\u{ff3d}` is not `[ ]`"), "{reason}");
        assert!(reason.contains("U+FF3B and U+FF3D, not `[` and `]`"), "{reason}");
        assert!(reason_at(&list, 2).contains("U+3010 and U+3011"), "{}", reason_at(&list, 2));
    }

    #[test]
    fn a_box_between_any_paired_brackets_beyond_ascii_is_a_box_and_ascii_parentheses_hold_none() {
        let pairs = ["「」", "『』", "〔〕", "〖〗", "〈〉", "《》", "⟦⟧", "〘〙", "❨❩"];
        let mut text = "- [ ] T001 a\n".to_owned();
        for (n, pair) in pairs.iter().enumerate() {
            let (open, close) = (pair.chars().next().unwrap(), pair.chars().next_back().unwrap());
            text.push_str(&format!("- {open}x{close} T{:03} done by hand\n", n + 2));
        }
        text.push_str("- (x) T100 c\n- {x} T101 d\n- [ ] T102 Handle case (x) and {x} in src/a.rs\n");
        text.push_str("Done: 「x」 T103, and a code span `「x」 T104`\n");
        let list = read(&text);
        assert_eq!(ids(&list), [(0, "T001", false), (pairs.len() + 3, "T102", false)]);
        let boxes: Vec<(usize, String)> = (1..=pairs.len()).map(|i| (i, format!("T{:03}", i + 1))).collect();
        let mut expected: Vec<(usize, &str)> = boxes.iter().map(|(i, id)| (*i, id.as_str())).collect();
        expected.push((pairs.len() + 4, "T103"));
        assert_eq!(checked_unread(&list), expected);
        assert_eq!(list.unread().len(), expected.len(), "{:?}", list.unread());
        assert!(
            reason_at(&list, 1).contains("U+300C and U+300D, not `[` and `]`"),
            "{}",
            reason_at(&list, 1)
        );
        assert!(reason_at(&list, 7).contains("U+27E6 and U+27E7"), "{}", reason_at(&list, 7));
    }

    #[test]
    fn fullwidth_parentheses_and_braces_hold_no_box_as_ascii_ones_hold_none() {
        let list = read("- [ ] T001 a\n- （一）准备工作\n- （x） T002 b\n- ｛x｝ T003 c\n1. （二）T004 d\n");
        assert_eq!(ids(&list), [(0, "T001", false)]);
        assert!(list.unread().is_empty(), "{:?}", list.unread());
    }

    #[test]
    fn a_space_that_is_no_space_or_tab_is_named_where_one_is_needed() {
        let list = read("- [x]\u{a0}T001 a\n-\u{a0}[x] T002 b\n- [x]\u{3000}T003 c\n");
        assert!(ids(&list).is_empty());
        assert_eq!(unread(&list), [(0, true), (1, true), (2, true)]);
        for (line, after) in [
            (0, "after its box is U+00A0"),
            (1, "bullet and its box is U+00A0"),
            (2, "after its box is U+3000"),
        ] {
            let reason = reason_at(&list, line);
            assert!(reason.contains(after) && reason.contains("not a space or a tab"), "{line}: {reason}");
        }
    }

    #[test]
    fn a_space_after_the_id_that_is_no_space_or_tab_is_named() {
        let list =
            read("- [ ] T001\u{3000}ユーザー登録\n- [ ] T002\u{a0}Implement sign-up\n- [ ] T003 Fine\n");
        assert_eq!(ids(&list), [(2, "T003", false)]);
        assert!(
            reason_at(&list, 0).contains("the space after its id `T001` is U+3000"),
            "{}",
            reason_at(&list, 0)
        );
        assert!(reason_at(&list, 1).contains("is U+00A0"), "{}", reason_at(&list, 1));
    }

    #[test]
    fn a_lazy_continuation_line_is_no_task() {
        let list = read("Some text\n    - [x] T001 continues the paragraph\n");
        assert!(ids(&list).is_empty());
        assert!(reason_at(&list, 1).contains("does not render it as a task item"));
    }

    #[test]
    fn a_box_before_a_task_id_outside_a_list_item_is_unread_and_named_by_the_id() {
        let text = "- [ ] T001 Scaffold\n\n[x] T002 Deploy\n\n| Task | Status |\n|---|---|\n\
                    | T003 Migrate | [x] |\n| - [x] T004 Rotate keys | done |\n\n### - [X] T005 Review\n\n\
                    - [ ] T006 Docs\n  continuation [✅] T007 load test\n\n[ ] T008 Later\n";
        let list = read(text);
        assert_eq!(ids(&list), [(0, "T001", false), (11, "T006", false)]);
        let found: Vec<(usize, bool, &str)> =
            list.unread().iter().map(|u| (u.line_index, u.checked, u.word.as_str())).collect();
        assert_eq!(
            found,
            [
                (2, true, "T002"),
                (6, true, "T003"),
                (7, true, "T004"),
                (9, true, "T005"),
                (12, true, "T007"),
                (14, false, "T008")
            ]
        );
        assert!(reason_at(&list, 2).contains("a line without a list bullet"), "{}", reason_at(&list, 2));
        assert!(reason_at(&list, 6).contains("a table row"));
        assert!(reason_at(&list, 9).contains("a heading"));
        assert!(reason_at(&list, 12).contains("running text"));
    }

    #[test]
    fn a_check_mark_where_a_box_would_be_before_a_task_id_is_a_checked_box_unread() {
        let text = "- ✅ T001: Create the migrations\n  * ✔\u{fe0f} T002 Types\n✅ T003\n\
                    - ✅ Phase 1 complete\n**Checkpoint ✅ T001 done**\n| FR-001 | ✅ T002 |\n- ✗ T004 dropped\n";
        let list = read(text);
        let found: Vec<(usize, bool, &str)> =
            list.unread().iter().map(|u| (u.line_index, u.checked, u.word.as_str())).collect();
        assert_eq!(found, [(0, true, "T001"), (1, true, "T002"), (2, true, "T003")]);
        assert!(reason_at(&list, 0).contains("a check mark (`✅`), not a box"), "{}", reason_at(&list, 0));
    }

    #[test]
    fn a_check_mark_shortcode_is_read_as_the_check_mark_github_renders_it_as() {
        let text = "- [ ] T001 a\n- :white_check_mark: T009 Deploy\n* :heavy_check_mark: T010 b\n\
                    :ballot_box_with_check: T011 c\n\n| T012 d | :white_check_mark: |\n\n\
                    <p>:heavy_check_mark: T013 e</p>\n";
        let list = read(text);
        assert_eq!(ids(&list), [(0, "T001", false)]);
        assert_eq!(checked_unread(&list), [(1, "T009"), (2, "T010"), (3, "T011"), (5, "T012"), (7, "T013")]);
        assert!(reason_at(&list, 1).contains("a check mark (`✅`), not a box"), "{}", reason_at(&list, 1));
        assert!(reason_at(&list, 1).contains("an emoji shortcode"), "{}", reason_at(&list, 1));
    }

    #[test]
    fn a_shortcode_in_code_unclosed_or_of_no_check_mark_is_no_tick() {
        let text = "- [ ] T001 Render `:white_check_mark:` for done\n- :x: T002 dropped\n\
                    - :white_check_mark T003 unclosed\nWrite `:heavy_check_mark: T004` to mark one.\n";
        let list = read(text);
        assert_eq!(ids(&list), [(0, "T001", false)]);
        assert!(checked_unread(&list).is_empty(), "{:?}", list.unread());
    }

    #[test]
    fn a_check_mark_in_a_table_cell_of_a_row_naming_a_task_is_a_checked_box_unread() {
        let text = "| Task | Done |\n|---|---|\n| T009 Deploy | ✅ |\n| T010 Docs | ✔ |\n\
                    | T011 | Rotate | ☑\u{fe0f} done |\n| T012 Later | ✗ |\n| Deploy | ✅ |\n| FR-001 | ✅ T002 |\n";
        let list = read(text);
        assert_eq!(checked_unread(&list), [(2, "T009"), (3, "T010"), (4, "T011")]);
        assert!(reason_at(&list, 2).contains("a table row"), "{}", reason_at(&list, 2));
    }

    #[test]
    fn a_box_or_check_mark_right_after_a_task_id_or_ending_its_line_is_read_for_that_task() {
        let text = "- T009 [x] Deploy\n- **T010** ✔ done\n- T011: ✅ Rotate\n- T012 Deploy the service ✅\n\
                    * T013 Docs [X]\n\nT014 [x]\n\n- T015 [ ] Later\n";
        let list = read(text);
        assert!(ids(&list).is_empty(), "{:?}", ids(&list));
        assert_eq!(
            checked_unread(&list),
            [(0, "T009"), (1, "T010"), (2, "T011"), (3, "T012"), (4, "T013"), (6, "T014")]
        );
        assert_eq!(unread(&list).last(), Some(&(8, false)));
        assert!(reason_at(&list, 0).contains("after its task id"), "{}", reason_at(&list, 0));
        let openspec = TaskList::read("- 1.2 ✅ Deploy\n\n| 1.3 Docs | ✔ |\n".to_owned(), Format::OpenSpec);
        assert_eq!(unread(&openspec), [(0, true), (2, true)]);
    }

    #[test]
    fn a_mark_or_box_that_a_task_s_title_or_prose_mentions_is_no_tick() {
        let text = "- [ ] T010 Handle the `[x]` case\n- [ ] T011 Show ✓ for done tasks\n- [ ] T012 Draw a ✅\n\
                    - T013 Handle the `[x]` case\n- T014 Show ✓ beside done tasks\n- T015 Render the `✓`\n\
                    - T016 Parse [x] and [ ] boxes\n\nSee T017 and ✅ marks.\n\n**Checkpoint ✅ T001 done**\n";
        let list = read(text);
        assert_eq!(ids(&list), [(0, "T010", false), (1, "T011", false), (2, "T012", false)]);
        assert!(checked_unread(&list).is_empty(), "{:?}", list.unread());
    }

    /// The checked unread boxes of `list`: (line index, the word or id it is named by).
    fn checked_unread(list: &TaskList) -> Vec<(usize, &str)> {
        list.unread().iter().filter(|u| u.checked).map(|u| (u.line_index, u.word.as_str())).collect()
    }

    #[test]
    fn a_box_or_check_mark_written_with_character_references_is_read_as_it_renders() {
        let text = "- [ ] T001 a\n- [&#120;] T002 b\n- &#x2705; T003 c\n- [&#x2713;] T004 d\n\
                    [&check;] T005 e\n&#91;x&#93; T006 f\n\\[x\\] T007 g\n| T008 h | [&times;] |\n";
        let list = read(text);
        assert_eq!(ids(&list), [(0, "T001", false)]);
        let found = checked_unread(&list);
        assert_eq!(
            found,
            [(1, "T002"), (2, "T003"), (3, "T004"), (4, "T005"), (5, "T006"), (6, "T007"), (7, "T008")]
        );
        assert!(reason_at(&list, 1).contains("shows as `[x] T002 b`"), "{}", reason_at(&list, 1));
        assert!(reason_at(&list, 2).contains("a check mark (`✅`)"), "{}", reason_at(&list, 2));
        // A reference that renders as no mark leaves an open box open.
        assert!(checked_unread(&read("- [&#32;] T001 a\n- [&nbsp;] T002 b\n")).is_empty());
    }

    #[test]
    fn a_check_mark_is_read_for_a_task_only_where_it_starts_a_cell_however_long_the_row() {
        let line = format!("| T001 {}|\n", "x \u{2705} ".repeat(120_000));
        let list = read(&format!("- [ ] T000 open\n{line}"));
        assert!(checked_unread(&list).is_empty(), "a mark inside a cell is no task's state");
        let cells = format!("| T001 {}| \u{2705} |\n", "x \u{2705} ".repeat(120_000));
        assert_eq!(checked_unread(&read(&cells)), [(0, "T001")]);
    }

    #[test]
    fn a_check_mark_with_a_variation_selector_or_an_invisible_character_beside_it_is_read_as_one() {
        let text = "- [ ] T000 open\n- \u{2714}\u{fe0e} T001 a\n- \u{2705}\u{fe0e} T002 b\n- T003 c \u{2714}\u{fe0e}\n- T004 d \u{2705}\u{200b}\n- \u{200b}\u{2705} T005 e\n- T006\u{200b} \u{2705} f\n- \u{1f5f9} T007 g\n";
        let list = read(text);
        let ids: Vec<&str> = checked_unread(&list).into_iter().map(|(_, id)| id).collect();
        assert_eq!(ids, ["T001", "T002", "T003", "T004", "T005", "T006", "T007"]);
    }

    #[test]
    fn a_letter_or_number_that_numbers_a_list_is_no_mark_and_a_sign_for_done_is_one() {
        let numbered = "- [一] 环境准备\n- [二] T001 数据库迁移\n- 【三】部署\n- [가] 첫째 항목\n- [Ⅰ] Part one\n- [Ⅱ] T002 two\n- [é] T003 e\n";
        let list = read(&format!("- [ ] T000 open\n{numbered}"));
        assert!(checked_unread(&list).is_empty(), "{:?}", list.unread());
        let done = "- [済] T001 a\n- [完] T002 b\n- [〇] T003 c\n- [х] T004 d\n- [χ] T005 e\n- [ẋ] T006 f\n- [ｘ] T007 g\n";
        let list = read(done);
        let ids: Vec<&str> = checked_unread(&list).into_iter().map(|(_, id)| id).collect();
        assert_eq!(ids, ["T001", "T002", "T003", "T004", "T005", "T006", "T007"]);
    }

    #[test]
    fn a_heading_that_starts_with_a_task_id_then_a_check_mark_or_a_box_is_a_checked_box_unread() {
        let text = "- [ ] T000 open\n\n### T001 ✅ Add the role\n\n### T002: Configure dark mode ✅\n\n## T003 [x] Deploy\n\n## Phase 1: Setup ✅ COMPLETE\n\n### T004 Open work\n";
        let list = read(text);
        assert_eq!(checked_unread(&list), [(2, "T001"), (4, "T002"), (6, "T003")]);
    }

    #[test]
    fn a_look_alike_mark_or_a_mark_with_invisible_or_combining_characters_reads_as_checked() {
        let marks = [
            "\u{2715}",
            "\u{2716}",
            "\u{2179}",
            "\u{2169}",
            "\u{1d431}",
            "x\u{200b}",
            "\u{200b}X",
            "x\u{301}",
            "\u{2060} x \u{fe0f}",
            "\u{2611}\u{fe0e}",
        ];
        let text: String =
            marks.iter().enumerate().map(|(i, m)| format!("- [{m}] T{:03} a\n", i + 1)).collect();
        let list = read(&text);
        assert!(ids(&list).is_empty(), "{:?}", ids(&list));
        assert_eq!(unread(&list), (0..marks.len()).map(|i| (i, true)).collect::<Vec<_>>());
        assert!(reason_at(&list, 5).contains("(it holds U+200B)"), "{}", reason_at(&list, 5));
        // An invisible or combining character alone leaves a box open; a label letter is no mark.
        let open = read("- [\u{200b}] T001 a\n- [\u{301}] T002 b\n- [P] T003 c\n- [\u{2610}] T004 d\n");
        assert_eq!(unread(&open), [(0, false), (1, false), (2, false), (3, false)]);
    }

    #[test]
    fn a_bold_or_emphasised_box_before_a_task_id_is_unread() {
        let list = read("**[x]** T010 bold\n\n- **[X]** T011 bold\n- _[x]_ T012 emphasis\n- [ ] T013 real\n");
        assert_eq!(ids(&list), [(4, "T013", false)]);
        assert_eq!(checked_unread(&list), [(0, "T010"), (2, "T011"), (3, "T012")]);
        assert!(reason_at(&list, 2).contains("shows as `[X] T011 bold`"), "{}", reason_at(&list, 2));
    }

    #[test]
    fn a_loose_box_inside_an_html_block_is_unread_unless_a_comment_hides_it() {
        let text = "- [ ] T001 a\n\n<div>\n[x] T002 migrate\n</div>\n\n<p>[x] T003 drop</p>\n\n\
                    <table><tr><td>T004 notify</td><td>[x]</td></tr></table>\n\n<pre>\n- > [x] T005 rotate\n</pre>\n\n\
                    <div>\n<p>[&#120;] T006 entity</p> <!-- [x] T007 hidden\n[x] T008 hidden -->\n</div>\n\n\
                    <!-- [x] T009 hidden -->\n\n<p><!-- c --> [x] T010 after a comment</p>\n";
        let list = read(text);
        assert_eq!(ids(&list), [(0, "T001", false)]);
        assert_eq!(
            checked_unread(&list),
            [(3, "T002"), (6, "T003"), (8, "T004"), (11, "T005"), (15, "T006"), (21, "T010")]
        );
        assert!(reason_at(&list, 3).contains("an HTML block"), "{}", reason_at(&list, 3));
    }

    #[test]
    fn prose_labels_links_footnotes_blank_boxes_and_inline_code_hold_no_checked_box() {
        let text = "See [link text] and [P] for T001.\n\nTasks marked [P] can run beside T002.\n\n\
                    A footnote[^1] near T003.\n\n[^1]: T004 note\n\nWrite `[x] T005` to tick; `- [x] T006`, \
                    `✅ T007`.\n\n- [ ] T008 [P] [US1] real\n- [ ] T009 **bold** and `code` (FR-001)\n\
                    <span>[ ] T010 open</span>\n\n`a\n[x] T011` wrapped code\n";
        let list = read(text);
        assert_eq!(ids(&list), [(10, "T008", false), (11, "T009", false)]);
        assert!(checked_unread(&list).is_empty(), "{:?}", list.unread());
    }

    #[test]
    fn a_box_outside_a_list_item_with_no_task_id_or_in_a_code_block_is_no_box() {
        let text = "Mark tasks [X] when they are done; T001 first.\n\
                    Tasks marked [P] can run beside T002.\n\
                    | Task | Done |\n|---|---|\n| Deploy | [x] |\n\
                    See [x](https://example.com) T003.\n\
                    ```\n[x] T004 an example\n| T005 | [x] |\n```\n\
                    <!-- [x] T006 hidden -->\n";
        let list = read(text);
        assert!(list.unread().is_empty(), "{:?}", list.unread());
        let openspec =
            TaskList::read("[x] 1.2 Done\nThe [x] box means 3 things\n".to_owned(), Format::OpenSpec);
        assert_eq!(unread(&openspec), [(0, true)]);
    }

    #[test]
    fn links_in_list_items_are_no_boxes() {
        let list = read("- [x](https://example.com) a link\n- [A] label\n- [ ][ref]\n");
        assert!(list.tasks().is_empty());
        assert!(list.unread().iter().all(|u| !u.checked), "{:?}", list.unread());
    }

    #[test]
    fn cr_only_crlf_and_mixed_line_endings_split_lines_as_commonmark_does() {
        for text in [
            "# T\r- [ ] T001 a\r- [x] T002 b\r",
            "# T\r\n- [ ] T001 a\r\n- [x] T002 b\r\n",
            "# T\n- [ ] T001 a\r- [x] T002 b\r\n",
            "# T\r- [ ] T001 a\r\n- [x] T002 b",
        ] {
            let list = read(text);
            assert_eq!(ids(&list), [(1, "T001", false), (2, "T002", true)], "{text:?}");
            assert_eq!(list.line(1), "- [ ] T001 a", "{text:?}");
            assert_eq!(list.line(2), "- [x] T002 b", "{text:?}");
            assert_eq!(list.line_count(), 3);
        }
        let fenced = read("```\r- [x] T001 fake\r```\r- [ ] T002 real\r");
        assert_eq!(ids(&fenced), [(3, "T002", false)]);
        assert_eq!(unread(&fenced), [(1, true)]);
        let tilde = read("~~~\r- [x] T001 fake\r~~~\r- [ ] T002 real\r");
        assert_eq!(ids(&tilde), [(3, "T002", false)]);
        let comment = read("<!--\r- [x] T001 fake\r-->\r- [ ] T002 real\r");
        assert_eq!(ids(&comment), [(3, "T002", false)]);
        let crlf =
            read("<!--\r\n- [x] T001 fake\r\n-->\r\n```\r\n- [ ] T001 fake\r\n```\r\n- [ ] T002 real\r\n");
        assert_eq!(ids(&crlf), [(6, "T002", false)]);
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_line() {
        let list = read("\u{feff}- [ ] T001 a\n- [ ] T002 b\n");
        assert_eq!(ids(&list), [(0, "T001", false), (1, "T002", false)]);
        assert_eq!(list.line(0), "- [ ] T001 a");
        assert_eq!(list.line_start(0), Some(3));
        // Only at the very start: elsewhere it is text.
        let inner = read("x\n\u{feff}- [ ] T001 a\n");
        assert!(inner.tasks().is_empty());
    }

    #[test]
    fn an_openspec_list_reads_numbered_ids() {
        let list =
            TaskList::read("## 1. Impl\n- [x] 1.1 Do\n- [ ] T001 not openspec\n".into(), Format::OpenSpec);
        assert_eq!(ids(&list), [(1, "1.1", true)]);
        assert_eq!(unread(&list), [(2, false)]);
    }

    #[test]
    fn hostile_nesting_and_fences_are_read_without_trouble() {
        let deep_quotes = ">".repeat(10_000) + " - [x] T001\n";
        assert_eq!(unread(&read(&deep_quotes)), [(0, true)]);
        let deep_items: String = (0..300).map(|i| format!("{}- [ ] T{i} x\n", "  ".repeat(i))).collect();
        assert_eq!(read(&deep_items).tasks().len(), 300);
        let open = "```\n".repeat(10_001) + "- [ ] T1 x\n";
        assert!(read(&open).tasks().is_empty());
        let closed = "```\n".repeat(10_000) + "- [ ] T1 x\n";
        assert_eq!(ids(&read(&closed)), [(10_000, "T1", false)]);
        let long_fence = "`".repeat(100_000) + "\n- [x] T1 x\n";
        assert_eq!(unread(&read(&long_fence)), [(1, true)]);
        let brackets = "- [x] T1 ".to_owned() + &"[".repeat(100_000) + "\n";
        assert_eq!(ids(&read(&brackets)), [(0, "T1", true)]);
    }

    #[test]
    fn a_task_kept_as_spans_reads_as_its_line_does() {
        let text = "\u{feff}* [X] T007 [P] [US2] Title with  spaces (FR-001)  \r\n  - [ ] T008 [US1] [P] x\n";
        let list = TaskList::read(text.to_owned(), Format::SpecKit);
        let tasks = list.tasks();
        assert_eq!(tasks.len(), 2);
        for (index, task) in &tasks {
            assert_eq!(
                Some(task),
                super::super::parse_task_line(Format::SpecKit, list.line(*index)).as_ref()
            );
        }
        assert_eq!(tasks[0].1.story, Some("US2"));
        assert_eq!(tasks[0].1.title, "Title with  spaces (FR-001)");
        assert_eq!((tasks[1].1.story, tasks[1].1.parallel), (Some("US1"), true));
    }

    /// The continuation of the task on each line that holds one: (line index, its lines).
    fn continuations(list: &TaskList) -> Vec<(usize, Vec<&str>)> {
        list.tasks().into_iter().map(|(i, _)| (i, list.continuation(i))).collect()
    }

    #[test]
    fn a_wrapped_task_continues_onto_its_indented_lines() {
        let list = read(
            "- [ ] T006 [US1] Show the tags of each bookmark in the list view\n  in src/ui/list.rs (SC-001)\n  \
             and *more*\n- [ ] T007 next\n",
        );
        assert_eq!(
            continuations(&list),
            [(0, vec!["  in src/ui/list.rs (SC-001)", "  and *more*"]), (3, vec![])]
        );
        assert_eq!(list.continuation(1), Vec::<&str>::new(), "no task on that line");
    }

    #[test]
    fn a_lazy_line_continues_the_task_s_paragraph() {
        let list = read("# Tasks\n\n- [x] T001 Do the first part\nand the lazy rest (FR-001)\n\nAfter.\n");
        assert_eq!(continuations(&list), [(2, vec!["and the lazy rest (FR-001)"])]);
    }

    #[test]
    fn a_nested_list_under_a_task_is_no_part_of_its_text() {
        let list = read(
            "- [ ] T001 Parent task\n  wrapped\n  - a sub-bullet\n    its own wrap\n  - [ ] T002 nested\n    nested wrap\n",
        );
        assert_eq!(continuations(&list), [(0, vec!["  wrapped"]), (4, vec!["    nested wrap"])]);
        let direct = read("- [ ] T001 Parent task\n  - [x] T002 nested\n");
        assert_eq!(continuations(&direct), [(0, vec![]), (1, vec![])]);
    }

    #[test]
    fn a_later_paragraph_or_block_of_the_item_is_no_part_of_the_task() {
        let list = read(
            "- [ ] T001 First\n  still first\n\n  A second paragraph.\n- [ ] T002 Second\n  ```\n  code\n  ```\n\
             - [ ] T003 Third\n  ---\n",
        );
        assert_eq!(continuations(&list)[..2], [(0, vec!["  still first"]), (4, vec![])]);
        let heading = read("- [ ] T001 Title\n# Heading\n- [ ] T002 b\n> quoted\n");
        assert_eq!(continuations(&heading), [(0, vec![]), (2, vec![])]);
    }

    #[test]
    fn a_continuation_is_read_alike_whatever_the_line_endings() {
        for ending in ["\n", "\r\n", "\r"] {
            let text = ["- [x] T001 a", "  b (SC-001)", "- [ ] T002 c", "lazy", ""].join(ending);
            let list = TaskList::read(format!("\u{feff}{text}"), Format::SpecKit);
            assert_eq!(continuations(&list), [(0, vec!["  b (SC-001)"]), (2, vec!["lazy"])], "{ending:?}");
        }
    }

    /// Every field of two readings is the same.
    fn same_reading(a: &TaskList, b: &TaskList) -> bool {
        (&a.text, a.format, &a.lines, &a.tasks, &a.unread)
            == (&b.text, b.format, &b.lines, &b.tasks, &b.unread)
    }

    /// The byte offsets of the marks of `list`'s task boxes.
    fn task_marks(list: &TaskList) -> Vec<usize> {
        list.tasks().iter().filter_map(|(i, t)| Some(list.line_start(*i)? + t.box_at)).collect()
    }

    #[test]
    fn a_reading_made_from_another_by_its_ticks_is_the_reading_of_the_ticked_text() {
        let text = "\u{feff}# Tasks\r\n\n- [ ] T001 a\r\n  - [x] T002 [P] b\n```\n- [ ] T003 in code\n```\n\
                    > - [ ] T004 quoted\n<!-- - [ ] T005 -->\n- [ ] T006 [US1] c\n";
        let list = read(text);
        assert_eq!(ids(&list), [(2, "T001", false), (3, "T002", true), (9, "T006", false)]);
        for (from, to) in [("[ ] T001", "[x] T001"), ("[x] T002", "[ ] T002"), ("[ ] T006", "[X] T006")] {
            let ticked = text.replace(from, to);
            let made = list.with_marks_of(ticked.clone()).unwrap_or_else(|_| panic!("{to}"));
            assert!(same_reading(&made, &read(&ticked)), "{to}");
        }
        let all = text.replace("[ ] T001", "[x] T001").replace("[ ] T006", "[x] T006");
        assert!(same_reading(&list.with_marks_of(all.clone()).unwrap_or_else(|_| panic!()), &read(&all)));
    }

    #[test]
    fn a_text_that_differs_anywhere_but_a_task_s_mark_is_given_back_to_be_read_whole() {
        let text = "- [ ] T001 a\n```\n- [ ] T002 in code\n```\n> - [ ] T003 quoted\n- [ ] T004 b\n";
        let list = read(text);
        for other in [
            text.replace("[ ] T002", "[x] T002"),  // a box in a code block
            text.replace("[ ] T003", "[x] T003"),  // a box CommonMark does not render as a task
            text.replace("T004 b", "T004 c"),      // the text of a task
            text.replace("[ ] T004", "[\t] T004"), // a mark that is no ` `, `x` or `X`
            text.replace("```\n- [ ] T002", "~~~\n- [ ] T002"),
            format!("{text}\n"),
        ] {
            assert_eq!(list.with_marks_of(other.clone()).err().as_deref(), Some(other.as_str()));
        }
        assert_eq!(
            list.with_marks_of(text.to_owned()).ok().map(|made| same_reading(&made, &list)),
            Some(true)
        );
    }

    /// Lines of the shapes real task lists have, and some they should not.
    fn shaped_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let id = (1u32..40).prop_map(|n| format!("T{n:03}"));
        let mark = prop_oneof![Just(' '), Just('x'), Just('X')];
        let indent = prop_oneof![Just(""), Just("  "), Just("    "), Just("\t"), Just("> ")];
        let bullet = prop_oneof![Just("-"), Just("*"), Just("+"), Just("1."), Just("-[")];
        (indent, bullet, mark, id, prop_oneof![Just(""), Just(" [P]"), Just(" [US1]")]).prop_flat_map(
            |(indent, bullet, mark, id, tag)| {
                prop_oneof![
                    4 => Just(format!("{indent}{bullet} [{mark}] {id}{tag} do it")),
                    1 => Just("```".to_owned()),
                    1 => Just("<!-- x".to_owned()),
                    1 => Just("-->".to_owned()),
                    1 => Just(String::new()),
                    1 => Just(format!("## Phase {id}")),
                    1 => Just(format!("{indent}[{mark}] {id} after its bullet")),
                    1 => Just(format!("{indent}{bullet} [{mark}] not an id")),
                ]
            },
        )
    }

    proptest::proptest! {
        #[test]
        fn a_reading_made_from_another_is_the_reading_of_its_text_whenever_one_is_made(
            lines in proptest::collection::vec(shaped_line(), 0..30),
            crlf in proptest::prelude::any::<bool>(),
            flips in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), 0u8..3), 0..6),
            elsewhere in proptest::option::of((proptest::prelude::any::<proptest::sample::Index>(), 0u8..3)),
        ) {
            let ending = if crlf { "\r\n" } else { "\n" };
            let text: String = lines.iter().map(|l| format!("{l}{ending}")).collect();
            let list = read(&text);
            let marks = task_marks(&list);
            let mut bytes = text.clone().into_bytes();
            let mark = |m: u8| [b' ', b'x', b'X'][usize::from(m)];
            for (at, m) in &flips {
                if !marks.is_empty() {
                    bytes[marks[at.index(marks.len())]] = mark(*m);
                }
            }
            let only_ticks = bytes.clone();
            // A mark-like byte anywhere else: then a reading is made only if it is a task's mark.
            if let Some((at, m)) = elsewhere {
                let candidates: Vec<usize> =
                    (0..bytes.len()).filter(|i| matches!(bytes[*i], b' ' | b'x' | b'X')).collect();
                if !candidates.is_empty() {
                    bytes[candidates[at.index(candidates.len())]] = mark(m);
                }
            }
            for bytes in [only_ticks, bytes] {
                let other = String::from_utf8(bytes.clone()).unwrap();
                let whole = read(&other);
                let differs_elsewhere = bytes.iter().zip(text.as_bytes()).enumerate()
                    .any(|(i, (a, b))| a != b && !marks.contains(&i));
                match list.with_marks_of(other.clone()) {
                    Ok(made) => {
                        proptest::prop_assert!(same_reading(&made, &whole), "{other:?}");
                        proptest::prop_assert!(!differs_elsewhere);
                    }
                    Err(back) => {
                        proptest::prop_assert_eq!(&back, &other);
                        proptest::prop_assert!(differs_elsewhere, "a tick only, and no reading made: {other:?}");
                    }
                }
            }
        }
    }

    /// Each task's id with the lines holding it; the ticked boxes, each id with whether it is on
    /// several lines; the ids ticked on one line only.
    type IdFacts = (Vec<(String, Vec<usize>)>, Vec<(String, bool)>, Vec<String>);

    /// The line indices of every task of `id`, the ticked boxes (each id once, with whether it is
    /// on several lines) and the ids ticked on one line only, as a scan of every task finds them.
    fn scanned(list: &TaskList) -> IdFacts {
        let tasks = list.tasks();
        let lines = |id: &str| tasks.iter().filter(|(_, t)| t.id == id).map(|(i, _)| *i).collect::<Vec<_>>();
        let by_id = tasks.iter().map(|(_, t)| (t.id.to_owned(), lines(t.id))).collect();
        let mut boxes: Vec<(String, bool)> = Vec::new();
        for (_, task) in tasks.iter().filter(|(_, t)| t.ticked) {
            if !boxes.iter().any(|(id, _)| id == task.id) {
                boxes.push((task.id.to_owned(), lines(task.id).len() > 1));
            }
        }
        let once = boxes.iter().filter(|(_, repeated)| !repeated).map(|(id, _)| id.clone()).collect();
        (by_id, boxes, once)
    }

    /// What the index of ids gives for the same questions as [`scanned`].
    fn indexed(list: &TaskList) -> IdFacts {
        let tasks = list.tasks();
        let by_id = tasks.iter().map(|(_, t)| (t.id.to_owned(), list.lines_of(t.id).collect())).collect();
        let boxes = list.ticked_boxes().map(|(id, repeated)| (id.to_owned(), repeated)).collect();
        let once = tasks.iter().map(|(_, t)| t.id).filter(|id| list.ticks_on_one_line(id));
        let mut once: Vec<String> = once.map(str::to_owned).collect();
        once.dedup();
        (by_id, boxes, once)
    }

    #[test]
    fn the_index_of_ids_gives_the_lines_and_ticked_boxes_a_scan_of_every_task_gives() {
        let text = "- [ ] T010 a\n- [x] T002 b\n- [x] T010 copy\n- [ ] T001 c\n- [x] T010 again\n- [x] T003 d\n- [ ] T003 e\n";
        let list = read(text);
        assert_eq!(indexed(&list), scanned(&list));
        let (_, boxes, once) = indexed(&list);
        assert_eq!(boxes, [("T002".to_owned(), false), ("T010".to_owned(), true), ("T003".to_owned(), true)]);
        assert_eq!(once, ["T002"]);
        assert_eq!(list.lines_of("T404").count(), 0);
        assert!(!list.ticks_on_one_line("T001"), "open");
    }

    #[test]
    fn a_reading_made_from_another_by_ticks_shares_its_index_of_ids_and_answers_as_one_parsed_anew() {
        let before = "- [ ] T001 a\n- [x] T002 b\n- [ ] T002 b again\n- [ ] T003 c\n";
        let list = read(before);
        assert_eq!(list.lines_of("T002").collect::<Vec<_>>(), [1, 2]);
        let after = before.replace("[ ] T001", "[x] T001").replace("[x] T002", "[ ] T002");
        let made = list.with_marks_of(after.clone()).unwrap_or_else(|_| panic!("only marks differ"));
        assert!(Arc::ptr_eq(&list.by_id, &made.by_id), "the index made for the first reading");
        assert_eq!(indexed(&made), scanned(&read(&after)));
        assert_eq!(indexed(&made), indexed(&read(&after)));
        assert_ne!(indexed(&made), indexed(&list), "its own ticks, not the first reading's");
        let edited = read(&before.replace("T003 c", "T004 c"));
        assert!(!Arc::ptr_eq(&list.by_id, &edited.by_id), "another text is indexed anew");
        assert_eq!(edited.lines_of("T004").collect::<Vec<_>>(), [3]);
    }

    /// The byte offsets of `line` that `asked` picks among its character boundaries and its end,
    /// in order, as a reader that moves forward asks them.
    fn offsets_asked(line: &str, asked: &[proptest::sample::Index]) -> Vec<usize> {
        let starts: Vec<usize> = line.char_indices().map(|(at, _)| at).chain([line.len()]).collect();
        let mut at: Vec<usize> = asked.iter().map(|i| starts[i.index(starts.len())]).collect();
        at.sort_unstable();
        at
    }

    proptest::proptest! {
        #[test]
        fn the_index_of_ids_answers_as_a_scan_of_every_task_for_any_ids_and_ticks(
            tasks in proptest::collection::vec((0u8..4, proptest::prelude::any::<bool>()), 0..24),
        ) {
            let text: String = tasks
                .iter()
                .map(|(id, ticked)| format!("- [{}] T00{id} a\n", if *ticked { 'x' } else { ' ' }))
                .collect();
            let list = read(&text);
            proptest::prop_assert_eq!(indexed(&list), scanned(&list), "{}", text);
        }

        #[test]
        fn the_first_word_after_each_box_reads_as_the_word_of_the_rest_of_the_line(
            line in "[\\[\\]x!*.:T01a \t\u{a0}✓]{0,40}",
            asked in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..12),
        ) {
            let at = offsets_asked(&line, &asked);
            let mut words = WordsAfter { line: &line, word_end: 0, id_end: 0, kept_from: 0 };
            for at in at {
                let plain = line[at..].split_whitespace().next().map(id_word);
                proptest::prop_assert_eq!(words.id_word(at), plain, "{:?} after {}", line, at);
            }
        }

        #[test]
        fn a_cell_is_blank_before_a_mark_as_the_text_from_its_bar_says(
            line in "[| a\t\u{3000}✓]{0,40}",
            asked in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..12),
        ) {
            let at = offsets_asked(&line, &asked);
            let mut cells = Cells { line: &line, searched: 0, last_bar: None, filled_to: 0 };
            for at in at {
                let plain = line[..at].rfind('|').map(|bar| line[bar + 1..at].trim().is_empty());
                proptest::prop_assert_eq!(cells.blank_before(at), plain, "{:?} before {}", line, at);
            }
        }

        #[test]
        fn what_ends_a_line_is_what_only_blanks_follow(line in "[ a\t\u{a0}\u{3000}✓]{0,24}") {
            let around = Around { lead: Some(("T001".to_owned(), usize::MAX)), table: false, table_id: None, blank_from: line.trim_end().len() };
            for (end, _) in line.char_indices().chain([(line.len(), ' ')]) {
                let ends = around.lead_id(0, end).is_some();
                proptest::prop_assert_eq!(ends, line[end..].trim().is_empty(), "{:?} from {}", line, end);
            }
        }
    }

    #[test]
    fn a_box_or_check_mark_before_only_blanks_ends_its_line_however_many_there_are() {
        let blanks = " \u{a0}\t\u{3000}".repeat(2_000);
        let text = format!(
            "- [ ] T000 open\nT001 Deploy {}{blanks}\nT002 Docs {}{blanks}\nT003 x ✅ y{blanks}\n",
            "✅".repeat(2_000),
            "[x] ".repeat(2_000)
        );
        assert_eq!(checked_unread(&read(&text)), [(1, "T001"), (2, "T002")]);
        // Boxes in one long word: each is followed by the rest of that word.
        let word = format!("- [ ] T000 open\nrun {}**T004**\n", "[x]a".repeat(2_000));
        assert!(checked_unread(&read(&word)).is_empty(), "`a[x]a…a**T004**` names no task");
        let id_ends_word = format!("- [ ] T000 open\nrun {}[x]T004**\n", "[]!".repeat(2_000));
        assert_eq!(checked_unread(&read(&id_ends_word)), [(1, "T004")]);
    }
}
