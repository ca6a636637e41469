//! The top of a YAML document, as far as speccoder reads OpenSpec's YAML files (a project's
//! `openspec/config.yaml`, a change's `.openspec.yaml`, a project-local schema): the parser is
//! saphyr's, and this keeps what its events say down to [`KEPT_DEPTH`] collections from the root.
//!
//! A YAML file of a repository is hostile input. An alias is never copied: it shares the node
//! its anchor names (or is [`Node::Beyond`] when that node was not kept), so a document of nested
//! aliases costs what its text holds; a collection nested deeper than the few levels a reader
//! looks at is counted, not kept, so no nesting makes a deep tree to walk or drop.

use std::collections::HashMap;
use std::rc::Rc;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

/// How many collections deep a document is kept, the root's counted: OpenSpec's files are read
/// at most three deep (a schema's `artifacts`, an artifact, its `generates`).
const KEPT_DEPTH: usize = 4;

/// A node of a YAML document, as far as it is kept.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// A scalar: its text (quotes and escapes resolved), and whether YAML's core schema reads it
    /// as null (`~`, `null`, `Null`, `NULL`, nothing, unquoted and untagged; or tagged `!!null`).
    Scalar {
        /// The scalar's text.
        text: String,
        /// Whether it is null.
        null: bool,
    },
    /// A sequence, its items in order.
    Seq(Vec<Rc<Node>>),
    /// A mapping, its entries in order (a key given twice is there twice).
    Map(Vec<(Rc<Node>, Rc<Node>)>),
    /// A collection deeper than [`KEPT_DEPTH`], or an alias of one: not kept, so what it holds
    /// cannot be told.
    Beyond,
}

impl Node {
    /// The value of the mapping's last entry whose key is the scalar `key`; `None` for a node
    /// that is no mapping, or has no such entry.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        let Node::Map(entries) = self else { return None };
        let is_key = |k: &Rc<Node>| matches!(&**k, Node::Scalar { text, .. } if text == key);
        entries.iter().rev().find(|(k, _)| is_key(k)).map(|(_, v)| &**v)
    }

    /// The text of a scalar that is not null; `None` for any other node.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Node::Scalar { text, null: false } => Some(text),
            _ => None,
        }
    }

    /// Whether the node is a null scalar.
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Node::Scalar { null: true, .. })
    }
}

/// What [`parse`] reads of a text.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Parsed {
    /// The one document's root, kept to [`KEPT_DEPTH`]; an empty stream's is a null scalar.
    Doc(Rc<Node>),
    /// No YAML document: the parser refuses it (a syntax error, an alias of an anchor not set
    /// before it), or it holds more than one document, which the YAML library OpenSpec reads its
    /// files with refuses too (its `parse`).
    NotYaml,
    /// Flow collections (`[`, `{`) nested deeper than the parser reads (255 levels), which
    /// another parser may read: whether it is YAML cannot be told.
    TooDeep,
}

/// The scanner's message for flow collections nested deeper than it counts.
const TOO_DEEP: &str = "recursion limit exceeded";

/// The one document of `text` ([`Parsed`]).
pub(crate) fn parse(text: &str) -> Parsed {
    let mut doc = Building::default();
    for event in Parser::new_from_str(text) {
        let event = match event {
            Ok((event, _)) => event,
            Err(e) if e.info() == TOO_DEEP => return Parsed::TooDeep,
            Err(_) => return Parsed::NotYaml,
        };
        if doc.event(event).is_none() {
            return Parsed::NotYaml;
        }
    }
    match doc.root {
        Some(root) => Parsed::Doc(root),
        None if doc.documents == 0 => Parsed::Doc(Rc::new(Node::Scalar { text: String::new(), null: true })),
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

/// A document read from its events ([`parse`]).
#[derive(Default)]
struct Building {
    /// The collections open, outermost first, each with its anchor id (0: none).
    open: Vec<(Open, usize)>,
    /// How many collections deep the reading is beyond the kept ones (0: within them).
    beyond: usize,
    /// The anchor id of the outermost collection not kept (0: none).
    beyond_anchor: usize,
    /// The nodes anchored so far, by anchor id.
    anchors: HashMap<usize, Rc<Node>>,
    /// How many documents started.
    documents: usize,
    /// The document's root, once read.
    root: Option<Rc<Node>>,
}

impl Building {
    /// Takes one event; `None` once the stream is no one document.
    fn event(&mut self, event: Event<'_>) -> Option<()> {
        match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return None;
                }
            }
            Event::SequenceStart(anchor, _) => self.start(Open::Seq(Vec::new()), anchor),
            Event::MappingStart(anchor, _) => self.start(Open::Map(Vec::new(), None), anchor),
            Event::SequenceEnd | Event::MappingEnd => self.end(),
            Event::Scalar(text, style, anchor, tag) => {
                let null = is_null(&text, style, tag.as_deref());
                let scalar = Rc::new(Node::Scalar { text: text.into_owned(), null });
                if self.beyond == 0 {
                    self.place(scalar, anchor);
                } else if anchor != 0 {
                    // An alias of it may stand where the document is kept.
                    self.anchors.insert(anchor, scalar);
                }
            }
            Event::Alias(id) if self.beyond == 0 => {
                let node = self.anchors.get(&id).cloned().unwrap_or_else(|| Rc::new(Node::Beyond));
                self.place(node, 0);
            }
            Event::Alias(_) | Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {
            }
        }
        Some(())
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

/// Whether YAML 1.2's core schema, which the YAML library OpenSpec reads with follows, reads the
/// scalar `text` of `style` and `tag` as null.
fn is_null(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> bool {
    match tag {
        Some(tag) => tag.is_yaml_core_schema() && tag.suffix == "null",
        None => style == ScalarStyle::Plain && matches!(text, "" | "~" | "null" | "Null" | "NULL"),
    }
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
    fn an_alias_shares_its_anchor_s_node_and_a_bomb_of_aliases_stays_the_size_of_its_text() {
        let root = doc("a: &x {id: tasks}\nb: *x\n");
        let (Some(a), Some(b)) = (root.get("a"), root.get("b")) else { panic!("{root:?}") };
        assert!(std::ptr::eq(a, b), "one node, never a copy");
        let mut bomb = String::from("l0: &l0 [x, x, x, x, x, x, x, x, x]\n");
        for n in 1..40 {
            let prev = n - 1;
            bomb.push_str(&format!("l{n}: &l{n} [*l{prev}, *l{prev}, *l{prev}, *l{prev}, *l{prev}]\n"));
        }
        let root = doc(&bomb);
        let Some(Node::Seq(items)) = root.get("l39") else { panic!("{root:?}") };
        assert_eq!(items.len(), 5);
    }

    #[test]
    fn collections_deeper_than_kept_are_beyond_and_deeper_than_the_parser_reads_too_deep() {
        let nested = |levels: usize| format!("a: {}{}\n", "[".repeat(levels), "]".repeat(levels));
        assert_eq!(parse(&nested(256)), Parsed::TooDeep);
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
}
