//! The syntax tree of a rule. The parser builds it, the checker resolves the words
//! whose meaning depends on context (`red` the test versus `red` the colour) and
//! records operand types, and from then on the evaluator walks it as is.

use std::fmt;

use crate::cards::{Card, Colour, Suit};

use super::error::Span;

/// One node of the tree, with the source range it was parsed from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expr {
    pub kind: Kind,
    pub span: Span,
    /// Height of the subtree (a leaf is 1). The parser refuses trees taller than a
    /// fixed limit, so every recursive walk over a tree has a bounded stack.
    pub height: u32,
    /// For a `count`/`sum` inside the test or value of another: the slot where its
    /// value is kept during one verdict (see [`number_inner_loops`]).
    pub memo: Option<usize>,
}

impl Expr {
    pub fn new(kind: Kind, span: Span) -> Expr {
        let height = kind.children().map(|c| c.height).max().unwrap_or(0) + 1;
        Expr {
            kind,
            span,
            height,
            memo: None,
        }
    }
}

/// Gives every `count`/`sum` nested in the body of another its own memo slot and
/// returns how many slots there are.
///
/// `it` always names the element of the innermost loop, so an inner `count`/`sum`
/// cannot see the outer element: its value is the same on every turn of the outer
/// loop. Evaluating it once per verdict instead of once per outer element keeps
/// `count(main, count(main, count(main, it.red) > 0) > 0)` linear in the main line
/// rather than cubic (a few such levels otherwise take hours in the rule checker).
pub(crate) fn number_inner_loops(expr: &mut Expr) -> usize {
    fn walk(expr: &mut Expr, in_loop: bool, next: &mut usize) {
        let is_loop = matches!(expr.kind, Kind::Count(..) | Kind::Sum(..));
        if is_loop && in_loop {
            expr.memo = Some(*next);
            *next += 1;
        }
        for child in expr.kind.children_mut() {
            walk(child, in_loop || is_loop, next);
        }
    }
    let mut next = 0;
    walk(expr, false, &mut next);
    next
}

/// The three card lists a rule can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    Main,
    Side,
    Wrong,
}

impl List {
    pub fn name(self) -> &'static str {
        match self {
            List::Main => "main",
            List::Side => "side",
            List::Wrong => "wrong",
        }
    }
}

/// Names that stand for one card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subject {
    /// The card being judged.
    Card,
    /// `main[-1]`.
    Last,
    /// `main[-2]`.
    Prev,
    /// The element inside `count(list, …)` / `sum(list, …)`.
    It,
}

/// The boolean adjectives: attributes after a dot, or standing alone as a test of
/// `card`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Adjective {
    Colour(Colour),
    Suit(Suit),
    Odd,
    Even,
    Face,
    Prime,
}

impl Adjective {
    pub fn name(self) -> &'static str {
        match self {
            Adjective::Colour(c) => c.name(),
            Adjective::Suit(s) => s.name(),
            Adjective::Odd => "odd",
            Adjective::Even => "even",
            Adjective::Face => "face",
            Adjective::Prime => "prime",
        }
    }
}

/// What follows a dot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attribute {
    Rank,
    Suit,
    Colour,
    Is(Adjective),
}

impl Attribute {
    /// Every attribute name the language knows, for error messages.
    pub const NAMES: &'static str =
        "rank, suit, color, red, black, odd, even, face, prime, spades, hearts, diamonds, clubs";

    pub fn from_word(word: &str) -> Option<Attribute> {
        Some(match word {
            "rank" => Attribute::Rank,
            "suit" => Attribute::Suit,
            "color" | "colour" => Attribute::Colour,
            other => Attribute::Is(adjective(other)?),
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Attribute::Rank => "rank",
            Attribute::Suit => "suit",
            Attribute::Colour => "color",
            Attribute::Is(a) => a.name(),
        }
    }
}

/// The adjective a word names, if any.
pub(crate) fn adjective(word: &str) -> Option<Adjective> {
    Some(match word {
        "red" => Adjective::Colour(Colour::Red),
        "black" => Adjective::Colour(Colour::Black),
        "spades" => Adjective::Suit(Suit::Spades),
        "hearts" => Adjective::Suit(Suit::Hearts),
        "diamonds" => Adjective::Suit(Suit::Diamonds),
        "clubs" => Adjective::Suit(Suit::Clubs),
        "odd" => Adjective::Odd,
        "even" => Adjective::Even,
        "face" => Adjective::Face,
        "prime" => Adjective::Prime,
        _ => return None,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl ArithOp {
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Rem => "%",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// The operator that holds when this one does not.
    pub fn negated(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }

    /// How a person writes it in an explanation.
    pub fn pretty(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "≠",
            CmpOp::Lt => "<",
            CmpOp::Le => "≤",
            CmpOp::Gt => ">",
            CmpOp::Ge => "≥",
        }
    }

    pub fn is_ordering(self) -> bool {
        !matches!(self, CmpOp::Eq | CmpOp::Ne)
    }
}

/// The right-hand side of `in` / `not in`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Collection {
    /// `2..9`, inclusive.
    Range(Box<Expr>, Box<Expr>),
    /// `{a, b, 2..5}`.
    Set(Vec<SetItem>),
    /// `main`, `side`, `wrong` (a card in a list: extension).
    List(List),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SetItem {
    One(Expr),
    Range(Expr, Expr),
}

/// Types of the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Type {
    Int,
    Bool,
    Card,
    Suit,
    Colour,
    List,
}

impl Type {
    /// The type with its article, as messages say it.
    pub fn described(self) -> &'static str {
        match self {
            Type::Int => "a number",
            Type::Bool => "a true/false test",
            Type::Card => "a card",
            Type::Suit => "a suit",
            Type::Colour => "a color",
            Type::List => "a list of cards",
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.described())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Int(i64),
    Bool(bool),
    CardLit(Card),
    SuitLit(Suit),
    ColourLit(Colour),
    /// An adjective standing alone: a test of `card`, unless the checker finds it
    /// is compared with a suit or colour, in which case it becomes the literal.
    Bare(Adjective),
    Subject(Subject),
    /// A list name used as a value; only valid where a list is expected.
    ListRef(List),
    Index(List, Box<Expr>),
    Attr(Box<Expr>, Attribute),
    Neg(Box<Expr>),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    /// `a < b <= c` (a chain means every link holds); `operands` has the type the
    /// checker found for the operands.
    Compare {
        first: Box<Expr>,
        rest: Vec<(CmpOp, Expr)>,
        operands: Type,
    },
    In {
        value: Box<Expr>,
        negated: bool,
        collection: Collection,
        operands: Type,
    },
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    If {
        arms: Vec<(Expr, Expr)>,
        otherwise: Box<Expr>,
    },
    Len(List),
    Abs(Box<Expr>),
    Min(Vec<Expr>),
    Max(Vec<Expr>),
    Count(List, Box<Expr>),
    Sum(List, Box<Expr>),
}

/// The direct sub-expressions of a [`Kind`], pushed in source order into `$out`;
/// `$iter` is `iter` or `iter_mut`. One body for [`Kind::children`] and
/// [`Kind::children_mut`], which differ only in the borrow.
macro_rules! push_children {
    ($kind:expr, $out:ident, $iter:ident) => {
        match $kind {
            Kind::Int(_)
            | Kind::Bool(_)
            | Kind::CardLit(_)
            | Kind::SuitLit(_)
            | Kind::ColourLit(_)
            | Kind::Bare(_)
            | Kind::Subject(_)
            | Kind::ListRef(_)
            | Kind::Len(_) => {}
            Kind::Index(_, e)
            | Kind::Attr(e, _)
            | Kind::Neg(e)
            | Kind::Not(e)
            | Kind::Abs(e)
            | Kind::Count(_, e)
            | Kind::Sum(_, e) => $out.push(e),
            Kind::Arith(_, a, b) => {
                $out.push(a);
                $out.push(b);
            }
            Kind::Compare { first, rest, .. } => {
                $out.push(first);
                $out.extend(rest.$iter().map(|(_, e)| e));
            }
            Kind::In {
                value, collection, ..
            } => {
                $out.push(value);
                match collection {
                    Collection::Range(lo, hi) => {
                        $out.push(lo);
                        $out.push(hi);
                    }
                    Collection::Set(items) => {
                        for item in items {
                            match item {
                                SetItem::One(e) => $out.push(e),
                                SetItem::Range(lo, hi) => {
                                    $out.push(lo);
                                    $out.push(hi);
                                }
                            }
                        }
                    }
                    Collection::List(_) => {}
                }
            }
            Kind::And(es) | Kind::Or(es) | Kind::Min(es) | Kind::Max(es) => $out.extend(es.$iter()),
            Kind::If { arms, otherwise } => {
                for (c, t) in arms {
                    $out.push(c);
                    $out.push(t);
                }
                $out.push(otherwise);
            }
        }
    };
}

impl Kind {
    /// The direct sub-expressions, in source order.
    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        let mut out: Vec<&Expr> = Vec::new();
        push_children!(self, out, iter);
        out.into_iter()
    }

    /// The direct sub-expressions, in source order, to be changed in place.
    pub fn children_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        let mut out: Vec<&mut Expr> = Vec::new();
        push_children!(self, out, iter_mut);
        out.into_iter()
    }
}
