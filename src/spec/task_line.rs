//! One task line: `- [ ] T001 [P] [US1] Description (FR-001)` (Spec Kit) or `- [ ] 1.1 Title`
//! (OpenSpec), and the line hash that pins it.

use std::ops::Range;

use crate::model::digest::sha256_hex;

use super::unit::Format;

/// A parsed task line; byte offsets are into the line without its ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskLine<'a> {
    /// Byte offset of the box character (the ` `, `x` or `X` between `[` and `]`).
    pub box_at: usize,
    /// Whether the box holds `x` or `X`.
    pub ticked: bool,
    /// The task id: `T001` (Spec Kit) or `1.1` (OpenSpec).
    pub id: &'a str,
    /// Spec Kit: whether the task carries the `[P]` (parallel) label; always false for OpenSpec.
    pub parallel: bool,
    /// Spec Kit: the `USn` of a `[USn]` label; always None for OpenSpec.
    pub story: Option<&'a str>,
    /// The text after the id and the labels, surrounding whitespace trimmed.
    pub title: &'a str,
    /// Spec Kit: the run of labels after the id as written, blanks between them kept: `[P]`,
    /// `[USn]` and the published speccoder's `[YOU]`, each read by either reading of the line;
    /// empty when there are none, and for OpenSpec. This crate's reading stops at a second
    /// `[USn]` or at `[YOU]`, which begin its [`Self::title`]; the published speccoder's reads
    /// every label of the run and binds the last `[USn]` ([`Self::story_labels`],
    /// [`Self::after_labels`]).
    pub labels: &'a str,
    /// The text after every label of [`Self::labels`], surrounding whitespace trimmed: the title
    /// as the published speccoder read it.
    pub after_labels: &'a str,
}

impl<'a> TaskLine<'a> {
    /// The `USn` of each `[USn]` label of [`Self::labels`], in order: [`Self::story`] is the
    /// first, and the published speccoder bound the last.
    pub fn story_labels(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let mut rest = self.labels;
        std::iter::from_fn(move || {
            loop {
                let (label, after) = label_at(rest.trim_start())?;
                rest = after;
                if let Label::Story(story) = label {
                    return Some(story);
                }
            }
        })
    }
}

/// Whether `id` is a task id of `format`: `T`, digits and at most one ASCII letter, as Spec Kit's
/// analyze and clarify steps insert tasks between others (`T001`, `T012a`; Spec Kit), or
/// dot-separated numbers like `2` or `1.1`, which when they are two or more may end in ASCII
/// letters, as a task inserted between others is numbered (`1.1a`, `2.3bc`; OpenSpec's own
/// validator reads its task ids so, and so does the published speccoder). A letter after one
/// number alone (`1a`) is no id: neither reads one.
#[must_use]
pub fn is_task_id(format: Format, id: &str) -> bool {
    match format {
        Format::SpecKit => id.strip_prefix('T').is_some_and(|rest| {
            let n = rest.strip_suffix(|c: char| c.is_ascii_alphabetic()).unwrap_or(rest);
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
        }),
        Format::OpenSpec => {
            let numbers = id.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            let lettered = numbers.len() < id.len();
            !numbers.is_empty()
                && numbers.split('.').all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                && (!lettered || numbers.contains('.'))
        }
    }
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `s` without leading spaces and tabs.
fn skip_blanks(s: &str) -> &str {
    s.trim_start_matches([' ', '\t'])
}

/// Parses `line` (without its ending) as a task line of `format`: optional indentation, a `-` or
/// `*` bullet, blanks, a `[ ]`/`[x]`/`[X]` box, blanks, the id (OpenSpec: one trailing `.` allowed
/// after any id, `2.`, `1.2.` or `1.1a.`, and not part of it), then (Spec Kit) any `[P]` and one
/// `[USn]` label, then the title, with every label of the run after the id as the published
/// speccoder read them ([`TaskLine::labels`]). None when it is not one. This is the shape of one
/// line only: whether a line of a task list is a task at all (not in a code block or a comment)
/// is the task list reader's call, which uses this.
#[must_use]
pub fn parse_task_line(format: Format, line: &str) -> Option<TaskLine<'_>> {
    TaskSpans::parse(format, line).map(|spans| spans.on(line))
}

/// A [`TaskLine`] as byte ranges into its line, so that a reader can keep it beside the text it
/// owns instead of borrowing the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskSpans {
    /// [`TaskLine::box_at`].
    box_at: usize,
    /// [`TaskLine::ticked`].
    ticked: bool,
    /// Where [`TaskLine::id`] is.
    id: Range<usize>,
    /// [`TaskLine::parallel`].
    parallel: bool,
    /// Where [`TaskLine::story`] is.
    story: Option<Range<usize>>,
    /// Where [`TaskLine::title`] is.
    title: Range<usize>,
    /// Where [`TaskLine::labels`] is.
    labels: Range<usize>,
    /// Where [`TaskLine::after_labels`] is.
    after_labels: Range<usize>,
}

impl TaskSpans {
    /// [`parse_task_line`], as ranges into `line`.
    pub(crate) fn parse(format: Format, line: &str) -> Option<Self> {
        // Where a suffix of `line` (every `rest` below is one) starts in it.
        let at = |rest: &str| line.len() - rest.len();
        let rest = skip_blanks(line);
        let rest = rest.strip_prefix(['-', '*'])?;
        if !rest.bytes().next().is_some_and(is_blank) {
            return None;
        }
        let rest = skip_blanks(rest);
        let box_at = at(rest) + 1;
        let (mark, rest) = match rest.as_bytes() {
            [b'[', mark @ (b' ' | b'x' | b'X'), b']', ..] => (*mark, rest.get(3..)?),
            _ => return None,
        };
        if !rest.bytes().next().is_some_and(is_blank) {
            return None;
        }
        let rest = skip_blanks(rest);
        let token_at = at(rest);
        let end = rest.find([' ', '\t']).unwrap_or(rest.len());
        let (token, mut rest) = rest.split_at(end);
        let id = match format {
            Format::SpecKit => token,
            Format::OpenSpec => token.strip_suffix('.').unwrap_or(token),
        };
        if !is_task_id(format, id) {
            return None;
        }
        let id = token_at..token_at + id.len();
        let mut parallel = false;
        let mut story = None;
        // Where this crate's title starts, when a label of the run is one its reading leaves in it.
        let mut title_at = None;
        let mut labels = at(rest)..at(rest);
        if format == Format::SpecKit {
            // The published speccoder skips any white space between labels; this crate, blanks.
            while let Some((label, after)) = label_at(rest.trim_start()) {
                let next = rest.trim_start();
                if labels.is_empty() {
                    labels.start = at(next);
                }
                if title_at.is_none() {
                    match label {
                        _ if skip_blanks(rest) != next => title_at = Some(at(next)),
                        Label::Parallel => parallel = true,
                        // The label starts after the `[` of `next`.
                        Label::Story(label) if story.is_none() => {
                            story = Some(at(next) + 1..at(next) + 1 + label.len());
                        }
                        Label::Story(_) | Label::Yours => title_at = Some(at(next)),
                    }
                }
                rest = after;
                labels.end = at(rest);
            }
        }
        let trimmed = |from: usize| {
            let text = line.get(from..).unwrap_or_default().trim_start();
            at(text)..at(text) + text.trim_end().len()
        };
        let after_labels = trimmed(at(rest));
        let title = title_at.map_or_else(|| after_labels.clone(), trimmed);
        Some(TaskSpans { box_at, ticked: mark != b' ', id, parallel, story, title, labels, after_labels })
    }

    /// [`TaskLine::box_at`].
    pub(crate) fn box_at(&self) -> usize {
        self.box_at
    }

    /// [`TaskLine::ticked`].
    pub(crate) fn ticked(&self) -> bool {
        self.ticked
    }

    /// Where [`TaskLine::id`] is in the line.
    pub(crate) fn id_range(&self) -> Range<usize> {
        self.id.clone()
    }

    /// [`TaskLine::id`], read from `line` (the line these spans were parsed from).
    pub(crate) fn id_on<'a>(&self, line: &'a str) -> &'a str {
        line.get(self.id.clone()).unwrap_or_default()
    }

    /// Whether the id is where `other` has it.
    pub(crate) fn same_id_place(&self, other: &Self) -> bool {
        self.id == other.id
    }

    /// The task line these spans were parsed from, read from `line` (the same line).
    pub(crate) fn on<'a>(&self, line: &'a str) -> TaskLine<'a> {
        let part = |range: &Range<usize>| line.get(range.clone()).unwrap_or_default();
        TaskLine {
            box_at: self.box_at,
            ticked: self.ticked,
            id: part(&self.id),
            parallel: self.parallel,
            story: self.story.as_ref().map(part),
            title: part(&self.title),
            labels: part(&self.labels),
            after_labels: part(&self.after_labels),
        }
    }
}

/// A label of the run after a Spec Kit task's id.
enum Label<'a> {
    /// `[P]`.
    Parallel,
    /// `[USn]`: its `USn`.
    Story(&'a str),
    /// `[YOU]`, the published speccoder's mark of a task left to a person.
    Yours,
}

/// The label at the start of `s`, and the rest after it.
fn label_at(s: &str) -> Option<(Label<'_>, &str)> {
    if let Some(after) = s.strip_prefix("[P]") {
        return Some((Label::Parallel, after));
    }
    if let Some(after) = s.strip_prefix("[YOU]") {
        return Some((Label::Yours, after));
    }
    story_label(s).map(|(story, after)| (Label::Story(story), after))
}

/// A `[USn]` label at the start of `s`: (`USn`, the rest after `]`).
fn story_label(s: &str) -> Option<(&str, &str)> {
    let inner = s.strip_prefix('[')?;
    let digits = inner.strip_prefix("US")?;
    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || digits.as_bytes().get(n) != Some(&b']') {
        return None;
    }
    let label = inner.get(..2 + n)?;
    let after = inner.get(2 + n + 1..)?;
    Some((label, after))
}

/// The bracket at the start of a task's `title` that a person reads as a story label although it
/// binds no story: a second `[USn]` after the one a task may have, or one written otherwise
/// (`[us1]`, `[US 1]`, `[US1, US2]`, `[US1/US2]`). None when the title starts otherwise.
#[must_use]
pub fn unbound_story_label(title: &str) -> Option<&str> {
    let end = title.strip_prefix('[')?.find(']')? + 2;
    let label = title.get(..end)?;
    let inner = label.get(1..end - 1)?;
    let story = |part: &str| {
        let part = part.trim();
        let digits = part.get(..2).filter(|us| us.eq_ignore_ascii_case("us")).map(|_| part[2..].trim_start());
        digits.is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    };
    inner.split([',', ';', '/', '&']).all(story).then_some(label)
}

/// `line` with every `[x]` and `[X]` read as `[ ]`, nothing else changed.
#[must_use]
pub fn open_boxes(line: &str) -> String {
    line.replace("[x]", "[ ]").replace("[X]", "[ ]")
}

/// The task line hash: sha256 of the line without its ending (one `\n`, and a `\r` before it),
/// with every `[x]`/`[X]` box read as `[ ]`, nothing else normalised.
#[must_use]
pub fn line_hash(line: &str) -> String {
    sha256_hex(open_boxes(super::text::without_ending(line)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_kit_line_yields_its_id_labels_and_title() {
        let t = parse_task_line(Format::SpecKit, "- [ ] T001 [P] [US1] Description (FR-001)").unwrap();
        assert_eq!(t.id, "T001");
        assert!(t.parallel && !t.ticked);
        assert_eq!(t.story, Some("US1"));
        assert_eq!(t.title, "Description (FR-001)");
        assert_eq!(t.box_at, 3);
    }

    #[test]
    fn spec_kit_labels_may_come_in_either_order_or_not_at_all() {
        let t = parse_task_line(Format::SpecKit, "* [X] T010 [US12] [P] Do it").unwrap();
        assert_eq!((t.story, t.parallel, t.ticked), (Some("US12"), true, true));
        assert_eq!(t.title, "Do it");
        let plain = parse_task_line(Format::SpecKit, "\t  - [x] T2 Set up").unwrap();
        assert_eq!((plain.story, plain.parallel), (None, false));
        assert_eq!(plain.box_at, 6);
        assert_eq!(plain.title, "Set up");
    }

    #[test]
    fn a_bracket_read_as_a_story_label_that_binds_none_is_found_at_the_start_of_the_title() {
        for (title, label) in [
            ("[US2] Both", Some("[US2]")),
            ("[us1] lower case", Some("[us1]")),
            ("[US 1] spaced", Some("[US 1]")),
            ("[US1, US2] shared", Some("[US1, US2]")),
            ("[US1/US2] shared", Some("[US1/US2]")),
            ("Plain title [US2]", None),
            ("[USB] driver", None),
            ("[US] none", None),
            ("[P] later", None),
            ("[US1", None),
        ] {
            assert_eq!(unbound_story_label(title), label, "{title}");
        }
    }

    #[test]
    fn a_second_story_label_stays_in_the_title() {
        let t = parse_task_line(Format::SpecKit, "- [ ] T3 [US1] [US2] Both").unwrap();
        assert_eq!(t.story, Some("US1"));
        assert_eq!(t.title, "[US2] Both");
    }

    /// The published speccoder read every label of the run after the id, `[YOU]` too, and bound
    /// the last `[USn]`, its title the text after them all: the line exposes that run, and this
    /// crate's own reading of the same line stays as it was.
    #[test]
    fn every_label_of_the_run_is_exposed_for_the_published_reading_beside_this_crate_s_own() {
        let line = "- [x] T005 [US1][US2] Unit test controller";
        let t = parse_task_line(Format::SpecKit, line).unwrap();
        assert_eq!((t.story, t.title), (Some("US1"), "[US2] Unit test controller"));
        assert_eq!((t.labels, t.after_labels), ("[US1][US2]", "Unit test controller"));
        assert_eq!(t.story_labels().collect::<Vec<_>>(), ["US1", "US2"]);
        for (line, ours, title, labels, stories, after) in [
            (
                "- [ ] T1 [US1] [P] [US2] [P] x",
                (Some("US1"), true),
                "[US2] [P] x",
                "[US1] [P] [US2] [P]",
                vec!["US1", "US2"],
                "x",
            ),
            ("- [ ] T1 [US2] [YOU] x", (Some("US2"), false), "[YOU] x", "[US2] [YOU]", vec!["US2"], "x"),
            (
                "- [ ] T1 [YOU] [P] [US3] x",
                (None, false),
                "[YOU] [P] [US3] x",
                "[YOU] [P] [US3]",
                vec!["US3"],
                "x",
            ),
            (
                "- [ ] T1 [US1]\u{a0}[US2] x",
                (Some("US1"), false),
                "[US2] x",
                "[US1]\u{a0}[US2]",
                vec!["US1", "US2"],
                "x",
            ),
            (
                "- [ ] T1 [P] [US4] x [US5]",
                (Some("US4"), true),
                "x [US5]",
                "[P] [US4]",
                vec!["US4"],
                "x [US5]",
            ),
            ("- [ ] T1 plain", (None, false), "plain", "", vec![], "plain"),
        ] {
            let t = parse_task_line(Format::SpecKit, line).unwrap();
            assert_eq!((t.story, t.parallel), ours, "{line}");
            assert_eq!((t.title, t.labels, t.after_labels), (title, labels, after), "{line}");
            assert_eq!(t.story_labels().collect::<Vec<_>>(), stories, "{line}");
        }
        let open = parse_task_line(Format::OpenSpec, "- [ ] 1.1 [US1] x").unwrap();
        assert_eq!((open.labels, open.after_labels, open.story), ("", "[US1] x", None));
    }

    #[test]
    fn an_openspec_line_yields_its_numbered_id_and_title() {
        let t = parse_task_line(Format::OpenSpec, "- [x] 1.2 Add the filter  ").unwrap();
        assert_eq!((t.id, t.title, t.ticked), ("1.2", "Add the filter", true));
        let dotted = parse_task_line(Format::OpenSpec, "- [ ] 2. Group task").unwrap();
        assert_eq!(dotted.id, "2");
        assert!(parse_task_line(Format::OpenSpec, "- [ ] T001 x").is_none());
        assert!(parse_task_line(Format::SpecKit, "- [ ] 1.1 x").is_none());
    }

    #[test]
    fn lines_that_are_not_tasks_are_not_parsed() {
        for line in [
            "",
            "## Phase 1",
            "- T001 no box",
            "-[ ] T001 no blank after bullet",
            "- [ ]T001 no blank after box",
            "- [-] T001 odd box",
            "- [ ] T001: colon glued to the id",
            "- [ ] t001 lowercase",
            "+ [ ] T001 plus bullet",
            "- [ ]",
        ] {
            assert!(parse_task_line(Format::SpecKit, line).is_none(), "{line:?}");
        }
        assert!(parse_task_line(Format::SpecKit, "- [ ] T001").is_some());
    }

    #[test]
    fn task_ids_are_checked_per_format() {
        assert!(is_task_id(Format::SpecKit, "T001"));
        assert!(!is_task_id(Format::SpecKit, "T"));
        assert!(is_task_id(Format::SpecKit, "T012a") && is_task_id(Format::SpecKit, "T012A"));
        for bad in ["T1ab", "Ta", "T1a2", "T1-", "T1é"] {
            assert!(!is_task_id(Format::SpecKit, bad), "{bad}");
        }
        assert!(is_task_id(Format::OpenSpec, "1.10.2"));
        assert!(!is_task_id(Format::OpenSpec, "1..2"));
        assert!(!is_task_id(Format::OpenSpec, ""));
    }

    #[test]
    fn an_openspec_id_of_two_or_more_numbers_may_end_in_letters_as_openspec_reads_it() {
        for id in ["1.1a", "2.3b", "1.1A", "1.2.3ab", "10.20xyz", "2", "1.2"] {
            assert!(is_task_id(Format::OpenSpec, id), "{id}");
        }
        for bad in ["1a", "12b", "a", "1.a", "1.1a2", "1.1a.2", "1a.1", "1.1-a", "1.1é", "1.1a.", ".1a"] {
            assert!(!is_task_id(Format::OpenSpec, bad), "{bad}");
        }
    }

    #[test]
    fn an_openspec_line_with_a_lettered_id_yields_it_and_one_trailing_dot_is_not_part_of_it() {
        let t = parse_task_line(Format::OpenSpec, "- [x] 1.1a Inserted later").unwrap();
        assert_eq!((t.id, t.title, t.ticked), ("1.1a", "Inserted later", true));
        let dotted = parse_task_line(Format::OpenSpec, "- [ ] 2.3bc. Also inserted").unwrap();
        assert_eq!((dotted.id, dotted.title), ("2.3bc", "Also inserted"));
        for line in ["- [ ] 1a Not an id", "- [ ] 1.1a: glued", "- [ ] 1.1a.. two dots", "- [ ] 1.1a2 x"] {
            assert!(parse_task_line(Format::OpenSpec, line).is_none(), "{line:?}");
        }
    }

    #[test]
    fn the_line_hash_reads_every_ticked_box_as_open_and_nothing_else() {
        let line = "- [X] T001 [P] Keep [x] and [X] and [ ] and (FR-001)  \r\n";
        let expected = "- [ ] T001 [P] Keep [ ] and [ ] and [ ] and (FR-001)  ";
        assert_eq!(line_hash(line), sha256_hex(expected.as_bytes()));
        assert_eq!(line_hash("- [ ] T001 a\r"), sha256_hex(b"- [ ] T001 a\r"));
        // sha256 of "- [ ] 1.1 Do", computed with sha256sum.
        assert_eq!(
            line_hash("- [x] 1.1 Do\n"),
            "bc4a513b521d81e2551e0ad1de3fd68b761fafa7b027157608a30c53f5ef8df3"
        );
    }

    /// A line of task-line parts, each from a few shapes that parse and a few that do not.
    fn any_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let blanks = || prop::sample::select(vec!["", " ", "  ", "\t", " \t", "\u{a0}"]);
        let bullet = prop::sample::select(vec!["-", "*", "+", "", "1."]);
        let mark = prop::sample::select(vec!["[ ]", "[x]", "[X]", "[ x ]", "[]"]);
        let token = prop::sample::select(vec![
            "T001", "T12", "T012a", "T1ab", "1.1", "1.2.", "2.10.3", "1.1a", "2.3bc.", "1a", "T", "T01:",
            "Т008", "x",
        ]);
        let label =
            prop::sample::select(vec!["[P]", "[US1]", "[US12]", "[US]", "[P", " ", "[YOU]", "\u{a0}"]);
        let title = "[ -~\u{a0}\u{2003}é]{0,12}";
        (
            blanks(),
            bullet,
            blanks(),
            mark,
            blanks(),
            token,
            prop::collection::vec((blanks(), label), 0..4),
            title,
        )
            .prop_map(|(indent, bullet, gap, mark, gap2, token, labels, title)| {
                let labels: String = labels.into_iter().map(|(b, l)| format!("{b}{l}")).collect();
                format!("{indent}{bullet}{gap}{mark}{gap2}{token}{labels} {title}")
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 2000, failure_persistence: None, ..Default::default() })]

        #[test]
        fn every_part_of_a_parsed_line_is_where_the_line_has_it(line in any_line()) {
            for format in [Format::SpecKit, Format::OpenSpec] {
                let Some(t) = parse_task_line(format, &line) else { continue };
                proptest::prop_assert!(is_task_id(format, t.id), "{line:?}: id {:?}", t.id);
                proptest::prop_assert!(line[..t.box_at].ends_with('['), "{line:?}: box at {}", t.box_at);
                let mark = line.as_bytes()[t.box_at];
                proptest::prop_assert!(matches!(mark, b' ' | b'x' | b'X') && t.ticked == (mark != b' '));
                proptest::prop_assert!(line[t.box_at + 2..].trim_start().starts_with(t.id), "{line:?}");
                proptest::prop_assert_eq!(t.title, t.title.trim());
                proptest::prop_assert!(line.trim_end().ends_with(t.title), "{line:?}: title {:?}", t.title);
                // Every label this crate's reading reads is in the run, and the published title
                // ends this crate's.
                proptest::prop_assert!(t.title.ends_with(t.after_labels), "{line:?}");
                proptest::prop_assert!(line.contains(t.labels), "{line:?}");
                if t.story.is_some() {
                    proptest::prop_assert_eq!(t.story_labels().next(), t.story, "{:?}", line);
                }
                if let Some(story) = t.story {
                    let digits = story.strip_prefix("US").unwrap_or_default();
                    proptest::prop_assert!(!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
                    let labelled = format!("[{story}]");
                    proptest::prop_assert!(line.contains(&labelled), "{line:?}");
                }
                // Ticking the box changes the tick only.
                let mut ticked = line.clone().into_bytes();
                ticked[t.box_at] = b'x';
                let ticked = String::from_utf8(ticked).unwrap();
                let again = parse_task_line(format, &ticked).unwrap();
                proptest::prop_assert_eq!(
                    (again.id, again.story, again.parallel, again.title, again.ticked),
                    (t.id, t.story, t.parallel, t.title, true)
                );
                proptest::prop_assert_eq!((again.labels, again.after_labels), (t.labels, t.after_labels));
            }
        }
    }
}
