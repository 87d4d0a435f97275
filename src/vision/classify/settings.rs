//! The model's settings file (`recognizer.json`): what each network expects, its
//! calibration, and the pip reader's and card reader's parts, checked against the
//! contract when the model is loaded so that a wrong file fails at start-up.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use super::{ModelError, CLASSES};
use crate::cards::{Card, Rank};
use crate::vision::pips::PATCH;
use crate::vision::rectify::{CROP_H, CROP_W, WHOLE_H, WHOLE_W};
use crate::vision::warning::SMALL_CARD_HEIGHT;

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
pub(super) const KNOWN_SETTINGS: [(&str, &[&str]); 3] = [
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
pub(super) fn unknown_settings(settings: &serde_json::Value) -> Vec<String> {
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
/// ([`crate::vision::pips::find_pips`], `[1, 24, 24]`) as spade, heart, diamond, club or
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
    /// read. Pips under it still count towards [`PipRead::pips`](super::PipRead::pips).
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
