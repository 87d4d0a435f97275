//! Reading cards from a camera frame: load the frame ([`frame`]), find each card's
//! outline ([`localise`]), warp its two index corners upright ([`rectify`]), and
//! classify them with the ONNX recognizer ([`classify`]). [`Recognizer`] runs the
//! whole pipeline; [`exposure`] says when a frame is too bright or too dark to find
//! cards in, and [`warning`] says so to the table, with cards too small to read; [`scene`] compares reads with labelled scenes;
//! [`watcher`] turns a stream of frames over the play zone into plays; [`turn`] turns a
//! camera's picture to the players' view, so that left to right is theirs.
//!
//! The recognizer contract shared with the training pipeline (`models/README.md`):
//! corners `[top-left, top-right, bottom-right, bottom-left]` of the portrait card,
//! a 160 × 224 rectified card, index crops `x < 40, y < 72` and the same after a
//! half turn, model input `[N, 3, 72, 40]` in [0, 1], output `[N, 53]` logits.

pub mod classify;
pub mod exposure;
pub mod fan;
pub mod frame;
pub mod geometry;
pub mod localise;
pub mod pips;
pub mod recognizer;
pub mod rectify;
pub mod scene;
pub mod spread;
pub mod touching;
pub mod turn;
pub mod warning;
pub mod watcher;

pub use classify::{Classifier, ModelError, ModelSettings};
pub use exposure::exposure_warnings;
pub use frame::{decode_frame, load_frame, FrameError};
pub use geometry::{Point, Quad};
pub use localise::{locate, locate_cards, LocaliserConfig, Located};
pub use recognizer::{
    reading_frame, CardRead, FrameRead, Recognizer, TableThresholdError, MAX_READ_SIDE,
};
pub use turn::CameraTurn;
pub use warning::{small_cards_warning, too_dark_to_see, FrameWarning, TOO_DARK_TO_WATCH};
pub use watcher::{Phase, PlayZoneWatcher, SameCard, Seen, Watch, WatchConfig, Zone, UNCOVERED};
