//! Turning a camera's picture to the players' view. The recognizer orders a
//! play's cards left to right across the frame, so the frame's top must be the far
//! side of the table as the players see the line. A webcam clamped to a lamp arm
//! on the other side of the table gives the picture upside down, and the play's
//! cards come out in reverse order; one clamped at the table's end gives it a
//! quarter turned, and a row laid across the table stands as a column in the
//! frame, ordered by nothing. Some cameras also mirror their picture, which
//! mirrors every index too. [`CameraTurn`] says how to turn a camera's frames
//! before they are read; the God console does the same in the browser.

use std::fmt;

use image::{imageops, RgbImage};

use super::geometry::{Point, Quad};

/// How a camera's picture is turned to show the table as the players see it:
/// first mirrored left to right (when `mirror`), then turned clockwise by
/// `degrees` (0, 90, 180 or 270).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CameraTurn {
    degrees: u16,
    mirror: bool,
}

impl CameraTurn {
    /// The picture as the camera gives it.
    pub const NONE: CameraTurn = CameraTurn {
        degrees: 0,
        mirror: false,
    };

    /// A turn of `degrees` clockwise (0, 90, 180 or 270), after a mirror when
    /// `mirror`; any other angle is refused with the angles accepted.
    pub fn new(degrees: u16, mirror: bool) -> Result<CameraTurn, String> {
        if !matches!(degrees, 0 | 90 | 180 | 270) {
            return Err(format!(
                "cannot turn a picture by {degrees}°: give 0, 90, 180 or 270 (clockwise)"
            ));
        }
        Ok(CameraTurn { degrees, mirror })
    }

    /// Parses the degrees of a turn (`"0"`, `"90"`, `"180"`, `"270"`), for
    /// command-line options; the mirror is set apart. A negative quarter turn is
    /// counter-clockwise (`"-90"` is 270), as someone turning a picture "back"
    /// would write it.
    pub fn parse_degrees(text: &str) -> Result<u16, String> {
        let not_a_turn =
            || format!("'{text}' is not a turn: give 0, 90, 180 or 270 (degrees clockwise)");
        let signed: i32 = text.trim().parse().map_err(|_| not_a_turn())?;
        let degrees = match signed {
            -270 | -180 | -90 => 360 + signed,
            _ => signed,
        };
        let degrees = u16::try_from(degrees).map_err(|_| not_a_turn())?;
        CameraTurn::new(degrees, false).map(|t| t.degrees)
    }

    /// Degrees clockwise.
    pub fn degrees(&self) -> u16 {
        self.degrees
    }

    /// Whether the picture is mirrored before it is turned.
    pub fn mirror(&self) -> bool {
        self.mirror
    }

    /// Whether the picture is read as the camera gives it.
    pub fn is_none(&self) -> bool {
        *self == CameraTurn::NONE
    }

    /// The frame turned to the players' view.
    pub fn apply(&self, frame: RgbImage) -> RgbImage {
        let frame = if self.mirror {
            imageops::flip_horizontal(&frame)
        } else {
            frame
        };
        match self.degrees {
            90 => imageops::rotate90(&frame),
            180 => imageops::rotate180(&frame),
            270 => imageops::rotate270(&frame),
            _ => frame,
        }
    }

    /// Where a point of a `width × height` camera frame lies in the turned frame
    /// (pixel coordinates whose pixel `i` spans `[i, i + 1)`).
    pub fn point(&self, p: Point, width: u32, height: u32) -> Point {
        let (w, h) = (f64::from(width), f64::from(height));
        let x = if self.mirror { w - p.x } else { p.x };
        match self.degrees {
            90 => Point::new(h - p.y, x),
            180 => Point::new(w - x, h - p.y),
            270 => Point::new(p.y, w - x),
            _ => Point::new(x, p.y),
        }
    }

    /// A card outline of a `width × height` camera frame, in the turned frame and
    /// the contract's corner order.
    pub fn quad(&self, q: &Quad, width: u32, height: u32) -> Quad {
        Quad::from_cyclic(q.0.map(|p| self.point(p, width, height)))
    }
}

/// `"as the camera gives it"`, `"turned 90° clockwise"`, `"mirrored, then turned
/// 180°"`…
impl fmt::Display for CameraTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.mirror, self.degrees) {
            (false, 0) => write!(f, "as the camera gives it"),
            (true, 0) => write!(f, "mirrored"),
            (false, d) => write!(f, "turned {d}° clockwise"),
            (true, d) => write!(f, "mirrored, then turned {d}° clockwise"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A 4 × 2 frame whose pixel values say where they came from.
    fn marked() -> RgbImage {
        RgbImage::from_fn(4, 2, |x, y| Rgb([x as u8, y as u8, 0]))
    }

    fn all_turns() -> Vec<CameraTurn> {
        [0, 90, 180, 270]
            .into_iter()
            .flat_map(|d| [false, true].map(|m| CameraTurn::new(d, m).expect("turn")))
            .collect()
    }

    #[test]
    fn only_quarter_turns_are_accepted() {
        for d in [0, 90, 180, 270] {
            assert_eq!(CameraTurn::parse_degrees(&d.to_string()), Ok(d));
        }
        for (counter, clockwise) in [("-90", 270), ("-180", 180), ("-270", 90)] {
            assert_eq!(CameraTurn::parse_degrees(counter), Ok(clockwise));
        }
        for bad in ["45", "360", "-360", "-45", "ninety", "", "-0x5a"] {
            let err = CameraTurn::parse_degrees(bad).expect_err(bad);
            assert!(err.contains("0, 90, 180 or 270"), "{err}");
        }
    }

    #[test]
    fn a_point_goes_where_its_pixel_goes() {
        // The centre of every pixel lands on the centre of the same pixel turned.
        let frame = marked();
        for turn in all_turns() {
            let out = turn.apply(frame.clone());
            let expected_size = if turn.degrees() % 180 == 90 {
                (2, 4)
            } else {
                (4, 2)
            };
            assert_eq!(out.dimensions(), expected_size, "{turn}");
            for (x, y, px) in frame.enumerate_pixels() {
                let p = turn.point(Point::new(f64::from(x) + 0.5, f64::from(y) + 0.5), 4, 2);
                let (tx, ty) = (p.x.floor() as u32, p.y.floor() as u32);
                assert_eq!(out.get_pixel(tx, ty), px, "{turn}: pixel ({x}, {y})");
            }
        }
    }

    #[test]
    fn half_a_turn_reverses_a_row_and_a_quarter_stands_it_up() {
        // Three cards left to right along the middle of a 1280 × 720 frame.
        let xs = [200.0, 640.0, 1080.0];
        let at = |turn: CameraTurn| -> Vec<Point> {
            xs.iter()
                .map(|&x| turn.point(Point::new(x, 360.0), 1280, 720))
                .collect()
        };
        let half = at(CameraTurn::new(180, false).expect("turn"));
        assert!(half[0].x > half[1].x && half[1].x > half[2].x, "{half:?}");
        let quarter = at(CameraTurn::new(90, false).expect("turn"));
        assert!(
            quarter.iter().all(|p| (p.x - 360.0).abs() < 1e-9),
            "{quarter:?}"
        );
        assert!(quarter[0].y < quarter[2].y, "{quarter:?}");
        let mirrored = at(CameraTurn::new(0, true).expect("turn"));
        assert!(mirrored[0].x > mirrored[2].x, "{mirrored:?}");
    }

    #[test]
    fn a_turned_outline_keeps_the_contract_order() {
        // A portrait card: short sides on top and bottom, clockwise.
        let card = Quad([
            Point::new(100.0, 100.0),
            Point::new(170.0, 100.0),
            Point::new(170.0, 200.0),
            Point::new(100.0, 200.0),
        ]);
        for turn in all_turns() {
            let q = turn.quad(&card, 1280, 720);
            assert!(
                super::super::geometry::signed_area(&q.0) > 0.0,
                "{turn}: {q:?}"
            );
            assert!(q.side_length(0) < q.side_length(1), "{turn}: {q:?}");
            let back = (q.area() - card.area()).abs();
            assert!(
                back < 1e-6,
                "{turn}: area {} against {}",
                q.area(),
                card.area()
            );
        }
    }

    #[test]
    fn it_says_what_it_does() {
        assert_eq!(CameraTurn::NONE.to_string(), "as the camera gives it");
        let t = CameraTurn::new(270, true).expect("turn");
        assert_eq!(t.to_string(), "mirrored, then turned 270° clockwise");
        assert!(!t.is_none() && CameraTurn::default().is_none());
    }
}
