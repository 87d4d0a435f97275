//! Card localisation: finds every card lying face up in a frame and fits its four
//! corners.
//!
//! A card is a bright, unsaturated rounded rectangle. The cloth may be anything from
//! black felt to a white tablecloth lit unevenly, so no single threshold separates
//! cards from it. The frame is reduced to a "whiteness" map (bright and grey score
//! high; colours and dark score low) at a working scale of about 800 pixels across,
//! and the map is thresholded at a ladder of levels (on a light cloth, where
//! whiteness barely separates paper from cloth, also masked for grey-neutral
//! pixels, since paper is neutral and a light cloth is usually tinted; and on
//! every cloth for what a closed outline encloses, since in a lamp's glare only
//! the card's edge sets it apart, and court art that runs from edge to edge cuts
//! the other masks). At each level every
//! connected blob is a candidate; a candidate is a card when its convex hull is nearly the
//! largest quadrilateral inscribed in it (a rectangle seen in perspective), with a
//! card's proportions and a white margin along its edges. The same card is found at
//! several levels: the most complete outline (largest) wins, unless it swallows two
//! or more cards (neighbours merged through a bright gap). Finally each side is
//! re-fitted on the full-resolution frame (edge points across the side, straight
//! line fit, corners at the crossings), which also undoes the rounded corners.
//! An outline dropped as merged cards may be a row of touching cards one of which
//! no mask gives alone (a court card, whose art reaches its edge): the stretch of
//! the row its found cards leave uncovered is filled with cards
//! ([`super::touching`]).
//!
//! What is not a card but looks like one (a paper note of card shape) passes here;
//! the classifier's "not a card" class turns it away.

use image::RgbImage;

use super::fan::{self, FanCard};
use super::geometry::{
    convex_hull_of_sorted, max_area_quad, signed_area, Line, Point, Quad, Segment,
};
use super::touching;

/// Tuning of the localiser. The defaults suit a 1280 × 720 webcam frame with cards
/// 80–300 pixels tall; the fields are public so tools can experiment.
#[derive(Debug, Clone)]
pub struct LocaliserConfig {
    /// The working image is at most this many pixels across (long side).
    pub work_long_side: u32,
    /// Absolute whiteness levels tried (cards brighter than the cloth).
    pub levels: Vec<i16>,
    /// Margins above the local mean whiteness tried (cards on light cloths, uneven
    /// light): a pixel is in the mask when it is this much whiter than its
    /// neighbourhood.
    pub local_margins: Vec<i16>,
    /// Half-width of that neighbourhood, as a fraction of the working long side.
    pub local_radius_frac: f64,
    /// On a light cloth, the largest colour spread (`max − min` of R, G, B) of a
    /// pixel that is also a little whiter than its neighbourhood (by the smallest of
    /// `local_margins`; these masks need that neighbourhood mean), tried in turn:
    /// card paper is grey-neutral where a light cloth is tinted (pink, cream), and
    /// the cloth's bright speckles that join a card to its surroundings in the
    /// whiteness masks are tinted too.
    pub neutral_spreads: Vec<u8>,
    /// The median whiteness of a frame from which its cloth counts as light: the
    /// neutral-paper masks are tried only then (they cost time, and on a dark or
    /// coloured cloth the other masks already find every card they would).
    pub light_cloth_whiteness: i16,
    /// Colour distances from the surrounding cloth tried (sum over R, G, B): finds
    /// court cards whose art reaches their edge.
    pub cloth_distances: Vec<i16>,
    /// Colour distances from the cloth tried once more on the mask opened by a
    /// square of side `2 × opening_radius + 1`, for card outlines only: on a dotted
    /// or speckled cloth the specks that touch a card join its blob, and its sides
    /// come out too ragged for a card's; opened, the specks are gone and the card
    /// keeps its shape.
    pub opened_cloth_distances: Vec<i16>,
    /// Half the side of the opening's square, in working pixels (0: no opening).
    pub opening_radius: usize,
    /// On a light cloth, the whiteness steps (across two working pixels) that
    /// count as an outline for the enclosed-outline masks, tried in turn: in a
    /// lamp's glare the cloth is as white as the paper, and only the card's edge
    /// tells them apart.
    pub outline_steps: Vec<i16>,
    /// The same steps on any other cloth, tried for cards only (not rows): a court
    /// card whose art reaches its edge cuts the whiteness masks into pieces, and a
    /// lamp's glare beside a card joins it to its halo, but the card's edge still
    /// encloses it. One step only: each costs a flood of the working image.
    pub other_cloth_outline_steps: Vec<i16>,
    /// On a light cloth, the colour steps (sum over R, G, B across two working
    /// pixels) that count as an outline for more enclosed-outline masks, tried in
    /// turn: a cream or ivory card on a pale tinted cloth (cream on pale green,
    /// ivory on pink) is barely whiter than it, but differs in hue all round.
    pub outline_colour_steps: Vec<i16>,
    /// The same colour steps on any other cloth, tried for cards only: where a card
    /// lies in a shadow the room's bluish fill light whitens it only a little
    /// more than the dark cloth beside it (paper of R, G, B 107, 142, 182 on dark
    /// wood scores a whiteness step near 30, under the 40 of
    /// `other_cloth_outline_steps`), and where a lamp's glare lights the cloth
    /// beside a card that is darker than it, whiteness cannot tell the card's side
    /// at all; its edge is still a strong step in colour. Outlines the other masks
    /// found already are not re-fitted, so these only add cards they missed.
    pub other_cloth_outline_colour_steps: Vec<i16>,
    /// Fit the sides of an outline that whiteness cannot fit again on the colour
    /// axis from the cloth's colour to the paper's (the median colours just
    /// outside and just inside it): the sides of a cream card on a pale green
    /// cloth are a step in colour, hardly in whiteness, and so are those of a
    /// court card on a dark cloth where its art, red or blue, reaches the edge.
    /// On a cloth that is not light such an outline is kept only where no outline
    /// fitted on whiteness overlaps it: there it stands in for a card whiteness
    /// missed, and never moves one whiteness found.
    pub refit_on_colour: bool,
    /// How far inside an enclosed outline's quad the card's edge is searched for,
    /// as a fraction of the quad's size (square root of its area): the enclosed
    /// blob also holds the card's soft drop shadow.
    pub outline_slack: f64,
    /// Smallest card, as a fraction of the frame area.
    pub min_area_frac: f64,
    /// Largest card, as a fraction of the frame area.
    pub max_area_frac: f64,
    /// Accepted short/long side ratio (a poker card is 0.71, a bridge card 0.64;
    /// perspective stretches it either way; down to about 0.34 for up to four
    /// touching borderless cards in a row, which the recognizer cuts apart).
    pub aspect: (f64, f64),
    /// Accepted blob-hull area over fitted-quad area: just under 1 for a card (its
    /// rounded corners), far from it for discs, blobs and merged shapes.
    pub hull_fill: (f64, f64),
    /// Smallest short/long side ratio of an overlapping row (a hand spread out,
    /// each card on its neighbour): outlines between this and `aspect.0` are
    /// returned as rows, which the recognizer splits at the cards' edges. 0 turns
    /// rows off.
    pub min_row_aspect: f64,
    /// Smallest fraction of the inner margin that must be in the mask.
    pub min_margin_white: f64,
    /// Interior angles must lie in 90° ± this.
    pub max_angle_skew: f64,
    /// Interior angles may lie in 90° ± this instead when the outline is nearly a
    /// parallelogram (each pair of opposite angles within
    /// `parallelogram_tolerance` of each other): a card turned diagonally to a
    /// camera at a strong slant is sheared that far, while a piece of a card (court
    /// art cut off at a straight line) is skewed at one end only.
    pub max_sheared_skew: f64,
    /// How far apart, in degrees, opposite angles may be for `max_sheared_skew`.
    pub parallelogram_tolerance: f64,
    /// Smallest fraction of edge probes that must land on the refined outline.
    pub min_edge_support: f64,
    /// Smallest brightness (brightest channel) just inside the outline, as a
    /// fraction of that just outside: turns away dark objects on bright-green or
    /// coloured cloths, which the whiteness score alone takes for light.
    pub min_inside_light: f64,
}

impl Default for LocaliserConfig {
    fn default() -> Self {
        LocaliserConfig {
            work_long_side: 800,
            levels: vec![80, 140, 200],
            local_margins: vec![4, 8, 20],
            local_radius_frac: 0.03,
            neutral_spreads: vec![10],
            light_cloth_whiteness: 80,
            cloth_distances: vec![35, 50, 90],
            opened_cloth_distances: vec![90],
            opening_radius: 1,
            outline_steps: vec![20, 40],
            other_cloth_outline_steps: vec![40],
            outline_colour_steps: vec![45, 70],
            other_cloth_outline_colour_steps: vec![100, 140],
            refit_on_colour: true,
            outline_slack: 0.08,
            min_area_frac: 0.0015,
            max_area_frac: 0.3,
            aspect: (0.31, 1.0),
            hull_fill: (0.9, 1.03),
            min_row_aspect: 0.08,
            min_margin_white: 0.6,
            max_angle_skew: 28.0,
            max_sheared_skew: 38.0,
            parallelogram_tolerance: 10.0,
            min_edge_support: 0.5,
            min_inside_light: 0.6,
        }
    }
}

/// The localiser's whiteness score of a colour, `min − (max − min)` of R, G, B:
/// high for white and light grey, low for colours and dark.
fn whiteness(r: i16, g: i16, b: i16) -> i16 {
    let (lo, hi) = (r.min(g).min(b), r.max(g).max(b));
    lo - (hi - lo)
}

/// The whiteness map of a frame at the working scale.
struct WorkImage {
    w: usize,
    h: usize,
    /// Pixels of the full frame per working pixel, along each axis.
    scale: f64,
    data: Vec<i16>,
    rgb: Vec<[u8; 3]>,
}

impl WorkImage {
    /// Box-downsamples the frame by an integer factor and scores each pixel:
    /// `min(r, g, b) − (max − min)`, high for white and light grey, low for dark or
    /// coloured pixels.
    fn new(frame: &RgbImage, long_side: u32) -> WorkImage {
        let (fw, fh) = frame.dimensions();
        let f = fw.max(fh).div_ceil(long_side.max(1)).max(1) as usize;
        let (w, h) = (fw as usize / f, fh as usize / f);
        let raw = frame.as_raw();
        let stride = fw as usize * 3;
        let mut data = vec![0i16; w * h];
        let mut rgb = vec![[0u8; 3]; w * h];
        if f == 2 {
            // The usual case (a 1280 × 720 frame; any long side of 801–1600
            // pixels): 2 × 2 blocks, the mean a shift, in one tight pass.
            for y in 0..h {
                let r0 = &raw[2 * y * stride..2 * y * stride + w * 6];
                let r1 = &raw[(2 * y + 1) * stride..(2 * y + 1) * stride + w * 6];
                let out = rgb[y * w..(y + 1) * w]
                    .iter_mut()
                    .zip(&mut data[y * w..(y + 1) * w]);
                for ((o, d), (a, b)) in out.zip(r0.chunks_exact(6).zip(r1.chunks_exact(6))) {
                    let m = |c: usize| {
                        (u16::from(a[c])
                            + u16::from(a[c + 3])
                            + u16::from(b[c])
                            + u16::from(b[c + 3]))
                            >> 2
                    };
                    let (r, g, bl) = (m(0), m(1), m(2));
                    *o = [r as u8, g as u8, bl as u8];
                    *d = whiteness(r as i16, g as i16, bl as i16);
                }
            }
        } else {
            // Division by the block size as a multiplication (exact for these sums).
            let inv = (1u64 << 32).div_ceil((f * f) as u64);
            let mean = |sum: u32| ((u64::from(sum) * inv) >> 32) as i16;
            let mut acc = vec![[0u32; 3]; w];
            for y in 0..h {
                acc.iter_mut().for_each(|a| *a = [0; 3]);
                for dy in 0..f {
                    let row = &raw[(y * f + dy) * stride..(y * f + dy) * stride + w * f * 3];
                    for (x, a) in acc.iter_mut().enumerate() {
                        for px in row[x * f * 3..(x + 1) * f * 3].chunks_exact(3) {
                            a[0] += u32::from(px[0]);
                            a[1] += u32::from(px[1]);
                            a[2] += u32::from(px[2]);
                        }
                    }
                }
                for (x, a) in acc.iter().enumerate() {
                    let (r, g, b) = (mean(a[0]), mean(a[1]), mean(a[2]));
                    rgb[y * w + x] = [r as u8, g as u8, b as u8];
                    data[y * w + x] = whiteness(r, g, b);
                }
            }
        }
        WorkImage {
            w,
            h,
            scale: f as f64,
            data,
            rgb,
        }
    }

    /// How far each pixel's colour is from the cloth around it (sum of absolute
    /// channel differences). The cloth colour is the per-channel median of
    /// `cell × cell` cell means over a window of `(2k + 1)²` cells (16 and 4: 144
    /// working pixels): a card covers a minority of such a window, so the median
    /// is the cloth's colour and a card stands out whole (margin and court art
    /// alike), whatever the cloth.
    fn cloth_distance(&self, cell: usize, k: usize) -> Vec<i16> {
        let (cw, ch) = (self.w.div_ceil(cell), self.h.div_ceil(cell));
        let mut cells = vec![[0u32; 4]; cw * ch];
        for (y, row) in self.rgb.chunks_exact(self.w).enumerate() {
            let cell_row = &mut cells[(y / cell) * cw..(y / cell + 1) * cw];
            for (c, px) in cell_row.iter_mut().zip(row.chunks(cell)) {
                for p in px {
                    c[0] += u32::from(p[0]);
                    c[1] += u32::from(p[1]);
                    c[2] += u32::from(p[2]);
                }
                c[3] += px.len() as u32;
            }
        }
        let means: Vec<[f32; 3]> = cells
            .iter()
            .map(|c| {
                let n = c[3].max(1) as f32;
                [c[0] as f32 / n, c[1] as f32 / n, c[2] as f32 / n]
            })
            .collect();
        let mut cloth = vec![[0f32; 3]; cw * ch];
        // Means are never negative, so their bit patterns order like the values:
        // the medians are found among integers, which is faster.
        let keys: [Vec<u32>; 3] =
            std::array::from_fn(|c| means.iter().map(|m| m[c].to_bits()).collect());
        let mut window: Vec<u32> = Vec::with_capacity((2 * k + 1) * (2 * k + 1));
        for cy in 0..ch {
            let rows = cy.saturating_sub(k)..(cy + k + 1).min(ch);
            for cx in 0..cw {
                let cols = cx.saturating_sub(k)..(cx + k + 1).min(cw);
                for (c, key) in keys.iter().enumerate() {
                    window.clear();
                    for yy in rows.clone() {
                        window.extend_from_slice(&key[yy * cw + cols.start..yy * cw + cols.end]);
                    }
                    let mid = window.len() / 2;
                    cloth[cy * cw + cx][c] = f32::from_bits(*window.select_nth_unstable(mid).1);
                }
            }
        }
        let mut out = vec![0i16; self.w * self.h];
        for (y, (orow, prow)) in out
            .chunks_exact_mut(self.w)
            .zip(self.rgb.chunks_exact(self.w))
            .enumerate()
        {
            let cloth_row = &cloth[(y / cell) * cw..(y / cell + 1) * cw];
            for ((os, ps), c) in orow.chunks_mut(cell).zip(prow.chunks(cell)).zip(cloth_row) {
                for (o, p) in os.iter_mut().zip(ps) {
                    let d: f32 = (0..3).map(|k| (f32::from(p[k]) - c[k]).abs()).sum();
                    *o = d as i16;
                }
            }
        }
        out
    }

    /// The largest whiteness step within a pixel of each pixel (3 × 3), a step
    /// being the larger of a pixel's two central differences (across two pixels,
    /// along either axis; 0 on the frame's edge). Taking the neighbourhood's
    /// largest grows each outline by a pixel, so that a flood cannot slip between
    /// the pixels of a diagonal outline.
    fn steps(&self) -> Vec<i16> {
        let d = &self.data;
        self.outline_map(|a, b| (d[a] - d[b]).abs())
    }

    /// The same for colour: a step is the sum over R, G and B of the absolute
    /// central differences. A cream or ivory card on a pale tinted cloth differs
    /// from it in hue far more than in whiteness (which barely moves between the
    /// two), so its edge is closed here where the whiteness outline has gaps.
    fn colour_steps(&self) -> Vec<i16> {
        let rgb = &self.rgb;
        self.outline_map(|a, b| {
            let (p, q) = (rgb[a], rgb[b]);
            (0..3)
                .map(|k| (i16::from(p[k]) - i16::from(q[k])).abs())
                .sum()
        })
    }

    /// Each pixel's larger central difference (`diff` of the pixels either side
    /// of it, across and down; 0 on the frame's edge), then the largest within a
    /// pixel (3 × 3).
    fn outline_map(&self, diff: impl Fn(usize, usize) -> i16) -> Vec<i16> {
        let (w, h) = (self.w, self.h);
        let mut step = vec![0i16; w * h];
        if w < 3 || h < 3 {
            return step;
        }
        for y in 1..h - 1 {
            for x in 1..w - 1 {
                let i = y * w + x;
                step[i] = diff(i - 1, i + 1).max(diff(i - w, i + w));
            }
        }
        // The 3 × 3 maximum, separably: along each row, then down each column.
        let mut across = vec![0i16; w * h];
        for (src, dst) in step.chunks_exact(w).zip(across.chunks_exact_mut(w)) {
            dst[0] = src[0].max(src[1]);
            dst[w - 1] = src[w - 2].max(src[w - 1]);
            for (o, ((a, b), c)) in dst[1..w - 1]
                .iter_mut()
                .zip(src.iter().zip(&src[1..]).zip(&src[2..]))
            {
                *o = (*a).max(*b).max(*c);
            }
        }
        for y in 0..h {
            let (a, b) = (y.saturating_sub(1), (y + 1).min(h - 1));
            let dst = &mut step[y * w..(y + 1) * w];
            let (ra, ry, rb) = (
                &across[a * w..(a + 1) * w],
                &across[y * w..(y + 1) * w],
                &across[b * w..(b + 1) * w],
            );
            for (o, ((p, q), r)) in dst.iter_mut().zip(ra.iter().zip(ry).zip(rb)) {
                *o = (*p).max(*q).max(*r);
            }
        }
        step
    }

    /// The pixels that the cloth cannot reach: a flood from the frame's border over
    /// every pixel with no whiteness step of `step` or more within a pixel
    /// (`steps`). A card's outline is such a step all round, even in a lamp's
    /// glare where the cloth is as white as the paper and no threshold of
    /// whiteness tells them apart, so the whole card, pips and art included, is
    /// left unreached. So is anything else with a closed outline: the shape tests
    /// and the classifier judge those.
    fn enclosed(&self, steps: &[i16], step: i16) -> Vec<bool> {
        let (w, h) = (self.w, self.h);
        // The flood goes by runs of open pixels, row by row: a run is reached
        // when it touches the frame's edge or overlaps a reached run above or
        // below (four-connected), until nothing changes.
        let mut runs: Vec<Vec<(usize, usize, bool)>> = Vec::with_capacity(h);
        for (y, row) in steps.chunks_exact(w).enumerate() {
            let mut v = Vec::new();
            let mut x = 0;
            while x < w {
                if row[x] >= step {
                    x += 1;
                    continue;
                }
                let x0 = x;
                while x < w && row[x] < step {
                    x += 1;
                }
                let edge = y == 0 || y + 1 == h || x0 == 0 || x == w;
                v.push((x0, x, edge));
            }
            runs.push(v);
        }
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for (y, row) in runs.iter().enumerate() {
            for (k, r) in row.iter().enumerate() {
                if r.2 {
                    stack.push((y, k));
                }
            }
        }
        while let Some((y, k)) = stack.pop() {
            let (x0, x1, _) = runs[y][k];
            for ny in [y.wrapping_sub(1), y + 1] {
                let Some(row) = runs.get_mut(ny) else {
                    continue;
                };
                // Runs of a row are sorted and disjoint: skip those ending
                // before this one starts, visit those starting before it ends.
                let first = row.partition_point(|r| r.1 <= x0);
                for (j, r) in row.iter_mut().enumerate().skip(first) {
                    if r.0 >= x1 {
                        break;
                    }
                    if !r.2 {
                        r.2 = true;
                        stack.push((ny, j));
                    }
                }
            }
        }
        let mut inside = vec![true; w * h];
        for (y, row) in runs.iter().enumerate() {
            for &(x0, x1, reached) in row {
                if reached {
                    inside[y * w + x0..y * w + x1].fill(false);
                }
            }
        }
        inside
    }

    /// The median whiteness of the working image, from every seventh pixel: the
    /// cloth's, since cards cover a minority of a frame.
    fn median_whiteness(&self) -> i16 {
        let mut sample: Vec<i16> = self.data.iter().step_by(7).copied().collect();
        if sample.is_empty() {
            return 0;
        }
        let mid = sample.len() / 2;
        *sample.select_nth_unstable(mid).1
    }

    /// The mean whiteness over a `(2r + 1)²` box around every pixel (clipped at the
    /// frame's edges), truncated toward zero like an integer division. Box sums
    /// are separable (a running sum along each row, then down each column) and
    /// each division is a multiplication by the box size's reciprocal, nudged by
    /// far less than the gap between two quotients (at least 1 / box size) so that
    /// exact quotients stay exact.
    fn local_mean(&self, r: usize) -> Vec<i16> {
        let (w, h) = (self.w, self.h);
        if w == 0 || h == 0 {
            return Vec::new();
        }
        let span = |i: usize, n: usize| (i.saturating_sub(r), (i + r + 1).min(n));
        // Row sums of the box's width around every pixel.
        let mut rows = vec![0i32; w * h];
        for (src, dst) in self.data.chunks_exact(w).zip(rows.chunks_exact_mut(w)) {
            let mut sum: i32 = src[..(r + 1).min(w)].iter().map(|&v| i32::from(v)).sum();
            for x in 0..w {
                dst[x] = sum;
                if x + r + 1 < w {
                    sum += i32::from(src[x + r + 1]);
                }
                if x >= r {
                    sum -= i32::from(src[x - r]);
                }
            }
        }
        let inv_w: Vec<f64> = (0..w)
            .map(|x| {
                let (x0, x1) = span(x, w);
                1.0 / (x1 - x0) as f64
            })
            .collect();
        // Column sums of those, one row of running sums at a time.
        let mut col: Vec<i32> = vec![0; w];
        for row in rows.chunks_exact(w).take((r + 1).min(h)) {
            col.iter_mut().zip(row).for_each(|(c, &v)| *c += v);
        }
        let mut out = vec![0i16; w * h];
        for y in 0..h {
            let (y0, y1) = span(y, h);
            let inv_h = 1.0 / (y1 - y0) as f64;
            for ((o, &c), &iw) in out[y * w..(y + 1) * w].iter_mut().zip(&col).zip(&inv_w) {
                let q = f64::from(c) * iw * inv_h;
                *o = (q + 1e-9f64.copysign(q)) as i16;
            }
            if y + r + 1 < h {
                let add = &rows[(y + r + 1) * w..(y + r + 2) * w];
                col.iter_mut().zip(add).for_each(|(c, &v)| *c += v);
            }
            if y >= r {
                let sub = &rows[(y - r) * w..(y - r + 1) * w];
                col.iter_mut().zip(sub).for_each(|(c, &v)| *c -= v);
            }
        }
        out
    }
}

/// A binary mask of the working image: "card-like here".
/// The test is a closure over the working image, so no mask is ever stored.
struct Mask<F: Fn(usize) -> bool> {
    w: usize,
    h: usize,
    on: F,
}

impl<F: Fn(usize) -> bool> Mask<F> {
    fn at(&self, x: f64, y: f64) -> bool {
        if x < 0.0 || y < 0.0 {
            return false;
        }
        let (xi, yi) = (x as usize, y as usize);
        xi < self.w && yi < self.h && (self.on)(yi * self.w + xi)
    }
}

/// A horizontal run of mask pixels `[x0, x1)` on row `y`.
#[derive(Debug, Clone, Copy)]
struct Run {
    y: u32,
    x0: u32,
    x1: u32,
}

fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let p = parent[i as usize];
        parent[i as usize] = parent[p as usize];
        i = p;
    }
    i
}

/// The blobs (8-connected) of the mask with `min_px..=max_px` pixels, as lists of
/// runs.
fn blobs<F: Fn(usize) -> bool>(mask: &Mask<F>, min_px: u32, max_px: u32) -> Vec<Vec<Run>> {
    let w = mask.w;
    let mut runs: Vec<Run> = Vec::new();
    let mut parent: Vec<u32> = Vec::new();
    let mut prev = 0..0;
    // One row of the mask at a time: evaluated in a straight loop (which the
    // compiler vectorises) into bytes, packed into bits, and scanned for runs a word
    // at a time. A speckled light cloth gives tens of thousands of short runs per
    // mask, and a byte-by-byte search pays a mispredicted branch at each end of each.
    let mut flags = vec![0u8; w.div_ceil(64) * 64];
    let mut bits = vec![0u64; w.div_ceil(64)];
    for y in 0..mask.h {
        pack_row(mask, y, &mut flags, &mut bits);
        let start = runs.len();
        let mut x = 0;
        while let Some(x0) = next_bit(&bits, x, true) {
            // Bits past the row's end are clear, so a run ends by `w`.
            x = next_bit(&bits, x0, false).unwrap_or(w);
            runs.push(Run {
                y: y as u32,
                x0: x0 as u32,
                x1: x as u32,
            });
            parent.push((runs.len() - 1) as u32);
        }
        // Union with the overlapping runs of the previous row (8-connectivity). A
        // new run starts as its own root; `root` follows its set's root (always
        // the set's smallest run index) as it joins others.
        let mut j = prev.start;
        for i in start..runs.len() {
            let r = runs[i];
            while j < prev.end && runs[j].x1 < r.x0 {
                j += 1;
            }
            let mut root = i as u32;
            let mut k = j;
            while k < prev.end && runs[k].x0 <= r.x1 {
                let other = find(&mut parent, k as u32);
                if other != root {
                    let (lo, hi) = (root.min(other), root.max(other));
                    parent[hi as usize] = lo;
                    root = lo;
                }
                k += 1;
            }
        }
        prev = start..runs.len();
    }
    let mut size = vec![0u32; runs.len()];
    let mut roots = vec![0u32; runs.len()];
    for i in 0..runs.len() {
        let root = find(&mut parent, i as u32);
        roots[i] = root;
        size[root as usize] += runs[i].x1 - runs[i].x0;
    }
    let mut index = vec![u32::MAX; runs.len()];
    let mut out: Vec<Vec<Run>> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let root = roots[i] as usize;
        if size[root] < min_px || size[root] > max_px {
            continue;
        }
        if index[root] == u32::MAX {
            index[root] = out.len() as u32;
            out.push(Vec::new());
        }
        out[index[root] as usize].push(*run);
    }
    out
}

/// Packs row `y` of the mask into `bits` (bit `x % 64` of word `x / 64`; bits past
/// the row's end clear), through `flags`, a byte per pixel rounded up to whole
/// words: the test is evaluated in a straight loop the compiler vectorises.
fn pack_row<F: Fn(usize) -> bool>(mask: &Mask<F>, y: usize, flags: &mut [u8], bits: &mut [u64]) {
    let row = y * mask.w;
    flags[..mask.w]
        .iter_mut()
        .enumerate()
        .for_each(|(x, b)| *b = u8::from((mask.on)(row + x)));
    pack_bits(flags, bits);
}

/// Packs 0/1 bytes into bits, eight bytes per multiply (bit `i` of a word is byte
/// `i` of its 64).
fn pack_bits(flags: &[u8], bits: &mut [u64]) {
    for (word, chunk) in bits.iter_mut().zip(flags.chunks_exact(64)) {
        let mut v = 0u64;
        for (k, c) in chunk.chunks_exact(8).enumerate() {
            let bytes = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            // Byte i (0 or 1) lands on bit 56 + i; no two partial products collide.
            v |= (bytes.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        *word = v;
    }
}

/// The first position at or after `from` whose bit is `set`, if any.
fn next_bit(bits: &[u64], from: usize, set: bool) -> Option<usize> {
    let mut wi = from / 64;
    let flip = if set { 0 } else { u64::MAX };
    let mut word = (bits.get(wi)? ^ flip) & (u64::MAX << (from % 64));
    loop {
        if word != 0 {
            return Some(wi * 64 + word.trailing_zeros() as usize);
        }
        wi += 1;
        word = bits.get(wi)? ^ flip;
    }
}

/// A blob that passed the card tests, in working-image pixels.
#[derive(Debug, Clone)]
struct Candidate {
    quad: Quad,
    /// How far, in working pixels, the card's edge may lie inside the quad (0 but
    /// for enclosed outlines, whose blob holds the drop shadow too).
    slack: f64,
    /// Longer and thinner than a card: an overlapping row of cards, perhaps.
    row: bool,
}

/// A mask opened by a square of side `2r + 1` (eroded, then dilated): specks and
/// threads narrower than the square go, and so do specks of a dotted cloth that
/// touch a card's edge; what is wider keeps its shape, its corners a little
/// rounded. Out of the frame counts as out of the mask. The square is `r` steps of
/// 3 × 3, each done on rows packed 64 pixels to a word.
fn opened<F: Fn(usize) -> bool>(mask: &Mask<F>, r: usize) -> Vec<bool> {
    let (w, h) = (mask.w, mask.h);
    let words = w.div_ceil(64);
    let mut flags = vec![0u8; words * 64];
    let mut bits = vec![0u64; words * h];
    for (y, out) in bits.chunks_exact_mut(words).enumerate() {
        pack_row(mask, y, &mut flags, out);
    }
    for _ in 0..r {
        bits = square_step(&bits, w, words, false);
    }
    for _ in 0..r {
        bits = square_step(&bits, w, words, true);
    }
    let mut out = vec![false; w * h];
    for (row, packed) in out.chunks_exact_mut(w).zip(bits.chunks_exact(words)) {
        for (x, px) in row.iter_mut().enumerate() {
            *px = (packed[x / 64] >> (x % 64)) & 1 == 1;
        }
    }
    out
}

/// One 3 × 3 step of [`opened`] on packed rows (`words` per row, bits past a
/// row's end clear): with `grow` a pixel is set when any of its 3 × 3
/// neighbourhood is (dilation), otherwise when all of it is, out of the frame
/// counting as clear (erosion).
fn square_step(bits: &[u64], w: usize, words: usize, grow: bool) -> Vec<u64> {
    let combine = |a: u64, b: u64| if grow { a | b } else { a & b };
    let mut across = vec![0u64; bits.len()];
    for (row, out) in bits.chunks_exact(words).zip(across.chunks_exact_mut(words)) {
        for k in 0..words {
            let prev = if k > 0 { row[k - 1] } else { 0 };
            let next = row.get(k + 1).copied().unwrap_or(0);
            let left = (row[k] << 1) | (prev >> 63);
            let right = (row[k] >> 1) | (next << 63);
            out[k] = combine(combine(row[k], left), right);
        }
        // Growing may set the bit just past the row's end: clear it again.
        if w % 64 != 0 {
            out[words - 1] &= (1u64 << (w % 64)) - 1;
        }
    }
    let h = bits.len() / words;
    let mut out = vec![0u64; bits.len()];
    for y in 0..h {
        for k in 0..words {
            let at = |yy: usize| across[yy * words + k];
            let above = if y > 0 { at(y - 1) } else { 0 };
            let below = if y + 1 < h { at(y + 1) } else { 0 };
            out[y * words + k] = combine(combine(at(y), above), below);
        }
    }
    out
}

/// The quad of a convex hull's four straight sides: the hull is split at the
/// corners of its largest inscribed quad, a line is fitted to the middle of each
/// part (points every pixel along its edges, rounded corners left out), and
/// neighbouring lines cross at the corners. This lands on the corners of the card's
/// bounding rectangle, not on its rounded corners. `None` when a part is not
/// straight (a disc, a blob).
fn fit_sides(hull: &[Point]) -> Option<[Point; 4]> {
    let n = hull.len();
    let idx = max_area_quad(hull)?;
    let mut lines = Vec::with_capacity(4);
    for k in 0..4 {
        let (s, e) = (idx[k], idx[(k + 1) % 4]);
        let (a, b) = (hull[s], hull[e]);
        let chord = a.dist(b);
        if chord < 4.0 {
            return None;
        }
        let (ux, uy) = ((b.x - a.x) / chord, (b.y - a.y) / chord);
        let mut pts = Vec::new();
        let mut i = s;
        while i != e {
            let (p, q) = (hull[i], hull[(i + 1) % n]);
            let steps = p.dist(q).ceil().max(1.0) as usize;
            for j in 0..steps {
                let f = j as f64 / steps as f64;
                let pt = Point::new(p.x + (q.x - p.x) * f, p.y + (q.y - p.y) * f);
                let t = ((pt.x - a.x) * ux + (pt.y - a.y) * uy) / chord;
                if (0.12..=0.88).contains(&t) {
                    pts.push(pt);
                }
            }
            i = (i + 1) % n;
        }
        let line = Line::fit(&pts)?;
        let worst = pts.iter().map(|p| line.distance(*p)).fold(0.0, f64::max);
        // A faint card on a light cloth leaves a mask whose edges are a pixel or two
        // ragged; a disc's arc bulges far more (and fails the hull fill anyway).
        if worst > (0.03 * chord).max(2.5) {
            return None;
        }
        lines.push(line);
    }
    let mut corners = [Point::default(); 4];
    for k in 0..4 {
        let c = lines[(k + 3) % 4].intersect(&lines[k])?;
        let near = hull[idx[k]];
        let side = hull[idx[k]].dist(hull[idx[(k + 1) % 4]]);
        if c.dist(near) > 0.25 * side {
            return None;
        }
        corners[k] = c;
    }
    Some(corners)
}

/// The convex hull of a blob, in working pixels; `None` when the blob touches the
/// frame's edge (a card cut by it cannot be read reliably).
fn blob_hull<F: Fn(usize) -> bool>(mask: &Mask<F>, runs: &[Run]) -> Option<Vec<Point>> {
    let (w, h) = (mask.w as u32, mask.h as u32);
    // The hull only needs each row's outermost run ends (runs come row by row).
    let mut rows: Vec<(u32, u32, u32)> = Vec::with_capacity(runs.len());
    for r in runs {
        // A card cut by the frame's edge cannot be read reliably.
        if r.x0 == 0 || r.x1 >= w || r.y == 0 || r.y + 1 >= h {
            return None;
        }
        match rows.last_mut() {
            Some((y, x0, x1)) if *y == r.y => {
                *x0 = (*x0).min(r.x0);
                *x1 = (*x1).max(r.x1);
            }
            _ => rows.push((r.y, r.x0, r.x1)),
        }
    }
    // Each row's four corner points, sorted by x then y for the hull by a counting
    // sort on x: rows come in order of y, and the sort is stable.
    let mut next = vec![0usize; mask.w + 2];
    for &(_, x0, x1) in &rows {
        next[x0 as usize + 1] += 2;
        next[x1 as usize + 1] += 2;
    }
    for x in 1..next.len() {
        next[x] += next[x - 1];
    }
    let mut pts = vec![Point::default(); rows.len() * 4];
    for &(y, x0, x1) in &rows {
        for x in [x0, x1] {
            let at = &mut next[x as usize];
            pts[*at] = Point::new(f64::from(x), f64::from(y));
            pts[*at + 1] = Point::new(f64::from(x), f64::from(y) + 1.0);
            *at += 2;
        }
    }
    Some(convex_hull_of_sorted(pts))
}

/// Tests one blob by its convex hull; returns its quad when it looks like a card.
fn card_candidate<F: Fn(usize) -> bool>(
    mask: &Mask<F>,
    hull: &[Point],
    cfg: &LocaliserConfig,
) -> Option<Candidate> {
    let quad = Quad::from_cyclic(fit_sides(hull)?);
    let hull_area = signed_area(hull).abs();
    let area = quad.area();
    let frame_area = (mask.w * mask.h) as f64;
    if area < cfg.min_area_frac * frame_area || area > cfg.max_area_frac * frame_area {
        return None;
    }
    let fill = hull_area / area;
    if fill < cfg.hull_fill.0 || fill > cfg.hull_fill.1 {
        return None;
    }
    let aspect = quad.aspect();
    let row = cfg.min_row_aspect > 0.0 && aspect < cfg.aspect.0 && aspect >= cfg.min_row_aspect;
    if (aspect < cfg.aspect.0 && !row) || aspect > cfg.aspect.1 {
        return None;
    }
    if !card_angles(&quad, cfg) {
        return None;
    }
    if margin_white(mask, &quad) < cfg.min_margin_white {
        return None;
    }
    Some(Candidate {
        quad,
        slack: 0.0,
        row,
    })
}

/// Whether a quad's corners could be a card's: near right angles, or a card seen
/// sheared (a parallelogram, opposite angles alike) a little further from them.
fn card_angles(quad: &Quad, cfg: &LocaliserConfig) -> bool {
    let a = quad.angles();
    let skew = a.iter().map(|a| (a - 90.0).abs()).fold(0.0, f64::max);
    if skew <= cfg.max_angle_skew {
        return true;
    }
    skew <= cfg.max_sheared_skew
        && (a[0] - a[2]).abs() <= cfg.parallelogram_tolerance
        && (a[1] - a[3]).abs() <= cfg.parallelogram_tolerance
}

/// The fraction of points just inside the quad's edges that are in the mask: a
/// card has a white margin all round; a blob whose hull happens to be rectangular
/// (a bright patch of cloth with a hole) does not.
fn margin_white<F: Fn(usize) -> bool>(mask: &Mask<F>, quad: &Quad) -> f64 {
    let c = quad.centre();
    let (mut hit, mut total) = (0u32, 0u32);
    for i in 0..4 {
        let (a, b) = (quad.0[i], quad.0[(i + 1) % 4]);
        for k in 0..16 {
            let t = 0.1 + 0.8 * f64::from(k) / 15.0;
            let e = Point::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
            // Move 2 working pixels toward the centre.
            let d = e.dist(c).max(1e-9);
            let p = Point::new(e.x + (c.x - e.x) * 2.0 / d, e.y + (c.y - e.y) * 2.0 / d);
            total += 1;
            if mask.at(p.x, p.y) {
                hit += 1;
            }
        }
    }
    f64::from(hit) / f64::from(total.max(1))
}

/// A refined candidate in full-frame pixels with its edge support.
#[derive(Debug, Clone)]
struct Refined {
    quad: Quad,
    /// Fraction of the probes across the four sides that found a sharp edge on the
    /// fitted line: near 1 for a real card outline.
    support: f64,
    /// Brightness just inside the outline over brightness just outside it: a card
    /// is never much darker than the cloth beside it, a phone or a dark coaster is.
    inside_light: f64,
    /// The colour axis the sides were fitted on, where whiteness could not fit
    /// them ([`EdgeSignal::colour_axis`]); `None` for whiteness.
    axis: Option<ColourAxis>,
}

/// Keeps one outline per card. Outlines that swallow two or more smaller, separate
/// outlines that are at least as well supported (neighbouring cards merged through
/// a bright gap; `merged`, from [`swallowing`]) go first; then the best-supported
/// outline of each overlapping group wins (larger on a tie).
fn choose(cands: &[Refined], merged: &[bool]) -> Vec<Quad> {
    let keep: Vec<&Refined> = cands
        .iter()
        .zip(merged)
        .filter(|(_, m)| !**m)
        .map(|(c, _)| c)
        .collect();
    best_of_each_overlap(keep)
}

/// Whether a card candidate (not a row) already lies within `reach` working pixels
/// of `quad` at every corner: a mask tried after the others finds most of their
/// cards again, and each re-fit costs time.
fn found_already(cands: &[Candidate], quad: &Quad, reach: f64) -> bool {
    cands
        .iter()
        .any(|o| !o.row && o.quad.corner_error(quad) <= reach)
}

/// One outline of each group of overlapping ones: the best supported, then the
/// larger.
fn best_of_each_overlap(mut cands: Vec<&Refined>) -> Vec<Quad> {
    cands.sort_by(|a, b| {
        b.support
            .total_cmp(&a.support)
            .then(b.quad.area().total_cmp(&a.quad.area()))
    });
    let mut out: Vec<Quad> = Vec::new();
    for c in cands {
        if !out.iter().any(|q| q.overlaps(&c.quad)) {
            out.push(c.quad);
        }
    }
    out
}

/// An outline holding the centre of another counts it as a part of itself when
/// the other has less than this share of its area: two neighbours merged through a
/// gap each have about half of it.
const PART_SHARE: f64 = 0.7;

/// The card outlines [`choose`] dropped (`kept`: those it kept) that hold the centre
/// of a kept part ([`PART_SHARE`]), one of each overlapping group (the best
/// supported, then the larger); short rows (`merged` outlines of a row's
/// proportions) are read as rows and left out.
fn enclosing(cands: &[Refined], merged: &[bool], kept: &[Quad]) -> Vec<Quad> {
    let dropped: Vec<&Refined> = cands
        .iter()
        .zip(merged)
        .filter(|(c, m)| {
            let short_row = **m && c.quad.aspect() < ROW_WHOLE_ASPECT;
            !short_row && !kept.contains(&c.quad)
        })
        .map(|(c, _)| c)
        .filter(|c| {
            kept.iter()
                .any(|k| k.area() < PART_SHARE * c.quad.area() && c.quad.contains(k.centre()))
        })
        .collect();
    best_of_each_overlap(dropped)
}

/// Which outlines swallow two or more smaller, separate outlines that are at least
/// as well supported: neighbouring cards merged through a bright gap, or a short
/// row of overlapping cards whose strips the masks also cut out.
fn swallowing(cands: &[Refined]) -> Vec<bool> {
    cands
        .iter()
        .map(|c| {
            let inner: Vec<&Refined> = cands
                .iter()
                .filter(|o| {
                    o.quad.area() < PART_SHARE * c.quad.area()
                        && o.support >= 0.95 * c.support
                        && c.quad.contains(o.quad.centre())
                })
                .collect();
            inner
                .iter()
                .enumerate()
                .any(|(i, a)| inner[i + 1..].iter().any(|b| !a.quad.overlaps(&b.quad)))
        })
        .collect()
}

/// Keeps the row outlines: those [`choose`] keeps (a covered card's strip that the
/// masks cut out on its own is one), and besides them the largest outline of each
/// group that holds two or more smaller ones, which `choose` takes for separate
/// outlines merged: in a spread hand that is the whole row, its strips inside it.
fn choose_rows(rows: Vec<Refined>) -> Vec<Quad> {
    let mut wholes: Vec<Quad> = rows
        .iter()
        .filter(|c| {
            rows.iter()
                .filter(|o| {
                    o.quad.area() < PART_SHARE * c.quad.area() && c.quad.contains(o.quad.centre())
                })
                .count()
                >= 2
        })
        .map(|c| c.quad)
        .collect();
    wholes.sort_by(|a, b| b.area().total_cmp(&a.area()));
    let merged = swallowing(&rows);
    let mut out = choose(&rows, &merged);
    let mut kept: Vec<Quad> = Vec::new();
    for q in wholes {
        if !kept.iter().any(|k| k.overlaps(&q)) {
            kept.push(q);
        }
    }
    for q in kept {
        if !out.iter().any(|o| o.corner_error(&q) < 4.0) {
            out.push(q);
        }
    }
    out
}

/// The search of mask after mask for blobs: the bounds every mask shares, and the
/// fans found so far (card outlines go where each mask's caller says: some masks'
/// outlines are adjusted or filtered before they are kept).
struct BlobSearch<'a> {
    cfg: &'a LocaliserConfig,
    /// The fewest and most pixels of a blob worth testing.
    sizes: (u32, u32),
    fans: Vec<Vec<FanCard>>,
}

impl BlobSearch<'_> {
    /// Adds the card-like blobs of one mask to `out`, and to the fans those that
    /// are neither a card nor too small and whose hull holds an arc of corners.
    fn candidates<F: Fn(usize) -> bool>(&mut self, mask: &Mask<F>, out: &mut Vec<Candidate>) {
        self.candidates_with(mask, out, true);
    }

    /// [`BlobSearch::candidates`], adding fans only when `fans_too`.
    fn candidates_with<F: Fn(usize) -> bool>(
        &mut self,
        mask: &Mask<F>,
        out: &mut Vec<Candidate>,
        fans_too: bool,
    ) {
        let cfg = self.cfg;
        let frame_area = (mask.w * mask.h) as f64;
        for blob in blobs(mask, self.sizes.0, self.sizes.1) {
            let Some(hull) = blob_hull(mask, &blob) else {
                continue;
            };
            if let Some(c) = card_candidate(mask, &hull, cfg) {
                out.push(c);
            } else if fans_too
                && signed_area(&hull).abs() >= FAN_MIN_CARDS * cfg.min_area_frac * frame_area
            {
                let fan = fan::fan_cards(&hull, cfg.min_area_frac * frame_area);
                if !fan.is_empty() {
                    self.fans.push(fan);
                }
            }
        }
    }
}

/// A blob is tried as a fan when its hull is at least this many of the smallest
/// cards large.
const FAN_MIN_CARDS: f64 = 2.0;

/// One fan per group of fans found in several masks: the one with the most cards
/// (a mask that cuts the fan short or adds its shadow finds fewer corners on one
/// circle), in full-frame pixels.
fn choose_fans(mut fans: Vec<Vec<FanCard>>, scale: f64) -> Vec<Vec<FanCard>> {
    fans.sort_by_key(|f| std::cmp::Reverse(f.len()));
    let mut out: Vec<Vec<FanCard>> = Vec::new();
    for fan in fans {
        let fan: Vec<FanCard> = fan
            .into_iter()
            .map(|c| FanCard {
                quad: c.quad.scaled(scale),
                ..c
            })
            .collect();
        let same = |o: &Vec<FanCard>| {
            o.iter()
                .any(|c| fan.iter().any(|d| c.quad.overlaps(&d.quad)))
        };
        if !out.iter().any(same) {
            out.push(fan);
        }
    }
    out
}

/// Finds the cards in a frame: their quads in full-frame pixels, in the contract's
/// corner order, sorted left to right by centre.
pub fn locate_cards(frame: &RgbImage, cfg: &LocaliserConfig) -> Vec<Quad> {
    locate(frame, cfg).cards
}

/// What the localiser finds in a frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Located {
    /// Card outlines in the contract's corner order, left to right by centre.
    /// Besides the outlines found, the cards that fill a row of touching cards
    /// where the found ones leave a stretch of it as long as whole cards
    /// ([`super::touching::fill_gaps`]).
    pub cards: Vec<Quad>,
    /// Outlines longer and thinner than any card (short/long side ratio from
    /// `min_row_aspect` up to `aspect.0`) with a card's straight sides and white
    /// margin: rows of overlapping cards, for the recognizer to split
    /// (`vision::spread`). Also rows put together from outlines that share sides
    /// (strips, groups of them, the card on top), up to a whole card's
    /// proportions. A row whose card outlines of a whole card's proportions span
    /// most of it is separate cards merged through a gap and is left out. A whole
    /// row may come with its strips, found on their own. Corners clockwise from
    /// the one nearest the frame's top-left; left to right by centre.
    pub rows: Vec<Quad>,
    /// Outlines of a card's proportions (short/long side ratio from `aspect.0` up
    /// to 0.6) that hold two or more separate, well-supported
    /// smaller outlines, and that no card or row outline as large overlaps: either
    /// a short row of overlapping cards (groups of its strips and the card on top
    /// are the smaller outlines) or separate cards merged through the gaps between
    /// them. The localiser cannot tell them apart; the recognizer can, by whether
    /// the smaller outlines read as cards. Corner order and sorting as `rows`.
    pub short_rows: Vec<Quad>,
    /// Fans of cards ([`super::fan`]): blobs that are neither a card nor a row whose
    /// hull holds an arc of card corners, each card from the bottom one to the top
    /// one, in full-frame pixels.
    pub fans: Vec<Vec<FanCard>>,
    /// Card outlines dropped for smaller outlines inside them: a court card whose
    /// art the masks cut into pieces of a card's shape (each better supported than
    /// the card's own edge, or two of them taken for merged neighbours), or
    /// neighbours merged through a gap, or a sheet of paper with a card on it. The
    /// localiser cannot tell these apart; the recognizer reads one only when every
    /// outline inside it reads as no card. One of each overlapping group (the best
    /// supported, then the larger); short rows are not among them. Corner order
    /// as `cards`.
    pub enclosing: Vec<Quad>,
}

/// Finds the cards in a frame, and the rows of overlapping cards ([`Located`]).
pub fn locate(frame: &RgbImage, cfg: &LocaliserConfig) -> Located {
    if frame.width() < 8 || frame.height() < 8 {
        return Located::default();
    }
    let work = WorkImage::new(frame, cfg.work_long_side);
    if work.w < 3 || work.h < 3 {
        // A frame a few pixels thin (8 × 8000, say) shrinks to next to nothing at
        // the working scale: no card fits in it.
        return Located::default();
    }
    let frame_area = (work.w * work.h) as f64;
    let min_px = (cfg.min_area_frac * frame_area * 0.3) as u32;
    let max_px = (cfg.max_area_frac * frame_area * 1.1) as u32;
    let mut cands = Vec::new();
    let mut search = BlobSearch {
        cfg,
        sizes: (min_px, max_px),
        fans: Vec::new(),
    };
    let (w, h) = (work.w, work.h);
    let data = &work.data;
    for &level in &cfg.levels {
        let on = move |i: usize| data[i] >= level;
        search.candidates(&Mask { w, h, on }, &mut cands);
    }
    // The neutral-paper and enclosed-outline masks cost time, and on a dark or
    // coloured cloth the other masks already find every card they would.
    let light = work.median_whiteness() >= cfg.light_cloth_whiteness;
    if !cfg.local_margins.is_empty() {
        let r = ((cfg.local_radius_frac * w.max(h) as f64).round() as usize).max(2);
        let mean = work.local_mean(r);
        for &m in &cfg.local_margins {
            let on = |i: usize| data[i] >= mean[i].saturating_add(m);
            search.candidates(&Mask { w, h, on }, &mut cands);
        }
        if !cfg.neutral_spreads.is_empty() && light {
            let rgb = &work.rgb;
            let margin = cfg.local_margins.iter().copied().min().unwrap_or(0);
            for &s in &cfg.neutral_spreads {
                let on = |i: usize| {
                    let [r, g, b] = rgb[i];
                    r.max(g).max(b) - r.min(g).min(b) <= s
                        && data[i] >= mean[i].saturating_add(margin)
                };
                search.candidates(&Mask { w, h, on }, &mut cands);
            }
        }
    }
    // The cloth's colour is taken from a window of 144 working pixels (16-pixel
    // cells, 9 × 9 of them). A hand spread out in a long row fills most of such a
    // window, and in the other masks the cards' edges cut it into strips: once
    // two or more strips are found, the colour is also taken from a window of
    // 416 (32-pixel cells, 13 × 13), where the whole row stands out. Its blob
    // holds the row's drop shadow, so its edges are searched for inward as for
    // enclosed outlines.
    for (cell, k, wide) in [(16, 4, false), (32, 6, true)] {
        if cfg.cloth_distances.is_empty() || (wide && cands.iter().filter(|c| c.row).count() < 2) {
            break;
        }
        let dist = work.cloth_distance(cell, k);
        for &d in &cfg.cloth_distances {
            let on = |i: usize| dist[i] >= d;
            let first = cands.len();
            search.candidates(&Mask { w, h, on }, &mut cands);
            for c in cands[first..].iter_mut().filter(|_| wide) {
                c.slack = cfg.outline_slack * c.quad.area().sqrt();
            }
        }
        if wide || cfg.opening_radius == 0 {
            continue;
        }
        for &d in &cfg.opened_cloth_distances {
            let far = |i: usize| dist[i] >= d;
            let open = opened(&Mask { w, h, on: far }, cfg.opening_radius);
            let on = |i: usize| open[i];
            let mut found = Vec::new();
            search.candidates(&Mask { w, h, on }, &mut found);
            // A card the other masks gave already comes out within the opening's
            // reach of its outline there: it is not re-fitted again.
            let reach = cfg.opening_radius as f64 + 1.0;
            let new: Vec<Candidate> = found
                .into_iter()
                .filter(|c| !c.row && !found_already(&cands, &c.quad, reach))
                .collect();
            cands.extend(new);
        }
    }
    // Enclosed outlines on any cloth: on a light one whole rows too; on others
    // cards only, since there the other masks already cut rows well and the
    // enclosed blob of a row (its shadow with it) moves their outlines. Also
    // outlines of colour steps, at lower steps on a light cloth (a cream card on
    // a pale one) than on others (a card in shadow on dark wood).
    let outline_steps = if light {
        &cfg.outline_steps
    } else {
        &cfg.other_cloth_outline_steps
    };
    let colour_steps: &[i16] = if light {
        &cfg.outline_colour_steps
    } else {
        &cfg.other_cloth_outline_colour_steps
    };
    for (steps_of, levels, fans_too) in [
        (
            WorkImage::steps as fn(&WorkImage) -> Vec<i16>,
            outline_steps.as_slice(),
            true,
        ),
        // On a cloth that is not light, the colour outlines add cards only: the
        // fan blobs they enclose hold a hand's shadow too, and a fan found there
        // would stand in for the other masks' tighter one.
        (WorkImage::colour_steps, colour_steps, light),
    ] {
        if levels.is_empty() {
            continue;
        }
        let steps = steps_of(&work);
        for &step in levels {
            let inside = work.enclosed(&steps, step);
            let on = |i: usize| inside[i];
            let mut found = Vec::new();
            search.candidates_with(&Mask { w, h, on }, &mut found, fans_too);
            for mut c in found {
                if c.row && !light {
                    continue;
                }
                if !c.row {
                    c.slack = cfg.outline_slack * c.quad.area().sqrt();
                }
                // On other cloths the other masks have nearly always found the
                // card already: an outline that differs from one of theirs by
                // no more than its shadow is not re-fitted again (a wide re-fit
                // costs about a fifth of a millisecond).
                let known = !light && found_already(&cands, &c.quad, c.slack + 1.0);
                if !known {
                    cands.push(c);
                }
            }
        }
    }
    // Many levels find the same card: refine each distinct outline once.
    let mut distinct: Vec<Candidate> = Vec::new();
    for c in cands {
        if !distinct.iter().any(|d| d.quad.corner_error(&c.quad) < 1.0) {
            distinct.push(c);
        }
    }
    let by_whiteness = EdgeSignal::whiteness(frame);
    let (row_cands, distinct): (Vec<Candidate>, Vec<Candidate>) =
        distinct.into_iter().partition(|c| c.row);
    // Re-fits a candidate on the full frame (`slack`: how far inside its quad the
    // edge may lie, in working pixels); `None` when the outline is not a card's.
    let frame_px = f64::from(frame.width()) * f64::from(frame.height());
    let fit_on = |signal: &EdgeSignal<'_>, coarse: &Quad, slack: f64| {
        let s = work.scale;
        let mut r = refine(signal, coarse, s, slack * s);
        if slack > 0.0 && r.support > 0.0 {
            // The shadow-wide search found the outline roughly: search again
            // from there as for any other candidate.
            r = refine(signal, &r.quad, s, 0.0);
        }
        // The shadow-wide search may also pull the sides in onto something
        // inside a small enclosed shape (a ring on a dotted cloth): an outline
        // must still be a card's size once re-fitted.
        let big_enough = r.quad.area() >= cfg.min_area_frac * frame_px;
        (big_enough && r.support >= cfg.min_edge_support && r.inside_light >= cfg.min_inside_light)
            .then_some(r)
    };
    let fit = |c: &Candidate, slack: f64| {
        let s = work.scale;
        let coarse = c.quad.scaled(s);
        let found = fit_on(&by_whiteness, &coarse, slack);
        if found.is_some() || !cfg.refit_on_colour {
            return found;
        }
        // A card may be barely whiter than the cloth (cream on pale green, ivory
        // on pink), or its art may reach its edge in a colour whiteness scores as
        // low as a dark cloth: its sides are fitted again on the colour axis from
        // the cloth to its paper.
        let axis = by_whiteness.colour_axis(&coarse, edge_reach(s, slack * s))?;
        fit_on(&axis, &coarse, slack)
    };
    let mut refined: Vec<Refined> = distinct.iter().filter_map(|c| fit(c, c.slack)).collect();
    if !light {
        let on_whiteness: Vec<Quad> = refined
            .iter()
            .filter(|r| r.axis.is_none())
            .map(|r| r.quad)
            .collect();
        refined.retain(|r| r.axis.is_none() || !on_whiteness.iter().any(|q| q.overlaps(&r.quad)));
    }
    // A second, narrower pass from the refined outline settles corners that the
    // coarse working scale left a few pixels off, on the signal the outline was
    // fitted on.
    let axes = colour_axes(&refined);
    let settle = |q: Quad, axes: &[(Quad, ColourAxis)]| {
        let signal = EdgeSignal {
            frame,
            towards_paper: axes.iter().find(|(r, _)| *r == q).map(|(_, a)| *a),
        };
        let again = refine(&signal, &q, 1.0, 0.0);
        if again.support > 0.0 {
            again.quad
        } else {
            q
        }
    };
    let outlines: Vec<Quad> = refined.iter().map(|r| r.quad).collect();
    let merged = swallowing(&refined);
    let short_rows: Vec<Quad> = refined
        .iter()
        .zip(&merged)
        .filter(|(r, m)| cfg.min_row_aspect > 0.0 && **m && r.quad.aspect() < ROW_WHOLE_ASPECT)
        .map(|(r, _)| settle(r.quad, &axes))
        .collect();
    let kept = choose(&refined, &merged);
    let enclosing: Vec<Quad> = enclosing(&refined, &merged, &kept)
        .into_iter()
        .map(|q| settle(q, &axes))
        .collect();
    let mut cards: Vec<Quad> = kept.into_iter().map(|q| settle(q, &axes)).collect();
    cards.sort_by(|a, b| a.centre().x.total_cmp(&b.centre().x));
    // Rows are re-fitted without the enclosed outlines' slack (they are not
    // given any), but with the wide cloth window's.
    let rows: Vec<Refined> = row_cands.iter().filter_map(|c| fit(c, c.slack)).collect();
    let row_axes = colour_axes(&rows);
    let mut rows: Vec<Quad> = choose_rows(rows)
        .into_iter()
        .map(|q| settle(q, &row_axes))
        .collect();
    // A row the masks gave only in pieces (strips, groups of strips, the card on
    // top) is put together from them, up to a whole card's proportions.
    if cfg.min_row_aspect > 0.0 {
        let pieces: Vec<Quad> = cards.iter().chain(&rows).copied().collect();
        for joined in joined_rows(&pieces) {
            let aspect = joined.aspect();
            let height = joined.shortest_side();
            let known = rows
                .iter()
                .any(|r| r.corner_error(&joined) < SAME_ROW * height);
            if aspect >= cfg.min_row_aspect && aspect < ROW_WHOLE_ASPECT && !known {
                rows.push(joined);
            }
        }
    }
    rows.retain(|r| !merged_cards(r, &cards));
    // An outline of a card's proportions overlapping a row or card outline as
    // large is part of that row (a group of its strips with the card on top), or
    // that outline itself (a kept outline of nearly the same corners).
    let mut short_rows: Vec<Quad> = short_rows
        .into_iter()
        .filter(|q| {
            !rows
                .iter()
                .chain(&cards)
                .any(|r| r.area() >= SHORT_ROW_PART * q.area() && r.overlaps(q))
        })
        .collect();
    short_rows.sort_by(|a, b| a.centre().x.total_cmp(&b.centre().x));
    rows.sort_by(|a, b| a.centre().x.total_cmp(&b.centre().x));
    // A row of touching cards whose outline was dropped for the cards found in
    // it on their own may hold a card found in no mask alone.
    cards.extend(touching::fill_gaps(&outlines, &cards));
    cards.sort_by(|a, b| a.centre().x.total_cmp(&b.centre().x));
    let fans = choose_fans(search.fans, work.scale);
    Located {
        cards,
        rows,
        short_rows,
        fans,
        enclosing,
    }
}

/// The outlines fitted on a colour axis, with their axes.
fn colour_axes(refined: &[Refined]) -> Vec<(Quad, ColourAxis)> {
    refined
        .iter()
        .filter_map(|r| r.axis.map(|a| (r.quad, a)))
        .collect()
}

/// A row outline at least this share of a short row's area that overlaps it
/// holds it (the short row is a part of the row) or is the same row.
const SHORT_ROW_PART: f64 = 0.7;

/// Two row outlines whose corners all lie within this fraction of the row's
/// height of each other are one row.
const SAME_ROW: f64 = 0.1;

/// Outlines joined where they share a side ([`join`]), each as far as it goes:
/// the masks cut a spread row at the edges between its cards, and where no mask
/// gives the whole row, its pieces (each strip, or a few together, and the card
/// on top) lie side by side, each one's side against the next one's along an
/// edge. Only joins of two or more pieces are returned.
fn joined_rows(pieces: &[Quad]) -> Vec<Quad> {
    let mut used = vec![false; pieces.len()];
    let mut out = Vec::new();
    for start in 0..pieces.len() {
        if used[start] {
            continue;
        }
        let mut whole = pieces[start];
        let mut joined = false;
        while let Some((j, q)) = (0..pieces.len())
            .filter(|&j| j != start && !used[j])
            .find_map(|j| join(&whole, &pieces[j]).map(|q| (j, q)))
        {
            used[j] = true;
            whole = q;
            joined = true;
        }
        if joined {
            used[start] = true;
            out.push(whole);
        }
    }
    out
}

/// Two sides shared by neighbouring pieces are as long as each other within this
/// fraction...
const JOIN_LENGTH: f64 = 0.15;
/// ...their midpoints lie within this fraction of their length or within
/// [`JOIN_GAP_PX`], whichever is more (the dark line of the edge between them
/// lies between the pieces)...
const JOIN_GAP: f64 = 0.05;
/// ...or within this many pixels, for short pieces...
const JOIN_GAP_PX: f64 = 6.0;
/// ...and they are parallel within this many degrees.
const JOIN_ANGLE: f64 = 5.0;

/// The outline of two pieces side by side that share a side (the same length
/// within [`JOIN_LENGTH`], midpoints within [`JOIN_GAP`] of it or within
/// [`JOIN_GAP_PX`], parallel within [`JOIN_ANGLE`]): their other four corners.
/// `None` when they share no side, or when the joined outline is smaller than
/// either (the pieces overlap rather than lie side by side).
fn join(a: &Quad, b: &Quad) -> Option<Quad> {
    for i in 0..4 {
        let (a0, a1) = (a.0[i], a.0[(i + 1) % 4]);
        let la = a.side_length(i);
        if la < 1.0 {
            continue;
        }
        for j in 0..4 {
            let (b0, b1) = (b.0[j], b.0[(j + 1) % 4]);
            let lb = b.side_length(j);
            if (la - lb).abs() > JOIN_LENGTH * la
                || a0.midpoint(a1).dist(b0.midpoint(b1)) > (JOIN_GAP * la).max(JOIN_GAP_PX)
            {
                continue;
            }
            // Both outlines run clockwise: a shared side is walked in opposite
            // directions.
            let cos = ((a1.x - a0.x) * (b1.x - b0.x) + (a1.y - a0.y) * (b1.y - b0.y)) / (la * lb);
            if cos > -JOIN_ANGLE.to_radians().cos() {
                continue;
            }
            // Round the joined outline: a's two corners off the shared side, then
            // b's.
            let q = Quad::from_cyclic([
                a.0[(i + 2) % 4],
                a.0[(i + 3) % 4],
                b.0[(j + 2) % 4],
                b.0[(j + 3) % 4],
            ]);
            if q.area() < a.area().max(b.area()) {
                continue;
            }
            return Some(q);
        }
    }
    None
}

/// Whether a row outline is separate cards merged through the gaps between them
/// rather than a spread hand: it holds the centres of two or more card outlines of
/// a whole card's proportions ([`ROW_WHOLE_ASPECT`]), and together they span at
/// least [`MERGED_CARDS_SHARE`] of its length. In a spread hand the masks also cut
/// out groups of a few strips, which can have a card's proportions too; they span
/// only parts of the row (on the spread validation rows, 22–77 % of it).
fn merged_cards(row: &Quad, cards: &[Quad]) -> bool {
    let whole: Vec<&Quad> = cards
        .iter()
        .filter(|c| c.aspect() >= ROW_WHOLE_ASPECT && row.contains(c.centre()))
        .collect();
    whole.len() >= 2 && covered_share(row, &whole) >= MERGED_CARDS_SHARE
}

/// The share of a row's length that separate cards merged into it span at least:
/// cards laid side by side leave only their gaps uncovered.
const MERGED_CARDS_SHARE: f64 = 0.8;

/// The share of a row's length that the given outlines span, measured along the
/// row's long axis (their corners projected on it, the spans joined).
fn covered_share(row: &Quad, outlines: &[&Quad]) -> f64 {
    let [a, b, c, d] = row.0;
    let s = |i: usize| row.side_length(i);
    let axis = if s(0) + s(2) >= s(1) + s(3) {
        Segment {
            from: d.midpoint(a),
            to: b.midpoint(c),
        }
    } else {
        Segment {
            from: a.midpoint(b),
            to: c.midpoint(d),
        }
    };
    let mut spans: Vec<(f64, f64)> = Vec::with_capacity(outlines.len());
    for q in outlines {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in q.0 {
            // A row of no length has nothing to cover.
            let Some((t, _)) = axis.project(p) else {
                return 0.0;
            };
            (lo, hi) = (lo.min(t), hi.max(t));
        }
        spans.push((lo.clamp(0.0, 1.0), hi.clamp(0.0, 1.0)));
    }
    spans.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (mut total, mut end) = (0.0, 0.0f64);
    for (lo, hi) in spans {
        if hi > end {
            total += hi - lo.max(end);
            end = hi;
        }
    }
    total
}

/// A card outline at least this square (short over long side) may be a whole card
/// ([`merged_cards`]); a spread hand's strips are thinner, though a few of them
/// together may not be.
const ROW_WHOLE_ASPECT: f64 = 0.6;

/// The full frame's edge signal for the side search: whiteness, or a colour axis.
#[derive(Clone, Copy)]
struct EdgeSignal<'a> {
    frame: &'a RgbImage,
    /// Where set, the signal is the colour's position along the line from the
    /// cloth's colour to the paper's instead of whiteness.
    towards_paper: Option<ColourAxis>,
}

/// A line in colour space from a cloth's colour toward a card's paper, as a
/// unit vector: a pixel's position along it is its distance from the cloth's
/// colour in the paper's direction (0 on the cloth, the two colours' distance
/// on the paper), signed like whiteness (higher inside the card).
#[derive(Debug, Clone, Copy, PartialEq)]
struct ColourAxis {
    cloth: [f32; 3],
    unit: [f32; 3],
}

/// The smallest distance between paper and cloth colours (Euclidean, R, G, B)
/// worth a colour axis: below it the step drowns in a webcam's noise.
const MIN_AXIS_CONTRAST: f32 = 20.0;

impl<'a> EdgeSignal<'a> {
    fn whiteness(frame: &'a RgbImage) -> EdgeSignal<'a> {
        EdgeSignal {
            frame,
            towards_paper: None,
        }
    }

    /// The edge signal of a coarse outline that whiteness does not set apart
    /// from its cloth (a cream card on a pale green cloth): the colour axis
    /// from the per-channel median colour `reach` outside its sides to that
    /// `reach` inside them. `None` when the two are too alike.
    fn colour_axis(&self, coarse: &Quad, reach: f64) -> Option<EdgeSignal<'a>> {
        let (w, h) = self.frame.dimensions();
        let q = &coarse.0;
        let (mut inside, mut outside): (Vec<[u8; 3]>, Vec<[u8; 3]>) = (Vec::new(), Vec::new());
        for i in 0..4 {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            let len = a.dist(b).max(1e-9);
            let (nx, ny) = ((b.y - a.y) / len, -(b.x - a.x) / len);
            for (bx, by) in side_probes(a, b) {
                for (sign, out) in [(-1.0, &mut inside), (1.0, &mut outside)] {
                    let (x, y) = (bx + sign * nx * reach, by + sign * ny * reach);
                    if x >= 0.0 && y >= 0.0 && x < f64::from(w) && y < f64::from(h) {
                        out.push(self.frame.get_pixel(x as u32, y as u32).0);
                    }
                }
            }
        }
        let median = |v: &[[u8; 3]]| -> Option<[f32; 3]> {
            if v.len() < 16 {
                return None;
            }
            let mid = v.len() / 2;
            Some(std::array::from_fn(|c| {
                let mut ch: Vec<u8> = v.iter().map(|p| p[c]).collect();
                f32::from(*ch.select_nth_unstable(mid).1)
            }))
        };
        let (paper, cloth) = (median(&inside)?, median(&outside)?);
        let d: [f32; 3] = std::array::from_fn(|c| paper[c] - cloth[c]);
        let norm = d.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm < MIN_AXIS_CONTRAST {
            return None;
        }
        Some(EdgeSignal {
            frame: self.frame,
            towards_paper: Some(ColourAxis {
                cloth,
                unit: d.map(|v| v / norm),
            }),
        })
    }

    /// The edge signal at a pixel: the localiser's whiteness score (`min − (max
    /// − min)` of R, G, B), in which a card's edge is a step on nearly any cloth,
    /// even one as bright as the card; or the position along the colour axis.
    fn value(&self, x: u32, y: u32) -> f32 {
        let at = (y as usize * self.frame.width() as usize + x as usize) * 3;
        let p = &self.frame.as_raw()[at..at + 3];
        match &self.towards_paper {
            None => f32::from(whiteness(p[0].into(), p[1].into(), p[2].into())),
            Some(axis) => (0..3)
                .map(|c| (f32::from(p[c]) - axis.cloth[c]) * axis.unit[c])
                .sum(),
        }
    }

    /// The brightest channel at a pixel (nearest), `None` off the frame.
    fn brightness(&self, x: f64, y: f64) -> Option<f64> {
        let (w, h) = self.frame.dimensions();
        if x < 0.0 || y < 0.0 || x >= f64::from(w) || y >= f64::from(h) {
            return None;
        }
        let p = self.frame.get_pixel(x as u32, y as u32);
        Some(f64::from(p[0].max(p[1]).max(p[2])))
    }

    /// Bilinear sample at pixel coordinates; `None` off the frame.
    fn sample(&self, x: f64, y: f64) -> Option<f32> {
        let (w, h) = self.frame.dimensions();
        if x < 0.0 || y < 0.0 || x > f64::from(w - 1) || y > f64::from(h - 1) {
            return None;
        }
        // Both are non-negative here, so truncation is the floor (and no libm call).
        let (x0, y0) = (x as u32, y as u32);
        let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
        let (fx, fy) = ((x - f64::from(x0)) as f32, (y - f64::from(y0)) as f32);
        let top = self.value(x0, y0) * (1.0 - fx) + self.value(x1, y0) * fx;
        let bot = self.value(x0, y1) * (1.0 - fx) + self.value(x1, y1) * fx;
        Some(top * (1.0 - fy) + bot * fy)
    }
}

/// Re-fits each side of a coarse quad on the full-resolution frame: along the side,
/// finds the strongest grey-level step across it, fits a straight line through those
/// points, and takes the corners where neighbouring lines cross. A side that cannot
/// be re-fitted keeps its coarse line; a corner that moves implausibly far keeps its
/// coarse position. The support is the fraction of probes on the fitted lines.
/// `slack` (full-frame pixels) widens the search inwards and the corners' leeway,
/// for a coarse quad known to lie outside the card by up to that much.
fn refine(signal: &EdgeSignal<'_>, coarse: &Quad, scale: f64, slack: f64) -> Refined {
    let reach = edge_reach(scale, slack);
    // The slack says how far outside the card the coarse quad may lie: the edge
    // is searched for that much further in, never further out, where the border
    // of a card lying close beside it (a dark line with pale cloth beyond) is a
    // step of the card edge's sign.
    let outward = edge_reach(scale, 0.0);
    let step = 0.5;
    // Steps over two pixels (four half-pixel samples) in the wide first search,
    // over one in the narrow final one.
    let half_base = if scale > 1.0 { 2 } else { 1 };
    let q = &coarse.0;
    let mut lines: Vec<Option<Line>> = Vec::with_capacity(4);
    let mut on_line = 0usize;
    let (mut light_in, mut light_out) = (0.0f64, 0.0f64);
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let len = a.dist(b);
        if len < 4.0 {
            return Refined {
                quad: *coarse,
                support: 0.0,
                inside_light: 0.0,
                axis: signal.towards_paper,
            };
        }
        let (dx, dy) = ((b.x - a.x) / len, (b.y - a.y) / len);
        // Outward normal of a clockwise-on-screen polygon.
        let (nx, ny) = (dy, -dx);
        let mut pts = Vec::with_capacity(PROBES);
        for (bx, by) in side_probes(a, b) {
            let found = edge_offset(
                signal,
                (bx, by),
                (nx, ny),
                (reach, outward),
                step,
                half_base,
                slack > 0.0,
            );
            if let Some(s) = found {
                pts.push(Point::new(bx + nx * s, by + ny * s));
            }
            let inner = signal.brightness(bx - nx * reach, by - ny * reach);
            let outer = signal.brightness(bx + nx * reach, by + ny * reach);
            if let (Some(i), Some(o)) = (inner, outer) {
                light_in += i;
                light_out += o;
            }
        }
        let line = robust_line(&pts);
        if let Some(l) = &line {
            on_line += pts.iter().filter(|p| l.distance(**p) <= 1.0).count();
        }
        lines.push(line.or_else(|| Line::through(a, b)));
    }
    let limit = 3.0 * scale + 4.0 + 1.5 * slack;
    let mut kept_coarse = 0;
    let corners: [Point; 4] = std::array::from_fn(|i| {
        let before = &lines[(i + 3) % 4];
        let after = &lines[i];
        let fine = match (before, after) {
            (Some(l1), Some(l2)) => l1.intersect(l2).filter(|p| p.dist(q[i]) <= limit),
            _ => None,
        };
        fine.unwrap_or_else(|| {
            kept_coarse += 1;
            q[i]
        })
    });
    // A corner that could not be re-fitted is a sign of a poor outline: such
    // candidates lose against a clean one of the same card.
    let support = on_line as f64 / (4 * PROBES) as f64 * 0.75f64.powi(kept_coarse);
    Refined {
        quad: Quad::from_cyclic(corners),
        support,
        inside_light: light_in / light_out.max(1.0),
        axis: signal.towards_paper,
    }
}

/// How many points along each side [`refine`] probes for its edge.
const PROBES: usize = 24;

/// The points along the side from `a` to `b` where its edge is probed: [`PROBES`]
/// of them, evenly spread over the side less its last 12 % at either end, where
/// a card's corner is rounded.
fn side_probes(a: Point, b: Point) -> impl Iterator<Item = (f64, f64)> {
    (0..PROBES).map(move |k| {
        let t = 0.12 + 0.76 * k as f64 / (PROBES - 1) as f64;
        (a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
    })
}

/// How far across a side [`refine`] searches for its edge (full-frame pixels):
/// a few working pixels, and the slack of an outline known to lie outside the
/// card.
fn edge_reach(scale: f64, slack: f64) -> f64 {
    2.5 * scale + 2.0 + slack
}

/// The offset along the normal (from `-reach`, inside, to `outward`, outside) of the
/// strongest grey-level step, with sub-sample precision.
///
/// A cheap webcam's frame is noisy and often out of focus: each profile sample is
/// the mean of three taps spread along the edge (a pixel apart), and the step is
/// measured across `2 × half_base` samples: two pixels in the first, wide search,
/// so that a blurred card edge on a cloth nearly as light as the card still stands
/// out of the noise; one pixel in the final, narrow one, for precision.
fn edge_offset(
    signal: &EdgeSignal<'_>,
    base: (f64, f64),
    normal: (f64, f64),
    (reach, outward): (f64, f64),
    step: f64,
    half_base: usize,
    outermost: bool,
) -> Option<f64> {
    let n = ((reach + outward) / step) as usize + 1;
    if n < 2 * half_base + 3 {
        return None;
    }
    let (tx, ty) = (-normal.1, normal.0);
    let mut vals = Vec::with_capacity(n);
    for k in 0..n {
        let s = -reach + step * k as f64;
        let (x, y) = (base.0 + normal.0 * s, base.1 + normal.1 * s);
        let sum = signal.sample(x, y)?
            + signal.sample(x + tx, y + ty)?
            + signal.sample(x - tx, y - ty)?;
        vals.push(sum / 3.0);
    }
    // Central differences, sign flipped so that bright-inside/dark-outside is
    // positive: that is the card's edge. The far edge of its drop shadow has the
    // other sign and must not attract the line.
    let grad: Vec<f32> = (half_base..n - half_base)
        .map(|k| vals[k - half_base] - vals[k + half_base])
        .collect();
    let (mut best, mut g) = grad
        .iter()
        .copied()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    if g < 10.0 {
        return None;
    }
    if outermost {
        // A wide search reaches well inside the card, where the corner index's
        // inner side is a bright-to-dark step too: the card's edge is the
        // outermost strong step.
        let strong = 0.5 * g;
        if let Some(k) = (0..grad.len()).rev().find(|&k| {
            grad[k] >= strong
                && grad.get(k + 1).map_or(true, |&r| grad[k] >= r)
                && (k == 0 || grad[k] >= grad[k - 1])
        }) {
            (best, g) = (k, grad[k]);
        }
    }
    let mut pos = best as f64;
    if best > 0 && best + 1 < grad.len() {
        let (l, c, r) = (
            f64::from(grad[best - 1]),
            f64::from(g),
            f64::from(grad[best + 1]),
        );
        let den = l - 2.0 * c + r;
        if den.abs() > 1e-9 {
            pos += (0.5 * (l - r) / den).clamp(-0.5, 0.5);
        }
    }
    Some(-reach + step * (pos + half_base as f64))
}

/// A line fit that drops points far from a first fit and fits again.
fn robust_line(pts: &[Point]) -> Option<Line> {
    if pts.len() < 8 {
        return None;
    }
    let first = Line::fit(pts)?;
    let mut res: Vec<f64> = pts.iter().map(|p| first.distance(*p)).collect();
    res.sort_by(f64::total_cmp);
    let cut = (res[res.len() / 2] * 3.0).max(1.0);
    let kept: Vec<Point> = pts
        .iter()
        .copied()
        .filter(|p| first.distance(*p) <= cut)
        .collect();
    if kept.len() < 8 {
        return None;
    }
    Line::fit(&kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::geometry::Homography;
    use image::Rgb;

    /// A working image of pseudo-random whiteness in the map's whole range
    /// (negative for colours), from a fixed linear congruential sequence.
    fn noisy_work(w: usize, h: usize, seed: u64) -> WorkImage {
        let mut state = seed;
        let data = (0..w * h)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) % 511) as i16 - 255
            })
            .collect();
        WorkImage {
            w,
            h,
            scale: 1.0,
            data,
            rgb: vec![[0; 3]; w * h],
        }
    }

    #[test]
    fn a_card_sheared_by_a_strong_slant_passes_where_a_skewed_piece_does_not() {
        let cfg = LocaliserConfig::default();
        let quad = |p: [(f64, f64); 4]| Quad::from_cyclic(p.map(|(x, y)| Point::new(x, y)));
        // The labelled outline of a card turned diagonally to a camera 49° off
        // vertical: angles 118°, 66°, 111°, 65° (`tests/data/photos/0003-single-slant`).
        let sheared = quad([
            (599.0, 258.1),
            (701.3, 298.0),
            (595.2, 401.2),
            (488.6, 352.1),
        ]);
        assert!(card_angles(&sheared, &cfg), "{:?}", sheared.angles());
        // As skewed, but at one end only (a right trapezoid: 90°, 90°, 120°, 60°).
        let skewed = quad([(0.0, 0.0), (100.0, 0.0), (100.0, 140.0), (-80.8, 140.0)]);
        assert!(!card_angles(&skewed, &cfg), "{:?}", skewed.angles());
        // Sheared past the wider limit (a parallelogram of 130° and 50°).
        let flat = quad([(0.0, 0.0), (100.0, 0.0), (217.5, 140.0), (117.5, 140.0)]);
        assert!(!card_angles(&flat, &cfg), "{:?}", flat.angles());
        let upright = quad([(10.0, 10.0), (110.0, 10.0), (110.0, 150.0), (10.0, 150.0)]);
        assert!(card_angles(&upright, &cfg));
    }

    #[test]
    fn a_whole_row_holding_its_strips_is_kept_beside_them() {
        let rect = |x0: f64, x1: f64| Refined {
            quad: Quad([
                Point::new(x0, 100.0),
                Point::new(x1, 100.0),
                Point::new(x1, 220.0),
                Point::new(x0, 220.0),
            ]),
            support: 0.9,
            inside_light: 1.0,
            axis: None,
        };
        // Three strips, each as well supported as the row that holds them.
        let strips = [rect(100.0, 130.0), rect(130.0, 160.0), rect(160.0, 190.0)];
        let row = rect(100.0, 290.0);
        let mut cands = strips.to_vec();
        cands.push(row.clone());
        // `choose` takes the row for separate outlines merged and keeps the strips.
        let chosen = choose(&cands, &swallowing(&cands));
        assert_eq!(chosen.len(), 3);
        assert!(!chosen.contains(&row.quad));
        let rows = choose_rows(cands);
        assert_eq!(rows.len(), 4);
        assert!(rows.contains(&row.quad));
        // A row holding one strip is no whole row: `choose` decides alone.
        let rows = choose_rows(vec![strips[0].clone(), rect(100.0, 290.0)]);
        assert_eq!(rows.len(), 1);
    }

    #[test]
    fn a_card_dropped_for_pieces_of_its_art_is_an_enclosing_outline() {
        let refined = |quad: Quad, support: f64| Refined {
            quad,
            support,
            inside_light: 1.0,
            axis: None,
        };
        // A court card 100 × 140 whose art the masks cut into two halves, each a
        // better fit than the card's own edge.
        let card = refined(rect_quad(100.0, 200.0, 100.0, 240.0), 0.64);
        let halves = [
            refined(rect_quad(105.0, 148.0, 105.0, 235.0), 0.7),
            refined(rect_quad(152.0, 195.0, 105.0, 235.0), 0.68),
        ];
        // A card lying elsewhere, found whole.
        let other = refined(rect_quad(400.0, 500.0, 100.0, 240.0), 0.9);
        let cands = vec![
            card.clone(),
            halves[0].clone(),
            halves[1].clone(),
            other.clone(),
        ];
        let merged = swallowing(&cands);
        let kept = choose(&cands, &merged);
        assert!(
            !kept.contains(&card.quad),
            "the halves win, as merged cards would"
        );
        assert_eq!(enclosing(&cands, &merged, &kept), vec![card.quad]);
        // One piece inside is enough: a card outline beaten by a piece of its art.
        let cands = vec![card.clone(), halves[0].clone(), other];
        let merged = swallowing(&cands);
        let kept = choose(&cands, &merged);
        assert_eq!(enclosing(&cands, &merged, &kept), vec![card.quad]);
        // A short row (a row's proportions, holding pieces) is read as a row.
        let row = refined(rect_quad(100.0, 400.0, 100.0, 240.0), 0.64);
        let strips: Vec<Refined> = (0..6)
            .map(|k| {
                let x0 = 100.0 + 50.0 * f64::from(k);
                refined(rect_quad(x0, x0 + 48.0, 100.0, 240.0), 0.8)
            })
            .collect();
        let mut cands = strips;
        cands.push(row);
        let merged = swallowing(&cands);
        let kept = choose(&cands, &merged);
        assert!(enclosing(&cands, &merged, &kept).is_empty());
        // Nothing dropped, nothing enclosing.
        let cands = vec![halves[0].clone()];
        assert!(enclosing(&cands, &swallowing(&cands), &[halves[0].quad]).is_empty());
    }

    #[test]
    fn opening_takes_away_specks_even_where_they_touch_a_card() {
        let (w, h) = (40, 30);
        let mut mask = vec![false; w * h];
        let mut set = |x: usize, y: usize| mask[y * w + x] = true;
        for y in 5..20 {
            for x in 10..22 {
                set(x, y);
            }
        }
        // Specks of a dotted cloth: alone, and two touching the card's sides.
        for (x, y) in [
            (30, 10),
            (31, 10),
            (30, 11),
            (3, 25),
            (22, 8),
            (23, 8),
            (22, 9),
            (23, 9),
        ] {
            set(x, y);
        }
        set(15, 20);
        let on = |i: usize| mask[i];
        let open = opened(&Mask { w, h, on }, 1);
        let card = |x: usize, y: usize| (10..22).contains(&x) && (5..20).contains(&y);
        for y in 0..h {
            for x in 0..w {
                assert_eq!(open[y * w + x], card(x, y), "pixel ({x}, {y})");
            }
        }
        // Radius 0 is the mask itself.
        assert_eq!(opened(&Mask { w, h, on }, 0), mask);
    }

    #[test]
    fn opening_on_packed_rows_is_the_opening_by_a_square() {
        // A pseudo-random mask wider than a word (not a multiple of 64), against
        // erosion and dilation by the square straight from their definitions.
        let (w, h) = (70, 33);
        let mut state = 7u64;
        let mask: Vec<bool> = (0..w * h)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) % 100 < 93
            })
            .collect();
        for r in [1usize, 2] {
            let window = |src: &[bool], x: usize, y: usize, all: bool| {
                let mut seen = (0, 0);
                for yy in y as i64 - r as i64..=(y + r) as i64 {
                    for xx in x as i64 - r as i64..=(x + r) as i64 {
                        let inside = (0..w as i64).contains(&xx) && (0..h as i64).contains(&yy);
                        let on = inside && src[yy as usize * w + xx as usize];
                        seen.0 += usize::from(on);
                        seen.1 += 1;
                    }
                }
                if all {
                    seen.0 == seen.1
                } else {
                    seen.0 > 0
                }
            };
            let eroded: Vec<bool> = (0..w * h)
                .map(|i| window(&mask, i % w, i / w, true))
                .collect();
            let want: Vec<bool> = (0..w * h)
                .map(|i| window(&eroded, i % w, i / w, false))
                .collect();
            assert!(
                want.iter().any(|&b| b) && want != mask,
                "a mask the opening changes"
            );
            let on = |i: usize| mask[i];
            assert_eq!(opened(&Mask { w, h, on }, r), want, "radius {r}");
        }
    }

    /// An upright rectangle from `x0` to `x1` and `y0` to `y1`, clockwise.
    fn rect_quad(x0: f64, x1: f64, y0: f64, y1: f64) -> Quad {
        Quad([
            Point::new(x0, y0),
            Point::new(x1, y0),
            Point::new(x1, y1),
            Point::new(x0, y1),
        ])
    }

    #[test]
    fn a_row_is_merged_cards_only_where_whole_cards_span_most_of_it() {
        let rect = |x0: f64, x1: f64| rect_quad(x0, x1, 100.0, 220.0);
        let row = rect(100.0, 460.0);
        // Four cards 85 wide with 5-pixel gaps: the row is those cards merged.
        let laid: Vec<Quad> = (0..4)
            .map(|i| rect(100.0 + 90.0 * f64::from(i), 185.0 + 90.0 * f64::from(i)))
            .collect();
        assert!(
            (covered_share(&row, &laid.iter().collect::<Vec<_>>()) - 340.0 / 360.0).abs() < 1e-9
        );
        assert!(merged_cards(&row, &laid));
        // A spread hand: a group of strips of a card's proportions at its start and
        // the card on top at its end cover half of it.
        let spread = [rect(100.0, 190.0), rect(375.0, 460.0)];
        assert!(!merged_cards(&row, &spread));
        // One whole card is never a merge; thin strips do not count.
        assert!(!merged_cards(&row, &laid[..1]));
        let strips: Vec<Quad> = (0..12)
            .map(|i| rect(100.0 + 30.0 * f64::from(i), 130.0 + 30.0 * f64::from(i)))
            .collect();
        assert!(!merged_cards(&row, &strips));
        // The long axis is found whichever way round the row's corners start.
        let upright = rect_quad(100.0, 220.0, 100.0, 460.0);
        let half = rect_quad(100.0, 220.0, 100.0, 280.0);
        assert!((covered_share(&upright, &[&half]) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn pieces_of_a_row_side_by_side_are_joined_into_the_row() {
        let rect = |x0: f64, x1: f64| rect_quad(x0, x1, 100.0, 240.0);
        // Three strips 30 wide and the card on top, each against the next with
        // the edge's dark line (3 px) between them; listed out of order.
        let pieces = [
            rect(100.0, 130.0),
            rect(199.0, 299.0),
            rect(133.0, 163.0),
            rect(166.0, 196.0),
        ];
        let rows = joined_rows(&pieces);
        assert_eq!(rows.len(), 1, "{rows:?}");
        let whole = Quad::from_cyclic(rect(100.0, 299.0).0);
        assert!(rows[0].corner_error(&whole) < 1e-9, "{rows:?}");
        // Pieces apart (a gap wider than an edge's line), of other heights, or
        // lying on each other are not joined.
        assert!(joined_rows(&[rect(100.0, 130.0), rect(140.0, 170.0)]).is_empty());
        let short = rect_quad(133.0, 163.0, 100.0, 180.0);
        assert!(joined_rows(&[rect(100.0, 130.0), short]).is_empty());
        assert!(joined_rows(&[rect(100.0, 200.0), rect(110.0, 200.0)]).is_empty());
        // Turned rows join too.
        let turn = |q: Quad| {
            let (c, s) = (20f64.to_radians().cos(), 20f64.to_radians().sin());
            Quad::from_cyclic(q.0.map(|p| Point::new(c * p.x - s * p.y, s * p.x + c * p.y)))
        };
        let rows = joined_rows(&[turn(rect(100.0, 130.0)), turn(rect(133.0, 233.0))]);
        assert_eq!(rows.len(), 1);
        assert!(rows[0].corner_error(&turn(rect(100.0, 233.0))) < 1e-9);
    }

    #[test]
    fn local_mean_is_the_truncated_mean_of_the_clipped_box() {
        for (w, h, r, seed) in [
            (37, 23, 4, 1),
            (64, 40, 19, 2),
            (5, 90, 7, 3),
            (9, 9, 30, 4),
        ] {
            let work = noisy_work(w, h, seed);
            let fast = work.local_mean(r);
            for y in 0..h {
                for x in 0..w {
                    let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(h));
                    let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
                    let mut sum = 0i64;
                    for yy in y0..y1 {
                        for xx in x0..x1 {
                            sum += i64::from(work.data[yy * w + xx]);
                        }
                    }
                    let n = ((y1 - y0) * (x1 - x0)) as i64;
                    assert_eq!(
                        fast[y * w + x],
                        (sum / n) as i16,
                        "{w}x{h} r={r} at ({x}, {y})"
                    );
                }
            }
        }
    }

    /// The 8-connected components of a boolean grid by flood fill, each as its
    /// sorted pixel list: the plain definition `blobs` must agree with.
    fn flood_components(on: &[bool], w: usize, h: usize) -> Vec<Vec<(usize, usize)>> {
        let mut seen = vec![false; w * h];
        let mut out = Vec::new();
        for start in 0..w * h {
            if !on[start] || seen[start] {
                continue;
            }
            seen[start] = true;
            let (mut stack, mut comp) = (vec![start], Vec::new());
            while let Some(i) = stack.pop() {
                let (x, y) = (i % w, i / w);
                comp.push((y, x));
                for ny in y.saturating_sub(1)..(y + 2).min(h) {
                    for nx in x.saturating_sub(1)..(x + 2).min(w) {
                        let j = ny * w + nx;
                        if on[j] && !seen[j] {
                            seen[j] = true;
                            stack.push(j);
                        }
                    }
                }
            }
            comp.sort_unstable();
            out.push(comp);
        }
        out.sort();
        out
    }

    #[test]
    fn blobs_are_the_eight_connected_components_of_the_mask() {
        // Speckle of several densities, on widths below, at and across 64-bit
        // words (the run scan packs rows into words).
        for (w, h, density, seed) in [
            (37, 23, 0, 1),
            (64, 20, 30, 2),
            (130, 41, 45, 3),
            (200, 30, 60, 4),
        ] {
            let work = noisy_work(w, h, seed);
            let on: Vec<bool> = work
                .data
                .iter()
                .map(|&v| v < (density * 511 / 100) as i16 - 255)
                .collect();
            let mask = Mask {
                w,
                h,
                on: |i: usize| on[i],
            };
            let mut got: Vec<Vec<(usize, usize)>> = blobs(&mask, 1, u32::MAX)
                .iter()
                .map(|runs| {
                    let mut px: Vec<(usize, usize)> = runs
                        .iter()
                        .flat_map(|r| (r.x0..r.x1).map(move |x| (r.y as usize, x as usize)))
                        .collect();
                    px.sort_unstable();
                    px
                })
                .collect();
            got.sort();
            let want = flood_components(&on, w, h);
            assert_eq!(got, want, "{w} x {h}, density {density} %");
            // The size filter keeps exactly the components of allowed size.
            let kept = blobs(&mask, 3, 10).len();
            assert_eq!(
                kept,
                want.iter().filter(|c| (3..=10).contains(&c.len())).count()
            );
        }
        // A row of all ones, and one whose run reaches the end of a full word.
        let mask = Mask {
            w: 128,
            h: 2,
            on: |i: usize| i >= 64,
        };
        let b = blobs(&mask, 1, u32::MAX);
        assert_eq!(b.len(), 1);
        assert_eq!((b[0][0].x0, b[0][0].x1, b[0].len()), (64, 128, 2));
    }

    #[test]
    fn next_bit_finds_set_and_clear_bits_across_words() {
        let mut flags = vec![0u8; 128];
        for x in [3, 63, 64, 65, 127] {
            flags[x] = 1;
        }
        let mut bits = vec![0u64; 2];
        pack_bits(&flags, &mut bits);
        for from in 0..128 {
            let set = (from..128).find(|&x| flags[x] == 1);
            let clear = (from..128).find(|&x| flags[x] == 0);
            assert_eq!(next_bit(&bits, from, true), set, "set from {from}");
            assert_eq!(next_bit(&bits, from, false), clear, "clear from {from}");
        }
        assert_eq!(next_bit(&bits, 128, true), None);
    }

    #[test]
    fn working_image_of_two_by_two_blocks_matches_the_general_block_mean() {
        let (fw, fh) = (61u32, 33u32);
        let frame = RgbImage::from_fn(fw, fh, |x, y| {
            Rgb([
                (x * 37 % 256) as u8,
                (y * 91 % 256) as u8,
                ((x * y) % 256) as u8,
            ])
        });
        // Long side 31 makes the block 2 × 2 (the fast path).
        let work = WorkImage::new(&frame, 31);
        assert_eq!((work.w, work.h, work.scale), (30, 16, 2.0));
        for y in 0..work.h {
            for x in 0..work.w {
                let px: Vec<&Rgb<u8>> = [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .iter()
                    .map(|(dx, dy)| frame.get_pixel(2 * x as u32 + dx, 2 * y as u32 + dy))
                    .collect();
                let mean = |c: usize| px.iter().map(|p| u32::from(p[c])).sum::<u32>() / 4;
                let (r, g, b) = (mean(0), mean(1), mean(2));
                assert_eq!(work.rgb[y * work.w + x], [r as u8, g as u8, b as u8]);
                let (lo, hi) = (r.min(g).min(b) as i16, r.max(g).max(b) as i16);
                assert_eq!(work.data[y * work.w + x], lo - (hi - lo));
            }
        }
    }

    /// Draws a white card with a black mark in its top-left corner onto `img`,
    /// through the homography from the 160 × 224 card to `quad`.
    fn draw_card(img: &mut RgbImage, quad: [Point; 4]) {
        draw_card_on(img, quad, [245, 245, 240]);
    }

    /// A card of `paper` colour with a dark index mark and a round pip.
    fn draw_card_on(img: &mut RgbImage, quad: [Point; 4], paper: [u8; 3]) {
        let inv = Homography::from_points(quad, card_corners()).unwrap();
        for y in 0..img.height() {
            for x in 0..img.width() {
                let p = inv.apply(f64::from(x) + 0.5, f64::from(y) + 0.5).unwrap();
                if (0.0..160.0).contains(&p.x) && (0.0..224.0).contains(&p.y) {
                    let mark = p.x > 10.0 && p.x < 30.0 && p.y > 10.0 && p.y < 50.0;
                    let pip = (p.x - 80.0).hypot(p.y - 112.0) < 25.0;
                    let v = if mark || pip { [20, 20, 20] } else { paper };
                    img.put_pixel(x, y, Rgb(v));
                }
            }
        }
    }

    fn cloth(w: u32, h: u32, rgb: [u8; 3]) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| {
            let n = ((x * 7 + y * 13) % 9) as u8;
            Rgb([rgb[0].saturating_add(n), rgb[1].saturating_add(n), rgb[2]])
        })
    }

    fn p(x: f64, y: f64) -> Point {
        Point::new(x, y)
    }

    /// The enclosed-outline masks alone (whiteness and colour steps).
    fn outline_masks_only() -> LocaliserConfig {
        LocaliserConfig {
            levels: Vec::new(),
            local_margins: Vec::new(),
            neutral_spreads: Vec::new(),
            cloth_distances: Vec::new(),
            ..LocaliserConfig::default()
        }
    }

    /// `cfg` finds one card in `img`, within 1.5 px of `truth` at every corner.
    fn assert_finds_only(img: &RgbImage, cfg: &LocaliserConfig, truth: [Point; 4]) {
        let found = locate_cards(img, cfg);
        assert_eq!(found.len(), 1, "{found:?}");
        let err = found[0].corner_error(&Quad::from_cyclic(truth));
        assert!(err < 1.5, "corner error {err}: {:?}", found[0]);
    }

    /// A card 100 × 140 pixels, turned by about 11°, where the tests draw one.
    fn tilted_card() -> [Point; 4] {
        [
            p(200.0, 90.0),
            p(300.0, 110.0),
            p(272.0, 250.0),
            p(172.0, 230.0),
        ]
    }

    /// The rectified card's corners (the contract's 160 × 224 card).
    fn card_corners() -> [Point; 4] {
        [p(0.0, 0.0), p(160.0, 0.0), p(160.0, 224.0), p(0.0, 224.0)]
    }

    #[test]
    fn finds_a_tilted_card_on_green_felt_within_a_pixel() {
        let mut img = cloth(640, 400, [30, 110, 50]);
        let truth = tilted_card();
        draw_card(&mut img, truth);
        let found = locate_cards(&img, &LocaliserConfig::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let err = found[0].corner_error(&Quad::from_cyclic(truth));
        assert!(err < 1.5, "corner error {err}: {:?}", found[0]);
    }

    #[test]
    fn orders_cards_left_to_right_and_ignores_a_round_coaster() {
        let mut img = cloth(800, 450, [120, 60, 30]);
        let a = [
            p(420.0, 100.0),
            p(520.0, 100.0),
            p(520.0, 240.0),
            p(420.0, 240.0),
        ];
        let b = [
            p(100.0, 120.0),
            p(200.0, 110.0),
            p(212.0, 250.0),
            p(112.0, 260.0),
        ];
        draw_card(&mut img, a);
        draw_card(&mut img, b);
        for y in 0..450u32 {
            for x in 0..800u32 {
                if (f64::from(x) - 680.0).hypot(f64::from(y) - 320.0) < 60.0 {
                    img.put_pixel(x, y, Rgb([235, 235, 235]));
                }
            }
        }
        let found = locate_cards(&img, &LocaliserConfig::default());
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].corner_error(&Quad::from_cyclic(b)) < 1.5);
        assert!(found[1].corner_error(&Quad::from_cyclic(a)) < 1.5);
    }

    #[test]
    fn a_card_cut_by_the_frame_edge_is_not_reported() {
        let mut img = cloth(400, 300, [30, 110, 50]);
        draw_card(
            &mut img,
            [
                p(-40.0, 50.0),
                p(60.0, 50.0),
                p(60.0, 190.0),
                p(-40.0, 190.0),
            ],
        );
        assert!(locate_cards(&img, &LocaliserConfig::default()).is_empty());
    }

    /// A grey frame with a dark one-pixel-wide rectangle outline, open by `gap`
    /// pixels on its right side.
    fn outlined(gap: u32) -> RgbImage {
        RgbImage::from_fn(200, 120, |x, y| {
            let on_side = (x == 50 || x == 110) && (30..=90).contains(&y)
                || (y == 30 || y == 90) && (50..=110).contains(&x);
            let in_gap = x == 110 && (60..60 + gap).contains(&y);
            if on_side && !in_gap {
                Rgb([190, 190, 190])
            } else {
                Rgb([235, 235, 235])
            }
        })
    }

    #[test]
    fn enclosed_is_what_a_closed_outline_keeps_from_the_cloth() {
        let work = WorkImage::new(&outlined(0), 200);
        let closed = work.enclosed(&work.steps(), 20);
        assert!(closed[60 * 200 + 80], "the inside of a closed outline");
        assert!(
            !closed[10 * 200 + 10] && !closed[60 * 200 + 150],
            "the cloth"
        );
        // A weaker outline than the step is no outline.
        assert!(!work.enclosed(&work.steps(), 60)[60 * 200 + 80]);
        // Through a gap wider than the grown outline, the cloth gets in.
        let work = WorkImage::new(&outlined(8), 200);
        let open = work.enclosed(&work.steps(), 20);
        assert!(!open[60 * 200 + 80], "the inside of an open outline");
    }

    #[test]
    fn finds_a_card_as_white_as_its_cloth_by_its_outline() {
        // A lamp's glare: the cloth is as white as the paper, and only the card's
        // edge and its soft shadow set it apart. (The other masks find this clean
        // drawing through its shadow; `tests/vision_localise.rs` has a frame that
        // needs the outline.)
        let mut img = cloth(640, 400, [236, 236, 240]);
        let truth = tilted_card();
        let centre = Quad::from_cyclic(truth).centre();
        for (grow, shade) in [(8.0, 226u8), (5.0, 214), (2.5, 200)] {
            let shadow = truth.map(|c| {
                let d = c.dist(centre);
                p(
                    c.x + (c.x - centre.x) * grow / d,
                    c.y + (c.y - centre.y) * grow / d,
                )
            });
            let q = Quad::from_cyclic(shadow);
            for y in 60..280u32 {
                for x in 140..340u32 {
                    if q.contains(p(f64::from(x) + 0.5, f64::from(y) + 0.5)) {
                        img.put_pixel(x, y, Rgb([shade, shade, shade + 3]));
                    }
                }
            }
        }
        draw_card(&mut img, truth);
        // The enclosed-outline masks alone: their blob holds the shadow too, and
        // the edge search must still land on the card's edge.
        let outline_only = outline_masks_only();
        assert_finds_only(&img, &outline_only, truth);
        let none = LocaliserConfig {
            outline_steps: Vec::new(),
            outline_colour_steps: Vec::new(),
            ..outline_only
        };
        assert!(locate_cards(&img, &none).is_empty());
    }

    /// A 640 × 400 cloth of one colour with [`tilted_card`]'s card of plain paper
    /// on it, and the card's corners.
    fn tilted_card_on(cloth_rgb: [u8; 3], paper: [u8; 3]) -> (RgbImage, [Point; 4]) {
        let mut img = cloth(640, 400, cloth_rgb);
        let truth = tilted_card();
        draw_card_on(&mut img, truth, paper);
        (img, truth)
    }

    /// The largest whiteness step and colour step along a row across the lower
    /// half of the card [`tilted_card`] places (below its pip), at the working
    /// scale.
    fn largest_steps_below_the_pip(img: &RgbImage) -> (i16, i16) {
        let work = WorkImage::new(img, 800);
        let y = (215.0 / work.scale) as usize;
        let row = y * work.w..(y + 1) * work.w;
        let most = |v: Vec<i16>| v[row.clone()].iter().copied().max().unwrap_or(0);
        (most(work.steps()), most(work.colour_steps()))
    }

    #[test]
    fn a_cream_card_on_a_pale_green_cloth_is_enclosed_by_its_colour_outline() {
        // Cream paper and a pale green cloth are as white as each other
        // (whiteness 160 against 160–168): the whiteness outline is open all
        // round, but the colour changes by about 60 (sum over R, G, B). The
        // sides are then fitted on the colour axis from cloth to paper.
        let (img, truth) = tilted_card_on([200, 240, 215], [250, 235, 205]);
        let (whiteness, colour) = largest_steps_below_the_pip(&img);
        assert!(whiteness < 20, "whiteness step {whiteness}");
        assert!(colour >= 45, "colour step {colour}");
        let outline_only = outline_masks_only();
        assert_finds_only(&img, &outline_only, truth);
        let without = LocaliserConfig {
            outline_colour_steps: Vec::new(),
            ..outline_only.clone()
        };
        assert!(locate_cards(&img, &without).is_empty());
        let whiteness_fit = LocaliserConfig {
            refit_on_colour: false,
            ..outline_only
        };
        assert!(locate_cards(&img, &whiteness_fit).is_empty());
    }

    #[test]
    fn a_card_in_shadow_on_dark_wood_is_enclosed_by_its_colour_outline() {
        // In an object's shadow the room's bluish fill light is all that lights
        // the paper: R, G, B about 107, 142, 182 (a path-traced photo's), a
        // whiteness of 32 beside dark wood's 5 or so. The whiteness outline is a
        // step of under 40, too weak for the enclosed-outline mask of a dark cloth,
        // but the colour changes by about 250 (sum over R, G, B) all round.
        let (img, truth) = tilted_card_on([62, 44, 32], [107, 142, 182]);
        let work = WorkImage::new(&img, 800);
        assert!(work.median_whiteness() < LocaliserConfig::default().light_cloth_whiteness);
        let (whiteness, colour) = largest_steps_below_the_pip(&img);
        assert!(whiteness < 40, "whiteness step {whiteness}");
        assert!(colour >= 140, "colour step {colour}");
        let outline_only = outline_masks_only();
        assert_finds_only(&img, &outline_only, truth);
        let without = LocaliserConfig {
            other_cloth_outline_colour_steps: Vec::new(),
            ..outline_only
        };
        assert!(locate_cards(&img, &without).is_empty());
    }

    #[test]
    fn a_card_whose_art_reaches_its_edges_is_found_whole_on_a_coloured_cloth() {
        // A court card's art can run across the card from edge to edge in a
        // colour as dark as the cloth: the whiteness masks see two strips. Its
        // edge is still a whiteness step all round, art included, so the enclosed
        // outline holds the whole card.
        let mut img = cloth(1280, 720, [110, 40, 110]);
        let truth = tilted_card();
        draw_card(&mut img, truth);
        let to_card = Homography::from_points(truth, card_corners()).unwrap();
        for y in 0..img.height() {
            for x in 0..img.width() {
                let c = to_card
                    .apply(f64::from(x) + 0.5, f64::from(y) + 0.5)
                    .unwrap();
                if (50.0..110.0).contains(&c.x) && (0.0..224.0).contains(&c.y) {
                    img.put_pixel(x, y, Rgb([114, 66, 110]));
                }
            }
        }
        let whole = Quad::from_cyclic(truth);
        let found = locate_cards(&img, &LocaliserConfig::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let err = found[0].corner_error(&whole);
        assert!(err < 2.0, "corner error {err}: {:?}", found[0]);
        let without = LocaliserConfig {
            other_cloth_outline_steps: Vec::new(),
            other_cloth_outline_colour_steps: Vec::new(),
            ..LocaliserConfig::default()
        };
        let found = locate_cards(&img, &without);
        assert!(
            found.iter().all(|q| q.corner_error(&whole) > 10.0),
            "{found:?}"
        );
    }

    #[test]
    fn blank_and_tiny_frames_have_no_cards() {
        let cfg = LocaliserConfig::default();
        assert!(locate_cards(&RgbImage::new(1, 1), &cfg).is_empty());
        assert!(
            locate_cards(&RgbImage::from_pixel(300, 200, Rgb([250, 250, 250])), &cfg).is_empty()
        );
        assert!(locate_cards(&RgbImage::new(300, 200), &cfg).is_empty());
        // Frames a few pixels thin shrink to working images with no rows or no
        // columns; every mask, the light-cloth ones included, must cope.
        let light = LocaliserConfig {
            light_cloth_whiteness: i16::MIN,
            ..LocaliserConfig::default()
        };
        for (w, h) in [(8000, 8), (8, 8000), (9, 9), (2400, 24)] {
            let white = RgbImage::from_pixel(w, h, Rgb([250, 250, 250]));
            assert!(locate_cards(&white, &cfg).is_empty(), "{w} x {h}");
            assert!(locate_cards(&white, &light).is_empty(), "{w} x {h}");
        }
    }
}
