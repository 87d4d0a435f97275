//! Splits a rule into tokens. Hand-written so that the tricky spots of the language
//! get precise errors: `10S` is a card but `10 S` is not, `A` alone is the rank word
//! ace but `AC` is the ace of clubs, `2..9` is a range and `last.odd` an attribute.

use crate::cards::{Card, Rank, Suit};

use super::error::{RuleError, Span};

/// One token of the rule language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    Int(i64),
    Card(Card),
    /// A name or keyword, lower-cased (keywords are case-insensitive).
    Word(String),
    /// A suit symbol standing alone (`♠`), the same as the suit's name.
    SuitSymbol(Suit),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Dot,
    DotDot,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Eof,
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// How a token is named in "found …" messages.
pub(crate) fn describe(source: &str, token: &Token) -> String {
    match token.tok {
        Tok::Eof => "the end of the rule".to_string(),
        _ => {
            let text = source.get(token.span.start..token.span.end).unwrap_or("?");
            format!("'{}'", shorten(text))
        }
    }
}

/// Cuts a quoted piece of source to a readable length.
pub(crate) fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

fn is_word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn suit_letter(c: char) -> Option<Suit> {
    match c.to_ascii_uppercase() {
        'S' => Some(Suit::Spades),
        'H' => Some(Suit::Hearts),
        'D' => Some(Suit::Diamonds),
        'C' => Some(Suit::Clubs),
        _ => None,
    }
}

fn suit_symbol(c: char) -> Option<Suit> {
    match c {
        '♠' | '♤' => Some(Suit::Spades),
        '♥' | '♡' => Some(Suit::Hearts),
        '♦' | '♢' => Some(Suit::Diamonds),
        '♣' | '♧' => Some(Suit::Clubs),
        _ => None,
    }
}

/// A rank letter that may start a card literal (`A J Q K`, and `T` for ten).
fn rank_letter(c: char) -> Option<Rank> {
    match c.to_ascii_uppercase() {
        'A' => Some(Rank::ACE),
        'T' => Rank::new(10),
        'J' => Some(Rank::JACK),
        'Q' => Some(Rank::QUEEN),
        'K' => Some(Rank::KING),
        _ => None,
    }
}

/// Tokenizes the whole rule; the last token is always [`Tok::Eof`].
pub(crate) fn tokenize(source: &str) -> Result<Vec<Token>, RuleError> {
    let mut tokens = Vec::new();
    let mut chars = source.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        // The character after `c`, without consuming.
        let rest = &source[start..];
        let next = rest.chars().nth(1);
        if c.is_whitespace() && !breaks_a_line_unseen(c, next) {
            chars.next();
            continue;
        }
        if c == '#' {
            // To the end of the line: a line feed, or the carriage return of a
            // CRLF. Characters that would end the line on screen but not here, and
            // controls that reorder or hide text, are refused: the rest of the rule
            // must not hide in a comment. Emoji and their joiners are fine.
            while let Some(&(at, c)) = chars.peek() {
                if c == '\n' {
                    break;
                }
                let after = source[at..].chars().nth(1);
                if c == '\r' && matches!(after, Some('\n') | None) {
                    break;
                }
                if c != '\t'
                    && (breaks_a_line_unseen(c, after) || crate::referee::disguises_a_line(c))
                {
                    return Err(RuleError::at(
                        source,
                        Span::new(at, at + c.len_utf8()),
                        unexpected(c, " in a comment"),
                    ));
                }
                chars.next();
            }
            continue;
        }

        if c.is_ascii_digit() {
            let len = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            let digits = &rest[..len];
            let tail = &rest[len..];
            let mut tail_chars = tail.chars();
            let follow = tail_chars.next();
            let follow2 = tail_chars.next();
            // `10S`, `7♦`: a rank in digits glued to a suit is a card literal.
            if let Some(f) = follow {
                let suit = suit_letter(f).or_else(|| suit_symbol(f));
                let glued = suit_letter(f).is_some() && follow2.is_some_and(is_word_char);
                if let (Some(suit), false) = (suit, glued) {
                    let mut end = start + len + f.len_utf8();
                    if suit_symbol(f).is_some() {
                        end += selector_at(source, end);
                    }
                    let span = Span::new(start, end);
                    let rank = (digits.len() <= 2)
                        .then(|| Rank::parse(digits))
                        .flatten()
                        .filter(|r| r.value() >= 2 || digits == "1");
                    let Some(rank) = rank else {
                        return Err(RuleError::at(
                            source,
                            span,
                            format!(
                                "'{}' is not a card: card ranks are A, 2 to 10, J, Q and K",
                                &source[start..end]
                            ),
                        ));
                    };
                    tokens.push(Token {
                        tok: Tok::Card(Card::new(rank, suit)),
                        span,
                    });
                    advance_to(&mut chars, end);
                    continue;
                }
                if is_word_char(f) {
                    let word_len = tail.find(|c: char| !is_word_char(c)).unwrap_or(tail.len());
                    let span = Span::new(start, start + len + word_len);
                    return Err(RuleError::at(
                        source,
                        span,
                        format!(
                            "'{}' is neither a number nor a card (a card is a rank glued to a suit, like 10S or QH)",
                            shorten(&source[span.start..span.end])
                        ),
                    ));
                }
            }
            let span = Span::new(start, start + len);
            let value: i64 = digits.parse().map_err(|_| {
                RuleError::at(
                    source,
                    span,
                    format!(
                        "the number {} is too large (at most {})",
                        shorten(digits),
                        i64::MAX
                    ),
                )
            })?;
            tokens.push(Token {
                tok: Tok::Int(value),
                span,
            });
            advance_to(&mut chars, start + len);
            continue;
        }

        if is_word_start(c) {
            let len = rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len());
            let word = &rest[..len];
            let mut end = start + len;
            let tok = if let (2, Some(rank), Some(suit)) =
                (word.len(), rank_letter(c), next.and_then(suit_letter))
            {
                // `QH`, `ac`, `TS`: no keyword of the language has this shape.
                Tok::Card(Card::new(rank, suit))
            } else if let (1, Some(rank), Some(suit)) =
                (word.len(), rank_letter(c), next.and_then(suit_symbol))
            {
                // `Q♠`
                end += next.map_or(0, char::len_utf8);
                end += selector_at(source, end);
                Tok::Card(Card::new(rank, suit))
            } else {
                Tok::Word(word.to_ascii_lowercase())
            };
            tokens.push(Token {
                tok,
                span: Span::new(start, end),
            });
            advance_to(&mut chars, end);
            continue;
        }

        let two = |second: char| next == Some(second);
        let (tok, len) = match c {
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '[' => (Tok::LBracket, 1),
            ']' => (Tok::RBracket, 1),
            '{' => (Tok::LBrace, 1),
            '}' => (Tok::RBrace, 1),
            ',' => (Tok::Comma, 1),
            '.' if two('.') => (Tok::DotDot, 2),
            '.' => (Tok::Dot, 1),
            '+' => (Tok::Plus, 1),
            '-' => (Tok::Minus, 1),
            '*' => (Tok::Star, 1),
            '/' => (Tok::Slash, 1),
            '%' => (Tok::Percent, 1),
            '=' if two('=') => (Tok::Eq, 2),
            '!' if two('=') => (Tok::Ne, 2),
            '<' if two('=') => (Tok::Le, 2),
            '<' => (Tok::Lt, 1),
            '>' if two('=') => (Tok::Ge, 2),
            '>' => (Tok::Gt, 1),
            '≠' => (Tok::Ne, c.len_utf8()),
            '≤' => (Tok::Le, c.len_utf8()),
            '≥' => (Tok::Ge, c.len_utf8()),
            '=' => {
                return Err(RuleError::at(
                    source,
                    Span::new(start, start + 1),
                    "unexpected '=': write '==' to compare (a rule does not assign)",
                ))
            }
            _ => {
                if let Some(suit) = suit_symbol(c) {
                    let end = start + c.len_utf8();
                    (
                        Tok::SuitSymbol(suit),
                        c.len_utf8() + selector_at(source, end),
                    )
                } else {
                    return Err(RuleError::at(
                        source,
                        Span::new(start, start + c.len_utf8()),
                        unexpected(c, ""),
                    ));
                }
            }
        };
        tokens.push(Token {
            tok,
            span: Span::new(start, start + len),
        });
        advance_to(&mut chars, start + len);
    }
    tokens.push(Token {
        tok: Tok::Eof,
        span: Span::new(source.len(), source.len()),
    });
    Ok(tokens)
}

/// Whether `c` (followed by `next`) ends a line for some editors or screens but
/// not for the language, which counts lines by line feeds (a CRLF is one line
/// break): a carriage return alone, the vertical tab, the form feed, the next-line
/// character and the Unicode line and paragraph separators. In a comment one would
/// make the rest of the rule look like code while it is still comment; elsewhere it
/// would make the reported line numbers wrong. They are refused, named by code.
fn breaks_a_line_unseen(c: char, next: Option<char>) -> bool {
    match c {
        // A carriage return ends the text harmlessly.
        '\r' => next.is_some_and(|n| n != '\n'),
        '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}' => true,
        _ => false,
    }
}

/// Characters that are not visible text: controls, invisible and direction marks.
fn disguises(c: char) -> bool {
    c.is_control()
        || crate::referee::round::invisible_in_a_name(c)
        || crate::referee::disguises_a_line(c)
        || matches!(
            c,
            '\u{fffd}' | '\u{200c}'..='\u{200f}' | '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}'
        )
}

/// The message for a character that has no place where it is (`place` is "" or
/// " in a comment"); an invisible one is named by its code, not shown as nothing.
fn unexpected(c: char, place: &str) -> String {
    let code = u32::from(c);
    if c == '\u{feff}' {
        // Editors put one at a file's start; the CLI's readers skip it there.
        format!("unexpected character U+FEFF (a byte-order mark, invisible){place}")
    } else if breaks_a_line_unseen(c, Some(' ')) {
        format!(
            "unexpected character U+{code:04X}{place}: a line break other than a line feed \
             (lines end with a line feed or CRLF; save the rule with ordinary line ends)"
        )
    } else if !place.is_empty() {
        format!("unexpected character U+{code:04X}{place} (a comment holds visible text to the end of its line)")
    } else if disguises(c) {
        format!("unexpected character U+{code:04X} (not part of the rule language)")
    } else {
        format!("unexpected character '{c}' (not part of the rule language)")
    }
}

/// The length of a variation selector at byte `at` of `source` (0 when there is
/// none). Phone keyboards send a suit sign as an emoji, "♥️" = U+2665 U+FE0F: the
/// selector asks for a way of drawing the sign and belongs to its token.
fn selector_at(source: &str, at: usize) -> usize {
    source[at..]
        .chars()
        .next()
        .filter(|c| matches!(c, '\u{FE0F}' | '\u{FE0E}'))
        .map_or(0, char::len_utf8)
}

fn advance_to(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>, end: usize) {
    while let Some(&(i, _)) = chars.peek() {
        if i >= end {
            break;
        }
        chars.next();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(source: &str) -> Vec<Tok> {
        tokenize(source)
            .expect("tokenizes")
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    fn card(text: &str) -> Tok {
        Tok::Card(text.parse().expect("card"))
    }

    #[test]
    fn card_literals_versus_numbers_and_rank_words() {
        assert_eq!(toks("10S"), vec![card("10S"), Tok::Eof]);
        assert_eq!(
            toks("10 S"),
            vec![Tok::Int(10), Tok::Word("s".into()), Tok::Eof]
        );
        assert_eq!(toks("A"), vec![Tok::Word("a".into()), Tok::Eof]);
        assert_eq!(toks("AC ac Q♠ 7♦ TH"), {
            let mut v = vec![card("AC"), card("AC"), card("QS"), card("7D"), card("10H")];
            v.push(Tok::Eof);
            v
        });
        // A two-letter word that is not rank+suit stays a word.
        assert_eq!(toks("if"), vec![Tok::Word("if".into()), Tok::Eof]);
        assert_eq!(toks("Ace"), vec![Tok::Word("ace".into()), Tok::Eof]);
    }

    #[test]
    fn ranges_attributes_and_operators() {
        assert_eq!(
            toks("2..9"),
            vec![Tok::Int(2), Tok::DotDot, Tok::Int(9), Tok::Eof]
        );
        assert_eq!(
            toks("last.odd"),
            vec![
                Tok::Word("last".into()),
                Tok::Dot,
                Tok::Word("odd".into()),
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("a<=b!=c>=d<e>f==g"),
            vec![
                Tok::Word("a".into()),
                Tok::Le,
                Tok::Word("b".into()),
                Tok::Ne,
                Tok::Word("c".into()),
                Tok::Ge,
                Tok::Word("d".into()),
                Tok::Lt,
                Tok::Word("e".into()),
                Tok::Gt,
                Tok::Word("f".into()),
                Tok::Eq,
                Tok::Word("g".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn comments_and_case() {
        assert_eq!(
            toks("IF # comment ♠ ) \n Red"),
            vec![Tok::Word("if".into()), Tok::Word("red".into()), Tok::Eof]
        );
        assert_eq!(toks("♠"), vec![Tok::SuitSymbol(Suit::Spades), Tok::Eof]);
    }

    #[test]
    fn suit_signs_typed_as_emoji_read_as_the_signs() {
        // A phone keyboard's "♥️" is U+2665 U+FE0F.
        assert_eq!(
            toks("♥\u{fe0f} Q♠\u{fe0f} 10♦\u{fe0e}"),
            vec![
                Tok::SuitSymbol(Suit::Hearts),
                Tok::Card("QS".parse().expect("card")),
                Tok::Card("10D".parse().expect("card")),
                Tok::Eof
            ]
        );
        // Anywhere else a selector is an invisible character, named by its code.
        for text in ["red \u{fe0f}", "red\u{180e}", "red\u{e0001}", "red\u{fe0e}"] {
            let err = tokenize(text).unwrap_err();
            assert!(
                err.message.contains("character U+"),
                "{text:?}: {}",
                err.message
            );
        }
    }

    #[test]
    fn bad_input_is_reported_with_position() {
        let err = tokenize("red and\n  11S").unwrap_err();
        assert_eq!((err.line, err.column), (2, 3));
        assert!(
            err.message.contains("'11S' is not a card"),
            "{}",
            err.message
        );
        let err = tokenize("x @").unwrap_err();
        assert_eq!((err.line, err.column), (1, 3));
        assert!(err.message.contains("'@'"));
        let err = tokenize("card.rank = 5").unwrap_err();
        assert!(err.message.contains("'=='"));
        let err = tokenize("99999999999999999999999").unwrap_err();
        assert!(err.message.contains("too large"));
        let err = tokenize("10abc").unwrap_err();
        assert!(err.message.contains("neither a number nor a card"));
        let err = tokenize("\u{0}").unwrap_err();
        assert!(err.message.contains("U+0000"), "{}", err.message);
        // Invisible characters are named by their code, not shown as nothing.
        let err = tokenize("red\u{feff}").unwrap_err();
        assert!(
            err.message.contains("U+FEFF (a byte-order mark"),
            "{}",
            err.message
        );
        let err = tokenize("red or\u{200b} black").unwrap_err();
        assert!(err.message.contains("U+200B"), "{}", err.message);
    }
}
