//! The verdict's fast path: the checked tree compiled once into a tree of typed
//! closures. Each node already knows the type it produces (the checker proved it),
//! so evaluation neither matches on node kinds nor wraps values: a card attribute
//! is one call, a comparison of two ranks three. A rule that cannot apply (a card
//! that does not exist yet, a division by zero, an overflow) stops with [`Halt`],
//! which [`super::Rule::accepts`] turns into "accepted".
//!
//! The explained path ([`super::explain`]) walks the tree instead; the test suite
//! checks on random rules and layouts that both always give the same verdict.

use std::cell::Cell;
use std::sync::Arc;

use crate::cards::{Card, Colour, Suit};

use super::check::arith;
use super::syntax::{
    Adjective, ArithOp, Attribute, CmpOp, Collection, Expr, Kind, List, SetItem, Subject, Type,
};

/// The rule cannot apply to this card; the details are the explained path's job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Halt;

/// What the compiled rule sees.
#[derive(Clone, Copy)]
pub(crate) struct Fast<'a> {
    pub main: &'a [Card],
    pub side: &'a [Card],
    pub wrong: &'a [Card],
    pub card: Card,
    /// The element of the innermost `count`/`sum` (the judged card elsewhere; the
    /// checker refuses `it` outside them).
    pub it: Card,
    /// The values of the inner `count`/`sum` nodes found so far in this verdict,
    /// by their [`Expr::memo`] slot.
    pub memo: &'a [Cell<Option<i64>>],
}

impl<'a> Fast<'a> {
    #[inline]
    fn list(&self, list: List) -> &'a [Card] {
        match list {
            List::Main => self.main,
            List::Side => self.side,
            List::Wrong => self.wrong,
        }
    }

    #[inline]
    fn at(&self, list: List, index: i64) -> Result<Card, Halt> {
        let cards = self.list(list);
        let position = if index < 0 {
            cards
                .len()
                .checked_sub(usize::try_from(index.unsigned_abs()).map_err(|_| Halt)?)
        } else {
            usize::try_from(index).ok()
        };
        position.and_then(|p| cards.get(p).copied()).ok_or(Halt)
    }
}

type Fn1<T> = Arc<dyn Fn(&Fast<'_>) -> Result<T, Halt> + Send + Sync>;
pub(crate) type BoolFn = Fn1<bool>;
type IntFn = Fn1<i64>;

/// Where a card comes from; the common cases are read without a call.
#[derive(Clone)]
enum CardRef {
    Judged,
    It,
    Literal(Card),
    /// `list[k]` with a constant `k` (`last` is `main[-1]`).
    At(List, i64),
    Dynamic(Fn1<Card>),
}

impl CardRef {
    #[inline]
    fn get(&self, env: &Fast<'_>) -> Result<Card, Halt> {
        match self {
            CardRef::Judged => Ok(env.card),
            CardRef::It => Ok(env.it),
            CardRef::Literal(card) => Ok(*card),
            CardRef::At(list, index) => env.at(*list, *index),
            CardRef::Dynamic(f) => f(env),
        }
    }
}

/// The type a checked node produces.
pub(crate) fn type_of(expr: &Expr) -> Type {
    match &expr.kind {
        Kind::Int(_)
        | Kind::Neg(_)
        | Kind::Arith(..)
        | Kind::Len(_)
        | Kind::Abs(_)
        | Kind::Min(_)
        | Kind::Max(_)
        | Kind::Count(..)
        | Kind::Sum(..)
        | Kind::Attr(_, Attribute::Rank) => Type::Int,
        Kind::CardLit(_) | Kind::Subject(_) | Kind::Index(..) => Type::Card,
        Kind::SuitLit(_) | Kind::Attr(_, Attribute::Suit) => Type::Suit,
        Kind::ColourLit(_) | Kind::Attr(_, Attribute::Colour) => Type::Colour,
        Kind::ListRef(_) => Type::List,
        Kind::Bool(_)
        | Kind::Bare(_)
        | Kind::Attr(_, Attribute::Is(_))
        | Kind::Compare { .. }
        | Kind::In { .. }
        | Kind::Not(_)
        | Kind::And(_)
        | Kind::Or(_)
        | Kind::If { .. } => Type::Bool,
    }
}

fn halt<T: 'static>() -> Fn1<T> {
    Arc::new(|_| Err(Halt))
}

fn constant<T: Copy + Send + Sync + 'static>(value: T) -> Fn1<T> {
    Arc::new(move |_| Ok(value))
}

/// Compiles a checked true/false expression.
pub(crate) fn compile(expr: &Expr) -> BoolFn {
    boolean(expr)
}

fn card_ref(expr: &Expr) -> CardRef {
    match &expr.kind {
        Kind::Subject(Subject::Card) => CardRef::Judged,
        Kind::Subject(Subject::It) => CardRef::It,
        Kind::Subject(Subject::Last) => CardRef::At(List::Main, -1),
        Kind::Subject(Subject::Prev) => CardRef::At(List::Main, -2),
        Kind::CardLit(card) => CardRef::Literal(*card),
        Kind::Index(list, index) => match &index.kind {
            Kind::Int(k) => CardRef::At(*list, *k),
            _ => {
                let list = *list;
                let index = integer(index);
                CardRef::Dynamic(Arc::new(move |env| env.at(list, index(env)?)))
            }
        },
        _ => CardRef::Dynamic(halt()),
    }
}

fn card_fn(expr: &Expr) -> Fn1<Card> {
    let r = card_ref(expr);
    Arc::new(move |env| r.get(env))
}

fn suit_fn(expr: &Expr) -> Fn1<Suit> {
    match &expr.kind {
        Kind::SuitLit(s) => constant(*s),
        Kind::Attr(base, Attribute::Suit) => {
            let r = card_ref(base);
            Arc::new(move |env| Ok(r.get(env)?.suit))
        }
        _ => halt(),
    }
}

fn colour_fn(expr: &Expr) -> Fn1<Colour> {
    match &expr.kind {
        Kind::ColourLit(c) => constant(*c),
        Kind::Attr(base, Attribute::Colour) => match type_of(base) {
            Type::Suit => {
                let s = suit_fn(base);
                Arc::new(move |env| Ok(s(env)?.colour()))
            }
            _ => {
                let r = card_ref(base);
                Arc::new(move |env| Ok(r.get(env)?.colour()))
            }
        },
        _ => halt(),
    }
}

fn integer(expr: &Expr) -> IntFn {
    match &expr.kind {
        Kind::Int(v) => constant(*v),
        Kind::Attr(base, Attribute::Rank) => {
            let r = card_ref(base);
            Arc::new(move |env| Ok(i64::from(r.get(env)?.value())))
        }
        Kind::Neg(inner) => {
            let f = integer(inner);
            Arc::new(move |env| f(env)?.checked_neg().ok_or(Halt))
        }
        Kind::Abs(inner) => {
            let f = integer(inner);
            Arc::new(move |env| f(env)?.checked_abs().ok_or(Halt))
        }
        Kind::Arith(op, a, b) => arithmetic(*op, a, b),
        Kind::Len(list) => {
            let list = *list;
            Arc::new(move |env| i64::try_from(env.list(list).len()).map_err(|_| Halt))
        }
        Kind::Min(items) | Kind::Max(items) => {
            let fns: Vec<IntFn> = items.iter().map(integer).collect();
            let is_min = matches!(expr.kind, Kind::Min(_));
            Arc::new(move |env| {
                let mut best: Option<i64> = None;
                for f in &fns {
                    let v = f(env)?;
                    best = Some(match best {
                        None => v,
                        Some(b) if is_min => b.min(v),
                        Some(b) => b.max(v),
                    });
                }
                best.ok_or(Halt)
            })
        }
        Kind::Count(list, test) => {
            let list = *list;
            // `count(main, it.red)`: the commonest count, as a plain loop.
            if let Kind::Attr(base, Attribute::Is(adjective)) = &test.kind {
                if base.kind == Kind::Subject(Subject::It) {
                    return memoised(expr.memo, count_adjective(list, *adjective));
                }
            }
            let test = boolean(test);
            memoised(
                expr.memo,
                Arc::new(move |env| {
                    let mut n = 0i64;
                    for &it in env.list(list) {
                        if test(&Fast { it, ..*env })? {
                            n += 1;
                        }
                    }
                    Ok(n)
                }),
            )
        }
        Kind::Sum(list, value) => {
            let list = *list;
            let value = integer(value);
            memoised(
                expr.memo,
                Arc::new(move |env| {
                    let mut total = 0i64;
                    for &it in env.list(list) {
                        total = total
                            .checked_add(value(&Fast { it, ..*env })?)
                            .ok_or(Halt)?;
                    }
                    Ok(total)
                }),
            )
        }
        _ => halt(),
    }
}

/// An inner `count`/`sum` computed once per verdict: its value cannot depend on the
/// outer loop's element (see [`super::syntax::number_inner_loops`]).
fn memoised(slot: Option<usize>, f: IntFn) -> IntFn {
    let Some(slot) = slot else {
        return f;
    };
    Arc::new(move |env| {
        let cell = env.memo.get(slot);
        if let Some(value) = cell.and_then(Cell::get) {
            return Ok(value);
        }
        let value = f(env)?;
        if let Some(cell) = cell {
            cell.set(Some(value));
        }
        Ok(value)
    })
}

fn arithmetic(op: ArithOp, a: &Expr, b: &Expr) -> IntFn {
    let fa = integer(a);
    // `x % 4`, `x + 1`: a constant right side saves a call.
    if let Kind::Int(k) = b.kind {
        return Arc::new(move |env| arith(op, fa(env)?, k).ok_or(Halt));
    }
    let fb = integer(b);
    Arc::new(move |env| arith(op, fa(env)?, fb(env)?).ok_or(Halt))
}

/// `count(list, it.<adjective>)` as a plain loop, one instance per adjective.
fn count_adjective(list: List, adjective: Adjective) -> IntFn {
    fn count_where(list: List, test: impl Fn(Card) -> bool + Send + Sync + 'static) -> IntFn {
        Arc::new(move |env| {
            let n = env.list(list).iter().filter(|&&c| test(c)).count();
            i64::try_from(n).map_err(|_| Halt)
        })
    }
    match adjective {
        Adjective::Colour(colour) => count_where(list, move |c| c.colour() == colour),
        Adjective::Suit(suit) => count_where(list, move |c| c.suit == suit),
        Adjective::Odd => count_where(list, Card::is_odd),
        Adjective::Even => count_where(list, Card::is_even),
        Adjective::Face => count_where(list, Card::is_face),
        Adjective::Prime => count_where(list, Card::is_prime),
    }
}

/// A boolean adjective of a card.
fn card_test(r: CardRef, adjective: Adjective) -> BoolFn {
    match adjective {
        Adjective::Colour(c) => Arc::new(move |env| Ok(r.get(env)?.colour() == c)),
        Adjective::Suit(s) => Arc::new(move |env| Ok(r.get(env)?.suit == s)),
        Adjective::Odd => Arc::new(move |env| Ok(r.get(env)?.is_odd())),
        Adjective::Even => Arc::new(move |env| Ok(r.get(env)?.is_even())),
        Adjective::Face => Arc::new(move |env| Ok(r.get(env)?.is_face())),
        Adjective::Prime => Arc::new(move |env| Ok(r.get(env)?.is_prime())),
    }
}

fn boolean(expr: &Expr) -> BoolFn {
    match &expr.kind {
        Kind::Bool(b) => constant(*b),
        Kind::Bare(adjective) => card_test(CardRef::Judged, *adjective),
        Kind::Attr(base, Attribute::Is(adjective)) => {
            let adjective = *adjective;
            match type_of(base) {
                Type::Card => card_test(card_ref(base), adjective),
                Type::Int => {
                    let f = integer(base);
                    Arc::new(move |env| {
                        let n = f(env)?;
                        super::eval::adjective_of(super::eval::Value::Int(n), adjective).ok_or(Halt)
                    })
                }
                Type::Suit => {
                    let f = suit_fn(base);
                    Arc::new(move |env| {
                        super::eval::adjective_of(super::eval::Value::Suit(f(env)?), adjective)
                            .ok_or(Halt)
                    })
                }
                Type::Colour => {
                    let f = colour_fn(base);
                    Arc::new(move |env| {
                        super::eval::adjective_of(super::eval::Value::Colour(f(env)?), adjective)
                            .ok_or(Halt)
                    })
                }
                _ => halt(),
            }
        }
        Kind::Not(inner) => {
            let f = boolean(inner);
            Arc::new(move |env| Ok(!f(env)?))
        }
        Kind::And(items) => {
            let fns: Vec<BoolFn> = items.iter().map(boolean).collect();
            if let [a, b] = fns.as_slice() {
                let (a, b) = (a.clone(), b.clone());
                return Arc::new(move |env| Ok(a(env)? && b(env)?));
            }
            Arc::new(move |env| {
                for f in &fns {
                    if !f(env)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            })
        }
        Kind::Or(items) => {
            let fns: Vec<BoolFn> = items.iter().map(boolean).collect();
            if let [a, b] = fns.as_slice() {
                let (a, b) = (a.clone(), b.clone());
                return Arc::new(move |env| Ok(a(env)? || b(env)?));
            }
            Arc::new(move |env| {
                for f in &fns {
                    if f(env)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            })
        }
        Kind::If { arms, otherwise } => {
            let arms: Vec<(BoolFn, BoolFn)> =
                arms.iter().map(|(c, t)| (boolean(c), boolean(t))).collect();
            let otherwise = boolean(otherwise);
            if let [(c, t)] = arms.as_slice() {
                let (c, t) = (c.clone(), t.clone());
                return Arc::new(move |env| if c(env)? { t(env) } else { otherwise(env) });
            }
            Arc::new(move |env| {
                for (c, t) in &arms {
                    if c(env)? {
                        return t(env);
                    }
                }
                otherwise(env)
            })
        }
        Kind::Compare {
            first,
            rest,
            operands,
        } => {
            let mut exprs: Vec<&Expr> = vec![first];
            exprs.extend(rest.iter().map(|(_, e)| e));
            let ops: Vec<CmpOp> = rest.iter().map(|(op, _)| *op).collect();
            match operands {
                Type::Int => chain(exprs.into_iter().map(integer).collect(), ops),
                Type::Card => chain(exprs.into_iter().map(card_fn).collect(), ops),
                Type::Suit => chain(exprs.into_iter().map(suit_fn).collect(), ops),
                Type::Colour => chain(exprs.into_iter().map(colour_fn).collect(), ops),
                Type::Bool => chain(exprs.into_iter().map(boolean).collect(), ops),
                Type::List => halt(),
            }
        }
        Kind::In {
            value,
            negated,
            collection,
            operands,
        } => {
            let inside = match (operands, collection) {
                (Type::Card, Collection::List(list)) => {
                    let (list, card) = (*list, card_ref(value));
                    Arc::new(move |env: &Fast<'_>| {
                        let c = card.get(env)?;
                        Ok(env.list(list).contains(&c))
                    })
                }
                (Type::Int, _) => int_membership(value, collection),
                (Type::Card, _) => membership(card_fn(value), collection, card_fn),
                (Type::Suit, _) => membership(suit_fn(value), collection, suit_fn),
                (Type::Colour, _) => membership(colour_fn(value), collection, colour_fn),
                (Type::Bool, _) => membership(boolean(value), collection, boolean),
                (Type::List, _) => halt(),
            };
            if *negated {
                Arc::new(move |env| Ok(!inside(env)?))
            } else {
                inside
            }
        }
        _ => halt(),
    }
}

#[inline]
fn holds<T: PartialOrd>(op: CmpOp, a: T, b: T) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

/// `a op b (op c)*`: every link must hold; stops at the first that does not.
fn chain<T: Copy + PartialOrd + Send + Sync + 'static>(
    fns: Vec<Fn1<T>>,
    ops: Vec<CmpOp>,
) -> BoolFn {
    if let ([a, b], [op]) = (fns.as_slice(), ops.as_slice()) {
        let (a, b, op) = (a.clone(), b.clone(), *op);
        return Arc::new(move |env| Ok(holds(op, a(env)?, b(env)?)));
    }
    Arc::new(move |env| {
        let Some(first) = fns.first() else {
            return Err(Halt);
        };
        let mut left = first(env)?;
        for (op, f) in ops.iter().zip(fns.iter().skip(1)) {
            let right = f(env)?;
            if !holds(*op, left, right) {
                return Ok(false);
            }
            left = right;
        }
        Ok(true)
    })
}

/// `value in collection` for cards, suits, colours and tests (no ranges).
fn membership<T: Copy + PartialEq + Send + Sync + 'static>(
    value: Fn1<T>,
    collection: &Collection,
    element: fn(&Expr) -> Fn1<T>,
) -> BoolFn {
    match collection {
        Collection::Set(items) => {
            let elements: Vec<Fn1<T>> = items
                .iter()
                .map(|item| match item {
                    SetItem::One(e) => element(e),
                    SetItem::Range(..) => halt(),
                })
                .collect();
            Arc::new(move |env| {
                let v = value(env)?;
                for e in &elements {
                    if e(env)? == v {
                        return Ok(true);
                    }
                }
                Ok(false)
            })
        }
        Collection::List(_) => halt(),
        Collection::Range(..) => halt(),
    }
}

/// `number in lo..hi` or `number in {a, b..c, …}`.
fn int_membership(value: &Expr, collection: &Collection) -> BoolFn {
    let v = integer(value);
    match collection {
        Collection::Range(low, high) => {
            if let (Kind::Int(lo), Kind::Int(hi)) = (&low.kind, &high.kind) {
                let (lo, hi) = (*lo, *hi);
                return Arc::new(move |env| Ok((lo..=hi).contains(&v(env)?)));
            }
            let (lo, hi) = (integer(low), integer(high));
            Arc::new(move |env| {
                let x = v(env)?;
                Ok(lo(env)? <= x && x <= hi(env)?)
            })
        }
        Collection::Set(items) => {
            let items: Vec<(IntFn, Option<IntFn>)> = items
                .iter()
                .map(|item| match item {
                    SetItem::One(e) => (integer(e), None),
                    SetItem::Range(lo, hi) => (integer(lo), Some(integer(hi))),
                })
                .collect();
            Arc::new(move |env| {
                let x = v(env)?;
                for (lo, hi) in &items {
                    let hit = match hi {
                        None => lo(env)? == x,
                        Some(hi) => lo(env)? <= x && x <= hi(env)?,
                    };
                    if hit {
                        return Ok(true);
                    }
                }
                Ok(false)
            })
        }
        Collection::List(_) => halt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::check::check_rule;
    use crate::rule::eval::{truth, Env};
    use crate::rule::lexer::tokenize;
    use crate::rule::parser::Parser;
    use crate::rule::Context;

    fn tree(source: &str) -> Expr {
        let tokens = tokenize(source).expect("tokens");
        let mut expr = Parser::new(source, tokens).parse_rule().expect("parses");
        check_rule(source, &mut expr).expect("checks");
        expr
    }

    /// Inner `count`/`sum` values kept for the verdict give the same verdicts as
    /// recomputing them on every turn of the outer loop.
    #[test]
    fn kept_inner_loops_agree_with_recomputing_them() {
        let rules = [
            "count(main, it.rank > sum(main, it.rank) / max(len(main), 1)) * 2 > len(main)",
            "count(main, count(main, it.suit == card.suit) > 1 and it.red) % 2 == 0",
            "sum(main, it.rank * count(main, it.face)) % 3 == sum(side, count(main, it.red)) % 3",
        ];
        let deck = Card::deck();
        for source in rules {
            let plain = tree(source);
            let mut kept = plain.clone();
            let slots = crate::rule::syntax::number_inner_loops(&mut kept);
            assert!(slots > 0, "{source}");
            let (plain_fast, kept_fast) = (compile(&plain), compile(&kept));
            for n in 0..9 {
                let main: Vec<Card> = (0..n).map(|i| deck[(i * 11 + n * 7) % 52]).collect();
                let side = [deck[n], deck[n + 20]];
                for &card in &deck {
                    let ctx = Context {
                        main: &main,
                        side: &side,
                        wrong: &side,
                    };
                    let memo = vec![Cell::new(None); slots];
                    let fast = |memo| Fast {
                        main: &main,
                        side: &side,
                        wrong: &side,
                        card,
                        it: card,
                        memo,
                    };
                    let expected = plain_fast(&fast(&[])).unwrap_or(true);
                    assert_eq!(kept_fast(&fast(&memo)).unwrap_or(true), expected);
                    let memo = vec![Cell::new(None); slots];
                    let env = Env {
                        memo: &memo,
                        ..Env::new(&ctx, card)
                    };
                    assert_eq!(truth(&kept, &env).unwrap_or(true), expected, "{source}");
                }
            }
        }
    }

    /// Every card after every layout of a few lines: the compiled verdict equals the
    /// tree walker's.
    #[test]
    fn compiled_rules_agree_with_the_tree_walker() {
        let rules = [
            "if last.odd then black else red",
            "card.suit == last.suit or card.rank == last.rank",
            "if main[-1].odd == main[-2].odd then card.odd != last.odd else card.odd == last.odd",
            "(main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 2 or face",
            "count(main, it.red) % 2 == 0 and sum(main, it.rank) > 10",
            "count(main, it.face) == count(main, it.rank > 10) and count(main, it.hearts) < 2",
            "card.rank in {A, 3..5, K} and card.suit not in {hearts, ♠}",
            "2 <= card.rank <= 9 and card in main",
            "main[-(1 + 1)].rank / (last.rank - 5) > 1",
            "card.suit.red == last.color.red and sum(main, it.rank).odd",
            "len(side) == 0 or side[-1].color != card.color",
            "max(card.rank, last.rank) - min(card.rank, prev.rank) < abs(-4)",
            "card == QH or last == main[0]",
        ];
        let deck = Card::deck();
        let lines: Vec<Vec<Card>> = (0..8)
            .map(|n| (0..n).map(|i| deck[(i * 17 + n * 5) % 52]).collect())
            .collect();
        let side = [deck[3], deck[40]];
        for source in rules {
            let expr = tree(source);
            let fast = compile(&expr);
            for main in &lines {
                for (k, &card) in deck.iter().enumerate() {
                    let side = if k % 2 == 0 { &side[..] } else { &[] };
                    let ctx = Context {
                        main,
                        side,
                        wrong: side,
                    };
                    let env = Fast {
                        main,
                        side,
                        wrong: side,
                        card,
                        it: card,
                        memo: &[],
                    };
                    assert_eq!(
                        fast(&env).unwrap_or(true),
                        truth(&expr, &Env::new(&ctx, card)).unwrap_or(true),
                        "{source} after {main:?} on {card}"
                    );
                }
            }
        }
    }
}
