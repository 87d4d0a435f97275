//! Recursive-descent parser, one function per precedence level of
//! `RULE-LANGUAGE.md` (loosest first): `if` · `or` · `and` · `not` · comparisons and
//! `in` · `+ -` · `* / %` · unary `-` · `.attribute` and `[index]`.
//!
//! Every error says what was expected and what was found instead, at the place it
//! was found. Nesting is bounded twice: by recursion depth while parsing (brackets,
//! `not`, `if` inside `if`…) and by the height of the finished tree (long chains of
//! `+`), so no rule, however hostile, can overflow the stack here or later.

use super::error::{RuleError, Span};
use super::lexer::{describe, Tok, Token};
use super::syntax::{
    adjective, ArithOp, Attribute, CmpOp, Collection, Expr, Kind, List, SetItem, Subject,
};

/// How deeply constructs may nest while parsing (brackets, `not`, `if`, calls).
pub(crate) const MAX_NESTING: usize = 64;
/// The tallest syntax tree accepted.
pub(crate) const MAX_HEIGHT: u32 = 200;

/// The words with a fixed meaning, for "unknown name" messages.
const KNOWN_NAMES: &str = "card, last, prev, main, side, wrong, it, red, black, spades, hearts, \
diamonds, clubs, odd, even, face, prime, true, false, A, J, Q, K, len, abs, min, max, count, sum";

/// The known name a typo most likely meant (`blak` → `black`): one edit away, or
/// two for longer words, ignoring capitals; none when no name or several are that
/// close.
fn nearest_name(word: &str) -> Option<&'static str> {
    let word = word.to_lowercase();
    let reach = if word.chars().count() >= 5 { 2 } else { 1 };
    let mut best: Option<(usize, &'static str)> = None;
    let mut tied = false;
    for name in KNOWN_NAMES.split(", ") {
        let distance = edit_distance(&word, &name.to_lowercase());
        if distance > reach {
            continue;
        }
        match best {
            Some((d, _)) if d < distance => {}
            Some((d, _)) if d == distance => tied = true,
            _ => {
                best = Some((distance, name));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, name)| name)
}

/// Edit distance in characters, a swap of two neighbours counting as one edit
/// (`rde` is one from `red`): insertions, deletions, substitutions, transpositions.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

pub(crate) struct Parser<'s> {
    source: &'s str,
    tokens: Vec<Token>,
    pos: usize,
    nesting: usize,
}

impl<'s> Parser<'s> {
    pub fn new(source: &'s str, tokens: Vec<Token>) -> Parser<'s> {
        Parser {
            source,
            tokens,
            pos: 0,
            nesting: 0,
        }
    }

    /// Parses the whole rule: one expression and nothing after it.
    pub fn parse_rule(mut self) -> Result<Expr, RuleError> {
        if matches!(self.peek().tok, Tok::Eof) {
            return Err(self.error_here(
                "the rule is empty: expected an expression such as 'if last.odd then black else red'",
            ));
        }
        let expr = self.expr()?;
        if !matches!(self.peek().tok, Tok::Eof) {
            let found = self.found();
            return Err(self.error_here(format!(
                "expected an operator (and, or, ==, +, …) or the end of the rule, found {found}"
            )));
        }
        Ok(expr)
    }

    // ----- token helpers -------------------------------------------------------

    fn peek(&self) -> &Token {
        // `tokens` always ends with Eof and `pos` never passes it.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        let i = (self.pos + ahead).min(self.tokens.len() - 1);
        &self.tokens[i].tok
    }

    fn advance(&mut self) -> Token {
        let token = self.peek().clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        token
    }

    fn is_word(&self, word: &str) -> bool {
        matches!(&self.peek().tok, Tok::Word(w) if w == word)
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if self.is_word(word) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn eat(&mut self, tok: &Tok) -> Option<Token> {
        if &self.peek().tok == tok {
            Some(self.advance())
        } else {
            None
        }
    }

    fn found(&self) -> String {
        describe(self.source, self.peek())
    }

    fn error_here(&self, message: impl Into<String>) -> RuleError {
        RuleError::at(self.source, self.peek().span, message)
    }

    fn error_at(&self, span: Span, message: impl Into<String>) -> RuleError {
        RuleError::at(self.source, span, message)
    }

    fn expect_word(&mut self, word: &str, context: &str) -> Result<Token, RuleError> {
        if self.is_word(word) {
            Ok(self.advance())
        } else {
            let found = self.found();
            Err(self.error_here(format!("expected '{word}' {context}, found {found}")))
        }
    }

    fn expect(&mut self, tok: &Tok, shown: &str, context: &str) -> Result<Token, RuleError> {
        if let Some(t) = self.eat(tok) {
            Ok(t)
        } else {
            let found = self.found();
            Err(self.error_here(format!("expected '{shown}' {context}, found {found}")))
        }
    }

    /// Builds a node and enforces the height limit.
    fn node(&self, kind: Kind, span: Span) -> Result<Expr, RuleError> {
        let expr = Expr::new(kind, span);
        if expr.height > MAX_HEIGHT {
            return Err(self.error_at(
                span,
                format!(
                    "the rule is nested too deeply (more than {MAX_HEIGHT} levels of operators); simplify it"
                ),
            ));
        }
        Ok(expr)
    }

    /// Runs `f` one nesting level deeper, refusing to go past the limit.
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, RuleError>,
    ) -> Result<T, RuleError> {
        if self.nesting >= MAX_NESTING {
            return Err(self.error_here(format!(
                "the rule is nested too deeply (more than {MAX_NESTING} levels of brackets, not, if or calls)"
            )));
        }
        self.nesting += 1;
        let result = f(self);
        self.nesting -= 1;
        result
    }

    // ----- grammar -------------------------------------------------------------

    /// expr := if-expr | or-expr
    fn expr(&mut self) -> Result<Expr, RuleError> {
        self.nested(|p| {
            if p.is_word("if") {
                p.if_expr()
            } else {
                p.or_expr()
            }
        })
    }

    /// `if c then a (elif c then a)* else b`
    fn if_expr(&mut self) -> Result<Expr, RuleError> {
        let start = self.advance().span;
        let mut arms = Vec::new();
        let mut keyword = "if";
        loop {
            let condition = self.expr()?;
            self.expect_word("then", &format!("after the condition of '{keyword}'"))?;
            let branch = self.expr()?;
            arms.push((condition, branch));
            if self.eat_word("elif") {
                keyword = "elif";
                continue;
            }
            if self.eat_word("else") {
                break;
            }
            let found = self.found();
            return Err(self.error_here(format!(
                "expected 'elif' or 'else' after the 'then' branch of '{keyword}' (every if needs an else), found {found}"
            )));
        }
        let otherwise = self.expr()?;
        let span = start.to(otherwise.span);
        self.node(
            Kind::If {
                arms,
                otherwise: Box::new(otherwise),
            },
            span,
        )
    }

    fn or_expr(&mut self) -> Result<Expr, RuleError> {
        let first = self.and_expr()?;
        if !self.is_word("or") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_word("or") {
            items.push(self.operand_after("or", Self::and_expr)?);
        }
        let span = span_of(&items);
        self.node(Kind::Or(items), span)
    }

    fn and_expr(&mut self) -> Result<Expr, RuleError> {
        let first = self.not_expr()?;
        if !self.is_word("and") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_word("and") {
            items.push(self.operand_after("and", Self::not_expr)?);
        }
        let span = span_of(&items);
        self.node(Kind::And(items), span)
    }

    /// Parses the operand after a binary operator; an `if` there is allowed (it
    /// extends as far as possible), a missing operand gets a clear message.
    fn operand_after(
        &mut self,
        operator: &str,
        next: fn(&mut Self) -> Result<Expr, RuleError>,
    ) -> Result<Expr, RuleError> {
        if self.starts_operand() {
            if self.is_word("if") {
                self.expr()
            } else {
                next(self)
            }
        } else {
            let found = self.found();
            Err(self.error_here(format!(
                "expected a value after '{operator}', found {found}"
            )))
        }
    }

    /// Whether the next token can begin an operand.
    fn starts_operand(&self) -> bool {
        match &self.peek().tok {
            Tok::Int(_) | Tok::Card(_) | Tok::SuitSymbol(_) | Tok::LParen | Tok::Minus => true,
            Tok::Word(w) => !matches!(w.as_str(), "then" | "elif" | "else" | "and" | "or" | "in"),
            _ => false,
        }
    }

    fn not_expr(&mut self) -> Result<Expr, RuleError> {
        if self.is_word("not") {
            let start = self.advance().span;
            let inner = self.nested(|p| p.operand_after("not", Self::not_expr))?;
            let span = start.to(inner.span);
            return self.node(Kind::Not(Box::new(inner)), span);
        }
        self.comparison()
    }

    fn comparison_op(&self) -> Option<CmpOp> {
        Some(match self.peek().tok {
            Tok::Eq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            _ => return None,
        })
    }

    /// The comparison level: `a op b`, `a in X`, `a not in X`, one after another,
    /// read left to right as the spec's single level of comparisons is
    /// (`card.red == last.red == false` is `(card.red == last.red) == false`). A run
    /// of ordering comparisons is one chain whose every link must hold
    /// (`2 <= card.rank <= 9`, an extension): read left to right such a run would
    /// compare true/false with a number, a type error, so no rule the spec allows
    /// changes its meaning. A chain is stored flat, so a long one is not deep.
    fn comparison(&mut self) -> Result<Expr, RuleError> {
        let mut left = self.additive()?;
        loop {
            if let Some(op) = self.comparison_op() {
                let mut rest = vec![(op, self.comparison_operand()?)];
                if op.is_ordering() {
                    while let Some(next) = self.comparison_op().filter(|o| o.is_ordering()) {
                        rest.push((next, self.comparison_operand()?));
                    }
                }
                let span = left.span.to(rest.last().map_or(left.span, |(_, e)| e.span));
                left = self.node(
                    Kind::Compare {
                        first: Box::new(left),
                        rest,
                        operands: super::syntax::Type::Bool,
                    },
                    span,
                )?;
                continue;
            }
            let negated =
                self.is_word("not") && matches!(self.peek_at(1), Tok::Word(w) if w == "in");
            if negated {
                self.advance();
            }
            if !self.eat_word("in") {
                return Ok(left);
            }
            let (collection, end) = self.collection(if negated { "not in" } else { "in" })?;
            let span = left.span.to(end);
            left = self.node(
                Kind::In {
                    value: Box::new(left),
                    negated,
                    collection,
                    operands: super::syntax::Type::Bool,
                },
                span,
            )?;
        }
    }

    /// The operand after a comparison operator (the operator is next).
    fn comparison_operand(&mut self) -> Result<Expr, RuleError> {
        let op_token = self.advance();
        let shown = &self.source[op_token.span.start..op_token.span.end];
        self.operand_after(shown, Self::additive)
    }

    /// What follows `in`: `{…}`, `lo..hi` or a list name.
    fn collection(&mut self, keyword: &str) -> Result<(Collection, Span), RuleError> {
        if let Some(open) = self.eat(&Tok::LBrace) {
            return self.nested(|p| p.set_items(open.span));
        }
        if !self.starts_operand() {
            let found = self.found();
            return Err(self.error_here(format!(
                "expected a set {{…}}, a range like 2..9 or a list after '{keyword}', found {found}"
            )));
        }
        let low = self.additive()?;
        if self.eat(&Tok::DotDot).is_some() {
            let high = self.operand_after("..", Self::additive)?;
            let span = high.span;
            return Ok((Collection::Range(Box::new(low), Box::new(high)), span));
        }
        if let Kind::ListRef(list) = low.kind {
            return Ok((Collection::List(list), low.span));
        }
        Err(self.error_at(
            low.span,
            format!(
                "expected a set {{…}}, a range like 2..9 or a list (main, side, wrong) after '{keyword}', found '{}'",
                super::lexer::shorten(&self.source[low.span.start..low.span.end])
            ),
        ))
    }

    /// The inside of `{ … }` after the opening brace.
    fn set_items(&mut self, open: Span) -> Result<(Collection, Span), RuleError> {
        let mut items = Vec::new();
        if let Some(close) = self.eat(&Tok::RBrace) {
            return Ok((Collection::Set(items), open.to(close.span)));
        }
        loop {
            let item = self.expr()?;
            if self.eat(&Tok::DotDot).is_some() {
                let high = self.operand_after("..", Self::additive)?;
                items.push(SetItem::Range(item, high));
            } else {
                items.push(SetItem::One(item));
            }
            if self.eat(&Tok::Comma).is_some() {
                continue;
            }
            if let Some(close) = self.eat(&Tok::RBrace) {
                return Ok((Collection::Set(items), open.to(close.span)));
            }
            let found = self.found();
            return Err(self.error_here(format!(
                "expected ',' or '}}' in the set opened at {}, found {found}",
                self.place(open)
            )));
        }
    }

    /// "line L, column C" (or "column C" on a one-line rule) of a span.
    fn place(&self, span: Span) -> String {
        let (line, column) = super::error::line_column(self.source, span.start);
        if self.source.contains('\n') {
            format!("line {line}, column {column}")
        } else {
            format!("column {column}")
        }
    }

    fn additive(&mut self) -> Result<Expr, RuleError> {
        let mut left = self.multiplicative()?;
        loop {
            let op = match self.peek().tok {
                Tok::Plus => ArithOp::Add,
                Tok::Minus => ArithOp::Sub,
                _ => return Ok(left),
            };
            self.advance();
            let right = self.operand_after(op.symbol(), Self::multiplicative)?;
            let span = left.span.to(right.span);
            left = self.node(Kind::Arith(op, Box::new(left), Box::new(right)), span)?;
        }
    }

    fn multiplicative(&mut self) -> Result<Expr, RuleError> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek().tok {
                Tok::Star => ArithOp::Mul,
                Tok::Slash => ArithOp::Div,
                Tok::Percent => ArithOp::Rem,
                _ => return Ok(left),
            };
            self.advance();
            let right = self.operand_after(op.symbol(), Self::unary)?;
            let span = left.span.to(right.span);
            left = self.node(Kind::Arith(op, Box::new(left), Box::new(right)), span)?;
        }
    }

    fn unary(&mut self) -> Result<Expr, RuleError> {
        if let Some(minus) = self.eat(&Tok::Minus) {
            let inner = self.nested(|p| p.operand_after("-", Self::unary))?;
            // Fold `-5` into a literal so that `main[-3]` reads as a constant.
            if let Kind::Int(value) = inner.kind {
                return self.node(Kind::Int(-value), minus.span.to(inner.span));
            }
            let span = minus.span.to(inner.span);
            return self.node(Kind::Neg(Box::new(inner)), span);
        }
        self.postfix()
    }

    /// A primary followed by any number of `.attribute` and `[index]`.
    fn postfix(&mut self) -> Result<Expr, RuleError> {
        let mut expr = self.primary()?;
        loop {
            if self.eat(&Tok::Dot).is_some() {
                let token = self.peek().clone();
                let attribute = match &token.tok {
                    Tok::Word(w) => Attribute::from_word(w),
                    _ => None,
                };
                let Some(attribute) = attribute else {
                    let found = self.found();
                    return Err(self.error_here(format!(
                        "expected an attribute after '.' ({}), found {found}",
                        Attribute::NAMES
                    )));
                };
                self.advance();
                let span = expr.span.to(token.span);
                expr = self.node(Kind::Attr(Box::new(expr), attribute), span)?;
            } else if self.peek().tok == Tok::LBracket {
                let open = self.advance();
                let Kind::ListRef(list) = expr.kind else {
                    return Err(self.error_at(
                        open.span,
                        format!(
                            "only main, side and wrong can be indexed, not '{}'",
                            super::lexer::shorten(&self.source[expr.span.start..expr.span.end])
                        ),
                    ));
                };
                let index = self.nested(|p| p.expr())?;
                let close = self.expect(&Tok::RBracket, "]", "after the index")?;
                let span = expr.span.to(close.span);
                expr = self.node(Kind::Index(list, Box::new(index)), span)?;
            } else {
                return Ok(expr);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, RuleError> {
        let token = self.peek().clone();
        let span = token.span;
        let kind = match &token.tok {
            Tok::Int(v) => Kind::Int(*v),
            Tok::Card(c) => Kind::CardLit(*c),
            Tok::SuitSymbol(s) => Kind::Bare(super::syntax::Adjective::Suit(*s)),
            Tok::LParen => {
                self.advance();
                let mut inner = self.expr()?;
                let close = self.expect(
                    &Tok::RParen,
                    ")",
                    &format!("to close the '(' at {}", self.place(span)),
                )?;
                // The brackets belong to the node: quoting it stays balanced.
                inner.span = span.to(close.span);
                return Ok(inner);
            }
            Tok::Word(word) => {
                if let Some(kind) = self.word(word) {
                    kind
                } else {
                    return self.call_or_error(word.clone(), span);
                }
            }
            _ => {
                let found = self.found();
                return Err(self.error_here(format!(
                    "expected a value (a card like QH, a number, a name like last or red, or '('), found {found}"
                )));
            }
        };
        self.advance();
        self.node(kind, span)
    }

    /// The meaning of a name that is a complete value by itself.
    fn word(&self, word: &str) -> Option<Kind> {
        if let Some(adj) = adjective(word) {
            return Some(Kind::Bare(adj));
        }
        Some(match word {
            "card" => Kind::Subject(Subject::Card),
            "last" => Kind::Subject(Subject::Last),
            "prev" => Kind::Subject(Subject::Prev),
            "it" => Kind::Subject(Subject::It),
            "main" => Kind::ListRef(List::Main),
            "side" => Kind::ListRef(List::Side),
            "wrong" => Kind::ListRef(List::Wrong),
            "true" => Kind::Bool(true),
            "false" => Kind::Bool(false),
            "a" => Kind::Int(1),
            "j" => Kind::Int(11),
            "q" => Kind::Int(12),
            "k" => Kind::Int(13),
            _ => return None,
        })
    }

    /// `len(…)`, `abs(…)`, `min(…)`, `max(…)`, `count(…)`, `sum(…)`, or an error
    /// explaining what the word is.
    fn call_or_error(&mut self, word: String, span: Span) -> Result<Expr, RuleError> {
        let arity: Option<(usize, usize)> = match word.as_str() {
            "len" | "abs" => Some((1, 1)),
            "min" | "max" => Some((1, usize::MAX)),
            "count" | "sum" => Some((2, 2)),
            _ => None,
        };
        let Some((least, most)) = arity else {
            let message = match word.as_str() {
                "then" | "elif" | "else" | "and" | "or" | "in" | "not" => format!(
                    "expected a value, found the keyword '{word}'"
                ),
                "color" | "colour" | "rank" | "suit" => format!(
                    "'{word}' is an attribute: write it after a card, like card.{word} or last.{word}"
                ),
                _ => format!(
                    "unknown name '{}' ({}known names: {KNOWN_NAMES})",
                    super::lexer::shorten(&self.source[span.start..span.end]),
                    nearest_name(&word).map_or(String::new(), |n| format!("did you mean '{n}'? "))
                ),
            };
            return Err(self.error_at(span, message));
        };
        self.advance();
        self.expect(
            &Tok::LParen,
            "(",
            &format!("after the function name '{word}'"),
        )?;
        let mut args = Vec::new();
        if self.peek().tok != Tok::RParen {
            loop {
                let arg = self.nested(|p| p.expr())?;
                args.push(arg);
                if self.eat(&Tok::Comma).is_some() {
                    continue;
                }
                break;
            }
        }
        let close = self.expect(
            &Tok::RParen,
            ")",
            &format!("to close the arguments of {word}(…) (or ',' between them)"),
        )?;
        let full = span.to(close.span);
        if args.len() < least || args.len() > most {
            let wanted = match word.as_str() {
                "len" => "len(list): one of main, side, wrong",
                "abs" => "abs(number)",
                "min" => "min(number, …): at least one number",
                "max" => "max(number, …): at least one number",
                "count" => "count(list, test), like count(main, it.red)",
                _ => "sum(list, value), like sum(main, it.rank)",
            };
            return Err(self.error_at(
                full,
                format!("{word} takes {wanted}; found {} argument(s)", args.len()),
            ));
        }
        let list_arg = |p: &Self, arg: &Expr| -> Result<List, RuleError> {
            if let Kind::ListRef(list) = arg.kind {
                Ok(list)
            } else {
                Err(p.error_at(
                    arg.span,
                    format!(
                        "expected a list (main, side or wrong) as the first argument of {word}, found '{}'",
                        super::lexer::shorten(&p.source[arg.span.start..arg.span.end])
                    ),
                ))
            }
        };
        let mut args = args.into_iter();
        let mut next = || args.next();
        let kind = match word.as_str() {
            "len" => {
                let arg = next().ok_or_else(|| self.error_at(full, "len needs a list"))?;
                Kind::Len(list_arg(self, &arg)?)
            }
            "abs" => Kind::Abs(Box::new(
                next().ok_or_else(|| self.error_at(full, "abs needs a number"))?,
            )),
            "min" => Kind::Min(std::iter::from_fn(next).collect()),
            "max" => Kind::Max(std::iter::from_fn(next).collect()),
            _ => {
                let list = next().ok_or_else(|| self.error_at(full, "missing list"))?;
                let list = list_arg(self, &list)?;
                let body =
                    Box::new(next().ok_or_else(|| self.error_at(full, "missing second argument"))?);
                if word == "count" {
                    Kind::Count(list, body)
                } else {
                    Kind::Sum(list, body)
                }
            }
        };
        self.node(kind, full)
    }
}

fn span_of(items: &[Expr]) -> Span {
    match (items.first(), items.last()) {
        (Some(a), Some(b)) => a.span.to(b.span),
        _ => Span::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::lexer::tokenize;

    fn parse(source: &str) -> Expr {
        let tokens = tokenize(source).expect("tokens");
        Parser::new(source, tokens).parse_rule().expect("parses")
    }

    #[test]
    fn an_unknown_name_suggests_the_name_a_typo_meant() {
        let error = |source: &str| {
            let tokens = tokenize(source).expect("tokens");
            Parser::new(source, tokens)
                .parse_rule()
                .expect_err("unknown name")
                .message
        };
        assert!(
            error("blak")
                .starts_with("unknown name 'blak' (did you mean 'black'? known names: card,"),
            "{}",
            error("blak")
        );
        assert!(error("card.rank == evn").contains("did you mean 'even'?"));
        assert!(error("if last.odd then black else rde").contains("did you mean 'red'?"));
        // Nothing near, or several alike near: no guess.
        assert!(!error("banana").contains("did you mean"));
        assert!(
            !error("x").contains("did you mean"),
            "A, J, Q, K are all one away"
        );
    }

    #[test]
    fn precedence_follows_the_spec() {
        // `not` is looser than comparisons.
        assert!(matches!(
            parse("not red == black").kind,
            Kind::Not(ref inner) if matches!(inner.kind, Kind::Compare { .. })
        ));
        // `and` binds tighter than `or`.
        match parse("red or black and face").kind {
            Kind::Or(items) => {
                assert_eq!(items.len(), 2);
                assert!(matches!(items[1].kind, Kind::And(_)));
            }
            other => panic!("{other:?}"),
        }
        // `*` binds tighter than `+`, unary minus tighter than `*`.
        match parse("1 + -2 * 3 == 0").kind {
            Kind::Compare { first, .. } => match first.kind {
                Kind::Arith(ArithOp::Add, _, ref right) => {
                    assert!(
                        matches!(right.kind, Kind::Arith(ArithOp::Mul, ref l, _) if l.kind == Kind::Int(-2))
                    );
                }
                ref other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
        // The else branch of an if extends as far as possible.
        match parse("if red then black else face or odd").kind {
            Kind::If { otherwise, .. } => assert!(matches!(otherwise.kind, Kind::Or(_))),
            other => panic!("{other:?}"),
        }
        // Attributes and indices bind tightest.
        assert!(matches!(
            parse("main[-2].rank").kind,
            Kind::Attr(ref base, Attribute::Rank) if matches!(base.kind, Kind::Index(List::Main, _))
        ));
    }

    #[test]
    fn chains_are_flat_so_long_rules_stay_shallow() {
        let wide = vec!["red"; 1000].join(" or ");
        let expr = parse(&wide);
        assert_eq!(expr.height, 2);
        let chain = parse("1 < 2 <= 3 < 4");
        assert!(matches!(chain.kind, Kind::Compare { ref rest, .. } if rest.len() == 3));
    }

    #[test]
    fn spans_cover_the_source_of_each_node() {
        let source = "  card.rank  >= 7";
        let expr = parse(source);
        assert_eq!(&source[expr.span.start..expr.span.end], "card.rank  >= 7");
    }
}
