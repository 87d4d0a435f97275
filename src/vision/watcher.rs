//! The play-zone watcher: turns a stream of camera frames over the table's play
//! zone into plays. A player lays a play (one to four cards, or a hand spread out)
//! in the zone; once the cards lie still for a few frames the watcher reports them
//! once, as laid; the player then moves them onto the line, and the zone must be
//! seen empty before the next play is reported.
//!
//! It decides from card outlines alone: a hand over the zone hides or moves
//! outlines, so the layout is not steady while someone is laying cards; a read
//! that flickers between two classes from frame to frame (an unsure read) does not
//! stop a play from settling. It knows nothing of cameras, HTTP or the referee:
//! the service feeds it each frame's cards and acts on what it reports.

use serde::Serialize;

use super::geometry::{Point, Quad};

/// How the watcher decides that a layout is steady.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WatchConfig {
    /// Consecutive frames with the same layout before it counts (the first
    /// included): at the console's 1.5 frames a second, 3 is about two seconds,
    /// time for a player to lay a sequence of four cards one by one.
    pub steady_frames: u32,
    /// How far a card may move between two frames and still be the same card, as
    /// a fraction of its long side: a webcam's outlines jitter by a few pixels,
    /// and a card nudged straight is still the play.
    pub tolerance: f64,
}

impl Default for WatchConfig {
    fn default() -> Self {
        WatchConfig {
            steady_frames: 3,
            tolerance: 0.15,
        }
    }
}

/// The part of the frame that is the play zone: fractions of the frame's width
/// and height, `x0 < x1`, `y0 < y1`. A card belongs to the zone when its centre
/// lies in it, so the main line beside the zone can share the camera.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Zone {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Zone {
    /// The whole frame.
    pub const WHOLE: Zone = Zone {
        x0: 0.0,
        y0: 0.0,
        x1: 1.0,
        y1: 1.0,
    };

    /// A zone from its corners' fractions, `None` unless each lies in `[0, 1]`
    /// and the zone is at least 5 % of the frame each way (a zone a card cannot
    /// fit in is a slip of the mouse).
    pub fn new(x0: f64, y0: f64, x1: f64, y1: f64) -> Option<Zone> {
        let inside = |v: f64| (0.0..=1.0).contains(&v);
        (inside(x0) && inside(y0) && inside(x1) && inside(y1) && x1 - x0 >= 0.05 && y1 - y0 >= 0.05)
            .then_some(Zone { x0, y0, x1, y1 })
    }

    /// Whether a point of a `width × height` frame lies in the zone.
    pub fn contains(&self, p: Point, width: u32, height: u32) -> bool {
        let (x, y) = (p.x / f64::from(width), p.y / f64::from(height));
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }
}

/// A card seen in the zone in one frame: its outline, and whatever the caller
/// read from it (the watcher only compares outlines).
#[derive(Debug, Clone, PartialEq)]
pub struct Seen<T> {
    pub quad: Quad,
    pub read: T,
}

/// What the zone holds, as the table should be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Not seen steadily empty since watching began: cards left in the zone
    /// from before are not a play. Clear the zone to start.
    NotReady,
    /// Steadily empty: ready for the next play.
    Clear,
    /// What the zone holds changed within the last few frames (cards being laid,
    /// a hand over them).
    Moving,
    /// The play last reported still lies in the zone.
    Laid,
    /// Other cards than the play last reported lie still in the zone, which was
    /// not cleared in between (a card added or taken back after the read): they
    /// are not reported; clear the zone for the next play.
    Changed,
}

impl Phase {
    /// A line for the table.
    pub fn text(self) -> &'static str {
        match self {
            Phase::NotReady => "clear the play zone to start: cards already in it are not a play",
            Phase::Clear => "ready: lay the next play in the zone",
            Phase::Moving => "cards are moving in the zone",
            Phase::Laid => "play read: move its cards out of the zone after the verdict",
            Phase::Changed => {
                "the zone changed after its play was read: clear it for the next play"
            }
        }
    }
}

/// What one frame did.
#[derive(Debug, Clone, PartialEq)]
pub struct Watch<T> {
    pub phase: Phase,
    /// The cards of a play that settled with this frame, left to right: reported
    /// once per play.
    pub laid: Option<Vec<Seen<T>>>,
    /// Whether this frame found the zone steadily empty after a reported play.
    pub cleared: bool,
}

/// The watcher's state between frames.
#[derive(Debug, Clone)]
pub struct PlayZoneWatcher {
    cfg: WatchConfig,
    /// The previous frame's outlines, and for how many frames they have held.
    last: Option<Vec<Quad>>,
    streak: u32,
    /// The outlines of the play last reported, until the zone is cleared.
    reported: Option<Vec<Quad>>,
    /// Whether the zone was seen steadily empty since the last report (or since
    /// watching began): only then may the next steady layout be a play.
    armed: bool,
    /// The phase of the last steady layout.
    settled: Phase,
}

impl PlayZoneWatcher {
    pub fn new(cfg: WatchConfig) -> PlayZoneWatcher {
        PlayZoneWatcher {
            cfg,
            last: None,
            streak: 0,
            reported: None,
            armed: false,
            settled: Phase::NotReady,
        }
    }

    /// The phase after the last frame, before any new one.
    pub fn phase(&self) -> Phase {
        if self.streak > 0 && self.streak < self.cfg.steady_frames {
            Phase::Moving
        } else {
            self.settled
        }
    }

    /// Takes one frame's cards in the zone (any order).
    pub fn observe<T>(&mut self, mut seen: Vec<Seen<T>>) -> Watch<T> {
        seen.sort_by(|a, b| a.quad.centre().x.total_cmp(&b.quad.centre().x));
        let quads: Vec<Quad> = seen.iter().map(|s| s.quad).collect();
        let same = self
            .last
            .as_ref()
            .is_some_and(|last| same_layout(last, &quads, self.cfg.tolerance));
        self.streak = if same {
            self.streak.saturating_add(1)
        } else {
            1
        };
        self.last = Some(quads.clone());
        let mut watch = Watch {
            phase: Phase::Moving,
            laid: None,
            cleared: false,
        };
        if self.streak < self.cfg.steady_frames {
            return watch;
        }
        if quads.is_empty() {
            watch.cleared = self.reported.take().is_some();
            self.armed = true;
            self.settled = Phase::Clear;
        } else if self.armed {
            self.armed = false;
            self.reported = Some(quads);
            self.settled = Phase::Laid;
            watch.laid = Some(seen);
        } else if self.reported.is_some() {
            let still = self
                .reported
                .as_ref()
                .is_some_and(|r| same_layout(r, &quads, self.cfg.tolerance));
            self.settled = if still { Phase::Laid } else { Phase::Changed };
        }
        watch.phase = self.settled;
        watch
    }
}

/// Whether two frames' outlines (left to right) are the same cards: as many, and
/// each of `b` within `tolerance` long sides of a distinct one of `a`.
fn same_layout(a: &[Quad], b: &[Quad], tolerance: f64) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut used = vec![false; a.len()];
    b.iter().all(|q| {
        let reach = tolerance * q.longest_side();
        let found = a
            .iter()
            .enumerate()
            .filter(|(i, _)| !used[*i])
            .map(|(i, p)| (i, p.centre().dist(q.centre())))
            .filter(|&(_, d)| d <= reach)
            .min_by(|x, y| x.1.total_cmp(&y.1));
        match found {
            Some((i, _)) => {
                used[i] = true;
                true
            }
            None => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 100 × 140 card with its top-left corner at (x, y).
    fn card(x: f64, y: f64) -> Quad {
        Quad([
            Point::new(x, y),
            Point::new(x + 100.0, y),
            Point::new(x + 100.0, y + 140.0),
            Point::new(x, y + 140.0),
        ])
    }

    fn frame(cards: &[(f64, f64, &'static str)]) -> Vec<Seen<&'static str>> {
        cards
            .iter()
            .map(|&(x, y, read)| Seen {
                quad: card(x, y),
                read,
            })
            .collect()
    }

    fn phases(w: &mut PlayZoneWatcher, frames: &[&[(f64, f64, &'static str)]]) -> Vec<Phase> {
        frames.iter().map(|f| w.observe(frame(f)).phase).collect()
    }

    #[test]
    fn a_play_is_reported_once_when_it_lies_still_and_again_only_after_a_clear() {
        let mut w = PlayZoneWatcher::new(WatchConfig::default());
        let empty: &[(f64, f64, &str)] = &[];
        assert_eq!(
            phases(&mut w, &[empty, empty, empty]),
            [Phase::Moving, Phase::Moving, Phase::Clear]
        );
        // A hand lays two cards, one after the other.
        assert!(w.observe(frame(&[(100.0, 100.0, "9C")])).laid.is_none());
        let two = [(100.0, 100.0, "9C"), (260.0, 100.0, "QD")];
        assert!(w.observe(frame(&two)).laid.is_none());
        assert!(w.observe(frame(&two)).laid.is_none());
        let third = w.observe(frame(&two));
        assert_eq!(third.phase, Phase::Laid);
        let laid = third.laid.expect("reported on the third steady frame");
        assert_eq!(
            laid.iter().map(|s| s.read).collect::<Vec<_>>(),
            ["9C", "QD"]
        );
        // Still there: not reported again.
        for _ in 0..5 {
            let more = w.observe(frame(&two));
            assert!(more.laid.is_none());
            assert_eq!(more.phase, Phase::Laid);
        }
        // Taken away: cleared once, then ready.
        let cleared: Vec<bool> = (0..4).map(|_| w.observe(frame(empty)).cleared).collect();
        assert_eq!(cleared, [false, false, true, false]);
        assert_eq!(w.phase(), Phase::Clear);
        // The same cards laid again are a new play.
        let again: Vec<bool> = (0..3)
            .map(|_| w.observe(frame(&two)).laid.is_some())
            .collect();
        assert_eq!(again, [false, false, true]);
    }

    #[test]
    fn cards_in_the_zone_when_watching_starts_are_not_a_play() {
        let mut w = PlayZoneWatcher::new(WatchConfig::default());
        let old = [(300.0, 200.0, "5H")];
        for _ in 0..6 {
            let seen = w.observe(frame(&old));
            assert!(seen.laid.is_none());
        }
        assert_eq!(w.phase(), Phase::NotReady);
        for _ in 0..3 {
            w.observe(frame(&[]));
        }
        assert_eq!(w.phase(), Phase::Clear);
        let reported = (0..3).filter_map(|_| w.observe(frame(&old)).laid).count();
        assert_eq!(reported, 1);
    }

    #[test]
    fn jitter_and_flickering_reads_do_not_stop_a_play_from_settling() {
        let mut w = PlayZoneWatcher::new(WatchConfig::default());
        for _ in 0..3 {
            w.observe(frame(&[]));
        }
        // Outlines a few pixels apart, the unsure read changing its mind.
        let seq = [
            [(100.0, 100.0, "8S"), (260.0, 102.0, "9C")],
            [(103.0, 98.0, "8S"), (258.0, 100.0, "9S")],
            [(101.0, 101.0, "8S"), (262.0, 99.0, "9C")],
        ];
        let laid: Vec<_> = seq
            .iter()
            .filter_map(|f| w.observe(frame(f)).laid)
            .collect();
        assert_eq!(laid.len(), 1, "one play");
        assert_eq!(
            laid[0].iter().map(|s| s.read).collect::<Vec<_>>(),
            ["8S", "9C"],
            "the settling frame's reads"
        );
    }

    #[test]
    fn a_hand_passing_over_the_play_is_movement_not_a_new_play() {
        let mut w = PlayZoneWatcher::new(WatchConfig::default());
        for _ in 0..3 {
            w.observe(frame(&[]));
        }
        let play = [(100.0, 100.0, "2H"), (260.0, 100.0, "3H")];
        let laid = (0..3).filter_map(|_| w.observe(frame(&play)).laid).count();
        assert_eq!(laid, 1);
        // A hand hides the second card for a frame, then moves on.
        assert_eq!(w.observe(frame(&play[..1])).phase, Phase::Moving);
        let after: Vec<_> = (0..3).map(|_| w.observe(frame(&play))).collect();
        assert!(after.iter().all(|a| a.laid.is_none() && !a.cleared));
        assert_eq!(after[2].phase, Phase::Laid);
    }

    #[test]
    fn cards_changed_without_a_clear_are_flagged_not_reported() {
        let mut w = PlayZoneWatcher::new(WatchConfig::default());
        for _ in 0..3 {
            w.observe(frame(&[]));
        }
        let play = [(100.0, 100.0, "2H")];
        assert_eq!(
            (0..3).filter_map(|_| w.observe(frame(&play)).laid).count(),
            1
        );
        let more = [(100.0, 100.0, "2H"), (260.0, 100.0, "3H")];
        let seen: Vec<_> = (0..4).map(|_| w.observe(frame(&more))).collect();
        assert!(seen.iter().all(|s| s.laid.is_none()));
        assert_eq!(seen[3].phase, Phase::Changed);
        // A card moved by more than the tolerance is another layout too.
        let moved = [(100.0, 100.0, "2H")];
        for _ in 0..3 {
            w.observe(frame(&moved));
        }
        assert_eq!(w.phase(), Phase::Laid, "back as it was read");
        for _ in 0..3 {
            w.observe(frame(&[(140.0, 100.0, "2H")]));
        }
        assert_eq!(w.phase(), Phase::Changed);
    }

    #[test]
    fn a_zone_keeps_the_cards_whose_centre_lies_in_it() {
        let zone = Zone::new(0.5, 0.0, 1.0, 0.5).expect("zone");
        assert!(zone.contains(Point::new(700.0, 100.0), 1280, 720));
        assert!(!zone.contains(Point::new(500.0, 100.0), 1280, 720));
        assert!(!zone.contains(Point::new(700.0, 400.0), 1280, 720));
        assert!(Zone::WHOLE.contains(Point::new(0.0, 720.0), 1280, 720));
        for bad in [
            (0.5, 0.0, 0.52, 0.5),
            (-0.1, 0.0, 0.5, 0.5),
            (0.6, 0.0, 0.5, 0.5),
            (0.0, 0.0, 1.2, 0.5),
            (f64::NAN, 0.0, 0.5, 0.5),
        ] {
            assert!(Zone::new(bad.0, bad.1, bad.2, bad.3).is_none(), "{bad:?}");
        }
    }
}
