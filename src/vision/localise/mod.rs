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
//!
//! The steps live in submodules: `work` (the working image and its maps), `masks`
//! (blobs of a mask), `candidates` (a blob's card test), `edges` (sides re-fitted
//! on the full frame), `selection` (one outline per card, row and fan) and `rows`
//! (rows pieced together); this module runs them in order ([`locate`]).

use image::RgbImage;

use super::fan::FanCard;
use super::geometry::Quad;
use super::touching;

mod candidates;
mod edges;
mod masks;
mod rows;
mod selection;
mod work;

use candidates::{BlobSearch, Candidate};
use edges::{edge_reach, refine, ColourAxis, EdgeSignal, Refined};
use masks::{opened, Mask};
use rows::{joined_rows, merged_cards, ROW_WHOLE_ASPECT};
use selection::{choose, choose_fans, choose_rows, enclosing, found_already, swallowing};
use work::WorkImage;

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

#[cfg(test)]
mod tests;
