//! The working image the masks are cut from: the frame box-averaged to about
//! 800 pixels across, each pixel's whiteness and colour, and the maps built from
//! them (distance from the cloth, outline steps, what a closed outline encloses).

use image::RgbImage;

/// The localiser's whiteness score of a colour, `min − (max − min)` of R, G, B:
/// high for white and light grey, low for colours and dark.
pub(super) fn whiteness(r: i16, g: i16, b: i16) -> i16 {
    let (lo, hi) = (r.min(g).min(b), r.max(g).max(b));
    lo - (hi - lo)
}

/// The whiteness map of a frame at the working scale.
pub(super) struct WorkImage {
    pub(super) w: usize,
    pub(super) h: usize,
    /// Pixels of the full frame per working pixel, along each axis.
    pub(super) scale: f64,
    pub(super) data: Vec<i16>,
    pub(super) rgb: Vec<[u8; 3]>,
}

impl WorkImage {
    /// Box-downsamples the frame by an integer factor and scores each pixel:
    /// `min(r, g, b) − (max − min)`, high for white and light grey, low for dark or
    /// coloured pixels.
    pub(super) fn new(frame: &RgbImage, long_side: u32) -> WorkImage {
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
    pub(super) fn cloth_distance(&self, cell: usize, k: usize) -> Vec<i16> {
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
    pub(super) fn steps(&self) -> Vec<i16> {
        let d = &self.data;
        self.outline_map(|a, b| (d[a] - d[b]).abs())
    }

    /// The same for colour: a step is the sum over R, G and B of the absolute
    /// central differences. A cream or ivory card on a pale tinted cloth differs
    /// from it in hue far more than in whiteness (which barely moves between the
    /// two), so its edge is closed here where the whiteness outline has gaps.
    pub(super) fn colour_steps(&self) -> Vec<i16> {
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
    pub(super) fn enclosed(&self, steps: &[i16], step: i16) -> Vec<bool> {
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
    pub(super) fn median_whiteness(&self) -> i16 {
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
    pub(super) fn local_mean(&self, r: usize) -> Vec<i16> {
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
