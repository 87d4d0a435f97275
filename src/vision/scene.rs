//! Labelled scenes: a frame with a JSON sidecar naming its cards and their corners
//! (`tests/data/scenes/README.md`). Comparing the recognizer's reads with the labels
//! is how a table checks its camera and how end-to-end accuracy is measured.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::geometry::{Point, Quad};
use super::recognizer::{order_left_to_right, read_factor, CardRead};
use super::turn::CameraTurn;
use super::watcher::Zone;
use crate::cards::{Card, CardListError};

/// A labelled card of a scene.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LabelledCard {
    pub card: Card,
    pub corners: Quad,
}

/// The sidecar of a scene: its cards left to right, and the distractors (kept as
/// raw JSON: only their count matters here).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SceneLabels {
    pub cards: Vec<LabelledCard>,
    #[serde(default)]
    pub distractors: Vec<serde_json::Value>,
}

/// A sidecar that cannot be used.
#[derive(Debug, Error)]
pub enum LabelError {
    #[error("{path}: no labels: {reason}")]
    Io {
        path: String,
        /// Not named `source`: the message already holds it, and a report printing
        /// the chain of causes would say it twice.
        reason: std::io::Error,
    },
    #[error("{path}: bad labels: {problem}")]
    Parse { path: String, problem: SidecarError },
}

/// What is wrong inside a sidecar, in the words of its format (a list of cards,
/// each a name or an object with a name and four corners), with the 1-based
/// position of the card at fault, as card lists are reported everywhere else:
/// whoever wrote the sidecar by hand must find the mistake without knowing how it
/// is parsed.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SidecarError {
    /// Not JSON; serde_json's message, with the line and column.
    #[error("not JSON: {0}")]
    Syntax(String),
    /// No `"cards"` list at the top.
    #[error(
        "expected an object with a \"cards\" list, like {{\"cards\":[\"QH\",\"10S\"]}}, found {found}"
    )]
    NoCards { found: String },
    /// A card name that does not parse: `card 2 of the list: card "4X": unknown
    /// suit 'X' (…)`.
    #[error("{0}")]
    Card(CardListError),
    /// An entry that is neither a card name nor an object naming a card.
    #[error(
        "card {position} of the list: expected a card name like \"QH\" or an object like {{\"card\":\"QH\",\"corners\":[[x, y], [x, y], [x, y], [x, y]]}}, found {found}"
    )]
    Entry { position: usize, found: String },
    /// Corners given, but not as four points.
    #[error(
        "card {position} of the list ({card}): \"corners\" must be 4 [x, y] points (top-left, top-right, bottom-right, bottom-left), found {found}"
    )]
    Corners {
        position: usize,
        card: Card,
        found: String,
    },
    /// Corners for some cards but not others.
    #[error(
        "{outlined} of {total} cards have corners (card {position} of the list, {card}, has none): give corners for every card or for none"
    )]
    Mixed {
        outlined: usize,
        total: usize,
        position: usize,
        card: Card,
    },
    /// Names alone where the outlines are needed (measuring the localiser).
    #[error("card 1 of the list ({card}) has no corners: these labels need every card's outline")]
    NoCorners { card: Card },
    /// A key the format does not have: a misspelt `"corners"` would otherwise turn
    /// an outlined card into a names-only one, and a misspelt `"distractors"`
    /// would drop them, both silently.
    #[error("{place}: unknown key \"{key}\" (the keys are {known})")]
    UnknownKey {
        /// `the sidecar` or `card 2 of the list`.
        place: String,
        key: String,
        /// The keys allowed there, quoted.
        known: String,
    },
    /// `"distractors"` present but not a list.
    #[error("field \"distractors\" must be a list, found {found}")]
    Distractors { found: String },
    /// `"zone"` present but not a zone of the frame.
    #[error(
        "field \"zone\" must be [x0, y0, x1, y1], fractions of the frame's width and height (0 to 1, x0 < x1 and y0 < y1, at least 0.05 apart), found {found}"
    )]
    Zone { found: String },
}

/// A JSON value as a person would recognise it in their file, cut short.
fn shown(value: &serde_json::Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// The sidecar of an image: same name, `.json`.
pub fn sidecar_path(image: &Path) -> PathBuf {
    image.with_extension("json")
}

/// Reads the sidecar of an image as JSON; errors name the sidecar's path.
fn read_sidecar(image: &Path) -> Result<(serde_json::Value, String), LabelError> {
    let path = sidecar_path(image);
    let name = path.display().to_string();
    let text = std::fs::read(&path).map_err(|reason| LabelError::Io {
        path: name.clone(),
        reason,
    })?;
    // Windows editors may begin UTF-8 with a byte-order mark, which JSON does not
    // allow but means nothing; UTF-16 (PowerShell's `>`) cannot be read as JSON.
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&text);
    if text.starts_with(b"\xFF\xFE") || text.starts_with(b"\xFE\xFF") {
        return Err(LabelError::Parse {
            path: name,
            problem: SidecarError::Syntax(
                "the file is UTF-16 text: save it as UTF-8 (PowerShell: `| Out-File -Encoding utf8`)"
                    .to_string(),
            ),
        });
    }
    // A key given twice is refused, as in every other JSON the product reads: the
    // labels must say plainly which cards lie there.
    match crate::json_input::parse_slice(text) {
        Ok(v) => Ok((v, name)),
        Err(e) => Err(LabelError::Parse {
            path: name,
            problem: SidecarError::Syntax(e.to_string()),
        }),
    }
}

impl SceneLabels {
    /// Reads the sidecar of an image, which must give corners for its cards (the
    /// localiser is measured against them).
    pub fn for_image(image: &Path) -> Result<SceneLabels, LabelError> {
        match Labels::for_image(image)?.cards {
            LabelledCards::Outlined(labels) => Ok(labels),
            LabelledCards::Ordered(cards) => match cards.first() {
                Some(&card) => Err(LabelError::Parse {
                    path: sidecar_path(image).display().to_string(),
                    problem: SidecarError::NoCorners { card },
                }),
                // Never made (no cards are outlined labels), but nothing to refuse.
                None => Ok(SceneLabels {
                    cards: Vec::new(),
                    distractors: Vec::new(),
                }),
            },
        }
    }
}

/// The labels of a frame as a sidecar may give them: every card with its outline
/// (rendered scenes, carefully labelled photos), or only the card names left to right
/// (`{"cards":["QH","10S"]}`: a photo of a layout the table laid out and wrote down,
/// which is how a club checks its own camera and deck without measuring corners).
#[derive(Debug, Clone, PartialEq)]
pub struct Labels {
    pub cards: LabelledCards,
    /// The part of the frame the labels cover (`"zone"`, fractions of the frame):
    /// reads whose centre lies outside it are set aside, neither matched nor
    /// spurious. A frame of a game (`eleusis export --frames`) shows the main line
    /// and other cards beside the play it is evidence of; only the play is named.
    pub zone: Option<Zone>,
}

/// A sidecar's cards: with their outlines, or their names alone, left to right.
#[derive(Debug, Clone, PartialEq)]
pub enum LabelledCards {
    Outlined(SceneLabels),
    Ordered(Vec<Card>),
}

/// A sidecar's cards as written, each with its corners when it has them, and its
/// distractors.
struct Entries {
    cards: Vec<(Card, Option<Quad>)>,
    distractors: Vec<serde_json::Value>,
    zone: Option<Zone>,
}

/// Reads a sidecar's cards one by one, so that an error names the card at fault
/// and what is wrong with it (a derived, untagged parse can only say that nothing
/// matched).
fn parse_entries(value: &serde_json::Value) -> Result<Entries, SidecarError> {
    use serde_json::Value;
    let no_cards = || SidecarError::NoCards {
        found: shown(value),
    };
    let object = value.as_object().ok_or_else(no_cards)?;
    refuse_unknown_keys(object, TOP_KEYS, "the sidecar")?;
    let list = object
        .get("cards")
        .and_then(Value::as_array)
        .ok_or_else(no_cards)?;
    let distractors = match object.get("distractors") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(d)) => d.clone(),
        Some(other) => {
            return Err(SidecarError::Distractors {
                found: shown(other),
            })
        }
    };
    let zone = match object.get("zone") {
        None | Some(Value::Null) => None,
        Some(z) => Some(parse_zone(z).ok_or_else(|| SidecarError::Zone { found: shown(z) })?),
    };
    let mut cards = Vec::with_capacity(list.len());
    for (i, entry) in list.iter().enumerate() {
        let position = i + 1;
        let name = |v: &Value| -> Result<Card, SidecarError> {
            let Some(text) = v.as_str() else {
                return Err(SidecarError::Entry {
                    position,
                    found: shown(entry),
                });
            };
            text.parse()
                .map_err(|reason| SidecarError::Card(CardListError { position, reason }))
        };
        let card = match entry {
            Value::String(_) => (name(entry)?, None),
            Value::Object(fields) => {
                let card = name(fields.get("card").unwrap_or(&Value::Null))?;
                refuse_unknown_keys(fields, CARD_KEYS, &format!("card {position} of the list"))?;
                let corners = match fields.get("corners") {
                    None | Some(Value::Null) => None,
                    Some(c) => Some(parse_corners(c).map_err(|found| SidecarError::Corners {
                        position,
                        card,
                        found,
                    })?),
                };
                (card, corners)
            }
            _ => {
                return Err(SidecarError::Entry {
                    position,
                    found: shown(entry),
                })
            }
        };
        cards.push(card);
    }
    Ok(Entries {
        cards,
        distractors,
        zone,
    })
}

/// `[x0, y0, x1, y1]`, fractions of the frame, as a zone (as `--zone` and
/// `/api/watch?zone=` take one).
fn parse_zone(value: &serde_json::Value) -> Option<Zone> {
    let numbers: Vec<f64> = value
        .as_array()?
        .iter()
        .map(serde_json::Value::as_f64)
        .collect::<Option<_>>()?;
    match numbers[..] {
        [x0, y0, x1, y1] => Zone::new(x0, y0, x1, y1),
        _ => None,
    }
}

/// The keys of a sidecar (`meta` is free-form: renderers note the design, cloth
/// and layout there; `eleusis export --frames` the game, round and event).
const TOP_KEYS: &[&str] = &["cards", "distractors", "zone", "meta"];
/// The keys of a card object in the `cards` list.
const CARD_KEYS: &[&str] = &["card", "corners"];

/// Refuses a key of `object` that is not one of `known` (the first in
/// alphabetical order, as the parsed object keeps them).
fn refuse_unknown_keys(
    object: &serde_json::Map<String, serde_json::Value>,
    known: &[&str],
    place: &str,
) -> Result<(), SidecarError> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => {
            let quoted: Vec<String> = known.iter().map(|k| format!("\"{k}\"")).collect();
            let known = match quoted.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => quoted.join(""),
            };
            Err(SidecarError::UnknownKey {
                place: place.to_string(),
                key: key.clone(),
                known,
            })
        }
    }
}

/// Four `[x, y]` points, or what was found instead.
fn parse_corners(value: &serde_json::Value) -> Result<Quad, String> {
    let Some(points) = value.as_array() else {
        return Err(shown(value));
    };
    if points.len() != 4 {
        return Err(format!(
            "{} point{}: {}",
            points.len(),
            if points.len() == 1 { "" } else { "s" },
            shown(value)
        ));
    }
    let mut quad = [Point::default(); 4];
    for (k, (point, slot)) in points.iter().zip(&mut quad).enumerate() {
        let xy: Option<Vec<f64>> = point
            .as_array()
            .map(|p| p.iter().map(serde_json::Value::as_f64).collect())
            .and_then(|p: Vec<Option<f64>>| p.into_iter().collect());
        match xy.as_deref() {
            Some(&[x, y]) => *slot = Point::new(x, y),
            _ => return Err(format!("point {} is {}", k + 1, shown(point))),
        }
    }
    Ok(Quad(quad))
}

impl Labels {
    /// Reads the sidecar of an image: outlined when every card has corners, ordered
    /// when none has; a mix is refused (it would be scored neither way sensibly),
    /// naming the first card without corners.
    pub fn for_image(image: &Path) -> Result<Labels, LabelError> {
        let (value, name) = read_sidecar(image)?;
        let bad = |problem| LabelError::Parse {
            path: name.clone(),
            problem,
        };
        let entries = parse_entries(&value).map_err(bad)?;
        let total = entries.cards.len();
        let outlined = entries.cards.iter().filter(|(_, c)| c.is_some()).count();
        // No cards at all (a frame of distractors only) is scored by outline: every
        // read is spurious, and the frame's corners are checked like any other.
        let zone = entries.zone;
        if outlined == 0 && total > 0 {
            return Ok(Labels {
                cards: LabelledCards::Ordered(
                    entries.cards.into_iter().map(|(card, _)| card).collect(),
                ),
                zone,
            });
        }
        let mut cards = Vec::with_capacity(total);
        for (i, (card, corners)) in entries.cards.into_iter().enumerate() {
            let Some(corners) = corners else {
                return Err(bad(SidecarError::Mixed {
                    outlined,
                    total,
                    position: i + 1,
                    card,
                }));
            };
            cards.push(LabelledCard { card, corners });
        }
        Ok(Labels {
            cards: LabelledCards::Outlined(SceneLabels {
                cards,
                distractors: entries.distractors,
            }),
            zone,
        })
    }

    /// The labels of a `width × height` frame for the same frame turned
    /// ([`CameraTurn`]): outlines move with the picture and are put in the order
    /// the recognizer reads the turned frame (left to right across it: a camera on
    /// the far side of the table sees the play reversed, so its sidecar, written
    /// left to right in the camera's picture, lists the cards backwards); names
    /// stay in the order written, which is already the players' left to right.
    pub fn turned(self, turn: &CameraTurn, width: u32, height: u32) -> Labels {
        let zone = self.zone.map(|z| z.turned(turn, width, height));
        let cards = match self.cards {
            LabelledCards::Outlined(mut l) if !turn.is_none() => {
                for c in &mut l.cards {
                    c.corners = turn.quad(&c.corners, width, height);
                }
                order_left_to_right(&mut l.cards, |c| &c.corners);
                LabelledCards::Outlined(l)
            }
            ordered => ordered,
        };
        Labels { cards, zone }
    }

    /// Scores the reads of a `width × height` frame against these labels: by
    /// outline, corners found within `tolerance` pixels (a frame's
    /// [`corner_tolerance`]), or by order; reads outside the labels' zone, if they
    /// give one, are counted apart ([`SceneScore::outside_zone`]).
    pub fn score(&self, reads: &[CardRead], tolerance: f64, width: u32, height: u32) -> SceneScore {
        let inside: Vec<CardRead> = match &self.zone {
            Some(zone) => reads
                .iter()
                .filter(|r| zone.contains(r.corners.centre(), width, height))
                .cloned()
                .collect(),
            None => reads.to_vec(),
        };
        let mut s = match &self.cards {
            LabelledCards::Outlined(l) => score(l, &inside, tolerance),
            LabelledCards::Ordered(cards) => score_by_order(cards, &inside),
        };
        s.outside_zone = reads.len() - inside.len();
        s
    }
}

/// Scores reads against card names left to right: the two sequences are aligned
/// (edit distance; a missed card or a spurious read costs 2, a misread 3, so a
/// misread is preferred to a miss plus a spurious read only when no right read is
/// lost), and a card the camera missed does not shift every later card into a
/// "misread".
pub fn score_by_order(expected: &[Card], reads: &[CardRead]) -> SceneScore {
    const GAP: usize = 2;
    let pair_cost = |a: Card, b: Card| if a == b { 0 } else { 3 };
    let (n, m) = (expected.len(), reads.len());
    // cost[i][j]: best cost of aligning expected[i..] with reads[j..].
    let mut cost = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..=n).rev() {
        for j in (0..=m).rev() {
            cost[i][j] = if i == n {
                GAP * (m - j)
            } else if j == m {
                GAP * (n - i)
            } else {
                let pair = cost[i + 1][j + 1] + pair_cost(expected[i], reads[j].card);
                pair.min(cost[i + 1][j] + GAP).min(cost[i][j + 1] + GAP)
            };
        }
    }
    let mut s = SceneScore {
        labelled: n,
        read: reads.iter().map(|r| r.card).collect(),
        expected: expected.to_vec(),
        by_order: true,
        ..SceneScore::default()
    };
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if cost[i][j] == cost[i + 1][j + 1] + pair_cost(expected[i], reads[j].card) {
            s.count_located(expected[i], &reads[j]);
            i += 1;
            j += 1;
        } else if cost[i][j] == cost[i + 1][j] + GAP {
            i += 1; // a labelled card with no read
        } else {
            s.spurious += 1;
            j += 1;
        }
    }
    s.spurious += m - j;
    s.sequence_ok = s.read == s.expected;
    s
}

/// Corners further than this from the label (in pixels) do not count as found.
pub const CORNER_TOLERANCE: f64 = 8.0;

/// The corner tolerance for a frame of this size: [`CORNER_TOLERANCE`] at the size
/// the recognizer reads it. A frame larger than that (a phone photo) is read shrunk
/// by its [`read_factor`], so its tolerance grows in proportion: 16.8 px for
/// 4032 × 3024. Smaller frames keep 8 px.
pub fn corner_tolerance(width: u32, height: u32) -> f64 {
    CORNER_TOLERANCE * read_factor(width, height)
}

/// How the reads of one scene compare with its labels.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SceneScore {
    /// Labelled cards.
    pub labelled: usize,
    /// Labelled cards whose outline was found (every corner within tolerance).
    pub located: usize,
    /// Labelled cards found and read as the right card.
    pub correct: usize,
    /// Correct reads that still asked for confirmation.
    pub correct_unsure: usize,
    /// Labelled cards found but read as another card.
    pub misread: usize,
    /// Of those, misreads confident enough not to ask for confirmation.
    pub misread_confident: usize,
    /// Of those, court cards (labelled J, Q or K): a deck whose courts carry
    /// other letters misreads them so (`recognize --confirm-courts`).
    #[serde(skip_serializing_if = "is_zero")]
    pub misread_confident_courts: usize,
    /// The confidence of the surest misread, if any: what a stricter confirmation
    /// threshold must reach to have God confirm such a read
    /// ([`suggested_confirm_threshold`]).
    pub surest_misread: Option<f32>,
    /// Reads that match no labelled card (a distractor or a bad outline).
    pub spurious: usize,
    /// Whether the read cards, left to right, are exactly the labelled ones.
    pub sequence_ok: bool,
    /// Largest corner error among the located cards, in pixels.
    pub max_corner_error: f64,
    /// What was read, left to right.
    pub read: Vec<Card>,
    /// What the labels say, left to right.
    pub expected: Vec<Card>,
    /// Scored by order (the labels give no corners): "located" means a read stands
    /// at the card's place in the sequence, and there is no corner error.
    pub by_order: bool,
    /// Reads set aside because their centre lies outside the labels' zone (other
    /// cards on the table); not in `read`.
    #[serde(skip_serializing_if = "is_zero")]
    pub outside_zone: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl SceneScore {
    /// Counts a labelled card matched with a read: located, and read right or not
    /// (each split by whether the read asked for confirmation).
    fn count_located(&mut self, expected: Card, read: &CardRead) {
        self.located += 1;
        if read.card == expected {
            self.correct += 1;
            self.correct_unsure += usize::from(read.needs_confirmation);
        } else {
            self.misread += 1;
            self.misread_confident += usize::from(!read.needs_confirmation);
            self.misread_confident_courts +=
                usize::from(!read.needs_confirmation && expected.is_face());
            self.surest_misread = surer(self.surest_misread, Some(read.confidence));
        }
    }
}

/// Scores reads against labels. Each labelled card is matched to the read with the
/// smallest corner error (0° and 180° orderings count as the same outline), and
/// counts as found when that error is at most `tolerance` pixels.
pub fn score(labels: &SceneLabels, reads: &[CardRead], tolerance: f64) -> SceneScore {
    let mut s = SceneScore {
        labelled: labels.cards.len(),
        read: reads.iter().map(|r| r.card).collect(),
        expected: labels.cards.iter().map(|c| c.card).collect(),
        ..SceneScore::default()
    };
    let mut used = vec![false; reads.len()];
    for label in &labels.cards {
        let best = reads
            .iter()
            .enumerate()
            .filter(|(i, _)| !used[*i])
            .map(|(i, r)| {
                // A partly covered card shows one long side; the other is a guess.
                let err = if r.overlapped {
                    r.corners.side_error(&label.corners)
                } else {
                    r.corners.corner_error(&label.corners)
                };
                (i, err)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((i, err)) = best else { continue };
        if err > tolerance {
            continue;
        }
        used[i] = true;
        s.max_corner_error = s.max_corner_error.max(err);
        s.count_located(label.card, &reads[i]);
    }
    s.spurious = used.iter().filter(|u| !**u).count();
    s.sequence_ok = s.read == s.expected;
    s
}

/// Totals over many scenes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CheckSummary {
    /// Frames read and scored against their labels.
    pub scenes: usize,
    /// Image files that could not be read (not decoded, not found).
    pub scenes_failed: usize,
    /// Frames read but not scored: their sidecar is missing or unusable. Kept apart
    /// from unreadable files, since the image is fine and the fix is the sidecar.
    pub scenes_unlabelled: usize,
    pub labelled: usize,
    pub located: usize,
    pub correct: usize,
    pub correct_unsure: usize,
    pub misread: usize,
    pub misread_confident: usize,
    /// Of those, court cards ([`SceneScore::misread_confident_courts`]).
    pub misread_confident_courts: usize,
    /// The surest misread's confidence over every scene, if any.
    pub surest_misread: Option<f32>,
    pub spurious: usize,
    pub sequences_ok: usize,
    pub max_corner_error: f64,
    /// Cards located by their labelled corners, whose corner error
    /// `max_corner_error` measures; 0 when every scene was scored by order (the
    /// frames of `eleusis export --frames`), when there is no error to report.
    pub corners_measured: usize,
    /// Reads set aside outside the labels' zones.
    pub outside_zone: usize,
}

impl CheckSummary {
    /// Adds one scene's score.
    pub fn add(&mut self, s: &SceneScore) {
        self.scenes += 1;
        self.labelled += s.labelled;
        self.located += s.located;
        self.correct += s.correct;
        self.correct_unsure += s.correct_unsure;
        self.misread += s.misread;
        self.misread_confident += s.misread_confident;
        self.misread_confident_courts += s.misread_confident_courts;
        self.surest_misread = surer(self.surest_misread, s.surest_misread);
        self.spurious += s.spurious;
        self.sequences_ok += usize::from(s.sequence_ok);
        self.max_corner_error = self.max_corner_error.max(s.max_corner_error);
        if !s.by_order {
            self.corners_measured += s.located;
        }
        self.outside_zone += s.outside_zone;
    }

    /// Fraction of labelled cards read right; `None` when no card was labelled,
    /// where there is nothing to measure (claiming 100 % would pass a camera check
    /// that checked nothing).
    pub fn accuracy(&self) -> Option<f64> {
        ratio(self.correct, self.labelled)
    }

    /// Fraction of labelled cards whose outline was found; `None` when no card was
    /// labelled.
    pub fn localisation(&self) -> Option<f64> {
        ratio(self.located, self.labelled)
    }
}

/// How much less likely to be wrong, in odds, a confident read must be than the
/// surest misread seen: the margin the model's own threshold was set with
/// (`models/readout.py`, `ODDS_MARGIN`; model card, "Why this threshold").
pub const ODDS_MARGIN: f64 = 10.0;

/// The highest threshold a read can be held to: a read surer than this cannot be
/// told apart (`models/readout.py` caps its thresholds there too).
pub const MAX_THRESHOLD: f64 = 0.999_999;

/// The confirmation threshold that would have God confirm a read as sure as
/// `surest_misread`, set the way the model's own was set on its validation designs:
/// [`ODDS_MARGIN`] on its odds, a step of 1e-6 above it, rounded up to six
/// decimals (`readout.choose_threshold`). `None` when no
/// threshold can (a misread surer than [`MAX_THRESHOLD`]). A table that checks its
/// own deck (`eleusis recognize --check`) and finds confident misreads runs with
/// this as `--confirm-threshold`.
pub fn suggested_confirm_threshold(surest_misread: f32) -> Option<f64> {
    let c = f64::from(surest_misread).clamp(0.0, 1.0);
    if c >= MAX_THRESHOLD {
        return None;
    }
    let odds = c / (1.0 - c) * ODDS_MARGIN;
    let target = odds / (1.0 + odds);
    let threshold = (((target + 1e-6) * 1e6).ceil() / 1e6).min(MAX_THRESHOLD);
    // Thresholds are held as f32: one that rounds to the misread's own confidence
    // there would not catch it.
    ((threshold as f32) > surest_misread).then_some(threshold)
}

/// The higher of two confidences, either of which may be missing.
fn surer(a: Option<f32>, b: Option<f32>) -> Option<f32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn ratio(a: usize, b: usize) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::geometry::Point;

    /// The frame the test reads lie in.
    const W: u32 = 1280;
    const H: u32 = 720;

    fn quad(x: f64) -> Quad {
        Quad([
            Point::new(x, 10.0),
            Point::new(x + 70.0, 10.0),
            Point::new(x + 70.0, 110.0),
            Point::new(x, 110.0),
        ])
    }

    fn read(card: &str, x: f64, unsure: bool) -> CardRead {
        CardRead {
            card: card.parse().unwrap(),
            confidence: if unsure { 0.5 } else { 0.99 },
            corners: quad(x),
            needs_confirmation: unsure,
            overlapped: false,
            pips_say: None,
            pips_counted: None,
            index_read: None,
            class_read: None,
        }
    }

    #[test]
    fn the_suggested_threshold_puts_the_odds_margin_on_the_surest_misread() {
        // 0.999965 has odds of 28 570 to 1; ten times that is 0.9999965, which
        // a step of 1e-6 above and rounded up to six decimals gives 0.999998, as
        // `readout.choose_threshold` does (the model card's QH read as 10H).
        assert_eq!(suggested_confirm_threshold(0.999_965), Some(0.999_998));
        // A plain unsure misread: 0.9 -> odds 9 -> 90 -> 0.989011, a step above
        // and rounded up.
        assert_eq!(suggested_confirm_threshold(0.9), Some(0.989_012));
        // Rounded up, never down: the misread itself must fall below it.
        let t = suggested_confirm_threshold(0.996_529).unwrap();
        assert!(t > 0.996_529 && t <= 0.999_999, "{t}");
        // Surer than any threshold can tell apart, or as sure as the highest one
        // once it is held as f32.
        assert_eq!(suggested_confirm_threshold(0.999_999_9), None);
        assert_eq!(suggested_confirm_threshold(0.999_999_f32), None);
        assert_eq!(
            suggested_confirm_threshold(1.0 - 17.0 * f32::EPSILON / 2.0),
            None
        );
        assert_eq!(suggested_confirm_threshold(1.0), None);
    }

    #[test]
    fn sidecar_parses_and_scores() {
        let json = r#"{"cards":[{"card":"QH","corners":[[0,10],[70,10],[70,110],[0,110]]},
                      {"card":"10S","corners":[[100,10],[170,10],[170,110],[100,110]]}],
                      "distractors":[{"kind":"phone","polygon":[[1,2]]}], "meta":{"cloth":"green"}}"#;
        let labels: SceneLabels = serde_json::from_str(json).unwrap();
        assert_eq!(labels.cards.len(), 2);
        let s = score(
            &labels,
            &[
                read("QH", 1.0, false),
                read("9S", 100.0, false),
                read("AC", 300.0, true),
            ],
            CORNER_TOLERANCE,
        );
        assert_eq!(
            (
                s.located,
                s.correct,
                s.misread,
                s.misread_confident,
                s.spurious
            ),
            (2, 1, 1, 1, 1)
        );
        assert!(!s.sequence_ok);
        assert!((s.max_corner_error - 1.0).abs() < 1e-9);
        let s = score(
            &labels,
            &[read("QH", 0.0, true), read("10S", 100.0, false)],
            CORNER_TOLERANCE,
        );
        assert!(s.sequence_ok);
        assert_eq!((s.correct, s.correct_unsure, s.spurious), (2, 1, 0));
        let mut sum = CheckSummary::default();
        assert_eq!(sum.accuracy(), None, "no labelled card: nothing measured");
        sum.add(&s);
        assert_eq!(sum.accuracy(), Some(1.0));
    }

    #[test]
    fn a_sidecar_saved_by_a_windows_editor_is_read_or_named_for_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("photo.jpg");
        let sidecar = dir.path().join("photo.json");
        // Notepad's UTF-8 with a byte-order mark: read as if it had none.
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(br#"{"cards":["QH","2C"]}"#);
        std::fs::write(&sidecar, bom).unwrap();
        let labels = Labels::for_image(&image).unwrap();
        assert!(matches!(labels.cards, LabelledCards::Ordered(ref c) if c.len() == 2));
        // PowerShell's `>`: UTF-16, said so, with the fix.
        let mut utf16 = vec![0xFF, 0xFE];
        for unit in r#"{"cards":["QH"]}"#.encode_utf16() {
            utf16.extend_from_slice(&unit.to_le_bytes());
        }
        std::fs::write(&sidecar, utf16).unwrap();
        let e = Labels::for_image(&image).unwrap_err().to_string();
        assert!(e.contains("UTF-16") && e.contains("UTF-8"), "{e}");
    }

    #[test]
    fn names_only_sidecars_are_scored_by_order() {
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("photo.jpg");
        let cards = |v: &[&str]| v.iter().map(|c| c.parse().unwrap()).collect::<Vec<Card>>();
        std::fs::write(
            dir.path().join("photo.json"),
            r#"{"cards":["QH",{"card":"10S"},"2C"]}"#,
        )
        .unwrap();
        let labels = Labels::for_image(&image).unwrap();
        assert_eq!(
            labels,
            Labels {
                cards: LabelledCards::Ordered(cards(&["QH", "10S", "2C"])),
                zone: None
            }
        );
        // The middle card was missed and a coaster read as a card at the end: QH and
        // 2C still count as right, not shifted into misreads.
        let s = labels.score(
            &[
                read("QH", 0.0, false),
                read("2C", 100.0, true),
                read("5D", 200.0, false),
            ],
            CORNER_TOLERANCE,
            W,
            H,
        );
        assert!(s.by_order);
        assert_eq!(
            (
                s.located,
                s.correct,
                s.correct_unsure,
                s.misread,
                s.spurious
            ),
            (2, 2, 1, 0, 1)
        );
        let s = labels.score(
            &[
                read("QH", 0.0, false),
                read("9S", 100.0, false),
                read("2C", 200.0, false),
            ],
            CORNER_TOLERANCE,
            W,
            H,
        );
        assert_eq!(
            (s.located, s.correct, s.misread, s.misread_confident),
            (3, 2, 1, 1)
        );
        assert!(!s.sequence_ok);
        let s = labels.score(&[], CORNER_TOLERANCE, W, H);
        assert_eq!((s.located, s.correct, s.spurious, s.labelled), (0, 0, 0, 3));
    }

    #[test]
    fn a_sidecar_mixing_outlined_and_named_cards_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("x.json"),
            r#"{"cards":["QH",{"card":"10S","corners":[[0,0],[1,0],[1,1],[0,1]]}]}"#,
        )
        .unwrap();
        let err = Labels::for_image(&dir.path().join("x.jpg")).unwrap_err();
        assert!(
            err.to_string().contains(
                "1 of 2 cards have corners (card 1 of the list, QH, has none): give corners for every card or for none"
            ),
            "{err}"
        );
        std::fs::write(dir.path().join("y.json"), r#"{"cards":["QX"]}"#).unwrap();
        let err = Labels::for_image(&dir.path().join("y.jpg")).unwrap_err();
        assert!(err.to_string().contains("y.json: bad labels"), "{err}");
    }

    /// The error of a sidecar holding `json`.
    fn sidecar_error(json: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.json"), json).unwrap();
        let err = Labels::for_image(&dir.path().join("s.jpg")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("s.json: bad labels: "), "{text}");
        text
    }

    #[test]
    fn a_bad_sidecar_names_the_card_and_the_problem() {
        // A bad name: its position and the card error used for every card list.
        let err = sidecar_error(r#"{"cards":["4D","4X","8C","5H"]}"#);
        assert!(
            err.ends_with(
                r#"bad labels: card 2 of the list: card "4X": unknown suit 'X' (expected one of S H D C or ♠ ♥ ♦ ♣)"#
            ),
            "{err}"
        );
        // A key given twice: refused, not the last one taken.
        let err = sidecar_error(r#"{"cards":["10H"],"cards":["2C"]}"#);
        assert!(err.contains(r#"duplicate field "cards""#), "{err}");
        let err = sidecar_error(r#"{"cards":[{"card":"QH","card":"QS"}]}"#);
        assert!(err.contains(r#"duplicate field "card""#), "{err}");
        let err = sidecar_error(r#"{"cards":[{"card":"QH"},{"card":"1X","corners":[]}]}"#);
        assert!(err.contains(r#"card 2 of the list: card "1X""#), "{err}");
        // Corners that are not four points: which card, and what was found.
        let q = "[[0,0],[70,0],[70,100],[0,100]]";
        let err = sidecar_error(&format!(
            r#"{{"cards":[{{"card":"4D","corners":{q}}},{{"card":"4H","corners":{q}}},{{"card":"8C","corners":[[0,0],[70,0]]}},{{"card":"5H","corners":{q}}}]}}"#
        ));
        assert!(
            err.contains(
                r#"card 3 of the list (8C): "corners" must be 4 [x, y] points (top-left, top-right, bottom-right, bottom-left), found 2 points: [[0,0],[70,0]]"#
            ),
            "{err}"
        );
        assert!(!err.contains("have corners"), "{err}");
        let err =
            sidecar_error(r#"{"cards":[{"card":"QH","corners":[[0,0],[1,0],[1,"a"],[0,1]]}]}"#);
        assert!(
            err.contains(r#"card 1 of the list (QH): "corners" must be 4 [x, y] points"#)
                && err.contains(r#"point 3 is [1,"a"]"#),
            "{err}"
        );
        // Neither a name nor an object naming a card.
        let err = sidecar_error(r#"{"cards":["QH",7]}"#);
        assert!(
            err.contains("card 2 of the list: expected a card name like \"QH\"")
                && err.ends_with("found 7"),
            "{err}"
        );
        // A misspelt key is named, not read as a names-only card or ignored.
        let err = sidecar_error(
            r#"{"cards":[{"card":"QH","corners":[[0,0],[70,0],[70,100],[0,100]]},{"card":"4D","corner":[[0,0],[70,0],[70,100],[0,100]]}]}"#,
        );
        assert!(
            err.ends_with(
                r#"bad labels: card 2 of the list: unknown key "corner" (the keys are "card" and "corners")"#
            ),
            "{err}"
        );
        let err = sidecar_error(r#"{"cards":["QH"],"distractor":[],"meta":{"cloth":"wood"}}"#);
        assert!(
            err.ends_with(
                r#"bad labels: the sidecar: unknown key "distractor" (the keys are "cards", "distractors", "zone" and "meta")"#
            ),
            "{err}"
        );
        let err = sidecar_error(r#"{"cards":[{"corners":[]}]}"#);
        assert!(
            err.contains("card 1 of the list: expected a card name"),
            "{err}"
        );
        // The shape of the whole file, and JSON that is not JSON.
        let err = sidecar_error(r#"["QH"]"#);
        assert!(
            err.contains(r#"expected an object with a "cards" list"#),
            "{err}"
        );
        let err = sidecar_error(r#"{"cards":["QH""#);
        assert!(
            err.contains("not JSON: ") && err.contains("line 1"),
            "{err}"
        );
    }

    #[test]
    fn a_frame_of_distractors_only_is_scored_by_outline() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("d.json"),
            r#"{"cards":[],"distractors":[{"kind":"phone","polygon":[[1,2]]}]}"#,
        )
        .unwrap();
        let labels = Labels::for_image(&dir.path().join("d.jpg")).unwrap();
        let LabelledCards::Outlined(l) = &labels.cards else {
            panic!("{labels:?}")
        };
        assert_eq!((l.cards.len(), l.distractors.len()), (0, 1));
        let s = labels.score(&[read("QH", 0.0, false)], CORNER_TOLERANCE, W, H);
        assert_eq!((s.spurious, s.by_order), (1, false));
    }

    #[test]
    fn a_far_outline_is_not_located() {
        let labels = SceneLabels {
            cards: vec![LabelledCard {
                card: "QH".parse().unwrap(),
                corners: quad(0.0),
            }],
            distractors: vec![],
        };
        let s = score(&labels, &[read("QH", 20.0, false)], CORNER_TOLERANCE);
        assert_eq!((s.located, s.correct, s.spurious), (0, 0, 1));
    }

    #[test]
    fn a_photo_read_shrunk_is_scored_at_the_size_it_is_read() {
        assert_eq!(corner_tolerance(1280, 720), CORNER_TOLERANCE);
        assert_eq!(corner_tolerance(1920, 1080), CORNER_TOLERANCE);
        assert!((corner_tolerance(4032, 3024) - 16.8).abs() < 1e-9);
        let labels = Labels {
            cards: LabelledCards::Outlined(SceneLabels {
                cards: vec![LabelledCard {
                    card: "QH".parse().unwrap(),
                    corners: quad(0.0),
                }],
                distractors: vec![],
            }),
            zone: None,
        };
        // An outline 12 px off: not found in a webcam frame, found in a phone photo.
        let off = [read("QH", 12.0, false)];
        assert_eq!(
            labels
                .score(&off, corner_tolerance(1280, 720), 1280, 720)
                .located,
            0
        );
        let s = labels.score(&off, corner_tolerance(4032, 3024), 4032, 3024);
        assert_eq!((s.located, s.correct, s.spurious), (1, 1, 0));
    }

    #[test]
    fn a_zone_sets_the_other_cards_of_the_table_aside() {
        let dir = tempfile::tempdir().unwrap();
        // A play of two cards at x 300 and 400 (centres 335 and 435 of 1280: 0.26
        // and 0.34); the main line at x 0 and 800 lies outside the zone.
        std::fs::write(
            dir.path().join("g.json"),
            r#"{"cards":["QH","10S"],"zone":[0.2,0.0,0.4,1.0],"meta":{"game":1}}"#,
        )
        .unwrap();
        let labels = Labels::for_image(&dir.path().join("g.jpg")).unwrap();
        let table = [
            read("2C", 0.0, false),
            read("QH", 300.0, false),
            read("10S", 400.0, true),
            read("5D", 800.0, false),
        ];
        let s = labels.score(&table, CORNER_TOLERANCE, W, H);
        assert_eq!(
            (s.correct, s.correct_unsure, s.spurious, s.outside_zone),
            (2, 1, 0, 2)
        );
        assert!(s.sequence_ok);
        assert_eq!(s.read, s.expected);
        // Without the zone the same reads are two spurious cards.
        let whole = Labels {
            zone: None,
            ..labels.clone()
        };
        let s = whole.score(&table, CORNER_TOLERANCE, W, H);
        assert_eq!((s.correct, s.spurious, s.outside_zone), (2, 2, 0));
        // Turned half round with the frame, the zone covers the same cards.
        let turned = labels
            .clone()
            .turned(&CameraTurn::new(180, false).unwrap(), W, H);
        let z = turned.zone.unwrap();
        assert!(
            (z.x0 - 0.6).abs() < 1e-9 && (z.x1 - 0.8).abs() < 1e-9,
            "{z:?}"
        );
        // A quarter turn clockwise: the zone's band across the frame stands along
        // the turned one, a fifth of the way down.
        let turned = labels.turned(&CameraTurn::new(90, false).unwrap(), W, H);
        let z = turned.zone.unwrap();
        for (got, want) in [z.x0, z.y0, z.x1, z.y1].iter().zip([0.0, 0.2, 1.0, 0.4]) {
            assert!((got - want).abs() < 1e-9, "{z:?}");
        }
    }

    #[test]
    fn a_bad_zone_is_refused_saying_what_a_zone_is() {
        for zone in [
            r#""left""#,
            "[0.1,0.2,0.3]",
            "[0.5,0,0.4,1]",
            "[0,0,1,2]",
            "[0,0,0.01,1]",
        ] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(
                dir.path().join("z.json"),
                format!(r#"{{"cards":["QH"],"zone":{zone}}}"#),
            )
            .unwrap();
            let err = Labels::for_image(&dir.path().join("z.jpg"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(r#"field "zone" must be [x0, y0, x1, y1], fractions of the frame"#)
                    && err.contains(&format!("found {zone}")),
                "{zone}: {err}"
            );
        }
    }
}
