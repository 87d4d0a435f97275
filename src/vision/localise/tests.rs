//! Unit tests of the localiser.

use super::candidates::card_angles;
use super::masks::{blobs, next_bit, pack_bits};
use super::rows::covered_share;
use super::*;
use crate::vision::geometry::{Homography, Point};
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
    assert!((covered_share(&row, &laid.iter().collect::<Vec<_>>()) - 340.0 / 360.0).abs() < 1e-9);
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
    assert!(locate_cards(&RgbImage::from_pixel(300, 200, Rgb([250, 250, 250])), &cfg).is_empty());
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
