//! What the referee decided for one event: the verdicts with the rule's explanations,
//! where the cards went, penalties, markers, phase changes, eliminations, the prophet's
//! fate, the end of the round and its scores. This is what `eleusis replay --trace`,
//! the audit trail and the tablet show; its `Display` is the one-line trace.

use std::fmt;

use serde::Serialize;

use crate::cards::Card;

use super::log::{Call, Prediction};
use super::scoring::Tally;

/// The verdict on one card, with the rule's explanation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CardVerdict {
    pub card: Card,
    pub accepted: bool,
    pub explanation: String,
}

/// Where placed cards went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "line", rename_all = "snake_case")]
pub enum Placement {
    /// Appended to the main line.
    Main { cards: Vec<Card> },
    /// One sideline entry under the main-line card at index `after`.
    Sideline { after: usize, cards: Vec<Card> },
}

/// Penalty cards dealt to a player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Penalty {
    pub player: String,
    pub cards: u32,
    pub reason: String,
}

/// Who took a card from a wrong "no play" hand, which, and whether it was acceptable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pick {
    pub card: Card,
    /// `"God"` or `"prophet"`.
    pub by: &'static str,
    pub accepted: bool,
}

/// How the prophet's call fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProphetCallOutcome {
    pub prophet: String,
    pub said: Call,
    /// Whether God confirmed the call.
    pub confirmed: bool,
}

/// How a Delphos prediction fared against God's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PredictionOutcome {
    pub player: String,
    pub says: Prediction,
    /// Whether God's answer matched the prediction.
    pub right: bool,
}

/// How a round ended, with its scores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundEnd {
    pub reason: String,
    pub scores: Tally,
}

/// The referee's decision on one event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// 1-based round number in the game (0 before any round).
    pub round: u32,
    /// `round`, `play`, `no_play`, `prophet` or `end_game`.
    pub event: &'static str,
    /// The player who acted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    /// The verdict on each card played, or on each card of a shown hand.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<CardVerdict>,
    /// For a play: all cards right. For a no play: the declaration was right.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub right: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prophet_call: Option<ProphetCallOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pick: Option<Pick>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placed: Option<Placement>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub penalties: Vec<Penalty>,
    /// Whether a wrong play was covered by a false prophet (no penalty, no elimination).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub covered: bool,
    /// Size of the new hand dealt after a right "no play".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_hand: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub white_markers: Vec<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub black_markers: Vec<u32>,
    /// A prophet took office: `(name, laid position of the marked card)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prophet_declared: Option<(String, u32)>,
    /// A false prophet was overthrown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overthrown: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub eliminated: Vec<String>,
    /// Phase changes, e.g. "sudden death begins".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round_end: Option<RoundEnd>,
    /// Game totals, on `end_game` or at the end of a round when a game has totals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub totals: Option<Tally>,
    /// Whose turn it is now (`None` once the round has ended).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_turn: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// `eleusis-1959`: the wrong card stays face up before this player (stage 1) or
    /// returns to him (stage 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_by: Option<String>,
    /// `delphos`: the prediction made on this proposal, and how it fared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prediction: Option<PredictionOutcome>,
    /// `delphos`: running score changes this event made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score_changes: Option<Tally>,
}

impl fmt::Display for Penalty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} takes {} penalty cards ({})",
            self.player, self.cards, self.reason
        )
    }
}

/// One thing an outcome did. The trace and the audit both list these, in this order;
/// the two kinds set apart are the ones the audit shows differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect<'a> {
    /// Penalty cards dealt: the audit lists them on lines of their own.
    Penalty(&'a Penalty),
    /// A false prophet overthrown: the trace also says what goes with it.
    Overthrown(&'a str),
    /// Any other effect, in words.
    Said(String),
}

impl Outcome {
    /// An outcome with nothing in it yet: the event of a round, and who acted.
    pub fn new(round: u32, event: &'static str, player: Option<String>) -> Outcome {
        Outcome {
            round,
            event,
            player,
            ..Outcome::default()
        }
    }

    /// What the outcome did after the event's verdicts — the prophet's call, placement,
    /// markers, penalties, eliminations, phases, warnings, the round's end and the game's
    /// totals — in the order a reader follows them. Whose turn is next is not an effect.
    pub fn effects(&self) -> Vec<Effect<'_>> {
        let mut out = Vec::new();
        if let Some(call) = &self.prophet_call {
            let said = match call.said {
                Call::Right => "right",
                Call::Wrong => "wrong",
            };
            out.push(Effect::Said(format!(
                "prophet {} said {said}, God {}",
                call.prophet,
                if call.confirmed {
                    "confirms"
                } else {
                    "contradicts"
                }
            )));
        }
        if let Some(pick) = &self.pick {
            out.push(Effect::Said(format!(
                "{} takes {} ({})",
                pick.by,
                pick.card,
                if pick.accepted {
                    "acceptable"
                } else {
                    "not acceptable: back to the hand"
                }
            )));
        }
        match &self.placed {
            Some(Placement::Main { cards }) => {
                out.push(Effect::Said(format!("main line += {}", cards_text(cards))))
            }
            Some(Placement::Sideline { after, cards }) => out.push(Effect::Said(format!(
                "sideline under main[{after}] += [{}]",
                cards_text(cards)
            ))),
            None => {}
        }
        if let Some(name) = &self.kept_by {
            out.push(Effect::Said(format!(
                "the wrong card stays face up before {name}"
            )));
        }
        if let Some(p) = &self.prediction {
            let says = if p.says.accepts() {
                "accepted"
            } else {
                "rejected"
            };
            let fared = if p.right { "right" } else { "wrong" };
            out.push(Effect::Said(format!(
                "{} predicted {says}: {fared}",
                p.player
            )));
        }
        if let Some(changes) = &self.score_changes {
            out.push(Effect::Said(format!("score changes {changes}")));
        }
        if let Some(name) = &self.overthrown {
            out.push(Effect::Overthrown(name));
        }
        if self.covered {
            out.push(Effect::Said(
                "covered by the false prophet: no penalty".to_string(),
            ));
        }
        out.extend(self.penalties.iter().map(Effect::Penalty));
        if let Some(n) = self.new_hand {
            out.push(Effect::Said(format!("new hand of {n}")));
        }
        if let Some((name, marker)) = &self.prophet_declared {
            out.push(Effect::Said(format!(
                "{name} is Prophet, marker on laid card {marker}"
            )));
        }
        if !self.white_markers.is_empty() {
            out.push(Effect::Said(format!(
                "white marker on {:?}",
                self.white_markers
            )));
        }
        if !self.black_markers.is_empty() {
            out.push(Effect::Said(format!(
                "black marker on {:?}",
                self.black_markers
            )));
        }
        for name in &self.eliminated {
            out.push(Effect::Said(format!("{name} is eliminated")));
        }
        out.extend(self.phases.iter().cloned().map(Effect::Said));
        for w in &self.warnings {
            out.push(Effect::Said(format!("warning: {w}")));
        }
        if let Some(end) = &self.round_end {
            out.push(Effect::Said(format!(
                "round ends: {}; scores {}",
                end.reason, end.scores
            )));
        }
        if let Some(totals) = &self.totals {
            out.push(Effect::Said(format!("game totals {totals}")));
        }
        out
    }
}

fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

impl fmt::Display for Outcome {
    /// One line for a person reading a disputed round.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let who = self.player.clone().unwrap_or_default();
        match self.event {
            "play" => {
                let cards: Vec<Card> = self.verdicts.iter().map(|v| v.card).collect();
                let kind = if cards.len() > 1 { "sequence" } else { "card" };
                let verdict = if self.right == Some(true) {
                    "right"
                } else {
                    "wrong"
                };
                parts.push(format!(
                    "{who} plays {kind} {}: {verdict}",
                    cards_text(&cards)
                ));
            }
            "no_play" => {
                let verdict = if self.right == Some(true) {
                    "right"
                } else {
                    "wrong"
                };
                parts.push(format!("{who} declares no play: {verdict}"));
            }
            "prophet" => parts.push(format!("{who} becomes the Prophet")),
            "round" => parts.push("the round starts".to_string()),
            "end_game" => parts.push("the game ends".to_string()),
            "predict" => parts.push(format!("{who} makes a prediction")),
            "end_round" if who.is_empty() => parts.push("the players end the round".to_string()),
            "end_round" => parts.push(format!("{who} ends the round")),
            "hint" => parts.push(format!("{who} gives a hint")),
            other => parts.push(other.to_string()),
        }
        let explained: Vec<String> = self
            .verdicts
            .iter()
            .map(|v| {
                format!(
                    "{} {} ({})",
                    v.card,
                    if v.accepted { "accepted" } else { "rejected" },
                    v.explanation
                )
            })
            .collect();
        if !explained.is_empty() {
            parts.push(explained.join("; "));
        }
        for effect in self.effects() {
            parts.push(match effect {
                Effect::Penalty(p) => p.to_string(),
                Effect::Overthrown(name) => {
                    format!("false prophet {name} overthrown, marker and black markers removed")
                }
                Effect::Said(text) => text,
            });
        }
        if let Some(next) = &self.next_turn {
            parts.push(format!("next: {next}"));
        }
        write!(f, "round {}: {}", self.round, parts.join(" | "))
    }
}
