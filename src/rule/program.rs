//! A sealed-ready rule: parsed, type-checked, with its footprint. This is what the
//! referee holds for a round and asks for every verdict.

use std::cell::Cell;
use std::fmt;
use std::str::FromStr;

use crate::cards::Card;

use super::check::check_rule;
use super::compile::{compile, BoolFn, Fast};
use super::error::RuleError;
use super::eval::Env;
use super::explain::explain;
use super::footprint::Footprint;
use super::lexer::tokenize;
use super::parser::Parser;
use super::syntax::{number_inner_loops, Expr};
use super::{Context, Judge, Judgment};

/// A parsed and checked rule of the language of `RULE-LANGUAGE.md`.
#[derive(Clone)]
pub struct Rule {
    source: String,
    expr: Expr,
    footprint: Footprint,
    /// The tree compiled for [`Rule::accepts`].
    fast: BoolFn,
    /// How many inner `count`/`sum` values one verdict keeps.
    memo_slots: usize,
}

/// Inner `count`/`sum` values kept on the stack up to this many (more allocate).
const STACK_MEMO: usize = 16;

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rule")
            .field("source", &self.source)
            .field("footprint", &self.footprint)
            .finish_non_exhaustive()
    }
}

/// The verdict on a sequence play (2 to 4 cards judged one after the other).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SequenceJudgment {
    /// Every card was accepted.
    pub accepted: bool,
    /// One judgment per card, up to and including the first rejected one.
    pub per_card: Vec<Judgment>,
    pub explanation: String,
}

impl Rule {
    /// Parses and type-checks a rule; the error names the line and column.
    pub fn parse(source: &str) -> Result<Rule, RuleError> {
        let tokens = tokenize(source)?;
        let mut expr = Parser::new(source, tokens).parse_rule()?;
        check_rule(source, &mut expr)?;
        let memo_slots = number_inner_loops(&mut expr);
        let footprint = Footprint::of(&expr);
        let fast = compile(&expr);
        Ok(Rule {
            source: source.to_string(),
            expr,
            footprint,
            fast,
            memo_slots,
        })
    }

    /// The text God typed, unchanged (comments included): what is sealed.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The verdict alone. Never allocates (unless the rule nests more than
    /// sixteen `count`/`sum` inside others); a rule that cannot apply yet (it reads
    /// a card that does not exist, or divides by zero) accepts the card.
    pub fn accepts(&self, ctx: &Context<'_>, card: Card) -> bool {
        let run = |memo: &[Cell<Option<i64>>]| {
            let env = Fast {
                main: ctx.main,
                side: ctx.side,
                wrong: ctx.wrong,
                card,
                it: card,
                memo,
            };
            (self.fast)(&env).unwrap_or(true)
        };
        if self.memo_slots == 0 {
            run(&[])
        } else if self.memo_slots <= STACK_MEMO {
            let memo: [Cell<Option<i64>>; STACK_MEMO] = Default::default();
            run(&memo[..self.memo_slots])
        } else {
            run(&vec![Cell::new(None); self.memo_slots])
        }
    }

    /// The verdict alone on a sequence: like [`Rule::judge_sequence`] without the
    /// explanations. Allocates only when there are several cards (the extended main
    /// line).
    pub fn accepts_sequence(&self, ctx: &Context<'_>, cards: &[Card]) -> bool {
        match cards {
            [] => true,
            [card] => self.accepts(ctx, *card),
            _ => {
                let mut main: Vec<Card> = Vec::with_capacity(ctx.main.len() + cards.len());
                main.extend_from_slice(ctx.main);
                for (i, &card) in cards.iter().enumerate() {
                    let step = Context {
                        main: &main,
                        side: if i == 0 { ctx.side } else { &[] },
                        wrong: ctx.wrong,
                    };
                    if !self.accepts(&step, card) {
                        return false;
                    }
                    main.push(card);
                }
                true
            }
        }
    }

    /// The verdict with a short explanation built from what the evaluation looked at.
    pub fn judge(&self, ctx: &Context<'_>, card: Card) -> Judgment {
        let memo = vec![Cell::new(None); self.memo_slots];
        let env = Env {
            memo: &memo,
            ..Env::new(ctx, card)
        };
        explain(&self.source, &self.expr, &env)
    }

    /// Judges a sequence card by card, each card seeing the previous ones already on
    /// the main line (their sideline then is empty: a new main-line card has no
    /// sideline under it yet). Stops at the first rejected card.
    pub fn judge_sequence(&self, ctx: &Context<'_>, cards: &[Card]) -> SequenceJudgment {
        let mut main: Vec<Card> = Vec::with_capacity(ctx.main.len() + cards.len());
        main.extend_from_slice(ctx.main);
        let mut per_card = Vec::with_capacity(cards.len());
        for (i, &card) in cards.iter().enumerate() {
            let step = Context {
                main: &main,
                side: if i == 0 { ctx.side } else { &[] },
                wrong: ctx.wrong,
            };
            let judgment = self.judge(&step, card);
            let accepted = judgment.accepted;
            per_card.push(judgment);
            if !accepted {
                let explanation = if cards.len() == 1 {
                    per_card
                        .last()
                        .map(|j| j.explanation.clone())
                        .unwrap_or_default()
                } else {
                    format!(
                        "card {} of {} ({}) rejected: {}",
                        i + 1,
                        cards.len(),
                        card.pretty(),
                        per_card.last().map_or("", |j| j.explanation.as_str())
                    )
                };
                return SequenceJudgment {
                    accepted: false,
                    per_card,
                    explanation,
                };
            }
            main.push(card);
        }
        let explanation = match cards {
            [] => "no card to judge".to_string(),
            [_] => per_card
                .first()
                .map(|j| j.explanation.clone())
                .unwrap_or_default(),
            _ => format!(
                "all {} cards accepted: {}",
                cards.len(),
                cards
                    .iter()
                    .zip(&per_card)
                    .map(|(c, j)| format!("{}: {}", c.pretty(), j.explanation))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
        };
        SequenceJudgment {
            accepted: true,
            per_card,
            explanation,
        }
    }

    /// What the rule reads (for the rule checker's hints and warnings).
    pub fn footprint(&self) -> Footprint {
        self.footprint
    }
}

impl Judge for Rule {
    fn accepts(&self, ctx: &Context<'_>, card: Card) -> bool {
        Rule::accepts(self, ctx, card)
    }

    fn judge(&self, ctx: &Context<'_>, card: Card) -> Judgment {
        Rule::judge(self, ctx, card)
    }
}

impl FromStr for Rule {
    type Err = RuleError;

    fn from_str(source: &str) -> Result<Rule, RuleError> {
        Rule::parse(source)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}
