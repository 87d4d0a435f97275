//! The audit of a round (or a whole game): every event with its time, player, cards,
//! the recognizer's reads and confidences, the frame, the verdict and its
//! explanation, penalties, corrections (what each corrected event first recorded,
//! what each correction replaced) and, where a correction changed the decision,
//! what the table was told (what the chained log decided when the event was
//! appended; the verdicts table's copy of it, outside the chain, is held to that);
//! the seal (commitment, or rule and salt re-hashed once revealed; a sealed rule is
//! re-hashed too, and a revealed round must end in the stored log) and the hash
//! chain check, with the first broken link.
//!
//! Before the reveal the rule's explanations are withheld (they would give the rule
//! away); the verdicts themselves are public at the table and are shown.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use serde::Serialize;
use serde_json::{Map, Value};

use super::chain::Break;
use super::evidence::{counted, Evidence, ReadStatus};
use super::history::{
    decision, Correction, Effective, Entry, EntryKind, History, HistoryError, RefereeFactory,
    Voided, VOID, WITH_PREVIOUS,
};
use super::log::{players_index_mismatches, ChainStatus, RoundInfo};
use super::printable::printable;
use super::seal::commitment;
use super::{Store, StoreError, Target};
use crate::cards::Card;
use crate::referee::{Effect, LogEvent, Outcome, Placement};

/// The whole audit, serialized as-is by `audit --json`.
#[derive(Debug, Clone, Serialize)]
pub struct AuditReport {
    pub game: String,
    /// The audited rounds.
    pub rounds: Vec<RoundAudit>,
    pub chain: ChainCheck,
    /// Everything else found wrong (seal, frames, replay, index tables that disagree
    /// with the chain).
    pub problems: Vec<String>,
    /// Why the exports of the audited game are refused (a broken hash chain, a
    /// stored rule that no longer matches its commitment), as
    /// [`super::history::require_intact_chain`] refuses them: the audit page
    /// shows this instead of links that would only fail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exports_refused: Option<String>,
}

/// The chain verdict.
#[derive(Debug, Clone, Serialize)]
pub struct ChainCheck {
    pub ok: bool,
    pub events: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broken_at: Option<BrokenLink>,
}

/// The first broken link.
#[derive(Debug, Clone, Serialize)]
pub struct BrokenLink {
    pub round: String,
    pub seq: u64,
    pub reason: String,
}

/// One round.
#[derive(Debug, Clone, Serialize)]
pub struct RoundAudit {
    pub round: String,
    pub variant: String,
    pub god: String,
    pub players: Vec<String>,
    pub commitment: String,
    pub seal: SealAudit,
    pub events: Vec<EventAudit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Value>,
}

/// The seal as the public may see it.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum SealAudit {
    Sealed,
    Revealed {
        rule: String,
        salt: String,
        /// `sha256(salt ‖ rule)` equals the commitment.
        verified: bool,
    },
}

/// A card read, as it stood at the table.
#[derive(Debug, Clone, Serialize)]
pub struct ReadAudit {
    /// The card recorded at the table for this read: what God confirmed, corrected
    /// the read to, or typed. A correction made since does not change it (see
    /// `corrected_later_to`): the table's own record stays as it was.
    pub card: Card,
    /// `None` (`null`): the recognizer found the card's outline but read no index
    /// on it (glare, a hard shadow); God typed the card.
    pub read: Option<Card>,
    pub confidence: f64,
    /// How God took the read at the table, against `card` (the reads table's
    /// status), whatever a later correction did.
    pub status: ReadStatus,
    /// The card the event holds now at this place, when a correction made after
    /// the table changed it (a read God confirmed can still prove wrong later);
    /// absent when unchanged, or when a correction changed how many cards the event
    /// holds (`reads_note` says so, and the reads no longer pair with the cards).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrected_later_to: Option<Card>,
    /// The corrections (`ROUND:SEQ`) that changed the event's cards after the
    /// table, when `corrected_later_to` is given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub corrected_later_by: Vec<String>,
    /// The card's outline in the frame, when the evidence gives it (the audit page
    /// shows the card cut along it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corners: Option<[[f64; 2]; 4]>,
}

/// The frame a play was read from.
#[derive(Debug, Clone, Serialize)]
pub struct FrameAudit {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// For a stored frame: present and matching its hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intact: Option<bool>,
}

/// One event.
#[derive(Debug, Clone, Serialize)]
pub struct EventAudit {
    pub seq: u64,
    pub time: String,
    pub event: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cards: Vec<Card>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<ReadAudit>,
    /// When the recognizer read another number of cards than the event holds (a
    /// correction added or removed a card): both counts, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reads_note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameAudit>,
    /// `right` / `wrong` for plays and no-plays; `void` for an event a correction
    /// voided (it did not happen; `announced` says what was announced for it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// The rule's explanation per card; withheld while the rule is sealed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub explanations: Vec<String>,
    pub explanations_withheld: bool,
    /// Placement, penalties, markers, eliminations, round end, in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub penalties: Vec<String>,
    /// Corrections applied to this event (`ROUND:SEQ` of each `correct` event).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub corrected_by: Vec<String>,
    /// For a corrected event, each field its corrections replaced: what the event
    /// first recorded beside what it records now. The event's `cards` and `player`
    /// are the corrected ones; without this the misread card would be nowhere.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recorded: Vec<FieldChange>,
    /// For a `correct` event: what it corrects and how (`corrects`, `fields`), the
    /// values it replaced (`was`, `null` where the event had none) and all of it in
    /// words (`text`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correction: Option<Value>,
    /// The decision now differs from the one announced when it was recorded, or
    /// the verdicts table's record of that announcement is not what the log then
    /// decided (`unexplained`).
    pub changed: bool,
    /// The verdicts table (outside the hash chain) records as announced something
    /// other than what the referee decided on the log as it stood when the event
    /// was appended (the events before it, with the corrections recorded before
    /// it): no correction can explain that, the table was edited (the audit's
    /// problems say so too, and `verdicts_table` says both).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unexplained: bool,
    /// When `unexplained`: what the verdicts table records as announced and what
    /// the log then decided, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdicts_table: Option<String>,
    /// What was announced at the table, when the decision now differs from it (a
    /// correction changed it): the verdict, the penalties, then every other part
    /// of the decision that differs now. It is what the chained log decided when
    /// the event was appended, not the verdicts table's copy, which anyone with the
    /// file could edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub announced: Option<String>,
    /// Each part of the announced decision that differs from the decision now, as
    /// announced and as it stands.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub announced_parts: Vec<AnnouncedPart>,
    pub hash: String,
}

/// A field of an event that its corrections replaced.
#[derive(Debug, Clone, Serialize)]
pub struct FieldChange {
    /// The table-log field: `cards`, `hand`, `pick`, `prophet_says`, `player`, …
    pub field: String,
    /// As the event first recorded it (`null`: the event did not give it).
    pub recorded: Value,
    /// As the corrections leave it (`null`: a correction removed it).
    pub corrected: Value,
    /// Both in words: `cards: recorded 8S → corrected to 3S`.
    pub text: String,
}

/// A part of the decision announced at the table that differs from the decision
/// now.
#[derive(Debug, Clone, Serialize)]
pub struct AnnouncedPart {
    /// The outcome's field: `right`, `penalties`, `round_end`, `next_turn`, …
    pub part: String,
    /// As announced (`null`: the announcement had none).
    pub announced: Value,
    /// As decided now (`null`: the decision now has none).
    pub now: Value,
    /// The announced part in words.
    pub text: String,
}

fn cards_of(event: &LogEvent) -> Vec<Card> {
    match event {
        LogEvent::Play(p) => p.cards.clone(),
        LogEvent::NoPlay(n) => n.hand.clone(),
        LogEvent::Round(r) => vec![r.starter],
        _ => Vec::new(),
    }
}

/// The cards of a table event as it was recorded, for an event the replay does
/// not account for (voided, or a log that no longer replays); none when the
/// recorded object is not an event.
fn recorded_cards(object: &Map<String, Value>) -> Vec<Card> {
    LogEvent::parse_line(&Value::Object(object.clone()).to_string())
        .map(|event| cards_of(&event))
        .unwrap_or_default()
}

fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn verdict_word(right: Option<bool>) -> Option<String> {
    right.map(|r| if r { "right" } else { "wrong" }.to_string())
}

/// The round's cards as laid so far, to name a card by its laid number: the number
/// the tablet shows on it and the markers and the prophet's marker count by, from 1
/// (the starter).
#[derive(Debug, Default)]
struct Laid {
    count: u32,
    /// Each main-line card and its laid number.
    main: Vec<(Card, u32)>,
}

impl Laid {
    /// The placement in words, naming the cards it lays by their laid numbers and a
    /// sideline by the laid number of the main-line card it hangs under (the
    /// referee's `main[1]` counts the main line alone, from 0); the layout follows.
    fn place(&mut self, placed: &Placement) -> String {
        let first = self.count.saturating_add(1);
        match placed {
            Placement::Main { cards } => {
                for &card in cards {
                    self.count = self.count.saturating_add(1);
                    self.main.push((card, self.count));
                }
                format!(
                    "on the main line: {} ({})",
                    cards_text(cards),
                    laid_numbers(first, self.count)
                )
            }
            Placement::Sideline { after, cards } => {
                self.count = self
                    .count
                    .saturating_add(u32::try_from(cards.len()).unwrap_or(u32::MAX));
                let under = match self.main.get(*after) {
                    Some((card, laid)) => format!("{card} (laid card {laid})"),
                    None => format!("main-line card {}", after + 1),
                };
                format!(
                    "on the sideline under {under}: {} ({})",
                    cards_text(cards),
                    laid_numbers(first, self.count)
                )
            }
        }
    }
}

/// `laid card 4`, `laid cards 4 and 5`, `laid cards 4–7`.
fn laid_numbers(first: u32, last: u32) -> String {
    match last.saturating_sub(first) {
        0 => format!("laid card {first}"),
        1 => format!("laid cards {first} and {last}"),
        _ => format!("laid cards {first}–{last}"),
    }
}

/// `laid card 10`, `laid cards 10, 20`.
fn laid_list(numbers: &[u32]) -> String {
    let list: Vec<String> = numbers.iter().map(u32::to_string).collect();
    match list.len() {
        1 => format!("laid card {}", list.join("")),
        _ => format!("laid cards {}", list.join(", ")),
    }
}

/// The effects of an outcome in words, without the rule's explanations; penalties are
/// listed on their own. The referee's words for the placement (`sideline under
/// main[1] += [8H]`, counting the main line from 0) and the markers (`white marker on
/// [10]`) are said again with laid numbers, so that the audit counts every card one
/// way, from 1, as the tablet and the prophet's marker do. They are found by the
/// words the referee gives each alone, so the order stays the referee's.
fn effects(outcome: &Outcome, laid: &mut Laid) -> Vec<String> {
    let alone = |part: Outcome| {
        part.effects().into_iter().find_map(|effect| match effect {
            Effect::Said(text) => Some(text),
            _ => None,
        })
    };
    let mut reworded: Vec<(String, String)> = Vec::new();
    if let Some(placed) = &outcome.placed {
        let words = laid.place(placed);
        if let Some(said) = alone(Outcome {
            placed: Some(placed.clone()),
            ..Outcome::default()
        }) {
            reworded.push((said, words));
        }
    }
    let white = Outcome {
        white_markers: outcome.white_markers.clone(),
        ..Outcome::default()
    };
    let black = Outcome {
        black_markers: outcome.black_markers.clone(),
        ..Outcome::default()
    };
    for (part, colour, numbers) in [
        (white, "white", &outcome.white_markers),
        (black, "black", &outcome.black_markers),
    ] {
        if numbers.is_empty() {
            continue;
        }
        let plural = if numbers.len() == 1 { "" } else { "s" };
        if let Some(said) = alone(part) {
            reworded.push((
                said,
                format!("{colour} marker{plural} on {}", laid_list(numbers)),
            ));
        }
    }
    outcome
        .effects()
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::Penalty(_) => None,
            Effect::Overthrown(name) => Some(format!("false prophet {name} overthrown")),
            Effect::Said(text) => Some(match reworded.iter().position(|(said, _)| *said == text) {
                Some(i) => reworded.remove(i).1,
                None => text,
            }),
        })
        .collect()
}

/// A table-log value in words: cards as the table writes them, `none` for a value
/// left out or removed.
fn value_words(value: &Value) -> String {
    match value {
        Value::Null => "none".to_string(),
        Value::String(text) => text.clone(),
        Value::Array(items) if items.is_empty() => "none".to_string(),
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

/// A table-log field's name in words.
fn field_words(field: &str) -> &str {
    match field {
        "prophet_says" => "prophet's call",
        "hand" => "shown hand",
        other => other,
    }
}

/// What a correction's `void` says, in words.
fn void_words(value: &Value) -> &'static str {
    if value == &Value::Bool(true) {
        "voided (the event did not happen)"
    } else {
        "void taken back (the event stands)"
    }
}

/// `cards: recorded 8S → corrected to 3S`.
fn change_words(field: &str, recorded: &Value, corrected: &Value) -> String {
    if field == VOID {
        return if corrected == &Value::Bool(true) {
            void_words(corrected).to_string()
        } else {
            "voided, then the void taken back (the event stands)".to_string()
        };
    }
    let name = field_words(field);
    if recorded == corrected {
        format!(
            "{name}: {} as recorded (a correction gave it again)",
            value_words(recorded)
        )
    } else {
        format!(
            "{name}: recorded {} → corrected to {}",
            value_words(recorded),
            value_words(corrected)
        )
    }
}

/// `corrects 1.1:2: cards 8S → 3S`: the event a correction corrects and each field
/// it replaces, from what the event held before it (`replaced`; without it, when the
/// event is not in the log, only the new value).
fn correction_words(c: &Correction, replaced: Option<&Map<String, Value>>) -> String {
    let fields: Vec<String> = c
        .fields
        .iter()
        .map(|(field, value)| {
            if field == VOID {
                return void_words(value).to_string();
            }
            let name = field_words(field);
            match replaced.and_then(|before| before.get(field)) {
                Some(before) => format!("{name} {} → {}", value_words(before), value_words(value)),
                None => format!("{name} now {}", value_words(value)),
            }
        })
        .collect();
    format!("corrects {}:{}: {}", c.target, c.seq, fields.join("; "))
}

/// What the corrections of a game did, field by field, worked out from the stored
/// events alone (so it holds also when the log no longer replays), in the order
/// [`History::effective`] applies them.
#[derive(Debug, Default)]
struct Trails {
    /// `(round number, seq)` of a corrected event → each field its corrections
    /// replaced, as first recorded and as they leave it.
    events: HashMap<(u32, u64), Vec<FieldChange>>,
    /// Entry index of a correction → the corrected event's value of each field it
    /// replaces, just before it (`null`: none).
    replaced: HashMap<usize, Map<String, Value>>,
}

/// A corrected event as the corrections so far leave it, and the fields they
/// replaced, in the order first replaced.
type Mended = (Map<String, Value>, Vec<String>);

fn trails(history: &History) -> Trails {
    let originals: HashMap<(u32, u64), &Map<String, Value>> = history
        .entries
        .iter()
        .filter_map(|entry| match &entry.kind {
            // Only the events a correction may correct: a `round` event read for God
            // holds the sealed rule, which a forged correction naming it must not
            // bring out as a value it "replaced".
            EntryKind::Table(object)
                if matches!(entry.stored.kind.as_str(), "play" | "no_play" | "prophet") =>
            {
                Some(((entry.stored.round.number, entry.stored.seq), object))
            }
            _ => None,
        })
        .collect();
    let mut current: BTreeMap<(u32, u64), Mended> = BTreeMap::new();
    let mut out = Trails::default();
    for (index, entry) in history.entries.iter().enumerate() {
        let EntryKind::Correction(c) = &entry.kind else {
            continue;
        };
        let key = (c.target.number, c.seq);
        let Some(&original) = originals.get(&key) else {
            continue;
        };
        let (object, fields) = current
            .entry(key)
            .or_insert_with(|| (original.clone(), Vec::new()));
        let mut before = Map::new();
        for (field, value) in &c.fields {
            before.insert(
                field.clone(),
                object.get(field).cloned().unwrap_or(Value::Null),
            );
            if value.is_null() {
                object.remove(field);
            } else {
                object.insert(field.clone(), value.clone());
            }
            if !fields.contains(field) {
                fields.push(field.clone());
            }
        }
        out.replaced.insert(index, before);
    }
    for (key, (object, fields)) in current {
        let Some(&original) = originals.get(&key) else {
            continue;
        };
        let changes = fields
            .into_iter()
            .map(|field| {
                let recorded = original.get(&field).cloned().unwrap_or(Value::Null);
                let corrected = object.get(&field).cloned().unwrap_or(Value::Null);
                FieldChange {
                    text: change_words(&field, &recorded, &corrected),
                    field,
                    recorded,
                    corrected,
                }
            })
            .collect();
        out.events.insert(key, changes);
    }
    out
}

/// The parts of a decision in the order the outcome lists them (the order the trace
/// says them in); a part not named here comes after them, by name.
const PARTS: [&str; 20] = [
    "player",
    "right",
    "prophet_call",
    "pick",
    "placed",
    "kept_by",
    "prediction",
    "score_changes",
    "overthrown",
    "covered",
    "penalties",
    "new_hand",
    "prophet_declared",
    "white_markers",
    "black_markers",
    "eliminated",
    "phases",
    "round_end",
    "totals",
    "next_turn",
];

/// Scores by name, in seating order, God last (the names the tally holds that
/// `seating` does not come after, by name).
fn tally_words(value: &Value, seating: &[String]) -> String {
    let Some(map) = value.as_object() else {
        return value_words(value);
    };
    let mut names: Vec<&str> = seating
        .iter()
        .map(String::as_str)
        .filter(|name| map.contains_key(*name))
        .collect();
    names.extend(
        map.keys()
            .map(String::as_str)
            .filter(|name| !seating.iter().any(|s| s == name)),
    );
    names
        .iter()
        .filter_map(|name| map.get(*name).map(|v| format!("{name} {}", value_words(v))))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A part of a decision (an outcome's field, as the verdicts table keeps it) in
/// words, as the referee says it; `None`: the decision has no such part.
fn part_words(part: &str, value: Option<&Value>, seating: &[String]) -> String {
    let text = |key: &str| {
        value
            .and_then(|v| v.get(key))
            .map(value_words)
            .unwrap_or_else(|| "?".to_string())
    };
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return match part {
            "player" => "no player",
            "right" => "no verdict",
            "prophet_call" => "no prophet's call",
            "pick" => "no card taken from the hand",
            "placed" => "no card laid",
            "kept_by" => "no card kept face up",
            "prediction" => "no prediction",
            "score_changes" => "no score change",
            "overthrown" => "no prophet overthrown",
            "covered" => "not covered by the false prophet",
            "penalties" => "no penalty",
            "new_hand" => "no new hand",
            "prophet_declared" => "no prophet",
            "white_markers" => "no white marker",
            "black_markers" => "no black marker",
            "eliminated" => "nobody eliminated",
            "phases" => "no phase change",
            "round_end" => "the round went on",
            "totals" => "no game totals",
            "next_turn" => "nobody to play next (the round was over)",
            other => return format!("no {other}"),
        }
        .to_string();
    };
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|items| items.iter().map(value_words).collect())
            .unwrap_or_else(|| vec![value_words(v)])
    };
    match part {
        "player" => format!("played by {}", value_words(value)),
        "right" => match value.as_bool() {
            Some(true) => "right".to_string(),
            Some(false) => "wrong".to_string(),
            None => value_words(value),
        },
        "prophet_call" => format!(
            "prophet {} said {}, God {}",
            text("prophet"),
            text("said"),
            if value.get("confirmed").and_then(Value::as_bool) == Some(true) {
                "confirms"
            } else {
                "contradicts"
            }
        ),
        "pick" => format!(
            "{} takes {} ({})",
            text("by"),
            text("card"),
            if value.get("accepted").and_then(Value::as_bool) == Some(true) {
                "acceptable"
            } else {
                "not acceptable: back to the hand"
            }
        ),
        "placed" => match value.get("line").and_then(Value::as_str) {
            Some("main") => format!("on the main line: {}", text("cards")),
            Some(_) => format!("on a sideline: {}", text("cards")),
            None => value_words(value),
        },
        "kept_by" => format!("the wrong card stays face up before {}", value_words(value)),
        "prediction" => format!(
            "{} predicted {}: {}",
            text("player"),
            text("says"),
            if value.get("right").and_then(Value::as_bool) == Some(true) {
                "right"
            } else {
                "wrong"
            }
        ),
        "score_changes" => format!("score changes {}", tally_words(value, seating)),
        "overthrown" => format!("false prophet {} overthrown", value_words(value)),
        "covered" if value.as_bool() == Some(true) => {
            "covered by the false prophet: no penalty".to_string()
        }
        "covered" => "not covered by the false prophet".to_string(),
        "penalties" => {
            let list: Vec<String> = value
                .as_array()
                .map(|items| {
                    items
                        .iter()
                        .map(|p| {
                            format!(
                                "{} takes {} penalty cards ({})",
                                p.get("player").map(value_words).unwrap_or_default(),
                                p.get("cards").map(value_words).unwrap_or_default(),
                                p.get("reason").map(value_words).unwrap_or_default()
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            if list.is_empty() {
                "no penalty".to_string()
            } else {
                list.join(", ")
            }
        }
        "new_hand" => format!("new hand of {}", value_words(value)),
        "prophet_declared" => match value.as_array().map(Vec::as_slice) {
            Some([name, marker]) => format!(
                "{} is Prophet, marker on laid card {}",
                value_words(name),
                value_words(marker)
            ),
            _ => format!("prophet {}", value_words(value)),
        },
        "white_markers" | "black_markers" => {
            let numbers: Vec<String> = names(value);
            let colour = part.trim_end_matches("_markers");
            match numbers.len() {
                1 => format!("{colour} marker on laid card {}", numbers.join("")),
                _ => format!("{colour} markers on laid cards {}", numbers.join(", ")),
            }
        }
        "eliminated" => names(value)
            .iter()
            .map(|name| format!("{name} is eliminated"))
            .collect::<Vec<_>>()
            .join(", "),
        "phases" => names(value).join("; "),
        "round_end" => format!(
            "round ends: {}; scores {}",
            text("reason"),
            value
                .get("scores")
                .map(|scores| tally_words(scores, seating))
                .unwrap_or_default()
        ),
        "totals" => format!("game totals {}", tally_words(value, seating)),
        "next_turn" => format!("next: {}", value_words(value)),
        other => format!("{other}: {}", value_words(value)),
    }
}

/// What the table was told, where the decision now differs from it: each part of
/// the two decisions ([`decision`]) that differs, and in words the announced
/// verdict, the announced penalties (what the player heard with the verdict, even
/// when they stand) and every other part that differs — round-end scores, the next
/// turn, markers and the rest.
fn announced(recorded: &Value, now: &Value, seating: &[String]) -> (String, Vec<AnnouncedPart>) {
    let (said, parts) = announced_pieces(recorded, now, seating);
    (said.join("; "), parts)
}

/// [`announced`], its words one piece each.
fn announced_pieces(
    recorded: &Value,
    now: &Value,
    seating: &[String],
) -> (Vec<String>, Vec<AnnouncedPart>) {
    let empty = Map::new();
    let before = recorded.as_object().unwrap_or(&empty);
    let after = now.as_object().unwrap_or(&empty);
    let mut keys: Vec<&String> = before.keys().chain(after.keys()).collect();
    keys.sort_by_key(|key| {
        (
            PARTS
                .iter()
                .position(|part| part == key)
                .unwrap_or(PARTS.len()),
            key.as_str(),
        )
    });
    keys.dedup();
    let parts: Vec<AnnouncedPart> = keys
        .into_iter()
        .filter(|key| before.get(*key) != after.get(*key))
        .map(|key| AnnouncedPart {
            part: key.clone(),
            announced: before.get(key).cloned().unwrap_or(Value::Null),
            now: after.get(key).cloned().unwrap_or(Value::Null),
            text: part_words(key, before.get(key), seating),
        })
        .collect();
    let mut said = vec![part_words("right", before.get("right"), seating)];
    let penalties = before
        .get("penalties")
        .filter(|p| p.as_array().is_some_and(|list| !list.is_empty()));
    if let Some(penalties) = penalties {
        said.push(part_words("penalties", Some(penalties), seating));
    }
    for part in &parts {
        let told = match part.part.as_str() {
            "right" => false,
            "penalties" => penalties.is_none(),
            _ => true,
        };
        if told {
            said.push(part.text.clone());
        }
    }
    (said, parts)
}

/// What a correction changed of an earlier event's decision when it was recorded,
/// in words: `1.1:2: right, on the main line: 4D, no penalty → wrong, Ana takes 2
/// penalty cards (wrong card), on a sideline: 4S`. Each side is said as
/// [`announced`] says what the table was told: the verdict, the penalties, then
/// every other part that differs from the other side; an event that was not in the
/// log on one side (voided) is `void` there, and the other side says its verdict
/// and penalties. An event with no verdict on either side (a prophet's
/// declaration) is said by its parts alone.
fn turned_words(
    event: &str,
    was: Option<&Value>,
    became: Option<&Value>,
    seating: &[String],
) -> String {
    let side = |this: Option<&Value>, other: Option<&Value>, void: &str| -> String {
        let Some(this) = this else {
            return void.to_string();
        };
        let verdictless = |d: &Value| d.get("right").is_none_or(Value::is_null);
        let words = |other: &Value| {
            let (mut pieces, _) = announced_pieces(this, other, seating);
            if verdictless(this) && verdictless(other) && !pieces.is_empty() {
                pieces.remove(0);
            }
            pieces
        };
        let mut pieces = words(other.unwrap_or(this));
        if pieces.is_empty() {
            pieces = words(&Value::Object(Map::new()));
        }
        pieces.join(", ")
    };
    format!(
        "{event}: {} → {}",
        side(was, became, "void"),
        side(became, was, "void (it did not happen)")
    )
}

/// What a correction (a group given on one line counting as one) changed when it
/// was recorded, as the audit's `changed_then` lists it.
fn changed_then_json(
    history: &History,
    turned: &[Turned],
    seating_of: &HashMap<u32, Vec<String>>,
) -> Vec<Value> {
    turned
        .iter()
        .filter_map(|t| {
            let entry = history.entries.get(t.entry)?;
            let event = entry.event_ref();
            let seating = seating_of
                .get(&entry.stored.round.number)
                .map(Vec::as_slice)
                .unwrap_or_default();
            Some(serde_json::json!({
                "text": turned_words(&event, t.was.as_ref(), t.became.as_ref(), seating),
                "was": t.was.clone().unwrap_or(Value::Null),
                "became": t.became.clone().unwrap_or(Value::Null),
                "event": event,
            }))
        })
        .collect()
}

/// The `correct` events of a history in groups, as entry ranges in log order: a
/// correction with the ones given with it on one line (`also`: stored right after
/// it, each marked [`WITH_PREVIOUS`]). A group was checked and stored as one: the
/// log between two of its members may be illegal, so it is never replayed there.
fn correction_groups(history: &History) -> Vec<Range<usize>> {
    let mut groups: Vec<Range<usize>> = Vec::new();
    for (index, entry) in history.entries.iter().enumerate() {
        if !matches!(entry.kind, EntryKind::Correction(_)) {
            continue;
        }
        let with_previous = entry.payload.get(WITH_PREVIOUS) == Some(&Value::Bool(true));
        match groups.last_mut() {
            Some(group) if with_previous && group.end == index => group.end = index + 1,
            _ => groups.push(index..index + 1),
        }
    }
    groups
}

/// An earlier event's decision that a correction (or a group of corrections given
/// on one line) changed when it was recorded: the referee's decision on the log
/// just before it and just after it (`None`: the event was not in that log, being
/// void there).
#[derive(Debug, Clone)]
struct Turned {
    /// The entry index of the event.
    entry: usize,
    was: Option<Value>,
    became: Option<Value>,
}

/// The referee's decision on each table event of a log (by entry index).
type Decisions = HashMap<usize, Value>;

/// What the chained log decided, correction by correction.
#[derive(Debug, Default)]
struct Then {
    /// The decision announced at the table for each table event (by entry index).
    decided: HashMap<usize, Value>,
    /// For the first entry of each correction group whose logs before and after it
    /// both replay: every earlier event whose decision it changed, in log order.
    changed: HashMap<usize, Vec<Turned>>,
}

/// The decision announced at the table for each table event (by entry index), as
/// the chained log decides it: the referee's decision on the log as it stood when
/// the event was appended, that is the events before it with the corrections
/// recorded before it applied. The verdicts table keeps a copy of that decision,
/// outside the hash chain; this is what the copy is held to. And for each
/// correction (a group given on one line counting as one), the earlier events
/// whose decision it changed when it was recorded: the decisions on the log just
/// before it against those on the log just after it.
///
/// The log is replayed once per correction group, up to the group (the events of
/// the stretch before it were all judged under the same corrections), not once per
/// event; the last stretch is the whole log, whose replay (`whole`) the audit
/// already has. An event's decision depends only on the events before it, so the
/// replay up to the next group (or the whole log) gives the decisions just after a
/// group of every event before it: one replay serves as the "after" of one group
/// and the "before" of the next. Each replay that fails is said in `problems`, and
/// what it would have given is left out.
fn decisions_then(
    history: &History,
    factory: &RefereeFactory,
    whole: Option<(&[Effective], &[Outcome])>,
    problems: &mut Vec<String>,
) -> Then {
    let len = history.entries.len();
    let groups = correction_groups(history);
    let cuts: Vec<usize> = groups
        .iter()
        .map(|group| group.start)
        .chain(std::iter::once(len))
        .collect();
    let decisions_of = |effective: &[Effective], outcomes: &[Outcome]| -> Decisions {
        effective
            .iter()
            .zip(outcomes)
            .map(|(effective, outcome)| {
                (
                    effective.entry,
                    decision(&serde_json::to_value(outcome).unwrap_or(Value::Null)),
                )
            })
            .collect()
    };
    let mut then = Then::default();
    // The group before this cut, and the decisions on the log just before it.
    let mut previous: Option<(Range<usize>, Option<Decisions>)> = None;
    let mut start = 0;
    for (k, &end) in cuts.iter().enumerate() {
        let stretch = start..end;
        start = groups.get(k).map_or(len, |group| group.end);
        let judged = history.entries.get(stretch.clone()).is_some_and(|entries| {
            entries
                .iter()
                .any(|entry| matches!(entry.kind, EntryKind::Table(_)))
        });
        let decisions = if end == len {
            // The whole log does not replay: the audit says so already.
            whole.map(|(effective, outcomes)| decisions_of(effective, outcomes))
        } else {
            let before = History {
                game: history.game,
                entries: history.entries[..end].to_vec(),
            };
            let result = before
                .effective(&[])
                .and_then(|eff| before.replay(factory, &eff).map(|(_, out)| (eff, out)));
            match result {
                Ok((effective, outcomes)) => Some(decisions_of(&effective, &outcomes)),
                Err(e) => {
                    let at = history
                        .entries
                        .get(end)
                        .map(Entry::event_ref)
                        .unwrap_or_default();
                    let mut lost = Vec::new();
                    if judged {
                        lost.push("the verdicts announced before it cannot be checked".to_string());
                    }
                    let mut whose: Vec<String> = previous
                        .as_ref()
                        .and_then(|(group, _)| history.entries.get(group.start))
                        .map(Entry::event_ref)
                        .into_iter()
                        .collect();
                    whose.push(at.clone());
                    lost.push(format!(
                        "what {} changed when recorded cannot be said",
                        whose.join(" and ")
                    ));
                    problems.push(format!(
                        "the stored log as it stood before the correction {at} does not replay ({e}): {}",
                        lost.join(", and ")
                    ));
                    None
                }
            }
        };
        if let Some(decisions) = &decisions {
            if judged {
                for (&entry, value) in decisions {
                    if stretch.contains(&entry) {
                        then.decided.insert(entry, value.clone());
                    }
                }
            }
        }
        if let Some((group, Some(before))) = previous.take() {
            if let Some(after) = &decisions {
                let entries: std::collections::BTreeSet<usize> = before
                    .keys()
                    .chain(after.keys())
                    .copied()
                    .filter(|&entry| entry < group.start)
                    .collect();
                let turned: Vec<Turned> = entries
                    .into_iter()
                    .filter(|entry| before.get(entry) != after.get(entry))
                    .map(|entry| Turned {
                        entry,
                        was: before.get(&entry).cloned(),
                        became: after.get(&entry).cloned(),
                    })
                    .collect();
                then.changed.insert(group.start, turned);
            }
        }
        if let Some(group) = groups.get(k) {
            previous = Some((group.clone(), decisions));
        }
    }
    then
}

/// What the table was told for a stored table event: the decision the chained log
/// then decided (`then`), held against the verdicts table's copy of it. A copy
/// that differs, is unreadable or is missing was edited: the event is marked
/// `unexplained` (with both decisions in words) and a problem says so. Falls back
/// on the copy when the log's decision is not known (a stretch that does not
/// replay); `None` when neither is.
fn told_at_the_table(
    store: &Store,
    entry: &Entry,
    then: Option<&Value>,
    seating: &[String],
    audit: &mut EventAudit,
    problems: &mut Vec<String>,
) -> Result<Option<Value>, StoreError> {
    let place = format!("round {} event {}", entry.stored.round, entry.stored.seq);
    let recorded = match store.verdict(entry.stored.id)? {
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(value) => Some(decision(&value)),
            Err(_) => {
                problems.push(format!("{place}: the announced verdict is unreadable"));
                None
            }
        },
        None => {
            if then.is_some() {
                problems.push(format!(
                    "{place}: the verdicts table holds no verdict announced for it: the verdicts table was edited"
                ));
            }
            None
        }
    };
    if let (Some(recorded), Some(then)) = (&recorded, then) {
        if recorded != then {
            problems.push(format!(
                "{place}: the verdict recorded as announced is not what the log then decided: the verdicts table was edited (or this version of eleusis decides the play otherwise)"
            ));
            audit.unexplained = true;
            audit.changed = true;
            audit.verdicts_table = Some(format!(
                "the verdicts table records as announced: {}; the log then decided: {}",
                announced(recorded, then, seating).0,
                announced(then, recorded, seating).0
            ));
        }
    }
    Ok(then.cloned().or(recorded))
}

/// The corrections (`ROUND:SEQ`) that replaced the cards of the table event at
/// `index` (`cards` of a play, `hand` of a no-play), in log order.
fn card_corrections(history: &History, index: usize) -> Vec<String> {
    let Some(target) = history.entries.get(index) else {
        return Vec::new();
    };
    history
        .entries
        .iter()
        .filter(|entry| match &entry.kind {
            EntryKind::Correction(c) => {
                c.target == target.stored.round
                    && c.seq == target.stored.seq
                    && (c.fields.contains_key("cards") || c.fields.contains_key("hand"))
            }
            EntryKind::Table(_) => false,
        })
        .map(Entry::event_ref)
        .collect()
}

/// Why exports of `game` are refused, as the audit found it: its broken chain, or
/// else the first round whose stored rule no longer matches its commitment.
fn refused_exports(
    game: super::GameId,
    chain: &ChainCheck,
    forged_rule: Option<super::RoundRef>,
) -> Option<String> {
    match (&chain.broken_at, forged_rule) {
        (Some(b), _) => Some(format!(
            "game {game}'s hash chain is broken at round {} event {}: the stored events were altered after they were recorded, so nothing is exported from them",
            b.round, b.seq
        )),
        (None, Some(round)) => Some(format!(
            "round {round}'s stored rule no longer matches the commitment made before play: the seals table was altered, so nothing is exported from game {game}"
        )),
        (None, None) => None,
    }
}

/// Builds the audit of a round or a game. `for_god` shows explanations of sealed
/// rounds (God's own audit).
pub fn audit(
    store: &Store,
    factory: &RefereeFactory,
    target: Target,
    for_god: bool,
) -> Result<AuditReport, StoreError> {
    let (game, through) = match target {
        Target::Game(g) => (g, None),
        Target::Round(r) => (r.game, Some(r.number)),
    };
    let infos: Vec<RoundInfo> = store
        .rounds(game)?
        .into_iter()
        .filter(|info| through.is_none_or(|n| info.round.number <= n))
        .collect();
    if let Target::Round(r) = target {
        if !infos.iter().any(|info| info.round == r) {
            return Err(StoreError::UnknownRound(r));
        }
    }
    let mut problems = Vec::new();
    let chain = match store.verify_game(game, through)? {
        ChainStatus::Intact { head, events } => ChainCheck {
            ok: true,
            events,
            head: Some(head),
            broken_at: None,
        },
        ChainStatus::Broken(Break { round, seq, reason }) => ChainCheck {
            ok: false,
            events: 0,
            head: None,
            broken_at: Some(BrokenLink {
                round: round.to_string(),
                seq,
                reason,
            }),
        },
    };

    // The players table indexes the whole game, outside the chain: a game's audit
    // holds it to the names the chained round events state. A round's audit covers
    // only the rounds up to it, which cannot tell a later round's player from a
    // forged name, so it leaves the table to the game's.
    if let Target::Game(_) = target {
        for mismatch in players_index_mismatches(&store.players_index(game)?, &infos) {
            problems.push(format!("game {game}: {mismatch}"));
        }
    }

    // Re-referee the game (the internal view: rules restored) to get the current
    // decisions with corrections applied.
    let history = History::load(store, game, true);
    let replayed = history.as_ref().map_err(|e| e.to_string()).and_then(|h| {
        let (eff, voided) = h.effective_and_voided(&[]).map_err(|e| e.to_string())?;
        let (referee, outcomes) = h.replay(factory, &eff).map_err(|e| e.to_string())?;
        Ok((eff, outcomes, voided, Some(referee)))
    });
    let history = match history {
        Ok(h) => h,
        Err(HistoryError::Store(e)) => return Err(e),
        Err(e) => {
            problems.push(format!("the stored log cannot be read: {e}"));
            let exports_refused = refused_exports(game, &chain, None);
            return Ok(AuditReport {
                game: game.to_string(),
                rounds: Vec::new(),
                chain,
                problems,
                exports_refused,
            });
        }
    };
    let (effective, outcomes, voided, referee) = match replayed {
        Ok(all) => all,
        Err(e) => {
            problems.push(format!("the stored log does not replay: {e}"));
            (Vec::new(), Vec::new(), Vec::new(), None)
        }
    };
    let voided: HashMap<usize, &Voided> = voided.iter().map(|v| (v.entry, v)).collect();
    let whole = referee
        .is_some()
        .then_some((effective.as_slice(), outcomes.as_slice()));
    // A log that does not replay as a whole decides nothing to hold the verdicts
    // table to (the audit shows its events as recorded).
    let then = match whole {
        Some(_) => decisions_then(&history, factory, whole, &mut problems),
        None => Then::default(),
    };
    let decided_then = &then.decided;
    // Each correction group's entries, by the entry of each member.
    let group_of: HashMap<usize, Range<usize>> = correction_groups(&history)
        .into_iter()
        .flat_map(|group| group.clone().map(move |index| (index, group.clone())))
        .collect();
    // Every audited round's seating, to say the scores of an earlier round's event
    // that a later correction changed.
    let seating_of: HashMap<u32, Vec<String>> = infos
        .iter()
        .map(|info| {
            let seating = info
                .players
                .iter()
                .chain(std::iter::once(&info.god))
                .cloned()
                .collect();
            (info.round.number, seating)
        })
        .collect();
    // The rounds the stored log ends: by a round-end decision or `end_game`, or
    // by a later round (one starts only once the one before it has ended), or, for
    // the last, as the referee's state stands at the end of the log.
    let mut ended_rounds: std::collections::HashSet<u32> = std::collections::HashSet::new();
    if let Some(referee) = &referee {
        let mut last_round = None;
        for (eff, outcome) in effective.iter().zip(&outcomes) {
            let Some(entry) = history.entries.get(eff.entry) else {
                continue;
            };
            let number = entry.stored.round.number;
            if let Some(previous) = last_round.filter(|&n| n != number) {
                ended_rounds.insert(previous);
            }
            last_round = Some(number);
            if outcome.round_end.is_some() || matches!(eff.event, LogEvent::EndGame(_)) {
                ended_rounds.insert(number);
            }
        }
        if let Some(last) = last_round {
            if referee.state().ended || referee.ended() {
                ended_rounds.insert(last);
            }
        }
    }

    let trails = trails(&history);
    let position_of: HashMap<usize, usize> = effective
        .iter()
        .enumerate()
        .map(|(position, e)| (e.entry, position))
        .collect();
    let mut rounds = Vec::new();
    let mut forged_rule = None;
    for info in &infos {
        // God, players, variant and commitment below are the chained round event's;
        // the index tables outside the chain must agree with it.
        for mismatch in &info.index_mismatches {
            problems.push(format!("round {}: {mismatch}", info.round));
        }
        let revealed = store.revealed(info.round)?;
        let seal = match &revealed {
            Some(reveal) => {
                let verified = commitment(&reveal.salt, &reveal.rule) == info.commitment;
                if !verified {
                    forged_rule = forged_rule.or(Some(info.round));
                    problems.push(format!(
                        "round {}: the revealed rule and salt do not hash to the commitment",
                        info.round
                    ));
                }
                SealAudit::Revealed {
                    rule: reveal.rule.clone(),
                    salt: reveal.salt.clone(),
                    verified,
                }
            }
            None => {
                // Sealed: the stored rule is what the round is re-refereed under
                // (scores, exports); that it still hashes to the commitment says
                // nothing of the rule itself.
                let sealed = store.seal_for_god(info.round)?;
                if !sealed.matches(&info.commitment) {
                    forged_rule = forged_rule.or(Some(info.round));
                    problems.push(format!(
                        "round {}: the sealed rule and salt do not hash to the commitment made before play: the seals table was edited",
                        info.round
                    ));
                }
                SealAudit::Sealed
            }
        };
        // A rule is revealed only when the round ends (its last play, `end_game`,
        // or a correction that ends it), in the transaction that stores that
        // event, and a correction may not reopen a revealed round. A revealed
        // round whose stored log does not end it lost its end: events were cut
        // off the log, which the hash chain alone cannot show.
        if revealed.is_some() && referee.is_some() && !ended_rounds.contains(&info.round.number) {
            problems.push(format!(
                "round {}: its rule is revealed, but the stored log never ends the round: the events that ended it were cut off the log (the chain cannot show a cut tail: compare the head with the last acknowledged hash)",
                info.round
            ));
        }
        let show_explanations = for_god || revealed.is_some();
        let seating: Vec<String> = seating_of
            .get(&info.round.number)
            .cloned()
            .unwrap_or_default();
        let mut laid = Laid::default();
        let mut events = Vec::new();
        let mut scores = None;
        for (index, entry) in history.entries.iter().enumerate() {
            if entry.stored.round != info.round {
                continue;
            }
            let recorded = entry.recorded_at();
            if let Some(mismatch) = recorded.mismatch {
                problems.push(format!(
                    "round {} event {}: {mismatch}",
                    info.round, entry.stored.seq
                ));
            }
            let mut audit = EventAudit {
                seq: entry.stored.seq,
                time: recorded.shown,
                event: entry.stored.kind.clone(),
                player: None,
                cards: Vec::new(),
                reads: Vec::new(),
                reads_note: None,
                frame: None,
                verdict: None,
                explanations: Vec::new(),
                explanations_withheld: false,
                effects: Vec::new(),
                penalties: Vec::new(),
                corrected_by: Vec::new(),
                recorded: Vec::new(),
                correction: None,
                changed: false,
                unexplained: false,
                verdicts_table: None,
                announced: None,
                announced_parts: Vec::new(),
                hash: entry.stored.hash.clone(),
            };
            if let EntryKind::Correction(c) = &entry.kind {
                let replaced = trails.replaced.get(&index);
                let mut correction = serde_json::json!({
                    "corrects": format!("{}:{}", c.target, c.seq),
                    "fields": c.fields,
                    "text": correction_words(c, replaced),
                });
                if let Some(object) = correction.as_object_mut() {
                    if let Some(replaced) = replaced {
                        object.insert("was".into(), Value::Object(replaced.clone()));
                    }
                    let group = group_of.get(&index).filter(|group| group.len() > 1);
                    if let Some(group) = group {
                        let members: Vec<Value> = group
                            .clone()
                            .filter_map(|i| history.entries.get(i))
                            .map(|member| Value::String(member.event_ref()))
                            .collect();
                        object.insert("group".into(), Value::Array(members));
                    }
                    // What the correction (its line's whole group, said once, at
                    // its first) changed when it was recorded.
                    let turned = then.changed.get(&index).map(Vec::as_slice);
                    let changed =
                        changed_then_json(&history, turned.unwrap_or_default(), &seating_of);
                    if !changed.is_empty() {
                        object.insert("changed_then".into(), Value::Array(changed));
                    }
                }
                audit.correction = Some(correction);
                events.push(audit);
                continue;
            }
            audit.recorded = trails
                .events
                .get(&(entry.stored.round.number, entry.stored.seq))
                .cloned()
                .unwrap_or_default();
            let position = position_of.get(&index).copied();
            let current = position.and_then(|p| effective.get(p).zip(outcomes.get(p)));
            if let Some((eff, outcome)) = current {
                audit.cards = cards_of(&eff.event);
                audit.player = outcome.player.clone();
                audit.verdict = verdict_word(outcome.right);
                if show_explanations {
                    audit.explanations = outcome
                        .verdicts
                        .iter()
                        .map(|v| {
                            format!(
                                "{} {}: {}",
                                v.card,
                                if v.accepted { "accepted" } else { "rejected" },
                                v.explanation
                            )
                        })
                        .collect();
                } else {
                    audit.explanations_withheld = !outcome.verdicts.is_empty();
                }
                audit.effects = effects(outcome, &mut laid);
                if !show_explanations {
                    // A starter God kept though the rule refuses it tells the rule.
                    audit
                        .effects
                        .retain(|e| !crate::referee::round::tells_the_rule(e));
                }
                audit.penalties = outcome.penalties.iter().map(ToString::to_string).collect();
                audit.corrected_by = history.event_refs(&eff.corrected_by);
                if let Some(end) = &outcome.round_end {
                    scores = serde_json::to_value(&end.scores).ok();
                }
                let now = decision(&serde_json::to_value(outcome).unwrap_or(Value::Null));
                if let Some(told) = told_at_the_table(
                    store,
                    entry,
                    decided_then.get(&index),
                    &seating,
                    &mut audit,
                    &mut problems,
                )? {
                    if told != now {
                        let (said, parts) = announced(&told, &now, &seating);
                        audit.changed = true;
                        audit.announced = Some(said);
                        audit.announced_parts = parts;
                    }
                }
            } else if let (Some(void), EntryKind::Table(object)) = (voided.get(&index), &entry.kind)
            {
                // It did not happen: shown as recorded, charged to no one now; what
                // was announced for it stays on record.
                audit.cards = recorded_cards(object);
                audit.verdict = Some("void".into());
                audit.corrected_by = history.event_refs(&void.corrected_by);
                if let Some(told) = told_at_the_table(
                    store,
                    entry,
                    decided_then.get(&index),
                    &seating,
                    &mut audit,
                    &mut problems,
                )? {
                    audit.player = told
                        .get("player")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    audit.changed = true;
                    audit.announced = Some(
                        verdict_word(told.get("right").and_then(Value::as_bool))
                            .unwrap_or_else(|| "no verdict".into()),
                    );
                }
            } else if let EntryKind::Table(object) = &entry.kind {
                // The log does not replay: show the event as recorded.
                audit.cards = recorded_cards(object);
            }
            if let Some(evidence) = entry
                .payload
                .get("evidence")
                .and_then(|v| serde_json::from_value::<Evidence>(v.clone()).ok())
            {
                if !evidence.reads.is_empty() && evidence.reads.len() != audit.cards.len() {
                    audit.reads_note = Some(format!(
                        "the recognizer read {} and the event holds {}: reads and cards are matched in order as far as both go",
                        counted(evidence.reads.len(), "card"),
                        counted(audit.cards.len(), "card")
                    ));
                }
                // How each read stood at the table is judged against the cards
                // recorded then (as the reads table keeps it); a correction made
                // since is said beside it, with the corrections that made it.
                let at_table = match &entry.kind {
                    EntryKind::Table(object) => recorded_cards(object),
                    EntryKind::Correction(_) => Vec::new(),
                };
                let same_count = at_table.len() == audit.cards.len();
                let card_fixes = card_corrections(&history, index);
                audit.reads = evidence
                    .statuses(&at_table)
                    .map(|(i, read, card, status)| {
                        let later = audit
                            .cards
                            .get(i)
                            .copied()
                            .filter(|now| same_count && *now != card);
                        ReadAudit {
                            card,
                            read: read.read,
                            confidence: read.confidence,
                            status,
                            corrected_later_to: later,
                            corrected_later_by: if later.is_some() {
                                card_fixes.clone()
                            } else {
                                Vec::new()
                            },
                            corners: read.corners,
                        }
                    })
                    .collect();
                if evidence.frame_sha256.is_some() || evidence.frame_ref.is_some() {
                    let intact = match &evidence.frame_sha256 {
                        Some(sha) => {
                            let ok = store.frame(sha)?.is_some_and(|bytes| {
                                hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes)) == *sha
                            });
                            if !ok {
                                problems.push(format!(
                                    "round {} event {}: frame {sha} is missing or altered",
                                    info.round, entry.stored.seq
                                ));
                            }
                            Some(ok)
                        }
                        None => None,
                    };
                    audit.frame = Some(FrameAudit {
                        sha256: evidence.frame_sha256.clone(),
                        name: evidence.frame_name.clone(),
                        reference: evidence.frame_ref.clone(),
                        intact,
                    });
                }
            }
            events.push(audit);
        }
        rounds.push(RoundAudit {
            round: info.round.to_string(),
            variant: info.variant.clone(),
            god: info.god.clone(),
            players: info.players.clone(),
            commitment: info.commitment.clone(),
            seal,
            events,
            scores,
        });
    }
    if let Target::Round(r) = target {
        rounds.retain(|a| a.round == r.to_string());
    }
    let exports_refused = refused_exports(game, &chain, forged_rule);
    Ok(AuditReport {
        game: game.to_string(),
        rounds,
        chain,
        problems,
        exports_refused,
    })
}

/// What the audit adds to a correction's line: what it changed when it was
/// recorded (`; at the time it changed 1.1:2: right, … → wrong, …`; a group given
/// on one line says it once, at its first correction: `; at the time, with 1.1:7,
/// it changed …`), and for a later correction of a group, the first one (`; given
/// with 1.1:6 on one line`). `me` is the correction's own `ROUND:SEQ`. Nothing
/// when it changed no decision.
fn correction_then_words(correction: &Value, me: &str) -> String {
    let group: Vec<&str> = correction
        .get("group")
        .and_then(Value::as_array)
        .map(|members| members.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = String::new();
    if let Some(first) = group.first().filter(|first| **first != me) {
        out.push_str(&format!("; given with {first} on one line"));
    }
    let changes: Vec<&str> = correction
        .get("changed_then")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if !changes.is_empty() {
        let others: Vec<&str> = group.iter().copied().filter(|m| *m != me).collect();
        let with = if others.is_empty() {
            String::new()
        } else {
            format!(", with {},", others.join(" and "))
        };
        out.push_str(&format!(
            "; at the time{with} it changed {}",
            changes.join("; ")
        ));
    }
    out
}

/// A recognizer's confidence for people, to two decimals, or as many more as it
/// takes (up to eight, then cut, never rounded up) for a confidence below 1 not to
/// read as 1: `0.9995` is below the model's confirmation threshold, and `1.00`
/// would make it look sure.
pub fn confidence_text(confidence: f64) -> String {
    for decimals in 2..=8 {
        let text = format!("{confidence:.decimals$}");
        if confidence >= 1.0 || text.parse::<f64>().is_ok_and(|shown| shown < 1.0) {
            return text;
        }
    }
    format!("{:.8}", (confidence * 1e8).floor() / 1e8)
}

impl AuditReport {
    /// Whether nothing is wrong: chain intact, seals and frames check, log replays.
    pub fn clean(&self) -> bool {
        self.chain.ok && self.problems.is_empty()
    }

    /// The report for people, one fact per line. Every line goes through
    /// [`printable`]: names and other text from the table log cannot break a line or
    /// forge one (a player named `"x\nchain: OK"` prints as `x\nchain: OK`).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mut line = |text: String| {
            out.push_str(&printable(&text));
            out.push('\n');
        };
        for round in &self.rounds {
            line(format!(
                "round {} ({}): God {}, players {}",
                round.round,
                round.variant,
                round.god,
                round.players.join(", ")
            ));
            match &round.seal {
                SealAudit::Sealed => {
                    line(format!("  rule: sealed, commitment {}", round.commitment))
                }
                SealAudit::Revealed {
                    rule,
                    salt,
                    verified,
                } => {
                    line(format!("  rule: {rule:?}"));
                    line(format!("  salt: {salt}"));
                    line(format!(
                        "  commitment {} — re-hash {}",
                        round.commitment,
                        if *verified { "OK" } else { "MISMATCH" }
                    ));
                }
            }
            for e in &round.events {
                line(format!(
                    "  {}:{} {} {}{}{}",
                    round.round,
                    e.seq,
                    e.time,
                    e.event,
                    e.player
                        .as_ref()
                        .map(|p| format!(" {p}"))
                        .unwrap_or_default(),
                    if e.cards.is_empty() {
                        String::new()
                    } else {
                        format!(" {}", cards_text(&e.cards))
                    }
                ));
                if !e.reads.is_empty() {
                    let reads: Vec<String> = e
                        .reads
                        .iter()
                        .map(|r| {
                            let at_table = match (r.read, r.status) {
                                (Some(read), ReadStatus::Confirmed) => {
                                    format!("{read} {} confirmed", confidence_text(r.confidence))
                                }
                                (Some(read), _) => format!(
                                    "{read} {} corrected to {}",
                                    confidence_text(r.confidence),
                                    r.card
                                ),
                                (None, _) => format!("no index read, typed {}", r.card),
                            };
                            match r.corrected_later_to {
                                Some(now) => format!(
                                    "{at_table}, since corrected to {now} by {}",
                                    r.corrected_later_by.join(", ")
                                ),
                                None => at_table,
                            }
                        })
                        .collect();
                    line(format!("      reads: {}", reads.join("; ")));
                }
                if let Some(note) = &e.reads_note {
                    line(format!("      reads: {note}"));
                }
                if let Some(f) = &e.frame {
                    let mut parts = Vec::new();
                    if let Some(sha) = &f.sha256 {
                        parts.push(format!(
                            "sha256:{sha}{}",
                            match f.intact {
                                Some(false) => " (MISSING OR ALTERED)",
                                _ => "",
                            }
                        ));
                    }
                    if let Some(name) = &f.name {
                        parts.push(format!("file {name}"));
                    }
                    if let Some(r) = &f.reference {
                        parts.push(format!("ref {r}"));
                    }
                    line(format!("      frame: {}", parts.join(", ")));
                }
                if let Some(v) = &e.verdict {
                    line(format!("      verdict: {v}"));
                }
                for x in &e.explanations {
                    line(format!("      because: {x}"));
                }
                if e.explanations_withheld {
                    line("      because: (withheld until the rule is revealed)".to_string());
                }
                for p in &e.penalties {
                    line(format!("      penalty: {p}"));
                }
                for x in &e.effects {
                    line(format!("      {x}"));
                }
                if let Some(c) = &e.correction {
                    match c.get("text").and_then(Value::as_str) {
                        Some(text) => line(format!(
                            "      {text}{}",
                            correction_then_words(c, &format!("{}:{}", round.round, e.seq))
                        )),
                        None => line(format!("      correction: {c}")),
                    }
                }
                if !e.corrected_by.is_empty() {
                    line(format!("      corrected by {}", e.corrected_by.join(", ")));
                }
                for change in &e.recorded {
                    line(format!("      {}", change.text));
                }
                if e.unexplained {
                    line(format!(
                        "      CHANGED with no correction to explain it: {}",
                        e.verdicts_table.as_deref().unwrap_or("?")
                    ));
                }
                if let Some(announced) = &e.announced {
                    line(format!(
                        "      CHANGED by a correction; announced at the table: {announced}"
                    ));
                }
            }
            if let Some(scores) = &round.scores {
                line(format!("  scores: {scores}"));
            }
        }
        match (&self.chain.broken_at, &self.chain.head) {
            (Some(b), _) => line(format!(
                "chain: BROKEN at round {} event {}: {}",
                b.round, b.seq, b.reason
            )),
            (None, Some(head)) => line(format!(
                "chain: OK ({} events, head {head})",
                self.chain.events
            )),
            (None, None) => line("chain: OK".to_string()),
        }
        for p in &self.problems {
            line(format!("problem: {p}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(god: &str, player: &str, problem: &str) -> AuditReport {
        AuditReport {
            game: "1".into(),
            rounds: vec![RoundAudit {
                round: "1.1".into(),
                variant: "basic".into(),
                god: god.into(),
                players: vec![player.into(), "Bo".into()],
                commitment: "ab".into(),
                seal: SealAudit::Sealed,
                events: vec![EventAudit {
                    seq: 2,
                    time: "2024-01-01T00:00:00Z".into(),
                    event: "play".into(),
                    player: Some(player.into()),
                    cards: Vec::new(),
                    reads: Vec::new(),
                    reads_note: None,
                    frame: Some(FrameAudit {
                        sha256: None,
                        name: Some("f\n.jpg".into()),
                        reference: Some("cam\r1".into()),
                        intact: None,
                    }),
                    verdict: Some("wrong".into()),
                    explanations: Vec::new(),
                    explanations_withheld: false,
                    effects: Vec::new(),
                    penalties: vec![format!("{player} takes 2")],
                    corrected_by: Vec::new(),
                    recorded: Vec::new(),
                    correction: None,
                    changed: false,
                    unexplained: false,
                    verdicts_table: None,
                    announced: None,
                    announced_parts: Vec::new(),
                    hash: "cd".into(),
                }],
                scores: None,
            }],
            chain: ChainCheck {
                ok: false,
                events: 0,
                head: None,
                broken_at: Some(BrokenLink {
                    round: "1.1".into(),
                    seq: 2,
                    reason: "hash mismatch".into(),
                }),
            },
            problems: vec![problem.into()],
            exports_refused: None,
        }
    }

    #[test]
    fn a_confidence_below_one_is_never_shown_as_one() {
        assert_eq!(confidence_text(0.41), "0.41");
        assert_eq!(confidence_text(0.97), "0.97");
        assert_eq!(confidence_text(1.0), "1.00");
        assert_eq!(confidence_text(0.9995), "0.9995");
        assert_eq!(confidence_text(0.999699), "0.9997");
        assert_eq!(confidence_text(0.996), "0.996");
        assert_eq!(confidence_text(0.99999999999), "0.99999999");
        for c in [0.995, 0.9999, 0.99995, 0.999_999_5] {
            assert!(confidence_text(c).starts_with("0.99"), "{c}");
        }
    }

    #[test]
    fn names_cannot_break_or_forge_lines_of_the_text_report() {
        let forged = "Ana\nchain: OK (9 events, head ff)\r";
        let plain = report("Gil", "Ana", "round 1.1: x").to_text();
        let text = report(
            "Gil\u{202e}",
            forged,
            "round 1.1: the rounds table says God \"M\nchain: OK\"",
        )
        .to_text();
        assert_eq!(
            text.lines().count(),
            plain.lines().count(),
            "no extra line: {text}"
        );
        assert!(!text.contains('\r') && !text.contains('\u{202e}'), "{text}");
        assert!(
            !text.lines().any(|l| l.starts_with("chain: OK")),
            "a forged chain line: {text}"
        );
        assert!(text.starts_with(
            "round 1.1 (basic): God Gil\\u{202e}, players Ana\\nchain: OK (9 events, head ff)\\r, Bo\n"
        ));
        assert!(text.contains("  1.1:2 2024-01-01T00:00:00Z play Ana\\nchain: OK"));
        assert!(text.contains("      penalty: Ana\\nchain: OK (9 events, head ff)\\r takes 2\n"));
        assert!(text.contains("      frame: file f\\n.jpg, ref cam\\r1\n"));
        assert!(text.contains("chain: BROKEN at round 1.1 event 2: hash mismatch\n"));
        assert!(text.ends_with("problem: round 1.1: the rounds table says God \"M\\nchain: OK\"\n"));
    }

    #[test]
    fn markers_and_sidelines_are_counted_by_laid_numbers_from_one() {
        let card = |text: &str| text.parse::<Card>().expect("card");
        let mut laid = Laid::default();
        let starter = Outcome {
            placed: Some(Placement::Main {
                cards: vec![card("3H")],
            }),
            ..Outcome::default()
        };
        assert_eq!(
            effects(&starter, &mut laid),
            ["on the main line: 3H (laid card 1)"]
        );
        let wrong = Outcome {
            placed: Some(Placement::Sideline {
                after: 0,
                cards: vec![card("8H"), card("9H")],
            }),
            ..Outcome::default()
        };
        assert_eq!(
            effects(&wrong, &mut laid),
            ["on the sideline under 3H (laid card 1): 8H 9H (laid cards 2 and 3)"]
        );
        let right = Outcome {
            placed: Some(Placement::Main {
                cards: vec![card("4S"), card("6S"), card("8S")],
            }),
            white_markers: vec![5],
            black_markers: vec![4, 6],
            eliminated: vec!["Bo".into()],
            ..Outcome::default()
        };
        assert_eq!(
            effects(&right, &mut laid),
            [
                "on the main line: 4S 6S 8S (laid cards 4–6)",
                "white marker on laid card 5",
                "black markers on laid cards 4, 6",
                "Bo is eliminated"
            ]
        );
        // Under the second main-line card, which is laid card 4.
        let side = Outcome {
            placed: Some(Placement::Sideline {
                after: 1,
                cards: vec![card("KD")],
            }),
            ..Outcome::default()
        };
        assert_eq!(
            effects(&side, &mut laid),
            ["on the sideline under 4S (laid card 4): KD (laid card 7)"]
        );
    }

    #[test]
    fn what_was_announced_names_every_part_that_differs() {
        use serde_json::json;
        let seating = ["Ana".to_string(), "Bo".to_string(), "Gil".to_string()];
        // Only whose turn it is differs.
        let (said, parts) = announced(
            &json!({"right": true, "next_turn": "Bo"}),
            &json!({"right": true, "next_turn": "Ana"}),
            &seating,
        );
        assert_eq!(said, "right; next: Bo");
        assert_eq!(parts.len(), 1);
        assert_eq!(
            (parts[0].part.as_str(), &parts[0].announced, &parts[0].now),
            ("next_turn", &json!("Bo"), &json!("Ana"))
        );
        // The round ended then and goes on now: its end and its scores as announced
        // (seating order, God last), and nobody to play after it.
        let (said, _) = announced(
            &json!({"right": true, "round_end": {"reason": "Bo has no cards left",
                    "scores": {"Gil": 4, "Bo": 7, "Ana": 0}}}),
            &json!({"right": true, "next_turn": "Ana"}),
            &seating,
        );
        assert_eq!(
            said,
            "right; round ends: Bo has no cards left; scores Ana 0, Bo 7, Gil 4; nobody to play next (the round was over)"
        );
        // The penalties announced are said with the verdict even where they stand.
        let penalty = json!([{"player": "Ana", "cards": 2, "reason": "wrong card"}]);
        let (said, parts) = announced(
            &json!({"right": false, "penalties": penalty, "white_markers": [10]}),
            &json!({"right": false, "penalties": penalty}),
            &seating,
        );
        assert_eq!(
            said,
            "wrong; Ana takes 2 penalty cards (wrong card); white marker on laid card 10"
        );
        assert_eq!(parts.len(), 1);
        let (said, _) = announced(
            &json!({"right": true}),
            &json!({"right": false, "penalties": penalty}),
            &seating,
        );
        assert_eq!(said, "right; no penalty");
    }

    #[test]
    fn what_a_correction_changed_then_is_said_side_by_side() {
        use serde_json::json;
        let seating = ["Ana".to_string(), "Bo".to_string(), "Gil".to_string()];
        let penalty = json!([{"player": "Ana", "cards": 2, "reason": "wrong card"}]);
        let right = json!({"right": true, "placed": {"line": "main", "cards": ["4D"]}});
        let wrong = json!({"right": false, "penalties": penalty,
                           "placed": {"line": "sideline", "cards": ["4S"]}});
        assert_eq!(
            turned_words("1.1:2", Some(&right), Some(&wrong), &seating),
            "1.1:2: right, on the main line: 4D, no penalty → wrong, Ana takes 2 penalty cards (wrong card), on a sideline: 4S"
        );
        // Voided, and the void taken back: its verdict and penalties on one side.
        assert_eq!(
            turned_words("1.1:2", Some(&wrong), None, &seating),
            "1.1:2: wrong, Ana takes 2 penalty cards (wrong card) → void (it did not happen)"
        );
        assert_eq!(
            turned_words("1.1:2", None, Some(&right), &seating),
            "1.1:2: void → right"
        );
        // A prophet's declaration has no verdict: its parts alone.
        let marker = |at: u32| json!({"player": "Bo", "prophet_declared": ["Bo", at]});
        assert_eq!(
            turned_words("1.1:5", Some(&marker(3)), Some(&marker(4)), &seating),
            "1.1:5: Bo is Prophet, marker on laid card 3 → Bo is Prophet, marker on laid card 4"
        );
        assert_eq!(
            turned_words("1.1:5", Some(&marker(3)), None, &seating),
            "1.1:5: played by Bo, Bo is Prophet, marker on laid card 3 → void (it did not happen)"
        );
        // On the correction's line: once, at the group's first correction.
        let item = json!({"text": "1.1:2: right → wrong"});
        let alone = json!({"changed_then": [item]});
        assert_eq!(
            correction_then_words(&alone, "1.1:4"),
            "; at the time it changed 1.1:2: right → wrong"
        );
        let first = json!({"group": ["1.1:6", "1.1:7"], "changed_then": [item, item]});
        assert_eq!(
            correction_then_words(&first, "1.1:6"),
            "; at the time, with 1.1:7, it changed 1.1:2: right → wrong; 1.1:2: right → wrong"
        );
        let later = json!({"group": ["1.1:6", "1.1:7"]});
        assert_eq!(
            correction_then_words(&later, "1.1:7"),
            "; given with 1.1:6 on one line"
        );
        assert_eq!(correction_then_words(&json!({}), "1.1:4"), "");
    }
}
