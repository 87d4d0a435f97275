//! Camera frames from the God console: decoded with the vision module's limits,
//! kept as JPEG (the store's evidence format; a PNG is re-encoded), named by the
//! SHA-256 of the stored bytes, read by the recognizer when one is loaded, and
//! spooled until a play takes the frame as evidence (the recorder then stores it in
//! the database, exactly as `eleusis record` does with a frame file).

use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;

use image::codecs::jpeg::JpegEncoder;
use image::RgbImage;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::json_input;
use crate::vision::rectify::rectify;
use crate::vision::{decode_frame, exposure_warnings, FrameWarning, Point, Quad, Recognizer};

use super::error::ApiError;

/// Where the recognizer came from, or why there is none.
pub struct Camera {
    pub recognizer: Option<Arc<Recognizer>>,
    /// The model's path, or the reason it could not be loaded.
    pub note: String,
}

impl Camera {
    /// Loads the recognizer from `dir`, or from the default search path, holding
    /// its reads to the table's `threshold` too when one is given
    /// ([`Recognizer::set_table_threshold`]: a threshold below the model's own is
    /// refused), and having every court card ask God when `confirm_courts`
    /// ([`Recognizer::confirm_courts`]). Without a model the service still runs:
    /// frames are stored and God types the cards.
    pub fn load(
        dir: Option<&Path>,
        threshold: Option<f32>,
        confirm_courts: bool,
    ) -> Result<Camera, crate::vision::TableThresholdError> {
        let loaded = match dir {
            Some(dir) => crate::vision::Classifier::load(dir),
            None => crate::vision::Classifier::load_default(),
        };
        Ok(match loaded {
            Ok(classifier) => {
                let mut note = classifier.source.clone();
                for key in &classifier.settings().unknown {
                    tracing::warn!(
                        "{}: unknown model setting {key:?} ignored (misspelt, or from a newer training pipeline?)",
                        classifier.source
                    );
                }
                let mut recognizer = Recognizer::new(classifier);
                recognizer.confirm_courts(confirm_courts);
                if let Some(t) = threshold {
                    recognizer.set_table_threshold(t)?;
                    note += &format!(
                        " (confirmation threshold {t}, the table's; the model's own is {})",
                        recognizer.classifier.settings().confirm_threshold
                    );
                }
                Camera {
                    note,
                    recognizer: Some(Arc::new(recognizer)),
                }
            }
            Err(e) => Camera {
                recognizer: None,
                note: format!("no recognizer: {e}"),
            },
        })
    }

    /// A camera without a recognizer (tests, or a table without a model).
    pub fn none(note: &str) -> Camera {
        Camera {
            recognizer: None,
            note: note.to_string(),
        }
    }

    /// What `GET /api/camera` answers: the recognizer and the settings its reads
    /// are held to now.
    pub fn settings(&self) -> CameraSettings {
        CameraSettings {
            recognizer: self.note.clone(),
            loaded: self.recognizer.is_some(),
            confirm_threshold: self.recognizer.as_ref().map(|r| r.confirm_threshold()),
            confirm_courts: self
                .recognizer
                .as_ref()
                .is_some_and(|r| r.confirms_courts()),
        }
    }

    /// Switches court-card confirmation ([`Recognizer::confirm_courts`]) for the
    /// frames read from now on: God finds out mid-game that the table's deck
    /// letters its courts V, D, R and need not restart the service. Without a
    /// recognizer there is nothing to switch (God types every card): refused.
    pub fn set_confirm_courts(&self, confirm: bool, at: &str) -> Result<(), ApiError> {
        match &self.recognizer {
            Some(recognizer) => {
                recognizer.confirm_courts(confirm);
                tracing::info!(
                    "court cards {} God (switched at the console)",
                    if confirm {
                        "all ask"
                    } else {
                        "no longer all ask"
                    }
                );
                Ok(())
            }
            None => Err(ApiError::rejected(
                format!(
                    "no card is read, so none can ask God ({}): God types every card",
                    self.note
                ),
                at,
            )),
        }
    }
}

/// The camera's settings (`GET` and `POST /api/camera`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CameraSettings {
    /// The recognizer's model, or why there is none.
    pub recognizer: String,
    /// Whether a recognizer reads the frames.
    pub loaded: bool,
    /// The confirmation threshold in effect (`None` without a recognizer).
    pub confirm_threshold: Option<f32>,
    /// Every court card asks God, however sure (`serve --confirm-courts`, or
    /// switched at the console).
    pub confirm_courts: bool,
}

/// One card read, as the console shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Read {
    pub card: String,
    pub confidence: f32,
    /// `[[x, y]; 4]`: top-left, top-right, bottom-right, bottom-left, in frame pixels.
    pub corners: Vec<[f64; 2]>,
    pub needs_confirmation: bool,
    /// Read from its one uncovered index in an overlapping row (only when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub overlapped: bool,
    /// The suit the card's pips read as, when they deny the read's suit (the
    /// read then asks God): `"C"`, say, beside a read of `3S`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pips_say: Option<String>,
    /// How many pips the card shows, when they deny the read's rank: more than
    /// the rank, or next to none on a six to ten (the read then asks God).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pips_counted: Option<usize>,
    /// The card the index read, when the pips put `card` in its place (the read
    /// then asks God): `"3D"`, say, beside a `card` of `3C`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_read: Option<String>,
}

/// The answer to an upload.
#[derive(Debug, Clone, Serialize)]
pub struct FrameReply {
    /// The frame's id (SHA-256 of the stored JPEG): give it as `evidence.frame`.
    pub frame: String,
    pub url: String,
    pub width: u32,
    pub height: u32,
    pub reads: Vec<Read>,
    /// Confidence below which a read needs God's confirmation.
    pub confirm_threshold: Option<f32>,
    /// Every court card asked God on this frame, however sure its read (`serve
    /// --confirm-courts`, or switched on at the console): given only when so.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub confirm_courts: bool,
    /// The recognizer used, or why there is none.
    pub recognizer: String,
    /// Whether the recognizer ran on the frame.
    pub recognized: bool,
    /// The frame's problems (`{"kind", "text"}`): its exposure, checked with or
    /// without a recognizer, and cards too small to read: why cards may be missing
    /// or asking God, and what to change.
    pub warnings: Vec<FrameWarning>,
    /// Outlines of a card's shape and size on which no index could be read
    /// (`[[x, y]; 4]` each, as `corners`): a card in a lamp's glare or a hard
    /// shadow, which is missing from `reads`, or a note of a card's shape. God
    /// looks before a play is judged.
    pub unreadable: Vec<Vec<[f64; 2]>>,
}

/// Whether `id` is a frame id (64 lowercase hex digits); anything else could name a
/// file outside the spool.
pub fn valid_id(id: &str) -> bool {
    id.len() == 64
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The corners of a card cut, the value of `?corners=x,y,x,y,x,y,x,y`: top-left,
/// top-right, bottom-right, bottom-left of the portrait card in frame pixels (what
/// a read's `corners` hold). Each must lie within a frame's width and height of the
/// frame, so that a typo is an error rather than a smear of edge pixels.
pub fn parse_corners(
    value: Option<&str>,
    width: u32,
    height: u32,
    at: &str,
) -> Result<Quad, ApiError> {
    let value = value
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            ApiError::bad(
                "give the card's corners as ?corners=x,y,x,y,x,y,x,y (top-left, top-right, bottom-right, bottom-left, in frame pixels)",
                at,
            )
        })?;
    let value = value.replace("%2C", ",").replace("%2c", ",");
    let numbers: Vec<f64> = value
        .split(',')
        .map(|v| {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .ok_or_else(|| {
                    ApiError::bad(
                        format!("corners: {} is not a number", json_input::shown_text(v)),
                        at,
                    )
                })
        })
        .collect::<Result<_, _>>()?;
    if numbers.len() != 8 {
        return Err(ApiError::bad(
            format!(
                "corners: 8 numbers (four x,y pairs) expected, got {}",
                numbers.len()
            ),
            at,
        ));
    }
    let (w, h) = (f64::from(width), f64::from(height));
    let corners: Vec<Point> = numbers.chunks(2).map(|p| Point::new(p[0], p[1])).collect();
    if let Some(p) = corners
        .iter()
        .find(|p| p.x < -w || p.x > 2.0 * w || p.y < -h || p.y > 2.0 * h)
    {
        return Err(ApiError::bad(
            format!(
                "corners: ({}, {}) is far outside the {width} × {height} frame",
                json_input::shown_number(p.x),
                json_input::shown_number(p.y)
            ),
            at,
        ));
    }
    Ok(Quad([corners[0], corners[1], corners[2], corners[3]]))
}

/// The 160 × 224 upright card cut from a stored frame's JPEG along `corners` (the
/// value of `?corners=…`, [`parse_corners`]), as PNG:
/// what the recognizer read (its index corners are the top-left 40 × 72 and the same
/// of the card turned), for God to confirm an unsure read at a glance. Blocking.
pub fn card_png(jpeg: &[u8], corners: Option<&str>, at: &str) -> Result<Vec<u8>, ApiError> {
    let image = decode_frame(jpeg, "the stored frame").map_err(|e| ApiError::Store {
        what: format!("{e}"),
        at: at.into(),
    })?;
    let quad = parse_corners(corners, image.width(), image.height(), at)?;
    let card = rectify(&image, &quad).ok_or_else(|| {
        ApiError::bad("corners: they do not outline a card (degenerate quad)", at)
    })?;
    let mut out = Cursor::new(Vec::new());
    card.write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| ApiError::Store {
            what: format!("cannot encode the card as PNG: {e}"),
            at: at.into(),
        })?;
    Ok(out.into_inner())
}

/// Decodes, stores in the spool and reads an uploaded frame. Blocking (image
/// decoding and the model): run it off the async workers.
pub fn process(bytes: &[u8], spool: &Path, camera: &Camera) -> Result<FrameReply, ApiError> {
    let at = "POST /api/frames";
    let image =
        decode_frame(bytes, "the uploaded frame").map_err(|e| ApiError::bad(format!("{e}"), at))?;
    let id = keep(bytes, &image, spool, at)?;
    let mut reply = FrameReply::unread(id, &image, camera);
    read_into(&mut reply, &image, camera);
    Ok(reply)
}

/// Keeps a decoded frame in the spool as JPEG (the uploaded bytes when they are
/// one), named by its SHA-256; returns the id.
pub fn keep(bytes: &[u8], image: &RgbImage, spool: &Path, at: &str) -> Result<String, ApiError> {
    let jpeg = if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        bytes.to_vec()
    } else {
        let mut out = Cursor::new(Vec::new());
        JpegEncoder::new_with_quality(&mut out, 92)
            .encode_image(image)
            .map_err(|e| ApiError::bad(format!("the frame cannot be kept as JPEG: {e}"), at))?;
        out.into_inner()
    };
    let id = hex::encode(Sha256::digest(&jpeg));
    let path = spool.join(format!("{id}.jpg"));
    // The spool may have been emptied, folder and all, while the service ran:
    // made again rather than every frame refused until a restart. Only the folder
    // itself: where the database's own folder is gone (a stick unmounted from a
    // folder made for it), no folders are made up to it.
    let remade = match std::fs::create_dir(spool) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    };
    let written = remade.and_then(|()| std::fs::write(&path, &jpeg));
    written.map_err(|e| ApiError::Store {
        what: format!("cannot keep the frame in {}: {e}", path.display()),
        at: at.into(),
    })?;
    Ok(id)
}

impl FrameReply {
    /// The reply for frame `id` before any read.
    pub fn unread(id: String, image: &RgbImage, camera: &Camera) -> FrameReply {
        FrameReply {
            url: format!("/api/frames/{id}"),
            frame: id,
            width: image.width(),
            height: image.height(),
            reads: Vec::new(),
            confirm_threshold: None,
            confirm_courts: false,
            recognizer: camera.note.clone(),
            recognized: false,
            warnings: Vec::new(),
            unreadable: Vec::new(),
        }
    }
}

/// Reads the cards of a frame into `reply` with the camera's recognizer, when it
/// has one; without a read (no recognizer, or it failed) the exposure is checked.
pub fn read_into(reply: &mut FrameReply, image: &RgbImage, camera: &Camera) {
    if let Some(recognizer) = &camera.recognizer {
        reply.confirm_threshold = Some(recognizer.confirm_threshold());
        match recognizer.recognise(image) {
            Ok(read) => {
                reply.recognized = true;
                reply.confirm_courts = read.confirm_courts;
                reply.reads = read
                    .cards
                    .iter()
                    .map(|c| Read {
                        card: c.card.to_string(),
                        confidence: c.confidence,
                        corners: corners_of(&c.corners),
                        needs_confirmation: c.needs_confirmation,
                        overlapped: c.overlapped,
                        pips_say: c.pips_say.map(|s| s.letter().to_string()),
                        pips_counted: c.pips_counted,
                        index_read: c.index_read.map(|i| i.to_string()),
                    })
                    .collect();
                reply.unreadable = read.unreadable.iter().map(corners_of).collect();
                reply.warnings = read.warnings;
            }
            Err(e) => reply.recognizer = format!("the recognizer failed on this frame: {e}"),
        }
    }
    if !reply.recognized {
        reply.warnings = exposure_warnings(image);
    }
}

/// An outline as the replies give it: `[[x, y]; 4]`, top-left first, clockwise.
pub(super) fn corners_of(quad: &Quad) -> Vec<[f64; 2]> {
    quad.0.iter().map(|p| [p.x, p.y]).collect()
}

/// A frame's JPEG bytes from the spool, when it is still there.
pub fn spooled(spool: &Path, id: &str) -> Option<Vec<u8>> {
    if !valid_id(id) {
        return None;
    }
    std::fs::read(spool.join(format!("{id}.jpg"))).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_are_read_in_either_encoding_of_the_comma() {
        let q = parse_corners(Some("-2.5,3%2C10,3,10,20,-2.5,20"), 320, 240, "t").expect("corners");
        assert_eq!(q.0[0], Point::new(-2.5, 3.0));
        assert_eq!(q.0[2], Point::new(10.0, 20.0));
        let err = parse_corners(Some("1,2,3,4,5,6,7,NaN"), 320, 240, "t").unwrap_err();
        assert!(err.to_string().contains("\"NaN\" is not a number"), "{err}");
        for missing in [None, Some("")] {
            let err = parse_corners(missing, 320, 240, "t").unwrap_err();
            assert!(err.to_string().contains("?corners=x,y"), "{err}");
        }
    }

    fn png(width: u32, height: u32) -> Vec<u8> {
        let image = image::RgbImage::from_pixel(width, height, image::Rgb([20, 120, 40]));
        let mut out = Cursor::new(Vec::new());
        image
            .write_to(&mut out, image::ImageFormat::Png)
            .expect("png");
        out.into_inner()
    }

    #[test]
    fn a_png_is_kept_as_jpeg_under_its_hash() {
        let dir = tempfile::tempdir().expect("dir");
        let reply = process(&png(64, 48), dir.path(), &Camera::none("none")).expect("frame");
        assert!(valid_id(&reply.frame));
        assert_eq!((reply.width, reply.height), (64, 48));
        let stored = spooled(dir.path(), &reply.frame).expect("spooled");
        assert!(stored.starts_with(&[0xFF, 0xD8, 0xFF]));
        assert_eq!(hex::encode(Sha256::digest(&stored)), reply.frame);
        assert!(!reply.recognized);
    }

    #[test]
    fn broken_frames_are_refused_with_a_reason() {
        let dir = tempfile::tempdir().expect("dir");
        let mut truncated = png(64, 48);
        truncated.truncate(truncated.len() / 2);
        for bytes in [b"not an image".to_vec(), Vec::new(), truncated] {
            let err = process(&bytes, dir.path(), &Camera::none("none")).unwrap_err();
            assert_eq!(err.status(), axum::http::StatusCode::BAD_REQUEST, "{err}");
            assert!(err.to_string().contains("uploaded frame"), "{err}");
        }
    }

    #[test]
    fn ids_that_could_escape_the_spool_are_refused() {
        assert!(!valid_id("../../etc/passwd"));
        assert!(!valid_id(&"A".repeat(64)));
        assert!(valid_id(&"0a".repeat(32)));
        assert!(spooled(Path::new("/"), "../etc/passwd").is_none());
    }
}
