//! Games, rounds and the append-only, hash-chained event log.

use rusqlite::{params, OptionalExtension};

use super::chain::{self, Break, Link};
use super::seal::{Reveal, Sealed};
use super::{format_utc, now_ms, GameId, RoundRef, Store, StoreError};

/// One stored event, as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Row id, the key evidence and verdicts hang on.
    pub id: i64,
    pub round: RoundRef,
    pub seq: u64,
    pub recorded_ms: i64,
    /// The table-log event name (`round`, `play`, `correct`, …).
    pub kind: String,
    /// The chained JSON text (the line as accepted, with the store's annotations).
    pub payload: String,
    pub prev_hash: String,
    pub hash: String,
}

/// What an append produced: where the event sits and the new head of the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    pub event_id: i64,
    pub round: RoundRef,
    pub seq: u64,
    pub hash: String,
}

/// A round's public facts.
///
/// `variant`, `god`, `players` and `commitment` are read from the round's chained
/// `round` event, the only copy the hash chain protects. The `rounds` and
/// `round_players` tables merely index them (to find and list rounds quickly); anyone
/// with the file can edit them without breaking the chain, so they are never shown as
/// the truth: where they disagree with the chained event, `index_mismatches` says how,
/// and the audit reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundInfo {
    pub round: RoundRef,
    pub variant: String,
    pub god: String,
    /// Seating order from God's left.
    pub players: Vec<String>,
    pub commitment: String,
    /// When the round started: its chained `round` event's time (`at`), RFC 3339
    /// UTC with milliseconds (the `rounds` table's `started_ms` when that event
    /// cannot be read, unverified).
    pub started: String,
    /// When the rule was revealed (the `seals` table: outside the chain, which
    /// holds the commitment the revealed rule is checked against).
    pub revealed_ms: Option<i64>,
    /// Each way the index tables differ from the chained `round` event, or why that
    /// event could not be read (then the other fields come from the index tables and
    /// are unverified). Empty when everything agrees.
    pub index_mismatches: Vec<String>,
    /// Whether `variant`, `god`, `players` and `commitment` are the chained `round`
    /// event's (false when it could not be read: they are then the index tables',
    /// unverified). Checks of other tables against the chain, such as
    /// [`players_index_mismatches`], count only chained rounds, so an index value can
    /// never vouch for another index.
    pub chained: bool,
}

/// What a round's chained `round` event states about the round.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ChainedHeader {
    variant: String,
    god: String,
    players: Vec<String>,
    commitment: String,
    /// The round event's time (`at`), when it has one.
    at: Option<String>,
}

/// The variant a `round` event means when it names none (TABLE-LOG.md).
const DEFAULT_VARIANT: &str = "new-eleusis";

impl ChainedHeader {
    /// Reads the header from the first stored event of a round (`kind`, `payload`).
    fn parse(kind: &str, payload: &str) -> Result<ChainedHeader, String> {
        if kind != "round" {
            return Err(format!(
                "its first event is a \"{kind}\" event, not \"round\""
            ));
        }
        let value: serde_json::Value = serde_json::from_str(payload)
            .map_err(|e| format!("its round event is not readable JSON: {e}"))?;
        let text = |key: &str| {
            value
                .get(key)
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        };
        let players = value
            .get("players")
            .and_then(serde_json::Value::as_array)
            .and_then(|list| {
                list.iter()
                    .map(|p| p.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or("its round event has no list of players")?;
        Ok(ChainedHeader {
            variant: text("variant").unwrap_or_else(|| DEFAULT_VARIANT.to_string()),
            god: text("god").ok_or("its round event names no God")?,
            players,
            commitment: text("commitment").ok_or("its round event carries no commitment")?,
            at: text("at"),
        })
    }

    /// Puts the chained facts into `info`, noting every index value they replace.
    /// Values are compared as they are, not as printed, and printed quoted with
    /// quotes and control characters escaped, so no name can make two different
    /// seatings look alike or break the report's lines.
    fn apply(self, info: &mut RoundInfo) {
        let quoted = |text: &str| format!("{text:?}");
        let list = |names: &[String]| format!("{names:?}");
        let mut differs = Vec::new();
        if info.variant != self.variant {
            differs.push((
                "rounds",
                "variant",
                quoted(&info.variant),
                quoted(&self.variant),
            ));
        }
        if info.god != self.god {
            differs.push(("rounds", "God", quoted(&info.god), quoted(&self.god)));
        }
        if info.players != self.players {
            differs.push((
                "round_players",
                "players",
                list(&info.players),
                list(&self.players),
            ));
        }
        if info.commitment != self.commitment {
            differs.push((
                "rounds",
                "commitment",
                quoted(&info.commitment),
                quoted(&self.commitment),
            ));
        }
        for (table, field, index, chained) in differs {
            info.index_mismatches.push(format!(
                "the {table} table says {field} {index}, the chained round event {chained}"
            ));
        }
        info.chained = true;
        info.variant = self.variant;
        info.god = self.god;
        info.players = self.players;
        info.commitment = self.commitment;
        // The rounds table's start time comes from another clock reading than the
        // event's: it is not compared, only replaced (an edited events-table time
        // is reported per event by the audit).
        if let Some(at) = self.at {
            info.started = at;
        }
    }
}

/// Each way a game's `players` table (`listed`) differs from the names its chained
/// `round` events state, God included, in name order: a listed name that no chained
/// round event names, and a name some chained round event states that the table
/// lacks (with the rounds that state it).
///
/// The `players` table ("everyone who sat at the game's table") is an index outside
/// the hash chain, like `rounds` and `round_players`: anyone with the file can add or
/// remove a name without breaking a link, so the audit holds it to the chain. Only
/// rounds whose `round` event could be read count (see [`RoundInfo::chained`]): a
/// round shown from the index tables proves nothing. Names are compared exactly and
/// printed quoted with quotes and control characters escaped, as in the round
/// tables' mismatches.
pub fn players_index_mismatches(listed: &[String], rounds: &[RoundInfo]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut named: BTreeMap<&str, Vec<RoundRef>> = BTreeMap::new();
    for info in rounds.iter().filter(|info| info.chained) {
        let names: BTreeSet<&str> = std::iter::once(info.god.as_str())
            .chain(info.players.iter().map(String::as_str))
            .collect();
        for name in names {
            named.entry(name).or_default().push(info.round);
        }
    }
    let listed: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
    let everyone: BTreeSet<&str> = listed
        .iter()
        .copied()
        .chain(named.keys().copied())
        .collect();
    everyone
        .into_iter()
        .filter_map(|name| match named.get(name) {
            None => Some(format!(
                "the players table lists {name:?}, whom no chained round event names"
            )),
            Some(rounds) if !listed.contains(name) => Some(format!(
                "the players table lacks {name:?}, whom {} {}",
                chained_round_events(rounds),
                if rounds.len() == 1 { "names" } else { "name" }
            )),
            Some(_) => None,
        })
        .collect()
}

/// `the chained round event of round 1.1`, `… events of rounds 1.1 and 1.2`,
/// `… events of rounds 1.1, 1.2 and 1.3`.
fn chained_round_events(rounds: &[RoundRef]) -> String {
    match rounds.split_last() {
        Some((only, [])) => format!("the chained round event of round {only}"),
        Some((last, before)) => {
            let before: Vec<String> = before.iter().map(ToString::to_string).collect();
            format!(
                "the chained round events of rounds {} and {last}",
                before.join(", ")
            )
        }
        None => "no chained round event".to_string(),
    }
}

/// Who starts a round; the rule travels separately, sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRound<'a> {
    pub variant: &'a str,
    pub god: &'a str,
    pub players: &'a [String],
}

/// The verdict of the chain over (part of) a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainStatus {
    /// Every link holds; the head hash and the number of events checked.
    Intact {
        head: String,
        events: usize,
    },
    Broken(Break),
}

impl Store {
    /// Creates a game and returns its id.
    pub fn new_game(&self) -> Result<GameId, StoreError> {
        self.conn()
            .execute("INSERT INTO games (created_ms) VALUES (?1)", [now_ms()])
            .map_err(|e| self.error("creating a game", e))?;
        Ok(GameId(self.conn().last_insert_rowid()))
    }

    /// Every game, oldest first.
    pub fn games(&self) -> Result<Vec<GameId>, StoreError> {
        let mut stmt = self
            .conn()
            .prepare("SELECT id FROM games ORDER BY id")
            .map_err(|e| self.error("listing games", e))?;
        let rows = stmt
            .query_map([], |row| row.get(0).map(GameId))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.error("listing games", e));
        rows
    }

    fn game_exists(&self, game: GameId) -> Result<(), StoreError> {
        let found = self
            .conn()
            .query_row("SELECT 1 FROM games WHERE id = ?1", [game.0], |_| Ok(()))
            .optional()
            .map_err(|e| self.error("looking up a game", e))?;
        found.ok_or(StoreError::UnknownGame(game))
    }

    fn round_id(&self, round: RoundRef) -> Result<i64, StoreError> {
        self.conn()
            .query_row(
                "SELECT id FROM rounds WHERE game_id = ?1 AND number = ?2",
                params![round.game.0, round.number],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.error("looking up a round", e))?
            .ok_or(StoreError::UnknownRound(round))
    }

    /// Opens a new round in `game`, with its sealed rule; returns its id. The
    /// round's first event (the `round` line) is appended by the caller.
    pub fn start_round(
        &self,
        game: GameId,
        round: &NewRound<'_>,
        seal: &Sealed,
    ) -> Result<RoundRef, StoreError> {
        self.game_exists(game)?;
        let number: u32 = self
            .conn()
            .query_row(
                "SELECT COALESCE(MAX(number), 0) + 1 FROM rounds WHERE game_id = ?1",
                [game.0],
                |row| row.get(0),
            )
            .map_err(|e| self.error("numbering a round", e))?;
        let now = now_ms();
        self.conn()
            .execute(
                "INSERT INTO rounds (game_id, number, variant, god, commitment, started_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    game.0,
                    number,
                    round.variant,
                    round.god,
                    seal.commitment(),
                    now
                ],
            )
            .map_err(|e| self.error("starting a round", e))?;
        let round_id = self.conn().last_insert_rowid();
        let mut add_player = self
            .conn()
            .prepare_cached("INSERT OR IGNORE INTO players (game_id, name) VALUES (?1, ?2)")
            .map_err(|e| self.error("adding players", e))?;
        add_player
            .execute(params![game.0, round.god])
            .map_err(|e| self.error("adding players", e))?;
        for (seat, name) in round.players.iter().enumerate() {
            add_player
                .execute(params![game.0, name])
                .map_err(|e| self.error("adding players", e))?;
            self.conn()
                .execute(
                    "INSERT INTO round_players (round_id, seat, name) VALUES (?1, ?2, ?3)",
                    params![round_id, seat as i64, name],
                )
                .map_err(|e| self.error("seating players", e))?;
        }
        self.conn()
            .execute(
                "INSERT INTO seals (round_id, rule, salt) VALUES (?1, ?2, ?3)",
                params![round_id, seal.for_god(), seal.salt()],
            )
            .map_err(|e| self.error("sealing the rule", e))?;
        Ok(RoundRef { game, number })
    }

    /// The last event of a game: its round, seq and hash.
    pub fn head(&self, game: GameId) -> Result<Option<(RoundRef, u64, String)>, StoreError> {
        let mut rounds = self
            .conn()
            .prepare_cached("SELECT id, number FROM rounds WHERE game_id = ?1 ORDER BY number DESC")
            .map_err(|e| self.error("finding the head", e))?;
        let rounds: Vec<(i64, u32)> = rounds
            .query_map([game.0], |row| Ok((row.get(0)?, row.get(1)?)))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.error("finding the head", e))?;
        let mut last = self
            .conn()
            .prepare_cached(
                "SELECT seq, hash FROM events WHERE round_id = ?1 ORDER BY seq DESC LIMIT 1",
            )
            .map_err(|e| self.error("finding the head", e))?;
        for (id, number) in rounds {
            let found = last
                .query_row([id], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
                })
                .optional()
                .map_err(|e| self.error("finding the head", e))?;
            if let Some((seq, hash)) = found {
                return Ok(Some((RoundRef { game, number }, seq as u64, hash)));
            }
        }
        Ok(None)
    }

    /// Appends one event to `round`, chained to the game's current head. The
    /// caller holds the write transaction.
    pub fn append(
        &self,
        round: RoundRef,
        kind: &str,
        payload: &str,
        recorded_ms: i64,
    ) -> Result<Appended, StoreError> {
        let round_id = self.round_id(round)?;
        let (seq, prev) = match self.head(round.game)? {
            Some((head_round, seq, hash)) => {
                let prev = chain::parse_hash(&hash).ok_or_else(|| StoreError::Inconsistent {
                    round: head_round,
                    what: format!("event {seq} has a malformed hash {hash:?}"),
                })?;
                if head_round == round {
                    (seq + 1, prev)
                } else if head_round.number < round.number {
                    (1, prev)
                } else {
                    return Err(StoreError::Inconsistent {
                        round,
                        what: format!("round {head_round} already has later events"),
                    });
                }
            }
            None => (1, chain::GENESIS),
        };
        let hash = hex::encode(chain::link_hash(&prev, seq, payload));
        self.conn()
            .prepare_cached(
                "INSERT INTO events (round_id, seq, recorded_ms, kind, payload, prev_hash, hash)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut stmt| {
                stmt.execute(params![
                    round_id,
                    seq as i64,
                    recorded_ms,
                    kind,
                    payload,
                    hex::encode(prev),
                    hash
                ])
            })
            .map_err(|e| self.error("appending an event", e))?;
        Ok(Appended {
            event_id: self.conn().last_insert_rowid(),
            round,
            seq,
            hash,
        })
    }

    /// Every event of a game in log order.
    pub fn events(&self, game: GameId) -> Result<Vec<StoredEvent>, StoreError> {
        self.game_exists(game)?;
        let mut stmt = self
            .conn()
            .prepare(
                "SELECT e.id, r.number, e.seq, e.recorded_ms, e.kind, e.payload, e.prev_hash, e.hash
                 FROM events e JOIN rounds r ON e.round_id = r.id
                 WHERE r.game_id = ?1 ORDER BY r.number, e.seq",
            )
            .map_err(|e| self.error("reading the log", e))?;
        let rows = stmt
            .query_map([game.0], |row| {
                Ok(StoredEvent {
                    id: row.get(0)?,
                    round: RoundRef {
                        game,
                        number: row.get(1)?,
                    },
                    seq: row.get::<_, i64>(2)? as u64,
                    recorded_ms: row.get(3)?,
                    kind: row.get(4)?,
                    payload: row.get(5)?,
                    prev_hash: row.get(6)?,
                    hash: row.get(7)?,
                })
            })
            .and_then(|rows| rows.collect())
            .map_err(|e| self.error("reading the log", e));
        rows
    }

    /// The public facts of every round of a game, in order: God, players, variant and
    /// commitment as the chained `round` event states them (see [`RoundInfo`]), with
    /// any disagreement of the index tables in `index_mismatches`.
    pub fn rounds(&self, game: GameId) -> Result<Vec<RoundInfo>, StoreError> {
        self.game_exists(game)?;
        let mut stmt = self
            .conn()
            .prepare(
                "SELECT r.id, r.number, r.variant, r.god, r.commitment, r.started_ms, s.revealed_ms
                 FROM rounds r LEFT JOIN seals s ON s.round_id = r.id
                 WHERE r.game_id = ?1 ORDER BY r.number",
            )
            .map_err(|e| self.error("reading rounds", e))?;
        let rows: Vec<(i64, RoundInfo)> = stmt
            .query_map([game.0], |row| {
                Ok((
                    row.get(0)?,
                    RoundInfo {
                        round: RoundRef {
                            game,
                            number: row.get(1)?,
                        },
                        variant: row.get(2)?,
                        god: row.get(3)?,
                        players: Vec::new(),
                        commitment: row.get(4)?,
                        started: format_utc(row.get(5)?),
                        revealed_ms: row.get(6)?,
                        index_mismatches: Vec::new(),
                        chained: false,
                    },
                ))
            })
            .and_then(|rows| rows.collect())
            .map_err(|e| self.error("reading rounds", e))?;
        let mut seats = self
            .conn()
            .prepare_cached("SELECT name FROM round_players WHERE round_id = ?1 ORDER BY seat")
            .map_err(|e| self.error("reading seats", e))?;
        let mut first = self
            .conn()
            .prepare_cached("SELECT kind, payload FROM events WHERE round_id = ?1 AND seq = 1")
            .map_err(|e| self.error("reading round events", e))?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, mut info) in rows {
            info.players = seats
                .query_map([id], |row| row.get(0))
                .and_then(|rows| rows.collect())
                .map_err(|e| self.error("reading seats", e))?;
            let event: Option<(String, String)> = first
                .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()
                .map_err(|e| self.error("reading round events", e))?;
            match event
                .ok_or_else(|| "it has no stored events".to_string())
                .and_then(|(kind, payload)| ChainedHeader::parse(&kind, &payload))
            {
                Ok(chained) => chained.apply(&mut info),
                Err(why) => info.index_mismatches.push(format!(
                    "God, players, variant and commitment cannot be checked against the \
                     chain ({why}); they are shown from the index tables, unverified"
                )),
            }
            out.push(info);
        }
        Ok(out)
    }

    /// The names in a game's `players` table, in byte order. The table is an index
    /// outside the hash chain, so these names are not evidence of who played: they
    /// are read to be checked against the chained `round` events
    /// ([`players_index_mismatches`], which the audit of a game reports).
    pub fn players_index(&self, game: GameId) -> Result<Vec<String>, StoreError> {
        self.game_exists(game)?;
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT name FROM players WHERE game_id = ?1 ORDER BY name")
            .map_err(|e| self.error("reading the players table", e))?;
        let names = stmt
            .query_map([game.0], |row| row.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.error("reading the players table", e));
        names
    }

    /// One round's public facts.
    pub fn round(&self, round: RoundRef) -> Result<RoundInfo, StoreError> {
        self.rounds(round.game)?
            .into_iter()
            .find(|info| info.round == round)
            .ok_or(StoreError::UnknownRound(round))
    }

    fn seal(&self, round: RoundRef) -> Result<(Sealed, Option<i64>), StoreError> {
        let id = self.round_id(round)?;
        let (rule, salt, revealed) = self
            .conn()
            .query_row(
                "SELECT rule, salt, revealed_ms FROM seals WHERE round_id = ?1",
                [id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .optional()
            .map_err(|e| self.error("reading a seal", e))?
            .ok_or_else(|| StoreError::Inconsistent {
                round,
                what: "the round has no sealed rule".into(),
            })?;
        Ok((Sealed::from_parts(rule, salt), revealed))
    }

    /// Publishes a round's rule and salt (at the round's end). Idempotent.
    pub fn reveal(&self, round: RoundRef) -> Result<Reveal, StoreError> {
        let id = self.round_id(round)?;
        let (seal, _) = self.seal(round)?;
        self.conn()
            .execute(
                "UPDATE seals SET revealed_ms = ?2 WHERE round_id = ?1 AND revealed_ms IS NULL",
                params![id, now_ms()],
            )
            .map_err(|e| self.error("revealing a rule", e))?;
        Ok(seal.reveal())
    }

    /// The reveal, when the round has ended; `None` while the rule is sealed.
    pub fn revealed(&self, round: RoundRef) -> Result<Option<Reveal>, StoreError> {
        let (seal, revealed) = self.seal(round)?;
        Ok(revealed.map(|_| seal.reveal()))
    }

    /// God's copy of the sealed rule, revealed or not. Only for callers acting for
    /// God (the God console, `export --god`, re-refereeing inside the store).
    pub fn seal_for_god(&self, round: RoundRef) -> Result<Sealed, StoreError> {
        self.seal(round).map(|(seal, _)| seal)
    }

    /// Checks the chain of a game, up to and including round `through` when given.
    pub fn verify_game(
        &self,
        game: GameId,
        through: Option<u32>,
    ) -> Result<ChainStatus, StoreError> {
        let events = self.events(game)?;
        let links = events
            .iter()
            .take_while(|e| through.is_none_or(|last| e.round.number <= last))
            .map(|e| Link {
                round: e.round,
                seq: e.seq,
                payload: &e.payload,
                prev_hash: &e.prev_hash,
                hash: &e.hash,
            });
        let count = links.clone().count();
        Ok(match chain::verify(links) {
            Ok(head) => ChainStatus::Intact {
                head: hex::encode(head),
                events: count,
            },
            Err(broken) => ChainStatus::Broken(broken),
        })
    }

    /// Keeps the outcome the referee announced for an event, as JSON.
    pub fn put_verdict(&self, event_id: i64, outcome: &str) -> Result<(), StoreError> {
        self.conn()
            .prepare_cached("INSERT INTO verdicts (event_id, outcome) VALUES (?1, ?2)")
            .and_then(|mut stmt| stmt.execute(params![event_id, outcome]))
            .map_err(|e| self.error("storing a verdict", e))?;
        Ok(())
    }

    /// The outcome announced for an event when it was recorded.
    pub fn verdict(&self, event_id: i64) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row(
                "SELECT outcome FROM verdicts WHERE event_id = ?1",
                [event_id],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.error("reading a verdict", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn players() -> Vec<String> {
        vec!["Alain".into(), "Jacques".into()]
    }

    /// A `round` event's payload as the recorder chains it.
    fn round_payload(god: &str, players: &[String], seal: &Sealed) -> String {
        serde_json::json!({
            "event": "round", "variant": "basic", "god": god, "players": players,
            "starter": "AH", "commitment": seal.commitment(), "at": "2024-01-01T00:00:00Z",
        })
        .to_string()
    }

    fn seeded() -> (tempfile::TempDir, Store, GameId, RoundRef) {
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(&dir.path().join("log.db")).expect("open");
        let (game, round) = store
            .write(|s| {
                let game = s.new_game()?;
                let players = players();
                let seal = Sealed::new("true");
                let round = s.start_round(
                    game,
                    &NewRound {
                        variant: "basic",
                        god: "Pierre",
                        players: &players,
                    },
                    &seal,
                )?;
                s.append(round, "round", &round_payload("Pierre", &players, &seal), 1)?;
                s.append(round, "play", r#"{"event":"play","cards":["8H"]}"#, 2)?;
                Ok((game, round))
            })
            .expect("seed");
        (dir, store, game, round)
    }

    #[test]
    fn appends_chain_across_rounds() {
        let (_dir, store, game, round) = seeded();
        let players = players();
        let second = store
            .write(|s| {
                let seal = Sealed::new("red");
                let r = s.start_round(
                    game,
                    &NewRound {
                        variant: "basic",
                        god: "Alain",
                        players: &players,
                    },
                    &seal,
                )?;
                s.append(r, "round", &round_payload("Alain", &players, &seal), 3)
            })
            .expect("second round");
        assert_eq!(second.seq, 1);
        assert_eq!(second.round.number, 2);
        let events = store.events(game).expect("events");
        assert_eq!(events.len(), 3);
        assert_eq!(
            events[2].prev_hash, events[1].hash,
            "round 2 chains to round 1"
        );
        assert_eq!(events[0].round, round);
        match store.verify_game(game, None).expect("verify") {
            ChainStatus::Intact { head, events } => {
                assert_eq!(head, second.hash);
                assert_eq!(events, 3);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_uncommitted_write_leaves_nothing() {
        let (_dir, store, game, round) = seeded();
        let result: Result<(), StoreError> = store.write(|s| {
            s.append(round, "play", r#"{"event":"play","cards":["9H"]}"#, 9)?;
            Err(StoreError::UnknownGame(GameId(99)))
        });
        assert!(result.is_err());
        assert_eq!(store.events(game).expect("events").len(), 2);
    }

    #[test]
    fn the_rule_stays_sealed_until_revealed() {
        let (_dir, store, _game, round) = seeded();
        assert_eq!(store.revealed(round).expect("sealed"), None);
        let info = store.round(round).expect("info");
        assert_eq!(info.players, players());
        assert_eq!(info.god, "Pierre");
        let reveal = store.write(|s| s.reveal(round)).expect("reveal");
        assert_eq!(reveal.rule, "true");
        assert_eq!(
            super::super::seal::commitment(&reveal.salt, &reveal.rule),
            info.commitment
        );
        assert_eq!(store.revealed(round).expect("revealed"), Some(reveal));
    }

    #[test]
    fn round_facts_come_from_the_chain_not_the_index_tables() {
        let (_dir, store, _game, round) = seeded();
        let info = store.round(round).expect("info");
        assert_eq!(info.index_mismatches, Vec::<String>::new());
        // Each edit an attacker with the file can make without touching the chain.
        let edits = [
            (
                "UPDATE rounds SET god = 'Mallory'",
                "rounds table says God \"Mallory\"",
            ),
            (
                "UPDATE rounds SET variant = 'gardner'",
                "variant \"gardner\"",
            ),
            ("UPDATE rounds SET commitment = 'ab'", "commitment \"ab\""),
            (
                "UPDATE round_players SET name = 'Zed' WHERE seat = 0",
                "players [\"Zed\", \"Jacques\"]",
            ),
            (
                "UPDATE round_players SET seat = seat + 10;
                 UPDATE round_players SET seat = 11 - seat",
                "players [\"Jacques\", \"Alain\"]",
            ),
            (
                "DELETE FROM round_players WHERE seat = 1",
                "players [\"Alain\"], the chained round event [\"Alain\", \"Jacques\"]",
            ),
            (
                "UPDATE round_players SET name = 'Alain\", \"Jacques' WHERE seat = 0;
                 DELETE FROM round_players WHERE seat = 1",
                "players [\"Alain\\\", \\\"Jacques\"]",
            ),
        ];
        for (sql, expected) in edits {
            let info = with_edit(&store, sql, |store| store.round(round).expect("info"));
            assert_eq!(info.god, "Pierre", "{sql}");
            assert_eq!(info.variant, "basic", "{sql}");
            assert_eq!(info.players, players(), "{sql}");
            assert_eq!(
                info.commitment,
                store.seal_for_god(round).expect("seal").commitment(),
                "{sql}"
            );
            assert_eq!(info.index_mismatches.len(), 1, "{sql}: {info:?}");
            assert!(
                info.index_mismatches[0].contains(expected),
                "{sql}: {:?}",
                info.index_mismatches
            );
        }
    }

    /// A round's facts as [`Store::rounds`] gives them, for the pure check.
    fn info(number: u32, god: &str, players: &[&str], chained: bool) -> RoundInfo {
        RoundInfo {
            round: RoundRef {
                game: GameId(1),
                number,
            },
            variant: "basic".into(),
            god: god.into(),
            players: players.iter().map(|p| p.to_string()).collect(),
            commitment: "ab".into(),
            started: "2024-01-01T00:00:00.000Z".into(),
            revealed_ms: None,
            index_mismatches: Vec::new(),
            chained,
        }
    }

    /// What `read` finds in the store with `sql` applied, the edit undone after.
    fn with_edit<T>(store: &Store, sql: &str, read: impl FnOnce(&Store) -> T) -> T {
        store
            .conn()
            .execute_batch("SAVEPOINT edit")
            .expect("savepoint");
        store.conn().execute_batch(sql).expect(sql);
        let found = read(store);
        store
            .conn()
            .execute_batch("ROLLBACK TO edit; RELEASE edit")
            .expect("rollback");
        found
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_players_table_is_held_to_the_chained_round_events() {
        let rounds = [
            info(1, "Gil", &["Ana", "Bo"], true),
            info(2, "Ana", &["Bo", "Gil"], true),
            info(3, "Cy", &["Ana", "Bo"], true),
        ];
        let all = names(&["Ana", "Bo", "Cy", "Gil"]);
        assert_eq!(
            players_index_mismatches(&all, &rounds),
            Vec::<String>::new()
        );
        assert_eq!(
            players_index_mismatches(&names(&["Ana", "Bo", "Cy", "Gil", "Mallory"]), &rounds),
            ["the players table lists \"Mallory\", whom no chained round event names"]
        );
        assert_eq!(
            players_index_mismatches(&names(&["Bo", "Gil"]), &rounds),
            [
                "the players table lacks \"Ana\", whom the chained round events of rounds 1.1, 1.2 and 1.3 name",
                "the players table lacks \"Cy\", whom the chained round event of round 1.3 names",
            ]
        );
        // Gil is God of one round and a player of another: two rounds, each once.
        assert_eq!(
            players_index_mismatches(&names(&["Ana", "Bo", "Cy"]), &rounds),
            ["the players table lacks \"Gil\", whom the chained round events of rounds 1.1 and 1.2 name"]
        );
        // Names are compared exactly and quoted with their escapes.
        assert_eq!(
            players_index_mismatches(
                &names(&["Ana", "Bo", "Cy", "Gil", "gil", "Bo\n\u{202e}"]),
                &rounds
            ),
            [
                "the players table lists \"Bo\\n\\u{202e}\", whom no chained round event names",
                "the players table lists \"gil\", whom no chained round event names",
            ]
        );
    }

    #[test]
    fn a_round_shown_from_the_index_tables_vouches_for_no_name() {
        let rounds = [
            info(1, "Gil", &["Ana", "Bo"], true),
            info(2, "Mallory", &["Zed", "Bo"], false),
        ];
        assert_eq!(
            players_index_mismatches(&names(&["Ana", "Bo", "Gil", "Mallory"]), &rounds),
            ["the players table lists \"Mallory\", whom no chained round event names"],
            "Zed, absent from the table, is named by no chained event either"
        );
        assert_eq!(
            players_index_mismatches(&[], &[]),
            Vec::<String>::new(),
            "a game with no round has nobody at its table"
        );
    }

    #[test]
    fn the_stored_players_table_agrees_with_the_chain_until_edited() {
        let (_dir, store, game, _round) = seeded();
        let listed = store.players_index(game).expect("players");
        assert_eq!(listed, names(&["Alain", "Jacques", "Pierre"]));
        let rounds = store.rounds(game).expect("rounds");
        assert!(rounds.iter().all(|info| info.chained), "{rounds:?}");
        assert_eq!(
            players_index_mismatches(&listed, &rounds),
            Vec::<String>::new()
        );
        let edits = [
            (
                "INSERT INTO players (game_id, name) VALUES (1, 'Mallory')",
                "the players table lists \"Mallory\", whom no chained round event names",
            ),
            (
                "DELETE FROM players WHERE name = 'Jacques'",
                "the players table lacks \"Jacques\", whom the chained round event of round 1.1 names",
            ),
        ];
        for (sql, expected) in edits {
            let listed = with_edit(&store, sql, |store| {
                store.players_index(game).expect("players")
            });
            assert_eq!(
                players_index_mismatches(&listed, &rounds),
                [expected],
                "{sql}"
            );
        }
        let err = store.players_index(GameId(game.0 + 1)).unwrap_err();
        assert!(matches!(err, StoreError::UnknownGame(_)), "{err}");
    }

    #[test]
    fn a_round_without_its_chained_event_is_flagged() {
        let (_dir, store, game, _round) = seeded();
        // A round row forged into the index with no event behind it.
        let forged = store
            .write(|s| {
                s.start_round(
                    game,
                    &NewRound {
                        variant: "basic",
                        god: "Mallory",
                        players: &players(),
                    },
                    &Sealed::new("true"),
                )
            })
            .expect("forge");
        let info = store.round(forged).expect("info");
        assert_eq!(info.god, "Mallory", "nothing better to show");
        assert!(!info.chained);
        assert_eq!(info.index_mismatches.len(), 1);
        assert!(
            info.index_mismatches[0].contains("cannot be checked")
                && info.index_mismatches[0].contains("no stored events"),
            "{:?}",
            info.index_mismatches
        );
    }

    #[test]
    fn unknown_ids_are_reported() {
        let (_dir, store, game, _round) = seeded();
        let err = store.events(GameId(game.0 + 1)).unwrap_err();
        assert!(matches!(err, StoreError::UnknownGame(_)), "{err}");
        let err = store.round(RoundRef { game, number: 7 }).unwrap_err();
        assert!(err.to_string().contains("no round 1.7"), "{err}");
    }
}
