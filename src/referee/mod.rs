//! The referee: the round and game state machine of RULES.md sections 2–5, driven by
//! table-log events (TABLE-LOG.md). The core is pure — no I/O, clock or randomness —
//! and event-sourced: `state = fold(events)` through [`Game::apply`], which either
//! returns the [`Outcome`] it decided or a [`RefereeError`] naming the rule that
//! forbids the event, leaving the state unchanged.

pub mod delphos;
pub mod error;
pub mod game;
pub mod log;
pub mod original;
pub mod outcome;
pub mod own_flow;
pub mod round;
pub mod scoring;
pub mod variant;

use thiserror::Error;

pub use error::{ProphetCondition, RefereeError};
pub use game::{Game, GameState, GameSummary, ProphetState, RuleCompiler};
pub use log::{Call, LogError, LogEvent, Prediction};
pub use outcome::{
    CardVerdict, Effect, Outcome, Penalty, Pick, Placement, PredictionOutcome, RoundEnd,
};
pub use own_flow::FlowError;
pub use round::{SharedJudge, Sideline};
pub use scoring::{round_scores, ProphetTally, Tally};
pub use variant::{Variant, VariantParams};

/// A table-log line that could not be read or refereed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {reason}")]
pub struct LineError {
    /// 1-based line number in the log.
    pub line: usize,
    pub reason: String,
}

/// Re-referees a table log from scratch with the rule language; blank lines are
/// skipped. Returns the final state and the outcome of every event.
pub fn replay<I, S>(lines: I) -> Result<(GameState, Vec<Outcome>), LineError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    replay_with(Game::new(), lines)
}

/// The final state of a table log, as `eleusis replay` prints it: the same refereeing
/// as [`replay`], without building explanations or keeping outcomes.
pub fn replay_state<I, S>(lines: I) -> Result<GameState, LineError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut game = Game::new();
    game.set_explanations(false);
    for (index, line) in lines.into_iter().enumerate() {
        let text = line.as_ref();
        if text.trim().is_empty() {
            continue;
        }
        let fail = |reason: String| LineError {
            line: index + 1,
            reason,
        };
        let event = LogEvent::parse_line(text).map_err(|e| fail(e.reason))?;
        game.apply(&event).map_err(|e| fail(e.to_string()))?;
    }
    Ok(game.state())
}

/// [`replay`] with a game built by the caller (e.g. with a closure as the rule).
pub fn replay_with<I, S>(mut game: Game, lines: I) -> Result<(GameState, Vec<Outcome>), LineError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut outcomes = Vec::new();
    for (index, line) in lines.into_iter().enumerate() {
        let text = line.as_ref();
        if text.trim().is_empty() {
            continue;
        }
        let number = index + 1;
        let event = LogEvent::parse_line(text).map_err(|e| LineError {
            line: number,
            reason: e.reason,
        })?;
        let outcome = game.apply(&event).map_err(|e| LineError {
            line: number,
            reason: e.to_string(),
        })?;
        outcomes.push(outcome);
    }
    Ok((game.state(), outcomes))
}
