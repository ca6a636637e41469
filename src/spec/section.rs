//! The section text a task's attempt was given, whose sha256 is `spec.section_hash`.
//!
//! Spec Kit: the user story the task is labelled with (`[USn]`), cut out of spec.md.
//! OpenSpec: the change's delta specs, all of them, in path order (the change is the story).

use super::text::{heading_level, lines, lines_at};
use crate::model::clean::shown_if_clean;

/// The most bytes of OpenSpec section text kept before the cut.
pub const SECTION_LIMIT_BYTES: usize = 32768;

/// The line appended to OpenSpec section text that was cut to [`SECTION_LIMIT_BYTES`]: the text
/// is cut at the last UTF-8 character boundary at or before that many bytes, then this marker
/// (a newline and `[truncated at 32768 bytes]`) follows.
pub const SECTION_TRUNCATION_MARKER: &str = "\n[truncated at 32768 bytes]";

/// The delta operations openspec reads a change's requirements under, each the first word of
/// its section's title (`## ADDED Requirements`, in any letter case).
const DELTA_OPERATIONS: [&str; 4] = ["ADDED", "MODIFIED", "REMOVED", "RENAMED"];

/// Where a delta spec's section starts (its heading line's byte offset) and the delta operation
/// it holds its requirements under, when any ([`delta_sections`]).
pub(crate) type DeltaSection = (usize, Option<&'static str>);

/// Where each section of a delta spec `text` (`literal` its
/// [`super::requirement::literal_ranges`]) starts as openspec splits it, in order, with the delta
/// operation it holds its requirements under: a line that opens a section (`^##\s+(.+)$`, a byte
/// order mark at the start dropped) whose title, trimmed, is `<OPERATION> Requirements` in any
/// letter case. `None` for another section: openspec reads the requirements there as no delta.
pub(crate) fn delta_sections(text: &str, literal: &[std::ops::Range<usize>]) -> Vec<DeltaSection> {
    fn opens(line: &str) -> Option<&str> {
        let rest = line.strip_prefix("##")?;
        (rest.starts_with(char::is_whitespace) && rest.chars().nth(1).is_some()).then(|| rest.trim())
    }
    let operation = |title: &str| {
        DELTA_OPERATIONS.iter().copied().find(|op| title.eq_ignore_ascii_case(&format!("{op} Requirements")))
    };
    lines_at(text)
        .filter(|(start, _)| !super::requirement::in_literal(literal, *start))
        .filter_map(|(start, line)| {
            let title = opens(if start == 0 { line.trim_start_matches('\u{feff}') } else { line })?;
            Some((start, operation(title)))
        })
        .collect()
}

/// Whether the heading `line` names user story `n` (the digits of `USn`): it contains, in any
/// letter case, `user story ` followed by exactly `n` and then no further ASCII digit.
fn names_story(line: &str, n: &str) -> bool {
    const NEEDLE: &str = "user story ";
    let lower = line.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower.get(from..).and_then(|s| s.find(NEEDLE)) {
        let after = from + found + NEEDLE.len();
        if let Some(rest) = lower.get(after..)
            && let Some(tail) = rest.strip_prefix(n)
            && !tail.starts_with(|c: char| c.is_ascii_digit())
        {
            return true;
        }
        from = after;
    }
    false
}

/// Spec Kit section text of story `story` (`US1`) in `spec_md`.
///
/// A heading is a line starting with 1 to 6 `#` followed by a space, a tab or the line's end; it
/// names story `n` when it holds `user story n` (any letter case) with no ASCII digit after `n`.
/// The text is the first heading naming the story and every following line up to, not including,
/// the next heading of the same or a higher level (as many or fewer `#`), joined with `\n`, no
/// newline added at the end. Lines are split at `\n` with the `\n` (and a `\r` before it)
/// removed and no empty line after a final newline, so blank lines before the next heading stay
/// part of the section. When no heading names the story, or every line after the heading is
/// whitespace only, the text is the whole `spec_md`, unchanged ([`speckit_story`] says which).
#[must_use]
pub fn speckit_story_text(spec_md: &str, story: &str) -> String {
    speckit_story(spec_md, story).0
}

/// Why a story's text is the whole spec.md ([`speckit_story_text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WholeSpec {
    /// No heading names the story. The headings that hold its number as a whole number (a story
    /// heading in another language, say), at most three: (1-based line, the heading shown).
    NoHeading(Vec<(usize, String)>),
    /// The first heading naming the story (its 1-based line) has nothing but blank lines under it.
    BlankSection(usize),
}

/// [`speckit_story_text`], and why the text is the whole spec.md when it is.
#[must_use]
pub fn speckit_story(spec_md: &str, story: &str) -> (String, Option<WholeSpec>) {
    let Some(n) = story.strip_prefix("US").filter(|n| !n.is_empty()) else {
        return (spec_md.to_owned(), Some(WholeSpec::NoHeading(Vec::new())));
    };
    let all: Vec<&str> = lines(spec_md).collect();
    let start = all
        .iter()
        .enumerate()
        .find_map(|(i, line)| heading_level(line).filter(|_| names_story(line, n)).map(|level| (i, level)));
    let Some((start, level)) = start else {
        return (spec_md.to_owned(), Some(WholeSpec::NoHeading(headings_with_number(&all, n))));
    };
    let body = all.get(start + 1..).unwrap_or_default();
    let body_len =
        body.iter().position(|line| heading_level(line).is_some_and(|l| l <= level)).unwrap_or(body.len());
    let body = body.get(..body_len).unwrap_or_default();
    if body.iter().all(|line| line.trim().is_empty()) {
        return (spec_md.to_owned(), Some(WholeSpec::BlankSection(start + 1)));
    }
    match all.get(start..=start + body_len) {
        Some(section) => (section.join("\n"), None),
        None => (spec_md.to_owned(), Some(WholeSpec::BlankSection(start + 1))),
    }
}

/// The headings among `lines` that hold the number `n` with no ASCII digit on either side, at
/// most three: (1-based line, the heading escaped and cut).
fn headings_with_number(lines: &[&str], n: &str) -> Vec<(usize, String)> {
    let holds = |line: &str| {
        line.match_indices(n).any(|(at, _)| {
            let before = line.get(..at).and_then(|s| s.chars().next_back());
            let after = line.get(at + n.len()..).and_then(|s| s.chars().next());
            !before.is_some_and(|c| c.is_ascii_digit()) && !after.is_some_and(|c| c.is_ascii_digit())
        })
    };
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| heading_level(line).is_some() && holds(line))
        .take(3)
        .map(|(i, line)| (i + 1, shown_if_clean(line, 80)))
        .collect()
}

/// A task labelled `[USn]` whose story text is the whole spec.md ([`WholeSpec`]): said by the
/// writer as a warning and by the verifier as a note on the tick, in the same words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoryFallback {
    /// The label, `USn`.
    pub label: String,
    /// The spec file hashed whole, project-relative.
    pub spec_md: String,
    /// Why no section was cut out of it.
    pub why: WholeSpec,
}

impl StoryFallback {
    /// One sentence for a person: which label, which file, the heading form looked for, and what
    /// the evidence binds instead.
    #[must_use]
    pub fn message(&self) -> String {
        let (label, path) = (&self.label, &self.spec_md);
        let n = label.strip_prefix("US").unwrap_or(label);
        let form = format!(
            "a heading (1 to 6 `#`) holding `User Story {n}` in any letter case, as Spec Kit's template writes `### User Story {n} - Title`"
        );
        let found = match &self.why {
            WholeSpec::NoHeading(near) if near.is_empty() => {
                format!("no heading of `{path}` names its story (the form looked for: {form})")
            }
            WholeSpec::NoHeading(near) => {
                let near: Vec<String> = near.iter().map(|(line, h)| format!("line {line} `{h}`")).collect();
                format!(
                    "no heading of `{path}` names its story (the form looked for: {form}; headings holding the number {n}: {})",
                    near.join(", ")
                )
            }
            WholeSpec::BlankSection(line) => format!(
                "the heading on line {line} of `{path}` that names its story has nothing under it before the next heading"
            ),
        };
        format!(
            "the task is labelled [{label}], but {found}: its story text is the whole spec.md, as the published speccoder hashes it, so the evidence binds all of spec.md rather than the story; to bind the story alone, give it a heading of that form"
        )
    }
}

/// One OpenSpec delta spec: its project-relative path and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delta {
    /// Project-relative path, e.g. `openspec/changes/add-x/specs/tags/spec.md`.
    pub path: String,
    /// The file's text.
    pub text: String,
}

/// OpenSpec section text of a change from its delta specs.
///
/// Deltas sorted by path (byte order); each becomes `## <path>`, a blank line, and its text with
/// trailing whitespace removed; these parts are joined by a blank line (`"\n\n"`). Text longer
/// than [`SECTION_LIMIT_BYTES`] is cut as [`SECTION_TRUNCATION_MARKER`] describes. No deltas:
/// the empty string.
#[must_use]
pub fn openspec_change_text(deltas: &[Delta]) -> String {
    let mut sorted: Vec<&Delta> = deltas.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let parts: Vec<String> =
        sorted.iter().map(|d| format!("## {}\n\n{}", d.path, d.text.trim_end())).collect();
    cut_to_limit(parts.join("\n\n"))
}

/// `text` cut to at most [`SECTION_LIMIT_BYTES`] at a character boundary plus the marker, when
/// it is longer than the limit; otherwise `text` unchanged.
fn cut_to_limit(mut text: String) -> String {
    if text.len() <= SECTION_LIMIT_BYTES {
        return text;
    }
    let mut cut = SECTION_LIMIT_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str(SECTION_TRUNCATION_MARKER);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::digest::sha256_hex;

    const SPEC: &str = "# Feature\n\
        \n\
        ## User Scenarios\n\
        \n\
        ### User Story 1 - Tag a bookmark (Priority: P1)\n\
        \n\
        Tags help.\n\
        \n\
        #### Acceptance\n\
        \n\
        1. **Given** a bookmark, **When** tagged, **Then** it shows.\n\
        \n\
        ### User Story 10 - Later (Priority: P3)\n\
        \n\
        Ten.\n\
        \n\
        ## Requirements\n\
        \n\
        - **FR-001**: x\n";

    #[test]
    fn a_story_section_runs_to_the_next_heading_of_its_level_and_keeps_deeper_ones() {
        let expected = "### User Story 1 - Tag a bookmark (Priority: P1)\n\
            \n\
            Tags help.\n\
            \n\
            #### Acceptance\n\
            \n\
            1. **Given** a bookmark, **When** tagged, **Then** it shows.\n";
        assert_eq!(speckit_story_text(SPEC, "US1"), expected);
        assert_eq!(sha256_hex(speckit_story_text(SPEC, "US1")), sha256_hex(expected.as_bytes()));
    }

    #[test]
    fn story_ten_does_not_match_story_one_and_a_higher_heading_ends_it() {
        assert_eq!(speckit_story_text(SPEC, "US10"), "### User Story 10 - Later (Priority: P3)\n\nTen.\n");
        let only_ten = "## User Story 10\nTen.\n## User Story 11\nEleven.";
        assert_eq!(speckit_story_text(only_ten, "US1"), only_ten);
    }

    #[test]
    fn the_story_heading_may_be_any_level_and_any_letter_case() {
        let spec = "# USER STORY 2: Filter\nbody\n# Next\n";
        assert_eq!(speckit_story_text(spec, "US2"), "# USER STORY 2: Filter\nbody");
        let deep = "###### user story 3\nx\n###### other\n";
        assert_eq!(speckit_story_text(deep, "US3"), "###### user story 3\nx");
    }

    #[test]
    fn the_section_ends_at_the_end_of_the_file_without_a_final_newline() {
        assert_eq!(speckit_story_text("## User Story 1\r\nbody\r\n", "US1"), "## User Story 1\nbody");
    }

    #[test]
    fn a_missing_or_blank_story_hashes_the_whole_spec() {
        let blank = "# F\n### User Story 1 - X\n  \n\t\n### User Story 2\nbody\n";
        assert_eq!(speckit_story_text(blank, "US1"), blank);
        assert_eq!(speckit_story_text(blank, "US7"), blank);
        let text_mention = "User Story 1 appears in text only\n## Other\n";
        assert_eq!(speckit_story_text(text_mention, "US1"), text_mention);
    }

    #[test]
    fn a_story_that_falls_back_says_why_and_names_the_headings_holding_its_number() {
        let spec = "# F\n## Historias\n### Historia de usuario 1 - Crear (Prioridad: P1)\nTexto.\n### Historia de usuario 10\nDiez.\n## Requisitos 1\n";
        let (text, why) = speckit_story(spec, "US1");
        assert_eq!(text, spec);
        assert_eq!(
            why,
            Some(WholeSpec::NoHeading(vec![
                (3, "### Historia de usuario 1 - Crear (Prioridad: P1)".to_owned()),
                (7, "## Requisitos 1".to_owned()),
            ]))
        );
        let blank = "# F\n### User Story 1\n\n### User Story 2\nx\n";
        assert_eq!(speckit_story(blank, "US1"), (blank.to_owned(), Some(WholeSpec::BlankSection(2))));
        assert_eq!(speckit_story(blank, "US2"), ("### User Story 2\nx".to_owned(), None));
        for (spec, story) in [(SPEC, "US1"), (SPEC, "US10"), (blank, "US1"), (spec, "US3")] {
            assert_eq!(speckit_story(spec, story).0, speckit_story_text(spec, story));
        }
    }

    #[test]
    fn openspec_section_text_joins_sorted_deltas_under_their_paths() {
        let deltas = [
            Delta {
                path: "openspec/changes/c/specs/zeta/spec.md".into(),
                text: "## ADDED Requirements\n\n### Requirement: Z\n\n\n".into(),
            },
            Delta {
                path: "openspec/changes/c/specs/alpha/spec.md".into(),
                text: "## MODIFIED Requirements\r\n  \n".into(),
            },
        ];
        let expected = "## openspec/changes/c/specs/alpha/spec.md\n\n\
            ## MODIFIED Requirements\n\n\
            ## openspec/changes/c/specs/zeta/spec.md\n\n\
            ## ADDED Requirements\n\n### Requirement: Z";
        assert_eq!(sha256_hex(openspec_change_text(&deltas)), sha256_hex(expected.as_bytes()));
        assert_eq!(openspec_change_text(&[]), "");
    }

    #[test]
    fn openspec_section_text_over_32_kib_is_cut_on_a_character_boundary_with_a_marker() {
        let path = "openspec/changes/c/specs/t/spec.md";
        let head = format!("## {path}\n\n");
        // Pad so that a 3-byte character straddles byte 32768.
        let pad = "a".repeat(SECTION_LIMIT_BYTES - head.len() - 1);
        let text = format!("{pad}€€€ tail");
        let got = openspec_change_text(&[Delta { path: path.into(), text }]);
        let expected = format!("{head}{pad}\n[truncated at 32768 bytes]");
        assert_eq!(got, expected);
        assert_eq!(got.len(), SECTION_LIMIT_BYTES - 1 + SECTION_TRUNCATION_MARKER.len());
        assert_eq!(sha256_hex(&got), sha256_hex(expected.as_bytes()));
    }

    #[test]
    fn openspec_section_text_of_exactly_32_kib_is_not_cut() {
        let path = "p/spec.md";
        let pad = "b".repeat(SECTION_LIMIT_BYTES - format!("## {path}\n\n").len());
        let got = openspec_change_text(&[Delta { path: path.into(), text: pad }]);
        assert_eq!(got.len(), SECTION_LIMIT_BYTES);
        assert!(!got.ends_with(SECTION_TRUNCATION_MARKER));
    }
}
