//! A second look at unsure reads: the outline cut again a little larger,
//! smaller and shifted, and the reads weighed together.

use super::outlines::{scaled, shifted};
use super::Recognizer;
use crate::vision::classify::{ClassRead, ModelError};
use crate::vision::geometry::Quad;
use crate::vision::rectify::{index_crops, CROP_LEN};
use image::RgbImage;

impl Recognizer {
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
    pub(super) fn second_look(
        &self,
        frame: &RgbImage,
        best: &mut [Option<(Quad, ClassRead)>],
        threshold: f32,
    ) -> Result<(), ModelError> {
        let unsure: Vec<usize> = (0..best.len())
            .filter(|&i| {
                best[i].as_ref().is_some_and(|(_, r)| {
                    r.card.is_some() && r.confidence < threshold && !r.one_corner
                })
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

/// Every cut of the second look, the outline itself first.
pub fn second_look_cuts(q: &Quad) -> Vec<Quad> {
    std::iter::once(*q)
        .chain(SECOND_LOOK_SCALE.map(|s| scaled(q, s)))
        .chain(SECOND_LOOK_SHIFT.map(|(du, dv)| shifted(q, du, dv)))
        .collect()
}
