//! The play-zone watcher: turns a stream of camera frames over the table's play
//! zone into plays. A player lays a play (one to four cards, or a hand spread out)
//! in the zone; once the cards lie still for a few frames the watcher reports them
//! once, as laid; the player then moves them onto the line, and the zone must be
//! seen empty before the next play is reported.
//!
//! It decides from card outlines alone: a hand over the zone hides or moves
//! outlines, so the layout is not steady while someone is laying cards; a read
//! that flickers between two classes from frame to frame (an unsure read) does not
//! stop a play from settling, and neither does one odd frame among the last few.
//! A hand held over the play long enough to look like an empty zone does not make
//! the same cards a second play when it is lifted. It knows nothing of cameras,
//! HTTP or the referee: the service feeds it each frame's cards and acts on what
//! it reports.

use std::collections::VecDeque;

use serde::Serialize;

use super::geometry::{Point, Quad};
use super::turn::CameraTurn;

/// How the watcher decides that a layout is steady.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WatchConfig {
    /// Frames with the same layout, among the last `steady_frames + 1`, before it
    /// counts: at the console's 1.5 frames a second, 3 is about two seconds, time
    /// for a player to lay a sequence of four cards one by one.
    pub steady_frames: u32,
    /// How far a card may move between two frames and still be the same card, as
    /// a fraction of its long side: a webcam's outlines jitter by a few pixels,
    /// and a card nudged straight is still the play.
    pub tolerance: f64,
    /// Frames after a play was cleared during which the same cards, back in the
    /// same places, are that play uncovered rather than a new one: a hand held
    /// still over a play for two seconds hides it as well as taking it away
    /// would, and when the hand is lifted the play would otherwise be reported
    /// (and judged) a second time. At 1.5 frames a second, 15 is ten seconds.
    pub hidden_frames: u32,
}

impl Default for WatchConfig {
    fn default() -> Self {
        WatchConfig {
            steady_frames: 3,
            tolerance: 0.15,
            hidden_frames: 15,
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

    /// A zone written `x0,y0,x1,y1` (as `?zone=` and `--zone` take it); the error
    /// says what is wrong with the text.
    pub fn parse(text: &str) -> Result<Zone, String> {
        let numbers: Vec<f64> = text
            .split(',')
            .map(|v| v.trim().parse::<f64>().ok().filter(|n| n.is_finite()))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("{text:?} is not four numbers"))?;
        let [x0, y0, x1, y1] = numbers[..] else {
            return Err(format!(
                "4 numbers expected (x0,y0,x1,y1), got {}",
                numbers.len()
            ));
        };
        Zone::new(x0, y0, x1, y1).ok_or_else(|| {
            format!(
                "{text} is not a zone: give x0,y0,x1,y1 as fractions of the frame \
                 (0 to 1), x0 < x1 and y0 < y1, at least 0.05 apart"
            )
        })
    }

    /// The same part of the table in a `width × height` camera frame turned to the
    /// players' view ([`CameraTurn`]).
    pub fn turned(&self, turn: &CameraTurn, width: u32, height: u32) -> Zone {
        let (w, h) = (f64::from(width), f64::from(height));
        let a = turn.point(Point::new(self.x0 * w, self.y0 * h), width, height);
        let b = turn.point(Point::new(self.x1 * w, self.y1 * h), width, height);
        let (tw, th) = if turn.degrees() % 180 == 90 {
            (h, w)
        } else {
            (w, h)
        };
        Zone {
            x0: a.x.min(b.x) / tw,
            y0: a.y.min(b.y) / th,
            x1: a.x.max(b.x) / tw,
            y1: a.y.max(b.y) / th,
        }
    }

    /// The part of a `width × height` frame around card outlines: their bounding
    /// box grown on every side by a quarter of their longest side (a card laid a
    /// little crooked, an outline a few pixels short), kept inside the frame and at
    /// least [`Zone::new`]'s 5 % each way. `None` without outlines. This is the
    /// zone `eleusis export --frames` gives a play's frame, from where the
    /// recognizer found the play's cards: the rest of the table is not labelled.
    pub fn around(outlines: &[Quad], width: u32, height: u32) -> Option<Zone> {
        let points = outlines.iter().flat_map(|q| q.0);
        let (mut x0, mut y0) = (f64::INFINITY, f64::INFINITY);
        let (mut x1, mut y1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for p in points {
            (x0, y0, x1, y1) = (x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y));
        }
        if outlines.is_empty()
            || !(x0.is_finite() && y0.is_finite() && x1.is_finite() && y1.is_finite())
        {
            return None;
        }
        let margin = 0.25 * outlines.iter().map(Quad::longest_side).fold(0.0, f64::max);
        let (w, h) = (f64::from(width), f64::from(height));
        // A sliver is widened a little past the least zone, so that rounding (here
        // and in a sidecar's four decimals) cannot take it under.
        const LEAST: f64 = 0.051;
        let span = |lo: f64, hi: f64, size: f64| {
            let (lo, hi) = (
                ((lo - margin) / size).max(0.0),
                ((hi + margin) / size).min(1.0),
            );
            if hi - lo >= LEAST {
                return (lo, hi);
            }
            let centre = (lo + hi) / 2.0;
            let lo = (centre - LEAST / 2.0).clamp(0.0, 1.0 - LEAST);
            (lo, lo + LEAST)
        };
        let (x0, x1) = span(x0, x1, w);
        let (y0, y1) = span(y0, y1, h);
        Zone::new(x0, y0, x1, y1)
    }

    /// Whether a point of a `width × height` frame lies in the zone.
    pub fn contains(&self, p: Point, width: u32, height: u32) -> bool {
        let (x, y) = (p.x / f64::from(width), p.y / f64::from(height));
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }
}

/// A card seen in the zone in one frame: its outline, and whatever the caller
/// read from it (the watcher compares outlines, and asks the reads only whether
/// they name the same card: [`SameCard`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Seen<T> {
    pub quad: Quad,
    pub read: T,
}

/// Whether two reads, of two frames, name the same card: the watcher asks it
/// only of a play seen again soon after it was cleared ([`WatchConfig::hidden_frames`]),
/// where the same outlines holding other cards are a new play.
pub trait SameCard {
    fn same_card(&self, other: &Self) -> bool;

    /// Whether an index was read at all. A play is taken for the last one
    /// uncovered only when one of its cards was read and matches: outlines no
    /// index could be read on may pair by place, but alone (a lamp's glare over
    /// the spot where cards are laid) they say nothing of which cards lie there.
    fn is_read(&self) -> bool {
        true
    }
}

impl SameCard for &str {
    fn same_card(&self, other: &Self) -> bool {
        self == other
    }
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
    /// The phase's name, as the JSON answers give it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::NotReady => "not_ready",
            Phase::Clear => "clear",
            Phase::Moving => "moving",
            Phase::Laid => "laid",
            Phase::Changed => "changed",
        }
    }

    /// A line for the table.
    pub fn text(self) -> &'static str {
        match self {
            Phase::NotReady => "clear the play zone to start: cards already in it are not a play",
            Phase::Clear => "ready: lay the next play in the zone",
            // Also said before the zone has held still long enough to be judged
            // at all (the first frames of a watch), empty or not.
            Phase::Moving => "waiting for the zone to hold still",
            Phase::Laid => "play read: move its cards out of the zone after the verdict",
            Phase::Changed => {
                "the zone changed after its play was read: clear it for the next play"
            }
        }
    }
}

/// The line for the table when the play last reported is seen back where it lay
/// soon after the zone looked cleared ([`Watch::uncovered`]).
pub const UNCOVERED: &str =
    "the last play is back where it lay after a moment hidden (a hand over it?): \
     the same play, not reported again; move its cards out of the zone";

/// What one frame did.
#[derive(Debug, Clone, PartialEq)]
pub struct Watch<T> {
    pub phase: Phase,
    /// The cards of a play that settled with this frame, left to right: reported
    /// once per play.
    pub laid: Option<Vec<Seen<T>>>,
    /// Whether this frame found the zone steadily empty after a reported play.
    pub cleared: bool,
    /// Whether this frame found the play last reported back where it lay, soon
    /// after it was cleared ([`WatchConfig::hidden_frames`]): it was hidden, not
    /// taken away, and is not reported again; `phase` is [`Phase::Laid`].
    pub uncovered: bool,
    /// Whether the frame was black and found nothing, and so was not counted
    /// ([`PlayZoneWatcher::observe_frame`]): `phase` is the one before it.
    pub unseen: bool,
}

/// The watcher's state between frames.
#[derive(Debug, Clone)]
pub struct PlayZoneWatcher<T> {
    cfg: WatchConfig,
    /// The last `steady_frames + 1` frames' cards, oldest first: a layout is
    /// steady when `steady_frames` of them show it, so one odd frame (a card the
    /// localiser misses once in the webcam's noise, a flash of a hand) neither
    /// stops a play from settling nor unsettles one.
    recent: VecDeque<Vec<Seen<T>>>,
    /// The outlines of the play last reported, until the zone is cleared.
    reported: Option<Vec<Quad>>,
    /// The cards of the play last reported, and how many frames have been
    /// counted since the zone was cleared of it (`None` while it lies there):
    /// the same cards back within [`WatchConfig::hidden_frames`] are that play.
    last_play: Option<(Vec<Seen<T>>, Option<u32>)>,
    /// Whether the zone was seen steadily empty since the last report (or since
    /// watching began): only then may the next steady layout be a play.
    armed: bool,
    /// Whether the play last reported came back in part (a hand lifted slowly
    /// still hid some of it): a frame showing a part of it is that play lying
    /// there, not other cards.
    uncovered_in_part: bool,
    /// The phase of the last steady layout.
    settled: Phase,
    /// The phase after the last frame.
    now: Phase,
}

impl<T: Clone + SameCard> PlayZoneWatcher<T> {
    /// A watcher that has seen nothing yet: not ready until it sees the zone
    /// empty, so that cards left in it from before are never taken for a play.
    pub fn new(cfg: WatchConfig) -> PlayZoneWatcher<T> {
        PlayZoneWatcher {
            cfg,
            recent: VecDeque::new(),
            reported: None,
            last_play: None,
            armed: false,
            uncovered_in_part: false,
            settled: Phase::NotReady,
            now: Phase::NotReady,
        }
    }

    /// The phase after the last frame, before any new one.
    pub fn phase(&self) -> Phase {
        self.now
    }

    /// Takes one frame's cards in the zone, as [`PlayZoneWatcher::observe`], unless
    /// the frame is `black` and shows nothing: a black frame (a webcam starting up
    /// or dropping out for a moment) is no evidence that the zone is empty. Taken
    /// for one, a few such frames would clear a play still lying there, and the
    /// same cards be reported again as the next play; so the watcher stays as it
    /// was, the frame does not count towards any layout's steadiness, and the
    /// answer says it was `unseen`.
    pub fn observe_frame(&mut self, seen: Vec<Seen<T>>, black: bool) -> Watch<T> {
        if black && seen.is_empty() {
            return Watch {
                phase: self.now,
                laid: None,
                cleared: false,
                uncovered: false,
                unseen: true,
            };
        }
        self.observe(seen)
    }

    /// Takes one frame's cards in the zone (any order).
    pub fn observe(&mut self, mut seen: Vec<Seen<T>>) -> Watch<T> {
        seen.sort_by(|a, b| a.quad.centre().x.total_cmp(&b.quad.centre().x));
        self.recent.push_back(seen);
        let window = self.cfg.steady_frames as usize + 1;
        while self.recent.len() > window {
            self.recent.pop_front();
        }
        if let Some((_, Some(since))) = &mut self.last_play {
            *since = since.saturating_add(1);
        }
        let mut watch = Watch {
            phase: Phase::Moving,
            laid: None,
            cleared: false,
            uncovered: false,
            unseen: false,
        };
        // The latest frame whose layout enough recent frames share.
        let tolerance = self.cfg.tolerance;
        let steady = self.recent.iter().rev().find(|frame| {
            let quads = outlines(frame);
            let shared = self
                .recent
                .iter()
                .filter(|other| same_layout(&outlines(other), &quads, tolerance))
                .count();
            shared >= self.cfg.steady_frames as usize
        });
        let Some(steady) = steady else {
            self.now = Phase::Moving;
            return watch;
        };
        // Of the frames showing it, the latest with the most cards (a spread
        // hand's card lost in one frame is found in another).
        let steady = outlines(steady);
        let Some(frame) = self
            .recent
            .iter()
            .filter(|other| same_layout(&outlines(other), &steady, tolerance))
            .max_by_key(|other| other.len())
        else {
            self.now = Phase::Moving;
            return watch;
        };
        let quads = outlines(frame);
        if quads.is_empty() {
            watch.cleared = self.reported.take().is_some();
            if watch.cleared {
                if let Some((_, since)) = &mut self.last_play {
                    *since = Some(0);
                }
            }
            self.armed = true;
            self.uncovered_in_part = false;
            self.settled = Phase::Clear;
        } else if let Some(play) = self.last_play_uncovered(frame).filter(|_| self.armed) {
            // Part of it may still be hidden, or a card added beside it under
            // the hand: neither is a new play.
            self.armed = false;
            self.uncovered_in_part = quads.len() < play.len();
            self.settled = if quads.len() <= play.len() {
                Phase::Laid
            } else {
                Phase::Changed
            };
            self.reported = Some(play);
            if let Some((_, since)) = &mut self.last_play {
                *since = None;
            }
            watch.uncovered = true;
        } else if self.armed {
            self.armed = false;
            self.uncovered_in_part = false;
            self.reported = Some(quads);
            self.last_play = Some((frame.clone(), None));
            self.settled = Phase::Laid;
            watch.laid = Some(frame.clone());
        } else if let Some(reported) = &self.reported {
            let whole = same_layout(reported, &quads, tolerance);
            if whole {
                // All of it back: from now on any card missing is a change.
                self.uncovered_in_part = false;
            }
            let part_uncovered = self.uncovered_in_part && self.shows_part_of_last_play(frame);
            self.settled = if whole || part_uncovered {
                Phase::Laid
            } else {
                Phase::Changed
            };
        }
        self.now = self.settled;
        watch.phase = self.settled;
        watch
    }
}

impl<T: SameCard> PlayZoneWatcher<T> {
    /// The outlines of the play last reported when `frame`, steady no more than
    /// [`WatchConfig::hidden_frames`] frames after the zone looked cleared of it,
    /// shows that play back where it lay: each card of the fewer (the frame's or
    /// the play's) within the tolerance of a distinct card of the other, read as
    /// the same card. The play may show whole, in part (a hand lifted slowly
    /// still hides some), or with one card more (laid under the hand); more
    /// cards than that are a new play laid where the last one lay.
    fn last_play_uncovered(&self, frame: &[Seen<T>]) -> Option<Vec<Quad>> {
        let (play, since) = self.last_play.as_ref()?;
        let back = (*since)? <= self.cfg.hidden_frames && self.shows_play(frame, play, 1);
        back.then(|| outlines(play))
    }

    /// Whether `frame` shows a part of the play last reported where it lay, each
    /// card the same card as one of the play's.
    fn shows_part_of_last_play(&self, frame: &[Seen<T>]) -> bool {
        self.last_play
            .as_ref()
            .is_some_and(|(play, _)| self.shows_play(frame, play, 0))
    }

    /// Whether `frame` shows `play` where it lay, with at most `extra` cards more:
    /// each card of the fewer within the tolerance of a distinct card of the
    /// other, read as the same card, and one of them read at all.
    fn shows_play(&self, frame: &[Seen<T>], play: &[Seen<T>], extra: usize) -> bool {
        let (fewer, more) = if frame.len() <= play.len() {
            (frame, play)
        } else {
            (play, frame)
        };
        frame.len() <= play.len() + extra
            && fewer.iter().any(|s| s.read.is_read())
            && pairs_within(fewer, more, self.cfg.tolerance, |a, b| {
                a.read.same_card(&b.read)
            })
    }
}

fn outlines<T>(frame: &[Seen<T>]) -> Vec<Quad> {
    frame.iter().map(|s| s.quad).collect()
}

/// Whether two frames' outlines are the same cards: each of the fewer within
/// `tolerance` long sides of a distinct one of the more, and as many cards,
/// except that a layout of eight or more may lack one card in eight: a hand
/// spread out has cards the localiser finds in one frame and loses in the next
/// (an edge in the webcam's noise), and it would never settle otherwise.
fn same_layout(a: &[Quad], b: &[Quad], tolerance: f64) -> bool {
    let (fewer, more) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if more.len() - fewer.len() > more.len() / 8 {
        return false;
    }
    pairs_within(fewer, more, tolerance, |_, _| true)
}

/// Whether each card of `fewer` lies within `tolerance` long sides of a distinct
/// card of `more` that `matches` it (the nearest such one is taken).
fn pairs_within<Q: HasQuad>(
    fewer: &[Q],
    more: &[Q],
    tolerance: f64,
    matches: impl Fn(&Q, &Q) -> bool,
) -> bool {
    let mut used = vec![false; more.len()];
    fewer.iter().all(|q| {
        let reach = tolerance * q.quad().longest_side();
        let found = more
            .iter()
            .enumerate()
            .filter(|(i, p)| !used[*i] && matches(q, p))
            .map(|(i, p)| (i, p.quad().centre().dist(q.quad().centre())))
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

/// What [`pairs_within`] pairs: an outline, bare or with its read.
trait HasQuad {
    fn quad(&self) -> &Quad;
}

impl HasQuad for Quad {
    fn quad(&self) -> &Quad {
        self
    }
}

impl<T> HasQuad for Seen<T> {
    fn quad(&self) -> &Quad {
        &self.quad
    }
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

    /// A watcher that has seen the zone empty: ready for a play.
    fn ready() -> PlayZoneWatcher<&'static str> {
        let mut w = PlayZoneWatcher::new(WatchConfig::default());
        for _ in 0..3 {
            w.observe(frame(&[]));
        }
        assert_eq!(w.phase(), Phase::Clear);
        w
    }

    fn phases(
        w: &mut PlayZoneWatcher<&'static str>,
        frames: &[&[(f64, f64, &'static str)]],
    ) -> Vec<Phase> {
        frames.iter().map(|f| w.observe(frame(f)).phase).collect()
    }

    #[test]
    fn black_frames_neither_clear_a_play_nor_count_towards_the_next() {
        let mut w = ready();
        let two = [(100.0, 100.0, "9C"), (260.0, 100.0, "QD")];
        for _ in 0..3 {
            w.observe(frame(&two));
        }
        assert_eq!(w.phase(), Phase::Laid);
        // The webcam drops out for a while: the play is not cleared...
        for _ in 0..30 {
            let blind = w.observe_frame(frame(&[]), true);
            assert_eq!((blind.phase, blind.cleared), (Phase::Laid, false));
            assert!(blind.laid.is_none());
            assert!(blind.unseen);
        }
        // ...so the same cards, seen again, are not a second play.
        for _ in 0..4 {
            let again = w.observe_frame(frame(&two), false);
            assert!(again.laid.is_none());
            assert!(!again.unseen);
            assert_eq!(again.phase, Phase::Laid);
        }
        // Cards found in a black frame are still cards: it is counted.
        let found = w.observe_frame(frame(&two), true);
        assert!(!found.unseen);
        assert_eq!(found.phase, Phase::Laid);
        // Taken for empty frames, a drop-out longer than a hand is held over a
        // play would have reported them twice.
        let mut fooled = ready();
        for _ in 0..3 {
            fooled.observe(frame(&two));
        }
        let mut reported = 0;
        let long = 6 + WatchConfig::default().hidden_frames as usize;
        let drop_out = std::iter::repeat_with(|| frame(&[])).take(long);
        let again = std::iter::repeat_with(|| frame(&two)).take(4);
        for seen in drop_out.chain(again) {
            reported += usize::from(fooled.observe(seen).laid.is_some());
        }
        assert_eq!(reported, 1);
    }

    #[test]
    fn a_play_is_reported_once_when_it_lies_still_and_again_only_after_a_clear() {
        let mut w: PlayZoneWatcher<&str> = PlayZoneWatcher::new(WatchConfig::default());
        let empty: &[(f64, f64, &str)] = &[];
        assert_eq!(
            phases(&mut w, &[empty, empty, empty]),
            [Phase::Moving, Phase::Moving, Phase::Clear]
        );
        // The first frames of an empty zone are not yet steady: not "cards moving".
        assert!(
            !Phase::Moving.text().contains("cards"),
            "{}",
            Phase::Moving.text()
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
        // Other cards laid in the same places are a new play at once.
        let other = [(100.0, 100.0, "9C"), (260.0, 100.0, "QS")];
        let next: Vec<bool> = (0..3)
            .map(|_| w.observe(frame(&other)).laid.is_some())
            .collect();
        assert_eq!(next, [false, false, true]);
        // The same cards laid again, once the zone has been clear for longer than
        // a hand is held over a play, are a new play.
        for _ in 0..3 {
            w.observe(frame(empty));
        }
        for _ in 0..WatchConfig::default().hidden_frames {
            w.observe(frame(empty));
        }
        let again: Vec<bool> = (0..3)
            .map(|_| w.observe(frame(&two)).laid.is_some())
            .collect();
        assert_eq!(again, [false, false, true]);
    }

    #[test]
    fn a_play_hidden_by_a_hand_long_enough_to_look_cleared_is_not_reported_twice() {
        let mut w = ready();
        let play = [(100.0, 100.0, "7D"), (260.0, 100.0, "8D")];
        let laid = (0..3).filter_map(|_| w.observe(frame(&play)).laid).count();
        assert_eq!(laid, 1);
        // A hand held still over the zone, for longer than a clear takes: no
        // card outline is found under it.
        let hidden: Vec<Watch<&str>> = (0..6).map(|_| w.observe(frame(&[]))).collect();
        assert_eq!(hidden.iter().filter(|h| h.cleared).count(), 1);
        assert_eq!(w.phase(), Phase::Clear);
        // Lifted: the same cards, where they lay (a pixel or two off), read the
        // same. The same play: not reported again, and said so.
        let moved = [(102.0, 99.0, "7D"), (259.0, 101.0, "8D")];
        let back: Vec<Watch<&str>> = (0..5).map(|_| w.observe(frame(&moved))).collect();
        assert!(back.iter().all(|b| b.laid.is_none()), "{back:?}");
        assert_eq!(back.iter().filter(|b| b.uncovered).count(), 1);
        assert_eq!(back[4].phase, Phase::Laid);
        // Taken away for good, the zone clears and the next play is reported.
        for _ in 0..4 {
            w.observe(frame(&[]));
        }
        let next = [(180.0, 100.0, "9D")];
        let laid = (0..3).filter_map(|_| w.observe(frame(&next)).laid).count();
        assert_eq!(laid, 1);
        // The play before the last is not the last play: laid again in its place,
        // it is a new play.
        for _ in 0..4 {
            w.observe(frame(&[]));
        }
        let laid = (0..3).filter_map(|_| w.observe(frame(&play)).laid).count();
        assert_eq!(laid, 1);
        // A card read otherwise is not the play uncovered.
        for _ in 0..4 {
            w.observe(frame(&[]));
        }
        let other = [(100.0, 100.0, "7D"), (260.0, 100.0, "8C")];
        let laid = (0..3).filter_map(|_| w.observe(frame(&other)).laid).count();
        assert_eq!(laid, 1);
    }

    #[test]
    fn a_play_uncovered_in_part_or_with_a_card_more_is_not_a_new_play() {
        let play = [
            (100.0, 100.0, "7D"),
            (260.0, 100.0, "8D"),
            (420.0, 100.0, "9D"),
        ];
        let hidden_then = |shown: &[(f64, f64, &'static str)]| -> Vec<Watch<&'static str>> {
            let mut w = ready();
            assert_eq!(
                (0..3).filter_map(|_| w.observe(frame(&play)).laid).count(),
                1
            );
            for _ in 0..4 {
                w.observe(frame(&[]));
            }
            let mut seen: Vec<Watch<&str>> = (0..5).map(|_| w.observe(frame(shown))).collect();
            seen.extend((0..3).map(|_| w.observe(frame(&play))));
            seen
        };
        // A hand lifted slowly: two of the three cards show for a while, then all.
        // The play lies there all along: laid (moving as the rest shows), never
        // "other cards".
        let slowly = hidden_then(&play[..2]);
        assert!(slowly.iter().all(|s| s.laid.is_none()), "{slowly:?}");
        assert_eq!(slowly.iter().filter(|s| s.uncovered).count(), 1);
        assert!(slowly[2].uncovered);
        let phases: Vec<Phase> = slowly[2..].iter().map(|s| s.phase).collect();
        assert_eq!(
            phases,
            [
                Phase::Laid,
                Phase::Laid,
                Phase::Laid,
                Phase::Laid,
                Phase::Moving,
                Phase::Laid
            ]
        );
        // Once all of it is back, a card taken from it is a change again.
        let mut w = ready();
        for _ in 0..3 {
            w.observe(frame(&play));
        }
        for _ in 0..4 {
            w.observe(frame(&[]));
        }
        for shown in [&play[..2], &play[..], &play[..2]] {
            for _ in 0..3 {
                w.observe(frame(shown));
            }
        }
        assert_eq!(w.phase(), Phase::Changed);
        // A card laid beside the play under the hand: changed, not a play.
        let more = [play[0], play[1], play[2], (580.0, 100.0, "10D")];
        let added = hidden_then(&more);
        assert!(added[..5].iter().all(|s| s.laid.is_none()), "{added:?}");
        assert_eq!(added[2].phase, Phase::Changed);
        assert_eq!(added[4].phase, Phase::Changed);
        assert!(added[2].uncovered);
        assert_eq!(added[7].phase, Phase::Laid, "taken back: the play as read");
        // Two cards more than the play are a new play laid where it lay (its
        // first card's twin from the second deck among them).
        let two_more = [
            play[0],
            play[1],
            play[2],
            (580.0, 100.0, "10D"),
            (740.0, 100.0, "JD"),
        ];
        let new_play = hidden_then(&two_more);
        assert_eq!(
            new_play.iter().filter(|s| s.laid.is_some()).count(),
            1,
            "{new_play:?}"
        );
        assert!(new_play.iter().all(|s| !s.uncovered), "{new_play:?}");
    }

    #[test]
    fn cards_in_the_zone_when_watching_starts_are_not_a_play() {
        let mut w: PlayZoneWatcher<&str> = PlayZoneWatcher::new(WatchConfig::default());
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
        let mut w = ready();
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
        let mut w = ready();
        let play = [(100.0, 100.0, "2H"), (260.0, 100.0, "3H")];
        let laid = (0..3).filter_map(|_| w.observe(frame(&play)).laid).count();
        assert_eq!(laid, 1);
        // A hand hides the second card for two frames, then moves on.
        assert_eq!(
            w.observe(frame(&play[..1])).phase,
            Phase::Laid,
            "one odd frame"
        );
        assert_eq!(w.observe(frame(&play[..1])).phase, Phase::Moving);
        let after: Vec<_> = (0..3).map(|_| w.observe(frame(&play))).collect();
        assert!(after.iter().all(|a| a.laid.is_none() && !a.cleared));
        assert_eq!(after[2].phase, Phase::Laid);
    }

    #[test]
    fn a_card_missed_in_one_frame_of_four_does_not_stop_a_play_from_settling() {
        let mut w = ready();
        // A spread hand whose last card the localiser loses now and then in the
        // webcam's noise: 3, 3, 2, 3 cards found.
        let hand = [
            (100.0, 100.0, "2H"),
            (160.0, 100.0, "9S"),
            (220.0, 100.0, "KD"),
        ];
        let seen = [&hand[..], &hand[..], &hand[..2], &hand[..]];
        let laid: Vec<_> = seen
            .iter()
            .filter_map(|f| w.observe(frame(f)).laid)
            .collect();
        assert_eq!(laid.len(), 1, "settled on the fourth frame");
        assert_eq!(laid[0].len(), 3, "with every card");
        // A later odd frame leaves it settled.
        for _ in 0..2 {
            assert_eq!(w.observe(frame(&hand)).phase, Phase::Laid);
        }
        let odd = w.observe(frame(&hand[..2]));
        assert_eq!((odd.phase, odd.laid.is_none()), (Phase::Laid, true));
        // Two odd frames in four are not one layout or the other.
        let mut w = ready();
        let flicker = [&hand[..], &hand[..2], &hand[..], &hand[..2]];
        assert!(flicker.iter().all(|f| w.observe(frame(f)).laid.is_none()));
        assert_eq!(w.phase(), Phase::Moving);
    }

    #[test]
    fn cards_changed_without_a_clear_are_flagged_not_reported() {
        let mut w = ready();
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
    fn a_spread_hand_settles_though_its_cards_flicker_and_keeps_every_card() {
        let mut w = ready();
        // Sixteen overlapping cards, 40 px apart; the localiser finds 16, 15, 14
        // and 16 of them in four frames.
        let hand: Vec<(f64, f64, &str)> = (0..16)
            .map(|i| (100.0 + 40.0 * f64::from(i), 100.0, "2H"))
            .collect();
        let without = |gone: &[usize]| -> Vec<(f64, f64, &'static str)> {
            hand.iter()
                .enumerate()
                .filter(|(i, _)| !gone.contains(i))
                .map(|(_, c)| *c)
                .collect()
        };
        let frames = [
            without(&[]),
            without(&[5]),
            without(&[5, 11]),
            without(&[3]),
        ];
        let laid: Vec<_> = frames
            .iter()
            .filter_map(|f| w.observe(frame(f)).laid)
            .collect();
        assert_eq!(laid.len(), 1, "the spread settles");
        assert_eq!(laid[0].len(), 16, "from the frame that found every card");
        // Two cards fewer in a row of eight is another layout.
        assert!(!same_layout(
            &frame(&hand[..8]).iter().map(|s| s.quad).collect::<Vec<_>>(),
            &frame(&hand[..6]).iter().map(|s| s.quad).collect::<Vec<_>>(),
            0.15
        ));
        // And a play of up to seven cards must match card for card.
        assert!(!same_layout(
            &frame(&hand[..4]).iter().map(|s| s.quad).collect::<Vec<_>>(),
            &frame(&hand[..3]).iter().map(|s| s.quad).collect::<Vec<_>>(),
            0.15
        ));
    }

    #[test]
    fn phase_names_are_the_json_names() {
        for phase in [
            Phase::NotReady,
            Phase::Clear,
            Phase::Moving,
            Phase::Laid,
            Phase::Changed,
        ] {
            let json = serde_json::to_value(phase).expect("json");
            assert_eq!(json.as_str(), Some(phase.name()));
        }
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

    #[test]
    fn the_zone_around_a_play_holds_its_cards_and_little_more() {
        // Two cards side by side at (400, 300) and (520, 300): 100 × 140, so a
        // margin of 35 px each side.
        let play = [card(400.0, 300.0), card(520.0, 300.0)];
        let z = Zone::around(&play, 1280, 720).expect("zone");
        let expect = [365.0 / 1280.0, 265.0 / 720.0, 655.0 / 1280.0, 475.0 / 720.0];
        for (got, want) in [z.x0, z.y0, z.x1, z.y1].iter().zip(expect) {
            assert!((got - want).abs() < 1e-9, "{z:?}");
        }
        for q in &play {
            assert!(z.contains(q.centre(), 1280, 720));
        }
        // A neighbour of the main line a card's width away is left out.
        assert!(!z.contains(card(640.0, 300.0).centre(), 1280, 720));
        // At the frame's edge the zone stops there; nothing to go round, no zone.
        let z = Zone::around(&[card(-20.0, 600.0)], 1280, 720).expect("zone");
        assert_eq!((z.x0, z.y1), (0.0, 1.0));
        assert!(Zone::around(&[], 1280, 720).is_none());
        // A card too small for the least zone gets it, around its centre, at any
        // place along the frame (rounding must not take it under).
        for x in 0..1890 {
            let x = f64::from(x);
            let tiny = Quad([
                Point::new(x, 300.0),
                Point::new(x + 30.0, 300.0),
                Point::new(x + 30.0, 342.0),
                Point::new(x, 342.0),
            ]);
            let z = Zone::around(&[tiny], 1920, 1080).unwrap_or_else(|| panic!("no zone at x {x}"));
            assert!(z.contains(tiny.centre(), 1920, 1080), "{z:?} at x {x}");
            let four = |v: f64, up: bool| {
                if up {
                    (v * 1e4).ceil() / 1e4
                } else {
                    (v * 1e4).floor() / 1e4
                }
            };
            let written = Zone::new(
                four(z.x0, false),
                four(z.y0, false),
                four(z.x1, true),
                four(z.y1, true),
            );
            assert!(written.is_some(), "{z:?} at x {x}");
        }
    }
}
