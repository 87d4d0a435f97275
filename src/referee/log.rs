//! Table log, version 1 (`shared/TABLE-LOG.md`): one JSON object per line.
//!
//! [`LogEvent::parse_line`] reads one line and rejects unknown events, unknown fields
//! and malformed values with a reason; [`LogEvent::to_line`] writes it back, so an
//! exported log replays to the same state. Unknown fields are rejected rather than
//! ignored on purpose: a misspelt `pick` or `prophet_says` silently dropped would
//! change the verdict of a disputed round. A field given twice is rejected for the
//! same reason, and an error names the field (and the card in a list) it is about.

use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::cards::Card;
use crate::json_input::{self, JsonInputError};

use super::error::quoted;
use super::round::name_form;
use super::variant::Variant;

/// One line of a table log: what the table says happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum LogEvent {
    /// A round starts (several rounds in one log form a game).
    Round(RoundEvent),
    /// A single card or a sequence of 2–4 cards.
    Play(PlayEvent),
    /// A "no play" declaration with the hand the player showed.
    NoPlay(NoPlayEvent),
    /// A player declares himself Prophet.
    Prophet(ProphetEvent),
    /// The game stops here.
    EndGame(EndGameEvent),
    /// Extension (`delphos`): the previous player predicts God's answer to the next
    /// proposal.
    Predict(PredictEvent),
    /// Extension (`eleusis-1959`, `delphos`): the round ends by declaration.
    EndRound(EndRoundEvent),
    /// Extension (`delphos`, and `eleusis-1959` before the first play): a hint.
    Hint(HintEvent),
}

/// `{"event":"round", …}`: set-up of a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundEvent {
    /// Defaults to `new-eleusis`.
    #[serde(default)]
    pub variant: Variant,
    pub god: String,
    /// Clockwise from God's left.
    pub players: Vec<String>,
    /// The secret rule, in the rule language.
    pub rule: String,
    /// The starter card that begins the main line.
    pub starter: Card,
    /// Overrides the variant's hand size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_size: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Extension: cards God turned up before `starter` and refused because the rule
    /// does not accept them (RULES.md section 2). Each must be unacceptable; they go
    /// back into the stock.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_starters: Vec<Card>,
}

/// What the prophet says of a play before God confirms or contradicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Call {
    Right,
    Wrong,
}

impl Call {
    /// The call as a verdict: `right` means "accepted".
    pub fn accepts(self) -> bool {
        self == Call::Right
    }

    /// The call as written in the log: `right` or `wrong`.
    pub fn as_str(self) -> &'static str {
        match self {
            Call::Right => "right",
            Call::Wrong => "wrong",
        }
    }
}

/// Prints the call as the log writes it, so that messages quote the log.
impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reads one of a closed list of words, from a JSON string only. serde's derived
/// enums also take `{"right":null}` for `"right"`, a shape no log writer means and
/// which would slip a value past every reader that looks for the word.
fn deserialize_word<'de, D, T>(
    deserializer: D,
    words: &'static [&'static str],
    values: &[T],
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Copy,
{
    struct Word(&'static [&'static str]);
    impl Visitor<'_> for Word {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            let quoted: Vec<String> = self.0.iter().map(|w| format!("\"{w}\"")).collect();
            f.write_str(&quoted.join(" or "))
        }
        fn visit_str<E: de::Error>(self, value: &str) -> Result<usize, E> {
            self.0
                .iter()
                .position(|word| *word == value)
                .ok_or_else(|| E::unknown_variant(value, self.0))
        }
    }
    let at = deserializer.deserialize_str(Word(words))?;
    Ok(values[at])
}

impl<'de> Deserialize<'de> for Call {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_word(
            deserializer,
            &["right", "wrong"],
            &[Call::Right, Call::Wrong],
        )
    }
}

impl<'de> Deserialize<'de> for Prediction {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_word(
            deserializer,
            &["accepted", "rejected"],
            &[Prediction::Accepted, Prediction::Rejected],
        )
    }
}

impl<'de> Deserialize<'de> for EndedBy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_word(
            deserializer,
            &["god", "players"],
            &[EndedBy::God, EndedBy::Players],
        )
    }
}

/// `{"event":"play", …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayEvent {
    /// When present, must be the player whose turn it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    pub cards: Vec<Card>,
    /// Required while a prophet is in office, forbidden otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prophet_says: Option<Call>,
}

/// `{"event":"no_play", …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoPlayEvent {
    /// Extension: as for `play`, when present it must be the player whose turn it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    /// The whole hand the player showed.
    pub hand: Vec<Card>,
    /// The card God (or the prophet) takes when the declaration is wrong; absent:
    /// the first acceptable card in the order shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<Card>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prophet_says: Option<Call>,
}

/// `{"event":"prophet","player":…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProphetEvent {
    pub player: String,
}

/// What a Delphos prediction says God will answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Prediction {
    Accepted,
    Rejected,
}

impl Prediction {
    /// Whether the prediction says "accepted".
    pub fn accepts(self) -> bool {
        self == Prediction::Accepted
    }
}

/// `{"event":"predict","player":…,"says":"accepted"|"rejected"}` (`delphos`): made
/// before God answers the next proposal, by the player seated before the proposer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictEvent {
    pub player: String,
    pub says: Prediction,
}

/// Who ends a round by declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndedBy {
    /// God (the dealer in `eleusis-1959`).
    God,
    /// The players, unanimously (`delphos`); `assent` names every player.
    Players,
}

/// `{"event":"end_round"}`: in `eleusis-1959` the dealer declares that no further
/// card can be accepted in stage 2; in `delphos` God ends the round, or the players
/// do unanimously (`"by":"players","assent":[…every player…]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndRoundEvent {
    /// Absent: God.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<EndedBy>,
    /// The players who agreed, when the players end the round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assent: Vec<String>,
}

/// `{"event":"hint","text":…,"assent":[…]}`: in `delphos` a hint needs every
/// player's assent; in `eleusis-1959` the dealer may give one before the first play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HintEvent {
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assent: Vec<String>,
}

/// `{"event":"end_game"}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndGameEvent {}

/// Why a line is not a table-log event.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{reason}")]
pub struct LogError {
    /// What is wrong, and where in the line when known.
    pub reason: String,
}

impl LogEvent {
    /// Reads one line of a table log. A key given twice in the line is refused like
    /// an unknown one (which of the two was meant is anyone's guess), and a value of
    /// the wrong shape is refused with the field it is in.
    pub fn parse_line(line: &str) -> Result<LogEvent, LogError> {
        // Fast path for good lines (the derived readers refuse a repeated field
        // themselves); a bad one is parsed again below to say why.
        if let Ok(mut event) = serde_json::from_str::<LogEvent>(line) {
            event.check_shape()?;
            event.normalise_names();
            return Ok(event);
        }
        // Files joined with `cat` carry each one's byte-order mark into the middle.
        if line.starts_with(super::BOM) {
            return Err(LogError {
                reason: "the line starts with a byte-order mark (U+FEFF, invisible): only the first line of a log may carry one; remove it (files joined together each bring theirs)".to_string(),
            });
        }
        let value = json_input::parse_value(line).map_err(|e| LogError {
            reason: match e {
                JsonInputError::Syntax {
                    message, column, ..
                } => {
                    format!("not a JSON object: {message} (column {column})")
                }
                duplicate => duplicate.to_string(),
            },
        })?;
        let serde_json::Value::Object(mut object) = value else {
            return Err(LogError {
                reason: "expected a JSON object like {\"event\":\"play\",…}".to_string(),
            });
        };
        let name = match object.remove("event") {
            None => {
                return Err(LogError {
                    reason: "missing field \"event\"".to_string(),
                })
            }
            Some(serde_json::Value::String(name)) => name,
            Some(other) => {
                return Err(LogError {
                    reason: format!("field \"event\" must be a string, got {other}"),
                })
            }
        };
        // The fields besides "event", read as the named event's own fields so that
        // an error names the field it is in.
        let fields = serde_json::Value::Object(object);
        let event = match name.as_str() {
            "round" => LogEvent::Round(fields_of(&fields)?),
            "play" => LogEvent::Play(fields_of(&fields)?),
            "no_play" => LogEvent::NoPlay(fields_of(&fields)?),
            "prophet" => LogEvent::Prophet(fields_of(&fields)?),
            "end_game" => LogEvent::EndGame(fields_of(&fields)?),
            "predict" => LogEvent::Predict(fields_of(&fields)?),
            "end_round" => LogEvent::EndRound(fields_of(&fields)?),
            "hint" => LogEvent::Hint(fields_of(&fields)?),
            _ => {
                return Err(LogError {
                    reason: format!(
                        "unknown event {:?} (expected one of {})",
                        quoted(&name),
                        KNOWN_EVENTS.join(", ")
                    ),
                })
            }
        };
        event.check_shape()?;
        let mut event = event;
        event.normalise_names();
        Ok(event)
    }

    /// Every name in the event in one form ([`name_form`]: composed, no spaces at
    /// either end), so that "François" typed on a phone (c + combining cedilla) or
    /// "Ana " names the same person as "François" and "Ana" in every round: seats,
    /// turns, assents, the not-God bonus and the score sheet's columns.
    fn normalise_names(&mut self) {
        let one = |n: &mut String| *n = name_form(n);
        match self {
            LogEvent::Round(r) => {
                one(&mut r.god);
                r.players.iter_mut().for_each(one);
            }
            LogEvent::Play(p) => p.player.iter_mut().for_each(one),
            LogEvent::NoPlay(n) => n.player.iter_mut().for_each(one),
            LogEvent::Prophet(p) => one(&mut p.player),
            LogEvent::Predict(p) => one(&mut p.player),
            LogEvent::EndRound(e) => e.assent.iter_mut().for_each(one),
            LogEvent::Hint(h) => h.assent.iter_mut().for_each(one),
            LogEvent::EndGame(_) => {}
        }
    }

    /// The event as one log line (no trailing newline).
    pub fn to_line(&self) -> String {
        // Serializing these plain data types cannot fail; fall back to an empty
        // object rather than panic.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }

    /// The event's name as written in the log.
    pub fn name(&self) -> &'static str {
        match self {
            LogEvent::Round(_) => "round",
            LogEvent::Play(_) => "play",
            LogEvent::NoPlay(_) => "no_play",
            LogEvent::Prophet(_) => "prophet",
            LogEvent::EndGame(_) => "end_game",
            LogEvent::Predict(_) => "predict",
            LogEvent::EndRound(_) => "end_round",
            LogEvent::Hint(_) => "hint",
        }
    }

    /// Checks that the referee does not need the state for.
    fn check_shape(&self) -> Result<(), LogError> {
        let bad = |reason: &str| {
            Err(LogError {
                reason: reason.to_string(),
            })
        };
        match self {
            LogEvent::Play(p) if p.cards.is_empty() => {
                bad("\"cards\" is empty: a play has 1 to 4 cards")
            }
            LogEvent::NoPlay(n) if n.hand.is_empty() => {
                bad("\"hand\" is empty: a no_play shows the player's whole hand")
            }
            LogEvent::NoPlay(n) if n.hand.len() > super::round::MAX_SHOWN_HAND => bad(&format!(
                "\"hand\" shows {} cards: more than any hand at a table holds (at most {})",
                n.hand.len(),
                super::round::MAX_SHOWN_HAND
            )),
            LogEvent::Round(r) if r.players.is_empty() => bad("\"players\" is empty"),
            LogEvent::Hint(h) if h.text.trim().is_empty() => bad("\"text\" of the hint is empty"),
            _ => Ok(()),
        }
    }
}

/// Reads an event's fields; the error names the field that does not fit.
fn fields_of<T: DeserializeOwned>(fields: &serde_json::Value) -> Result<T, LogError> {
    json_input::from_value(fields).map_err(|e| LogError { reason: e.reason })
}

/// Event names of table log v1, then this project's extensions.
pub const KNOWN_EVENTS: [&str; 8] = [
    "round",
    "play",
    "no_play",
    "prophet",
    "end_game",
    "predict",
    "end_round",
    "hint",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_input::QUOTED_CHARS;

    const SPEC_LINES: [&str; 9] = [
        r#"{"event":"round","variant":"new-eleusis","god":"Pierre","players":["Alain","François","Jacques","Philippe"],"rule":"if last.odd then black else red","starter":"3H"}"#,
        r#"{"event":"play","cards":["8H"]}"#,
        r#"{"event":"play","player":"Jacques","cards":["4S","9D","JC"]}"#,
        r#"{"event":"no_play","hand":["2C","7D","KH"]}"#,
        r#"{"event":"no_play","hand":["2C","7D","KH"],"pick":"7D"}"#,
        r#"{"event":"prophet","player":"Philippe"}"#,
        r#"{"event":"play","cards":["5S"],"prophet_says":"wrong"}"#,
        r#"{"event":"no_play","hand":["2C","7D"],"prophet_says":"wrong","pick":"2C"}"#,
        r#"{"event":"end_game"}"#,
    ];

    #[test]
    fn every_example_of_the_spec_parses_and_round_trips() {
        for line in SPEC_LINES {
            let event = LogEvent::parse_line(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            let again = LogEvent::parse_line(&event.to_line()).expect("reparse");
            assert_eq!(event, again, "{line}");
        }
        let LogEvent::Play(play) = LogEvent::parse_line(SPEC_LINES[2]).unwrap() else {
            panic!("not a play")
        };
        assert_eq!(play.player.as_deref(), Some("Jacques"));
        assert_eq!(play.cards.len(), 3);
    }

    #[test]
    fn extension_events_round_trip() {
        for line in [
            r#"{"event":"predict","player":"Bea","says":"rejected"}"#,
            r#"{"event":"end_round"}"#,
            r#"{"event":"end_round","by":"players","assent":["A","B"]}"#,
            r#"{"event":"hint","text":"only the last symbol matters","assent":["A","B"]}"#,
        ] {
            let event = LogEvent::parse_line(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(event.to_line(), line);
        }
    }

    #[test]
    fn round_defaults_to_new_eleusis() {
        let line =
            r#"{"event":"round","god":"G","players":["A","B"],"rule":"true","starter":"TH"}"#;
        let LogEvent::Round(round) = LogEvent::parse_line(line).unwrap() else {
            panic!("not a round")
        };
        assert_eq!(round.variant, Variant::NewEleusis);
        assert_eq!(round.starter.to_string(), "10H");
    }

    #[test]
    fn malformed_lines_are_rejected_with_a_reason() {
        let huge_hand = format!(
            r#"{{"event":"no_play","hand":[{}]}}"#,
            vec!["\"3S\""; 1001].join(",")
        );
        let cases = [
            ("not json", "not a JSON object"),
            ("[1,2]", "expected a JSON object"),
            (r#"{"cards":["8H"]}"#, "missing field \"event\""),
            (r#"{"event":"shuffle"}"#, "unknown event \"shuffle\""),
            (r#"{"event":3}"#, r#"field "event" must be a string"#),
            (
                r#"{"event":"play","cards":["8X"]}"#,
                r#"field "cards", card 1: "8X": unknown suit 'X'"#,
            ),
            (r#"{"event":"play"}"#, r#"missing field "cards""#),
            (r#"{"event":"play","cards":[]}"#, "\"cards\" is empty"),
            (
                r#"{"event":"play","cards":["8H"],"pik":"8H"}"#,
                r#"unknown field "pik""#,
            ),
            (
                r#"{"event":"play","cards":["8H"],"prophet_says":"maybe"}"#,
                r#"field "prophet_says": unknown value "maybe""#,
            ),
            (r#"{"event":"no_play","hand":[]}"#, "\"hand\" is empty"),
            (
                &huge_hand,
                "\"hand\" shows 1001 cards: more than any hand at a table holds (at most 1000)",
            ),
            (
                r#"{"event":"end_game","extra":1}"#,
                r#"unknown field "extra""#,
            ),
            (
                r#"{"event":"round","variant":"delphi","god":"G","players":["A"],"rule":"true","starter":"3H"}"#,
                r#"field "variant": unknown variant "delphi""#,
            ),
            (
                r#"{"event":"play","cards":["8H"],"prophet_says":"Wrong"}"#,
                r#"field "prophet_says": unknown value "Wrong", expected "right" or "wrong" (in lower case: "wrong")"#,
            ),
            (
                r#"{"event":"predict","player":"A","says":"maybe"}"#,
                r#"field "says": unknown value "maybe""#,
            ),
            (
                r#"{"event":"play","cards":["8H"],"prophet_says":{"right":null}}"#,
                r#"field "prophet_says": expected "right" or "wrong", got an object"#,
            ),
            (
                r#"{"event":"predict","player":"A","says":{"accepted":null}}"#,
                r#"field "says": expected "accepted" or "rejected", got an object"#,
            ),
            (
                r#"{"event":"end_round","by":{"players":null},"assent":["A"]}"#,
                r#"field "by": expected "god" or "players", got an object"#,
            ),
            (
                r#"{"event":"play","cards":["8H"],"prophet_says":1}"#,
                r#"field "prophet_says": expected "right" or "wrong", got the number 1"#,
            ),
            (
                r#"{"event":"predict","says":"accepted"}"#,
                r#"missing field "player""#,
            ),
            (
                r#"{"event":"end_round","by":"nobody"}"#,
                r#"field "by": unknown value "nobody""#,
            ),
            (
                r#"{"event":"hint","text":"  "}"#,
                "\"text\" of the hint is empty",
            ),
            (
                r#"{"event":"round","god":"G","players":["A","B"],"rule":"true","starter":"3H","hand_size":"7"}"#,
                r#"field "hand_size": expected a whole number, got the string "7""#,
            ),
            (
                r#"{"event":"play","cards":"8S"}"#,
                r#"field "cards": expected a list, got the string "8S""#,
            ),
            (
                r#"{"event":"no_play","hand":["2S","3S","1X"]}"#,
                r#"field "hand", card 3: "1X": unknown suit 'X'"#,
            ),
            (
                r#"{"event":"round","god":"G","players":["A",7],"rule":"true","starter":"3H"}"#,
                r#"field "players", item 2: expected a string, got the number 7"#,
            ),
            (
                r#"{"event":"no_play","hand":["2S"],"pick":["2S"]}"#,
                r#"field "pick": expected a string, got a list of 1 item"#,
            ),
        ];
        for (line, expected) in cases {
            let err = LogEvent::parse_line(line).expect_err(line);
            assert!(err.reason.starts_with(expected), "{line}: {err}");
            for rust in ["u32", "struct ", "sequence", "Event"] {
                assert!(!err.reason.contains(rust), "{line}: {err}");
            }
        }
    }

    /// A line may hold a megabyte in one string: the error quotes the start of it,
    /// and still says what is wrong and with what.
    #[test]
    fn a_long_value_is_quoted_cut_short() {
        let long = "x".repeat(100_000);
        let cut = format!("{}…", "x".repeat(QUOTED_CHARS));
        let cases = [
            (
                format!(r#"{{"event":"{long}"}}"#),
                format!(r#"unknown event "{cut}" (expected one of round, "#),
            ),
            (
                format!(r#"{{"event":"play","cards":["2H"],"{long}":1}}"#),
                format!(r#"unknown field "{cut}", expected one of "player", "cards""#),
            ),
            (
                format!(
                    r#"{{"event":"round","god":"G","players":["A","B"],"rule":"red","starter":"{long}"}}"#
                ),
                format!(r#"field "starter": card "{cut}": write a card as its rank and suit"#),
            ),
            (
                format!(
                    r#"{{"event":"round","variant":"{long}","god":"G","players":["A","B"],"rule":"red","starter":"AH"}}"#
                ),
                format!(r#"field "variant": unknown variant "{cut}" (expected new-eleusis"#),
            ),
        ];
        for (line, expected) in cases {
            let err = LogEvent::parse_line(&line).expect_err("refused");
            assert!(err.reason.starts_with(&expected), "{}", err.reason);
            assert!(err.reason.len() < 300, "{} bytes", err.reason.len());
        }
    }

    #[test]
    fn a_field_given_twice_is_refused_not_overwritten() {
        let cases = [
            (
                r#"{"event":"play","cards":["2S"],"cards":["2H"]}"#,
                r#"duplicate field "cards""#,
            ),
            (
                r#"{"event":"play","event":"play","cards":["2S"]}"#,
                r#"duplicate field "event""#,
            ),
            (
                r#"{"event":"no_play","hand":["2S","3S"],"pick":"2S","pick":"3S"}"#,
                r#"duplicate field "pick""#,
            ),
            (
                r#"{"event":"play","cards":["2S"],"prophet_says":"right","prophet_says":"wrong"}"#,
                r#"duplicate field "prophet_says""#,
            ),
            (
                r#"{"event":"round","god":"G","god":"H","players":["A","B"],"rule":"true","starter":"3H"}"#,
                r#"duplicate field "god""#,
            ),
        ];
        for (line, expected) in cases {
            let err = LogEvent::parse_line(line).expect_err(line);
            assert_eq!(err.reason, expected, "{line}");
        }
    }
}
