//! Explanations: the same evaluation as [`super::eval`], but keeping the facts that
//! decided the verdict — which branch of an `if` was taken and why, which test
//! failed, the values compared — e.g. `last 9♦ is odd → card must be black; 5♥ is
//! red → rejected`. Nothing here is a per-rule template: the sentence is assembled
//! from the trace of the evaluation, quoting God's own words where no short phrase
//! exists. Only `judge` comes here; `accepts` stays on the allocation-free path.

use crate::cards::Card;

use super::error::Span;
use super::eval::{adjective_of, compare, contains, eval, truth, Env, Stop, Value};
use super::syntax::{Adjective, Attribute, Expr, Kind, List, Subject, Type};
use super::Judgment;

/// The verdict on `env.card` with its explanation.
pub(crate) fn explain(source: &str, expr: &Expr, env: &Env<'_>) -> Judgment {
    let explainer = Explainer { source };
    match explainer.facts(expr, env) {
        Ok((accepted, facts)) => {
            let verdict = if accepted { "accepted" } else { "rejected" };
            let reasons = if facts.is_empty() {
                env.card.pretty()
            } else {
                facts.join(", ")
            };
            Judgment {
                accepted,
                explanation: format!("{reasons} → {verdict}"),
            }
        }
        Err(stop) => Judgment {
            accepted: true,
            explanation: explainer.stopped(stop, env),
        },
    }
}

/// The facts of one true/false evaluation: its result and why.
type Facts = (bool, Vec<String>);

struct Explainer<'s> {
    source: &'s str,
}

impl Explainer<'_> {
    /// The source of a node, comments dropped and whitespace collapsed.
    fn text(&self, span: Span) -> String {
        let raw = self.source.get(span.start..span.end).unwrap_or("?");
        let words: Vec<&str> = raw
            .lines()
            .map(|line| line.split('#').next().unwrap_or(""))
            .flat_map(str::split_whitespace)
            .collect();
        let collapsed = words.join(" ");
        const MAX: usize = 80;
        if collapsed.chars().count() <= MAX {
            collapsed
        } else {
            let cut: String = collapsed.chars().take(MAX).collect();
            format!("{cut}…")
        }
    }

    /// Why the rule could not apply (the card is accepted).
    fn stopped(&self, stop: Stop, env: &Env<'_>) -> String {
        match stop {
            Stop::Missing {
                span, list, len, ..
            } => {
                let place = match list {
                    List::Main => "on the main line",
                    List::Side => "on the sideline under the last card",
                    List::Wrong => "on the sidelines",
                };
                let cards = if len == 1 { "card" } else { "cards" };
                format!(
                    "{} does not exist yet ({len} {cards} {place}): the rule cannot apply yet → accepted",
                    self.text(span)
                )
            }
            Stop::DivisionByZero { span } => format!(
                "{} divides by zero: the rule cannot apply → accepted",
                self.text(span)
            ),
            Stop::Overflow { span } => format!(
                "{} gives a number too large to compute: the rule cannot apply → accepted",
                self.text(span)
            ),
            Stop::Internal { span } => format!(
                "{} could not be evaluated for {}: the rule cannot apply → accepted",
                self.text(span),
                env.card.pretty()
            ),
        }
    }

    /// A card with the name it was reached by: `last 9♦`, `main[-3] 2♣`, or just
    /// `5♥` for the judged card, a literal, and the element of `count`.
    fn who(&self, expr: &Expr, card: Card) -> String {
        match expr.kind {
            Kind::Subject(Subject::Card | Subject::It) | Kind::CardLit(_) => card.pretty(),
            Kind::Subject(Subject::Last) => format!("last {}", card.pretty()),
            Kind::Subject(Subject::Prev) => format!("prev {}", card.pretty()),
            _ => format!("{} {}", self.text(expr.span), card.pretty()),
        }
    }

    /// A value with what it is, as short as it can be said: `5♥ rank 5`,
    /// `last 9♠ suit spades`, `count(main, it.red) = 3`, `7`.
    fn operand(&self, expr: &Expr, value: Value, env: &Env<'_>) -> Result<String, Stop> {
        if is_literal(expr) {
            return Ok(self.text(expr.span));
        }
        if let Value::Card(card) = value {
            return Ok(self.who(expr, card));
        }
        if let Kind::Attr(base, attribute) = &expr.kind {
            if let Value::Card(card) = eval(base, env)? {
                let who = self.who(base, card);
                return Ok(match attribute {
                    Attribute::Rank => format!("{who} rank {}", show(value)),
                    Attribute::Suit => format!("{who} suit {}", show(value)),
                    Attribute::Colour => format!("{who} color {}", show(value)),
                    Attribute::Is(_) => format!("{who}.{} = {}", attribute.name(), show(value)),
                });
            }
        }
        Ok(format!("{} = {}", self.text(expr.span), show(value)))
    }

    /// The phrase for an adjective test: `5♥ is red`, `last 9♦ is odd`,
    /// `Q♥ is a face card`, `3♣ is not hearts`.
    fn adjective_fact(
        &self,
        subject: String,
        value: Value,
        adjective: Adjective,
        holds: bool,
    ) -> String {
        let not = if holds { "" } else { "not " };
        match (adjective, value) {
            (Adjective::Colour(_), Value::Card(c)) => format!("{subject} is {}", c.colour().name()),
            (Adjective::Colour(_), Value::Suit(s)) => {
                format!("{subject} is {}", s.colour().name())
            }
            (Adjective::Odd | Adjective::Even, Value::Card(c)) => {
                format!("{subject} is {}", if c.is_odd() { "odd" } else { "even" })
            }
            (Adjective::Odd | Adjective::Even, Value::Int(n)) => {
                format!(
                    "{subject} is {}",
                    if n.rem_euclid(2) == 1 { "odd" } else { "even" }
                )
            }
            (Adjective::Face, _) => format!("{subject} is {not}a face card"),
            _ => format!("{subject} is {not}{}", adjective.name()),
        }
    }

    /// A one-adjective test as a side of `==` / `!=` between different tests, said
    /// as asked: `8♣ is not red`, `last 9♦ is not black`. "Alike" and "unlike"
    /// compare those answers, so each side must name its adjective: the usual `8♣
    /// is black` for `card.red` made `card.red == last.black` read "8♣ is black
    /// and last 9♦ is red (alike)". `None` for any other expression.
    fn tested(&self, expr: &Expr, env: &Env<'_>) -> Result<Option<String>, Stop> {
        let (subject, value, adjective) = match &expr.kind {
            Kind::Bare(adjective) => (env.card.pretty(), Value::Card(env.card), *adjective),
            Kind::Attr(base, Attribute::Is(adjective)) => {
                let value = eval(base, env)?;
                (self.operand(base, value, env)?, value, *adjective)
            }
            _ => return Ok(None),
        };
        let holds = adjective_of(value, adjective).ok_or(Stop::Internal { span: expr.span })?;
        let not = if holds { "" } else { "not " };
        Ok(Some(match adjective {
            Adjective::Face => format!("{subject} is {not}a face card"),
            _ => format!("{subject} is {not}{}", adjective.name()),
        }))
    }

    /// How a true/false expression is asked of the card: `card must be black`,
    /// `any card`, or God's own words.
    fn requirement(&self, expr: &Expr) -> String {
        match expr.kind {
            Kind::Bool(true) => "any card".to_string(),
            Kind::Bool(false) => "no card".to_string(),
            _ => match adjective_words(expr) {
                Some(words) => format!("card must be {words}"),
                None => format!("need {}", self.text(expr.span)),
            },
        }
    }

    /// Evaluates a true/false expression and keeps the facts that decided it.
    fn facts(&self, expr: &Expr, env: &Env<'_>) -> Result<Facts, Stop> {
        match &expr.kind {
            Kind::Bool(b) => Ok((*b, Vec::new())),
            Kind::Bare(adjective) => {
                let value = Value::Card(env.card);
                let holds =
                    adjective_of(value, *adjective).ok_or(Stop::Internal { span: expr.span })?;
                Ok((
                    holds,
                    vec![self.adjective_fact(env.card.pretty(), value, *adjective, holds)],
                ))
            }
            Kind::Attr(base, Attribute::Is(adjective)) => {
                let value = eval(base, env)?;
                let holds =
                    adjective_of(value, *adjective).ok_or(Stop::Internal { span: expr.span })?;
                let subject = self.operand(base, value, env)?;
                Ok((
                    holds,
                    vec![self.adjective_fact(subject, value, *adjective, holds)],
                ))
            }
            Kind::Not(inner) => {
                let (holds, facts) = self.facts(inner, env)?;
                Ok((!holds, facts))
            }
            Kind::And(items) => {
                let mut all = Vec::new();
                for item in items {
                    let (holds, facts) = self.facts(item, env)?;
                    if !holds {
                        return Ok((false, facts));
                    }
                    all.extend(facts);
                }
                Ok((true, all))
            }
            Kind::Or(items) => {
                let mut all = Vec::new();
                for item in items {
                    let (holds, facts) = self.facts(item, env)?;
                    if holds {
                        return Ok((true, facts));
                    }
                    all.extend(facts);
                }
                Ok((false, all))
            }
            Kind::If { arms, otherwise } => {
                let mut skipped = Vec::new();
                let mut chosen: Option<(Vec<String>, &Expr)> = None;
                for (condition, branch) in arms {
                    let (holds, facts) = self.facts(condition, env)?;
                    if holds {
                        chosen = Some((facts, branch));
                        break;
                    }
                    skipped.extend(facts);
                }
                let (because, branch) = chosen.unwrap_or((skipped, otherwise));
                let (holds, facts) = self.facts(branch, env)?;
                let because = if because.is_empty() {
                    "always".to_string()
                } else {
                    because.join(", ")
                };
                let mut sentence = format!("{because} → {}", self.requirement(branch));
                if !facts.is_empty() {
                    sentence.push_str("; ");
                    sentence.push_str(&facts.join(", "));
                }
                Ok((holds, vec![sentence]))
            }
            Kind::Compare {
                first,
                rest,
                operands,
            } => {
                let mut left_expr: &Expr = first;
                let mut left = eval(first, env)?;
                let mut all = Vec::new();
                for (op, right_expr) in rest {
                    let right = eval(right_expr, env)?;
                    let holds =
                        compare(*op, left, right).ok_or(Stop::Internal { span: expr.span })?;
                    let fact = if *operands == Type::Bool {
                        // The same test on both sides (`card.odd == last.odd`)
                        // reads best as the cards' own parity or colour.
                        let same = single_adjective(left_expr).is_some()
                            && single_adjective(left_expr) == single_adjective(right_expr);
                        let side_facts = |side: &Expr| -> Result<Vec<String>, Stop> {
                            match self.tested(side, env)? {
                                Some(fact) if !same => Ok(vec![fact]),
                                _ => Ok(self.facts(side, env)?.1),
                            }
                        };
                        let lf = side_facts(left_expr)?;
                        let rf = side_facts(right_expr)?;
                        let side = |facts: Vec<String>, value: Value| {
                            if facts.is_empty() {
                                show(value)
                            } else {
                                facts.join(", ")
                            }
                        };
                        // A test compared with `true` or `false` is that test, or
                        // its opposite: its own facts say what decided it ("… and
                        // false (alike)" read as if false were a card).
                        let literal = |e: &Expr| matches!(e.kind, Kind::Bool(_));
                        if literal(right_expr) && !lf.is_empty() {
                            lf.join(", ")
                        } else if literal(left_expr) && !rf.is_empty() {
                            rf.join(", ")
                        } else {
                            // Said with what decided it: an `==` or `!=` between two
                            // tests holds when they are alike or unlike.
                            let relation = if left == right { "alike" } else { "unlike" };
                            format!("{} and {} ({relation})", side(lf, left), side(rf, right))
                        }
                    } else {
                        let shown = if holds { *op } else { op.negated() };
                        format!(
                            "{} {} {}",
                            self.operand(left_expr, left, env)?,
                            shown.pretty(),
                            self.operand(right_expr, right, env)?
                        )
                    };
                    if !holds {
                        return Ok((false, vec![fact]));
                    }
                    all.push(fact);
                    left = right;
                    left_expr = right_expr;
                }
                Ok((true, all))
            }
            Kind::In {
                value,
                negated,
                collection,
                ..
            } => {
                let v = eval(value, env)?;
                let inside = contains(collection, v, env)?;
                let tail = self.text(Span::new(value.span.end, expr.span.end));
                let collection_text = strip_keyword(strip_keyword(&tail, "not"), "in");
                let fact = format!(
                    "{} {} {}",
                    self.operand(value, v, env)?,
                    if inside { "in" } else { "not in" },
                    collection_text
                );
                Ok((inside != *negated, vec![fact]))
            }
            _ => {
                let holds = truth(expr, env)?;
                Ok((holds, vec![format!("{} is {holds}", self.text(expr.span))]))
            }
        }
    }
}

/// The adjective a one-adjective test asks (`red`, `last.odd`), if it is one.
fn single_adjective(expr: &Expr) -> Option<Adjective> {
    match &expr.kind {
        Kind::Bare(adjective) | Kind::Attr(_, Attribute::Is(adjective)) => Some(*adjective),
        _ => None,
    }
}

/// Literals are shown as written (`7`, `Q`, `hearts`, `QH`).
fn is_literal(expr: &Expr) -> bool {
    matches!(
        expr.kind,
        Kind::Int(_) | Kind::Bool(_) | Kind::SuitLit(_) | Kind::ColourLit(_)
    )
}

/// `red and even`, `not face`: a test made only of bare adjectives reads as a
/// description of the card; anything else is quoted.
fn adjective_words(expr: &Expr) -> Option<String> {
    fn simple(expr: &Expr) -> Option<String> {
        match &expr.kind {
            Kind::Bare(a) => Some(a.name().to_string()),
            Kind::Not(inner) => match inner.kind {
                Kind::Bare(a) => Some(format!("not {}", a.name())),
                _ => None,
            },
            _ => None,
        }
    }
    match &expr.kind {
        Kind::And(items) => items
            .iter()
            .map(simple)
            .collect::<Option<Vec<_>>>()
            .map(|w| w.join(" and ")),
        Kind::Or(items) => items
            .iter()
            .map(simple)
            .collect::<Option<Vec<_>>>()
            .map(|w| w.join(" or ")),
        _ => simple(expr),
    }
}

/// Drops a leading keyword (case-insensitive) and the space after it.
fn strip_keyword<'t>(text: &'t str, keyword: &str) -> &'t str {
    let trimmed = text.trim_start();
    match trimmed.get(..keyword.len()) {
        Some(head) if head.eq_ignore_ascii_case(keyword) => trimmed[keyword.len()..].trim_start(),
        _ => trimmed,
    }
}

fn show(value: Value) -> String {
    match value {
        Value::Int(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Card(c) => c.pretty(),
        Value::Suit(s) => s.name().to_string(),
        Value::Colour(c) => c.name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_stripped_from_quoted_collections() {
        assert_eq!(strip_keyword("  NOT in {a}", "not"), "in {a}");
        assert_eq!(strip_keyword("in 2..9", "in"), "2..9");
        assert_eq!(strip_keyword("♠", "in"), "♠");
    }

    #[test]
    fn quoted_source_drops_comments_and_extra_space() {
        let source = "card.rank   >= # high\n  7";
        let explainer = Explainer { source };
        assert_eq!(explainer.text(Span::new(0, source.len())), "card.rank >= 7");
    }
}
