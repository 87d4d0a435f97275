//! A game's stored log read back in the referee's terms: table-log events with their
//! sealed rules restored, corrections applied, and re-refereed from scratch.
//!
//! Corrections are events of their own (a table-log extension):
//!
//! ```json
//! {"event":"correct","seq":12,"cards":["8D"]}
//! {"event":"correct","round":1,"seq":7,"prophet_says":"right"}
//! ```
//!
//! `seq` names the corrected event in round `round` of the game (default: the
//! current round); every other field replaces the field of that name in the corrected
//! event (`null` removes it). Only `play`, `no_play` and `prophet` events can be
//! corrected. The state is the replay of the *effective* log: every event with all of
//! its corrections applied, the `correct` events themselves left out.
//!
//! `{"event":"correct","seq":12,"void":true}` says the event did not happen (a play
//! entered twice, or for the wrong player): it stays in the log, for the audit, but
//! is left out of the effective log. `"void":null` takes a void back.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::chain::Break;
use super::log::{ChainStatus, StoredEvent};
use super::{format_utc, GameId, RoundRef, Store, StoreError};
use crate::referee::{Game, LogEvent, Outcome, RefereeError};

/// Makes a fresh referee for a game. The CLI uses [`standard_referee`]; tests may
/// judge with closures.
pub type RefereeFactory = Arc<dyn Fn() -> Game + Send + Sync>;

/// The referee judging with the rule language.
pub fn standard_referee() -> RefereeFactory {
    Arc::new(Game::new)
}

/// Annotations the store adds to a table-log event; not part of the table log.
pub const ANNOTATIONS: [&str; 3] = ["at", "commitment", "evidence"];

/// The mark the store puts on each correction of a group after the first (a
/// correction line with `also`): the group was checked and stored as one, and its
/// corrections before this one alone may leave the log illegal (a prophet's call
/// corrected on one play and removed from the next, say). Not a field to replace.
pub const WITH_PREVIOUS: &str = "with_previous";

/// The correction field that says its event did not happen (`true`), or did after
/// all (`null`, a void taken back). Not a table-log field: it never reaches the
/// referee.
pub const VOID: &str = "void";

/// A correction as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Correction {
    /// The corrected event.
    pub target: RoundRef,
    pub seq: u64,
    /// Field → new value (`null` removes the field).
    pub fields: Map<String, Value>,
}

/// What a stored event is.
#[derive(Debug, Clone)]
pub enum EntryKind {
    /// A table-log event, as recorded, as a JSON object without annotations (a
    /// `round` event carries its rule only when the log was read for God).
    Table(Map<String, Value>),
    Correction(Correction),
}

/// One stored event, decoded.
#[derive(Debug, Clone)]
pub struct Entry {
    pub stored: StoredEvent,
    /// The chained payload, parsed.
    pub payload: Map<String, Value>,
    pub kind: EntryKind,
}

impl Entry {
    /// The event's `ROUND:SEQ`, as acknowledgements, views and audits name it.
    pub fn event_ref(&self) -> String {
        format!("{}:{}", self.stored.round, self.stored.seq)
    }

    /// When the event was recorded, as its chained payload states it (`at`). The
    /// events table's `recorded_ms` column is outside the hash chain: whoever holds
    /// the file could move an event in time there without breaking a link, so the
    /// time shown is the chained one, and [`RecordedAt::mismatch`] says when the
    /// column disagrees (or the payload has no time, and the column's is shown,
    /// unverified).
    pub fn recorded_at(&self) -> RecordedAt {
        let indexed = format_utc(self.stored.recorded_ms);
        match self.payload.get("at").and_then(Value::as_str) {
            Some(chained) if chained == indexed => RecordedAt {
                shown: indexed,
                mismatch: None,
            },
            Some(chained) => RecordedAt {
                shown: chained.to_string(),
                mismatch: Some(format!(
                    "the events table says recorded at {indexed}, the chained event {chained}"
                )),
            },
            None => RecordedAt {
                mismatch: Some(format!(
                    "the chained event carries no time; the events table's {indexed} is shown, unverified"
                )),
                shown: indexed,
            },
        }
    }
}

/// An event's time for display, and how the index column disagrees with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedAt {
    /// RFC 3339 UTC with milliseconds, as stored in the chained payload.
    pub shown: String,
    pub mismatch: Option<String>,
}

/// Why a stored log cannot be re-refereed.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("round {round} event {seq}: stored payload is not readable: {reason}")]
    Payload {
        round: RoundRef,
        seq: u64,
        reason: String,
    },
    #[error("round {round} event {seq}: {reason}")]
    Rejected {
        round: RoundRef,
        seq: u64,
        reason: String,
    },
    #[error("correction: {0}")]
    BadCorrection(String),
    #[error("game {game}'s hash chain is broken at {broken}: the stored events were altered after they were recorded, so nothing is exported from them; run `eleusis audit {game}` to see where")]
    BrokenChain { game: GameId, broken: Break },
    /// A round's stored rule (the `seals` table, outside the hash chain) no longer
    /// hashes to the commitment its chained `round` event made before play: every
    /// decision re-refereed under it, and so every score, would be forged while the
    /// chain itself still holds.
    #[error("game {game}: round {round}'s stored rule no longer matches the commitment made before play ({what}): the seals table was altered after the round began, so nothing is exported from the game; run `eleusis audit {game}` to see it")]
    ForgedRule {
        game: GameId,
        round: RoundRef,
        /// How it fails: the re-hash differs, or no rule is stored at all.
        what: String,
    },
}

impl HistoryError {
    /// Whether the error says the game's stored record does not check (a broken
    /// hash chain, a rule that no longer matches its commitment), as opposed to a
    /// database that cannot be read: a backup copies such a game as evidence.
    pub fn is_tampering(&self) -> bool {
        matches!(
            self,
            HistoryError::BrokenChain { .. } | HistoryError::ForgedRule { .. }
        )
    }
}

/// Refuses a game (up to round `through`) whose hash chain no longer holds, or one
/// of whose stored rules no longer hashes to the commitment its chained `round`
/// event made before play: an export or score sheet made from altered events, or
/// re-refereed under an altered rule, would look as good as a true one, and only
/// `eleusis audit` would have said otherwise. Every round's rule is checked, sealed
/// or revealed (re-refereeing uses both; the check says nothing of the rule).
pub fn require_intact_chain(
    store: &Store,
    game: GameId,
    through: Option<u32>,
) -> Result<(), HistoryError> {
    if let ChainStatus::Broken(broken) = store.verify_game(game, through)? {
        return Err(HistoryError::BrokenChain { game, broken });
    }
    for info in store.rounds(game)? {
        if through.is_some_and(|last| info.round.number > last) {
            continue;
        }
        let what = match store.seal_for_god(info.round) {
            Ok(seal) if seal.matches(&info.commitment) => continue,
            Ok(_) => "its rule and salt do not re-hash to it".to_string(),
            Err(StoreError::Inconsistent { what, .. }) => what,
            Err(e) => return Err(e.into()),
        };
        return Err(HistoryError::ForgedRule {
            game,
            round: info.round,
            what,
        });
    }
    Ok(())
}

/// A correction to apply: the entry it is stored at (`None` for one not yet
/// stored) and the correction.
type Fix<'a> = (Option<usize>, &'a Correction);

/// A game's log, decoded.
#[derive(Debug, Clone)]
pub struct History {
    pub game: GameId,
    pub entries: Vec<Entry>,
}

/// One event of the effective log: which stored entry it comes from, the event
/// with its corrections applied, and the corrections (indices into `entries`).
#[derive(Debug, Clone)]
pub struct Effective {
    pub entry: usize,
    pub event: LogEvent,
    pub corrected_by: Vec<usize>,
}

/// A stored event a correction voided: left out of the effective log, kept for the
/// views and the audit (struck through, with the corrections that voided it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voided {
    pub entry: usize,
    pub corrected_by: Vec<usize>,
}

/// The places of each stored event in two effective logs of one history (before
/// and after a correction), in log order: `(Some(i), Some(j))` for an event in
/// both, `(Some(i), None)` for one the correction voided, `(None, Some(j))` for one
/// whose void it took back. Voids shift positions, so logs are paired by entry,
/// never zipped.
pub fn paired(before: &[Effective], after: &[Effective]) -> Vec<(Option<usize>, Option<usize>)> {
    let mut places: BTreeMap<usize, (Option<usize>, Option<usize>)> = BTreeMap::new();
    for (i, e) in before.iter().enumerate() {
        places.entry(e.entry).or_default().0 = Some(i);
    }
    for (j, e) in after.iter().enumerate() {
        places.entry(e.entry).or_default().1 = Some(j);
    }
    places.into_values().collect()
}

/// Reads a correction line's own fields.
pub fn parse_correction(
    object: &Map<String, Value>,
    current: Option<RoundRef>,
) -> Result<Correction, String> {
    let seq = match object.get("seq") {
        Some(Value::Number(n)) => n.as_u64().filter(|&n| n > 0),
        _ => None,
    }
    .ok_or("\"seq\" must be the positive sequence number of the corrected event")?;
    // Evidence is what the camera saw of a play when it was made; a correction
    // changes the record, not what was seen ("unknown field" would read as a slip).
    if object.contains_key("evidence") {
        return Err("a correction carries no evidence: the frame and reads stay those kept with the corrected event (the audit shows them beside the corrected cards)".to_string());
    }
    let game_round = current.ok_or("no round has been recorded in this game yet")?;
    let target = match object.get("round") {
        None => game_round,
        Some(Value::Number(n)) => {
            let number = n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|&n| n > 0)
                .ok_or("\"round\" must be a positive round number in this game")?;
            RoundRef {
                game: game_round.game,
                number,
            }
        }
        Some(other) => {
            return Err(format!(
                "\"round\" must be a number, got {}",
                crate::json_input::shown(other)
            ))
        }
    };
    let fields: Map<String, Value> = object
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "event" | "seq" | "round" | "at" | WITH_PREVIOUS))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if fields.is_empty() {
        return Err("a correction must give at least one field to replace (e.g. \"cards\")".into());
    }
    if let Some(void) = fields.get(VOID) {
        if !matches!(void, Value::Bool(true) | Value::Null) {
            return Err(format!(
                "\"void\" must be true (the event did not happen) or null (it did after all), got {}",
                crate::json_input::shown(void)
            ));
        }
        if void.is_boolean()
            && fields
                .keys()
                .any(|k| k != VOID && !ANNOTATIONS.contains(&k.as_str()))
        {
            return Err(
                "a correction that voids an event replaces none of its fields: send \"void\":true alone".into(),
            );
        }
    }
    Ok(Correction {
        target,
        seq,
        fields,
    })
}

/// `object` without the store's [`ANNOTATIONS`]: the table-log fields alone (of an
/// event, or of what a correction gives it).
pub fn strip_annotations(mut object: Map<String, Value>) -> Map<String, Value> {
    for key in ANNOTATIONS {
        object.remove(key);
    }
    object
}

impl History {
    /// Reads a game's log. With `for_god`, `round` events get their sealed rule back
    /// (needed to re-referee); otherwise they carry only the commitment.
    pub fn load(store: &Store, game: GameId, for_god: bool) -> Result<History, HistoryError> {
        let mut entries = Vec::new();
        for stored in store.events(game)? {
            let bad = |reason: String| HistoryError::Payload {
                round: stored.round,
                seq: stored.seq,
                reason,
            };
            let payload: Map<String, Value> = match serde_json::from_str(&stored.payload) {
                Ok(Value::Object(map)) => map,
                Ok(_) => return Err(bad("not a JSON object".into())),
                Err(e) => return Err(bad(e.to_string())),
            };
            let kind = if stored.kind == "correct" {
                EntryKind::Correction(parse_correction(&payload, Some(stored.round)).map_err(bad)?)
            } else {
                let mut object = strip_annotations(payload.clone());
                if stored.kind == "round" && for_god {
                    let seal = store.seal_for_god(stored.round)?;
                    object.insert("rule".into(), Value::String(seal.for_god().to_string()));
                }
                EntryKind::Table(object)
            };
            entries.push(Entry {
                stored,
                payload,
                kind,
            });
        }
        Ok(History { game, entries })
    }

    /// The effective log: corrections applied, in log order, voided events left
    /// out. The `extra` corrections (not yet stored) are applied after the stored
    /// ones, together.
    pub fn effective(&self, extra: &[Correction]) -> Result<Vec<Effective>, HistoryError> {
        self.effective_and_voided(extra)
            .map(|(effective, _)| effective)
    }

    /// [`History::effective`], and the events the corrections voided, in log order.
    pub fn effective_and_voided(
        &self,
        extra: &[Correction],
    ) -> Result<(Vec<Effective>, Vec<Voided>), HistoryError> {
        let mut fixes: BTreeMap<(u32, u64), Vec<Fix<'_>>> = BTreeMap::new();
        for (index, entry) in self.entries.iter().enumerate() {
            if let EntryKind::Correction(c) = &entry.kind {
                fixes
                    .entry((c.target.number, c.seq))
                    .or_default()
                    .push((Some(index), c));
            }
        }
        for c in extra {
            fixes
                .entry((c.target.number, c.seq))
                .or_default()
                .push((None, c));
        }
        let mut out = Vec::new();
        let mut voided = Vec::new();
        for (index, entry) in self.entries.iter().enumerate() {
            let EntryKind::Table(object) = &entry.kind else {
                continue;
            };
            let key = (entry.stored.round.number, entry.stored.seq);
            let mut object = object.clone();
            let mut corrected_by = Vec::new();
            let mut fixed = false;
            if let Some(list) = fixes.remove(&key) {
                fixed = true;
                if !matches!(entry.stored.kind.as_str(), "play" | "no_play" | "prophet") {
                    return Err(HistoryError::BadCorrection(format!(
                        "round {} event {} is a {:?} event; only play, no_play and prophet events can be corrected",
                        entry.stored.round, entry.stored.seq, entry.stored.kind
                    )));
                }
                for (source, c) in list {
                    for (field, value) in &c.fields {
                        if field == "event" {
                            return Err(HistoryError::BadCorrection(
                                "the kind of an event cannot be corrected".into(),
                            ));
                        }
                        if field == "player" && value.is_null() && object.contains_key(field) {
                            // The stored name is what lets a later correction be
                            // checked against the turn order; without it, a play
                            // could be charged to whoever's turn it then became.
                            return Err(HistoryError::BadCorrection(format!(
                                "the player of round {} event {} cannot be removed: the stored event names who played it",
                                entry.stored.round, entry.stored.seq
                            )));
                        }
                        if value.is_null() {
                            object.remove(field);
                        } else {
                            object.insert(field.clone(), value.clone());
                        }
                    }
                    corrected_by.extend(source);
                }
            }
            // Only a correction voids: a stored event's own field of that name is
            // refused below as unknown, like any other.
            if fixed && object.get(VOID) == Some(&Value::Bool(true)) {
                voided.push(Voided {
                    entry: index,
                    corrected_by,
                });
                continue;
            }
            let text = Value::Object(object).to_string();
            let event = LogEvent::parse_line(&text).map_err(|e| HistoryError::Rejected {
                round: entry.stored.round,
                seq: entry.stored.seq,
                reason: e.reason,
            })?;
            out.push(Effective {
                entry: index,
                event,
                corrected_by,
            });
        }
        if let Some(((round, seq), _)) = fixes.into_iter().next() {
            return Err(HistoryError::BadCorrection(self.no_target(round, seq)));
        }
        Ok((out, voided))
    }

    /// Why event `seq` of round `round` could not be corrected, once no table-log
    /// event answered to it: it may be a correction itself (corrections are not
    /// table-log events, so they cannot be corrected, but the event they corrected
    /// can be corrected again), or not be there at all.
    fn no_target(&self, round: u32, seq: u64) -> String {
        let at = RoundRef {
            game: self.game,
            number: round,
        };
        let found = self
            .entries
            .iter()
            .find(|e| e.stored.round == at && e.stored.seq == seq);
        match found.map(|e| &e.kind) {
            Some(EntryKind::Correction(original)) if original.target == at => format!(
                "round {at} event {seq} is a correction; correct the original event {} instead",
                original.seq
            ),
            Some(EntryKind::Correction(original)) => format!(
                "round {at} event {seq} is a correction; correct the original event {} of round {} instead (with \"round\":{})",
                original.seq, original.target, original.target.number
            ),
            _ => format!("round {at} has no event {seq} to correct"),
        }
    }

    /// The `ROUND:SEQ` of the entries at `indices` (the corrections an
    /// [`Effective`] or a [`Voided`] names).
    pub fn event_refs(&self, indices: &[usize]) -> Vec<String> {
        indices
            .iter()
            .filter_map(|&i| self.entries.get(i))
            .map(Entry::event_ref)
            .collect()
    }

    /// Re-referees an effective log from scratch.
    pub fn replay(
        &self,
        factory: &RefereeFactory,
        effective: &[Effective],
    ) -> Result<(Game, Vec<Outcome>), HistoryError> {
        let mut game = factory();
        let mut outcomes = Vec::with_capacity(effective.len());
        for item in effective {
            let outcome = game.apply(&item.event).map_err(|e: RefereeError| {
                let (round, seq) = self
                    .entries
                    .get(item.entry)
                    .map(|entry| (entry.stored.round, entry.stored.seq))
                    .unwrap_or((
                        RoundRef {
                            game: self.game,
                            number: 0,
                        },
                        0,
                    ));
                // A stored log only meets a finished round mid-way when a
                // correction moved the round's end: say how to get there.
                let reason = match e {
                    RefereeError::RoundOver { .. } => format!(
                        "{e} (a correction that ends the round earlier needs the events after that point voided first, newest first: {{\"event\":\"correct\",\"seq\":N,\"void\":true}})"
                    ),
                    other => other.to_string(),
                };
                HistoryError::Rejected { round, seq, reason }
            })?;
            outcomes.push(outcome);
        }
        Ok((game, outcomes))
    }

    /// The round the game is in (the last one started).
    pub fn current_round(&self) -> Option<RoundRef> {
        self.entries.last().map(|e| e.stored.round)
    }
}

/// The part of an outcome that is a decision, to tell whether a correction changed
/// a verdict. Left out: explanations and warnings (words, not decisions); the
/// per-card verdicts (`verdicts`: the table is told whether the play or the
/// declaration was right, which `right` holds, and what God took, which `pick`
/// holds, never which card of a wrong sequence failed); and the main-line card a
/// sideline hangs under (`placed.after`): a correction that puts an earlier card on
/// the main line moves every later sideline along by one without deciding anything
/// new about those plays.
pub fn decision(outcome: &Value) -> Value {
    fn strip(value: &Value, in_placed: bool) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| {
                        let words = matches!(k.as_str(), "explanation" | "warnings" | "verdicts");
                        let anchor = in_placed && k.as_str() == "after";
                        !(words || anchor)
                    })
                    .map(|(k, v)| (k.clone(), strip(v, k.as_str() == "placed")))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|v| strip(v, false)).collect()),
            other => other.clone(),
        }
    }
    strip(outcome, false)
}

/// The table log of a game, or of a game up to and including one round (the
/// replay state includes the game's totals, so a round needs the rounds before it):
/// the effective events, corrections applied, one line each, that `eleusis replay`
/// re-referees to the stored state. Rules are restored only for revealed rounds,
/// or for every round with `for_god`; a sealed round is refused otherwise.
pub fn export_log(
    store: &Store,
    target: super::Target,
    for_god: bool,
) -> Result<Vec<String>, HistoryError> {
    let (game, through) = match target {
        super::Target::Game(g) => (g, None),
        super::Target::Round(r) => (r.game, Some(r.number)),
    };
    let rounds = store.rounds(game)?;
    if let super::Target::Round(r) = target {
        if !rounds.iter().any(|info| info.round == r) {
            return Err(StoreError::UnknownRound(r).into());
        }
    }
    for info in &rounds {
        if through.is_none_or(|n| info.round.number <= n) && !for_god && info.revealed_ms.is_none()
        {
            return Err(StoreError::Sealed(info.round).into());
        }
    }
    require_intact_chain(store, game, through)?;
    let history = History::load(store, game, true)?;
    let effective = history.effective(&[])?;
    Ok(effective
        .iter()
        .filter(|e| {
            history
                .entries
                .get(e.entry)
                .is_some_and(|entry| through.is_none_or(|n| entry.stored.round.number <= n))
        })
        .map(|e| e.event.to_line())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn round(number: u32) -> RoundRef {
        RoundRef {
            game: GameId(4),
            number,
        }
    }

    #[test]
    fn corrections_name_their_target_and_fields() {
        let c = parse_correction(
            &object(json!({"event":"correct","seq":12,"cards":["8D"]})),
            Some(round(2)),
        )
        .expect("correction");
        assert_eq!((c.target, c.seq), (round(2), 12));
        assert_eq!(c.fields.get("cards"), Some(&json!(["8D"])));
        let c = parse_correction(
            &object(json!({"event":"correct","round":1,"seq":3,"pick":null})),
            Some(round(2)),
        )
        .expect("correction");
        assert_eq!(c.target, round(1));
        assert_eq!(c.fields.get("pick"), Some(&Value::Null));
    }

    #[test]
    fn malformed_corrections_are_explained() {
        let cases = [
            (json!({"event":"correct","cards":["8D"]}), "\"seq\""),
            (json!({"event":"correct","seq":0,"cards":["8D"]}), "\"seq\""),
            (
                json!({"event":"correct","seq":"3","cards":["8D"]}),
                "\"seq\"",
            ),
            (json!({"event":"correct","seq":3}), "at least one field"),
            (
                json!({"event":"correct","seq":3,"round":0,"cards":[]}),
                "\"round\"",
            ),
            (
                json!({"event":"correct","seq":3,"round":"1","cards":[]}),
                "\"round\"",
            ),
        ];
        for (value, expected) in cases {
            let err = parse_correction(&object(value.clone()), Some(round(1))).unwrap_err();
            assert!(err.contains(expected), "{value}: {err}");
        }
        let err = parse_correction(&object(json!({"event":"correct","seq":1,"cards":[]})), None)
            .unwrap_err();
        assert!(err.contains("no round"), "{err}");
    }

    #[test]
    fn a_correction_of_a_correction_names_the_original_event() {
        use crate::store::recorder::{Recorder, Reply};
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(&dir.path().join("h.db")).expect("open");
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let texts = [
            r#"{"event":"round","variant":"basic","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"AH","hand_size":3}"#,
            r#"{"event":"play","cards":["2H"]}"#,
            r#"{"event":"play","cards":["3H"]}"#,
            r#"{"event":"correct","seq":2,"cards":["4H"]}"#,
            r#"{"event":"correct","seq":4,"cards":["5H"]}"#,
            r#"{"event":"correct","seq":9,"cards":["5H"]}"#,
        ];
        let lines: Vec<(usize, String)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (i + 1, t.to_string()))
            .collect();
        let replies = recorder.record_batch(&lines).expect("batch");
        let errors: Vec<&str> = replies
            .iter()
            .map(|r| match r {
                Reply::Rejected(r) => r.error.as_str(),
                Reply::Stored(_) => "",
            })
            .collect();
        assert_eq!(errors[..4], ["", "", "", ""], "{replies:?}");
        // Said as it is: the log is not "made illegal" by a target that is wrong.
        assert_eq!(
            errors[4],
            "line 5: round 1.1 event 4 is a correction; correct the original event 2 instead"
        );
        assert_eq!(errors[5], "line 6: round 1.1 has no event 9 to correct");
        // Across rounds, the original's round is named too.
        let game = recorder.game().expect("game");
        let history = History::load(&store, game, true).expect("history");
        let mut moved = history.clone();
        if let EntryKind::Correction(c) = &mut moved.entries[3].kind {
            c.target.number = 7;
        }
        assert_eq!(
            moved.no_target(1, 4),
            "round 1.1 event 4 is a correction; correct the original event 2 of round 1.7 instead (with \"round\":7)"
        );
    }

    #[test]
    fn a_decision_ignores_explanations_warnings_and_where_a_sideline_hangs() {
        let a = json!({"right":true,"verdicts":[{"card":"8H","accepted":true,"explanation":"x"}],"warnings":["w"]});
        let b = json!({"right":true,"verdicts":[{"card":"8H","accepted":true,"explanation":"y"}]});
        let c =
            json!({"right":false,"verdicts":[{"card":"8H","accepted":false,"explanation":"y"}]});
        assert_eq!(decision(&a), decision(&b));
        assert_ne!(decision(&b), decision(&c));
        // A wrong sequence stays wrong with the same penalty whichever card failed.
        let d = json!({"right":false,"verdicts":[{"card":"8H","accepted":true},{"card":"10C","accepted":false}],
                       "penalties":[{"player":"Philippe","cards":6,"reason":"wrong play"}]});
        let e = json!({"right":false,"verdicts":[{"card":"8H","accepted":false},{"card":"10C","accepted":false}],
                       "penalties":[{"player":"Philippe","cards":6,"reason":"wrong play"}]});
        assert_eq!(decision(&d), decision(&e));
        // The same wrong play under the next main-line card: not a new decision.
        let wrong = |after: u32, line: &str| {
            json!({"right":false,"placed":{"line":line,"after":after,"cards":["8H"]},
                   "penalties":[{"player":"Carlos","cards":2,"reason":"wrong card"}]})
        };
        assert_eq!(
            decision(&wrong(2, "sideline")),
            decision(&wrong(3, "sideline"))
        );
        assert_ne!(decision(&wrong(2, "sideline")), decision(&wrong(2, "main")));
        // Only a placement's anchor is left out, not an "after" elsewhere.
        assert_ne!(
            decision(&json!({"marker":{"after":2}})),
            decision(&json!({"marker":{"after":3}}))
        );
    }
}
