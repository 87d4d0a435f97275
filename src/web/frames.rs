//! Camera frames from the God console: decoded with the vision module's limits,
//! kept as JPEG (the store's evidence format; a PNG is re-encoded), named by the
//! SHA-256 of the stored bytes, read by the recognizer when one is loaded, and
//! spooled until a play takes the frame as evidence (the recorder then stores it in
//! the database, exactly as `eleusis record` does with a frame file).

use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;

use image::codecs::jpeg::JpegEncoder;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::vision::{decode_frame, exposure_warnings, ExposureWarning, Recognizer};

use super::error::ApiError;

/// Where the recognizer came from, or why there is none.
pub struct Camera {
    pub recognizer: Option<Arc<Recognizer>>,
    /// The model's path, or the reason it could not be loaded.
    pub note: String,
}

impl Camera {
    /// Loads the recognizer from `dir`, or from the default search path. Without a
    /// model the service still runs: frames are stored and God types the cards.
    pub fn load(dir: Option<&Path>) -> Camera {
        let loaded = match dir {
            Some(dir) => crate::vision::Classifier::load(dir),
            None => crate::vision::Classifier::load_default(),
        };
        match loaded {
            Ok(classifier) => Camera {
                note: classifier.source.clone(),
                recognizer: Some(Arc::new(Recognizer::new(classifier))),
            },
            Err(e) => Camera {
                recognizer: None,
                note: format!("no recognizer: {e}"),
            },
        }
    }

    /// A camera without a recognizer (tests, or a table without a model).
    pub fn none(note: &str) -> Camera {
        Camera {
            recognizer: None,
            note: note.to_string(),
        }
    }
}

/// One card read, as the console shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Read {
    pub card: String,
    pub confidence: f32,
    /// `[[x, y]; 4]`: top-left, top-right, bottom-right, bottom-left, in frame pixels.
    pub corners: Vec<[f64; 2]>,
    pub needs_confirmation: bool,
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
    /// The recognizer used, or why there is none.
    pub recognizer: String,
    /// Whether the recognizer ran on the frame.
    pub recognized: bool,
    /// The frame's exposure problems (`{"kind", "text"}`), checked with or without
    /// a recognizer: why cards may be missing, and what to change.
    pub warnings: Vec<ExposureWarning>,
}

/// Whether `id` is a frame id (64 lowercase hex digits); anything else could name a
/// file outside the spool.
pub fn valid_id(id: &str) -> bool {
    id.len() == 64
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Decodes, stores in the spool and reads an uploaded frame. Blocking (image
/// decoding and the model): run it off the async workers.
pub fn process(bytes: &[u8], spool: &Path, camera: &Camera) -> Result<FrameReply, ApiError> {
    let at = "POST /api/frames";
    let image =
        decode_frame(bytes, "the uploaded frame").map_err(|e| ApiError::bad(format!("{e}"), at))?;
    let jpeg = if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        bytes.to_vec()
    } else {
        let mut out = Cursor::new(Vec::new());
        JpegEncoder::new_with_quality(&mut out, 92)
            .encode_image(&image)
            .map_err(|e| ApiError::bad(format!("the frame cannot be kept as JPEG: {e}"), at))?;
        out.into_inner()
    };
    let id = hex::encode(Sha256::digest(&jpeg));
    let path = spool.join(format!("{id}.jpg"));
    std::fs::write(&path, &jpeg).map_err(|e| ApiError::Store {
        what: format!("cannot keep the frame in {}: {e}", path.display()),
        at: at.into(),
    })?;
    let mut reply = FrameReply {
        url: format!("/api/frames/{id}"),
        frame: id,
        width: image.width(),
        height: image.height(),
        reads: Vec::new(),
        confirm_threshold: None,
        recognizer: camera.note.clone(),
        recognized: false,
        warnings: Vec::new(),
    };
    if let Some(recognizer) = &camera.recognizer {
        reply.confirm_threshold = Some(recognizer.classifier.settings().confirm_threshold);
        match recognizer.recognise(&image) {
            Ok(read) => {
                reply.recognized = true;
                reply.reads = read
                    .cards
                    .iter()
                    .map(|c| Read {
                        card: c.card.to_string(),
                        confidence: c.confidence,
                        corners: c.corners.0.iter().map(|p| [p.x, p.y]).collect(),
                        needs_confirmation: c.needs_confirmation,
                    })
                    .collect();
                reply.warnings = read.warnings;
            }
            Err(e) => reply.recognizer = format!("the recognizer failed on this frame: {e}"),
        }
    }
    // Without a read (no recognizer, or it failed) the exposure is checked here.
    if !reply.recognized {
        reply.warnings = exposure_warnings(&image);
    }
    Ok(reply)
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
