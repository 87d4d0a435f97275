//! The audit of a round (or a whole game): every event with its time, player, cards,
//! the recognizer's reads and confidences, the frame, the verdict and its
//! explanation, penalties, corrections and whether a correction changed the verdict;
//! the seal (commitment, or rule and salt re-hashed once revealed) and the hash
//! chain check, with the first broken link.
//!
//! Before the reveal the rule's explanations are withheld (they would give the rule
//! away); the verdicts themselves are public at the table and are shown.

use serde::Serialize;
use serde_json::Value;

use super::chain::Break;
use super::evidence::{counted, Evidence, ReadStatus};
use super::history::{decision, EntryKind, History, HistoryError, RefereeFactory};
use super::log::{players_index_mismatches, ChainStatus, RoundInfo};
use super::printable::printable;
use super::seal::commitment;
use super::{Store, StoreError, Target};
use crate::cards::Card;
use crate::referee::{Effect, LogEvent, Outcome};

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

/// A card read.
#[derive(Debug, Clone, Serialize)]
pub struct ReadAudit {
    pub card: Card,
    /// `None` (`null`): the recognizer found the card's outline but read no index
    /// on it (glare, a hard shadow); God typed the card.
    pub read: Option<Card>,
    pub confidence: f64,
    pub status: ReadStatus,
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
    /// `right` / `wrong` for plays and no-plays.
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
    /// For a `correct` event: what it corrects and how.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correction: Option<Value>,
    /// The decision now differs from the one announced when it was recorded.
    pub changed: bool,
    /// What was announced when recorded, when it differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub announced: Option<String>,
    pub hash: String,
}

fn cards_of(event: &LogEvent) -> Vec<Card> {
    match event {
        LogEvent::Play(p) => p.cards.clone(),
        LogEvent::NoPlay(n) => n.hand.clone(),
        LogEvent::Round(r) => vec![r.starter],
        _ => Vec::new(),
    }
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

/// The effects of an outcome in words, without the rule's explanations; penalties are
/// listed on their own.
fn effects(outcome: &Outcome) -> Vec<String> {
    outcome
        .effects()
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::Penalty(_) => None,
            Effect::Overthrown(name) => Some(format!("false prophet {name} overthrown")),
            Effect::Said(text) => Some(text),
        })
        .collect()
}

fn announced_summary(recorded: &Value) -> String {
    let right = match recorded.get("right").and_then(Value::as_bool) {
        Some(true) => "right",
        Some(false) => "wrong",
        None => "no verdict",
    };
    let penalties: Vec<String> = recorded
        .get("penalties")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|p| {
                    format!(
                        "{} +{}",
                        p.get("player").and_then(Value::as_str).unwrap_or("?"),
                        p.get("cards").and_then(Value::as_u64).unwrap_or(0)
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if penalties.is_empty() {
        right.to_string()
    } else {
        format!("{right}, penalties {}", penalties.join(", "))
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
        let eff = h.effective(None).map_err(|e| e.to_string())?;
        let (_, outcomes) = h.replay(factory, &eff).map_err(|e| e.to_string())?;
        Ok((eff, outcomes))
    });
    let history = match history {
        Ok(h) => h,
        Err(HistoryError::Store(e)) => return Err(e),
        Err(e) => {
            problems.push(format!("the stored log cannot be read: {e}"));
            return Ok(AuditReport {
                game: game.to_string(),
                rounds: Vec::new(),
                chain,
                problems,
            });
        }
    };
    let (effective, outcomes) = match replayed {
        Ok(pair) => pair,
        Err(e) => {
            problems.push(format!("the stored log does not replay: {e}"));
            (Vec::new(), Vec::new())
        }
    };

    let position_of: std::collections::HashMap<usize, usize> = effective
        .iter()
        .enumerate()
        .map(|(position, e)| (e.entry, position))
        .collect();
    let mut rounds = Vec::new();
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
            None => SealAudit::Sealed,
        };
        let show_explanations = for_god || revealed.is_some();
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
                correction: None,
                changed: false,
                announced: None,
                hash: entry.stored.hash.clone(),
            };
            if let EntryKind::Correction(c) = &entry.kind {
                audit.correction = Some(serde_json::json!({
                    "corrects": format!("{}:{}", c.target, c.seq),
                    "fields": c.fields,
                }));
                events.push(audit);
                continue;
            }
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
                audit.effects = effects(outcome);
                audit.penalties = outcome.penalties.iter().map(ToString::to_string).collect();
                audit.corrected_by = eff
                    .corrected_by
                    .iter()
                    .filter_map(|&i| history.entries.get(i))
                    .map(|e| format!("{}:{}", e.stored.round, e.stored.seq))
                    .collect();
                if let Some(end) = &outcome.round_end {
                    scores = serde_json::to_value(&end.scores).ok();
                }
                let now = decision(&serde_json::to_value(outcome).unwrap_or(Value::Null));
                if let Some(recorded) = store.verdict(entry.stored.id)? {
                    match serde_json::from_str::<Value>(&recorded) {
                        Ok(recorded) => {
                            if decision(&recorded) != now {
                                audit.changed = true;
                                audit.announced = Some(announced_summary(&recorded));
                            }
                        }
                        Err(_) => problems.push(format!(
                            "round {} event {}: the announced verdict is unreadable",
                            info.round, entry.stored.seq
                        )),
                    }
                }
            } else if let EntryKind::Table(object) = &entry.kind {
                // The log does not replay: show the event as recorded.
                if let Ok(event) = LogEvent::parse_line(&Value::Object(object.clone()).to_string())
                {
                    audit.cards = cards_of(&event);
                }
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
                audit.reads = evidence
                    .statuses(&audit.cards)
                    .map(|(_, read, card, status)| ReadAudit {
                        card,
                        read: read.read,
                        confidence: read.confidence,
                        status,
                        corners: read.corners,
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
    Ok(AuditReport {
        game: game.to_string(),
        rounds,
        chain,
        problems,
    })
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
                        .map(|r| match (r.read, r.status) {
                            (Some(read), ReadStatus::Confirmed) => {
                                format!("{read} {:.2} confirmed", r.confidence)
                            }
                            (Some(read), _) => {
                                format!("{read} {:.2} corrected to {}", r.confidence, r.card)
                            }
                            (None, _) => format!("no index read, typed {}", r.card),
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
                    line(format!("      correction: {c}"));
                }
                if !e.corrected_by.is_empty() {
                    line(format!("      corrected by {}", e.corrected_by.join(", ")));
                }
                if e.changed {
                    line(format!(
                        "      CHANGED by a correction; announced at the table: {}",
                        e.announced.as_deref().unwrap_or("?")
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
                    correction: None,
                    changed: false,
                    announced: None,
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
}
