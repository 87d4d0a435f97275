//! Rectification and index crops, exactly as the recognizer contract (and the
//! training pipeline's `rectify` / `index_crops`) defines them: the quad
//! `[TL, TR, BR, BL]` is warped to a 160 × 224 card, pixel `(x, y)` of the card
//! sampling the frame bilinearly at `H(x, y)` where `H` sends the card's corners
//! `(0,0) (160,0) (160,224) (0,224)` to the quad's, with the frame's edge pixels
//! repeated beyond it. The first crop is card pixels `x < 40, y < 72`; the second is
//! the same box of the card turned by 180°.

use image::{Rgb, RgbImage};

use super::geometry::{Homography, Point, Quad};

/// Width of the rectified card.
pub const CARD_W: u32 = 160;
/// Height of the rectified card.
pub const CARD_H: u32 = 224;
/// Width of an index crop.
pub const CROP_W: usize = 40;
/// Height of an index crop.
pub const CROP_H: usize = 72;
/// Floats in one crop tensor `[3, 72, 40]`.
pub const CROP_LEN: usize = 3 * CROP_H * CROP_W;
/// Width of the card reader's whole-card image: the rectified card shrunk 4 times.
pub const WHOLE_W: usize = 40;
/// Height of the whole-card image.
pub const WHOLE_H: usize = 56;
/// Floats in one whole-card tensor `[3, 56, 40]`.
pub const WHOLE_LEN: usize = 3 * WHOLE_H * WHOLE_W;
/// Rectified pixels per whole-card pixel along each side.
const WHOLE_STEP: usize = CARD_W as usize / WHOLE_W;

/// The map from rectified-card pixels to frame pixels; `None` for a degenerate quad.
pub fn card_to_frame(quad: &Quad) -> Option<Homography> {
    let (w, h) = (f64::from(CARD_W), f64::from(CARD_H));
    let card = [
        Point::new(0.0, 0.0),
        Point::new(w, 0.0),
        Point::new(w, h),
        Point::new(0.0, h),
    ];
    Homography::from_points(card, quad.0)
}

/// `x.floor()` as an integer, without the libm call that `f64::floor` is on the
/// baseline x86-64 target. `as` saturates and sends NaN to 0, so far-off points
/// clamp to the frame's edge.
#[inline(always)]
fn floor(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) > x {
        t - 1
    } else {
        t
    }
}

/// Bilinear sampling of one frame with edge pixels repeated (OpenCV's
/// `BORDER_REPLICATE`), straight from the raw buffer (the crops of a 4-card frame
/// take 23 000 samples).
pub(crate) struct Sampler<'a> {
    raw: &'a [u8],
    w: i64,
    h: i64,
}

impl<'a> Sampler<'a> {
    pub(crate) fn new(frame: &'a RgbImage) -> Sampler<'a> {
        Sampler {
            raw: frame.as_raw(),
            w: i64::from(frame.width()),
            h: i64::from(frame.height()),
        }
    }

    /// Channels as floats in 0..=255.
    #[inline(always)]
    pub(crate) fn sample(&self, x: f64, y: f64) -> [f32; 3] {
        let (xi, yi) = (floor(x), floor(y));
        let (ax, ay) = ((x - xi as f64) as f32, (y - yi as f64) as f32);
        let (w, h) = (self.w, self.h);
        let stride = w as usize * 3;
        let raw = self.raw;
        // The four neighbours' pixels. Inside the frame with a pixel to spare on
        // each axis (nearly every sample) the two of each row lie side by side
        // and are taken in one slice; beyond, edge pixels repeat.
        let (tl, tr, bl, br) = if xi >= 0 && yi >= 0 && xi < w - 1 && yi < h - 1 {
            let at = yi as usize * stride + xi as usize * 3;
            let (top, bot) = (&raw[at..at + 6], &raw[at + stride..at + stride + 6]);
            (&top[..3], &top[3..], &bot[..3], &bot[3..])
        } else {
            let col = |v: i64| (v.clamp(0, w - 1) as usize) * 3;
            let row = |v: i64| (v.clamp(0, h - 1) as usize) * stride;
            let (x0, x1) = (col(xi), col(xi.saturating_add(1)));
            let (y0, y1) = (row(yi), row(yi.saturating_add(1)));
            let px = |i: usize| &raw[i..i + 3];
            (px(y0 + x0), px(y0 + x1), px(y1 + x0), px(y1 + x1))
        };
        let mut out = [0.0f32; 3];
        for (c, o) in out.iter_mut().enumerate() {
            let top = f32::from(tl[c]) * (1.0 - ax) + f32::from(tr[c]) * ax;
            let bot = f32::from(bl[c]) * (1.0 - ax) + f32::from(br[c]) * ax;
            *o = top * (1.0 - ay) + bot * ay;
        }
        out
    }

    /// The sample rounded to 8 bits (half away from zero), like the training
    /// pipeline's uint8 warp.
    #[inline(always)]
    fn rounded(&self, x: f64, y: f64) -> [u32; 3] {
        let v = self.sample(x, y);
        [0, 1, 2].map(|c| (v[c].clamp(0.0, 255.0) + 0.5) as u32)
    }
}

/// The 160 × 224 upright card image of a quad (for inspection and debugging; the
/// classifier only needs [`index_crops`]). `None` for a degenerate quad or an empty
/// frame.
pub fn rectify(frame: &RgbImage, quad: &Quad) -> Option<RgbImage> {
    if frame.width() == 0 || frame.height() == 0 {
        return None;
    }
    let h = card_to_frame(quad)?;
    let sampler = Sampler::new(frame);
    let mut out = RgbImage::new(CARD_W, CARD_H);
    for y in 0..CARD_H {
        for x in 0..CARD_W {
            let p = h.apply(f64::from(x), f64::from(y))?;
            let v = sampler.rounded(p.x, p.y);
            out.put_pixel(x, y, Rgb(v.map(|c| c as u8)));
        }
    }
    Some(out)
}

/// Writes the card's two index crops into `out` as model input: two `[3, 72, 40]`
/// planes-first RGB tensors with values in [0, 1], the top-left crop first. Returns
/// `false` (leaving `out` unspecified) for a degenerate quad or empty frame.
pub fn index_crops(frame: &RgbImage, quad: &Quad, out: &mut [f32]) -> bool {
    cut_crops(frame, quad, &[false, true], out)
}

/// Writes the card's top-left index crop alone into `out` (one `[3, 72, 40]`
/// tensor, as in [`index_crops`]): the corner that shows of a card lying under its
/// neighbour in an overlapping row.
pub fn top_left_crop(frame: &RgbImage, quad: &Quad, out: &mut [f32]) -> bool {
    cut_crops(frame, quad, &[false], out)
}

/// Writes the card's bottom-right index crop alone into `out` (the top-left box
/// of the card turned by 180°, the second crop of [`index_crops`]).
pub fn bottom_right_crop(frame: &RgbImage, quad: &Quad, out: &mut [f32]) -> bool {
    cut_crops(frame, quad, &[true], out)
}

/// Whether every crop of the card can be cut ([`index_crops`] succeeds on any
/// non-empty frame): the map from card to frame exists and stays away from
/// infinity over the whole card. Its denominator is affine in the card's
/// coordinates, so it is enough that it has one sign, well clear of zero (a
/// millionth, where a card's is near 1 and cutting needs 10⁻¹²), at the corners
/// of the card's pixel grid. Lets a crop be cut later, only if needed,
/// knowing that it will cut.
pub fn crops_cuttable(quad: &Quad) -> bool {
    let Some(h) = card_to_frame(quad) else {
        return false;
    };
    let (cw, ch) = (f64::from(CARD_W) - 1.0, f64::from(CARD_H) - 1.0);
    let corners = [(0.0, 0.0), (cw, 0.0), (cw, ch), (0.0, ch)].map(|(x, y)| h.denominator(x, y));
    corners.iter().all(|&v| v >= 1e-6) || corners.iter().all(|&v| v <= -1e-6)
}

/// Cuts the index crops of the card, one per entry of `turned` (the top-left box of
/// the card, or of the card turned by 180°), one after another into `out`.
fn cut_crops(frame: &RgbImage, quad: &Quad, turned: &[bool], out: &mut [f32]) -> bool {
    if out.len() < turned.len() * CROP_LEN || frame.width() == 0 || frame.height() == 0 {
        return false;
    }
    let Some(h) = card_to_frame(quad) else {
        return false;
    };
    let sampler = Sampler::new(frame);
    let (cw, ch) = (f64::from(CARD_W) - 1.0, f64::from(CARD_H) - 1.0);
    let plane = CROP_H * CROP_W;
    for (crop, &turned) in turned.iter().enumerate() {
        let base = crop * CROP_LEN;
        for y in 0..CROP_H {
            for x in 0..CROP_W {
                let (cx, cy) = if turned {
                    (cw - x as f64, ch - y as f64)
                } else {
                    (x as f64, y as f64)
                };
                let Some(p) = h.apply(cx, cy) else {
                    return false;
                };
                let v = sampler.rounded(p.x, p.y);
                let i = y * CROP_W + x;
                for c in 0..3 {
                    out[base + c * plane + i] = v[c] as f32 / 255.0;
                }
            }
        }
    }
    true
}

/// `sum / n` rounded to the nearest integer, ties to the even one: how OpenCV
/// rounds the mean of a block of 8-bit pixels.
fn round_half_even(sum: u32, n: u32) -> u32 {
    let (q, r) = (sum / n, sum % n);
    if 2 * r > n || (2 * r == n && q % 2 == 1) {
        q + 1
    } else {
        q
    }
}

/// Writes the card reader's input into `out`: the whole rectified card shrunk to
/// `[3, 56, 40]` (values in [0, 1]), each pixel the mean of a 4 × 4 block of the
/// 160 × 224 rectified card's 8-bit pixels, rounded to 8 bits (ties to even) — the training
/// pipeline's `whole_card` (OpenCV's area resize of its uint8 warp). Returns `false`
/// for a degenerate quad or empty frame.
pub fn whole_card(frame: &RgbImage, quad: &Quad, out: &mut [f32]) -> bool {
    if out.len() < WHOLE_LEN || frame.width() == 0 || frame.height() == 0 {
        return false;
    }
    let Some(h) = card_to_frame(quad) else {
        return false;
    };
    let sampler = Sampler::new(frame);
    let plane = WHOLE_H * WHOLE_W;
    let block = (WHOLE_STEP * WHOLE_STEP) as u32;
    for y in 0..WHOLE_H {
        for x in 0..WHOLE_W {
            let mut sum = [0u32; 3];
            for dy in 0..WHOLE_STEP {
                for dx in 0..WHOLE_STEP {
                    let cx = (x * WHOLE_STEP + dx) as f64;
                    let cy = (y * WHOLE_STEP + dy) as f64;
                    let Some(p) = h.apply(cx, cy) else {
                        return false;
                    };
                    let v = sampler.rounded(p.x, p.y);
                    for c in 0..3 {
                        sum[c] += v[c];
                    }
                }
            }
            let i = y * WHOLE_W + x;
            for c in 0..3 {
                out[c * plane + i] = round_half_even(sum[c], block) as f32 / 255.0;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(pts: [(f64, f64); 4]) -> Quad {
        Quad(pts.map(|(x, y)| Point::new(x, y)))
    }

    #[test]
    fn an_axis_aligned_card_rectifies_to_a_scaled_copy() {
        // Frame pixel (x, y) has red = x, green = y: the warp must be x/2, y/2.
        let frame = RgbImage::from_fn(400, 500, |x, y| Rgb([(x % 256) as u8, (y % 256) as u8, 7]));
        let q = quad([(10.0, 20.0), (90.0, 20.0), (90.0, 132.0), (10.0, 132.0)]);
        let card = rectify(&frame, &q).unwrap();
        assert_eq!(card.dimensions(), (160, 224));
        assert_eq!(card.get_pixel(0, 0).0, [10, 20, 7]);
        assert_eq!(card.get_pixel(40, 60).0, [30, 50, 7]);
        let mut crops = vec![0.0; 2 * CROP_LEN];
        assert!(index_crops(&frame, &q, &mut crops));
        // Top-left crop, pixel (x=4, y=6): frame (12, 23).
        let plane = CROP_H * CROP_W;
        assert!((crops[6 * CROP_W + 4] * 255.0 - 12.0).abs() < 1e-3);
        assert!((crops[plane + 6 * CROP_W + 4] * 255.0 - 23.0).abs() < 1e-3);
        // Turned crop, pixel (0, 0) is card pixel (159, 223): frame (89.5, 131.5).
        let r = crops[CROP_LEN] * 255.0;
        assert!((r - 90.0).abs() <= 0.5, "{r}");
        assert!(crops.iter().all(|v| (0.0..=1.0).contains(v)));
    }

    #[test]
    fn the_turned_crop_of_a_half_turned_quad_is_the_first_crop() {
        // A smooth frame: the pixel-flip convention of the turned crop (card pixel
        // 159 − x, not 160 − x) moves it by under one frame pixel.
        let frame = RgbImage::from_fn(300, 300, |x, y| {
            Rgb([(x / 2) as u8, (y / 2) as u8, ((x + y) / 3) as u8])
        });
        let q = quad([(50.0, 40.0), (150.0, 50.0), (140.0, 190.0), (45.0, 185.0)]);
        let turned = Quad([q.0[2], q.0[3], q.0[0], q.0[1]]);
        let (mut a, mut b) = (vec![0.0; 2 * CROP_LEN], vec![0.0; 2 * CROP_LEN]);
        assert!(index_crops(&frame, &q, &mut a));
        assert!(index_crops(&frame, &turned, &mut b));
        let diff = a[..CROP_LEN]
            .iter()
            .zip(&b[CROP_LEN..])
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max);
        assert!(diff <= 2.0 / 255.0, "{diff}");
    }

    #[test]
    fn the_whole_card_is_the_rectified_card_averaged_in_four_by_four_blocks() {
        let frame = RgbImage::from_fn(300, 400, |x, y| {
            Rgb([
                (x % 251) as u8,
                (y % 241) as u8,
                ((x * 7 + y * 3) % 256) as u8,
            ])
        });
        let q = quad([(30.0, 40.0), (170.0, 52.0), (160.0, 250.0), (25.0, 240.0)]);
        let card = rectify(&frame, &q).unwrap();
        let mut whole = vec![0.0; WHOLE_LEN];
        assert!(whole_card(&frame, &q, &mut whole));
        let plane = WHOLE_H * WHOLE_W;
        for (x, y) in [(0, 0), (13, 27), (39, 55), (20, 3)] {
            for c in 0..3 {
                let mut sum = 0u32;
                for dy in 0..4 {
                    for dx in 0..4 {
                        sum += u32::from(card.get_pixel(4 * x + dx, 4 * y + dy).0[c]);
                    }
                }
                let want = round_half_even(sum, 16);
                let got = whole[c * plane + (y as usize) * WHOLE_W + x as usize] * 255.0;
                assert!(
                    (got - want as f32).abs() < 1e-3,
                    "({x}, {y}) channel {c}: {got} vs {want}"
                );
            }
        }
        let flat = quad([(1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (4.0, 4.0)]);
        assert!(!whole_card(&frame, &flat, &mut whole));
        assert_eq!(
            [8, 24, 9, 23, 0].map(|s| round_half_even(s, 16)),
            [0, 2, 1, 1, 0]
        );
    }

    #[test]
    fn samples_inside_the_frame_and_at_its_edges_are_clamped_bilinear_ones() {
        // The reference: bilinear with every coordinate clamped to the frame.
        let frame = RgbImage::from_fn(37, 23, |x, y| {
            Rgb([
                (x * 7 % 256) as u8,
                (y * 11 % 256) as u8,
                ((x * y) % 256) as u8,
            ])
        });
        let at = |x: i64, y: i64, c: usize| {
            let (x, y) = (x.clamp(0, 36) as u32, y.clamp(0, 22) as u32);
            f32::from(frame.get_pixel(x, y).0[c])
        };
        let sampler = Sampler::new(&frame);
        let mut k = 0u32;
        for yy in -8..=96 {
            for xx in -8..=160 {
                // Steps of a quarter pixel, nudged so that none is exact.
                let (x, y) = (f64::from(xx) / 4.0 + 0.013, f64::from(yy) / 4.0 - 0.007);
                let (xi, yi) = (x.floor() as i64, y.floor() as i64);
                let (ax, ay) = ((x - xi as f64) as f32, (y - yi as f64) as f32);
                let got = sampler.sample(x, y);
                for (c, g) in got.iter().enumerate() {
                    let top = at(xi, yi, c) * (1.0 - ax) + at(xi + 1, yi, c) * ax;
                    let bot = at(xi, yi + 1, c) * (1.0 - ax) + at(xi + 1, yi + 1, c) * ax;
                    assert_eq!(*g, top * (1.0 - ay) + bot * ay, "({x}, {y}) channel {c}");
                }
                k += 1;
            }
        }
        assert!(k > 17_000);
    }

    #[test]
    fn the_bottom_right_crop_alone_is_the_second_of_the_pair() {
        let frame = RgbImage::from_fn(320, 300, |x, y| {
            Rgb([(x % 256) as u8, (y % 256) as u8, ((x * 3 + y) % 256) as u8])
        });
        let q = quad([(40.0, 30.0), (170.0, 45.0), (160.0, 230.0), (35.0, 220.0)]);
        let mut pair = vec![0.0; 2 * CROP_LEN];
        let (mut first, mut second) = (vec![0.0; CROP_LEN], vec![0.0; CROP_LEN]);
        assert!(index_crops(&frame, &q, &mut pair));
        assert!(top_left_crop(&frame, &q, &mut first));
        assert!(bottom_right_crop(&frame, &q, &mut second));
        assert_eq!(first, pair[..CROP_LEN]);
        assert_eq!(second, pair[CROP_LEN..]);
    }

    #[test]
    fn a_quad_said_to_be_cuttable_always_cuts() {
        // Quads from tidy to wild (crossed, folded, far beyond the frame): every
        // one said to be cuttable cuts both crops; the tidy ones are said to be.
        let frame = RgbImage::from_fn(64, 64, |x, y| Rgb([x as u8, y as u8, 9]));
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as f64 / f64::from(1u32 << 31)) * 400.0 - 200.0
        };
        let mut out = vec![0.0; 2 * CROP_LEN];
        let mut said = 0;
        for _ in 0..2000 {
            let q = quad([
                (next(), next()),
                (next(), next()),
                (next(), next()),
                (next(), next()),
            ]);
            if crops_cuttable(&q) {
                said += 1;
                assert!(index_crops(&frame, &q, &mut out), "{q:?}");
            }
        }
        assert!(said > 100, "only {said} random quads were cuttable");
        let tidy = quad([(10.0, 5.0), (50.0, 8.0), (48.0, 60.0), (8.0, 58.0)]);
        assert!(crops_cuttable(&tidy));
        let flat = quad([(1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (4.0, 4.0)]);
        assert!(!crops_cuttable(&flat));
        // A quad whose far corners run off to infinity inside the card: the map
        // exists but passes through infinity, and is not cuttable.
        let bent = quad([(0.0, 0.0), (100.0, 0.0), (-100.0, 300.0), (200.0, 300.0)]);
        assert!(card_to_frame(&bent).is_some() && !crops_cuttable(&bent));
    }

    #[test]
    fn degenerate_quads_are_refused() {
        let frame = RgbImage::new(10, 10);
        let q = quad([(1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (4.0, 4.0)]);
        assert!(rectify(&frame, &q).is_none());
        let mut out = vec![0.0; 2 * CROP_LEN];
        assert!(!index_crops(&frame, &q, &mut out));
        assert!(!index_crops(
            &RgbImage::new(0, 0),
            &quad([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]),
            &mut out
        ));
    }
}
