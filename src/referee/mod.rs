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
pub use round::{disguises_a_line, Deal, SharedJudge, Sideline};
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
/// skipped, and so is a byte-order mark at the start of the first line (editors on
/// Windows write one). Returns the final state and the outcome of every event. A log
/// with no events gives the state of a game not yet started (no round, no outcome);
/// `eleusis replay` refuses such a log, since a log to check that holds nothing is
/// most likely the wrong file.
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
        let text = log_line(index, line.as_ref());
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
        let text = log_line(index, line.as_ref());
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

/// The UTF-8 byte-order mark some editors (Notepad on Windows) put at the start of a
/// file.
pub const BOM: char = '\u{feff}';

/// Line `index` (0-based) of a table log as the parser should see it: the first line
/// without a leading byte-order mark, which is no part of the JSON.
pub fn log_line(index: usize, text: &str) -> &str {
    if index == 0 {
        text.strip_prefix(BOM).unwrap_or(text)
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUND: &str = r#"{"event":"round","variant":"basic","god":"G","players":["A","B"],"rule":"true","starter":"3H"}"#;

    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let with_bom = format!("{BOM}{ROUND}");
        let state = replay_state([with_bom.as_str()]).expect("a BOM before the first line");
        assert_eq!(state, replay_state([ROUND]).expect("plain"));
        let (_, outcomes) = replay([with_bom.as_str()]).expect("replay");
        assert_eq!(outcomes.len(), 1);
        // Only at the start of the log: elsewhere it is a character the JSON refuses.
        let err = replay_state([ROUND, with_bom.as_str()]).unwrap_err();
        assert_eq!(err.line, 2);
        assert!(
            err.reason
                .starts_with("the line starts with a byte-order mark (U+FEFF, invisible)"),
            "{err}"
        );
    }

    #[test]
    fn a_log_without_events_is_a_game_not_started() {
        let (state, outcomes) = replay(["", "  "]).expect("blank lines only");
        assert!(outcomes.is_empty());
        assert_eq!(state, replay_state(Vec::<String>::new()).expect("empty"));
    }

    /// A name far too long, or an assent naming a stranger at length, is refused
    /// with the start of it, not with all of it.
    #[test]
    fn a_long_name_is_quoted_cut_short() {
        let long = "N".repeat(100_000);
        let cut = format!("\"{}…\"", "N".repeat(error::QUOTED_CHARS));
        let seated = format!(
            r#"{{"event":"round","god":"G","players":["A","{long}"],"rule":"true","starter":"3H"}}"#
        );
        let err = replay_state([seated.as_str()]).unwrap_err();
        assert!(
            err.reason
                .starts_with(&format!("the name {cut} is not a name")),
            "{}",
            &err.reason[..200]
        );
        assert!(err.reason.len() < 400, "{} bytes", err.reason.len());
        let delphos = r#"{"event":"round","variant":"delphos","god":"G","players":["A","B"],"rule":"true","starter":"3H"}"#;
        let assent =
            format!(r#"{{"event":"end_round","by":"players","assent":["A","B","{long}"]}}"#);
        let err = replay_state([delphos, assent.as_str()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("line 2: {cut} is not a player of this round and cannot assent")
        );
    }

    #[test]
    fn a_refused_line_says_its_number_and_field() {
        let err = replay_state([ROUND, "", r#"{"event":"no_play","hand":["2S","3S","1X"]}"#])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"line 3: field "hand", card 3: "1X": unknown suit 'X' (expected one of S H D C or ♠ ♥ ♦ ♣)"#
        );
        let err = replay([
            ROUND,
            r#"{"event":"play","cards":["2S"],"prophet_says":"right"}"#,
        ])
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"line 2: "prophet_says": "right" given but no prophet is in office"#
        );
    }
}
