//! `eleusis export ID --frames DIR`: the frames kept as evidence of a game's plays
//! and no-plays, each beside a sidecar naming the cards God recorded, as a folder
//! `eleusis recognize --check DIR` scores.
//!
//! Every play God confirmed, corrected or typed is a photograph of real cards,
//! under the table's own light and camera, labelled by the person who could see
//! them. An evening of play is the check of the camera and deck that no rendered
//! set can be, and the frames whose reads God corrected are what a fine-tuning run
//! needs. The labels are the cards as the game now holds them (corrections
//! applied), named left to right as the play lists them (scored by order); the
//! sidecar's zone is the part of the frame around the outlines the recognizer
//! found for them, so the main line and other cards in view are set aside rather
//! than counted as spurious.

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::store::audit::{audit, AuditReport, EventAudit, ReadAudit};
use crate::store::evidence::{counted, ReadStatus};
use crate::store::history::{require_intact_chain, standard_referee};
use crate::store::{Store, Target};
use crate::vision::frame::decode_frame;
use crate::vision::geometry::{Point, Quad};
use crate::vision::watcher::Zone;

/// One exported frame: its file name (without extension), the stored frame it
/// is, and its sidecar.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledFrame {
    pub name: String,
    pub sha256: String,
    pub sidecar: Value,
    /// How each card's read stands against its label, the card now (one per read
    /// the evidence kept): what a check scores.
    pub statuses: Vec<ReadStatus>,
    /// How many of those cards a correction changed after the table: their
    /// labels differ from what God recorded then, so a read God confirmed at the
    /// table may count as corrected here.
    pub corrected_later: usize,
}

/// How a read stands against its label (the card the event holds now, a later
/// correction included): the recognizer read it, read another card, or read no
/// index. This, not the status at the table, is what `recognize --check` will
/// score, and the corrected reads are the ones a fine-tuning run wants.
fn label_status(read: &ReadAudit) -> ReadStatus {
    let label = read.corrected_later_to.unwrap_or(read.card);
    match read.read {
        None => ReadStatus::Typed,
        Some(card) if card == label => ReadStatus::Confirmed,
        Some(_) => ReadStatus::Corrected,
    }
}

/// What an export found: the frames to write, and the events that hold cards and
/// name a frame that cannot be exported (kept as a reference only, or missing or
/// altered in the database), in words.
#[derive(Debug, Default)]
pub struct FrameSet {
    pub frames: Vec<LabelledFrame>,
    pub not_exported: Vec<String>,
    /// Exported events whose reads do not pair with their cards (a correction
    /// added or removed a card): no zone and no statuses in their sidecars.
    pub unpaired: Vec<String>,
}

/// The labelled frames of an audit's events. `round` keeps one round (`GAME.ROUND`
/// as the audit names it); `frame_size` gives a stored frame's width and height
/// as the recognizer reads it (`None`: it does not decode).
pub fn labelled_frames(
    report: &AuditReport,
    round: Option<&str>,
    frame_size: impl Fn(&str) -> Option<(u32, u32)>,
) -> FrameSet {
    let mut set = FrameSet::default();
    for r in report
        .rounds
        .iter()
        .filter(|r| round.is_none_or(|n| r.round == n))
    {
        for event in &r.events {
            let Some(frame) = &event.frame else { continue };
            if event.cards.is_empty() || !matches!(event.event.as_str(), "play" | "no_play") {
                continue;
            }
            let place = format!("round {} event {}", r.round, event.seq);
            let Some(sha256) = &frame.sha256 else {
                set.not_exported.push(format!(
                    "{place}: its frame is kept elsewhere ({})",
                    frame.reference.as_deref().unwrap_or("no reference")
                ));
                continue;
            };
            if frame.intact != Some(true) {
                set.not_exported.push(format!(
                    "{place}: frame {sha256} is missing or altered (see `eleusis audit`)"
                ));
                continue;
            }
            let Some((width, height)) = frame_size(sha256) else {
                set.not_exported
                    .push(format!("{place}: frame {sha256} does not decode"));
                continue;
            };
            // Reads pair with cards only when a correction left their count alone:
            // otherwise the audit matched them as far as both go, and neither their
            // statuses nor the outlines say where every card lies.
            let paired = event.reads_note.is_none();
            set.frames.push(LabelledFrame {
                name: format!("round-{}-event-{:03}", r.round, event.seq),
                sha256: sha256.clone(),
                sidecar: sidecar(report, &r.round, event, sha256, (width, height), paired),
                statuses: if paired {
                    event.reads.iter().map(label_status).collect()
                } else {
                    Vec::new()
                },
                corrected_later: if paired {
                    event
                        .reads
                        .iter()
                        .filter(|read| read.corrected_later_to.is_some())
                        .count()
                } else {
                    0
                },
            });
            if !paired {
                set.unpaired.push(place);
            }
        }
    }
    set
}

/// The sidecar of one event's frame: the cards, the zone around their outlines
/// (when the evidence kept an outline for every read and the reads are `paired`
/// with the cards), and in `meta` where the frame comes from and how each card
/// was read.
fn sidecar(
    report: &AuditReport,
    round: &str,
    event: &EventAudit,
    sha256: &str,
    (width, height): (u32, u32),
    paired: bool,
) -> Value {
    let outlines: Option<Vec<Quad>> = event
        .reads
        .iter()
        .map(|read| read.corners.map(|c| Quad(c.map(|[x, y]| Point::new(x, y)))))
        .collect();
    let zone = outlines
        .filter(|o| paired && !o.is_empty())
        .and_then(|o| Zone::around(&o, width, height));
    let reads: Vec<Value> = event
        .reads
        .iter()
        .map(|read| {
            let mut shown = json!({
                "read": read.read.map(|c| c.to_string()),
                "confidence": read.confidence,
            });
            if paired {
                // Against the label in `cards`; where a correction changed the
                // card after the table, also how God took the read there (the
                // reads table's status) and the corrections that changed it.
                shown["status"] = json!(label_status(read).as_str());
                if read.corrected_later_to.is_some() {
                    shown["status_at_table"] = json!(read.status.as_str());
                    shown["recorded_at_table"] = json!(read.card.to_string());
                    shown["corrected_later_by"] = json!(read.corrected_later_by);
                }
            }
            // With its card (same place in `cards`), the outline is what a
            // fine-tuning run cuts the card from.
            if let Some(corners) = read.corners {
                shown["corners"] = json!(corners);
            }
            shown
        })
        .collect();
    let mut meta = json!({
        "game": report.game,
        "round": round,
        "event": event.seq,
        "kind": event.event,
        "frame": sha256,
        "size": [width, height],
        "reads": reads,
    });
    if let Some(player) = &event.player {
        meta["player"] = json!(player);
    }
    if let Some(note) = &event.reads_note {
        meta["reads_note"] = json!(note);
    }
    let mut sidecar = json!({
        "cards": event.cards.iter().map(ToString::to_string).collect::<Vec<_>>(),
    });
    if let Some(z) = zone {
        // Widened to four decimals, never narrowed: a card at its edge stays in.
        let down = |v: f64| (v * 1e4).floor() / 1e4;
        let up = |v: f64| ((v * 1e4).ceil() / 1e4).min(1.0);
        sidecar["zone"] = json!([down(z.x0), down(z.y0), up(z.x1), up(z.y1)]);
    }
    sidecar["meta"] = meta;
    sidecar
}

/// Exports the frames of `target` from `db` into `dir` and says what was written.
pub fn export_frames(db: &Path, target: Target, dir: &Path) -> Result<String> {
    let store = Store::open_read_only(db)?;
    let report = audit(&store, &standard_referee(), target, false)
        .with_context(|| format!("reading the plays of {target}"))?;
    // Labels from altered events would teach a check set the wrong cards.
    if let Some(broken) = &report.chain.broken_at {
        anyhow::bail!(
            "game {}'s hash chain is broken at round {} event {}: {}: the stored events were altered after they were recorded, so no frames are exported with their labels; run `eleusis audit {}` to see where",
            report.game, broken.round, broken.seq, broken.reason, report.game
        );
    }
    // So would labels of plays re-refereed under a rule altered since the
    // commitment (the cards are God's, but the report's verdicts are not).
    let (game, through) = match target {
        Target::Game(g) => (g, None),
        Target::Round(r) => (r.game, Some(r.number)),
    };
    require_intact_chain(&store, game, through)?;
    let round = match target {
        Target::Round(r) => Some(r.to_string()),
        Target::Game(_) => None,
    };
    let size = |sha: &str| -> Option<(u32, u32)> {
        let bytes = store.frame(sha).ok()??;
        let image = decode_frame(&bytes, sha).ok()?;
        Some((image.width(), image.height()))
    };
    let set = labelled_frames(&report, round.as_deref(), size);
    if set.frames.is_empty() {
        let mut why = format!(
            "no play or no-play of {target} kept a frame as evidence in {}: nothing to export",
            db.display()
        );
        if !set.not_exported.is_empty() {
            why += &format!(" ({})", set.not_exported.join("; "));
        }
        bail!(why);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut cards = 0;
    let mut later = 0;
    let mut statuses = Vec::new();
    for frame in &set.frames {
        let bytes = store
            .frame(&frame.sha256)?
            .with_context(|| format!("frame {} vanished from the database", frame.sha256))?;
        let image = dir.join(format!("{}.jpg", frame.name));
        std::fs::write(&image, bytes).with_context(|| format!("writing {}", image.display()))?;
        let labels = dir.join(format!("{}.json", frame.name));
        let text = serde_json::to_string_pretty(&frame.sidecar)? + "\n";
        std::fs::write(&labels, text).with_context(|| format!("writing {}", labels.display()))?;
        cards += frame.sidecar["cards"].as_array().map_or(0, Vec::len);
        statuses.extend_from_slice(&frame.statuses);
        later += frame.corrected_later;
    }
    let with_status = |status: ReadStatus| statuses.iter().filter(|s| **s == status).count();
    let mut text = format!(
        "wrote {} of {target} to {}: {} as recorded; of the recognizer's reads of them God confirmed {}, corrected {}, typed {} (no index read)\n",
        counted(set.frames.len(), "frame"),
        dir.display(),
        counted(cards, "card"),
        with_status(ReadStatus::Confirmed),
        with_status(ReadStatus::Corrected),
        with_status(ReadStatus::Typed),
    );
    if later > 0 {
        // The counts are the table's; the labels are the cards now.
        text.insert_str(
            text.len() - 1,
            &format!(
                "; a correction made after the table changed {later} of these cards, counted against the cards now"
            ),
        );
    }
    for place in &set.unpaired {
        text += &format!(
            "{place}: a correction changed how many cards it holds, so its reads do not pair with them: exported without a zone or statuses\n"
        );
    }
    for why in &set.not_exported {
        text += &format!("not exported: {why}\n");
    }
    text += &format!(
        "check the camera and the recognizer on them: eleusis recognize --check {}\n",
        dir.display()
    );
    Ok(text)
}
