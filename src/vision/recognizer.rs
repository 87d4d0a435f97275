//! The whole pipeline on one frame: localise, crop, classify in one batch, and drop
//! the quads the model calls "not a card".

use image::RgbImage;
use serde::Serialize;

use super::classify::{ClassRead, Classifier, ModelError};
use super::geometry::{Point, Quad};
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

    /// Reads every card in the frame. An outline close to square
    /// ([`AMBIGUOUS_ASPECT`]) is read both ways up — as located and turned by a
    /// quarter — and the better read kept: a card seen at a slant with its long side
    /// pointing away from the camera looks square or even wider than tall, and its
    /// outline alone cannot say which sides are the long ones. Any other outline whose
    /// read is "not a card" or asks for confirmation is read turned as well, in a
    /// second, usually empty batch (a strong slant can make a card look landscape).
    pub fn recognise(&self, frame: &RgbImage) -> Result<FrameRead, ModelError> {
        let quads = locate_cards(frame, &self.localiser);
        let threshold = self.classifier.settings().confirm_threshold;
        // Each outline's readings: as located, and turned when it is near square.
        let ways: Vec<Vec<Quad>> = quads
            .iter()
            .map(|q| {
                if q.aspect() >= AMBIGUOUS_ASPECT {
                    vec![*q, quarter_turn(q)]
                } else {
                    vec![*q]
                }
            })
            .collect();
        let first: Vec<Quad> = ways.iter().flatten().copied().collect();
        let mut reads = self.read_quads(frame, &first)?.into_iter();
        // The best read of each outline so far.
        let mut best: Vec<Option<(Quad, ClassRead)>> = vec![None; quads.len()];
        for (slot, readings) in best.iter_mut().zip(&ways) {
            for q in readings {
                keep_better(slot, *q, reads.next().flatten());
            }
        }
        // Second look, turned, at outlines read once and found wanting.
        let retry: Vec<usize> = (0..quads.len())
            .filter(|&i| ways[i].len() == 1)
            .filter(|&i| match &best[i] {
                Some((_, r)) => r.card.is_none() || r.confidence < threshold,
                None => false,
            })
            .collect();
        if !retry.is_empty() {
            let turned: Vec<Quad> = retry.iter().map(|&i| quarter_turn(&quads[i])).collect();
            let again = self.read_quads(frame, &turned)?;
            for ((&i, quad), read) in retry.iter().zip(turned).zip(again) {
                keep_better(&mut best[i], quad, read);
            }
        }
        let mut out = FrameRead {
            width: frame.width(),
            height: frame.height(),
            cards: Vec::new(),
            rejected: Vec::new(),
        };
        for (quad, read) in best.into_iter().flatten() {
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

    /// Reads outlines in one model batch; `None` for an outline whose crops cannot
    /// be cut (degenerate corners).
    fn read_quads(
        &self,
        frame: &RgbImage,
        quads: &[Quad],
    ) -> Result<Vec<Option<ClassRead>>, ModelError> {
        let mut crops = vec![0.0f32; quads.len() * 2 * CROP_LEN];
        let mut usable = Vec::with_capacity(quads.len());
        let mut filled = 0;
        for q in quads {
            let slot = &mut crops[filled * 2 * CROP_LEN..(filled + 1) * 2 * CROP_LEN];
            let ok = index_crops(frame, q, slot);
            usable.push(ok);
            filled += usize::from(ok);
        }
        crops.truncate(filled * 2 * CROP_LEN);
        let mut reads = self.classifier.read(&crops, filled)?.into_iter();
        Ok(usable
            .into_iter()
            .map(|ok| if ok { reads.next() } else { None })
            .collect())
    }
}

/// Outlines whose short/long side ratio is at least this are read both ways up (a
/// card from straight above is about 0.7; a slanted view foreshortens one pair of
/// sides).
pub const AMBIGUOUS_ASPECT: f64 = 0.8;

/// The same outline with the other pair of sides taken as the long ones, in the
/// contract's corner order (clockwise; of the two equivalent orderings, the one whose
/// first corner is nearer the image's top-left).
pub fn quarter_turn(q: &Quad) -> Quad {
    let p = q.0;
    let key = |c: Point| c.x + c.y;
    let first = if key(p[1]) <= key(p[3]) { 1 } else { 3 };
    Quad(std::array::from_fn(|k| p[(first + k) % 4]))
}

/// Puts `read` of outline `quad` in `slot` when the slot is empty or holds a worse
/// read of the same card outline.
fn keep_better(slot: &mut Option<(Quad, ClassRead)>, quad: Quad, read: Option<ClassRead>) {
    let Some(read) = read else { return };
    let wins = match slot {
        Some((_, held)) => better(&read, held),
        None => true,
    };
    if wins {
        *slot = Some((quad, read));
    }
}

/// Whether read `a` beats read `b` of the same outline: any card over "not a card",
/// then the higher confidence.
fn better(a: &ClassRead, b: &ClassRead) -> bool {
    match (a.card.is_some(), b.card.is_some()) {
        (true, false) => true,
        (false, true) => false,
        _ => a.confidence > b.confidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(pts: [(f64, f64); 4]) -> Quad {
        Quad(pts.map(|(x, y)| Point::new(x, y)))
    }

    #[test]
    fn a_quarter_turn_swaps_the_long_sides_and_keeps_the_contract_order() {
        // A card seen with its long side foreshortened: 100 wide, 90 tall.
        let q = quad([(0.0, 0.0), (100.0, 0.0), (100.0, 90.0), (0.0, 90.0)]);
        let t = quarter_turn(&q);
        // Clockwise, first corner nearest the top-left of the two portrait orderings
        // of the turned card: (100, 0) → (100, 90) → (0, 90) → (0, 0) or its 180°
        // twin starting at (0, 90); x + y is 100 vs 90, so (0, 90) comes first.
        assert_eq!(
            t,
            quad([(0.0, 90.0), (0.0, 0.0), (100.0, 0.0), (100.0, 90.0)])
        );
        // Its "top" side (corner 0 to 1) is now one of the 90-long sides.
        assert!((t.0[0].dist(t.0[1]) - 90.0).abs() < 1e-9);
        // Turning twice gives the original outline back (as one of its orderings).
        assert!(quarter_turn(&t).corner_error(&q) < 1e-9);
    }

    #[test]
    fn a_card_read_beats_not_a_card_and_confidence_decides_between_cards() {
        let card = |c: &str, p: f32| ClassRead {
            card: Some(c.parse().unwrap()),
            confidence: p,
        };
        let none = ClassRead {
            card: None,
            confidence: 0.99,
        };
        assert!(better(&card("QH", 0.4), &none));
        assert!(!better(&none, &card("QH", 0.4)));
        assert!(better(&card("QH", 0.9), &card("KH", 0.6)));
        assert!(!better(&card("QH", 0.5), &card("KH", 0.6)));
    }
}
