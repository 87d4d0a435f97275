//! Exposure checks on a frame: a cheap webcam left on automatic exposure over a
//! white tablecloth blows the cloth out to pure white, and a card's edge then
//! simply is not in the image; in a dim room it gives frames too dark to read.
//! Either way the localiser finds fewer cards and nothing says why. These checks
//! say why, with what to change (`firmware-notes/README.md`, "Settings to lock").

use image::RgbImage;

use super::warning::FrameWarning;

/// Share of the frame clipped to white (every channel ≥ [`CLIPPED`]) from which
/// the frame counts as overexposed. Card paper well exposed reads 200–240 and
/// glare spots are small, so a quarter of the frame clipped is the cloth itself.
/// Over 506 rendered frames (held-out scenes and views, a white-cloth development
/// set, the committed test frames) it flags five, all on white cloth.
pub const OVEREXPOSED_SHARE: f32 = 0.25;

/// A channel value this high is clipped (JPEG noise keeps true 255 a little below).
pub const CLIPPED: u8 = 250;

/// Brightness (brightest channel) that the brightest 0.2 % of the frame must reach:
/// below it, even the cards' paper and any glare are dim. Over those rendered
/// frames and the 120 rows of touching cards, the dimmest frame with cards reaches
/// about 100, and is read right.
pub const DARK_LEVEL: u8 = 60;

/// Every `STEP`-th pixel of every `STEP`-th row is looked at (a 1280 × 720 frame:
/// 57 600 pixels).
const STEP: usize = 4;

/// The exposure warnings of a frame, from a sample of its pixels (well under a
/// millisecond for a 1280 × 720 frame). Empty when the frame looks fine.
pub fn exposure_warnings(frame: &RgbImage) -> Vec<FrameWarning> {
    let (w, h) = (frame.width() as usize, frame.height() as usize);
    let raw = frame.as_raw();
    let mut clipped = 0usize;
    let mut total = 0usize;
    let mut histogram = [0usize; 256];
    for y in (0..h).step_by(STEP) {
        let row = &raw[y * w * 3..(y + 1) * w * 3];
        for px in row.chunks_exact(3).step_by(STEP) {
            let (lo, hi) = (px[0].min(px[1]).min(px[2]), px[0].max(px[1]).max(px[2]));
            clipped += usize::from(lo >= CLIPPED);
            histogram[usize::from(hi)] += 1;
            total += 1;
        }
    }
    let mut out = Vec::new();
    if total == 0 {
        return out;
    }
    let share = clipped as f32 / total as f32;
    if share >= OVEREXPOSED_SHARE {
        out.push(FrameWarning::Overexposed { share });
    }
    // The value below which 99.8 % of the sample lies.
    let mut above = 0usize;
    let mut brightest = 0u8;
    for v in (0..=255u8).rev() {
        above += histogram[usize::from(v)];
        if above * 500 > total {
            brightest = v;
            break;
        }
    }
    if brightest < DARK_LEVEL {
        out.push(FrameWarning::Dark { brightest });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    fn frame_with(cloth: [u8; 3], card: [u8; 3]) -> RgbImage {
        RgbImage::from_fn(320, 180, |x, y| {
            let on_card = (100..160).contains(&x) && (40..130).contains(&y);
            Rgb(if on_card { card } else { cloth })
        })
    }

    #[test]
    fn a_well_exposed_frame_has_no_warning() {
        assert!(exposure_warnings(&frame_with([40, 110, 60], [225, 225, 220])).is_empty());
    }

    #[test]
    fn a_blown_out_white_cloth_is_overexposed() {
        let w = exposure_warnings(&frame_with([255, 254, 253], [255, 255, 255]));
        assert_eq!(w.len(), 1, "{w:?}");
        let FrameWarning::Overexposed { share } = w[0] else {
            panic!("{w:?}")
        };
        assert!((share - 1.0).abs() < 1e-6, "{share}");
        assert!(w[0]
            .to_string()
            .starts_with("overexposed: 100 % of the frame"));
        let json = serde_json::to_value(w[0]).unwrap();
        assert_eq!(json["kind"], "overexposed");
        assert!(json["text"].as_str().unwrap().contains("exposure"));
    }

    #[test]
    fn glare_on_one_card_is_not_overexposure() {
        // The card (9 % of the frame) is clipped, the cloth is not.
        assert!(exposure_warnings(&frame_with([200, 190, 185], [255, 255, 255])).is_empty());
    }

    #[test]
    fn a_frame_whose_cards_are_dim_is_too_dark() {
        let w = exposure_warnings(&frame_with([10, 20, 12], [50, 50, 48]));
        assert_eq!(w, vec![FrameWarning::Dark { brightest: 50 }]);
        assert_eq!(w[0].kind(), "dark");
    }

    #[test]
    fn an_empty_frame_has_no_warning() {
        assert!(exposure_warnings(&RgbImage::new(0, 0)).is_empty());
    }
}
