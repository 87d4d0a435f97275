//! Evidence of a play: the camera frame the cards were read from, what the
//! recognizer read for each card with its confidence, and whether God confirmed the
//! read or corrected it (the card recorded in the event differs from the read).
//!
//! On a table-log line, evidence is an optional extension field:
//!
//! ```json
//! {"event":"play","cards":["8H"],
//!  "evidence":{"frame":"captures/0007.jpg","reads":[{"read":"8D","confidence":0.61}]}}
//! ```
//!
//! `frame` is a JPEG file (read and stored in the database, addressed by its
//! SHA-256); `frame_ref` is a reference kept as text when frames are archived
//! elsewhere; `reads` has one entry per card of the play (or of the shown hand of a
//! `no_play`), in the same order (an empty list is a wrong count, not "no reads":
//! leave `reads` out for that). Every field is optional; `evidence` and each read
//! are objects, never lists of their values. A read may also carry the
//! card's `corners` in the frame (`[[x, y]; 4]`: top-left, top-right, bottom-right,
//! bottom-left of the portrait card, as the recognizer reported them), so that an
//! audit can show the card as it was read. A read of `null` is a
//! card-shaped outline on which the recognizer read no index — a card in a lamp's
//! glare or a hard shadow — whose card God typed: it is kept, with its outline, so
//! that an audit shows the table what the camera saw there.

use std::path::Path;

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::{now_ms, Store, StoreError};
use crate::cards::Card;
use crate::json_input::{shown_number as shown, ObjectOnly};

/// Evidence that could not be taken as given.
#[derive(Debug, Error)]
pub enum EvidenceError {
    /// The field that does not fit and why, named from the line's top
    /// (`field "evidence.reads", item 1, field "confidence": …`).
    #[error("{0}")]
    Malformed(String),
    #[error("evidence frame {path}: cannot read it: {source}")]
    FrameFile {
        path: String,
        source: std::io::Error,
    },
    #[error("evidence frame {path}: not a JPEG image (it must start with FF D8 FF)")]
    NotJpeg { path: String },
    #[error("evidence: {} for {} (give one read per card, in order, or leave \"reads\" out)", counted(*reads, "card read"), counted(*cards, "card"))]
    ReadCount { reads: usize, cards: usize },
    #[error("evidence: read {position} has a corner at [{}, {}], expected numbers within {limit} pixels of the frame's origin (frames are at most {max_side} pixels a side)", shown(*x), shown(*y), limit = CORNER_LIMIT, max_side = MAX_FRAME_SIDE)]
    Corner { position: usize, x: f64, y: f64 },
    #[error("evidence: read {position} has confidence {}, expected a number from 0 to 1", shown(*value))]
    Confidence { position: usize, value: f64 },
    #[error("evidence frame {path:?}: must be a relative path inside the frames directory (no leading /, no ..)")]
    FrameOutside { path: String },
    #[error("evidence on a {kind:?} event: only play and no_play lines carry evidence")]
    WrongEvent { kind: String },
}

/// The longest side of a frame the recognizer reads (`vision::frame::MAX_SIDE`).
const MAX_FRAME_SIDE: f64 = 8192.0;
/// How far from the frame's origin a read's corner may lie: a card cut by the
/// frame's edge has corners outside it, but not a whole frame away.
const CORNER_LIMIT: f64 = 2.0 * MAX_FRAME_SIDE;

/// `n` and `noun`, plural when `n` is not 1: `1 card`, `2 card reads`.
pub(crate) fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// One card as the recognizer read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardRead {
    /// The card read; `None` for an outline of a card's shape on which no index
    /// could be read (God typed the card). Written as `null`, never left out, so
    /// the chained payload says so; and given, never left out, on a log line (a
    /// line without it is refused as a missing field, not taken as "no read").
    #[serde(deserialize_with = "Option::deserialize")]
    pub read: Option<Card>,
    pub confidence: f64,
    /// Where the card lay in the frame, when the reader says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corners: Option<[[f64; 2]; 4]>,
}

/// Evidence as written on a table-log line.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceInput {
    #[serde(default)]
    pub frame: Option<String>,
    #[serde(default)]
    pub frame_ref: Option<String>,
    /// `None` when not given. Given, it holds one read per card: an empty list
    /// says "no card was read" of a play whose cards were laid, and is refused as
    /// any other wrong count is, rather than taken for "no reads".
    #[serde(default, deserialize_with = "read_objects")]
    pub reads: Option<Vec<CardRead>>,
}

/// The reads of a line, each an object (a read given as a list of its values
/// would pass by the checks made on its fields by name).
fn read_objects<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<CardRead>>, D::Error> {
    let reads = Vec::<ObjectOnly<CardRead>>::deserialize(deserializer)?;
    Ok(Some(reads.into_iter().map(|read| read.0).collect()))
}

/// Evidence as stored (inside the chained event payload): the frame is named by
/// the SHA-256 of its bytes, so a swapped frame is detected.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<CardRead>,
}

/// Whether God let the recognizer's read stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadStatus {
    /// The recorded card is the one read.
    Confirmed,
    /// God recorded another card than the one read.
    Corrected,
    /// The recognizer read no index on this card's outline; God typed the card.
    Typed,
}

impl ReadStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReadStatus::Confirmed => "confirmed",
            ReadStatus::Corrected => "corrected",
            ReadStatus::Typed => "typed",
        }
    }
}

/// A JPEG frame with its content address.
#[derive(Debug, Clone)]
pub struct Frame {
    pub sha256: String,
    pub jpeg: Vec<u8>,
}

impl Frame {
    /// Checks the bytes are a JPEG and computes their address.
    pub fn from_jpeg(name: &str, jpeg: Vec<u8>) -> Result<Frame, EvidenceError> {
        if !jpeg.starts_with(&[0xFF, 0xD8, 0xFF]) {
            return Err(EvidenceError::NotJpeg {
                path: name.to_string(),
            });
        }
        Ok(Frame {
            sha256: hex::encode(Sha256::digest(&jpeg)),
            jpeg,
        })
    }
}

impl EvidenceInput {
    /// Parses the `evidence` field of a line.
    pub fn from_json(value: serde_json::Value) -> Result<EvidenceInput, EvidenceError> {
        EvidenceInput::parse(&value)
    }

    /// Parses the `evidence` field of a line (or of an API body), which must be
    /// an object: serde would read the struct from a list of its values too, and
    /// a frame given so is not the field `frame` the callers check.
    pub fn parse(value: &serde_json::Value) -> Result<EvidenceInput, EvidenceError> {
        // The error names the field that does not fit, in the log's words.
        crate::json_input::from_field_value::<ObjectOnly<EvidenceInput>>(value, "evidence")
            .map(|input| input.0)
            .map_err(|e| EvidenceError::Malformed(e.reason))
    }

    /// Checks the evidence against the cards of its event and loads the frame file
    /// (relative paths are taken from `base`).
    pub fn resolve(
        self,
        cards: &[Card],
        base: &Path,
    ) -> Result<(Evidence, Option<Frame>), EvidenceError> {
        let given = self.reads.is_some();
        let reads = self.reads.unwrap_or_default();
        if given && reads.len() != cards.len() {
            return Err(EvidenceError::ReadCount {
                reads: reads.len(),
                cards: cards.len(),
            });
        }
        for (i, read) in reads.iter().enumerate() {
            if !(0.0..=1.0).contains(&read.confidence) {
                return Err(EvidenceError::Confidence {
                    position: i + 1,
                    value: read.confidence,
                });
            }
            // An audit cuts the card out of the frame along these: they must be
            // places in or near a frame, not 1e308.
            for &[x, y] in read.corners.iter().flatten() {
                if !(x.abs() <= CORNER_LIMIT && y.abs() <= CORNER_LIMIT) {
                    return Err(EvidenceError::Corner {
                        position: i + 1,
                        x,
                        y,
                    });
                }
            }
        }
        let frame = match &self.frame {
            Some(name) => {
                // The frames directory is the only place a line may point into.
                let path = Path::new(name);
                let inside = path
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
                if !inside || name.is_empty() {
                    return Err(EvidenceError::FrameOutside { path: name.clone() });
                }
                let bytes =
                    std::fs::read(base.join(name)).map_err(|source| EvidenceError::FrameFile {
                        path: name.clone(),
                        source,
                    })?;
                Some(Frame::from_jpeg(name, bytes)?)
            }
            None => None,
        };
        let evidence = Evidence {
            frame_sha256: frame.as_ref().map(|f| f.sha256.clone()),
            frame_name: self.frame,
            frame_ref: self.frame_ref,
            reads,
        };
        Ok((evidence, frame))
    }
}

impl Evidence {
    /// The status of each read against the cards finally recorded.
    pub fn statuses<'a>(
        &'a self,
        cards: &'a [Card],
    ) -> impl Iterator<Item = (usize, &'a CardRead, Card, ReadStatus)> + 'a {
        self.reads
            .iter()
            .zip(cards)
            .enumerate()
            .map(|(i, (read, &card))| {
                let status = match read.read {
                    None => ReadStatus::Typed,
                    Some(read) if read == card => ReadStatus::Confirmed,
                    Some(_) => ReadStatus::Corrected,
                };
                (i, read, card, status)
            })
    }

    /// Whether there is anything to store.
    pub fn is_empty(&self) -> bool {
        self.frame_sha256.is_none() && self.frame_ref.is_none() && self.reads.is_empty()
    }
}

impl Store {
    /// Stores a JPEG frame (once per content) and returns its SHA-256 address.
    /// For the live service, which has the frame in memory.
    pub fn put_frame(&self, frame: &Frame) -> Result<String, StoreError> {
        self.conn()
            .execute(
                "INSERT OR IGNORE INTO frames (sha256, jpeg, stored_ms) VALUES (?1, ?2, ?3)",
                params![frame.sha256, frame.jpeg, now_ms()],
            )
            .map_err(|e| self.error("storing a frame", e))?;
        Ok(frame.sha256.clone())
    }

    /// A stored frame by address, checked against it: `Ok(None)` when absent.
    pub fn frame(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.conn()
            .query_row(
                "SELECT jpeg FROM frames WHERE sha256 = ?1",
                [sha256],
                |row| row.get::<_, Vec<u8>>(0),
            )
            .optional()
            .map_err(|e| self.error("reading a frame", e))
    }

    /// Stores the per-card reads of an event (a queryable copy of the chained
    /// evidence) with God's confirmation status.
    pub fn put_reads(
        &self,
        event_id: i64,
        evidence: &Evidence,
        cards: &[Card],
    ) -> Result<(), StoreError> {
        let mut insert = self
            .conn()
            .prepare_cached(
                "INSERT INTO reads (event_id, position, card, read, confidence, status, frame, frame_ref)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .map_err(|e| self.error("preparing evidence", e))?;
        for (i, read, card, status) in evidence.statuses(cards) {
            insert
                .execute(params![
                    event_id,
                    i as i64,
                    card.to_string(),
                    read.read.map(|r| r.to_string()),
                    read.confidence,
                    status.as_str(),
                    evidence.frame_sha256,
                    evidence.frame_ref,
                ])
                .map_err(|e| self.error("storing evidence", e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_cards;

    fn cards(text: &str) -> Vec<Card> {
        parse_cards(text).expect("cards")
    }

    fn input(json: &str) -> Result<EvidenceInput, EvidenceError> {
        EvidenceInput::from_json(serde_json::from_str(json).expect("json"))
    }

    #[test]
    fn reads_are_confirmed_or_corrected_against_the_recorded_cards() {
        let dir = tempfile::tempdir().expect("dir");
        let ev =
            input(r#"{"reads":[{"read":"8D","confidence":0.61},{"read":"9C","confidence":0.99}]}"#)
                .expect("input");
        let (ev, frame) = ev.resolve(&cards("8H 9C"), dir.path()).expect("resolve");
        assert!(frame.is_none());
        let recorded = cards("8H 9C");
        let statuses: Vec<_> = ev.statuses(&recorded).map(|(_, _, _, s)| s).collect();
        assert_eq!(statuses, vec![ReadStatus::Corrected, ReadStatus::Confirmed]);
    }

    #[test]
    fn a_card_no_index_was_read_on_is_kept_as_typed_by_god() {
        let dir = tempfile::tempdir().expect("dir");
        let ev = input(
            r#"{"reads":[{"read":"3H","confidence":0.98},{"read":null,"confidence":0,"corners":[[1,2],[50,2],[50,80],[1,80]]}]}"#,
        )
        .expect("input");
        let (ev, _) = ev.resolve(&cards("3H 7H"), dir.path()).expect("resolve");
        let statuses: Vec<_> = ev.statuses(&cards("3H 7H")).map(|(_, _, _, s)| s).collect();
        assert_eq!(statuses, vec![ReadStatus::Confirmed, ReadStatus::Typed]);
        // The chained payload says "no read" in so many words, and reads back the same.
        let json = serde_json::to_value(&ev).expect("json");
        assert!(json["reads"][1]["read"].is_null(), "{json}");
        assert!(json["reads"][1]
            .as_object()
            .expect("read")
            .contains_key("read"));
        let back: Evidence = serde_json::from_value(json).expect("back");
        assert_eq!(back, ev);
        // "No read" is said, not implied by a forgotten field.
        let err = input(r#"{"reads":[{"confidence":0}]}"#).unwrap_err();
        assert!(err.to_string().contains(r#"missing field "read""#), "{err}");
    }

    #[test]
    fn frames_are_loaded_checked_and_addressed() {
        let dir = tempfile::tempdir().expect("dir");
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3];
        std::fs::write(dir.path().join("f.jpg"), jpeg).expect("write");
        std::fs::write(dir.path().join("f.png"), b"\x89PNG").expect("write");
        let (ev, frame) = input(r#"{"frame":"f.jpg"}"#)
            .expect("input")
            .resolve(&[], dir.path())
            .expect("resolve");
        let frame = frame.expect("frame");
        assert_eq!(frame.jpeg, jpeg);
        assert_eq!(
            ev.frame_sha256.as_deref(),
            Some(hex::encode(Sha256::digest(jpeg)).as_str())
        );
        let err = input(r#"{"frame":"f.png"}"#)
            .expect("input")
            .resolve(&[], dir.path())
            .unwrap_err();
        assert!(matches!(err, EvidenceError::NotJpeg { .. }), "{err}");
        for outside in ["/etc/passwd", "../f.jpg", "a/../../f.jpg", ""] {
            let json = serde_json::json!({ "frame": outside }).to_string();
            let err = input(&json)
                .expect("input")
                .resolve(&[], dir.path())
                .unwrap_err();
            assert!(
                matches!(err, EvidenceError::FrameOutside { .. }),
                "{outside}: {err}"
            );
        }
        let err = input(r#"{"frame":"gone.jpg"}"#)
            .expect("input")
            .resolve(&[], dir.path())
            .unwrap_err();
        assert!(err.to_string().contains("gone.jpg"), "{err}");
    }

    #[test]
    fn evidence_and_its_reads_are_objects_not_lists_of_their_values() {
        let err = input(r#"["f.jpg","cam/1",[{"read":"7H","confidence":0.9}]]"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"field "evidence": expected an object, got a list of 3 items"#
        );
        for list in ["[]", "[null]"] {
            let err = input(list).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with(r#"field "evidence": expected an object, got a list"#),
                "{list}: {err}"
            );
        }
        let err = input(r#"{"reads":[["7H",0.9]]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"field "evidence.reads", item 1: expected an object, got a list of 2 items"#
        );
        // What an object holds is still checked field by field.
        let err = input(r#"{"reads":[{"read":"7H","confidence":0.9,"x":1}]}"#).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(r#"field "evidence.reads", item 1: unknown field "x""#),
            "{err}"
        );
        let err = input(r#"{"frame":7}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"field "evidence.frame": expected a string, got the number 7"#
        );
    }

    #[test]
    fn an_empty_list_of_reads_is_a_wrong_count_not_no_reads() {
        let dir = tempfile::tempdir().expect("dir");
        let err = input(r#"{"reads":[]}"#)
            .expect("input")
            .resolve(&cards("7H"), dir.path())
            .unwrap_err();
        assert!(
            matches!(err, EvidenceError::ReadCount { reads: 0, cards: 1 }),
            "{err}"
        );
        assert!(
            err.to_string()
                .starts_with("evidence: 0 card reads for 1 card (give one read per card"),
            "{err}"
        );
        // Left out, there are no reads to count.
        let (ev, _) = input(r#"{"frame_ref":"cam/1"}"#)
            .expect("input")
            .resolve(&cards("7H"), dir.path())
            .expect("no reads");
        assert!(ev.reads.is_empty());
        assert!(input(r#"{"reads":null}"#).is_err());
    }

    #[test]
    fn a_huge_confidence_is_said_in_a_few_characters() {
        let dir = tempfile::tempdir().expect("dir");
        let err = input(r#"{"reads":[{"read":"8D","confidence":1e308}]}"#)
            .expect("input")
            .resolve(&cards("8D"), dir.path())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "evidence: read 1 has confidence 1e308, expected a number from 0 to 1"
        );
    }

    #[test]
    fn bad_evidence_is_explained() {
        let dir = tempfile::tempdir().expect("dir");
        let err = input(r#"{"reads":[{"read":"8D","confidence":1.5}]}"#)
            .expect("input")
            .resolve(&cards("8D"), dir.path())
            .unwrap_err();
        assert!(
            matches!(err, EvidenceError::Confidence { position: 1, .. }),
            "{err}"
        );
        let err = input(r#"{"reads":[{"read":"8D","confidence":0.5}]}"#)
            .expect("input")
            .resolve(&cards("8D 9D"), dir.path())
            .unwrap_err();
        assert!(
            matches!(err, EvidenceError::ReadCount { reads: 1, cards: 2 }),
            "{err}"
        );
        assert!(
            err.to_string()
                .starts_with("evidence: 1 card read for 2 cards"),
            "{err}"
        );
        // A corner no frame can hold (an audit would cut the card along it).
        let err = input(
            r#"{"reads":[{"read":"8D","confidence":0.5,"corners":[[1e308,2],[3,4],[5,6],[7,8]]}]}"#,
        )
        .expect("input")
        .resolve(&cards("8D"), dir.path())
        .unwrap_err();
        assert!(
            matches!(err, EvidenceError::Corner { position: 1, .. }),
            "{err}"
        );
        assert!(
            err.to_string()
                .starts_with("evidence: read 1 has a corner at [1e308, 2],"),
            "{err}"
        );
        // Slightly outside the frame is fine: a card cut by its edge.
        assert!(input(
            r#"{"reads":[{"read":"8D","confidence":0.5,"corners":[[-40,2],[300,4],[300,500],[-40,500]]}]}"#,
        )
        .expect("input")
        .resolve(&cards("8D"), dir.path())
        .is_ok());
        assert!(input(r#"{"camera":"x"}"#).is_err());
        assert!(input(r#"{"reads":[{"read":"1X","confidence":0.5}]}"#).is_err());
        // A card's outline is four x,y points, or absent.
        let err =
            input(r#"{"reads":[{"read":"8D","confidence":0.5,"corners":[[1,2],[3,4],[5,6]]}]}"#)
                .unwrap_err();
        assert!(
            err.to_string()
                .starts_with(r#"field "evidence.reads", item 1, field "corners": "#),
            "{err}"
        );
        let read = input(
            r#"{"reads":[{"read":"8D","confidence":0.5,"corners":[[1,2],[3,4],[5,6],[7,8.5]]}]}"#,
        )
        .expect("four corners");
        assert_eq!(
            read.reads.expect("reads")[0].corners,
            Some([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.5]])
        );
    }
}
