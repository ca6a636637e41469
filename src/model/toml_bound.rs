//! A bound on what a TOML text can build, told from its tokens before it is parsed. The parser
//! turns a text into a document whose tables, arrays and values take far more memory than their
//! text (a policy of many tiny rules was refused by the rule cap only after the whole document
//! was built), so a file read from outside is refused here, in one pass that allocates nothing,
//! when it holds more than its reader could ever accept.
//!
//! The tokens are read by the parser's own lexer (`toml_parser`, which `toml` parses with), so what
//! is counted is exactly what the parser sees: a `[`, `{`, `.`, `=` or `,` inside a string or a
//! comment is no token and is not counted, and a string the parser ends at a line break (an
//! unterminated one, which it reads on past) ends there here too.

use toml_parser::lexer::TokenKind;

/// How much structure a text may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Tokens that open a table or an array: `[` (a table header opens with one, an array of
    /// tables' with two, an array with one) and `{` (an inline table).
    pub tables: usize,
    /// `.` tokens: a dotted key makes a table at each dot (a float's dot is counted too).
    pub dots: usize,
    /// Tokens that introduce a value: `=` and `,` (the first item of an array follows its `[`).
    pub values: usize,
}

/// The token at which a text holds more than its [`Limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exceeded {
    /// The byte offset of that token.
    pub offset: usize,
    /// What was counted, for a message: `tables and arrays`, `dotted keys and floats` or `values`.
    pub what: &'static str,
    /// The limit it went past.
    pub limit: usize,
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "more than {} {} (counted before parsing, here)", self.limit, self.what)
    }
}

/// Checks `text` against `limits`, without parsing it.
///
/// # Errors
/// [`Exceeded`], at the first token past a limit.
pub fn check(text: &str, limits: Limits) -> Result<(), Exceeded> {
    let (mut tables, mut dots, mut values) = (0usize, 0usize, 0usize);
    for token in toml_parser::Source::new(text).lex() {
        let (count, limit, what) = match token.kind() {
            TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => {
                (&mut tables, limits.tables, "tables and arrays")
            }
            TokenKind::Dot => (&mut dots, limits.dots, "dotted keys and floats"),
            TokenKind::Equals | TokenKind::Comma => (&mut values, limits.values, "values"),
            _ => continue,
        };
        *count += 1;
        if *count > limit {
            return Err(Exceeded { offset: token.span().start(), what, limit });
        }
    }
    Ok(())
}

/// The most dots the TOML parser follows in one key (`a.b.c` has two): it refuses a key of more
/// saying only "recursion limit", without a place, so [`deep_key`] finds the key.
pub const PARSER_KEY_DOTS: usize = 79;

/// A key of more dots than the parser follows ([`PARSER_KEY_DOTS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeepKey {
    /// The byte offset of the key's first token.
    pub offset: usize,
    /// How many dots it has.
    pub dots: usize,
}

/// The first key of `text` (in a table header, a key/value pair or an inline table) with more
/// than [`PARSER_KEY_DOTS`] dots, read by the parser's own lexer: a key is a run of names,
/// strings, dots and blanks, ended by any other token.
#[must_use]
pub fn deep_key(text: &str) -> Option<DeepKey> {
    let mut key: Option<DeepKey> = None;
    for token in toml_parser::Source::new(text).lex() {
        let offset = token.span().start();
        match token.kind() {
            TokenKind::Atom | TokenKind::BasicString | TokenKind::LiteralString | TokenKind::Dot => {
                let run = key.get_or_insert(DeepKey { offset, dots: 0 });
                run.dots += usize::from(token.kind() == TokenKind::Dot);
            }
            TokenKind::Whitespace => {}
            _ => match key.take() {
                Some(deep) if deep.dots > PARSER_KEY_DOTS => return Some(deep),
                _ => {}
            },
        }
    }
    key.filter(|deep| deep.dots > PARSER_KEY_DOTS)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FEW: Limits = Limits { tables: 3, dots: 1, values: 3 };

    #[test]
    fn brackets_and_braces_count_as_tables_dots_as_dots_and_equals_and_commas_as_values() {
        assert!(check("[a]\nb = {c.d = 1}\n[e]\n", FEW).is_ok());
        let e = check("[a]\nb = {c.d = 1}\n[e]\n[f]\n", FEW).unwrap_err();
        assert_eq!((e.offset, e.what), (22, "tables and arrays"));
        let e = check("a.b = 1.5\n", FEW).unwrap_err();
        assert_eq!((e.offset, e.what), (7, "dotted keys and floats"));
        let e = check("a = [1, 2, 3, 4]\n", FEW).unwrap_err();
        assert_eq!((e.offset, e.what), (12, "values"));
    }

    #[test]
    fn what_strings_and_comments_hold_is_not_counted() {
        let text = "a = \"[[{.=,\" # [[{{..==,,\nb = '[{.,=' \nc = \"\"\"\n[[x]]\n\"\"\"\nd = '''{{{'''\n";
        let four = Limits { values: 4, ..FEW };
        assert!(check(text, four).is_ok(), "{:?}", check(text, four));
        assert!(check("a = \"\\\"[[[[\"\n", FEW).is_ok(), "an escaped quote does not end the string");
    }

    #[test]
    fn a_string_left_open_ends_at_the_line_break_as_the_parser_ends_it() {
        let e = check("a = \"open\n[b]\n[c]\n[d]\n[e]\n", FEW).unwrap_err();
        assert_eq!(e.what, "tables and arrays");
    }

    #[test]
    fn the_first_key_of_more_dots_than_the_parser_follows_is_found_where_it_starts() {
        let key = |dots: usize| vec!["a"; dots + 1].join(".");
        let text =
            format!("x = 1.5\n[{}]\ny = {{ {} = 1 }}\n", key(PARSER_KEY_DOTS), key(PARSER_KEY_DOTS + 1));
        let found = deep_key(&text).expect("the inline table's key");
        assert_eq!(found, DeepKey { offset: text.find("{ a").unwrap() + 2, dots: PARSER_KEY_DOTS + 1 });
        let header = format!("[{}]\n", key(300));
        assert_eq!(deep_key(&header), Some(DeepKey { offset: 1, dots: 300 }));
        assert_eq!(
            deep_key(&format!("'q' . \"r\" . {} = 1", key(PARSER_KEY_DOTS - 2))).map(|k| k.dots),
            None
        );
        let at_end = key(PARSER_KEY_DOTS + 1);
        assert_eq!(deep_key(&at_end), Some(DeepKey { offset: 0, dots: PARSER_KEY_DOTS + 1 }));
    }

    #[test]
    fn the_parser_follows_exactly_as_many_dots_in_a_key_as_the_bound_says() {
        let key = |dots: usize| format!("{} = 1\n", vec!["a"; dots + 1].join("."));
        assert!(toml::from_str::<toml::Table>(&key(PARSER_KEY_DOTS)).is_ok());
        let e = toml::from_str::<toml::Table>(&key(PARSER_KEY_DOTS + 1)).unwrap_err();
        assert_eq!((e.message(), e.span()), ("recursion limit", None), "the parser names no place");
    }
}
