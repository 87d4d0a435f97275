//! The type checker: runs once when the rule is entered, so that a rule comparing a
//! suit with a colour is refused at the console instead of giving a wrong verdict at
//! the table. It also settles the words whose meaning depends on context: `red`
//! alone is the test `card.red`, but in `card.color == red` it is the colour.

use super::error::{RuleError, Span};
use super::lexer::shorten;
use super::syntax::{
    Adjective, ArithOp, Attribute, CmpOp, Collection, Expr, Kind, SetItem, Subject, Type,
};

/// Checks the whole rule: it must be a true/false test.
pub(crate) fn check_rule(source: &str, expr: &mut Expr) -> Result<(), RuleError> {
    let checker = Checker { source };
    let ty = checker.check(expr, false)?;
    if ty != Type::Bool {
        return Err(checker.error(
            expr.span,
            format!(
                "a rule must be a true/false test of the card, but this is {}",
                ty.described()
            ),
        ));
    }
    Ok(())
}

/// The value of an integer expression that does not depend on any card.
pub(crate) fn const_int(expr: &Expr) -> Option<i64> {
    match &expr.kind {
        Kind::Int(v) => Some(*v),
        Kind::Neg(e) => const_int(e)?.checked_neg(),
        Kind::Abs(e) => const_int(e)?.checked_abs(),
        Kind::Arith(op, a, b) => arith(*op, const_int(a)?, const_int(b)?),
        Kind::Min(es) => es
            .iter()
            .map(const_int)
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .min(),
        Kind::Max(es) => es
            .iter()
            .map(const_int)
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .max(),
        _ => None,
    }
}

/// Integer arithmetic of the language: Euclidean division, so `%` is never
/// negative and `a == (a / b) * b + a % b`; `None` on division by zero or overflow.
pub(crate) fn arith(op: ArithOp, a: i64, b: i64) -> Option<i64> {
    match op {
        ArithOp::Add => a.checked_add(b),
        ArithOp::Sub => a.checked_sub(b),
        ArithOp::Mul => a.checked_mul(b),
        ArithOp::Div => a.checked_div_euclid(b),
        ArithOp::Rem => a.checked_rem_euclid(b),
    }
}

struct Checker<'s> {
    source: &'s str,
}

impl Checker<'_> {
    fn error(&self, span: Span, message: impl Into<String>) -> RuleError {
        RuleError::at(self.source, span, message)
    }

    fn text(&self, span: Span) -> String {
        shorten(self.source.get(span.start..span.end).unwrap_or("?"))
    }

    /// Checks `expr` and requires a true/false test; `role` names the place.
    fn boolean(&self, expr: &mut Expr, in_loop: bool, role: &str) -> Result<(), RuleError> {
        let ty = self.check(expr, in_loop)?;
        if ty != Type::Bool {
            return Err(self.error(
                expr.span,
                format!("{role} must be a true/false test, found {}", ty.described()),
            ));
        }
        Ok(())
    }

    fn number(&self, expr: &mut Expr, in_loop: bool, role: &str) -> Result<(), RuleError> {
        let ty = self.check(expr, in_loop)?;
        if ty != Type::Int {
            let hint = if ty == Type::Card {
                format!(" (write {}.rank for its rank)", self.text(expr.span))
            } else {
                String::new()
            };
            return Err(self.error(
                expr.span,
                format!("{role} must be a number, found {}{hint}", ty.described()),
            ));
        }
        Ok(())
    }

    fn check(&self, expr: &mut Expr, in_loop: bool) -> Result<Type, RuleError> {
        let span = expr.span;
        Ok(match &mut expr.kind {
            Kind::Int(_) => Type::Int,
            Kind::Bool(_) => Type::Bool,
            Kind::CardLit(_) => Type::Card,
            Kind::SuitLit(_) => Type::Suit,
            Kind::ColourLit(_) => Type::Colour,
            Kind::Bare(adj) => {
                if in_loop {
                    return Err(self.error(
                        span,
                        format!(
                            "'{}' alone inside count/sum is ambiguous: write it.{} for the list's card or card.{} for the judged card",
                            self.text(span),
                            adj.name(),
                            adj.name()
                        ),
                    ));
                }
                Type::Bool
            }
            Kind::Subject(Subject::It) => {
                if !in_loop {
                    return Err(self.error(
                        span,
                        "'it' only has a meaning inside count(list, test) or sum(list, value)",
                    ));
                }
                Type::Card
            }
            Kind::Subject(_) => Type::Card,
            Kind::ListRef(list) => {
                let name = list.name();
                return Err(self.error(
                    span,
                    format!(
                        "{name} is a list of cards: use {name}[-1], len({name}), count({name}, …) or sum({name}, …)"
                    ),
                ));
            }
            Kind::Index(_, index) => {
                self.number(index, in_loop, "an index")?;
                Type::Card
            }
            Kind::Attr(base, attribute) => {
                let base_ty = self.check(base, in_loop)?;
                let attribute = *attribute;
                attribute_type(base_ty, attribute).ok_or_else(|| {
                    let hint = match (base_ty, attribute) {
                        (Type::Int, Attribute::Rank) => " (a number is already a rank)",
                        (Type::Bool, _) => " (attributes belong to cards)",
                        _ => "",
                    };
                    self.error(
                        span,
                        format!(
                            "{} has no attribute '.{}'{hint}",
                            base_ty.described(),
                            attribute.name()
                        ),
                    )
                })?
            }
            Kind::Neg(inner) => {
                self.number(inner, in_loop, "the operand of '-'")?;
                Type::Int
            }
            Kind::Arith(op, a, b) => {
                let role = format!("each side of '{}'", op.symbol());
                self.number(a, in_loop, &role)?;
                self.number(b, in_loop, &role)?;
                if matches!(op, ArithOp::Div | ArithOp::Rem) && const_int(b) == Some(0) {
                    return Err(self.error(
                        b.span,
                        format!(
                            "division by zero: the right side of '{}' is always 0",
                            op.symbol()
                        ),
                    ));
                }
                Type::Int
            }
            Kind::Compare {
                first,
                rest,
                operands,
            } => {
                *operands = self.comparison(first, rest, in_loop)?;
                Type::Bool
            }
            Kind::In {
                value,
                collection,
                operands,
                negated,
            } => {
                let keyword = if *negated { "not in" } else { "in" };
                *operands = self.membership(value, collection, in_loop, keyword)?;
                Type::Bool
            }
            Kind::Not(inner) => {
                self.boolean(inner, in_loop, "the operand of 'not'")?;
                Type::Bool
            }
            Kind::And(items) => {
                for item in items {
                    self.boolean(item, in_loop, "each side of 'and'")?;
                }
                Type::Bool
            }
            Kind::Or(items) => {
                for item in items {
                    self.boolean(item, in_loop, "each side of 'or'")?;
                }
                Type::Bool
            }
            Kind::If { arms, otherwise } => {
                for (i, (condition, branch)) in arms.iter_mut().enumerate() {
                    let keyword = if i == 0 { "if" } else { "elif" };
                    self.boolean(condition, in_loop, &format!("the condition of '{keyword}'"))?;
                    self.boolean(
                        branch,
                        in_loop,
                        &format!("the 'then' branch of '{keyword}'"),
                    )?;
                }
                self.boolean(otherwise, in_loop, "the 'else' branch of 'if'")?;
                Type::Bool
            }
            Kind::Len(_) => Type::Int,
            Kind::Abs(inner) => {
                self.number(inner, in_loop, "the argument of abs")?;
                Type::Int
            }
            Kind::Min(items) | Kind::Max(items) => {
                for item in items {
                    self.number(item, in_loop, "each argument of min/max")?;
                }
                Type::Int
            }
            Kind::Count(_, test) => {
                self.boolean(test, true, "the test of count(list, test)")?;
                Type::Int
            }
            Kind::Sum(_, value) => {
                self.number(value, true, "the value of sum(list, value)")?;
                Type::Int
            }
        })
    }

    /// A comparison chain: settles bare suit/colour words next to a suit or colour,
    /// then requires both sides of every link to have the same type (and numbers for
    /// `< <= > >=`). Returns the operands' type.
    fn comparison(
        &self,
        first: &mut Expr,
        rest: &mut [(CmpOp, Expr)],
        in_loop: bool,
    ) -> Result<Type, RuleError> {
        let mut operands: Vec<&mut Expr> = Vec::with_capacity(rest.len() + 1);
        operands.push(first);
        let ops: Vec<CmpOp> = rest.iter().map(|(op, _)| *op).collect();
        operands.extend(rest.iter_mut().map(|(_, e)| e));

        let mut types: Vec<Option<Type>> = Vec::with_capacity(operands.len());
        for operand in operands.iter_mut() {
            if is_bare_value_word(operand) {
                types.push(None);
            } else {
                types.push(Some(self.check(operand, in_loop)?));
            }
        }
        for i in 0..operands.len() {
            if types[i].is_some() {
                continue;
            }
            let neighbour = |j: Option<usize>| {
                j.and_then(|j| types.get(j).copied().flatten())
                    .filter(|t| matches!(t, Type::Suit | Type::Colour))
            };
            let near = neighbour(i.checked_sub(1)).or_else(|| neighbour(Some(i + 1)));
            let ty = if near.is_some() {
                resolve_value_word(operands[i])
            } else {
                self.check(operands[i], in_loop)?
            };
            types[i] = Some(ty);
        }
        let types: Vec<Type> = types.into_iter().map(|t| t.unwrap_or(Type::Bool)).collect();
        for (k, op) in ops.iter().enumerate() {
            let (left, right) = (types[k], types[k + 1]);
            let at = operands[k + 1].span;
            if left != right {
                let hint = match (left, right) {
                    (Type::Card, Type::Int) => {
                        format!(
                            " (write {}.rank to compare ranks)",
                            self.text(operands[k].span)
                        )
                    }
                    (Type::Int, Type::Card) => {
                        format!(" (write {}.rank to compare ranks)", self.text(at))
                    }
                    _ => String::new(),
                };
                return Err(self.error(
                    at,
                    format!(
                        "cannot compare {} with {}{hint}",
                        left.described(),
                        right.described()
                    ),
                ));
            }
            if op.is_ordering() && left != Type::Int {
                let hint = if left == Type::Card {
                    " (compare their .rank)"
                } else {
                    ""
                };
                return Err(self.error(
                    at,
                    format!(
                        "'{}' compares numbers, found {}{hint}",
                        op.symbol(),
                        left.described()
                    ),
                ));
            }
        }
        Ok(types.first().copied().unwrap_or(Type::Bool))
    }

    /// `value in collection`; returns the value's type.
    fn membership(
        &self,
        value: &mut Expr,
        collection: &mut Collection,
        in_loop: bool,
        keyword: &str,
    ) -> Result<Type, RuleError> {
        let ty = self.check(value, in_loop)?;
        match collection {
            Collection::Range(low, high) => {
                if ty != Type::Int {
                    return Err(self.error(
                        value.span,
                        format!(
                            "a range like 2..9 holds numbers, but the value before '{keyword}' is {}",
                            ty.described()
                        ),
                    ));
                }
                self.number(low, in_loop, "the start of a range")?;
                self.number(high, in_loop, "the end of a range")?;
            }
            Collection::List(list) => {
                if ty != Type::Card {
                    return Err(self.error(
                        value.span,
                        format!(
                            "{} holds cards, but the value before '{keyword}' is {}",
                            list.name(),
                            ty.described()
                        ),
                    ));
                }
            }
            Collection::Set(items) => {
                if ty == Type::List {
                    return Err(self.error(value.span, "a list cannot be in a set"));
                }
                for item in items {
                    match item {
                        SetItem::One(element) => {
                            let element_ty = if matches!(ty, Type::Suit | Type::Colour)
                                && is_bare_value_word(element)
                            {
                                resolve_value_word(element)
                            } else {
                                self.check(element, in_loop)?
                            };
                            if element_ty != ty {
                                // A suit or colour word beside anything but a suit or
                                // colour is the test of the card: say what was meant.
                                let hint = match element.kind {
                                    Kind::Bare(Adjective::Suit(_)) => " (a suit word in a set is a suit only after a suit: card.suit in {…})",
                                    Kind::Bare(Adjective::Colour(_)) => " (a color word in a set is a color only after a color: card.color in {…})",
                                    _ => "",
                                };
                                return Err(self.error(
                                    element.span,
                                    format!(
                                        "this set element is {}, but the value before '{keyword}' is {}{hint}",
                                        element_ty.described(),
                                        ty.described()
                                    ),
                                ));
                            }
                        }
                        SetItem::Range(low, high) => {
                            if ty != Type::Int {
                                return Err(self.error(
                                    low.span,
                                    format!(
                                        "a range in a set holds numbers, but the value before '{keyword}' is {}",
                                        ty.described()
                                    ),
                                ));
                            }
                            self.number(low, in_loop, "the start of a range")?;
                            self.number(high, in_loop, "the end of a range")?;
                        }
                    }
                }
            }
        }
        Ok(ty)
    }
}

/// What `base.attribute` is, or `None` when the base has no such attribute.
fn attribute_type(base: Type, attribute: Attribute) -> Option<Type> {
    match (base, attribute) {
        (Type::Card, Attribute::Rank) => Some(Type::Int),
        (Type::Card, Attribute::Suit) => Some(Type::Suit),
        (Type::Card, Attribute::Colour) => Some(Type::Colour),
        (Type::Card, Attribute::Is(_)) => Some(Type::Bool),
        (Type::Int, Attribute::Is(Adjective::Odd | Adjective::Even | Adjective::Prime)) => {
            Some(Type::Bool)
        }
        (Type::Suit, Attribute::Colour) => Some(Type::Colour),
        (Type::Suit, Attribute::Is(Adjective::Colour(_) | Adjective::Suit(_))) => Some(Type::Bool),
        (Type::Colour, Attribute::Is(Adjective::Colour(_))) => Some(Type::Bool),
        _ => None,
    }
}

/// A suit or colour word standing alone (`hearts`, `♥`, `red`).
fn is_bare_value_word(expr: &Expr) -> bool {
    matches!(
        expr.kind,
        Kind::Bare(Adjective::Suit(_) | Adjective::Colour(_))
    )
}

/// Turns a bare suit/colour word into the value it names.
fn resolve_value_word(expr: &mut Expr) -> Type {
    match expr.kind {
        Kind::Bare(Adjective::Suit(s)) => {
            expr.kind = Kind::SuitLit(s);
            Type::Suit
        }
        Kind::Bare(Adjective::Colour(c)) => {
            expr.kind = Kind::ColourLit(c);
            Type::Colour
        }
        _ => Type::Bool,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::lexer::tokenize;
    use crate::rule::parser::Parser;

    fn checked(source: &str) -> Result<Expr, RuleError> {
        let tokens = tokenize(source)?;
        let mut expr = Parser::new(source, tokens).parse_rule()?;
        check_rule(source, &mut expr)?;
        Ok(expr)
    }

    #[test]
    fn bare_words_become_values_next_to_a_suit_or_colour() {
        let expr = checked("card.suit == hearts").expect("checks");
        match expr.kind {
            Kind::Compare { rest, operands, .. } => {
                assert_eq!(operands, Type::Suit);
                assert!(matches!(rest[0].1.kind, Kind::SuitLit(_)));
            }
            other => panic!("{other:?}"),
        }
        // Alone, the same word is a test of the card.
        assert!(matches!(
            checked("hearts").expect("checks").kind,
            Kind::Bare(_)
        ));
        // `red == black` compares two tests of the card.
        match checked("red == black").expect("checks").kind {
            Kind::Compare { operands, .. } => assert_eq!(operands, Type::Bool),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn euclidean_arithmetic() {
        assert_eq!(arith(ArithOp::Rem, -7, 3), Some(2));
        assert_eq!(arith(ArithOp::Div, -7, 3), Some(-3));
        assert_eq!(arith(ArithOp::Rem, 7, -3), Some(1));
        assert_eq!(arith(ArithOp::Div, 7, 0), None);
        assert_eq!(arith(ArithOp::Div, i64::MIN, -1), None);
        assert_eq!(arith(ArithOp::Mul, i64::MAX, 2), None);
    }

    #[test]
    fn constants_fold_only_without_cards() {
        let expr = checked("main[-(1 + 2) * 1].red").expect("checks");
        match expr.kind {
            Kind::Attr(base, _) => match base.kind {
                Kind::Index(_, index) => assert_eq!(const_int(&index), Some(-3)),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
        let expr = checked("card.rank + 1 > 3").expect("checks");
        match expr.kind {
            Kind::Compare { first, .. } => assert_eq!(const_int(&first), None),
            other => panic!("{other:?}"),
        }
        assert!(checked("card.rank / (2 - 2) > 1").is_err());
        assert!(checked("card.rank / (last.rank - 2) > 1").is_ok());
    }
}
