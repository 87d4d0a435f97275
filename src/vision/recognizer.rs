//! The whole pipeline on one frame: localise, crop, classify in one batch, and drop
//! the quads the model calls "not a card".

use image::RgbImage;
use serde::Serialize;

use super::classify::{ClassRead, Classifier, ModelError};
use super::exposure::{exposure_warnings, ExposureWarning};
use super::geometry::{Point, Quad};
use super::localise::{locate_cards, LocaliserConfig};
use super::rectify::{card_to_frame, index_crops, CARD_H, CARD_W, CROP_LEN};
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
    /// What about the frame's exposure may have cost cards (empty when fine).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<ExposureWarning>,
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
    ///
    /// Cards laid side by side and touching, in a deck with no printed border, merge
    /// into one outline that reads as no card or as an unsure one. An outline with
    /// the proportions of two to four touching cards ([`touching_cards`]) whose read
    /// is not a confident card is cut into that many cards and read again (a third,
    /// usually empty batch); the cut replaces the outline only when every part reads
    /// as a card above the confirmation threshold.
    ///
    /// Last, a card whose read is still unsure gets a second look
    /// (`Recognizer::second_look`).
    pub fn recognise(&self, frame: &RgbImage) -> Result<FrameRead, ModelError> {
        let quads = locate_cards(frame, &self.localiser);
        let threshold = self.classifier.settings().confirm_threshold;
        let mut best = self.read_both_ways(frame, &quads, threshold)?;
        let parts = self.cut_touching(frame, &quads, &mut best, threshold)?;
        self.second_look(frame, &mut best, threshold)?;
        let mut out = FrameRead {
            width: frame.width(),
            height: frame.height(),
            cards: Vec::new(),
            rejected: Vec::new(),
            warnings: exposure_warnings(frame),
        };
        for (quad, read) in best.into_iter().flatten().chain(parts) {
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
        out.cards
            .sort_by(|a, b| a.corners.centre().x.total_cmp(&b.corners.centre().x));
        Ok(out)
    }

    /// The best read of each outline, with the outline it was read as: first as
    /// located (and turned, for a near-square outline), then, in a second batch,
    /// turned, for the other outlines whose first read is unsure.
    fn read_both_ways(
        &self,
        frame: &RgbImage,
        quads: &[Quad],
        threshold: f32,
    ) -> Result<Vec<Option<(Quad, ClassRead)>>, ModelError> {
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
        let mut best: Vec<Option<(Quad, ClassRead)>> = vec![None; quads.len()];
        for (slot, readings) in best.iter_mut().zip(&ways) {
            for q in readings {
                keep_better(slot, *q, reads.next().flatten());
            }
        }
        let retry: Vec<usize> = (0..quads.len())
            .filter(|&i| ways[i].len() == 1)
            .filter(|&i| best[i].as_ref().is_some_and(|(_, r)| !sure(r, threshold)))
            .collect();
        if !retry.is_empty() {
            let turned: Vec<Quad> = retry.iter().map(|&i| quarter_turn(&quads[i])).collect();
            let again = self.read_quads(frame, &turned)?;
            for ((&i, quad), read) in retry.iter().zip(turned).zip(again) {
                keep_better(&mut best[i], quad, read);
            }
        }
        Ok(best)
    }

    /// The third look: outlines with the proportions of touching cards whose best
    /// read is unsure, cut into cards and read in one batch. A cut whose every part
    /// is a sure card replaces its outline (the outline's slot in `best` is
    /// emptied); the parts and their reads are returned.
    fn cut_touching(
        &self,
        frame: &RgbImage,
        quads: &[Quad],
        best: &mut [Option<(Quad, ClassRead)>],
        threshold: f32,
    ) -> Result<Vec<(Quad, ClassRead)>, ModelError> {
        let cuts: Vec<(usize, Vec<Quad>)> = (0..quads.len())
            .filter(|&i| !best[i].as_ref().is_some_and(|(_, r)| sure(r, threshold)))
            .filter_map(|i| Some((i, split_row(&quads[i], touching_cards(&quads[i])?)?)))
            .collect();
        let mut parts = Vec::new();
        if cuts.is_empty() {
            return Ok(parts);
        }
        let all: Vec<Quad> = cuts.iter().flat_map(|(_, p)| p.iter().copied()).collect();
        let mut reads = self.read_quads(frame, &all)?.into_iter();
        for (i, cut) in cuts {
            let read: Vec<Option<ClassRead>> = reads.by_ref().take(cut.len()).collect();
            if read.iter().all(|r| r.is_some_and(|r| sure(&r, threshold))) {
                best[i] = None;
                parts.extend(cut.into_iter().zip(read.into_iter().flatten()));
            }
        }
        Ok(parts)
    }

    /// The last look: each card read below the threshold is read again from seven
    /// cuts of its outline ([`second_look_cuts`]: as located, shrunk and grown
    /// about its centre, moved a little along its sides) and the seven looks'
    /// log-probabilities averaged
    /// ([`Classifier::read_looks`]), in one batch for all
    /// such cards (usually none; the first look's log-probabilities are kept from
    /// its read, so 12 crops per card). The localiser's outline is a few pixels off at
    /// worst, and a crop that cuts an index's edge or catches the card's border is
    /// what most unsure reads are; the cuts disagree on those pixels and agree on
    /// the index. The new read replaces the first (its outline stays) unless it
    /// says "not a card", and is held to the same threshold. On validation-design
    /// scenes it reads a third of the misread cards right and leaves fewer right
    /// reads asking God, with no confident misread added (models/README.md,
    /// "Second look").
    fn second_look(
        &self,
        frame: &RgbImage,
        best: &mut [Option<(Quad, ClassRead)>],
        threshold: f32,
    ) -> Result<(), ModelError> {
        let unsure: Vec<usize> = (0..best.len())
            .filter(|&i| {
                best[i]
                    .as_ref()
                    .is_some_and(|(_, r)| r.card.is_some() && r.confidence < threshold)
            })
            .collect();
        if unsure.is_empty() {
            return Ok(());
        }
        // The first look is the read already held; only the other cuts are read.
        let looks = SECOND_LOOK_SCALE.len() + SECOND_LOOK_SHIFT.len();
        let mut crops = vec![0.0f32; unsure.len() * looks * 2 * CROP_LEN];
        let mut cut = Vec::with_capacity(unsure.len());
        let mut firsts = Vec::with_capacity(unsure.len());
        let mut filled = 0;
        for &i in &unsure {
            let Some((quad, first)) = &best[i] else {
                continue;
            };
            let cuts = &second_look_cuts(quad)[1..];
            let slot = &mut crops[filled * looks * 2 * CROP_LEN..][..looks * 2 * CROP_LEN];
            let ok = cuts
                .iter()
                .zip(slot.chunks_exact_mut(2 * CROP_LEN))
                .all(|(q, out)| index_crops(frame, q, out));
            if ok {
                cut.push(i);
                firsts.push(*first);
                filled += 1;
            }
        }
        crops.truncate(filled * looks * 2 * CROP_LEN);
        let reads = self.classifier.read_looks(&crops, filled, looks, &firsts)?;
        for (i, read) in cut.into_iter().zip(reads) {
            // An outline the first look read as a card stays a card: a second look
            // saying "not a card" would make it vanish from the read, where asking
            // God about the first read keeps it in front of the table.
            if let (Some((_, held)), true) = (&mut best[i], read.card.is_some()) {
                *held = read;
            }
        }
        Ok(())
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

/// The second look's cuts of an unsure card's outline besides the outline itself:
/// shrunk and grown by these factors about its centre (4 % of the rectified card's
/// 224 rows is 9 pixels at the crops' scale)...
pub const SECOND_LOOK_SCALE: [f64; 2] = [0.96, 1.04];
/// ...and moved along its own sides by these fractions of the top side and of the
/// left side, diagonally each way. The seven cuts were chosen on validation-design
/// scenes over the scaled cuts alone, the moved ones alone, and five cuts
/// (models/README.md, "Second look").
pub const SECOND_LOOK_SHIFT: [(f64, f64); 4] =
    [(-0.02, -0.02), (0.02, 0.02), (0.02, -0.02), (-0.02, 0.02)];

/// The outline scaled by `s` about its centre (the mean of its corners).
pub fn scaled(q: &Quad, s: f64) -> Quad {
    let c = q.centre();
    Quad(q.0.map(|p| Point::new(c.x + (p.x - c.x) * s, c.y + (p.y - c.y) * s)))
}

/// The outline moved by `du` of its top side (corner 0 to 1) and `dv` of its left
/// side (corner 0 to 3).
pub fn shifted(q: &Quad, du: f64, dv: f64) -> Quad {
    let [a, b, _, d] = q.0;
    let (dx, dy) = (
        du * (b.x - a.x) + dv * (d.x - a.x),
        du * (b.y - a.y) + dv * (d.y - a.y),
    );
    Quad(q.0.map(|p| Point::new(p.x + dx, p.y + dy)))
}

/// Every cut of the second look, the outline itself first.
pub fn second_look_cuts(q: &Quad) -> Vec<Quad> {
    std::iter::once(*q)
        .chain(SECOND_LOOK_SCALE.map(|s| scaled(q, s)))
        .chain(SECOND_LOOK_SHIFT.map(|(du, dv)| shifted(q, du, dv)))
        .collect()
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

/// How many portrait cards lying side by side and touching an outline may hold,
/// from its short/long ratio: two cards of a 0.62–0.74 deck make 0.68–0.81 (the
/// proportions of one card turned, so the model decides), three make 0.45–0.54,
/// four 0.34–0.40.
pub fn touching_cards(q: &Quad) -> Option<usize> {
    let a = q.aspect();
    if (0.62..=0.84).contains(&a) {
        Some(2)
    } else if (0.43..=0.57).contains(&a) {
        Some(3)
    } else if (0.31..=0.42).contains(&a) {
        Some(4)
    } else {
        None
    }
}

/// The outline cut across its long sides into `k` equal cards (equal in the
/// outline's own perspective), each in the contract's corner order; `None` for a
/// degenerate outline.
pub fn split_row(q: &Quad, k: usize) -> Option<Vec<Quad>> {
    let h = card_to_frame(q)?;
    let (w, len) = (f64::from(CARD_W), f64::from(CARD_H));
    (0..k)
        .map(|i| {
            let y0 = len * i as f64 / k as f64;
            let y1 = len * (i + 1) as f64 / k as f64;
            let c = [(0.0, y0), (w, y0), (w, y1), (0.0, y1)];
            let mut pts = [Point::new(0.0, 0.0); 4];
            for (p, (x, y)) in pts.iter_mut().zip(c) {
                *p = h.apply(x, y)?;
            }
            // The part's first side (across the row) is its long one: turn it.
            Some(quarter_turn(&Quad(pts)))
        })
        .collect()
}

/// A card read at or above the confirmation threshold.
fn sure(read: &ClassRead, threshold: f32) -> bool {
    read.card.is_some() && read.confidence >= threshold
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
    fn a_row_of_touching_cards_is_cut_into_portrait_cards() {
        // Three 60 × 84 cards side by side: one 180 × 84 outline, located in portrait
        // order (its first side is a short one).
        let row = quad([(180.0, 0.0), (180.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
        assert_eq!(touching_cards(&row), Some(3));
        let parts = split_row(&row, 3).unwrap();
        assert_eq!(parts.len(), 3);
        let mut xs: Vec<f64> = parts.iter().map(|p| p.centre().x).collect();
        xs.sort_by(f64::total_cmp);
        for (x, want) in xs.iter().zip([30.0, 90.0, 150.0]) {
            assert!((x - want).abs() < 1e-6, "{xs:?}");
        }
        for p in &parts {
            // Each part is a portrait card: its first side is the 60-long one.
            assert!((p.0[0].dist(p.0[1]) - 60.0).abs() < 1e-6, "{p:?}");
            assert!((p.0[1].dist(p.0[2]) - 84.0).abs() < 1e-6, "{p:?}");
            assert!((p.aspect() - 60.0 / 84.0).abs() < 1e-9);
        }
        // Two touching cards look like one card turned; a single card lying in
        // the frame has the same proportions, so the model decides.
        let pair = quad([(120.0, 0.0), (120.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
        assert_eq!(touching_cards(&pair), Some(2));
        let four = quad([(240.0, 0.0), (240.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
        assert_eq!(touching_cards(&four), Some(4));
        // Near-square outlines and longer rows are not cut.
        let square = quad([(0.0, 0.0), (90.0, 0.0), (90.0, 100.0), (0.0, 100.0)]);
        assert_eq!(touching_cards(&square), None);
        let five = quad([(300.0, 0.0), (300.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
        assert_eq!(touching_cards(&five), None);
    }

    #[test]
    fn second_look_cuts_scale_about_the_centre_and_move_along_the_sides() {
        let q = quad([(10.0, 20.0), (110.0, 30.0), (100.0, 170.0), (0.0, 160.0)]);
        let s = scaled(&q, 1.04);
        let c = q.centre();
        assert!(s.centre().dist(c) < 1e-9);
        for (p, o) in s.0.iter().zip(q.0) {
            assert!((p.dist(c) - 1.04 * o.dist(c)).abs() < 1e-9);
        }
        assert!((scaled(&q, 0.96).area() - 0.96 * 0.96 * q.area()).abs() < 1e-6);
        // Moved by 10 % of the top side (100, 10) and 10 % of the left side
        // (-10, 140): every corner by (9, 15), and the cuts start with the outline.
        let m = shifted(&q, 0.1, 0.1);
        for (p, o) in m.0.iter().zip(q.0) {
            assert!((p.x - o.x - 9.0).abs() < 1e-9 && (p.y - o.y - 15.0).abs() < 1e-9);
        }
        let cuts = second_look_cuts(&q);
        assert_eq!(cuts.len(), 7);
        assert_eq!(cuts[0], q);
    }

    #[test]
    fn a_card_read_beats_not_a_card_and_confidence_decides_between_cards() {
        let card = |c: &str, p: f32| ClassRead {
            card: Some(c.parse().unwrap()),
            confidence: p,
            score: [0.0; crate::vision::classify::CLASSES],
        };
        let none = ClassRead {
            card: None,
            confidence: 0.99,
            score: [0.0; crate::vision::classify::CLASSES],
        };
        assert!(better(&card("QH", 0.4), &none));
        assert!(!better(&none, &card("QH", 0.4)));
        assert!(better(&card("QH", 0.9), &card("KH", 0.6)));
        assert!(!better(&card("QH", 0.5), &card("KH", 0.6)));
    }
}
