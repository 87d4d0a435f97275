//! The whole pipeline on one frame: localise, crop, classify in one batch, and drop
//! the quads the model calls "not a card".

use image::RgbImage;
use serde::Serialize;

use super::classify::{Classifier, ModelError};
use super::geometry::Quad;
use super::localise::{locate_cards, LocaliserConfig};
use super::rectify::{index_crops, CROP_LEN};
use crate::cards::Card;

/// One card read from a frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardRead {
    pub card: Card,
    /// Calibrated probability that the read is right.
    pub confidence: f32,
    /// The outline `[TL, TR, BR, BL]` of the portrait card, in frame pixels.
    pub corners: Quad,
    /// True when the confidence is below the model's confirmation threshold: the
    /// referee asks God to confirm the card.
    pub needs_confirmation: bool,
}

/// Everything read from one frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameRead {
    pub width: u32,
    pub height: u32,
    /// Cards left to right (by the centre of their outline).
    pub cards: Vec<CardRead>,
    /// Card-shaped things the model turned away as "not a card".
    #[serde(skip)]
    pub rejected: Vec<Quad>,
}

/// The card recognizer: localiser settings plus the loaded model. Build it once and
/// reuse it for every frame (loading the model is the slow part).
#[derive(Debug)]
pub struct Recognizer {
    pub classifier: Classifier,
    pub localiser: LocaliserConfig,
}

impl Recognizer {
    /// A recognizer with the default localiser settings.
    pub fn new(classifier: Classifier) -> Recognizer {
        Recognizer {
            classifier,
            localiser: LocaliserConfig::default(),
        }
    }

    /// Reads every card in the frame.
    pub fn recognise(&self, frame: &RgbImage) -> Result<FrameRead, ModelError> {
        let quads = locate_cards(frame, &self.localiser);
        let mut crops = vec![0.0f32; quads.len() * 2 * CROP_LEN];
        let mut usable = Vec::with_capacity(quads.len());
        let mut filled = 0;
        for q in &quads {
            let slot = &mut crops[filled * 2 * CROP_LEN..(filled + 1) * 2 * CROP_LEN];
            if index_crops(frame, q, slot) {
                usable.push(*q);
                filled += 1;
            }
        }
        crops.truncate(filled * 2 * CROP_LEN);
        let reads = self.classifier.read(&crops, filled)?;
        let threshold = self.classifier.settings().confirm_threshold;
        let mut out = FrameRead {
            width: frame.width(),
            height: frame.height(),
            cards: Vec::new(),
            rejected: Vec::new(),
        };
        for (quad, read) in usable.into_iter().zip(reads) {
            match read.card {
                Some(card) => out.cards.push(CardRead {
                    card,
                    confidence: read.confidence,
                    corners: quad,
                    needs_confirmation: read.confidence < threshold,
                }),
                None => out.rejected.push(quad),
            }
        }
        Ok(out)
    }
}
