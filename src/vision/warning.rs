//! What about a frame may cost cards, said to the table with what to change. A God
//! at a table sees fewer cards read, or more reads asking for confirmation, and
//! nothing says why: a blown-out cloth ([`exposure`](super::exposure)), a dim room,
//! or a camera whose frame makes the cards too small to read (a cheap webcam that
//! only gives 640 × 480, or one mounted too high). Each warning names the cause and
//! the fix (`firmware-notes/README.md`).

use std::fmt;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use super::geometry::Quad;

/// Height in frame pixels (median over a frame's cards) below which the cards count
/// as too small to read. Measured on 150 held-out camera views rendered through a
/// 640 × 360 camera (`render_views.py --size 640x360`): cards under 70 px tall were
/// read right 84 % of the time (51 % without asking God), cards of 70 px and more
/// 99 % (README, "Camera resolution"); no frame of the 1280 × 720 evaluation sets
/// is warned.
pub const SMALL_CARD_HEIGHT: f64 = 70.0;

/// Something about the frame that costs cards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrameWarning {
    /// This share of the frame is clipped to pure white.
    Overexposed { share: f32 },
    /// The brightest 0.2 % of the frame only reaches this brightness.
    Dark { brightest: u8 },
    /// The frame's cards are about this tall (median, frame pixels): their indices
    /// are a few pixels high.
    SmallCards { height: f32 },
}

/// Frames whose brightest 0.2 % stays below this are black: what a webcam gives
/// while it starts up or when it drops out for a moment. A dark cloth is dark
/// ([`FrameWarning::Dark`], under 60) but not black, even a uniform near-black one
/// seen through a camera's video range (the browser test's dark table through
/// Chromium's fake camera: under 16, not under 3); a hand over the lens, its
/// noise amplified by the camera's gain, cannot be told from such a cloth.
pub const BLACK_LEVEL: u8 = 3;

/// Whether a frame with these warnings is too dark to take its emptiness as
/// evidence ([`crate::vision::PlayZoneWatcher::observe_frame`]): a black frame
/// found to hold nothing may hold cards no one can see.
pub fn too_dark_to_see(warnings: &[FrameWarning]) -> bool {
    warnings
        .iter()
        .any(|w| matches!(w, FrameWarning::Dark { brightest } if *brightest < BLACK_LEVEL))
}

/// What the table is told of a frame too dark to see the zone in.
pub const TOO_DARK_TO_WATCH: &str =
    "the frame is black: it says nothing of the zone and is not counted (the camera starting up or dropping out?)";

impl FrameWarning {
    /// A stable name for programs (`"overexposed"`, `"dark"`, `"small-cards"`).
    pub fn kind(&self) -> &'static str {
        match self {
            FrameWarning::Overexposed { .. } => "overexposed",
            FrameWarning::Dark { .. } => "dark",
            FrameWarning::SmallCards { .. } => "small-cards",
        }
    }
}

impl fmt::Display for FrameWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameWarning::Overexposed { share } => write!(
                f,
                "overexposed: {:.0} % of the frame is pure white, so card edges there \
                 cannot be seen; lower the camera's exposure until a white card reads \
                 200-240, or use a darker cloth",
                100.0 * share
            ),
            FrameWarning::Dark { brightest } => write!(
                f,
                "too dark: the brightest part of the frame only reaches {brightest}/255; \
                 add light on the table or raise the camera's exposure"
            ),
            FrameWarning::SmallCards { height } => write!(
                f,
                "cards too small: they are about {height:.0} px tall in this frame, and \
                 below {SMALL_CARD_HEIGHT:.0} px their indices blur into a few pixels \
                 (more reads ask God, some are wrong); set the camera to 1280x720 or \
                 more, or lower it, so that a card is about 150 px tall or more, where \
                 it reads best"
            ),
        }
    }
}

/// Serialised as `{"kind": …, "text": …}`: a name for programs, a sentence for
/// people.
impl Serialize for FrameWarning {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("FrameWarning", 2)?;
        st.serialize_field("kind", self.kind())?;
        st.serialize_field("text", &self.to_string())?;
        st.end()
    }
}

/// The small-cards warning for a frame whose card outlines are these, when their
/// median height is under [`SMALL_CARD_HEIGHT`]. A card's height is its outline's
/// longest side (a card seen at a slant may lie either way in the frame). The median
/// keeps one far or foreshortened card from speaking for the table, and a frame
/// without cards says nothing.
pub fn small_cards_warning<'a>(
    outlines: impl IntoIterator<Item = &'a Quad>,
) -> Option<FrameWarning> {
    let median = median_card_height(outlines)?;
    (median < SMALL_CARD_HEIGHT).then_some(FrameWarning::SmallCards {
        height: median as f32,
    })
}

/// The median height of the cards with these outlines (each its outline's
/// longest side), the size of a frame's cards; `None` without cards.
pub fn median_card_height<'a>(outlines: impl IntoIterator<Item = &'a Quad>) -> Option<f64> {
    let mut heights: Vec<f64> = outlines.into_iter().map(Quad::longest_side).collect();
    if heights.is_empty() {
        return None;
    }
    heights.sort_by(f64::total_cmp);
    let n = heights.len();
    Some(if n % 2 == 1 {
        heights[n / 2]
    } else {
        (heights[n / 2 - 1] + heights[n / 2]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::geometry::Point;

    fn card(x: f64, height: f64) -> Quad {
        let w = height * 0.7;
        Quad([
            Point { x, y: 10.0 },
            Point { x: x + w, y: 10.0 },
            Point {
                x: x + w,
                y: 10.0 + height,
            },
            Point {
                x,
                y: 10.0 + height,
            },
        ])
    }

    #[test]
    fn cards_of_a_readable_size_give_no_warning() {
        assert_eq!(
            small_cards_warning(&[card(0.0, 120.0), card(100.0, 95.0)]),
            None
        );
        assert_eq!(small_cards_warning(&[card(0.0, SMALL_CARD_HEIGHT)]), None);
    }

    #[test]
    fn small_cards_are_named_with_their_height_and_the_fix() {
        let w = small_cards_warning(&[card(0.0, 55.0), card(60.0, 58.0), card(120.0, 150.0)])
            .expect("a warning");
        assert_eq!(w, FrameWarning::SmallCards { height: 58.0 });
        let text = w.to_string();
        assert!(
            text.starts_with("cards too small: they are about 58 px tall"),
            "{text}"
        );
        assert!(text.contains("1280x720"), "{text}");
        let json = serde_json::to_value(w).unwrap();
        assert_eq!(json["kind"], "small-cards");
        assert_eq!(json["text"], text);
    }

    #[test]
    fn the_median_card_speaks_for_the_frame() {
        // One far card among readable ones: no warning; an even count averages the
        // middle two.
        assert_eq!(
            small_cards_warning(&[card(0.0, 40.0), card(60.0, 110.0), card(200.0, 120.0)]),
            None
        );
        let w = small_cards_warning(&[
            card(0.0, 50.0),
            card(60.0, 60.0),
            card(120.0, 66.0),
            card(200.0, 200.0),
        ]);
        assert_eq!(w, Some(FrameWarning::SmallCards { height: 63.0 }));
    }

    #[test]
    fn a_landscape_outline_is_measured_by_its_long_side() {
        let q = card(0.0, 100.0);
        let turned = Quad([q.0[3], q.0[0], q.0[1], q.0[2]]);
        assert_eq!(small_cards_warning(&[turned]), None);
    }

    #[test]
    fn a_frame_without_cards_gives_no_warning() {
        assert_eq!(small_cards_warning(&[]), None);
    }
}
