//! Masks of the working image and their connected blobs, found by runs of set
//! pixels packed 64 to a word; and a mask's opening, which drops specks.

/// A binary mask of the working image: "card-like here".
/// The test is a closure over the working image, so no mask is ever stored.
pub(super) struct Mask<F: Fn(usize) -> bool> {
    pub(super) w: usize,
    pub(super) h: usize,
    pub(super) on: F,
}

impl<F: Fn(usize) -> bool> Mask<F> {
    pub(super) fn at(&self, x: f64, y: f64) -> bool {
        if x < 0.0 || y < 0.0 {
            return false;
        }
        let (xi, yi) = (x as usize, y as usize);
        xi < self.w && yi < self.h && (self.on)(yi * self.w + xi)
    }
}

/// A horizontal run of mask pixels `[x0, x1)` on row `y`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Run {
    pub(super) y: u32,
    pub(super) x0: u32,
    pub(super) x1: u32,
}

pub(super) fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let p = parent[i as usize];
        parent[i as usize] = parent[p as usize];
        i = p;
    }
    i
}

/// The blobs (8-connected) of the mask with `min_px..=max_px` pixels, as lists of
/// runs.
pub(super) fn blobs<F: Fn(usize) -> bool>(
    mask: &Mask<F>,
    min_px: u32,
    max_px: u32,
) -> Vec<Vec<Run>> {
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
pub(super) fn pack_bits(flags: &[u8], bits: &mut [u64]) {
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
pub(super) fn next_bit(bits: &[u64], from: usize, set: bool) -> Option<usize> {
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

/// A mask opened by a square of side `2r + 1` (eroded, then dilated): specks and
/// threads narrower than the square go, and so do specks of a dotted cloth that
/// touch a card's edge; what is wider keeps its shape, its corners a little
/// rounded. Out of the frame counts as out of the mask. The square is `r` steps of
/// 3 × 3, each done on rows packed 64 pixels to a word.
pub(super) fn opened<F: Fn(usize) -> bool>(mask: &Mask<F>, r: usize) -> Vec<bool> {
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
        if !w.is_multiple_of(64) {
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
