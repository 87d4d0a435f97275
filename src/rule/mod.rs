//! The secret-rule language (`shared/RULE-LANGUAGE.md`): parse → check → evaluate,
//! plus the analyses the rule checker runs before God seals a rule.

pub mod analyse;

use crate::cards::Card;

mod check;
mod compile;
mod error;
mod eval;
mod explain;
mod footprint;
mod lexer;
mod parser;
mod program;
mod syntax;

pub use error::RuleError;
pub use footprint::Footprint;
pub use program::{Rule, SequenceJudgment};

/// What a rule may look at when it judges a card: the main line (oldest first,
/// `main[0]` is the starter), the sideline under the last main-line card, and every
/// sideline card of the round (oldest first).
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    pub main: &'a [Card],
    pub side: &'a [Card],
    pub wrong: &'a [Card],
}

/// A verdict with the short explanation a person can read, e.g.
/// "last 9♦ is odd → card must be black; 5♥ is red → rejected".
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Judgment {
    pub accepted: bool,
    pub explanation: String,
}

/// Anything that can judge a card against a layout: a parsed [`Rule`] in the game,
/// a closure in tests. The referee depends on this trait, not on the parser.
pub trait Judge {
    /// The verdict alone, on the hot path (no explanation is built).
    fn accepts(&self, ctx: &Context<'_>, card: Card) -> bool;

    /// The verdict with its explanation, for the audit trail and the God console.
    fn judge(&self, ctx: &Context<'_>, card: Card) -> Judgment {
        let accepted = self.accepts(ctx, card);
        Judgment {
            accepted,
            explanation: format!(
                "{} → {}",
                card.pretty(),
                if accepted { "accepted" } else { "rejected" }
            ),
        }
    }
}

impl<F> Judge for F
where
    F: Fn(&Context<'_>, Card) -> bool,
{
    fn accepts(&self, ctx: &Context<'_>, card: Card) -> bool {
        self(ctx, card)
    }
}
