//! The top of a YAML document, as far as speccoder reads OpenSpec's YAML files (a project's
//! `openspec/config.yaml`, a change's `.openspec.yaml`, a project-local schema): the parser is
//! saphyr's, and this keeps what its events say down to [`KEPT_DEPTH`] collections from the root.
//!
//! A YAML file of a repository is hostile input. An alias is never copied: it shares the node
//! its anchor names (or is [`Node::Beyond`] when that node was not kept), so a document of nested
//! aliases costs what its text holds; a collection nested deeper than the few levels a reader
//! looks at is counted, not kept, so no nesting makes a deep tree to walk or drop.
//!
//! Scalars are typed and keys checked as that library (`yaml`, with its defaults) does: YAML 1.2's
//! core schema, or YAML 1.1's types under a `%YAML 1.1` directive; a key given twice in a mapping,
//! at any depth, is an error. What it reads otherwise than this reader can follow (a merge key,
//! `<<`, under `%YAML 1.1`; a key whose type is not resolved here; more aliases than that library
//! surely reads, [`ALIASES_TOLD`]) makes the document one whose reading cannot be told.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::LazyLock;

use regex::Regex;
use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

/// How many collections deep a document is kept, the root's counted: OpenSpec's files are read
/// at most three deep (a schema's `artifacts`, an artifact, its `generates`).
const KEPT_DEPTH: usize = 4;

/// A node of a YAML document, as far as it is kept.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// A scalar: its text (quotes and escapes resolved), and its type.
    Scalar {
        /// The scalar's text.
        text: String,
        /// Its type.
        kind: Kind,
    },
    /// A sequence, its items in order.
    Seq(Vec<Rc<Node>>),
    /// A mapping, its entries in order (a key given twice is there twice).
    Map(Vec<(Rc<Node>, Rc<Node>)>),
    /// A collection deeper than [`KEPT_DEPTH`], or an alias of one: not kept, so what it holds
    /// cannot be told.
    Beyond,
}

/// A scalar's type, as the YAML library OpenSpec reads with resolves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A string: quoted, a block scalar, tagged `!!str`, or plain text no other type of the
    /// document's schema reads.
    Str,
    /// Null: plain `~`, `null`, `Null`, `NULL` or nothing, untagged or tagged `!!null`.
    Null,
    /// A boolean or a number (`true`, `12`, `0x1f`, `.nan`; under `%YAML 1.1` also `yes`, `off`).
    Other,
    /// A type not resolved here: another tag, or under `%YAML 1.1` a plain scalar that starts as a
    /// number or a date does (a digit, a sign, a dot), whose many forms this reader does not follow.
    Doubtful,
}

impl Node {
    /// The value of the mapping's last entry whose key is the string `key`; `None` for a node
    /// that is no mapping, or has no such entry.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        let Node::Map(entries) = self else { return None };
        let is_key = |k: &Rc<Node>| matches!(&**k, Node::Scalar { text, kind: Kind::Str } if text == key);
        entries.iter().rev().find(|(k, _)| is_key(k)).map(|(_, v)| &**v)
    }

    /// The text of a string; `None` for any other node.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Node::Scalar { text, kind: Kind::Str } => Some(text),
            _ => None,
        }
    }

    /// Whether the node is a null scalar.
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Node::Scalar { kind: Kind::Null, .. })
    }

    /// Whether the node is a scalar whose type is not resolved here ([`Kind::Doubtful`]).
    pub(crate) fn is_doubtful(&self) -> bool {
        matches!(self, Node::Scalar { kind: Kind::Doubtful, .. })
    }
}

/// What [`parse`] reads of a text.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Parsed {
    /// The one document's root, kept to [`KEPT_DEPTH`]; an empty stream's is a null scalar.
    Doc(Rc<Node>),
    /// No YAML document: the parser refuses it (a syntax error, an alias of an anchor not set
    /// before it), it holds more than one document, or a mapping holds a key twice, all of which
    /// the YAML library OpenSpec reads its files with refuses too (its `parse`).
    NotYaml,
    /// A text whose reading by that library cannot be told: what it holds that this reader does
    /// not follow, said after the file's name (`nests flow collections ...`).
    CannotTell(&'static str),
}

/// Why flow collections (`[`, `{`) nested deeper than the parser reads (255 levels), which
/// another parser may read, make a text one whose reading cannot be told.
const TOO_DEEP: &str =
    "nests flow collections (`[`, `{`) deeper than the 255 levels speccoder reads, which openspec may read";
/// Why a merge key makes a document one whose reading cannot be told.
const MERGES: &str = "merges mappings (a `<<` key under `%YAML 1.1`), which speccoder does not follow";
/// Why a key of a type not compared here makes a document one whose reading cannot be told.
const KEY_TYPE: &str = "has a mapping key whose type speccoder does not resolve (a tag, a number not written in decimal, or under `%YAML 1.1` one that may be a number or a date)";
/// Why `%YAML` given twice, which the parser refuses and that library reads, makes a text one whose
/// reading cannot be told.
const TWO_VERSIONS: &str = "gives `%YAML` twice";
/// The most aliases a text may use and still be read as that library reads it: it refuses a
/// text once an anchor's uses times the aliases nested in it pass 100, a count that doubles with
/// each anchor nested in the next, so that seven aliases, each the only content of the next
/// anchor, are refused; no text of six or fewer is (how that was checked: commit d360cd5).
const ALIASES_TOLD: usize = 6;
/// Why a text of more aliases than [`ALIASES_TOLD`] is one whose reading cannot be told.
const MANY_ALIASES: &str =
    "uses more than 6 aliases (`*name`), which openspec's YAML library may refuse as excessive";

/// The one document of `text` ([`Parsed`]).
pub(crate) fn parse(text: &str) -> Parsed {
    let mut doc = Building::default();
    for event in Parser::new_from_str(text) {
        let (event, span) = match event {
            Ok(event) => event,
            Err(e) if e.info() == "recursion limit exceeded" => return Parsed::CannotTell(TOO_DEEP),
            Err(e) if e.info() == "duplicate version directive" => return Parsed::CannotTell(TWO_VERSIONS),
            Err(_) => return Parsed::NotYaml,
        };
        if let Event::DocumentStart(true) = event {
            let end = text.char_indices().nth(span.start.index()).map_or(text.len(), |(at, _)| at);
            match version_11(&text[..end]) {
                Some(yaml11) => doc.yaml11 = yaml11,
                None => return Parsed::NotYaml,
            }
        }
        if let Err(parsed) = doc.event(event) {
            return parsed;
        }
    }
    match doc.root {
        Some(root) => Parsed::Doc(root),
        None if doc.documents == 0 => {
            Parsed::Doc(Rc::new(Node::Scalar { text: String::new(), kind: Kind::Null }))
        }
        None => Parsed::NotYaml,
    }
}

/// A collection being read.
enum Open {
    /// A sequence and its items so far.
    Seq(Vec<Rc<Node>>),
    /// A mapping, its entries so far and the key read whose value comes next.
    Map(Vec<(Rc<Node>, Rc<Node>)>, Option<Rc<Node>>),
}

/// A collection open, kept or not, as far as its keys go.
enum Slots {
    /// A sequence.
    Seq,
    /// A mapping: the identities of its keys so far, and whether the next node is a key.
    Map(HashSet<KeyId>, bool),
}

/// What makes two scalar keys the same key to the YAML library OpenSpec reads with: their values
/// are equal (`a` and `"a"`, `1` and `1.0`, `~` and `null`).
#[derive(PartialEq, Eq, Hash)]
enum KeyId {
    /// A string.
    Str(String),
    /// Null.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number, by its bits (`-0` as `0`).
    Num(u64),
}

/// A document read from its events ([`parse`]).
#[derive(Default)]
struct Building {
    /// Whether a `%YAML 1.1` directive makes YAML 1.1's types the document's.
    yaml11: bool,
    /// The collections open, kept or not, outermost first.
    slots: Vec<Slots>,
    /// The kept collections open, outermost first, each with its anchor id (0: none).
    open: Vec<(Open, usize)>,
    /// How many collections deep the reading is beyond the kept ones (0: within them).
    beyond: usize,
    /// The anchor id of the outermost collection not kept (0: none).
    beyond_anchor: usize,
    /// The nodes anchored so far, by anchor id.
    anchors: HashMap<usize, Rc<Node>>,
    /// How many documents started.
    documents: usize,
    /// How many aliases the text used so far.
    aliases: usize,
    /// The document's root, once read.
    root: Option<Rc<Node>>,
}

impl Building {
    /// Takes one event; what [`parse`] makes of the text once it is no one document, or its
    /// reading cannot be told.
    fn event(&mut self, event: Event<'_>) -> Result<(), Parsed> {
        match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(Parsed::NotYaml);
                }
            }
            Event::SequenceStart(anchor, _) => {
                self.slot();
                self.slots.push(Slots::Seq);
                self.start(Open::Seq(Vec::new()), anchor);
            }
            Event::MappingStart(anchor, _) => {
                self.slot();
                self.slots.push(Slots::Map(HashSet::new(), true));
                self.start(Open::Map(Vec::new(), None), anchor);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.slots.pop();
                self.end();
            }
            Event::Scalar(text, style, anchor, tag) => {
                let value = resolve(&text, style, tag.as_deref(), self.yaml11);
                let merge = self.yaml11 && tag.is_none() && style == ScalarStyle::Plain && text == "<<";
                if let Some(Slots::Map(keys, _)) = self.slot() {
                    let id = match value {
                        _ if merge => return Err(Parsed::CannotTell(MERGES)),
                        Value::Str => Some(KeyId::Str(text.to_string())),
                        Value::Null => Some(KeyId::Null),
                        Value::Bool(b) => Some(KeyId::Bool(b)),
                        Value::Num(n) => Some(KeyId::Num(if n == 0.0 { 0 } else { n.to_bits() })),
                        Value::Unequal => None,
                        Value::Other | Value::Doubtful => return Err(Parsed::CannotTell(KEY_TYPE)),
                    };
                    if id.is_some_and(|id| !keys.insert(id)) {
                        return Err(Parsed::NotYaml);
                    }
                }
                let kind = match value {
                    Value::Str => Kind::Str,
                    Value::Null => Kind::Null,
                    Value::Doubtful => Kind::Doubtful,
                    _ => Kind::Other,
                };
                return self.scalar(text.into_owned(), kind, anchor);
            }
            Event::Alias(id) => {
                self.aliases += 1;
                if self.aliases > ALIASES_TOLD {
                    return Err(Parsed::CannotTell(MANY_ALIASES));
                }
                self.slot();
                if self.beyond == 0 {
                    let node = self.anchors.get(&id).cloned().unwrap_or_else(|| Rc::new(Node::Beyond));
                    self.place(node, 0);
                }
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
        Ok(())
    }

    /// The slot a node takes in the innermost collection open: that collection's, when the node
    /// is a key of a mapping (its next node is then the key's value).
    fn slot(&mut self) -> Option<&mut Slots> {
        let slots = self.slots.last_mut()?;
        let Slots::Map(_, next_is_key) = slots else { return None };
        *next_is_key = !*next_is_key;
        (!*next_is_key).then_some(slots)
    }

    /// A scalar read, anchored as `anchor`.
    fn scalar(&mut self, text: String, kind: Kind, anchor: usize) -> Result<(), Parsed> {
        let scalar = Rc::new(Node::Scalar { text, kind });
        if self.beyond == 0 {
            self.place(scalar, anchor);
        } else if anchor != 0 {
            // An alias of it may stand where the document is kept.
            self.anchors.insert(anchor, scalar);
        }
        Ok(())
    }

    /// A collection starts, anchored as `anchor`.
    fn start(&mut self, open: Open, anchor: usize) {
        if self.beyond > 0 || self.open.len() >= KEPT_DEPTH {
            if self.beyond == 0 {
                self.beyond_anchor = anchor;
            }
            self.beyond += 1;
        } else {
            self.open.push((open, anchor));
        }
    }

    /// The innermost collection open ends.
    fn end(&mut self) {
        if self.beyond > 0 {
            self.beyond -= 1;
            if self.beyond == 0 {
                let anchor = std::mem::take(&mut self.beyond_anchor);
                self.place(Rc::new(Node::Beyond), anchor);
            }
            return;
        }
        let Some((open, anchor)) = self.open.pop() else { return };
        let node = match open {
            Open::Seq(items) => Node::Seq(items),
            Open::Map(entries, _) => Node::Map(entries),
        };
        self.place(Rc::new(node), anchor);
    }

    /// A node read whole, anchored as `anchor`, goes where the reading is.
    fn place(&mut self, node: Rc<Node>, anchor: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, Rc::clone(&node));
        }
        match self.open.last_mut() {
            None => self.root = Some(node),
            Some((Open::Seq(items), _)) => items.push(node),
            Some((Open::Map(entries, key), _)) => match key.take() {
                None => *key = Some(node),
                Some(key) => entries.push((key, node)),
            },
        }
    }
}

/// What the YAML library OpenSpec reads with resolves a scalar to, as far as a key's identity
/// ([`KeyId`]) and a reader ([`Kind`]) go.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    /// A string.
    Str,
    /// Null.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number computed as that library computes it (a decimal, `.inf`).
    Num(f64),
    /// A value equal to no other key (`.nan`).
    Unequal,
    /// A number not computed here (`0x1f`, `0o17`).
    Other,
    /// A type not resolved here ([`Kind::Doubtful`]).
    Doubtful,
}

/// A fixed pattern, compiled.
fn pattern(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
}

/// Null, in both schemas.
static NULL: LazyLock<Regex> = LazyLock::new(|| pattern(r"^(?:~|[Nn]ull|NULL)?$"));
/// A boolean of YAML 1.2's core schema.
static BOOL: LazyLock<Regex> = LazyLock::new(|| pattern(r"^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$"));
/// True and false of YAML 1.1.
static BOOL_11: LazyLock<[Regex; 2]> = LazyLock::new(|| {
    [
        pattern(r"^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$"),
        pattern(r"^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$"),
    ]
});
/// A decimal integer or float of YAML 1.2's core schema, which that library reads as Rust does.
static DECIMAL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[-+]?[0-9]+$|^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$|^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$",
    )
});
/// An octal or hexadecimal integer of YAML 1.2's core schema.
static RADIX: LazyLock<Regex> = LazyLock::new(|| pattern(r"^0o[0-7]+$|^0x[0-9a-fA-F]+$"));
/// Infinity, in both schemas.
static INF: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[-+]?\.(?:inf|Inf|INF)$"));
/// Not a number, in both schemas.
static NAN: LazyLock<Regex> = LazyLock::new(|| pattern(r"^\.(?:nan|NaN|NAN)$"));

/// The value of the scalar `text` of `style` and `tag`, in YAML 1.1 when `yaml11` (else in YAML
/// 1.2's core schema), as the YAML library OpenSpec reads with resolves it: a tag other than
/// `!!str`, or `!!null` on a null, is not followed; quoted and block scalars are strings; a
/// plain scalar is the first type whose pattern it matches.
fn resolve(text: &str, style: ScalarStyle, tag: Option<&Tag>, yaml11: bool) -> Value {
    if let Some(tag) = tag {
        let core = |suffix: &str| tag.is_yaml_core_schema() && tag.suffix == suffix;
        return if core("str") {
            Value::Str
        } else if core("null") && NULL.is_match(text) {
            Value::Null
        } else {
            Value::Doubtful
        };
    }
    if style != ScalarStyle::Plain {
        return Value::Str;
    }
    if NULL.is_match(text) {
        Value::Null
    } else if yaml11 {
        if BOOL_11[0].is_match(text) {
            Value::Bool(true)
        } else if BOOL_11[1].is_match(text) {
            Value::Bool(false)
        } else if text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) {
            Value::Doubtful
        } else {
            Value::Str
        }
    } else if BOOL.is_match(text) {
        Value::Bool(text.starts_with(['t', 'T']))
    } else if DECIMAL.is_match(text) {
        text.parse().map_or(Value::Other, Value::Num)
    } else if INF.is_match(text) {
        Value::Num(if text.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY })
    } else if NAN.is_match(text) {
        Value::Unequal
    } else if RADIX.is_match(text) {
        Value::Other
    } else {
        Value::Str
    }
}

/// Whether the directives before a document's `---` (`prologue`) make it YAML 1.1, as the YAML
/// library OpenSpec reads with takes them: `%YAML 1.1` does, `%YAML 1.2` or another version
/// (which it warns of) does not; `None` for a `%YAML` directive of other than one part, which
/// it refuses.
fn version_11(prologue: &str) -> Option<bool> {
    let mut yaml11 = false;
    for line in prologue.lines() {
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        let line = line.find([' ', '\t']).map_or(line, |blank| {
            let comment = line[blank..].find(" #").or_else(|| line[blank..].find("\t#"));
            &line[..comment.map_or(line.len(), |at| blank + at)]
        });
        let mut parts = line.split([' ', '\t']).filter(|part| !part.is_empty());
        if parts.next() == Some("%YAML") {
            let (Some(version), None) = (parts.next(), parts.next()) else { return None };
            yaml11 = version == "1.1";
        }
    }
    Some(yaml11)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(node: Option<&Node>) -> Option<&str> {
        node.and_then(Node::as_str)
    }

    /// The root of `yaml`, which must be one document.
    fn doc(yaml: &str) -> Rc<Node> {
        match parse(yaml) {
            Parsed::Doc(root) => root,
            other => panic!("{yaml:?}: {other:?}"),
        }
    }

    #[test]
    fn a_mapping_s_scalars_are_read_with_their_quotes_resolved_and_nulls_told() {
        let root = doc("name: custom\nq: 'it''s'\nd: \"a\\tb\"\nnone: ~\nempty:\nstr: !!str null\n");
        assert_eq!(text(root.get("name")), Some("custom"));
        assert_eq!(text(root.get("q")), Some("it's"));
        assert_eq!(text(root.get("d")), Some("a\tb"));
        assert!(root.get("none").is_some_and(Node::is_null));
        assert!(root.get("empty").is_some_and(Node::is_null));
        assert_eq!(text(root.get("str")), Some("null"), "a tagged string is no null");
        assert_eq!(root.get("missing"), None);
    }

    #[test]
    fn what_is_no_one_document_is_none_and_an_empty_stream_is_null() {
        for bad in ["a: [1\n", "a: 1\n---\nb: 2\n", "k: *nope\n", "a: b: c\n", "\"open\n"] {
            assert_eq!(parse(bad), Parsed::NotYaml, "{bad:?}");
        }
        assert!(doc("").is_null());
        assert!(doc("# only a comment\n").is_null());
    }

    #[test]
    fn an_alias_shares_its_anchor_s_node_and_a_bomb_of_aliases_is_refused_unexpanded() {
        let root = doc("a: &x {id: tasks}\nb: *x\n");
        let (Some(a), Some(b)) = (root.get("a"), root.get("b")) else { panic!("{root:?}") };
        assert!(std::ptr::eq(a, b), "one node, never a copy");
        let mut bomb = String::from("l0: &l0 [x, x, x, x, x, x, x, x, x]\n");
        for n in 1..40 {
            let prev = n - 1;
            bomb.push_str(&format!("l{n}: &l{n} [*l{prev}, *l{prev}, *l{prev}, *l{prev}, *l{prev}]\n"));
        }
        assert_eq!(parse(&bomb), Parsed::CannotTell(MANY_ALIASES), "refused before it is expanded");
    }

    #[test]
    fn collections_deeper_than_kept_are_beyond_and_deeper_than_the_parser_reads_too_deep() {
        let nested = |levels: usize| format!("a: {}{}\n", "[".repeat(levels), "]".repeat(levels));
        assert_eq!(parse(&nested(256)), Parsed::CannotTell(TOO_DEEP));
        let block = (0..300).map(|n| format!("{}- \n", "  ".repeat(n))).collect::<String>();
        assert!(
            matches!(parse(&block), Parsed::Doc(_)),
            "block collections nest as deep as they are indented"
        );
        let root = doc(&nested(255));
        let Some(Node::Seq(one)) = root.get("a") else { panic!("{root:?}") };
        let Node::Seq(two) = &*one[0] else { panic!("{one:?}") };
        assert_eq!(&*two[0], &Node::Seq(vec![Rc::new(Node::Beyond)]));
        let root = doc("a: [[[[&x [&y one]]]]]\nb: *x\nc: *y\n");
        assert_eq!(root.get("b"), Some(&Node::Beyond));
        assert_eq!(text(root.get("c")), Some("one"), "a scalar is kept wherever it is anchored");
    }

    /// The kind of `yaml`'s `v`.
    fn kind(yaml: &str) -> Kind {
        match doc(yaml).get("v") {
            Some(Node::Scalar { kind, .. }) => *kind,
            other => panic!("{yaml:?}: {other:?}"),
        }
    }

    #[test]
    fn scalars_are_typed_by_yaml_1_2_s_core_schema_or_by_yaml_1_1_under_its_directive() {
        for (value, core, yaml11) in [
            ("name", Kind::Str, Kind::Str),
            ("'123'", Kind::Str, Kind::Str),
            ("!!str 123", Kind::Str, Kind::Str),
            ("|\n  123\n", Kind::Str, Kind::Str),
            ("123", Kind::Other, Kind::Doubtful),
            ("-1.5e3", Kind::Other, Kind::Doubtful),
            ("0x1F", Kind::Other, Kind::Doubtful),
            (".nan", Kind::Other, Kind::Doubtful),
            ("true", Kind::Other, Kind::Other),
            ("yes", Kind::Str, Kind::Other),
            ("Off", Kind::Str, Kind::Other),
            ("2001-12-14", Kind::Str, Kind::Doubtful),
            ("1_000", Kind::Str, Kind::Doubtful),
            ("~", Kind::Null, Kind::Null),
            ("!!null ~", Kind::Null, Kind::Null),
            ("!!null text", Kind::Doubtful, Kind::Doubtful),
            ("!!int 123", Kind::Doubtful, Kind::Doubtful),
            ("!local 123", Kind::Doubtful, Kind::Doubtful),
        ] {
            assert_eq!(kind(&format!("v: {value}\n")), core, "{value:?}");
            assert_eq!(kind(&format!("%YAML 1.1\n---\nv: {value}\n")), yaml11, "{value:?} in YAML 1.1");
        }
        assert_eq!(doc("v: 123\n").get("v").and_then(Node::as_str), None, "a number is no string");
        for (directives, yaml11) in [
            ("%YAML 1.1 # a comment\n", true),
            ("\u{feff}# a comment\n%TAG !e! tag:e.com,2000:\n%YAML 1.1\n", true),
            ("%YAML 1.2\n", false),
            ("%YAML 1.3\n", false),
        ] {
            let kind = kind(&format!("{directives}---\nv: yes\n"));
            assert_eq!(kind == Kind::Other, yaml11, "{directives:?}");
        }
        assert_eq!(parse("%YAML 1.1 more\n---\nv: yes\n"), Parsed::NotYaml);
        assert_eq!(parse("%YAML 1.1\n%YAML 1.2\n---\nv: yes\n"), Parsed::CannotTell(TWO_VERSIONS));
    }

    #[test]
    fn a_key_given_twice_in_a_mapping_at_any_depth_is_no_yaml() {
        for twice in [
            "a: 1\na: 2\n",
            "a: 1\n'a': 2\n",
            "1: a\n1.0: b\n",
            "-0: a\n0: b\n",
            "9007199254740993: a\n9007199254740992: b\n",
            "~: a\n: b\n",
            "true: a\nTrue: b\n",
            "%YAML 1.1\n---\nyes: a\ntrue: b\n",
            "a: [[[[[[{x: 1, x: 2}]]]]]]\n",
        ] {
            assert_eq!(parse(twice), Parsed::NotYaml, "{twice:?}");
        }
        for once in [
            "1: a\n'1': b\n",
            ".nan: a\n.nan: b\n",
            "? [a]\n: 1\n? [a]\n: 2\n",
            "x: &k schema\n*k : a\nschema: b\n",
            "- a: 1\n- a: 2\n",
            "[a: 1, a: 2]\n",
            "a: {b: 1}\nb: {a: 2}\n",
        ] {
            assert!(matches!(parse(once), Parsed::Doc(_)), "{once:?}");
        }
        let root = doc("x: &k schema\n*k : a\nschema: b\n");
        assert_eq!(text(root.get("schema")), Some("b"), "an alias key is the last entry's too");
    }

    #[test]
    fn a_text_of_more_aliases_than_openspec_s_library_surely_reads_cannot_be_told() {
        let chain = |n: usize| {
            let mut text = String::from("a0: &a0 x\n");
            for i in 1..=n {
                text.push_str(&format!("a{i}: &a{i} [*a{}]\n", i - 1));
            }
            text + "schema: s\n"
        };
        // The `yaml` package refuses seven nested aliases as excessive and reads six.
        assert!(matches!(parse(&chain(ALIASES_TOLD)), Parsed::Doc(_)));
        assert_eq!(parse(&chain(ALIASES_TOLD + 1)), Parsed::CannotTell(MANY_ALIASES));
        let flat = format!("a: &a x\nb: [{}]\nschema: s\n", ["*a"; 100].join(", "));
        assert_eq!(parse(&flat), Parsed::CannotTell(MANY_ALIASES));
    }

    #[test]
    fn a_merge_key_under_yaml_1_1_or_a_key_whose_type_is_not_resolved_cannot_be_told() {
        for merged in [
            "%YAML 1.1\n---\nbase: &b {schema: x}\n<<: *b\n",
            "%YAML 1.1\n---\na: [[[[[{<<: [{x: 1}]}]]]]]\n",
        ] {
            assert_eq!(parse(merged), Parsed::CannotTell(MERGES), "{merged:?}");
        }
        for untyped in ["!!merge <<: {schema: x}\n", "0x1: a\n", "%YAML 1.1\n---\n2001-12-14: a\n"] {
            assert_eq!(parse(untyped), Parsed::CannotTell(KEY_TYPE), "{untyped:?}");
        }
        for plain in ["<<: {schema: x}\n", "%YAML 1.1\n---\n'<<': {schema: x}\nv: <<\n"] {
            assert!(matches!(parse(plain), Parsed::Doc(_)), "a string `<<`: {plain:?}");
        }
    }
}
