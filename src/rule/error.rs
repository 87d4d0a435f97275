//! The one error type of the rule language: every problem — a bad character, a
//! missing `then`, a suit compared with a colour — is reported with the line and
//! column where it was found, so God can fix the rule before it is sealed.

use thiserror::Error;

/// A rule that cannot be sealed, and where and why.
///
/// Displays as `line L, column C: message`; lines and columns are 1-based and
/// columns count characters (not bytes), so `♠` is one column.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}, column {column}: {message}")]
pub struct RuleError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// A byte range of the rule's source, kept on every token and syntax node so that
/// errors point at the right place and explanations can quote God's own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

impl RuleError {
    /// An error at the start of `span` in `source`.
    pub(crate) fn at(source: &str, span: Span, message: impl Into<String>) -> RuleError {
        let (line, column) = line_column(source, span.start);
        RuleError {
            line,
            column,
            message: message.into(),
        }
    }
}

/// 1-based line and character column of a byte offset (clamped to the source).
pub(crate) fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let source = "a\n♠♠ x";
        assert_eq!(line_column(source, 0), (1, 1));
        assert_eq!(line_column(source, 2), (2, 1));
        let x = source.find('x').unwrap_or(0);
        assert_eq!(line_column(source, x), (2, 4));
        assert_eq!(line_column(source, 10_000), (2, 5));
    }

    #[test]
    fn displays_line_and_column_first() {
        let err = RuleError::at("ab\ncd", Span::new(4, 5), "expected 'then'");
        assert_eq!(err.to_string(), "line 2, column 2: expected 'then'");
    }
}
