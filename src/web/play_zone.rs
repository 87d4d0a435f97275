//! Watching the play zone: the God console sends the webcam's frames, one at a
//! time, to `POST /api/watch`; each is read, its cards in the zone go to the
//! [`PlayZoneWatcher`], and the frame that settles a play is kept as evidence and
//! answered with the play's reads, as an upload is. Frames that settle nothing are
//! not kept: a table watched for an evening sends thousands.

use std::path::Path;
use std::sync::Mutex;

use axum::body::Bytes;
use serde::Serialize;

use crate::vision::{
    decode_frame, too_dark_to_see, FrameWarning, Phase, PlayZoneWatcher, Point, Quad, SameCard,
    Seen, WatchConfig, Zone, TOO_DARK_TO_WATCH, UNCOVERED,
};

use super::error::ApiError;
use super::frames::{self, Camera, FrameReply, Read};
use crate::json_input;

/// The service's one watcher (one camera watches the play zone).
pub struct ZoneWatch {
    watcher: Mutex<PlayZoneWatcher<Watched>>,
}

/// A card as the watcher keeps it: its read (`None` for an outline of a card no
/// index could be read on: a card in glare or shadow is still something in the
/// zone, part of the play and not a clear zone), and the frame it was read in
/// (shared, not copied), so that the frame kept as a play's evidence is the one
/// its reads came from.
#[derive(Debug, Clone)]
pub struct Watched {
    read: Option<Read>,
    frame: Bytes,
    /// Whether every court card asked God on that frame (its reply's
    /// `confirm_courts`): God may switch it between frames.
    confirm_courts: bool,
}

/// The same card: the same name read, or two outlines no index could be read on
/// (paired by place). A play of unreadable outlines alone is never taken for
/// the last one uncovered ([`SameCard::is_read`]): two such plays in one glaring
/// spot may be two plays.
impl SameCard for Watched {
    fn same_card(&self, other: &Self) -> bool {
        self.read.as_ref().map(|r| &r.card) == other.read.as_ref().map(|r| &r.card)
    }

    fn is_read(&self) -> bool {
        self.read.is_some()
    }
}

impl Default for ZoneWatch {
    fn default() -> Self {
        ZoneWatch {
            watcher: Mutex::new(PlayZoneWatcher::new(WatchConfig::default())),
        }
    }
}

/// The answer to one watched frame.
#[derive(Debug, Clone, Serialize)]
pub struct WatchReply {
    /// What the zone holds: `not_ready`, `clear`, `moving`, `laid`, `changed`.
    pub phase: Phase,
    /// The phase, as a line for the table (or why the frame was not counted).
    pub text: &'static str,
    /// The frame was black and found nothing: not counted, the phase is the one
    /// before it ([`PlayZoneWatcher::observe_frame`]).
    pub unseen: bool,
    pub zone: Zone,
    pub width: u32,
    pub height: u32,
    /// The cards read in the zone in this frame, left to right.
    pub cards: Vec<Read>,
    /// How many cards were found outside the zone (the main line, beside it).
    pub outside: usize,
    /// The play that settled with this frame: the frame kept as evidence (its
    /// id, as `POST /api/frames` answers), with the zone's reads. Once per play.
    pub laid: Option<FrameReply>,
    /// Whether this frame found the zone empty after a play.
    pub cleared: bool,
    /// Whether this frame found the play last reported back where it lay soon
    /// after the zone looked cleared (a hand held over it): the same play, not
    /// reported again ([`crate::vision::Watch::uncovered`]).
    pub uncovered: bool,
    /// The frame's problems (exposure, cards too small to read).
    pub warnings: Vec<FrameWarning>,
    /// Outlines of a card's shape and size in the zone on which no index could
    /// be read (a card in glare or shadow, missing from `cards`), of the same
    /// frame as `cards`; `laid` carries them too. The watcher counts them as
    /// things in the zone: a play of one settles, and the zone holding one is
    /// not clear. A play is not judged at once while the zone holds one.
    pub unreadable: Vec<Vec<[f64; 2]>>,
}

/// The zone of `?zone=x0,y0,x1,y1` (fractions of the frame's width and height);
/// the whole frame when not given.
pub fn parse_zone(value: Option<&str>, at: &str) -> Result<Zone, ApiError> {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Ok(Zone::WHOLE);
    };
    let value = value.replace("%2C", ",").replace("%2c", ",");
    // The zone's parser echoes what it was given, whole.
    Zone::parse(&value)
        .map_err(|e| ApiError::bad(format!("zone: {}", json_input::cut_echo(&e, &value)), at))
}

/// `?restart=`: `1` forgets the frames seen before (watching switched on), `0`
/// or nothing keeps them. Anything else is refused: a restart asked for in
/// other words and silently not made would leave the old frames counting.
pub fn parse_restart(value: Option<&str>, at: &str) -> Result<bool, ApiError> {
    match value {
        None | Some("" | "0") => Ok(false),
        Some("1") => Ok(true),
        Some(other) => Err(ApiError::bad(
            format!(
                "restart: {} is neither 1 (forget the frames seen before) nor 0",
                json_input::shown_text(other)
            ),
            at,
        )),
    }
}

/// The line for the table when nothing but outlines no card could be read on keeps
/// the zone from being clear: a note, a coaster the shape of a card, a card in glare.
pub const ONLY_UNREADABLE: &str =
    "clear the play zone: something card-shaped lies in it that no card could be read on \
     (a note? a card in glare?)";

/// Reads one watched frame and feeds its zone's cards to the watcher (`restart`:
/// forget what was seen before, as when watching is switched on). Blocking.
pub fn watch_frame(
    bytes: Bytes,
    zone: Zone,
    restart: bool,
    spool: &Path,
    camera: &Camera,
    watch: &ZoneWatch,
) -> Result<WatchReply, ApiError> {
    let at = "POST /api/watch";
    if camera.recognizer.is_none() {
        return Err(ApiError::rejected(
            format!(
                "watching the play zone needs the recognizer ({}): capture frames and type the cards instead",
                camera.note
            ),
            at,
        ));
    }
    let image =
        decode_frame(&bytes, "the watched frame").map_err(|e| ApiError::bad(format!("{e}"), at))?;
    let mut read = FrameReply::unread(String::new(), &image, camera);
    frames::read_into(&mut read, &image, camera);
    if !read.recognized {
        return Err(ApiError::Store {
            what: read.recognizer,
            at: at.into(),
        });
    }
    let (width, height) = (image.width(), image.height());
    let (inside, outside): (Vec<Read>, Vec<Read>) = read
        .reads
        .drain(..)
        .partition(|r| zone.contains(quad_of(r).centre(), width, height));
    let unreadable = std::mem::take(&mut read.unreadable)
        .into_iter()
        .map(|c| quad_of_corners(&c))
        .filter(|q| zone.contains(q.centre(), width, height));
    let courts = read.confirm_courts;
    let seen: Vec<Seen<Watched>> = inside
        .into_iter()
        .map(|r| (quad_of(&r), Some(r)))
        .chain(unreadable.map(|q| (q, None)))
        .map(|(quad, read)| Seen {
            quad,
            read: Watched {
                read,
                frame: bytes.clone(),
                confirm_courts: courts,
            },
        })
        .collect();
    let outcome = {
        // A panic while the lock was held left a watcher of plain data: go on with it.
        let mut watcher = watch
            .watcher
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if restart {
            *watcher = PlayZoneWatcher::new(WatchConfig::default());
        }
        watcher.observe_frame(seen.clone(), too_dark_to_see(&read.warnings))
    };
    // The play settled, or else what this frame holds in the zone.
    let shown = outcome.laid.as_ref().unwrap_or(&seen);
    let cards: Vec<Read> = shown.iter().filter_map(|s| s.read.read.clone()).collect();
    let unreadable: Vec<Vec<[f64; 2]>> = shown
        .iter()
        .filter(|s| s.read.read.is_none())
        .map(|s| frames::corners_of(&s.quad))
        .collect();
    let laid = match outcome.laid.as_ref().and_then(|l| l.first()) {
        Some(card) => {
            // The play may have been read in one of the last few frames (the one
            // that found the most of its cards): keep that frame.
            let frame = &card.read.frame;
            let earlier = if *frame == bytes {
                None
            } else {
                Some(
                    decode_frame(frame, "a watched frame").map_err(|e| ApiError::Store {
                        what: format!("{e}"),
                        at: at.into(),
                    })?,
                )
            };
            let shown = earlier.as_ref().unwrap_or(&image);
            let id = frames::keep(frame, shown, spool, at)?;
            let mut reply = FrameReply::unread(id, shown, camera);
            reply.confirm_threshold = read.confirm_threshold;
            reply.confirm_courts = card.read.confirm_courts;
            reply.recognized = true;
            reply.reads = cards.clone();
            reply.warnings = read.warnings.clone();
            reply.unreadable = unreadable.clone();
            Some(reply)
        }
        None => None,
    };
    Ok(WatchReply {
        phase: outcome.phase,
        text: watch_text(
            outcome.unseen,
            outcome.uncovered,
            outcome.phase,
            cards.len(),
            unreadable.len(),
        ),
        unseen: outcome.unseen,
        uncovered: outcome.uncovered,
        zone,
        width,
        height,
        cards,
        outside: outside.len(),
        laid,
        cleared: outcome.cleared,
        warnings: read.warnings,
        unreadable,
    })
}

/// The line for the table after a watched frame.
fn watch_text(
    unseen: bool,
    uncovered: bool,
    phase: Phase,
    cards: usize,
    unreadable: usize,
) -> &'static str {
    if unseen {
        TOO_DARK_TO_WATCH
    } else if uncovered {
        UNCOVERED
    } else if cards == 0 && unreadable > 0 && matches!(phase, Phase::NotReady | Phase::Changed) {
        // No card is seen, so "cards in it" would send God looking for cards:
        // what blocks the zone is an outline no card could be read on.
        ONLY_UNREADABLE
    } else {
        phase.text()
    }
}

fn quad_of(read: &Read) -> Quad {
    quad_of_corners(&read.corners)
}

fn quad_of_corners(corners: &[[f64; 2]]) -> Quad {
    let p = |i: usize| {
        corners
            .get(i)
            .map_or(Point::new(0.0, 0.0), |c| Point::new(c[0], c[1]))
    };
    Quad([p(0), p(1), p(2), p(3)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_fractions_with_clear_errors() {
        assert_eq!(parse_zone(None, "t").expect("whole"), Zone::WHOLE);
        assert_eq!(parse_zone(Some(""), "t").expect("whole"), Zone::WHOLE);
        let z = parse_zone(Some("0.5%2C0,1,0.6"), "t").expect("zone");
        assert_eq!((z.x0, z.y0, z.x1, z.y1), (0.5, 0.0, 1.0, 0.6));
        for (bad, says) in [
            ("0.5,0,1", "4 numbers expected"),
            ("a,b,c,d", "is not four numbers"),
            ("0.5,0,0.4,1", "x0 < x1"),
            ("0,0,2,1", "fractions of the frame"),
        ] {
            let err = parse_zone(Some(bad), "t").unwrap_err();
            assert!(err.to_string().contains(says), "{bad}: {err}");
            assert_eq!(err.status(), axum::http::StatusCode::BAD_REQUEST);
        }
    }

    #[test]
    fn a_long_zone_or_restart_is_quoted_cut() {
        let long = "7".repeat(5000);
        for bad in [format!("{long}x"), format!("2.{long},0,1,1")] {
            let err = parse_zone(Some(&bad), "t").unwrap_err();
            assert!(err.to_string().len() < 300, "{err}");
            assert!(err.to_string().contains(&"7".repeat(50)), "{err}");
        }
        let err = parse_restart(Some(&long), "t").unwrap_err();
        assert!(err.to_string().len() < 200, "{err}");
    }

    #[test]
    fn restart_is_1_or_0_and_nothing_else() {
        assert!(!parse_restart(None, "t").expect("none"));
        assert!(!parse_restart(Some("0"), "t").expect("0"));
        assert!(parse_restart(Some("1"), "t").expect("1"));
        for bad in ["2", "yes", "true"] {
            let err = parse_restart(Some(bad), "t").unwrap_err();
            assert!(err.to_string().contains("neither 1"), "{bad}: {err}");
            assert_eq!(err.status(), axum::http::StatusCode::BAD_REQUEST);
        }
    }

    /// A zone kept from clearing by a note alone says so, not "cards in it".
    #[test]
    fn a_zone_blocked_by_unreadable_outlines_alone_says_what_blocks_it() {
        assert_eq!(
            watch_text(false, false, Phase::NotReady, 0, 1),
            ONLY_UNREADABLE
        );
        assert_eq!(
            watch_text(false, false, Phase::Changed, 0, 2),
            ONLY_UNREADABLE
        );
        assert_eq!(
            watch_text(false, false, Phase::NotReady, 1, 1),
            Phase::NotReady.text()
        );
        assert_eq!(
            watch_text(false, false, Phase::NotReady, 0, 0),
            Phase::NotReady.text()
        );
        assert_eq!(
            watch_text(false, false, Phase::Clear, 0, 0),
            Phase::Clear.text()
        );
        assert_eq!(
            watch_text(true, false, Phase::NotReady, 0, 1),
            TOO_DARK_TO_WATCH
        );
        assert_eq!(watch_text(false, true, Phase::Laid, 0, 1), UNCOVERED);
    }

    #[test]
    fn without_a_recognizer_watching_is_refused_with_the_reason() {
        let dir = tempfile::tempdir().expect("dir");
        let err = watch_frame(
            Bytes::from_static(b"anything"),
            Zone::WHOLE,
            false,
            dir.path(),
            &Camera::none("no model here"),
            &ZoneWatch::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("no model here"), "{err}");
        assert_eq!(err.status(), axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    }

    /// A play of unreadable outlines alone is never the last one uncovered: under
    /// a lamp's glare over the spot where cards are laid, a new play would be
    /// taken for it and never reported. Beside a card read alike, an unreadable
    /// outline in its place is that play's card.
    #[test]
    fn unreadable_outlines_alone_are_never_the_play_uncovered() {
        let watched = |card: Option<&str>| Watched {
            read: card.map(|c| Read {
                card: c.to_string(),
                confidence: 0.99999,
                corners: vec![[0.0, 0.0], [100.0, 0.0], [100.0, 140.0], [0.0, 140.0]],
                needs_confirmation: false,
                overlapped: false,
                pips_say: None,
                pips_counted: None,
                index_read: None,
            }),
            frame: Bytes::new(),
            confirm_courts: false,
        };
        assert!(watched(Some("5H")).same_card(&watched(Some("5H"))));
        assert!(!watched(Some("5H")).same_card(&watched(Some("5D"))));
        assert!(watched(None).same_card(&watched(None)));
        assert!(!watched(None).same_card(&watched(Some("5H"))));
        assert!(!watched(None).is_read());
        let card_at = |x: f64, read| Seen {
            quad: quad_of_corners(&[
                [x, 100.0],
                [x + 100.0, 100.0],
                [x + 100.0, 240.0],
                [x, 240.0],
            ]),
            read,
        };
        // Unreadable cards hidden and uncovered: a new play each time.
        let mut watcher: PlayZoneWatcher<Watched> = PlayZoneWatcher::new(WatchConfig::default());
        let at = |read| vec![card_at(200.0, read)];
        let mut reported = 0;
        for _ in 0..3 {
            watcher.observe(Vec::new());
        }
        for round in 0..2 {
            for _ in 0..3 {
                reported += usize::from(watcher.observe(at(watched(None))).laid.is_some());
            }
            for _ in 0..4 {
                watcher.observe(Vec::new());
            }
            assert_eq!(reported, round + 1);
        }
        // A read card and one in glare, hidden by a hand and uncovered: that play.
        let play = || {
            vec![
                card_at(200.0, watched(Some("3H"))),
                card_at(360.0, watched(None)),
            ]
        };
        let mut reported = 0;
        for _ in 0..3 {
            reported += usize::from(watcher.observe(play()).laid.is_some());
        }
        for _ in 0..4 {
            watcher.observe(Vec::new());
        }
        let mut uncovered = 0;
        for _ in 0..4 {
            let seen = watcher.observe(play());
            reported += usize::from(seen.laid.is_some());
            uncovered += usize::from(seen.uncovered);
        }
        assert_eq!((reported, uncovered), (1, 1));
    }
}
