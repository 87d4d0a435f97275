//! The gate between the table and the store: each table-log line is refereed first
//! and stored only when the referee accepts it, so the store never holds a log the
//! referee rejects. Lines are processed in batches that share one durable commit;
//! a reply (acknowledgement or error) is released only after that commit.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use super::evidence::{Evidence, EvidenceInput};
use super::history::{
    decision, paired, parse_correction, History, HistoryError, RefereeFactory, WITH_PREVIOUS,
};
use super::log::NewRound;
use super::seal::{Reveal, Sealed};
use super::{format_utc, now_ms, GameId, RoundRef, Store, StoreError};
use crate::cards::Card;
use crate::referee::{Game, LogEvent, Outcome};

/// The acknowledgement of a stored line, printed by `eleusis record` as one JSON line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ack {
    pub ok: bool,
    /// 1-based input line number.
    pub line: usize,
    pub game: String,
    pub round: String,
    pub seq: u64,
    pub event: String,
    /// The new head of the hash chain.
    pub hash: String,
    /// For a play or no_play: whether it was right.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub right: Option<bool>,
    /// For a `round` event: the public commitment to the sealed rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// When the round (or game) ended with this line: the rule and salt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reveal: Option<Reveal>,
    /// For a correction: the events (`ROUND:SEQ`) whose decision changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<Vec<String>>,
    /// For a correction line with `also`: the sequence numbers of the `correct`
    /// events it stored, in order (`seq` is the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<Vec<u64>>,
}

/// A line that was not stored, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    pub ok: bool,
    pub line: usize,
    pub error: String,
}

/// What happened to one line.
// One reply per recorded line, written out and dropped: boxing the acknowledgement
// would cost an allocation per line to save a few hundred bytes of stack.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    Stored(Ack),
    Rejected(Rejection),
}

impl Reply {
    /// The reply as one JSON line.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|e| format!("{{\"ok\":false,\"error\":\"{e}\"}}"))
    }
}

/// Where the recorder stands; cloned at the start of a batch so that a failed
/// commit puts everything back.
#[derive(Clone)]
struct Position {
    game_id: Option<GameId>,
    round: Option<RoundRef>,
    revealed: bool,
    referee: Game,
    /// The chain head this position was built from; another writer moving it
    /// means the referee must be rebuilt before judging the next line.
    head: Option<String>,
}

/// Records one game into a store.
pub struct Recorder<'s> {
    store: &'s Store,
    factory: RefereeFactory,
    /// Directory relative evidence frame paths are read from.
    frames_dir: PathBuf,
    at: Position,
}

/// Whether two versions of an event differ only in a no-play's `pick`: with the
/// same decision (checked by the caller), the pick given is the one God took by
/// default, and nothing at the table differs.
fn moot_pick(old: &LogEvent, new: &LogEvent) -> bool {
    match (old, new) {
        (LogEvent::NoPlay(a), LogEvent::NoPlay(b)) => {
            let unpicked = |e: &crate::referee::log::NoPlayEvent| {
                let mut e = e.clone();
                e.pick = None;
                e
            };
            a.pick != b.pick && unpicked(a) == unpicked(b)
        }
        _ => false,
    }
}

fn reject(line: usize, error: impl std::fmt::Display) -> Reply {
    Reply::Rejected(Rejection {
        ok: false,
        line,
        error: format!("line {line}: {error}"),
    })
}

/// A line as read outside the write transaction (see [`Recorder::record_batch`]).
enum Prepared {
    /// Refused whatever the game's position: its reply.
    Refused(Box<Reply>),
    /// A correction: judged against the stored log, inside the transaction.
    Correction(Map<String, Value>),
    /// An event to referee, with its evidence checked and its frame loaded.
    Event(Box<PreparedEvent>),
}

impl Prepared {
    fn refused(reply: Reply) -> Prepared {
        Prepared::Refused(Box::new(reply))
    }
}

/// An event ready for the referee.
struct PreparedEvent {
    event: LogEvent,
    evidence: Option<(Evidence, Option<super::evidence::Frame>)>,
}

impl<'s> Recorder<'s> {
    /// A recorder for a new game; the game is created by its first `round` line.
    pub fn new_game(store: &'s Store, factory: RefereeFactory) -> Recorder<'s> {
        let referee = factory();
        Recorder {
            store,
            factory,
            frames_dir: PathBuf::from("."),
            at: Position {
                game_id: None,
                round: None,
                revealed: false,
                referee,
                head: None,
            },
        }
    }

    /// A recorder that continues a stored game (after a restart): the referee is
    /// rebuilt by replaying the stored log with its corrections.
    pub fn resume(
        store: &'s Store,
        factory: RefereeFactory,
        game: GameId,
    ) -> Result<Recorder<'s>, HistoryError> {
        let at = Self::position_from_store(store, &factory, game)?;
        Ok(Recorder {
            store,
            factory,
            frames_dir: PathBuf::from("."),
            at,
        })
    }

    fn position_from_store(
        store: &Store,
        factory: &RefereeFactory,
        game: GameId,
    ) -> Result<Position, HistoryError> {
        let history = History::load(store, game, true)?;
        let effective = history.effective(&[])?;
        let (referee, _) = history.replay(factory, &effective)?;
        let round = history.current_round();
        let revealed = match round {
            Some(r) => store.revealed(r)?.is_some(),
            None => false,
        };
        Ok(Position {
            game_id: Some(game),
            round,
            revealed,
            referee,
            head: history.entries.last().map(|e| e.stored.hash.clone()),
        })
    }

    /// When another writer (a second `record` on the same game, the live service)
    /// appended to this game since we last looked: the position rebuilt from the
    /// store, so that the log is judged and shown as it really is.
    fn moved_position(&self) -> Result<Option<Position>, HistoryError> {
        let Some(game) = self.at.game_id else {
            return Ok(None);
        };
        let head = self.store.head(game)?.map(|(_, _, hash)| hash);
        if head == self.at.head {
            return Ok(None);
        }
        // Another writer only ever adds: the last event this one stored or saw is
        // still there. Gone, the log was cut outside any writer, and catching up
        // would build on what is left as if nothing had been acknowledged.
        if let Some(ours) = &self.at.head {
            if !self.store.events(game)?.iter().any(|e| &e.hash == ours) {
                return Err(HistoryError::Store(StoreError::Inconsistent {
                    round: self.at.round.unwrap_or(RoundRef { game, number: 0 }),
                    what: format!(
                        "the last event this writer stored or saw (hash {ours}) is gone from the log: the database was altered outside; run `eleusis audit {game}`"
                    ),
                }));
            }
        }
        Self::position_from_store(self.store, &self.factory, game).map(Some)
    }

    /// Inside the write transaction: catches up with another writer before the
    /// next line is judged.
    fn catch_up(&mut self) -> Result<(), StoreError> {
        let moved = self.moved_position().map_err(|e| match e {
            HistoryError::Store(e) => e,
            other => StoreError::Inconsistent {
                round: self.at.round.unwrap_or(RoundRef {
                    game: self.at.game_id.unwrap_or(GameId(0)),
                    number: 0,
                }),
                what: format!("the stored log no longer replays: {other}"),
            },
        })?;
        if let Some(at) = moved {
            self.at = at;
        }
        Ok(())
    }

    /// Outside any write: catches up with another writer (an `eleusis record` on
    /// the same database), on one read snapshot, so that what is shown is the log
    /// as it really is. Returns whether anything moved. On an error the recorder
    /// stays where it was.
    pub fn follow(&mut self) -> Result<bool, HistoryError> {
        let moved = self.store.read(|_| self.moved_position())?;
        let followed = moved.is_some();
        if let Some(at) = moved {
            self.at = at;
        }
        Ok(followed)
    }

    /// Reads evidence frames relative to `dir` instead of the working directory.
    pub fn frames_from(mut self, dir: PathBuf) -> Self {
        self.frames_dir = dir;
        self
    }

    /// The game being recorded, once its first round is stored.
    pub fn game(&self) -> Option<GameId> {
        self.at.game_id
    }

    /// The referee's view of the game as recorded so far.
    pub fn referee(&self) -> &Game {
        &self.at.referee
    }

    /// Records a batch of `(line number, text)` in one transaction. The replies
    /// are valid only once this returns `Ok` (the commit is done). On `Err`
    /// nothing of the batch is stored and the recorder is back where it was.
    ///
    /// Each line is read, and its evidence frame loaded, before the write
    /// transaction begins: a slow read (a file on a stalled network share, a
    /// large frame) must not hold the database's write lock, which the live
    /// service and every other writer wait on meanwhile. The frames of a batch
    /// are held in memory until its commit.
    pub fn record_batch(&mut self, lines: &[(usize, String)]) -> Result<Vec<Reply>, StoreError> {
        let prepared: Vec<(usize, Prepared)> = lines
            .iter()
            .map(|(number, text)| (*number, self.prepare_line(*number, text)))
            .collect();
        let saved = self.at.clone();
        let store = self.store;
        let result = store.write(|_| {
            self.catch_up()?;
            prepared
                .into_iter()
                .map(|(number, line)| self.record_line(number, line))
                .collect::<Result<Vec<_>, _>>()
        });
        if result.is_err() {
            self.at = saved;
        }
        result
    }

    /// What can be known of a line without the store: its syntax, its shape and
    /// its evidence (the frame file read). Nothing here depends on the game's
    /// position, so it is done outside the write transaction.
    fn prepare_line(&self, line: usize, text: &str) -> Prepared {
        // Strictly: a key given twice would otherwise be read as its last value,
        // and the line stored would say one thing and be judged as another.
        let mut object = match crate::json_input::parse_value(text) {
            Ok(Value::Object(object)) => object,
            Ok(_) => {
                return Prepared::refused(reject(
                    line,
                    "expected a JSON object like {\"event\":\"play\",…}",
                ))
            }
            Err(e @ crate::json_input::JsonInputError::Duplicate { .. }) => {
                return Prepared::refused(reject(line, e))
            }
            Err(crate::json_input::JsonInputError::Syntax {
                message, column, ..
            }) => {
                return Prepared::refused(reject(
                    line,
                    format!("not a JSON object: {message} (column {column})"),
                ))
            }
        };
        if object.get("event").and_then(Value::as_str) == Some("correct") {
            return Prepared::Correction(object);
        }
        for key in ["at", "commitment"] {
            if object.contains_key(key) {
                return Prepared::refused(reject(
                    line,
                    format!("field {key:?} is written by the store, not given"),
                ));
            }
        }
        let evidence = match object.remove("evidence") {
            Some(value) => match EvidenceInput::from_json(value) {
                Ok(e) => Some(e),
                Err(e) => return Prepared::refused(reject(line, e)),
            },
            None => None,
        };
        let takes_evidence = matches!(
            object.get("event").and_then(Value::as_str),
            Some("play" | "no_play")
        );
        let event = match LogEvent::parse_line(&Value::Object(object).to_string()) {
            Ok(event) => event,
            Err(mut e) => {
                // The referee lists the fields of TABLE-LOG.md; the store takes
                // evidence on plays and no-plays too.
                if takes_evidence
                    && e.reason.contains("unknown field")
                    && e.reason.contains("expected one of")
                {
                    e.reason
                        .push_str(", or \"evidence\" (stored with the play)");
                }
                // The referee lists the table log's events; the store takes its
                // corrections too.
                if e.reason.starts_with("unknown event") && e.reason.ends_with(')') {
                    e.reason.pop();
                    e.reason
                        .push_str(", or correct: a correction of an earlier event)");
                }
                return Prepared::refused(reject(line, e.reason));
            }
        };
        let cards: &[Card] = match &event {
            LogEvent::Play(p) => &p.cards,
            LogEvent::NoPlay(n) => &n.hand,
            _ => &[],
        };
        let evidence = match evidence {
            None => None,
            Some(_) if cards.is_empty() => {
                return Prepared::refused(reject(
                    line,
                    super::evidence::EvidenceError::WrongEvent {
                        kind: event.name().into(),
                    },
                ))
            }
            Some(input) => {
                if let Some(e) = self.special_frame(&input) {
                    return Prepared::refused(reject(line, e));
                }
                match input.resolve(cards, &self.frames_dir) {
                    Ok(resolved) => Some(resolved),
                    Err(e) => return Prepared::refused(reject(line, e)),
                }
            }
        };
        Prepared::Event(Box::new(PreparedEvent { event, evidence }))
    }

    /// The error for an evidence frame that names something other than a regular
    /// file inside the frames directory: a named pipe would block its read until
    /// some writer came (for ever, most likely), a device might never end. Paths
    /// outside the directory and missing files are left to
    /// [`EvidenceInput::resolve`], which says why.
    fn special_frame(&self, input: &EvidenceInput) -> Option<super::evidence::EvidenceError> {
        let name = input.frame.as_deref()?;
        let path = std::path::Path::new(name);
        let inside = !name.is_empty()
            && path
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            return None;
        }
        let meta = std::fs::metadata(self.frames_dir.join(path)).ok()?;
        let kind = super::special_file_kind(&meta)?;
        Some(super::evidence::EvidenceError::FrameFile {
            path: name.to_string(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("it is {kind}, not a regular file; give a JPEG file"),
            ),
        })
    }

    /// One prepared line inside the open transaction. `Ok(Rejected)` leaves the
    /// store and the referee untouched; `Err` is a storage failure that aborts the
    /// batch.
    fn record_line(&mut self, line: usize, prepared: Prepared) -> Result<Reply, StoreError> {
        let PreparedEvent { event, evidence } = match prepared {
            Prepared::Refused(reply) => return Ok(*reply),
            Prepared::Correction(object) => return self.record_correction(line, object),
            Prepared::Event(prepared) => *prepared,
        };
        // A name written like a participant's but for case or accents is a slip,
        // recorded live: refused before the round event, which no correction reaches.
        if let LogEvent::Round(round) = &event {
            if let Some(why) = self.at.referee.alike_newcomer(round) {
                return Ok(reject(line, why));
            }
        }
        let outcome = match self.at.referee.apply(&event) {
            Ok(outcome) => outcome,
            Err(e) => return Ok(reject(line, e)),
        };
        // From here on the referee has moved: any failure must abort the batch.
        self.store_event(line, &event, evidence, &outcome)
    }

    fn store_event(
        &mut self,
        line: usize,
        event: &LogEvent,
        evidence: Option<(Evidence, Option<super::evidence::Frame>)>,
        outcome: &Outcome,
    ) -> Result<Reply, StoreError> {
        let mut payload = match serde_json::to_value(event) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let mut commitment = None;
        let round = match event {
            LogEvent::Round(ev) => {
                let game = match self.at.game_id {
                    Some(game) => game,
                    None => self.store.new_game()?,
                };
                self.at.game_id = Some(game);
                let seal = Sealed::new(&ev.rule);
                let round = self.store.start_round(
                    game,
                    &NewRound {
                        variant: payload
                            .get("variant")
                            .and_then(Value::as_str)
                            .unwrap_or("new-eleusis"),
                        god: &ev.god,
                        players: &ev.players,
                    },
                    &seal,
                )?;
                payload.remove("rule");
                payload.insert("commitment".into(), Value::String(seal.commitment()));
                commitment = Some(seal.commitment());
                self.at.round = Some(round);
                self.at.revealed = false;
                round
            }
            _ => self.at.round.ok_or_else(|| StoreError::Inconsistent {
                round: RoundRef {
                    game: self.at.game_id.unwrap_or(GameId(0)),
                    number: 0,
                },
                what: "the referee accepted an event before any round".into(),
            })?,
        };
        // Who played is part of what happened at the table. A play or no-play that
        // left it to the turn is stored naming the player the referee found, so a
        // later correction that would change the turn order (a misread card that
        // eliminated a player in sudden death, a prophet's call) cannot hand this
        // play to someone else: its line then names another's turn, and the
        // correction is refused as making it illegal.
        if matches!(event, LogEvent::Play(_) | LogEvent::NoPlay(_))
            && !payload.contains_key("player")
        {
            if let Some(player) = &outcome.player {
                payload.insert("player".into(), Value::String(player.clone()));
            }
        }
        let now = now_ms();
        payload.insert("at".into(), Value::String(format_utc(now)));
        if let Some((ev, _)) = &evidence {
            if !ev.is_empty() {
                payload.insert(
                    "evidence".into(),
                    serde_json::to_value(ev).unwrap_or(Value::Null),
                );
            }
        }
        let text = Value::Object(payload).to_string();
        let appended = self.store.append(round, event.name(), &text, now)?;
        self.at.head = Some(appended.hash.clone());
        if let Some((ev, frame)) = &evidence {
            if let Some(frame) = frame {
                self.store.put_frame(frame)?;
            }
            let cards: &[Card] = match event {
                LogEvent::Play(p) => &p.cards,
                LogEvent::NoPlay(n) => &n.hand,
                _ => &[],
            };
            self.store.put_reads(appended.event_id, ev, cards)?;
        }
        let outcome_json = serde_json::to_string(outcome).unwrap_or_default();
        self.store.put_verdict(appended.event_id, &outcome_json)?;
        let reveal = self.reveal_if_over(round, outcome, event)?;
        Ok(Reply::Stored(Ack {
            ok: true,
            line,
            game: round.game.to_string(),
            round: round.to_string(),
            seq: appended.seq,
            event: event.name().to_string(),
            hash: appended.hash,
            right: outcome.right,
            commitment,
            reveal,
            changed: None,
            group: None,
        }))
    }

    fn reveal_if_over(
        &mut self,
        round: RoundRef,
        outcome: &Outcome,
        event: &LogEvent,
    ) -> Result<Option<Reveal>, StoreError> {
        let over = outcome.round_end.is_some() || matches!(event, LogEvent::EndGame(_));
        if over && !self.at.revealed {
            self.at.revealed = true;
            return self.store.reveal(round).map(Some);
        }
        Ok(None)
    }

    fn record_correction(
        &mut self,
        line: usize,
        object: Map<String, Value>,
    ) -> Result<Reply, StoreError> {
        let (Some(game), Some(round)) = (self.at.game_id, self.at.round) else {
            return Ok(reject(line, "nothing recorded yet to correct"));
        };
        let objects = match correction_group(object) {
            Ok(objects) => objects,
            Err(e) => return Ok(reject(line, e)),
        };
        let mut corrections = Vec::with_capacity(objects.len());
        for (i, object) in objects.iter().enumerate() {
            match parse_correction(object, Some(round)) {
                Ok(c) => corrections.push(c),
                Err(e) if objects.len() == 1 => return Ok(reject(line, e)),
                Err(e) => {
                    return Ok(reject(
                        line,
                        format!("correction {} of the line: {e}", i + 1),
                    ))
                }
            }
        }
        let history = match History::load(self.store, game, true) {
            Ok(h) => h,
            Err(HistoryError::Store(e)) => return Err(e),
            Err(e) => return Ok(reject(line, e)),
        };
        // Each correction of a group must make a well-formed event on its own (no
        // unknown field, no bad card): only the turn order and the prophet's office
        // may need the others to come right.
        if corrections.len() > 1 {
            for (i, correction) in corrections.iter().enumerate() {
                match history.effective(std::slice::from_ref(correction)) {
                    Ok(_) => {}
                    Err(HistoryError::Store(e)) => return Err(e),
                    Err(e) => {
                        return Ok(reject(
                            line,
                            format!("correction {} of the line: {e}", i + 1),
                        ))
                    }
                }
            }
        }
        let before = history
            .effective(&[])
            .and_then(|eff| history.replay(&self.factory, &eff).map(|(_, o)| (eff, o)));
        let after = history.effective(&corrections).and_then(|eff| {
            history
                .replay(&self.factory, &eff)
                .map(|(g, o)| (eff, g, o))
        });
        let ((old_eff, old_outcomes), (new_eff, referee, new_outcomes)) = match (before, after) {
            (Ok(b), Ok(a)) => (b, a),
            (Err(HistoryError::Store(e)), _) | (_, Err(HistoryError::Store(e))) => return Err(e),
            (Err(e), _) => {
                return Ok(reject(
                    line,
                    format!("the stored log no longer replays: {e}"),
                ))
            }
            // A target that cannot be corrected (no such event, a round event, a
            // correction) says so as it is: the log itself is not made illegal.
            (_, Err(HistoryError::BadCorrection(why))) => return Ok(reject(line, why)),
            (_, Err(e)) => {
                return Ok(reject(
                    line,
                    format!("the correction makes the log illegal: {e}"),
                ))
            }
        };
        // Like every event after `end_game`: the game's scores are final, and the
        // score sheet printed from them must not change under the club's feet.
        if old_eff
            .iter()
            .any(|e| matches!(e.event, crate::referee::LogEvent::EndGame(_)))
        {
            return Ok(reject(
                line,
                "the game has ended (\"end_game\"); its events can no longer be corrected",
            ));
        }
        let mut changed = Vec::new();
        for (old, new) in paired(&old_eff, &new_eff) {
            let before = old.and_then(|i| old_eff.get(i).zip(old_outcomes.get(i)));
            let after = new.and_then(|j| new_eff.get(j).zip(new_outcomes.get(j)));
            let entry = match (before, after) {
                (Some((old, old_o)), Some((new, new_o))) => {
                    let old_v = decision(&serde_json::to_value(old_o).unwrap_or(Value::Null));
                    let new_v = decision(&serde_json::to_value(new_o).unwrap_or(Value::Null));
                    let differs = old.event != new.event && !moot_pick(&old.event, &new.event);
                    (old_v != new_v || differs).then_some(new.entry)
                }
                // Voided, or its void taken back: its decision is gone, or back.
                (Some((e, _)), None) | (None, Some((e, _))) => Some(e.entry),
                (None, None) => None,
            };
            if let Some(entry) = entry.and_then(|i| history.entries.get(i)) {
                changed.push(entry.event_ref());
            }
        }
        // A correction that leaves every event as it was (or gives a no-play the
        // pick it was already given by default) would still be chained and
        // announced ("CORRECTION … no verdict changed"): the table reads that as
        // "something was misread". An unchanged correction form is a cancel.
        if changed.is_empty() {
            let targets: Vec<String> = corrections
                .iter()
                .map(|c| format!("{}:{}", c.target, c.seq))
                .collect();
            return Ok(reject(
                line,
                format!(
                    "the correction changes nothing: {} already records what it gives; nothing is recorded",
                    targets.join(" and ")
                ),
            ));
        }
        // The round may now be over (or no longer over) under the corrected log.
        let ended = referee.state().ended || referee.ended();
        // Reopened, a round whose rule is revealed would go on with the rule known
        // to every player: no longer a game of Eleusis.
        if self.at.revealed && !ended && corrections.iter().any(|c| c.target == round) {
            return Ok(reject(
                line,
                format!(
                    "round {round} is over and its rule has been revealed: this correction would reopen it, to be played on with the rule known to everyone; a correction of this round must leave it over (its scores stand as recorded; the audit keeps every play and read for the table to judge the dispute)"
                ),
            ));
        }
        let now = now_ms();
        let mut stored = Vec::with_capacity(corrections.len());
        for (i, (mut payload, correction)) in objects.into_iter().zip(&corrections).enumerate() {
            payload.insert("event".into(), Value::from("correct"));
            canonical_cards(&mut payload);
            payload.insert("seq".into(), Value::from(correction.seq));
            payload.insert("round".into(), Value::from(correction.target.number));
            payload.insert("at".into(), Value::String(format_utc(now)));
            if i > 0 {
                payload.insert(WITH_PREVIOUS.into(), Value::Bool(true));
            }
            stored.push(self.store.append(
                round,
                "correct",
                &Value::Object(payload).to_string(),
                now,
            )?);
        }
        let (Some(first), Some(appended)) = (stored.first(), stored.last()) else {
            return Ok(reject(line, "a correction line holds no correction"));
        };
        let group = (stored.len() > 1).then(|| stored.iter().map(|a| a.seq).collect());
        let first_seq = first.seq;
        let appended = appended.clone();
        self.at.head = Some(appended.hash.clone());
        self.at.referee = referee;
        let reveal = if ended && !self.at.revealed {
            self.at.revealed = true;
            Some(self.store.reveal(round)?)
        } else {
            None
        };
        Ok(Reply::Stored(Ack {
            ok: true,
            line,
            game: game.to_string(),
            round: round.to_string(),
            seq: first_seq,
            event: "correct".into(),
            hash: appended.hash,
            right: None,
            commitment: None,
            reveal,
            changed: Some(changed),
            group,
        }))
    }
}

/// The most events one correction line may correct: a table's mistake touches a
/// few, and every one is a stored event the views list and push to every screen.
pub const MAX_GROUP: usize = 50;

/// A correction's cards as the store writes every event's: in the ASCII form
/// (`" 2h"` and `"J♥️"` given, `2H` and `JH` stored), so that the audit does not
/// call a card given again in another spelling a change. Cards that do not parse
/// are left for the check that refuses them.
fn canonical_cards(payload: &mut Map<String, Value>) {
    let canonical = |v: &Value| {
        v.as_str()
            .and_then(|t| t.parse::<Card>().ok())
            .map(|c| Value::String(c.to_string()))
    };
    for key in ["cards", "hand"] {
        if let Some(Value::Array(items)) = payload.get_mut(key) {
            for item in items.iter_mut() {
                if let Some(c) = canonical(item) {
                    *item = c;
                }
            }
        }
    }
    if let Some(pick) = payload.get_mut("pick") {
        if let Some(c) = canonical(pick) {
            *pick = c;
        }
    }
}

/// The corrections of one line: the line itself and those it lists in `also`,
/// checked and stored as one group (each as a `correct` event of its own, those
/// after the first marked [`WITH_PREVIOUS`]). Two events that must change together —
/// a prophet's call corrected on one play, so that he falls there and the next
/// play's call must go — cannot be corrected one after the other: either alone
/// leaves the log illegal.
fn correction_group(mut object: Map<String, Value>) -> Result<Vec<Map<String, Value>>, String> {
    for key in [WITH_PREVIOUS, "at"] {
        if object.contains_key(key) {
            return Err(format!("field {key:?} is written by the store, not given"));
        }
    }
    let also = match object.remove("also") {
        None => Vec::new(),
        Some(Value::Array(items)) if items.len() >= MAX_GROUP => {
            return Err(format!(
                "\"also\" lists {} corrections; one line corrects at most {MAX_GROUP} events (a table's mistake touches a few)",
                items.len()
            ))
        }
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(other) => {
            return Err(format!(
                "\"also\" must be a list of further corrections to apply with this one, like [{{\"seq\":5,\"prophet_says\":null}}]; got {other}"
            ))
        }
    };
    let mut group = vec![object];
    for (i, item) in also.into_iter().enumerate() {
        let Value::Object(item) = item else {
            return Err(format!(
                "\"also\", item {}: expected a correction like {{\"seq\":5,\"prophet_says\":null}}",
                i + 1
            ));
        };
        match item.get("event") {
            None => {}
            Some(Value::String(e)) if e == "correct" => {}
            Some(other) => {
                return Err(format!(
                    "\"also\", item {}: only corrections can be grouped, got \"event\": {other}",
                    i + 1
                ))
            }
        }
        for key in ["also", WITH_PREVIOUS, "at"] {
            if item.contains_key(key) {
                return Err(format!(
                    "\"also\", item {}: {key:?} is not taken there",
                    i + 1
                ));
            }
        }
        group.push(item);
    }
    Ok(group)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::history::standard_referee;

    const ROUND: &str = r#"{"event":"round","variant":"basic","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"AH","hand_size":3}"#;

    fn lines(texts: &[&str]) -> Vec<(usize, String)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| (i + 1, t.to_string()))
            .collect()
    }

    /// A store in a temporary directory, removed when the directory is dropped.
    fn fresh_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(&dir.path().join("r.db")).expect("open");
        (dir, store)
    }

    /// [`ROUND`], then a one-card play of each of `cards`, as numbered lines.
    fn round_of_plays(cards: &[&str]) -> Vec<(usize, String)> {
        let mut texts = vec![ROUND.to_string()];
        texts.extend(
            cards
                .iter()
                .map(|c| format!(r#"{{"event":"play","cards":["{c}"]}}"#)),
        );
        texts
            .into_iter()
            .enumerate()
            .map(|(i, t)| (i + 1, t))
            .collect()
    }

    fn error_of(reply: &Reply) -> &str {
        match reply {
            Reply::Rejected(r) => &r.error,
            Reply::Stored(a) => panic!("stored: {a:?}"),
        }
    }

    #[test]
    fn store_annotations_and_misplaced_evidence_are_refused() {
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let replies = recorder
            .record_batch(&lines(&[
                r#"{"event":"play","cards":["2H"]}"#,
                r#"{"event":"end_game"}"#,
                ROUND,
                r#"{"event":"play","cards":["2H"],"at":"2026-01-01T00:00:00.000Z"}"#,
                r#"{"event":"prophet","player":"Ana","evidence":{"reads":[]}}"#,
                r#"{"event":"play","cards":["2H"],"evidence":{"reads":[{"read":"2H","confidence":2}]}}"#,
                r#"{"event":"correct","seq":1,"cards":["2H"]}"#,
            ]))
            .expect("batch");
        assert!(error_of(&replies[0]).contains("no round has started"));
        assert!(error_of(&replies[1]).contains("no round has started"));
        assert!(matches!(replies[2], Reply::Stored(_)));
        assert!(error_of(&replies[3]).contains("written by the store"));
        // Unknown fields are answered with every field a play may have.
        let misspelt = recorder
            .record_batch(&lines(&[
                r#"{"event":"play","cards":["2H"],"evidense":{}}"#,
            ]))
            .expect("batch");
        assert!(
            error_of(&misspelt[0]).ends_with(
                r#"unknown field "evidense", expected one of "player", "cards", "prophet_says", or "evidence" (stored with the play)"#
            ),
            "{misspelt:?}"
        );
        assert!(error_of(&replies[4]).contains("only play and no_play"));
        assert!(error_of(&replies[5]).contains("confidence"));
        assert!(
            error_of(&replies[6]).contains("can be corrected"),
            "{replies:?}"
        );
        assert_eq!(store.events(GameId(1)).expect("events").len(), 1);
    }

    #[test]
    fn a_play_entered_by_mistake_is_voided_and_its_penalty_taken_back() {
        // A 7S pressed on a second screen after Ana's play was recorded was charged
        // to Bo, whose turn it then was, as a wrong play with a penalty. Correcting
        // its player is refused by the turn order; voiding it says it never
        // happened.
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let replies = recorder
            .record_batch(&lines(&[
                ROUND,
                r#"{"event":"play","cards":["3H"]}"#,
                r#"{"event":"play","cards":["7S"]}"#,
            ]))
            .expect("batch");
        assert!(
            replies.iter().all(|r| matches!(r, Reply::Stored(_))),
            "{replies:?}"
        );
        let hands_before = recorder.at.referee.state().hands.clone();
        let replies = recorder
            .record_batch(&lines(&[
                r#"{"event":"correct","seq":3,"void":true,"cards":["7H"]}"#,
                r#"{"event":"correct","seq":3,"void":false}"#,
                r#"{"event":"correct","seq":3,"void":true}"#,
            ]))
            .expect("voids");
        assert!(error_of(&replies[0]).contains("alone"), "{replies:?}");
        assert!(
            error_of(&replies[1]).contains("must be true"),
            "{replies:?}"
        );
        let Reply::Stored(ack) = &replies[2] else {
            panic!("{replies:?}")
        };
        assert_eq!(ack.changed.as_deref(), Some(&["1.1:3".to_string()][..]));
        let state = recorder.at.referee.state();
        assert_ne!(state.hands, hands_before, "the penalty is taken back");
        assert_eq!(state.hands.get("Bo"), Some(3));
        assert_eq!(state.main.len(), 2, "the starter and Ana's 3H");
        // Bo plays now, as if the mistake had never been entered; the void cannot
        // be taken back once a play depends on it.
        let replies = recorder
            .record_batch(&lines(&[
                r#"{"event":"play","player":"Bo","cards":["5D"]}"#,
                r#"{"event":"correct","seq":3,"void":null}"#,
            ]))
            .expect("after");
        assert!(matches!(replies[0], Reply::Stored(_)), "{replies:?}");
        assert!(error_of(&replies[1]).contains("illegal"), "{replies:?}");
        // The voided play is kept in the log, left out of the effective one.
        let history = History::load(&store, GameId(1), true).expect("history");
        let (effective, voided) = history.effective_and_voided(&[]).expect("effective");
        assert_eq!(effective.len(), 3);
        assert_eq!(voided.len(), 1);
        assert_eq!(history.entries[voided[0].entry].stored.seq, 3);
        assert_eq!(voided[0].corrected_by, vec![3]);
        // A round event cannot be voided, like any correction of one.
        let replies = recorder
            .record_batch(&lines(&[r#"{"event":"correct","seq":1,"void":true}"#]))
            .expect("round");
        assert!(
            error_of(&replies[0]).contains("can be corrected"),
            "{replies:?}"
        );
    }

    /// A no-play given the pick God took by default changes nothing at the table:
    /// refused like any correction that changes nothing; another pick is taken.
    #[test]
    fn the_default_pick_given_again_is_no_correction() {
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let log = [
            r#"{"event":"round","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"2H"}"#,
            r#"{"event":"no_play","hand":["3H","4S","5H"]}"#,
        ];
        let replies = recorder.record_batch(&lines(&log)).expect("batch");
        assert!(replies.iter().all(|r| matches!(r, Reply::Stored(_))));
        let replies = recorder
            .record_batch(&lines(&[r#"{"event":"correct","seq":2,"pick":"3H"}"#]))
            .expect("same pick");
        assert!(
            error_of(&replies[0]).contains("the correction changes nothing"),
            "{replies:?}"
        );
        let replies = recorder
            .record_batch(&lines(&[r#"{"event":"correct","seq":2,"pick":"5H"}"#]))
            .expect("another pick");
        let Reply::Stored(ack) = &replies[0] else {
            panic!("{replies:?}")
        };
        assert_eq!(ack.changed.as_deref(), Some(&["1.1:2".to_string()][..]));
        // Evidence belongs to the play as seen: a correction carries none.
        let replies = recorder
            .record_batch(&lines(&[
                r#"{"event":"correct","seq":2,"pick":"3H","evidence":{"reads":[]}}"#,
            ]))
            .expect("evidence");
        assert!(
            error_of(&replies[0]).contains("a correction carries no evidence"),
            "{replies:?}"
        );
    }

    /// An event this recorder stored, cut off the log outside any writer: the next
    /// line is refused, not judged on what is left.
    #[test]
    fn an_event_cut_off_under_the_recorder_stops_it() {
        let (dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let replies = recorder
            .record_batch(&round_of_plays(&["2H", "3H"]))
            .expect("batch");
        assert!(replies.iter().all(|r| matches!(r, Reply::Stored(_))));
        let raw = rusqlite::Connection::open(dir.path().join("r.db")).expect("raw");
        raw.execute_batch(
            "DROP TRIGGER events_append_only_delete;
             DELETE FROM verdicts WHERE event_id = (SELECT MAX(id) FROM events);
             DELETE FROM reads WHERE event_id = (SELECT MAX(id) FROM events);
             DELETE FROM events WHERE id = (SELECT MAX(id) FROM events);",
        )
        .expect("cut");
        drop(raw);
        let err = recorder
            .record_batch(&lines(&[r#"{"event":"play","cards":["4H"]}"#]))
            .expect_err("refused");
        assert!(err.to_string().contains("is gone from the log"), "{err}");
        assert_eq!(store.events(GameId(1)).expect("events").len(), 2);
    }

    /// "ana" for "Ana", "Francois" for "François": one person typed twice, not a
    /// newcomer with a score of his own; refused live, before the round event.
    #[test]
    fn a_name_like_a_participants_but_for_case_or_accents_is_refused() {
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let log = [
            r#"{"event":"round","variant":"basic","god":"Ana","players":["Bo","Fran\u00e7ois"],"rule":"red","starter":"AH","hand_size":1}"#,
            r#"{"event":"play","cards":["2H"]}"#,
        ];
        let replies = recorder.record_batch(&lines(&log)).expect("batch");
        assert!(
            replies.iter().all(|r| matches!(r, Reply::Stored(_))),
            "{replies:?}"
        );
        for (line, said) in [
            (
                r#"{"event":"round","variant":"basic","god":"Bo","players":["ana","Cy"],"rule":"red","starter":"AH","hand_size":1}"#,
                "\"ana\" is new to this game, but \"Ana\" is in it already",
            ),
            (
                r#"{"event":"round","variant":"basic","god":"Francois","players":["Ana","Cy"],"rule":"red","starter":"AH","hand_size":1}"#,
                "\"Francois\" is new to this game, but \"Fran\u{e7}ois\" is in it already",
            ),
        ] {
            let replies = recorder.record_batch(&lines(&[line])).expect("refused");
            assert!(error_of(&replies[0]).contains(said), "{replies:?}");
        }
        // The names as before, and a real newcomer, are seated.
        let replies = recorder
            .record_batch(&lines(&[
                r#"{"event":"round","variant":"basic","god":"Fran\u00e7ois","players":["Ana","Cy"],"rule":"red","starter":"AH","hand_size":1}"#,
            ]))
            .expect("seated");
        assert!(matches!(replies[0], Reply::Stored(_)), "{replies:?}");
    }

    #[test]
    fn corrections_that_must_change_together_are_taken_as_one_line() {
        // God recorded the prophet's call on 3S as "wrong" (he was right, and the
        // prophet stays); it was "right": God contradicts, the prophet falls there,
        // and the call recorded on 4H after it must go. Either correction alone
        // leaves the log illegal.
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let log = [
            r#"{"event":"round","god":"G","players":["A","B","C","D"],"rule":"red","starter":"AH"}"#,
            r#"{"event":"play","cards":["2H"]}"#,
            r#"{"event":"prophet","player":"A"}"#,
            r#"{"event":"play","cards":["3S"],"prophet_says":"wrong"}"#,
            r#"{"event":"play","cards":["4H"],"prophet_says":"right"}"#,
        ];
        let replies = recorder.record_batch(&lines(&log)).expect("batch");
        assert!(
            replies.iter().all(|r| matches!(r, Reply::Stored(_))),
            "{replies:?}"
        );
        for alone in [
            r#"{"event":"correct","seq":4,"prophet_says":"right"}"#,
            r#"{"event":"correct","seq":5,"prophet_says":null}"#,
        ] {
            let replies = recorder.record_batch(&lines(&[alone])).expect("alone");
            assert!(error_of(&replies[0]).contains("illegal"), "{replies:?}");
        }
        let replies = recorder
            .record_batch(&lines(&[
                r#"{"event":"correct","seq":4,"prophet_says":"right","also":[{"seq":5,"prophet_says":null}]}"#,
            ]))
            .expect("group");
        let Reply::Stored(ack) = &replies[0] else {
            panic!("{replies:?}")
        };
        assert_eq!(ack.seq, 6);
        assert_eq!(ack.group.as_deref(), Some(&[6, 7][..]));
        let state = recorder.referee().state();
        assert!(state.prophet.is_none(), "the prophet fell on 3S: {state:?}");
        let game = recorder.game().expect("game");
        let stored = store.events(game).expect("events");
        assert_eq!(stored.len(), 7);
        assert!(
            !stored[5].payload.contains(WITH_PREVIOUS),
            "{}",
            stored[5].payload
        );
        assert!(
            stored[6].payload.contains(r#""with_previous":true"#),
            "{}",
            stored[6].payload
        );
        // The stored log replays with both corrections applied.
        let history = History::load(&store, game, true).expect("history");
        let effective = history.effective(&[]).expect("effective");
        history
            .replay(&standard_referee(), &effective)
            .expect("the stored log replays");
        // The store's mark is not for a line to give, and a group holds corrections.
        for (line, why) in [
            (
                r#"{"event":"correct","seq":4,"prophet_says":"right","with_previous":true}"#,
                "written by the store",
            ),
            (
                r#"{"event":"correct","seq":4,"prophet_says":"right","also":[{"event":"play","cards":["5H"]}]}"#,
                "only corrections can be grouped",
            ),
            (
                r#"{"event":"correct","seq":4,"prophet_says":"right","also":[]}"#,
                "must be a list",
            ),
            (
                r#"{"event":"correct","seq":4,"prophet_says":"right","also":[{"seq":"x"}]}"#,
                "correction 2 of the line",
            ),
            // Each item alone must make a well-formed event: a bad card or an
            // unknown field given and then mended by a later item is refused.
            (
                r#"{"event":"correct","seq":2,"cards":["1X"],"also":[{"seq":2,"cards":["7H"]}]}"#,
                "correction 1 of the line",
            ),
            (
                r#"{"event":"correct","seq":4,"bogus":1,"also":[{"seq":4,"bogus":null}]}"#,
                "unknown field",
            ),
            (
                r#"{"event":"correct","seq":4,"prophet_says":"right","at":"2026-01-01T00:00:00.000Z"}"#,
                "written by the store",
            ),
        ] {
            let replies = recorder.record_batch(&lines(&[line])).expect("refused");
            assert!(error_of(&replies[0]).contains(why), "{line}: {replies:?}");
        }
        assert_eq!(store.events(game).expect("events").len(), 7);
        // A line corrects a few events, not a flood of them.
        let flood = serde_json::json!({"event": "correct", "seq": 2, "cards": ["2H"],
            "also": vec![serde_json::json!({"seq": 2, "cards": ["2H"]}); MAX_GROUP]});
        let replies = recorder
            .record_batch(&[(1, flood.to_string())])
            .expect("flood");
        assert!(
            error_of(&replies[0]).contains("at most 50 events"),
            "{replies:?}"
        );
        // Cards are stored in the ASCII form, however they were typed.
        let replies = recorder
            .record_batch(&lines(&[r#"{"event":"correct","seq":2,"cards":[" 6h"]}"#]))
            .expect("typed");
        assert!(matches!(replies[0], Reply::Stored(_)), "{replies:?}");
        let stored = store.events(game).expect("events");
        assert!(
            stored[7].payload.contains(r#""cards":["6H"]"#),
            "{}",
            stored[7].payload
        );
        // A correction that leaves every event as it was is no correction: it is
        // not chained, nor announced to the table.
        for same in [
            r#"{"event":"correct","seq":2,"cards":["6h"]}"#,
            r#"{"event":"correct","seq":3,"player":"A"}"#,
        ] {
            let replies = recorder.record_batch(&lines(&[same])).expect("same");
            assert!(
                error_of(&replies[0]).contains("the correction changes nothing: 1.1:"),
                "{same}: {replies:?}"
            );
        }
        assert_eq!(store.events(game).expect("events").len(), 8);
    }

    #[test]
    fn an_unknown_event_is_told_the_store_takes_corrections_too() {
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let replies = recorder
            .record_batch(&lines(&[r#"{"event":"frobnicate"}"#]))
            .expect("batch");
        let error = error_of(&replies[0]);
        assert!(
            error.contains("unknown event \"frobnicate\" (expected one of round, play")
                && error.ends_with(", or correct: a correction of an earlier event)"),
            "{error}"
        );
    }

    #[test]
    fn a_correction_cannot_reopen_a_round_whose_rule_is_revealed() {
        // Ana's fifth card empties her hand of three: the round ends and the rule
        // is revealed. Corrected to a wrong card she would hold penalty cards and
        // play on, with the rule public: refused. Corrected to another red card
        // the round stays over: taken.
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let replies = recorder
            .record_batch(&round_of_plays(&["2H", "3H", "4H", "5H", "6H"]))
            .expect("batch");
        let Reply::Stored(last) = &replies[5] else {
            panic!("{replies:?}")
        };
        assert!(last.reveal.is_some(), "the round ended: {replies:?}");
        let replies = recorder
            .record_batch(&lines(&[
                r#"{"event":"correct","seq":6,"cards":["6S"]}"#,
                r#"{"event":"correct","seq":6,"cards":["8D"]}"#,
            ]))
            .expect("batch");
        assert!(
            error_of(&replies[0]).contains(
                "round 1.1 is over and its rule has been revealed: this correction would reopen it"
            ),
            "{replies:?}"
        );
        assert!(matches!(replies[1], Reply::Stored(_)), "{replies:?}");
        assert_eq!(store.events(GameId(1)).expect("events").len(), 7);
    }

    #[test]
    fn a_correction_that_ends_the_round_earlier_says_to_void_what_follows() {
        // Ana's wrong 6S, corrected to 6H, empties her hand of three: the round would
        // end there, before Bo's 7H. Voiding the 7H first, the correction is taken.
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let replies = recorder
            .record_batch(&round_of_plays(&["2H", "3H", "4H", "5S", "6S", "7H"]))
            .expect("batch");
        assert!(
            replies.iter().all(|r| matches!(r, Reply::Stored(_))),
            "{replies:?}"
        );
        let replies = recorder
            .record_batch(&lines(&[
                r#"{"event":"correct","seq":6,"cards":["6H"]}"#,
                r#"{"event":"correct","seq":7,"void":true}"#,
                r#"{"event":"correct","seq":6,"cards":["6H"]}"#,
            ]))
            .expect("batch");
        let error = error_of(&replies[0]);
        assert!(
            error.contains("round 1 has ended")
                && error.contains("a correction that ends the round earlier needs the events after that point voided first, newest first"),
            "{error}"
        );
        assert!(matches!(replies[1], Reply::Stored(_)), "{replies:?}");
        let Reply::Stored(last) = &replies[2] else {
            panic!("{replies:?}")
        };
        assert!(
            last.reveal.is_some(),
            "the round ends at the corrected play: {replies:?}"
        );
    }

    #[test]
    fn a_correction_cannot_hand_later_plays_to_other_players() {
        // Sudden death from 30 cards laid: Cy's wrong 2S eliminates him, and Ana,
        // Bo and Ana play on. Corrected to the right 2D, Cy would have stayed in,
        // and the third play after it would be Cy's: the correction is refused
        // rather than charging Ana's play to him.
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let mut log = vec![
            r#"{"event":"round","variant":"basic","god":"Gil","players":["Ana","Bo","Cy"],"rule":"red","starter":"AH","hand_size":20}"#.to_string(),
        ];
        log.extend(std::iter::repeat_n(
            r#"{"event":"play","cards":["2H"]}"#.to_string(),
            29,
        ));
        log.push(r#"{"event":"play","cards":["2S"]}"#.into());
        log.extend(std::iter::repeat_n(
            r#"{"event":"play","cards":["3H"]}"#.to_string(),
            3,
        ));
        let texts: Vec<&str> = log.iter().map(String::as_str).collect();
        let replies = recorder.record_batch(&lines(&texts)).expect("batch");
        assert!(
            replies.iter().all(|r| matches!(r, Reply::Stored(_))),
            "{replies:?}"
        );
        assert_eq!(recorder.referee().state().eliminated, ["Cy"]);
        let game = recorder.game().expect("game");
        let stored = store.events(game).expect("events");
        assert!(
            stored[31].payload.contains(r#""player":"Ana""#),
            "the stored play names who played it: {}",
            stored[31].payload
        );
        let replies = recorder
            .record_batch(&[(1, r#"{"event":"correct","seq":31,"cards":["2D"]}"#.into())])
            .expect("correction");
        assert!(error_of(&replies[0]).contains("turn"), "{replies:?}");
        assert_eq!(store.events(game).expect("events").len(), stored.len());
        // Nor can the stored name be removed first to get round that check.
        let replies = recorder
            .record_batch(&[(1, r#"{"event":"correct","seq":33,"player":null}"#.into())])
            .expect("correction");
        assert!(
            error_of(&replies[0]).contains("the player of round 1.1 event 33 cannot be removed"),
            "{replies:?}"
        );
        assert_eq!(store.events(game).expect("events").len(), stored.len());
        // A correction that keeps the turns is still taken.
        let replies = recorder
            .record_batch(&[(2, r#"{"event":"correct","seq":31,"cards":["3S"]}"#.into())])
            .expect("correction");
        assert!(matches!(replies[0], Reply::Stored(_)), "{replies:?}");
    }

    #[test]
    fn a_correction_lists_only_the_plays_whose_verdict_changed() {
        // 002-diagram: 8H is wrong after the red 3H. Corrected to the right 4H, it
        // joins the main line, so the wrong JH's sideline hangs one card further
        // along; JH is still wrong with the same penalty, so it is not "changed".
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let log = include_str!("../../tests/data/logs/002-diagram.jsonl");
        let mut texts: Vec<&str> = log.lines().take(5).collect();
        texts.push(r#"{"event":"correct","seq":2,"cards":["4H"]}"#);
        let replies = recorder.record_batch(&lines(&texts)).expect("batch");
        let Some(Reply::Stored(ack)) = replies.last() else {
            panic!("{replies:?}")
        };
        assert_eq!(ack.changed.as_deref(), Some(&["1.1:2".to_string()][..]));
    }

    #[test]
    fn a_wrong_sequence_that_stays_wrong_is_not_changed_whichever_card_failed() {
        // Ana's 8H (wrong after the red 3H) corrected to the right 5S makes the last
        // card black: Carlos's 2D KD then fails at 2D instead of KD. Still wrong,
        // still the same penalty and a sideline: not a changed decision.
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let log = include_str!("../../tests/data/logs/002-diagram.jsonl");
        let mut texts: Vec<&str> = log.lines().take(2).collect();
        texts.push(r#"{"event":"play","cards":["2D","KD"]}"#);
        texts.push(r#"{"event":"correct","seq":2,"cards":["5S"]}"#);
        let replies = recorder.record_batch(&lines(&texts)).expect("batch");
        let Some(Reply::Stored(ack)) = replies.last() else {
            panic!("{replies:?}")
        };
        assert_eq!(ack.changed.as_deref(), Some(&["1.1:2".to_string()][..]));
    }

    #[test]
    fn no_correction_is_taken_once_the_game_has_ended() {
        let (_dir, store) = fresh_store();
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let replies = recorder
            .record_batch(&lines(&[
                ROUND,
                r#"{"event":"play","cards":["2S"]}"#,
                r#"{"event":"end_game"}"#,
                r#"{"event":"correct","seq":2,"cards":["2H"]}"#,
            ]))
            .expect("batch");
        assert!(
            error_of(&replies[3]).contains("can no longer be corrected"),
            "{replies:?}"
        );
        let game = recorder.game().expect("game");
        assert_eq!(store.events(game).expect("events").len(), 3);
    }

    #[test]
    fn a_resumed_recorder_continues_the_same_referee_state() {
        let (_dir, store) = fresh_store();
        let mut first = Recorder::new_game(&store, standard_referee());
        first
            .record_batch(&lines(&[ROUND, r#"{"event":"play","cards":["2H"]}"#]))
            .expect("first");
        let game = first.game().expect("game");
        let before = first.referee().state();
        drop(first);
        let mut resumed = Recorder::resume(&store, standard_referee(), game).expect("resume");
        assert_eq!(resumed.referee().state(), before);
        let replies = resumed
            .record_batch(&[(1, r#"{"event":"play","player":"Bo","cards":["3H"]}"#.into())])
            .expect("more");
        match &replies[0] {
            Reply::Stored(ack) => assert_eq!((ack.round.as_str(), ack.seq), ("1.1", 3)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_second_writer_on_the_same_game_is_caught_up_before_judging() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("two.db");
        let store_a = Store::open(&path).expect("open a");
        let store_b = Store::open(&path).expect("open b");
        let mut a = Recorder::new_game(&store_a, standard_referee());
        a.record_batch(&lines(&[ROUND, r#"{"event":"play","cards":["2H"]}"#]))
            .expect("a");
        let game = a.game().expect("game");
        let mut b = Recorder::resume(&store_b, standard_referee(), game).expect("b");
        // A records Bo's play; B, built before it, still thinks it is Bo's turn.
        a.record_batch(&[(3, r#"{"event":"play","player":"Bo","cards":["3H"]}"#.into())])
            .expect("a again");
        let replies = b
            .record_batch(&[(1, r#"{"event":"play","player":"Bo","cards":["4H"]}"#.into())])
            .expect("b");
        assert!(error_of(&replies[0]).contains("Ana's turn"), "{replies:?}");
        let replies = b
            .record_batch(&[(
                2,
                r#"{"event":"play","player":"Ana","cards":["4H"]}"#.into(),
            )])
            .expect("b again");
        match &replies[0] {
            Reply::Stored(ack) => assert_eq!(ack.seq, 4),
            other => panic!("{other:?}"),
        }
        let history = History::load(&store_a, game, true).expect("history");
        let effective = history.effective(&[]).expect("effective");
        assert!(history.replay(&standard_referee(), &effective).is_ok());
    }
}
