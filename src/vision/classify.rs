//! The card classifier: the ONNX model of `models/` run with tract, and the
//! contract's way of turning its logits into a read (temperature-scaled softmax per
//! crop, log-probabilities of the two crops summed, renormalised).

use std::collections::HashMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use thiserror::Error;
use tract_onnx::prelude::*;

use super::pips::PATCH;
use super::rectify::{CROP_H, CROP_LEN, CROP_W, WHOLE_H, WHOLE_LEN, WHOLE_W};
use super::warning::SMALL_CARD_HEIGHT;
use crate::cards::{Card, Rank, Suit};

/// Classes the model tells apart: the 52 cards by [`Card::index`], then "not a
/// card / no index".
pub const CLASSES: usize = 53;
/// The class of "not a card / no index".
pub const NOT_A_CARD: usize = 52;
/// File names of the model and its settings inside a model directory.
pub const MODEL_FILE: &str = "recognizer.onnx";
pub const SETTINGS_FILE: &str = "recognizer.json";

/// Why the model could not be loaded or run.
#[derive(Debug, Error)]
pub enum ModelError {
    #[error("no recognizer model found (looked for {MODEL_FILE} in: {searched}); pass --model DIR or set ELEUSIS_MODEL")]
    NotFound { searched: String },
    /// The model the user named is not there: says what was given and what was
    /// looked for in it, once (not the settings file of a path that does not exist).
    #[error("{given}: {missing} (a model is a folder holding {MODEL_FILE} and {SETTINGS_FILE}, or a .onnx file with its .json beside it)")]
    Missing { given: String, missing: String },
    #[error("{path}: cannot read: {reason}")]
    Io {
        path: String,
        /// Not named `source`: the message already holds it, and a report printing
        /// the chain of causes (`anyhow`'s `{:#}`) would say it twice.
        reason: std::io::Error,
    },
    #[error("{path}: bad model settings: {message}")]
    Settings { path: String, message: String },
    #[error("{path}: cannot load the ONNX model: {message}")]
    Load { path: String, message: String },
    #[error("running the model failed: {0}")]
    Run(String),
}

/// `models/recognizer.json`: what the model expects and how to read its output.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct ModelSettings {
    /// Input shape of one crop, `[3, 72, 40]`.
    pub input: [usize; 3],
    /// Output classes (53).
    pub classes: usize,
    /// Softmax temperature fitted on validation data.
    pub temperature: f32,
    /// Reads less confident than this need God's confirmation.
    pub confirm_threshold: f32,
    /// The same for a card read from one index corner alone (a card partly
    /// covered in an overlapping row): one crop is less sure than two, so it has
    /// its own threshold, fitted the same way on single validation crops. Absent:
    /// `confirm_threshold`.
    #[serde(default)]
    pub confirm_threshold_one_corner: Option<f32>,
    /// Cards shorter than this in the frame (their outline's longest side, in
    /// pixels) ask God however sure the read: the confidence was calibrated on cards
    /// of 85 px and taller, and below about 70 px the model is sure of wrong reads
    /// (README, "Camera resolution"). Absent: [`SMALL_CARD_HEIGHT`].
    #[serde(default)]
    pub confirm_below_height: Option<f64>,
    /// The model's version, as the training pipeline writes it.
    #[serde(default)]
    pub version: serde_json::Value,
    /// The card reader, a second model that reads the whole card shrunk
    /// (models/README.md, "Card reader"). Absent: cards are read from their index
    /// corners alone, as before it existed.
    #[serde(default)]
    pub card_reader: Option<CardReaderSettings>,
    /// The pip reader, a third model that reads the suit of a number card from
    /// the shape of its pips (models/README.md, "Pips"). Absent: no read is
    /// checked against its pips.
    #[serde(default)]
    pub pip_reader: Option<PipReaderSettings>,
    /// The 53 labels in class order, as the training pipeline writes them; when
    /// given, they must be the service's order ([`Card::index`], `none` last): a
    /// model exported in another order would name every card wrong, surely.
    #[serde(default)]
    pub class_names: Option<Vec<String>>,
    /// Settings this build does not know (a misspelling, or a newer pipeline's),
    /// as `key` or `section.key`: ignored, and said when the model is loaded,
    /// since a misspelt threshold silently falls back to another.
    #[serde(skip)]
    pub unknown: Vec<String>,
}

/// The settings [`ModelSettings`] reads or the training pipeline documents
/// (models/README.md, "The contract"), by section: anything else is reported.
const KNOWN_SETTINGS: [(&str, &[&str]); 3] = [
    (
        "",
        &[
            "input",
            "classes",
            "temperature",
            "confirm_threshold",
            "confirm_threshold_one_corner",
            "confirm_below_height",
            "version",
            "card_reader",
            "pip_reader",
            "class_names",
            "rectified",
            "crop",
            "opset",
            "validation",
            "validation_one_corner",
        ],
    ),
    (
        "card_reader",
        &["file", "input", "temperature", "weight", "below"],
    ),
    (
        "pip_reader",
        &[
            "file",
            "input",
            "deny_below",
            "min_pips",
            "min_confidence",
            "count_histogram",
            "ace_deny_below",
        ],
    ),
];

/// The keys of `settings` (a parsed `recognizer.json`) that [`KNOWN_SETTINGS`]
/// does not name, as `key` or `section.key`.
fn unknown_settings(settings: &serde_json::Value) -> Vec<String> {
    let mut unknown = Vec::new();
    for (section, known) in KNOWN_SETTINGS {
        let object = if section.is_empty() {
            settings.as_object()
        } else {
            settings.get(section).and_then(|v| v.as_object())
        };
        for key in object.into_iter().flat_map(|o| o.keys()) {
            if !known.contains(&key.as_str()) {
                unknown.push(if section.is_empty() {
                    key.clone()
                } else {
                    format!("{section}.{key}")
                });
            }
        }
    }
    unknown
}

/// `pip_reader` in `recognizer.json`: a model reading one pip patch
/// ([`super::pips::find_pips`], `[1, 24, 24]`) as spade, heart, diamond, club or
/// "not a pip". A number card whose pips' summed suit log-probabilities leave its
/// read suit less likely than `deny_below` asks God, however sure its index read.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct PipReaderSettings {
    /// Its ONNX file, a name in the folder of `recognizer.json`.
    pub file: String,
    /// Input shape of one patch, `[1, 24, 24]`.
    pub input: [usize; 3],
    /// A read's suit whose probability from its pips is below this is denied.
    pub deny_below: f32,
    /// The fewest pips read as suit signs (not "not a pip") that may deny a read:
    /// one blob alone may be a stray mark.
    pub min_pips: usize,
    /// A pip is evidence of its suit only when the reader gives its class at
    /// least this probability (absent: 0, every pip). On a blurred card every pip
    /// is the same smudge, each read a little more one suit than another; summed
    /// over nine pips, that small lean became a confident denial of a correct
    /// read. Pips under it still count towards [`PipRead::pips`].
    #[serde(default)]
    pub min_confidence: f32,
    /// How many validation cards of each rank showed 0, 1, … 10 pips read as a
    /// suit (`models/pip_counts.py --settings`); absent: a read's rank is not
    /// weighed with its count (`recognizer::pips_weighed_rank`).
    #[serde(default)]
    pub count_histogram: Option<CountHistogram>,
    /// A read ace's suit whose probability from its one big pip (at least
    /// `min_confidence` sure) is below this, and not the suit the pip favours, is
    /// denied; absent: aces are not checked. An ace shows one pip, so `min_pips`
    /// does not apply; its pip is large and plain in every design measured, and
    /// read right far more surely than a number card's small ones
    /// (models/README.md, "Aces").
    #[serde(default)]
    pub ace_deny_below: Option<f32>,
}

/// `count_histogram` of `pip_reader`: per rank (`"2"` … `"10"`, `"J"`, `"Q"`,
/// `"K"`), how many rendered validation cards showed each number of pips read as a
/// suit, from 0 up (the last entry: that many or more).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(try_from = "HashMap<String, Vec<u32>>")]
pub struct CountHistogram(Vec<(Rank, Vec<u32>)>);

impl TryFrom<HashMap<String, Vec<u32>>> for CountHistogram {
    type Error = String;

    fn try_from(map: HashMap<String, Vec<u32>>) -> Result<Self, Self::Error> {
        let mut ranks = Vec::with_capacity(map.len());
        for (label, counts) in map {
            let rank = Rank::parse(&label)
                .filter(|r| r.value() >= 2)
                .ok_or_else(|| format!("count_histogram: {label:?} is not a rank from 2 to K"))?;
            if counts.is_empty() {
                return Err(format!("count_histogram: rank {label} has no counts"));
            }
            ranks.push((rank, counts));
        }
        ranks.sort_by_key(|(r, _)| r.value());
        Ok(CountHistogram(ranks))
    }
}

impl CountHistogram {
    /// The ranks it has counts for.
    pub fn ranks(&self) -> impl Iterator<Item = Rank> + '_ {
        self.0.iter().map(|(r, _)| *r)
    }

    /// How likely a card of `rank` shows `count` pips read as a suit: its share of
    /// the validation cards of that rank, each count given one card more so that a
    /// small sample rules nothing out; 0 for a number card showing more pips than
    /// its rank (blur merges pips, it never adds them) and for a rank not counted.
    pub fn likelihood(&self, rank: Rank, count: usize) -> f32 {
        if rank.value() <= 10 && count > usize::from(rank.value()) {
            return 0.0;
        }
        let Some((_, h)) = self.0.iter().find(|(r, _)| *r == rank) else {
            return 0.0;
        };
        let seen = h[count.min(h.len() - 1)];
        let total: u32 = h.iter().sum();
        (seen as f32 + 1.0) / (total as f32 + h.len() as f32)
    }
}

/// `card_reader` in `recognizer.json`: a model reading the whole rectified card
/// shrunk to `[3, 56, 40]` for the same 53 classes. Its log-probabilities, at its
/// own temperature and times `weight`, are added to the index corners' before the
/// read is renormalised: on a small card the pips and court art span many pixels
/// where the index spans a few, so the two readers err on different cards.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct CardReaderSettings {
    /// Its ONNX file, a name in the folder of `recognizer.json`.
    pub file: String,
    /// Input shape of one whole card, `[3, 56, 40]`.
    pub input: [usize; 3],
    /// Softmax temperature fitted on validation data.
    pub temperature: f32,
    /// Weight of its log-probabilities in a read (1: the two readers' product).
    pub weight: f32,
    /// Only a card whose corners alone are read with less confidence than this is
    /// read by the card reader too (the threshold the index model alone would
    /// have): the others are already sure, and most frames' cards are, so most
    /// frames cost no more than without it. Absent: every card.
    #[serde(default)]
    pub below: Option<f32>,
}

impl ModelSettings {
    /// Parses and checks the settings against the contract.
    pub fn parse(text: &[u8], path: &str) -> Result<ModelSettings, ModelError> {
        let bad = |message: String| ModelError::Settings {
            path: path.to_string(),
            message,
        };
        // Parsed from the text (its errors say where), then once more as a value
        // to find the keys the struct does not take.
        let mut s: ModelSettings = serde_json::from_slice(text).map_err(|e| bad(e.to_string()))?;
        let value: serde_json::Value =
            serde_json::from_slice(text).map_err(|e| bad(e.to_string()))?;
        s.unknown = unknown_settings(&value);
        if let Some(names) = &s.class_names {
            let expected = (0..52).filter_map(Card::from_index).map(|c| c.to_string());
            let ours: Vec<String> = expected.chain(["none".to_string()]).collect();
            if *names != ours {
                let first = names.iter().zip(&ours).position(|(a, b)| a != b);
                return Err(bad(match first {
                    Some(i) => format!(
                        "class_names[{i}] is {:?} where this build reads {:?}: the model's classes are in another order",
                        names[i], ours[i]
                    ),
                    None => format!(
                        "class_names has {} labels where this build reads {}",
                        names.len(),
                        ours.len()
                    ),
                }));
            }
        }
        // A threshold is a probability; a temperature divides logits.
        let probability = |name: &str, p: f32| {
            if (0.0..=1.0).contains(&p) {
                Ok(())
            } else {
                Err(bad(format!("{name} {p} is outside [0, 1]")))
            }
        };
        let temperature = |name: &str, t: f32| {
            if t.is_finite() && t > 0.0 {
                Ok(())
            } else {
                Err(bad(format!("{name} {t} is not a positive number")))
            }
        };
        // A companion model's file is named beside the settings, never elsewhere.
        let beside = |name: &str, file: &str| {
            if Path::new(file).file_name().is_some_and(|n| n == file) {
                Ok(())
            } else {
                Err(bad(format!(
                    "{name} file {file:?} is not a file name (it must lie beside the settings)"
                )))
            }
        };
        if s.input != [3, CROP_H, CROP_W] {
            return Err(bad(format!(
                "input is {:?}, the recognizer feeds [3, {CROP_H}, {CROP_W}]",
                s.input
            )));
        }
        if s.classes != CLASSES {
            return Err(bad(format!(
                "{} classes, the contract has {CLASSES}",
                s.classes
            )));
        }
        temperature("temperature", s.temperature)?;
        probability("confirm_threshold", s.confirm_threshold)?;
        if let Some(h) = s.confirm_below_height {
            if !(h.is_finite() && h >= 0.0) {
                return Err(bad(format!(
                    "confirm_below_height {h} is not a height in pixels"
                )));
            }
        }
        if let Some(t) = s.confirm_threshold_one_corner {
            probability("confirm_threshold_one_corner", t)?;
        }
        if let Some(c) = &s.card_reader {
            if c.input != [3, WHOLE_H, WHOLE_W] {
                return Err(bad(format!(
                    "card_reader input is {:?}, the recognizer feeds [3, {WHOLE_H}, {WHOLE_W}]",
                    c.input
                )));
            }
            temperature("card_reader temperature", c.temperature)?;
            if let Some(b) = c.below {
                probability("card_reader below", b)?;
            }
            if !(c.weight.is_finite() && c.weight >= 0.0) {
                return Err(bad(format!(
                    "card_reader weight {} is not a number of at least 0",
                    c.weight
                )));
            }
            beside("card_reader", &c.file)?;
        }
        if let Some(p) = &s.pip_reader {
            if p.input != [1, PATCH, PATCH] {
                return Err(bad(format!(
                    "pip_reader input is {:?}, the recognizer feeds [1, {PATCH}, {PATCH}]",
                    p.input
                )));
            }
            probability("pip_reader deny_below", p.deny_below)?;
            probability("pip_reader min_confidence", p.min_confidence)?;
            if let Some(a) = p.ace_deny_below {
                probability("pip_reader ace_deny_below", a)?;
            }
            beside("pip_reader", &p.file)?;
        }
        Ok(s)
    }

    /// The height (frame pixels) under which every card read asks God.
    pub fn confirm_below_height(&self) -> f64 {
        self.confirm_below_height.unwrap_or(SMALL_CARD_HEIGHT)
    }

    /// The confirmation threshold of a read from one index corner.
    pub fn one_corner_threshold(&self) -> f32 {
        self.confirm_threshold_one_corner
            .unwrap_or(self.confirm_threshold)
    }
}

/// The pip reader's classes: the four suits in this order, then "not a pip".
pub const PIP_CLASSES: usize = 5;
/// The pip reader's suits, in the order of its outputs.
pub const PIP_SUITS: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

/// What the pip patches' logits (`n × 5`) say, before any read is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PipSuits {
    /// Patches read as a suit (their best class is not "not a pip").
    pips: usize,
    /// Those patches by their best suit, in the order of [`PIP_SUITS`].
    by_suit: [usize; 4],
    /// Of those, the ones read at least `min_confidence` sure: the evidence.
    sure: usize,
    /// The sure pips' suit log-probabilities, each renormalised over the four
    /// suits, summed.
    sum: [f32; 4],
}

fn pip_suits(logits: &[f32], min_confidence: f32) -> PipSuits {
    let mut out = PipSuits {
        pips: 0,
        by_suit: [0; 4],
        sure: 0,
        sum: [0.0; 4],
    };
    for z in logits.chunks_exact(PIP_CLASSES) {
        let all = log_softmax(z, 1.0);
        let best = (0..PIP_CLASSES).max_by(|&a, &b| all[a].total_cmp(&all[b]));
        let Some(best) = best.filter(|&b| b != PIP_CLASSES - 1) else {
            continue;
        };
        out.pips += 1;
        out.by_suit[best] += 1;
        if all[best].exp() >= min_confidence {
            let suits = log_softmax(&z[..4], 1.0);
            out.sum.iter_mut().zip(&suits).for_each(|(s, v)| *s += v);
            out.sure += 1;
        }
    }
    out
}

/// A card's suit log-probabilities from its pips ([`pip_suits`]), normalised;
/// `None` with fewer than `min_pips` pips (or none).
fn pip_suit_sum(pips: usize, sum: &[f32; 4], min_pips: usize) -> Option<[f32; 4]> {
    if pips < min_pips.max(1) {
        return None;
    }
    let norm = log_softmax(sum, 1.0);
    Some([norm[0], norm[1], norm[2], norm[3]])
}

/// What a card's pips say ([`Classifier::read_pips`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipRead {
    /// The suit the pips favour, when they deny the read's.
    pub denies: Option<Suit>,
    /// How many of the patches the pip reader read as a suit: a number card
    /// shows as many pips as its rank, or fewer when blur merges some or one
    /// lies beside an index; more pips than the read's rank deny the rank.
    pub pips: usize,
    /// Those pips by the suit each reads as best, in the order of [`PIP_SUITS`]:
    /// a card's own pips are of one suit, where an outline that takes in part of
    /// a neighbour mixes two.
    pub by_suit: [usize; 4],
    /// The suits' log-probabilities from the pips sure enough to be evidence,
    /// normalised, in the order of [`PIP_SUITS`]; `None` with fewer of them than
    /// the settings' `min_pips`. A read that asks God weighs its suit with them
    /// (`recognizer::pips_weighed_suit`).
    pub suit_sum: Option<[f32; 4]>,
}

impl PipRead {
    /// How many of the pips read as `suit`.
    pub fn of_suit(&self, suit: Suit) -> usize {
        PIP_SUITS
            .iter()
            .position(|s| *s == suit)
            .map_or(0, |i| self.by_suit[i])
    }
}

/// What pips whose logits are `logits` (`n × 5`) say about a read of suit
/// `suit`: counted, summed from at least `min_pips` pips `min_confidence` sure,
/// and denying `suit` when it is left less likely than `deny_below`.
fn pip_read(
    logits: &[f32],
    suit: Suit,
    min_confidence: f32,
    min_pips: usize,
    deny_below: f32,
) -> PipRead {
    let read = pip_suits(logits, min_confidence);
    let suit_sum = pip_suit_sum(read.sure, &read.sum, min_pips);
    PipRead {
        denies: suit_sum.and_then(|sum| denied_suit(&sum, suit, deny_below)),
        pips: read.pips,
        by_suit: read.by_suit,
        suit_sum,
    }
}

/// The suit a card's pips favour when they leave `suit` less likely than
/// `deny_below` (`sum`: their suit log-probabilities, normalised); `None` when
/// they do not deny it, or still favour `suit` itself (a threshold above a
/// quarter allows that: an ace's).
fn denied_suit(sum: &[f32; 4], suit: Suit, deny_below: f32) -> Option<Suit> {
    let read = PIP_SUITS.iter().position(|s| *s == suit)?;
    if sum[read].exp() >= deny_below {
        return None;
    }
    let favoured = (0..4).max_by(|&a, &b| sum[a].total_cmp(&sum[b]))?;
    (favoured != read).then_some(PIP_SUITS[favoured])
}

/// What the combined crops say about one quad.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassRead {
    /// The best class: a card, or `None` for "not a card".
    pub card: Option<Card>,
    /// Calibrated probability of that class.
    pub confidence: f32,
    /// The per-class log-probabilities the read was taken from (each look's two
    /// crops' log-probabilities summed, averaged over the looks; not
    /// renormalised, the card reader's term included): a later look at the same
    /// card averages with it instead of cutting and reading those crops again.
    pub score: [f32; CLASSES],
    /// The card reader's weighted log-probabilities, part of `score` (zeros without
    /// a card reader): each later look at the card adds them as the first did.
    pub whole: [f32; CLASSES],
    /// Read from one index crop alone: a sure top-left crop
    /// ([`Classifier::read_sure_corner_first`]) or a legible crop beside a corner
    /// blank in a lamp's glare ([`blank_corner_read`]). Held to the one-corner
    /// threshold like a covered card's corner, and neither read with the card
    /// reader nor looked at again: the blank corner's crops would only repeat
    /// that they show no index.
    pub one_corner: bool,
    /// Read from one crop because the other showed no index
    /// ([`blank_corner_read`]), not because the one was sure on its own: such a
    /// card's corner had nothing to agree with, and a small one asks God.
    pub blank_corner: bool,
}

impl ClassRead {
    /// The probability this read gives `card` (its score renormalised): what the
    /// index and card readers make of a card the pips propose instead of theirs.
    pub fn probability_of(&self, card: Card) -> f32 {
        self.log_probabilities()
            .get(card.index())
            .map_or(0.0, |lp| lp.exp())
    }

    /// Every class's log-probability (the score renormalised), in the order of
    /// [`Card::index`]: for weighing several cards against other evidence at once.
    pub fn log_probabilities(&self) -> Vec<f32> {
        log_softmax(&self.score, 1.0)
    }
}

fn log_softmax(z: &[f32], temperature: f32) -> Vec<f32> {
    let scaled: Vec<f32> = z.iter().map(|v| v / temperature).collect();
    let max = scaled.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = scaled.iter().map(|v| (v - max).exp()).sum();
    let log_sum = max + sum.ln();
    scaled.iter().map(|v| v - log_sum).collect()
}

/// One look at a card: the log-softmaxes of its two crops at the temperature,
/// summed (a log-probability per class, not yet renormalised).
fn look_score(top_left: &[f32], bottom_right: &[f32], temperature: f32) -> Vec<f32> {
    let a = log_softmax(top_left, temperature);
    let b = log_softmax(bottom_right, temperature);
    a.iter().zip(&b).map(|(x, y)| x + y).collect()
}

/// A score renormalised: the best class and its probability. `whole` is the card
/// reader's part of the score, kept for later looks.
fn read_score(score: &[f32], whole: [f32; CLASSES]) -> ClassRead {
    let mut kept = [0.0f32; CLASSES];
    for (k, v) in kept.iter_mut().zip(score) {
        *k = *v;
    }
    let probs = log_softmax(score, 1.0);
    let (best, lp) =
        probs
            .iter()
            .enumerate()
            .fold((NOT_A_CARD, f32::NEG_INFINITY), |acc, (i, &v)| {
                if v > acc.1 {
                    (i, v)
                } else {
                    acc
                }
            });
    ClassRead {
        card: if best == NOT_A_CARD {
            None
        } else {
            Card::from_index(best)
        },
        confidence: if lp.is_finite() { lp.exp() } else { 0.0 },
        score: kept,
        whole,
        one_corner: false,
        blank_corner: false,
    }
}

/// One index crop's read on its own: its log-softmax at the temperature,
/// renormalised (no card reader term).
fn crop_read(logits: &[f32], temperature: f32) -> ClassRead {
    read_score(&log_softmax(logits, temperature), [0.0; CLASSES])
}

/// What an outline to be read may hold, which decides how far its two index
/// crops may be read apart ([`Classifier::read_sure_corner_first`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Outline {
    /// Perhaps several cards (a piece of a row, touching cards, an outline of
    /// other proportions than a card's): one card's index may show in each
    /// corner, and only the two crops together tell.
    #[default]
    MaybeSeveral,
    /// One card, too small for one corner to be believed alone (its index a few
    /// pixels tall can be surely wrong): both crops are read together, but a
    /// corner washed out in glare gives way to a legible one
    /// ([`blank_corner_read`]).
    SmallCard,
    /// One card, big enough: a top-left crop sure on its own is the read, and a
    /// blank corner gives way to a legible one.
    Card,
}

/// How sure one crop must be of a card for a card whose other crop reads as no
/// card to be read from it ([`blank_corner_read`]). At this level none of the 292
/// "not a card" targets of the validation crops is read as a card by one crop
/// while the other says no card (4 are at 0.5); models/README.md, "Path-traced
/// photos".
pub const BLANK_CORNER_LEVEL: f32 = 0.9;

/// A card one of whose index corners shows no index: in a lamp's glare, mirrored
/// by a glossy coating, a corner can be washed out to blank paper, and its crop
/// then says "not a card" as surely as the other says which card it is; summed,
/// the blank corner outvotes the legible one and a card in plain view vanishes
/// from the read. When one crop reads as no card and the other as a card at
/// least [`BLANK_CORNER_LEVEL`] surely, the card is read from that crop alone, as
/// a covered card is (`one_corner`); `None` otherwise. Something that is not a
/// card shows no index in either corner. Only outlines that can be one card
/// alone are read so ([`Outline`]): a piece of
/// an overlapping row can show an index in one corner and a neighbour's plain
/// paper in the other.
pub fn blank_corner_read(
    top_left: &[f32],
    bottom_right: &[f32],
    temperature: f32,
) -> Option<ClassRead> {
    let [a, b] = [top_left, bottom_right].map(|z| crop_read(z, temperature));
    let card = match (a.card, b.card) {
        (Some(_), None) => a,
        (None, Some(_)) => b,
        _ => return None,
    };
    (card.confidence >= BLANK_CORNER_LEVEL).then_some(ClassRead {
        one_corner: true,
        blank_corner: true,
        ..card
    })
}

/// Combines the logits of a card's two crops per the contract: log-softmax of each
/// at the temperature, summed, renormalised; the best class and its probability.
pub fn combine(top_left: &[f32], bottom_right: &[f32], temperature: f32) -> ClassRead {
    read_score(
        &look_score(top_left, bottom_right, temperature),
        [0.0; CLASSES],
    )
}

/// The read of several looks at one card (its crops cut from slightly different
/// outlines): the looks' scores ([`look_score`], plus `whole`, the card reader's
/// term, in each) averaged, then renormalised. One look without a card reader
/// gives exactly [`combine`].
fn mean_read(scores: impl Iterator<Item = Vec<f32>>, whole: [f32; CLASSES]) -> ClassRead {
    let mut mean = vec![0.0f32; CLASSES];
    let mut n = 0usize;
    for score in scores {
        for (m, v) in mean.iter_mut().zip(score) {
            *m += v;
        }
        n += 1;
    }
    let n = n.max(1) as f32;
    mean.iter_mut().for_each(|m| *m /= n);
    read_score(&mean, whole)
}

type Plan = TypedRunnableModel<TypedModel>;

/// Batch sizes that get a plan of their own (see [`Classifier`]). Larger batches
/// run in parts of this size: a network's activations for a batch of dozens of
/// crops outgrow the processor's caches, and one crop then costs more. Measured on
/// one core with the width-40 index model: 0.87–1.1 ms a crop in batches of 1 to 8
/// (a 4-card frame's is 8; one of 6 took 1.3), 1.3 ms in one of 24 and 1.4 ms in
/// one of 64; an overlapping row of 12 (about 160 crops) read in 291–303 ms in
/// parts of 8 against 357–414 ms in parts of 64, and a fanned hand of 16 in
/// 174–182 ms against 206–222 ms, with no change beyond the spread on frames of a
/// few cards (README, "Measured performance"). Sizes beyond the first
/// [`MAX_SIZED_PLANS`] run on the general plan.
const MAX_SIZED_BATCH: usize = 8;
const MAX_SIZED_PLANS: usize = 24;

/// One loaded ONNX network. It is optimised once for a batch of any size (`N`),
/// which also proves at load time that the file is usable. tract runs a plan
/// optimised for one concrete batch size faster (measured with the width-32 index
/// model, the model alone on a 4-card frame: 3.97 ms instead of 4.49), so the first
/// batch of each size builds such a plan, about 5 ms once, and later batches of
/// that size reuse it.
struct Network {
    plan: Plan,
    /// The decluttered model with a symbolic batch, to build sized plans from.
    typed: TypedModel,
    batch: Symbol,
    sized: Mutex<HashMap<usize, Arc<Plan>>>,
    /// The shape of one input, `[3, H, W]`.
    input: [usize; 3],
    /// Logits per input (53 for the card readers).
    outputs: usize,
}

impl Network {
    fn load(
        onnx: &[u8],
        input: [usize; 3],
        outputs: usize,
        source: &str,
    ) -> Result<Network, ModelError> {
        let load = |e: TractError| ModelError::Load {
            path: source.to_string(),
            message: format!("{e:#}"),
        };
        let mut model = tract_onnx::onnx()
            .model_for_read(&mut Cursor::new(onnx))
            .map_err(load)?;
        let batch = model.sym("N");
        let shape = [
            batch.to_dim(),
            input[0].to_dim(),
            input[1].to_dim(),
            input[2].to_dim(),
        ];
        model
            .set_input_fact(0, InferenceFact::dt_shape(f32::datum_type(), shape))
            .map_err(load)?;
        let typed = model
            .into_typed()
            .and_then(|m| m.into_decluttered())
            .map_err(load)?;
        let plan = typed
            .clone()
            .into_optimized()
            .and_then(|m| m.into_runnable())
            .map_err(load)?;
        Ok(Network {
            plan,
            typed,
            batch,
            sized: Mutex::new(HashMap::new()),
            input,
            outputs,
        })
    }

    /// Floats in one input.
    fn input_len(&self) -> usize {
        self.input.iter().product()
    }

    /// Runs the network on `n` inputs laid out one after another; returns `n ×
    /// outputs` logits.
    fn logits(&self, data: &[f32], n: usize) -> Result<Vec<f32>, ModelError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let len = self.input_len();
        if data.len() != n * len {
            return Err(ModelError::Run(format!(
                "{} floats given for {n} inputs of {len}",
                data.len()
            )));
        }
        if n > MAX_SIZED_BATCH {
            // Parts of at most MAX_SIZED_BATCH inputs, each on its sized plan.
            let mut out = Vec::with_capacity(n * self.outputs);
            for chunk in data.chunks(MAX_SIZED_BATCH * len) {
                out.extend(self.logits(chunk, chunk.len() / len)?);
            }
            return Ok(out);
        }
        let [c, h, w] = self.input;
        let input = Tensor::from_shape(&[n, c, h, w], data)
            .map_err(|e| ModelError::Run(format!("{e:#}")))?;
        let out = match self.sized_plan(n) {
            Some(plan) => plan.run(tvec!(input.into())),
            None => self.plan.run(tvec!(input.into())),
        }
        .map_err(|e| ModelError::Run(format!("{e:#}")))?;
        let first = out
            .first()
            .ok_or_else(|| ModelError::Run("the model has no output".into()))?;
        let view = first
            .to_array_view::<f32>()
            .map_err(|e| ModelError::Run(format!("{e:#}")))?;
        if view.shape() != [n, self.outputs] {
            return Err(ModelError::Run(format!(
                "output shape {:?}, expected [{n}, {}]",
                view.shape(),
                self.outputs
            )));
        }
        Ok(view.iter().copied().collect())
    }

    /// The plan for batches of exactly `n`, built on first use; `None` when `n` is
    /// too large, the cache is full, or building fails (the general plan runs then).
    fn sized_plan(&self, n: usize) -> Option<Arc<Plan>> {
        if n > MAX_SIZED_BATCH {
            return None;
        }
        let mut cache = self.sized.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(plan) = cache.get(&n) {
            return Some(plan.clone());
        }
        if cache.len() >= MAX_SIZED_PLANS {
            return None;
        }
        let values = SymbolValues::default().with(&self.batch, n as i64);
        let plan = self
            .typed
            .concretize_dims(&values)
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .ok()?;
        let plan = Arc::new(plan);
        cache.insert(n, plan.clone());
        Some(plan)
    }
}

/// The loaded recognizer: the index model (`recognizer.onnx`, two crops per card)
/// and, when its settings name one, the card reader (one whole card per card).
pub struct Classifier {
    index: Network,
    card_reader: Option<Network>,
    pip_reader: Option<Network>,
    settings: ModelSettings,
    /// Where it came from, for messages.
    pub source: String,
}

impl std::fmt::Debug for Classifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Classifier")
            .field("source", &self.source)
            .field("settings", &self.settings)
            .finish()
    }
}

impl Classifier {
    /// Loads `recognizer.onnx` and `recognizer.json` from a directory, or a `.onnx`
    /// file with its settings next to it (same name, `.json`; naming the `.json`
    /// does as well), and the card reader
    /// the settings name, from the settings' folder. A file missing is reported
    /// against the path given, saying what was looked for there: a path that does
    /// not exist is not taken for a `.onnx` file whose settings are missing.
    pub fn load(path: &Path) -> Result<Classifier, ModelError> {
        let given = path.display().to_string();
        let name = |p: &Path| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        };
        let (onnx, json, place) = if path.is_dir() {
            (
                path.join(MODEL_FILE),
                path.join(SETTINGS_FILE),
                "in this folder",
            )
        } else if path.extension().is_some_and(|e| e == "json") && path.exists() {
            // The settings named instead of the model: the model is beside them.
            (path.with_extension("onnx"), path.to_path_buf(), "beside it")
        } else if path.exists() {
            (path.to_path_buf(), path.with_extension("json"), "beside it")
        } else {
            return Err(ModelError::Missing {
                given,
                missing: "no such folder or file".to_string(),
            });
        };
        let read = |p: &Path| {
            std::fs::read(p).map_err(|reason| {
                if reason.kind() == std::io::ErrorKind::NotFound {
                    ModelError::Missing {
                        given: given.clone(),
                        missing: format!("no {} {place}", name(p)),
                    }
                } else {
                    ModelError::Io {
                        path: p.display().to_string(),
                        reason,
                    }
                }
            })
        };
        let settings = ModelSettings::parse(&read(&json)?, &json.display().to_string())?;
        let index = read(&onnx)?;
        let card_reader = match &settings.card_reader {
            Some(c) => {
                let path = json.with_file_name(&c.file);
                let bytes = read(&path)?;
                Some((bytes, path.display().to_string()))
            }
            None => None,
        };
        let pip_reader = match &settings.pip_reader {
            Some(p) => {
                let path = json.with_file_name(&p.file);
                Some((read(&path)?, path.display().to_string()))
            }
            None => None,
        };
        let classifier = Classifier::from_parts(
            &index,
            card_reader
                .as_ref()
                .map(|(b, p)| (b.as_slice(), p.as_str())),
            settings,
            onnx.display().to_string(),
        )?;
        match pip_reader {
            Some((bytes, path)) => classifier.with_pip_reader(&bytes, &path),
            None => Ok(classifier),
        }
    }

    /// Loads the model `$ELEUSIS_MODEL` names, or else the one found by
    /// [`find_model_dir`]. A model named through the environment is that model
    /// or an error naming it, as `--model` is: falling back to another would read
    /// with a model nobody chose, and `recognize --json` says nowhere which.
    pub fn load_default() -> Result<Classifier, ModelError> {
        if let Some(named) = std::env::var_os("ELEUSIS_MODEL").filter(|p| !p.is_empty()) {
            return Classifier::load(Path::new(&named));
        }
        let dir = find_model_dir()?;
        Classifier::load(&dir)
    }

    /// Builds the classifier from the index model's ONNX bytes, the card reader's
    /// (bytes and where they came from; needed when the settings name a card
    /// reader, ignored otherwise) and the settings.
    pub fn from_parts(
        onnx: &[u8],
        card_reader: Option<(&[u8], &str)>,
        settings: ModelSettings,
        source: String,
    ) -> Result<Classifier, ModelError> {
        let index = Network::load(onnx, settings.input, CLASSES, &source)?;
        let card_reader = match (&settings.card_reader, card_reader) {
            (Some(c), Some((bytes, path))) => Some(Network::load(bytes, c.input, CLASSES, path)?),
            (Some(c), None) => {
                return Err(ModelError::Missing {
                    given: source,
                    missing: format!("no card reader {} given", c.file),
                })
            }
            (None, _) => None,
        };
        Ok(Classifier {
            index,
            card_reader,
            pip_reader: None,
            settings,
            source,
        })
    }

    /// Adds the pip reader the settings name, from its ONNX bytes (`path`: where
    /// they came from, for messages). Without one, reads are not checked against
    /// their pips; with settings that name none, the bytes are refused.
    pub fn with_pip_reader(mut self, onnx: &[u8], path: &str) -> Result<Classifier, ModelError> {
        let Some(p) = &self.settings.pip_reader else {
            return Err(ModelError::Settings {
                path: path.to_string(),
                message: "the model settings name no pip_reader".to_string(),
            });
        };
        self.pip_reader = Some(Network::load(onnx, p.input, PIP_CLASSES, path)?);
        Ok(self)
    }

    /// The validation designs' pip counts per rank, when the settings give them
    /// and a pip reader is loaded: what weighs an unsure read's rank.
    pub fn pip_counts(&self) -> Option<&CountHistogram> {
        self.pip_reader.as_ref()?;
        self.settings.pip_reader.as_ref()?.count_histogram.as_ref()
    }

    /// Whether number cards' reads are checked against their pips.
    pub fn reads_pips(&self) -> bool {
        self.pip_reader.is_some()
    }

    /// Whether aces' reads are checked against their one pip too
    /// (`ace_deny_below` in the pip reader's settings).
    pub fn reads_ace_pips(&self) -> bool {
        self.reads_pips()
            && self
                .settings
                .pip_reader
                .as_ref()
                .is_some_and(|p| p.ace_deny_below.is_some())
    }

    /// What a card's pips say about a read of suit `suit`: `patches` are its `n`
    /// pip patches ([`super::pips::find_pips`]). Each patch the pip reader does not
    /// call "not a pip" is counted, and adds its suit log-probabilities
    /// (renormalised over the four suits) when its class is at least
    /// `min_confidence` sure; with at least `min_pips` such patches the sum is
    /// normalised, and when `suit` is less likely than `deny_below` the
    /// suit the pips favour is in [`PipRead::denies`]. `None`: no pip reader.
    pub fn read_pips(
        &self,
        patches: &[f32],
        n: usize,
        suit: Suit,
    ) -> Result<Option<PipRead>, ModelError> {
        self.pips_held_to(patches, n, suit, |p| Some((p.min_pips, p.deny_below)))
    }

    /// What a read ace's pip says about its suit `suit`, as [`Classifier::read_pips`]
    /// says it of a number card's pips, but from one pip (an ace shows one) held
    /// to `ace_deny_below`. `None`: no pip reader, or settings that do not check
    /// aces.
    pub fn read_ace_pip(
        &self,
        patches: &[f32],
        n: usize,
        suit: Suit,
    ) -> Result<Option<PipRead>, ModelError> {
        self.pips_held_to(patches, n, suit, |p| p.ace_deny_below.map(|d| (1, d)))
    }

    /// The pips read and held to the fewest pips and the denial threshold that
    /// `rule` takes from the pip reader's settings (`None` from it: not checked).
    fn pips_held_to(
        &self,
        patches: &[f32],
        n: usize,
        suit: Suit,
        rule: impl Fn(&PipReaderSettings) -> Option<(usize, f32)>,
    ) -> Result<Option<PipRead>, ModelError> {
        let (Some(net), Some(p)) = (&self.pip_reader, &self.settings.pip_reader) else {
            return Ok(None);
        };
        let Some((min_pips, deny_below)) = rule(p) else {
            return Ok(None);
        };
        let logits = net.logits(patches, n)?;
        Ok(Some(pip_read(
            &logits,
            suit,
            p.min_confidence,
            min_pips,
            deny_below,
        )))
    }

    /// The settings read from `recognizer.json`.
    pub fn settings(&self) -> &ModelSettings {
        &self.settings
    }

    /// Whether reads take the whole card too ([`Classifier::read`]'s `wholes`).
    pub fn reads_whole_cards(&self) -> bool {
        self.card_reader.is_some()
    }

    /// Whether a read of the corners alone should be read again with the whole
    /// card: with a card reader, when it is less sure than the card reader's
    /// `below` (every read when that is absent).
    pub fn wants_whole_card(&self, corners_alone: &ClassRead) -> bool {
        match &self.settings.card_reader {
            Some(c) if self.card_reader.is_some() && !corners_alone.one_corner => {
                c.below.map_or(true, |b| corners_alone.confidence < b)
            }
            _ => false,
        }
    }

    /// Adds the card reader's term to reads of the corners alone, from each card's
    /// whole card (`cards × [3, 56, 40]`, in the order of `reads`), in one batch.
    pub fn add_whole_cards(
        &self,
        reads: &mut [ClassRead],
        wholes: &[f32],
    ) -> Result<(), ModelError> {
        if wholes.len() != reads.len() * WHOLE_LEN {
            return Err(ModelError::Run(format!(
                "{} floats given for {} whole cards of {WHOLE_LEN}",
                wholes.len(),
                reads.len()
            )));
        }
        let terms = self.whole_terms(wholes, reads.len())?;
        for (read, whole) in reads.iter_mut().zip(terms) {
            let score: Vec<f32> = read.score.iter().zip(&whole).map(|(s, w)| s + w).collect();
            *read = read_score(&score, whole);
        }
        Ok(())
    }

    /// Runs the index model on `n` crops laid out one after another
    /// (`n × [3, 72, 40]`); returns `n × 53` logits.
    pub fn logits(&self, crops: &[f32], n: usize) -> Result<Vec<f32>, ModelError> {
        self.index.logits(crops, n)
    }

    /// The card reader's term of each card's read (its log-softmax at its
    /// temperature, times its weight) from `cards` whole cards (`cards × [3, 56,
    /// 40]`); zeros for every card without a card reader.
    fn whole_terms(&self, wholes: &[f32], cards: usize) -> Result<Vec<[f32; CLASSES]>, ModelError> {
        let (Some(net), Some(c)) = (&self.card_reader, &self.settings.card_reader) else {
            return Ok(vec![[0.0; CLASSES]; cards]);
        };
        let logits = net.logits(wholes, cards)?;
        Ok(logits
            .chunks_exact(CLASSES)
            .map(|z| {
                let mut term = [0.0f32; CLASSES];
                for (t, v) in term.iter_mut().zip(log_softmax(z, c.temperature)) {
                    *t = c.weight * v;
                }
                term
            })
            .collect())
    }

    /// Reads cards from their crop pairs (`cards × 2 × [3, 72, 40]`, top-left crop
    /// first), all in one batch, and, with a card reader, from their whole cards
    /// (`wholes`: `cards × [3, 56, 40]` from [`whole_card`](super::rectify::whole_card),
    /// or empty to read the corners alone).
    pub fn read(
        &self,
        crops: &[f32],
        wholes: &[f32],
        cards: usize,
    ) -> Result<Vec<ClassRead>, ModelError> {
        let mut reads = self.read_looks(crops, cards, 1, &[])?;
        if !wholes.is_empty() {
            self.add_whole_cards(&mut reads, wholes)?;
        }
        Ok(reads)
    }

    /// Reads cards from their crop pairs (`cards × 2 × [3, 72, 40]`, top-left crop
    /// first) as [`Classifier::read`] reads them without whole cards, but the
    /// top-left crops of the cards marked [`Outline::Card`] in `outlines` first:
    /// such a card whose top-left crop alone reads as a card at least as surely as
    /// a read from one corner must to be believed
    /// ([`ModelSettings::one_corner_threshold`], fitted on single validation crops)
    /// is read from that crop, as a covered card's one corner is. Every other crop
    /// is read in a second batch, and each other card's two crops combined
    /// ([`combine`]); a card marked [`Outline::Card`] or [`Outline::SmallCard`]
    /// whose two crops combined read as no card, but one of them as a card, may be
    /// read from that one ([`blank_corner_read`]). Most cards a camera sees well
    /// are read from one crop, and the index model is most of a frame's time. Only
    /// a card's outline may be marked: an outline of two cards side by side shows
    /// one card's index in each corner, and only the two corners together tell.
    /// Cards beyond `outlines` are [`Outline::MaybeSeveral`].
    pub fn read_sure_corner_first(
        &self,
        crops: &[f32],
        cards: usize,
        outlines: &[Outline],
    ) -> Result<Vec<ClassRead>, ModelError> {
        let pair = 2 * CROP_LEN;
        self.read_sure_corner_first_cutting(crops, cards, outlines, |k, rest| {
            rest.extend_from_slice(&crops[k * pair + CROP_LEN..(k + 1) * pair]);
            true
        })
    }

    /// [`Classifier::read_sure_corner_first`], but the bottom-right crops of the
    /// cards marked [`Outline::Card`] need not be in `crops` yet: each card's is
    /// asked of `bottom_right(k, rest)` (which appends it to `rest`, `false` when
    /// it cannot be cut) only when the card's top-left crop alone did not read it.
    /// Cutting a crop costs about a tenth of reading it, and most such cards
    /// never need their second.
    pub fn read_sure_corner_first_cutting(
        &self,
        crops: &[f32],
        cards: usize,
        outlines: &[Outline],
        mut bottom_right: impl FnMut(usize, &mut Vec<f32>) -> bool,
    ) -> Result<Vec<ClassRead>, ModelError> {
        let pair = 2 * CROP_LEN;
        if crops.len() < cards * pair {
            return Err(ModelError::Run(format!(
                "{} crop values for {cards} cards, not {}",
                crops.len(),
                cards * pair
            )));
        }
        let outline = |k: usize| outlines.get(k).copied().unwrap_or_default();
        let firsts: Vec<usize> = (0..cards)
            .filter(|&k| outline(k) == Outline::Card)
            .collect();
        let first_crops: Vec<f32> = firsts
            .iter()
            .flat_map(|&k| crops[k * pair..k * pair + CROP_LEN].iter().copied())
            .collect();
        let first_logits = self.logits(&first_crops, firsts.len())?;
        let temperature = self.settings.temperature;
        let alone = self.settings.one_corner_threshold();
        let mut reads: Vec<Option<ClassRead>> = vec![None; cards];
        // Per card, its top-left crop's logits when they were read already.
        let mut read_first: Vec<Option<&[f32]>> = vec![None; cards];
        for (&k, z) in firsts.iter().zip(first_logits.chunks_exact(CLASSES)) {
            let read = crop_read(z, temperature);
            if read.card.is_some() && read.confidence >= alone {
                reads[k] = Some(ClassRead {
                    one_corner: true,
                    ..read
                });
            } else {
                read_first[k] = Some(z);
            }
        }
        // The crops still to read: each unread card's bottom-right crop, and its
        // top-left one too where that was not read first.
        let mut rest = Vec::new();
        for (k, first) in read_first.iter().enumerate() {
            if reads[k].is_none() {
                if first.is_none() {
                    rest.extend_from_slice(&crops[k * pair..k * pair + CROP_LEN]);
                }
                if !bottom_right(k, &mut rest) {
                    return Err(ModelError::Run(format!(
                        "the bottom-right crop of card {k} could not be cut"
                    )));
                }
            }
        }
        let rest_logits = self.logits(&rest, rest.len() / CROP_LEN)?;
        // In the same order: each unread card's top-left logits (unless read
        // first), then its bottom-right ones.
        let mut rest = rest_logits.chunks_exact(CLASSES);
        for (k, (read, first)) in reads.iter_mut().zip(read_first).enumerate() {
            if read.is_none() {
                let (Some(a), Some(b)) = (first.or_else(|| rest.next()), rest.next()) else {
                    return Err(ModelError::Run("too few logits for the crops read".into()));
                };
                let both = combine(a, b, temperature);
                *read = Some(match both.card {
                    None if outline(k) != Outline::MaybeSeveral => {
                        blank_corner_read(a, b, temperature).unwrap_or(both)
                    }
                    _ => both,
                });
            }
        }
        Ok(reads.into_iter().flatten().collect())
    }

    /// Reads cards from `looks` crop pairs each (`cards × looks × 2 × [3, 72, 40]`),
    /// all in one batch, averaging each card's looks (their summed crop
    /// log-probabilities, then renormalised, as [`combine`] does for one). A read
    /// in `earlier` (one per card, or none) counts as one more look at its card:
    /// its crops need not be read again, and its card reader's term is added to
    /// each new look (the whole card is not read again either).
    pub fn read_looks(
        &self,
        crops: &[f32],
        cards: usize,
        looks: usize,
        earlier: &[ClassRead],
    ) -> Result<Vec<ClassRead>, ModelError> {
        let looks = looks.max(1);
        let logits = self.logits(crops, 2 * looks * cards)?;
        let temperature = self.settings.temperature;
        Ok(logits
            .chunks_exact(2 * CLASSES * looks)
            .enumerate()
            .map(|(k, card)| {
                let first = earlier.get(k);
                let whole = first.map_or([0.0; CLASSES], |r| r.whole);
                let new = card.chunks_exact(2 * CLASSES).map(move |pair| {
                    let (a, b) = pair.split_at(CLASSES);
                    let mut score = look_score(a, b, temperature);
                    score.iter_mut().zip(&whole).for_each(|(s, w)| *s += w);
                    score
                });
                mean_read(
                    first.map(|r| r.score.to_vec()).into_iter().chain(new),
                    whole,
                )
            })
            .collect())
    }
}

impl Classifier {
    /// Reads cards from one index crop each, `looks` crops per card (`cards ×
    /// looks × [3, 72, 40]`), in one batch: each crop's log-softmax at the
    /// temperature, averaged over the card's looks, renormalised. For cards of an
    /// overlapping row, whose other corner is covered.
    pub fn read_one_corner(
        &self,
        crops: &[f32],
        cards: usize,
        looks: usize,
    ) -> Result<Vec<ClassRead>, ModelError> {
        let looks = looks.max(1);
        let logits = self.logits(crops, looks * cards)?;
        let temperature = self.settings.temperature;
        Ok(logits
            .chunks_exact(CLASSES * looks)
            .map(|card| {
                mean_read(
                    card.chunks_exact(CLASSES)
                        .map(|z| log_softmax(z, temperature)),
                    [0.0; CLASSES],
                )
            })
            .collect())
    }

    /// [`Classifier::read_one_corner`] for cards of which one look was read
    /// already (`read`, one look each, in card order; it is look number `at` of
    /// `looks`): `crops` holds each card's other looks, in order. Reading a crop
    /// once for a quick first read and again with the others would cost it twice.
    pub fn read_one_corner_adding(
        &self,
        crops: &[f32],
        looks: usize,
        read: &[ClassRead],
        at: usize,
    ) -> Result<Vec<ClassRead>, ModelError> {
        let others = looks.saturating_sub(1);
        if others == 0 {
            return Ok(read.to_vec());
        }
        let logits = self.logits(crops, others * read.len())?;
        let temperature = self.settings.temperature;
        Ok(logits
            .chunks_exact(CLASSES * others)
            .zip(read)
            .map(|(card, first)| {
                let mut scores: Vec<Vec<f32>> = card
                    .chunks_exact(CLASSES)
                    .map(|z| log_softmax(z, temperature))
                    .collect();
                scores.insert(at.min(others), first.score.to_vec());
                mean_read(scores.into_iter(), [0.0; CLASSES])
            })
            .collect())
    }
}

/// Where the model is looked for, in order: `$ELEUSIS_MODEL` (a directory or
/// `.onnx` file), `./models`, the `models/` directory of the crate the binary was
/// built from, and `models/` beside the executable or up to three levels above it
/// (`target/release/eleusis` → the checkout).
pub fn model_search_path() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(p) = std::env::var_os("ELEUSIS_MODEL").filter(|p| !p.is_empty()) {
        dirs.push(PathBuf::from(p));
    }
    dirs.push(PathBuf::from("models"));
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("models"));
    if let Ok(exe) = std::env::current_exe() {
        let mut dir = exe.parent().map(Path::to_path_buf);
        for _ in 0..4 {
            let Some(d) = dir else { break };
            dirs.push(d.join("models"));
            dir = d.parent().map(Path::to_path_buf);
        }
    }
    dirs
}

/// The first entry of [`model_search_path`] holding a model.
pub fn find_model_dir() -> Result<PathBuf, ModelError> {
    let dirs = model_search_path();
    for d in &dirs {
        let found = if d.extension().is_some_and(|e| e == "onnx") {
            d.is_file()
        } else {
            d.join(MODEL_FILE).is_file()
        };
        if found {
            return Ok(d.clone());
        }
    }
    Err(ModelError::NotFound {
        searched: dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::super::rectify::CROP_LEN;
    use super::*;

    #[test]
    fn pip_count_likelihoods_come_from_the_counts_with_one_more_card_each() {
        let counts: CountHistogram =
            serde_json::from_str(r#"{"3": [0, 0, 2, 8], "K": [6, 2, 1, 0]}"#).unwrap();
        let (three, king) = (Rank::new(3).unwrap(), Rank::KING);
        // 8 of 10 threes showed three pips: (8 + 1) / (10 + 4).
        assert!((counts.likelihood(three, 3) - 9.0 / 14.0).abs() < 1e-6);
        // None showed none: unlikely, not ruled out.
        assert!((counts.likelihood(three, 0) - 1.0 / 14.0).abs() < 1e-6);
        // More pips than a three has: ruled out.
        assert_eq!(counts.likelihood(three, 4), 0.0);
        // A court card has no rank to exceed; counts past the list take its last.
        assert!((counts.likelihood(king, 7) - 1.0 / 13.0).abs() < 1e-6);
        // A rank not counted is never offered.
        assert_eq!(counts.likelihood(Rank::new(5).unwrap(), 5), 0.0);
        assert_eq!(counts.ranks().map(Rank::value).collect::<Vec<_>>(), [3, 13]);
    }

    #[test]
    fn a_pip_count_histogram_names_ranks_from_two_to_king_with_counts() {
        for (json, says) in [
            (r#"{"A": [1]}"#, "\"A\" is not a rank from 2 to K"),
            (r#"{"Z": [1]}"#, "\"Z\" is not a rank from 2 to K"),
            (r#"{"7": []}"#, "rank 7 has no counts"),
        ] {
            let err = serde_json::from_str::<CountHistogram>(json).unwrap_err();
            assert!(err.to_string().contains(says), "{json}: {err}");
        }
    }

    fn logits(hot: usize, value: f32) -> Vec<f32> {
        let mut v = vec![0.0; CLASSES];
        v[hot] = value;
        v
    }

    #[test]
    fn two_agreeing_crops_are_more_confident_than_one() {
        let qh: Card = "QH".parse().unwrap();
        let one = combine(&logits(qh.index(), 6.0), &vec![0.0; CLASSES], 1.0);
        let two = combine(&logits(qh.index(), 6.0), &logits(qh.index(), 6.0), 1.0);
        assert_eq!(one.card, Some(qh));
        assert_eq!(two.card, Some(qh));
        assert!(two.confidence > one.confidence);
        // One crop: e^6 / (e^6 + 52).
        let expect = 6f32.exp() / (6f32.exp() + 52.0);
        assert!((one.confidence - expect).abs() < 1e-5, "{}", one.confidence);
    }

    #[test]
    fn temperature_softens_confidence() {
        let c = logits(3, 8.0);
        let sharp = combine(&c, &c, 1.0);
        let soft = combine(&c, &c, 4.0);
        assert!(soft.confidence < sharp.confidence);
        assert_eq!(soft.card, Card::from_index(3));
    }

    #[test]
    fn not_a_card_wins_when_both_crops_say_so() {
        let r = combine(&logits(NOT_A_CARD, 9.0), &logits(NOT_A_CARD, 7.0), 1.5);
        assert_eq!(r.card, None);
        assert!(r.confidence > 0.9);
    }

    #[test]
    fn a_blank_corner_gives_way_to_a_legible_one() {
        let jc: Card = "JC".parse().unwrap();
        let (legible, blank) = (logits(jc.index(), 8.0), logits(NOT_A_CARD, 12.0));
        // Summed, the blank corner outvotes the index: the card would vanish.
        assert_eq!(combine(&legible, &blank, 1.0).card, None);
        for (a, b) in [(&legible, &blank), (&blank, &legible)] {
            let r = blank_corner_read(a, b, 1.0).unwrap();
            assert_eq!(r.card, Some(jc));
            assert!(r.one_corner && r.blank_corner);
            let one = combine(&legible, &vec![0.0; CLASSES], 1.0);
            assert!((r.confidence - one.confidence).abs() < 1e-6);
        }
        // Not when the legible corner is unsure, nor when both or neither read a card.
        let faint = logits(jc.index(), 2.0);
        assert!(combine(&faint, &vec![0.0; CLASSES], 1.0).confidence < BLANK_CORNER_LEVEL);
        assert!(blank_corner_read(&faint, &blank, 1.0).is_none());
        assert!(blank_corner_read(&blank, &blank, 1.0).is_none());
        assert!(blank_corner_read(&legible, &logits(0, 6.0), 1.0).is_none());
    }

    #[test]
    fn disagreeing_crops_pick_the_stronger_and_are_unsure() {
        let r = combine(&logits(0, 5.0), &logits(14, 3.0), 1.0);
        assert_eq!(r.card, Card::from_index(0));
        assert!(r.confidence < 0.9);
    }

    #[test]
    fn looks_are_averaged_so_one_look_is_the_plain_read_and_agreement_is_not_counted_twice() {
        let (a, b) = (logits(7, 5.0), logits(7, 2.0));
        let looks = |pairs: &[(&Vec<f32>, &Vec<f32>)]| {
            mean_read(
                pairs.iter().map(|(a, b)| look_score(a, b, 0.8)),
                [0.0; CLASSES],
            )
        };
        let one = looks(&[(&a, &b)]);
        assert_eq!(one, combine(&a, &b, 0.8));
        // The same look three times is the same read: averaging, not adding up.
        let same = looks(&[(&a, &b), (&a, &b), (&a, &b)]);
        assert_eq!(same.card, one.card);
        assert!((same.confidence - one.confidence).abs() < 1e-6);
        // A look that disagrees pulls the read down; two that agree outvote it.
        let (c, d) = (logits(20, 5.0), logits(20, 2.0));
        let mixed = looks(&[(&a, &b), (&c, &d), (&a, &b)]);
        assert_eq!(mixed.card, Card::from_index(7));
        assert!(mixed.confidence < one.confidence);
    }

    /// One pip's logits: `value` on class `hot` (0..3 a suit, 4 "not a pip").
    fn pip(hot: usize, value: f32) -> Vec<f32> {
        let mut v = vec![0.0; PIP_CLASSES];
        v[hot] = value;
        v
    }

    #[test]
    fn pips_read_as_clubs_deny_a_spade_and_confirm_a_club() {
        // Three pips, each four times likelier a club (index 3) than anything else.
        let clubs: Vec<f32> = (0..3).flat_map(|_| pip(3, 4.0)).collect();
        let read = pip_suits(&clubs, 0.0);
        assert_eq!((read.pips, read.sure), (3, 3));
        assert_eq!(read.by_suit, [0, 0, 0, 3]);
        let sum = pip_suit_sum(read.sure, &read.sum, 2).unwrap();
        // Each pip makes a spade e^4 times less likely than a club; three, e^12
        // (a spade left about 6e-6).
        let spade = sum[0].exp();
        assert!(spade < 1e-5 && spade > 1e-7, "{spade}");
        assert_eq!(denied_suit(&sum, Suit::Spades, 1e-3), Some(Suit::Clubs));
        assert_eq!(denied_suit(&sum, Suit::Clubs, 1e-3), None);
        // A threshold below what the pips leave the spade denies nothing.
        assert_eq!(denied_suit(&sum, Suit::Spades, 1e-8), None);
    }

    #[test]
    fn blobs_that_are_not_pips_are_left_out_and_too_few_pips_say_nothing() {
        // Court art: every blob "not a pip".
        let art: Vec<f32> = (0..4).flat_map(|_| pip(4, 6.0)).collect();
        let read = pip_suits(&art, 0.0);
        assert_eq!(pip_suit_sum(read.sure, &read.sum, 2), None);
        // One club and two pieces of art: one pip alone is not enough...
        let one: Vec<f32> = [pip(3, 6.0), pip(4, 6.0), pip(4, 6.0)].concat();
        let read = pip_suits(&one, 0.0);
        assert_eq!(pip_suit_sum(read.sure, &read.sum, 2), None);
        assert_eq!(read.pips, 1);
        assert_eq!(read.by_suit, [0, 0, 0, 1]);
        assert_eq!(pip_suits(&art, 0.0).pips, 0);
        // ...and the art does not count against the two clubs beside it.
        let two: Vec<f32> = [pip(3, 6.0), pip(4, 6.0), pip(3, 6.0)].concat();
        let alone = [pip(3, 6.0), pip(3, 6.0)].concat();
        assert_eq!(pip_suits(&two, 0.0), pip_suits(&alone, 0.0));
        // Pips torn between two suits deny neither.
        let torn: Vec<f32> = [pip(0, 7.0), pip(3, 7.0)].concat();
        let read = pip_suits(&torn, 0.0);
        let sum = pip_suit_sum(read.sure, &read.sum, 2).unwrap();
        assert_eq!(denied_suit(&sum, Suit::Spades, 1e-3), None);
        assert_eq!(denied_suit(&sum, Suit::Clubs, 1e-3), None);
        assert!(matches!(
            denied_suit(&sum, Suit::Hearts, 1e-3),
            Some(Suit::Spades | Suit::Clubs)
        ));
    }

    #[test]
    fn an_aces_one_pip_is_enough_to_deny_its_suit() {
        // An ace's big spade, read about 0.95 a spade (e^4 over each other class),
        // beside the club its index was read as.
        let spade = pip(0, 4.0);
        // Held to a number card's two pips it says nothing...
        assert_eq!(pip_read(&spade, Suit::Clubs, 0.7, 2, 1e-3).denies, None);
        // ...nor to a number card's threshold: one pip leaves a club about 0.018.
        assert_eq!(pip_read(&spade, Suit::Clubs, 0.7, 1, 1e-3).denies, None);
        // An ace's pip alone, held to "less likely than not", denies the club
        // and confirms a spade.
        let read = pip_read(&spade, Suit::Clubs, 0.7, 1, 0.5);
        assert_eq!((read.denies, read.pips), (Some(Suit::Spades), 1));
        assert_eq!(pip_read(&spade, Suit::Spades, 0.7, 1, 0.5).denies, None);
        // A pip that leaves the spade under the threshold but still first denies
        // nothing: the spade is what it favours.
        let faint = pip(0, 1.0);
        let read = pip_read(&faint, Suit::Spades, 0.0, 1, 0.5);
        assert!(read.suit_sum.unwrap()[0].exp() < 0.5);
        assert_eq!(read.denies, None);
        // A pip read less surely than min_confidence (ornate art) is no evidence.
        let unsure = pip(0, 1.0);
        assert_eq!(pip_read(&unsure, Suit::Clubs, 0.7, 1, 0.5).suit_sum, None);
    }

    #[test]
    fn smudged_pips_are_counted_but_are_no_evidence_of_a_suit() {
        // Nine blurred pips, each leaning a little to hearts (e^1 over the rest,
        // about 0.40 sure): summed, the lean alone would deny a diamond.
        let smudges: Vec<f32> = (0..9).flat_map(|_| pip(1, 1.0)).collect();
        let all = pip_suits(&smudges, 0.0);
        let sum = pip_suit_sum(all.sure, &all.sum, 2).unwrap();
        assert_eq!(denied_suit(&sum, Suit::Diamonds, 1e-3), Some(Suit::Hearts));
        // Held to 0.6, none is evidence: nothing is denied, all nine still count.
        let sure = pip_suits(&smudges, 0.6);
        assert_eq!((sure.pips, sure.sure), (9, 0));
        assert_eq!(pip_suit_sum(sure.sure, &sure.sum, 2), None);
        // A clear pip (e^4: about 0.93 sure) is evidence at 0.6.
        let clear = [pip(3, 4.0), pip(3, 4.0), pip(1, 1.0)].concat();
        let read = pip_suits(&clear, 0.6);
        assert_eq!((read.pips, read.sure), (3, 2));
    }

    #[test]
    fn pip_reader_settings_are_checked() {
        let with = |reader: &str| {
            format!(
                r#"{{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"pip_reader":{reader}}}"#
            )
        };
        let good =
            with(r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2}"#);
        let s = ModelSettings::parse(good.as_bytes(), "r.json").unwrap();
        let p = s.pip_reader.unwrap();
        assert_eq!(
            (p.deny_below, p.min_pips, p.min_confidence),
            (0.001, 2, 0.0)
        );
        let sure = with(
            r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"min_confidence":0.7}"#,
        );
        let p = ModelSettings::parse(sure.as_bytes(), "r.json").unwrap();
        let p = p.pip_reader.unwrap();
        assert_eq!(p.min_confidence, 0.7);
        // Without ace_deny_below aces are not checked.
        assert_eq!(p.ace_deny_below, None);
        let aces = with(
            r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"ace_deny_below":0.5}"#,
        );
        let p = ModelSettings::parse(aces.as_bytes(), "r.json").unwrap();
        assert_eq!(p.pip_reader.unwrap().ace_deny_below, Some(0.5));
        for (reader, says) in [
            (
                r#"{"file":"pips.onnx","input":[3,24,24],"deny_below":0.001,"min_pips":2}"#,
                "pip_reader input is [3, 24, 24], the recognizer feeds [1, 24, 24]",
            ),
            (
                r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":2,"min_pips":2}"#,
                "pip_reader deny_below 2 is outside [0, 1]",
            ),
            (
                r#"{"file":"../pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2}"#,
                "is not a file name",
            ),
            (
                r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"min_confidence":-1}"#,
                "pip_reader min_confidence -1 is outside [0, 1]",
            ),
            (
                r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"ace_deny_below":1.5}"#,
                "pip_reader ace_deny_below 1.5 is outside [0, 1]",
            ),
            (r#"{"file":"pips.onnx","input":[1,24,24]}"#, "missing field"),
        ] {
            let e = ModelSettings::parse(with(reader).as_bytes(), "r.json").unwrap_err();
            assert!(e.to_string().contains(says), "{e}");
        }
    }

    #[test]
    fn class_names_in_another_order_are_refused_and_unknown_settings_kept_to_say() {
        let base = r#""input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9"#;
        let mut names: Vec<String> = (0..52)
            .filter_map(Card::from_index)
            .map(|c| c.to_string())
            .collect();
        names.push("none".into());
        let with_names = |names: &[String]| {
            format!(
                "{{{base},\"class_names\":{}}}",
                serde_json::to_string(names).unwrap()
            )
        };
        let s = ModelSettings::parse(with_names(&names).as_bytes(), "r.json").unwrap();
        assert!(s.unknown.is_empty(), "{:?}", s.unknown);
        // Hearts and diamonds swapped at the fours: every 4H would be read as 4D.
        names.swap(16, 29);
        let e = ModelSettings::parse(with_names(&names).as_bytes(), "r.json").unwrap_err();
        assert!(
            e.to_string()
                .contains(r#"class_names[16] is "4D" where this build reads "4H""#),
            "{e}"
        );
        names.truncate(52);
        names.swap(16, 29);
        let e = ModelSettings::parse(with_names(&names).as_bytes(), "r.json").unwrap_err();
        assert!(e.to_string().contains("has 52 labels"), "{e}");
        // A misspelt threshold and a misspelt pip setting are kept to be said.
        let typo = format!(
            r#"{{{base},"confirm_treshold_one_corner":0.99,"pip_reader":{{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"ace_deny_belwo":0.5}}}}"#
        );
        let s = ModelSettings::parse(typo.as_bytes(), "r.json").unwrap();
        assert_eq!(
            s.unknown,
            ["confirm_treshold_one_corner", "pip_reader.ace_deny_belwo"]
        );
        assert_eq!(s.pip_reader.unwrap().ace_deny_below, None);
        // A bad value is still placed in the text.
        let hot =
            br#"{"input":[3,72,40],"classes":53,"temperature":"hot","confirm_threshold":0.9}"#;
        let e = ModelSettings::parse(hot, "r.json").unwrap_err().to_string();
        assert!(e.contains("line 1 column"), "{e}");
    }

    #[test]
    fn settings_are_checked_against_the_contract() {
        let parsed = |json: &[u8]| ModelSettings::parse(json, "r.json").unwrap();
        let good = br#"{"input":[3,72,40],"classes":53,"temperature":1.4,"confirm_threshold":0.93,"version":"1"}"#;
        let s = parsed(good);
        assert_eq!(s.temperature, 1.4);
        // No one-corner threshold: a read from one corner is held to the usual one.
        assert_eq!(s.one_corner_threshold(), 0.93);
        // No height: cards under the small-card height ask God.
        assert_eq!(s.confirm_below_height(), SMALL_CARD_HEIGHT);
        let own = br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"confirm_below_height":50}"#;
        assert_eq!(parsed(own).confirm_below_height(), 50.0);
        let own = br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"confirm_threshold_one_corner":0.99}"#;
        assert_eq!(parsed(own).one_corner_threshold(), 0.99);
        for bad in [
            &br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"confirm_threshold_one_corner":1.5}"#[..],
            br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"confirm_below_height":-3}"#,
            br#"{"input":[3,64,64],"classes":53,"temperature":1,"confirm_threshold":0.9}"#,
            br#"{"input":[3,72,40],"classes":52,"temperature":1,"confirm_threshold":0.9}"#,
            br#"{"input":[3,72,40],"classes":53,"temperature":0,"confirm_threshold":0.9}"#,
            br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":2}"#,
            br#"{"input":[3,72,40]"#,
        ] {
            let e = ModelSettings::parse(bad, "r.json").unwrap_err();
            assert!(
                e.to_string().starts_with("r.json: bad model settings"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_card_reader_is_named_by_file_and_checked_like_the_index_model() {
        let with = |reader: &str| {
            format!(
                r#"{{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"card_reader":{reader}}}"#
            )
        };
        let good = with(
            r#"{"file":"card_reader.onnx","input":[3,56,40],"temperature":0.6,"weight":1,"below":0.99}"#,
        );
        let s = ModelSettings::parse(good.as_bytes(), "r.json").unwrap();
        let c = s.card_reader.expect("card reader read");
        assert_eq!(
            (c.file.as_str(), c.temperature, c.weight),
            ("card_reader.onnx", 0.6, 1.0)
        );
        assert_eq!(c.below, Some(0.99));
        for (reader, says) in [
            (
                r#"{"file":"c.onnx","input":[3,72,40],"temperature":1,"weight":1}"#,
                "card_reader input",
            ),
            (
                r#"{"file":"c.onnx","input":[3,56,40],"temperature":0,"weight":1}"#,
                "card_reader temperature",
            ),
            (
                r#"{"file":"c.onnx","input":[3,56,40],"temperature":1,"weight":-1}"#,
                "card_reader weight",
            ),
            (
                r#"{"file":"../c.onnx","input":[3,56,40],"temperature":1,"weight":1}"#,
                "not a file name",
            ),
            (
                r#"{"file":"/etc/c.onnx","input":[3,56,40],"temperature":1,"weight":1}"#,
                "not a file name",
            ),
            (
                r#"{"file":"c.onnx","input":[3,56,40],"temperature":1}"#,
                "weight",
            ),
            (
                r#"{"file":"c.onnx","input":[3,56,40],"temperature":1,"weight":1,"below":1.2}"#,
                "card_reader below",
            ),
        ] {
            let e = ModelSettings::parse(with(reader).as_bytes(), "r.json").unwrap_err();
            assert!(e.to_string().contains(says), "{reader}: {e}");
        }
    }

    #[test]
    fn a_named_card_reader_that_is_missing_is_an_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("eleusis-card-reader-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        std::fs::copy(models.join(MODEL_FILE), dir.join(MODEL_FILE)).unwrap();
        std::fs::copy(models.join(SETTINGS_FILE), dir.join(SETTINGS_FILE)).unwrap();
        let e = Classifier::load(&dir).unwrap_err();
        assert!(
            e.to_string().contains("no card_reader.onnx in this folder"),
            "{e}"
        );
        // Without the card reader named, the index model alone loads and reads.
        let text = std::fs::read_to_string(dir.join(SETTINGS_FILE)).unwrap();
        let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
        json.as_object_mut().unwrap().remove("card_reader");
        std::fs::write(dir.join(SETTINGS_FILE), json.to_string()).unwrap();
        // The pip reader named and missing is an error the same way.
        let e = Classifier::load(&dir).unwrap_err();
        assert!(e.to_string().contains("no pips.onnx in this folder"), "{e}");
        json.as_object_mut().unwrap().remove("pip_reader");
        std::fs::write(dir.join(SETTINGS_FILE), json.to_string()).unwrap();
        let c = Classifier::load(&dir).expect("the index model alone loads");
        assert!(!c.reads_whole_cards());
        assert!(!c.reads_pips());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_card_reader_adds_its_term_to_the_first_read_and_to_every_later_look() {
        use super::super::rectify::{index_crops, whole_card};
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        let c = Classifier::load(&dir).expect("the committed model loads");
        assert!(c.reads_whole_cards());
        // A plain card drawn in the frame: white paper, a dark index and pips.
        let frame = image::RgbImage::from_fn(200, 260, |x, y| {
            let on_card = (20..180).contains(&x) && (10..250).contains(&y);
            let ink = (30..44).contains(&x) && (20..50).contains(&y)
                || (80..120).contains(&x) && (100..160).contains(&y);
            image::Rgb(match (on_card, ink) {
                (true, true) => [20, 20, 20],
                (true, false) => [240, 240, 235],
                _ => [30, 110, 50],
            })
        });
        let q = super::super::geometry::Quad(
            [(20.0, 10.0), (180.0, 10.0), (180.0, 250.0), (20.0, 250.0)]
                .map(|(x, y)| super::super::geometry::Point::new(x, y)),
        );
        let mut crops = vec![0.0; 2 * CROP_LEN];
        let mut whole = vec![0.0; WHOLE_LEN];
        assert!(index_crops(&frame, &q, &mut crops) && whole_card(&frame, &q, &mut whole));
        let alone = c.read(&crops, &[], 1).unwrap()[0];
        let both = c.read(&crops, &whole, 1).unwrap()[0];
        assert!(alone.whole.iter().all(|&w| w == 0.0));
        assert!(both.whole.iter().any(|&w| w != 0.0));
        for k in 0..CLASSES {
            let want = alone.score[k] + both.whole[k];
            assert!((both.score[k] - want).abs() < 1e-4, "class {k}");
        }
        // A later look (the same crops again) averages with the first read, its
        // own card reader term added: the same read.
        let again = c.read_looks(&crops, 1, 1, &[both]).unwrap()[0];
        assert_eq!(again.card, both.card);
        assert!((again.confidence - both.confidence).abs() < 1e-5);
        assert_eq!(again.whole, both.whole);
        // A wrong count of whole-card floats is refused, not read.
        assert!(c.read(&crops, &whole[1..], 1).is_err());
        let mut added = [alone];
        assert!(c.add_whole_cards(&mut added, &whole[1..]).is_err());
        c.add_whole_cards(&mut added, &whole).unwrap();
        assert_eq!(added[0].card, both.card);
        assert!((added[0].confidence - both.confidence).abs() < 1e-5);
        // Only reads the corners leave less sure than `below` are read again.
        let below = c.settings().card_reader.as_ref().unwrap().below.unwrap();
        let sure = ClassRead {
            confidence: below,
            ..alone
        };
        let unsure = ClassRead {
            confidence: below - 1e-4,
            ..alone
        };
        assert!(!c.wants_whole_card(&sure) && c.wants_whole_card(&unsure));
    }

    #[test]
    fn a_sure_top_left_crop_alone_reads_a_card_and_the_rest_read_both_crops() {
        use super::super::geometry::{Point, Quad};
        use super::super::rectify::index_crops;
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let c = Classifier::load(&root.join("models")).expect("the committed model loads");
        let scene = root.join("tests/data/scenes/08-seq4-dark");
        let frame = image::open(scene.with_extension("jpg")).unwrap().to_rgb8();
        let side: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(scene.with_extension("json")).unwrap())
                .unwrap();
        let quads: Vec<Quad> = side["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|card| {
                let p = |k: usize| {
                    let xy = &card["corners"][k];
                    Point::new(xy[0].as_f64().unwrap(), xy[1].as_f64().unwrap())
                };
                Quad([p(0), p(1), p(2), p(3)])
            })
            .collect();
        let n = quads.len();
        let mut crops = vec![0.0; n * 2 * CROP_LEN];
        for (q, slot) in quads.iter().zip(crops.chunks_exact_mut(2 * CROP_LEN)) {
            assert!(index_crops(&frame, q, slot));
        }
        let both = c.read(&crops, &[], n).unwrap();
        let firsts: Vec<f32> = crops
            .chunks_exact(2 * CROP_LEN)
            .flat_map(|pair| pair[..CROP_LEN].iter().copied())
            .collect();
        let one = c.read_one_corner(&firsts, n, 1).unwrap();
        let alone = c.settings().one_corner_threshold();
        // None marked: every card read from both crops, as `read` reads it.
        let unmarked = c.read_sure_corner_first(&crops, n, &[]).unwrap();
        for (a, b) in unmarked.iter().zip(&both) {
            assert_eq!((a.card, a.confidence), (b.card, b.confidence));
        }
        // Small cards' outlines: never read from one corner first, so read as
        // both crops read them (no corner of this scene is blank).
        let small = c
            .read_sure_corner_first(&crops, n, &vec![Outline::SmallCard; n])
            .unwrap();
        for (a, b) in small.iter().zip(&both) {
            assert_eq!(
                (a.card, a.confidence, a.one_corner),
                (b.card, b.confidence, false)
            );
        }
        // The first card's bottom-right index washed out to plain paper: read from
        // both crops it vanishes, but a card's outline (small or not) gives way to
        // its legible top-left crop, marked as read beside a blank corner.
        let mut glare = crops.clone();
        glare[CROP_LEN..2 * CROP_LEN].fill(1.0);
        let several = c.read_sure_corner_first(&glare, n, &[]).unwrap();
        assert_eq!(several[0].card, None, "{}", several[0].confidence);
        for outline in [Outline::SmallCard, Outline::Card] {
            let read = c.read_sure_corner_first(&glare, n, &[outline]).unwrap();
            assert_eq!(read[0].card, one[0].card, "{outline:?}");
            assert!(read[0].one_corner, "{outline:?}");
            if outline == Outline::SmallCard {
                assert!(read[0].blank_corner);
            }
        }
        // Every other card marked: a marked card whose top-left crop is sure is
        // that crop's read, every other card the read of both crops, in order.
        let early: Vec<Outline> = (0..n)
            .map(|k| {
                if k % 2 == 0 {
                    Outline::Card
                } else {
                    Outline::MaybeSeveral
                }
            })
            .collect();
        let reads = c.read_sure_corner_first(&crops, n, &early).unwrap();
        assert_eq!(reads.len(), n);
        let mut from_one = 0;
        for k in 0..n {
            let want =
                if early[k] == Outline::Card && one[k].card.is_some() && one[k].confidence >= alone
                {
                    from_one += 1;
                    one[k]
                } else {
                    both[k]
                };
            assert_eq!(reads[k].card, want.card, "card {k}");
            assert!(
                (reads[k].confidence - want.confidence).abs() < 1e-6,
                "card {k}"
            );
        }
        // The scene's well-seen cards are sure from one crop: the shortcut is taken.
        assert!(
            from_one >= 1,
            "no marked card was read from its top-left crop alone"
        );
        // Cutting bottom-right crops on demand reads the same, and asks only for
        // the crops of cards the top-left crop alone did not read.
        let mut asked = Vec::new();
        let cutting = c
            .read_sure_corner_first_cutting(&crops, n, &early, |k, rest| {
                asked.push(k);
                rest.extend_from_slice(&crops[k * 2 * CROP_LEN + CROP_LEN..(k + 1) * 2 * CROP_LEN]);
                true
            })
            .unwrap();
        for (a, b) in cutting.iter().zip(&reads) {
            assert_eq!((a.card, a.confidence), (b.card, b.confidence));
        }
        assert_eq!(asked.len(), n - from_one);
        assert!(asked.iter().all(|&k| !reads[k].one_corner));
        // A crop that cannot be cut is an error, not a read of nothing.
        let failed = c.read_sure_corner_first_cutting(&crops, n, &early, |_, _| false);
        assert!(failed.is_err());
        let all = c
            .read_sure_corner_first(&crops, n, &vec![Outline::Card; n])
            .unwrap();
        for (k, read) in all.iter().enumerate() {
            assert_eq!(
                read.card, both[k].card,
                "card {k}: one crop and two agree here"
            );
        }
        // Too few crop values for the cards named is refused, not read.
        assert!(c.read_sure_corner_first(&crops[1..], n, &early).is_err());
    }

    #[test]
    fn a_plan_sized_for_the_batch_gives_the_general_plans_logits() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        let c = Classifier::load(&dir).expect("the committed model loads");
        // 70 crops run as eight parts of 8 and one of 6 on their sized plans.
        for n in [2usize, 3, 70] {
            // Smooth, card-like values (not constant: a constant input hides
            // layout mistakes).
            let x: Vec<f32> = (0..n * CROP_LEN)
                .map(|i| 0.5 + 0.4 * ((i % 977) as f32 * 0.013).sin())
                .collect();
            let sized = c.logits(&x, n).unwrap();
            let input = Tensor::from_shape(&[n, 3, CROP_H, CROP_W], &x).unwrap();
            let general = c.index.plan.run(tvec!(input.into())).unwrap();
            let general: Vec<f32> = general[0]
                .to_array_view::<f32>()
                .unwrap()
                .iter()
                .copied()
                .collect();
            assert_eq!(sized.len(), n * CLASSES);
            let diff = sized
                .iter()
                .zip(&general)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            assert!(diff < 1e-3, "batch {n}: logits differ by {diff}");
        }
        let cache = c.index.sized.lock().unwrap();
        assert!(cache.contains_key(&2) && cache.contains_key(&3));
        assert!(cache.contains_key(&MAX_SIZED_BATCH) && cache.contains_key(&6));
        assert!(!cache.contains_key(&70));
    }

    #[test]
    fn a_look_read_already_counts_as_one_of_a_cards_looks() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        let c = Classifier::load(&dir).expect("the committed model loads");
        // Two cards of three looks each; the middle looks are read first, alone.
        let looks: Vec<Vec<f32>> = (0..6)
            .map(|k| {
                (0..CROP_LEN)
                    .map(|i| 0.5 + 0.4 * ((i % (389 + 97 * k)) as f32 * 0.017).sin())
                    .collect()
            })
            .collect();
        let all: Vec<f32> = looks.concat();
        let whole = c.read_one_corner(&all, 2, 3).unwrap();
        let middles: Vec<f32> = [&looks[1], &looks[4]].map(|l| l.to_vec()).concat();
        let first = c.read_one_corner(&middles, 2, 1).unwrap();
        let others: Vec<f32> = [&looks[0], &looks[2], &looks[3], &looks[5]]
            .map(|l| l.to_vec())
            .concat();
        let added = c.read_one_corner_adding(&others, 3, &first, 1).unwrap();
        assert_eq!(added.len(), 2);
        for (a, w) in added.iter().zip(&whole) {
            assert_eq!(a.card, w.card);
            let diff = a
                .score
                .iter()
                .zip(&w.score)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max);
            assert!(diff < 1e-3, "scores differ by {diff}");
        }
    }

    #[test]
    fn garbage_model_bytes_are_an_error_not_a_panic() {
        let s = ModelSettings::parse(
            br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9}"#,
            "r.json",
        )
        .unwrap();
        let e = Classifier::from_parts(b"not an onnx file", None, s, "x.onnx".into()).unwrap_err();
        assert!(matches!(e, ModelError::Load { .. }), "{e}");
    }
}
