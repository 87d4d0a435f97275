//! The card classifier: the ONNX model of `models/` run with tract, and the
//! contract's way of turning its logits into a read (temperature-scaled softmax per
//! crop, log-probabilities of the two crops summed, renormalised).

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::rectify::{CROP_LEN, WHOLE_LEN};
use crate::cards::Suit;

mod network;
mod pip_evidence;
mod read;
mod settings;
#[cfg(test)]
mod tests;

pub use pip_evidence::{PipRead, PIP_CLASSES, PIP_SUITS};
pub use read::{blank_corner_read, combine, ClassRead, Outline, BLANK_CORNER_LEVEL};
pub use settings::{CardReaderSettings, CountHistogram, ModelSettings, PipReaderSettings};

use network::Network;
use pip_evidence::pip_read;
use read::{crop_read, log_softmax, look_score, mean_read, read_score};

/// Classes the model tells apart: the 52 cards by [`Card::index`](crate::cards::Card::index), then "not a
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
    /// pip patches ([`crate::vision::pips::find_pips`]). Each patch the pip reader does not
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
                c.below.is_none_or(|b| corners_alone.confidence < b)
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
    /// (`wholes`: `cards × [3, 56, 40]` from [`whole_card`](crate::vision::rectify::whole_card),
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
