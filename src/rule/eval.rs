//! The tree-walking evaluator, the reference semantics of the language: it walks the
//! checked tree with plain `Copy` values and says precisely why a rule could not
//! apply. The explanations are built on it; the verdict's fast path is the compiled
//! form of [`super::compile`], and the tests check both agree. When the rule reads a
//! card that is not on the table yet, or divides by zero, evaluation stops with a
//! [`Stop`] and the card is accepted: "if the rule cannot apply, the card is right".

use std::cell::Cell;

use crate::cards::{Card, Colour, Suit};

use super::check::arith;
use super::error::Span;
use super::syntax::{Adjective, Attribute, CmpOp, Collection, Expr, Kind, List, SetItem, Subject};
use super::Context;

/// A value of the language. Lists never become values: the nodes that read them
/// (`main[i]`, `len`, `count`, `sum`, `in main`) walk the context directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    Int(i64),
    Bool(bool),
    Card(Card),
    Suit(Suit),
    Colour(Colour),
}

/// Why a rule could not be applied to a card; the card is then accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// A card that does not exist yet: `list[index]` with `len` cards in the list.
    Missing {
        span: Span,
        list: List,
        index: i64,
        len: usize,
    },
    /// A division or `%` by zero.
    DivisionByZero { span: Span },
    /// A number past 64 bits.
    Overflow { span: Span },
    /// A value of the wrong type; the checker makes this unreachable.
    Internal { span: Span },
}

/// What the rule sees while judging one card.
#[derive(Clone, Copy)]
pub(crate) struct Env<'a> {
    pub ctx: &'a Context<'a>,
    pub card: Card,
    /// The element of the innermost `count`/`sum`.
    pub it: Option<Card>,
    /// The values of the inner `count`/`sum` nodes found so far in this verdict,
    /// by their [`Expr::memo`] slot (empty: nothing is kept, only slower).
    pub memo: &'a [Cell<Option<i64>>],
}

impl<'a> Env<'a> {
    pub fn new(ctx: &'a Context<'a>, card: Card) -> Env<'a> {
        Env {
            ctx,
            card,
            it: None,
            memo: &[],
        }
    }

    /// The kept value of an inner `count`/`sum`, if it was computed already.
    pub fn recall(&self, expr: &Expr) -> Option<i64> {
        expr.memo
            .and_then(|slot| self.memo.get(slot))
            .and_then(Cell::get)
    }

    /// Keeps the value of an inner `count`/`sum` for the rest of this verdict.
    pub fn keep(&self, expr: &Expr, value: i64) {
        if let Some(cell) = expr.memo.and_then(|slot| self.memo.get(slot)) {
            cell.set(Some(value));
        }
    }

    pub fn list(&self, list: List) -> &'a [Card] {
        match list {
            List::Main => self.ctx.main,
            List::Side => self.ctx.side,
            List::Wrong => self.ctx.wrong,
        }
    }

    /// `list[index]`, negative indices counting from the end.
    pub fn card_at(&self, list: List, index: i64, span: Span) -> Result<Card, Stop> {
        let cards = self.list(list);
        let position = if index < 0 {
            i64::try_from(cards.len())
                .ok()
                .and_then(|len| len.checked_add(index))
        } else {
            Some(index)
        };
        position
            .and_then(|p| usize::try_from(p).ok())
            .and_then(|p| cards.get(p).copied())
            .ok_or(Stop::Missing {
                span,
                list,
                index,
                len: cards.len(),
            })
    }

    pub fn subject(&self, subject: Subject, span: Span) -> Result<Card, Stop> {
        match subject {
            Subject::Card => Ok(self.card),
            Subject::Last => self.card_at(List::Main, -1, span),
            Subject::Prev => self.card_at(List::Main, -2, span),
            Subject::It => self.it.ok_or(Stop::Internal { span }),
        }
    }
}

/// Evaluates a checked true/false expression.
pub(crate) fn truth(expr: &Expr, env: &Env<'_>) -> Result<bool, Stop> {
    match eval(expr, env)? {
        Value::Bool(b) => Ok(b),
        _ => Err(Stop::Internal { span: expr.span }),
    }
}

/// Evaluates a checked number expression.
pub(crate) fn number(expr: &Expr, env: &Env<'_>) -> Result<i64, Stop> {
    match eval(expr, env)? {
        Value::Int(v) => Ok(v),
        _ => Err(Stop::Internal { span: expr.span }),
    }
}

/// The value of a boolean adjective for a value.
pub(crate) fn adjective_of(value: Value, adjective: Adjective) -> Option<bool> {
    Some(match (value, adjective) {
        (Value::Card(c), Adjective::Colour(colour)) => c.colour() == colour,
        (Value::Card(c), Adjective::Suit(suit)) => c.suit == suit,
        (Value::Card(c), Adjective::Odd) => c.is_odd(),
        (Value::Card(c), Adjective::Even) => c.is_even(),
        (Value::Card(c), Adjective::Face) => c.is_face(),
        (Value::Card(c), Adjective::Prime) => c.is_prime(),
        (Value::Int(n), Adjective::Odd) => n.rem_euclid(2) == 1,
        (Value::Int(n), Adjective::Even) => n.rem_euclid(2) == 0,
        (Value::Int(n), Adjective::Prime) => is_prime(n),
        (Value::Suit(s), Adjective::Colour(colour)) => s.colour() == colour,
        (Value::Suit(s), Adjective::Suit(suit)) => s == suit,
        (Value::Colour(c), Adjective::Colour(colour)) => c == colour,
        _ => return None,
    })
}

/// Whether `n` is prime. Deterministic Miller–Rabin: the bases below decide every
/// number under 2^64, so a rule asking whether a huge number is prime
/// (`9223372036854775783.prime`) is answered in microseconds, not the seconds a
/// trial division takes (the rule checker asks it for every card of thousands of
/// rounds).
fn is_prime(n: i64) -> bool {
    let Ok(n) = u64::try_from(n) else {
        return false;
    };
    if n < 2 {
        return false;
    }
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    for p in BASES {
        if n % p == 0 {
            return n == p;
        }
    }
    let mul = |a: u64, b: u64| -> u64 {
        let product = u128::from(a) * u128::from(b) % u128::from(n);
        // The remainder is below `n`, which is a u64.
        u64::try_from(product).unwrap_or(0)
    };
    let pow = |mut base: u64, mut exp: u64| -> u64 {
        let mut result = 1u64;
        base %= n;
        while exp > 0 {
            if exp & 1 == 1 {
                result = mul(result, base);
            }
            base = mul(base, base);
            exp >>= 1;
        }
        result
    };
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for a in BASES {
        let mut x = pow(a, d);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul(x, x);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// `base.attribute`.
pub(crate) fn attribute_of(value: Value, attribute: Attribute) -> Option<Value> {
    Some(match (value, attribute) {
        (Value::Card(c), Attribute::Rank) => Value::Int(i64::from(c.value())),
        (Value::Card(c), Attribute::Suit) => Value::Suit(c.suit),
        (Value::Card(c), Attribute::Colour) => Value::Colour(c.colour()),
        (Value::Suit(s), Attribute::Colour) => Value::Colour(s.colour()),
        (v, Attribute::Is(adjective)) => Value::Bool(adjective_of(v, adjective)?),
        _ => return None,
    })
}

/// `a op b` on two values of the same type.
pub(crate) fn compare(op: CmpOp, a: Value, b: Value) -> Option<bool> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Some(match op {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
        });
    }
    match op {
        CmpOp::Eq => Some(a == b),
        CmpOp::Ne => Some(a != b),
        _ => None,
    }
}

/// Whether `value` is in the collection.
pub(crate) fn contains(collection: &Collection, value: Value, env: &Env<'_>) -> Result<bool, Stop> {
    match collection {
        Collection::Range(low, high) => {
            let Value::Int(v) = value else {
                return Err(Stop::Internal { span: low.span });
            };
            Ok(number(low, env)? <= v && v <= number(high, env)?)
        }
        Collection::List(list) => Ok(env.list(*list).iter().any(|c| value == Value::Card(*c))),
        Collection::Set(items) => {
            for item in items {
                let hit = match item {
                    SetItem::One(e) => eval(e, env)? == value,
                    SetItem::Range(low, high) => match value {
                        Value::Int(v) => number(low, env)? <= v && v <= number(high, env)?,
                        _ => false,
                    },
                };
                if hit {
                    return Ok(true);
                }
            }
            Ok(false)
        }
    }
}

/// Evaluates any checked expression.
pub(crate) fn eval(expr: &Expr, env: &Env<'_>) -> Result<Value, Stop> {
    let span = expr.span;
    Ok(match &expr.kind {
        Kind::Int(v) => Value::Int(*v),
        Kind::Bool(b) => Value::Bool(*b),
        Kind::CardLit(c) => Value::Card(*c),
        Kind::SuitLit(s) => Value::Suit(*s),
        Kind::ColourLit(c) => Value::Colour(*c),
        Kind::Bare(adjective) => Value::Bool(
            adjective_of(Value::Card(env.card), *adjective).ok_or(Stop::Internal { span })?,
        ),
        Kind::Subject(subject) => Value::Card(env.subject(*subject, span)?),
        Kind::ListRef(_) => return Err(Stop::Internal { span }),
        Kind::Index(list, index) => Value::Card(env.card_at(*list, number(index, env)?, span)?),
        Kind::Attr(base, attribute) => {
            attribute_of(eval(base, env)?, *attribute).ok_or(Stop::Internal { span })?
        }
        Kind::Neg(inner) => Value::Int(
            number(inner, env)?
                .checked_neg()
                .ok_or(Stop::Overflow { span })?,
        ),
        Kind::Arith(op, a, b) => {
            let (x, y) = (number(a, env)?, number(b, env)?);
            match arith(*op, x, y) {
                Some(v) => Value::Int(v),
                None if y == 0 => return Err(Stop::DivisionByZero { span }),
                None => return Err(Stop::Overflow { span }),
            }
        }
        Kind::Compare { first, rest, .. } => {
            let mut left = eval(first, env)?;
            for (op, operand) in rest {
                let right = eval(operand, env)?;
                if !compare(*op, left, right).ok_or(Stop::Internal { span })? {
                    return Ok(Value::Bool(false));
                }
                left = right;
            }
            Value::Bool(true)
        }
        Kind::In {
            value,
            negated,
            collection,
            ..
        } => {
            let v = eval(value, env)?;
            Value::Bool(contains(collection, v, env)? != *negated)
        }
        Kind::Not(inner) => Value::Bool(!truth(inner, env)?),
        Kind::And(items) => {
            for item in items {
                if !truth(item, env)? {
                    return Ok(Value::Bool(false));
                }
            }
            Value::Bool(true)
        }
        Kind::Or(items) => {
            for item in items {
                if truth(item, env)? {
                    return Ok(Value::Bool(true));
                }
            }
            Value::Bool(false)
        }
        Kind::If { arms, otherwise } => {
            for (condition, branch) in arms {
                if truth(condition, env)? {
                    return eval(branch, env);
                }
            }
            return eval(otherwise, env);
        }
        Kind::Len(list) => Value::Int(len_of(env.list(*list))),
        Kind::Abs(inner) => Value::Int(
            number(inner, env)?
                .checked_abs()
                .ok_or(Stop::Overflow { span })?,
        ),
        Kind::Min(items) => Value::Int(fold_numbers(items, env, i64::min)?),
        Kind::Max(items) => Value::Int(fold_numbers(items, env, i64::max)?),
        Kind::Count(list, test) => {
            if let Some(count) = env.recall(expr) {
                return Ok(Value::Int(count));
            }
            let mut count = 0i64;
            for &element in env.list(*list) {
                let inner = Env {
                    it: Some(element),
                    ..*env
                };
                if truth(test, &inner)? {
                    count += 1;
                }
            }
            env.keep(expr, count);
            Value::Int(count)
        }
        Kind::Sum(list, value) => {
            if let Some(total) = env.recall(expr) {
                return Ok(Value::Int(total));
            }
            let mut total = 0i64;
            for &element in env.list(*list) {
                let inner = Env {
                    it: Some(element),
                    ..*env
                };
                total = total
                    .checked_add(number(value, &inner)?)
                    .ok_or(Stop::Overflow { span })?;
            }
            env.keep(expr, total);
            Value::Int(total)
        }
    })
}

pub(crate) fn len_of(cards: &[Card]) -> i64 {
    i64::try_from(cards.len()).unwrap_or(i64::MAX)
}

fn fold_numbers(items: &[Expr], env: &Env<'_>, f: fn(i64, i64) -> i64) -> Result<i64, Stop> {
    let mut result: Option<i64> = None;
    for item in items {
        let v = number(item, env)?;
        result = Some(result.map_or(v, |r| f(r, v)));
    }
    result.ok_or(Stop::Internal {
        span: Span::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(text: &str) -> Card {
        text.parse().expect("card")
    }

    #[test]
    fn negative_indices_count_from_the_end() {
        let main = [card("2S"), card("3H"), card("4D")];
        let ctx = Context {
            main: &main,
            side: &[],
            wrong: &[],
        };
        let env = Env::new(&ctx, card("5C"));
        let span = Span::default();
        assert_eq!(env.card_at(List::Main, -1, span), Ok(card("4D")));
        assert_eq!(env.card_at(List::Main, 0, span), Ok(card("2S")));
        assert!(matches!(
            env.card_at(List::Main, -4, span),
            Err(Stop::Missing {
                len: 3,
                index: -4,
                ..
            })
        ));
        assert!(env.card_at(List::Main, 3, span).is_err());
        assert!(env.card_at(List::Main, i64::MIN, span).is_err());
        assert!(env.card_at(List::Side, -1, span).is_err());
    }

    #[test]
    fn adjectives_of_numbers_suits_and_colours() {
        assert_eq!(adjective_of(Value::Int(-3), Adjective::Odd), Some(true));
        assert_eq!(adjective_of(Value::Int(13), Adjective::Prime), Some(true));
        assert_eq!(adjective_of(Value::Int(1), Adjective::Prime), Some(false));
        assert_eq!(
            adjective_of(Value::Suit(Suit::Hearts), Adjective::Colour(Colour::Red)),
            Some(true)
        );
        assert_eq!(
            adjective_of(Value::Suit(Suit::Hearts), Adjective::Face),
            None
        );
        assert_eq!(
            attribute_of(Value::Card(card("QS")), Attribute::Rank),
            Some(Value::Int(12))
        );
    }

    #[test]
    fn primes_of_any_size_are_found_exactly() {
        let trial = |n: i64| n >= 2 && (2..n).take_while(|d| d * d <= n).all(|d| n % d != 0);
        for n in -5..5000 {
            assert_eq!(is_prime(n), trial(n), "{n}");
        }
        // Strong pseudoprimes to several small bases, and Carmichael numbers.
        for n in [
            3_215_031_751,
            2_152_302_898_747,
            3_474_749_660_383,
            561,
            41_041,
        ] {
            assert!(!is_prime(n), "{n}");
        }
        // The largest primes below 2^63 and 2^62; a product of two large primes.
        assert!(is_prime(9_223_372_036_854_775_783));
        assert!(is_prime(4_611_686_018_427_387_847));
        assert!(!is_prime(9_223_372_036_854_775_807));
        assert!(!is_prime(4_294_967_291 * 2_147_483_647));
    }

    #[test]
    fn only_numbers_are_ordered() {
        assert_eq!(compare(CmpOp::Lt, Value::Int(1), Value::Int(2)), Some(true));
        assert_eq!(
            compare(CmpOp::Lt, Value::Card(card("2S")), Value::Card(card("3S"))),
            None
        );
        assert_eq!(
            compare(CmpOp::Ne, Value::Card(card("2S")), Value::Card(card("2H"))),
            Some(true)
        );
    }
}
