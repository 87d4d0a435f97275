//! Loading camera frames (PNG or JPEG) with limits, so that a corrupt, truncated,
//! empty or absurdly large file is turned away with an error naming it instead of
//! crashing the referee or eating its memory. A photo's EXIF orientation is
//! applied, so that a phone photo is read the way it is seen.

use std::io::{Cursor, Read};
use std::path::Path;

use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits, RgbImage};
use thiserror::Error;

/// Widest and tallest frame accepted. Webcams top out at 4K (3840 × 2160); the
/// margin allows stills from phones.
pub const MAX_SIDE: u32 = 8192;
/// Largest file accepted, in bytes.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Most memory a decoder may allocate for one frame.
pub const MAX_DECODE_BYTES: u64 = 256 * 1024 * 1024;

/// Why a frame could not be loaded. The `Display` text names the file.
#[derive(Debug, Error)]
#[error("{file}: {kind}")]
pub struct FrameError {
    /// The file (or the label given to in-memory bytes).
    pub file: String,
    pub kind: FrameErrorKind,
}

/// What was wrong with the frame.
#[derive(Debug, Error)]
pub enum FrameErrorKind {
    #[error("cannot read the file: {0}")]
    Io(#[from] std::io::Error),
    #[error("the file is empty")]
    Empty,
    #[error("the file is {0} bytes, more than the {MAX_FILE_BYTES} accepted")]
    FileTooLarge(u64),
    #[error("it holds more than the {MAX_FILE_BYTES} bytes accepted (a device or a pipe?)")]
    StreamTooLarge,
    #[error("not a PNG or JPEG image")]
    UnknownFormat,
    #[error(
        "the image is {width} × {height} pixels, more than the {MAX_SIDE} × {MAX_SIDE} accepted"
    )]
    TooLarge { width: u32, height: u32 },
    #[error("the image is larger than the decoder's limits ({MAX_SIDE} × {MAX_SIDE}, {MAX_DECODE_BYTES} bytes)")]
    OverLimits,
    #[error("the image has no pixels ({width} × {height})")]
    ZeroSize { width: u32, height: u32 },
    #[error("the JPEG data is truncated (no end-of-image marker after the image data)")]
    TruncatedJpeg,
    #[error("corrupt or truncated image data: {0}")]
    Decode(String),
}

/// Reads a frame from a file.
pub fn load_frame(path: &Path) -> Result<RgbImage, FrameError> {
    let file = path.display().to_string();
    let fail = |kind| FrameError {
        file: file.clone(),
        kind,
    };
    let meta = std::fs::metadata(path).map_err(|e| fail(FrameErrorKind::Io(e)))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(fail(FrameErrorKind::FileTooLarge(meta.len())));
    }
    // A device or a pipe reports no size: read no more than the limit allows.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| fail(FrameErrorKind::Io(e)))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(fail(FrameErrorKind::StreamTooLarge));
    }
    decode_frame(&bytes, &file)
}

/// Decodes a frame from encoded bytes (PNG or JPEG); `name` labels errors.
pub fn decode_frame(bytes: &[u8], name: &str) -> Result<RgbImage, FrameError> {
    decode(bytes).map_err(|kind| FrameError {
        file: name.to_string(),
        kind,
    })
}

fn decode(bytes: &[u8]) -> Result<RgbImage, FrameErrorKind> {
    if bytes.is_empty() {
        return Err(FrameErrorKind::Empty);
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(FrameErrorKind::FileTooLarge(bytes.len() as u64));
    }
    let format = image::guess_format(bytes).map_err(|_| FrameErrorKind::UnknownFormat)?;
    if !matches!(format, ImageFormat::Png | ImageFormat::Jpeg) {
        return Err(FrameErrorKind::UnknownFormat);
    }
    if format == ImageFormat::Jpeg && !jpeg_is_complete(bytes) {
        // The JPEG decoder fills a cut-off scan with grey and reports success; a
        // half-grey frame would be read as garbage, so refuse it here.
        return Err(FrameErrorKind::TruncatedJpeg);
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let (width, height) = reader_dimensions(bytes, format)?;
    if width == 0 || height == 0 {
        return Err(FrameErrorKind::ZeroSize { width, height });
    }
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(FrameErrorKind::TooLarge { width, height });
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let decode_error = |e| match e {
        image::ImageError::Limits(_) => FrameErrorKind::OverLimits,
        other => FrameErrorKind::Decode(plain_decoder_message(&other.to_string())),
    };
    let mut decoder = reader.into_decoder().map_err(decode_error)?;
    if decoder.total_bytes() > MAX_DECODE_BYTES {
        return Err(FrameErrorKind::OverLimits);
    }
    // A phone stores a photo as its sensor saw it and says in the EXIF orientation
    // how to turn it for viewing. Unturned, a photo taken upright is read sideways:
    // the cards come out top to bottom instead of left to right, and the corners do
    // not match the photo a browser shows (browsers turn it). A missing or broken
    // orientation leaves the pixels as they are.
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(decode_error)?;
    image.apply_orientation(orientation);
    Ok(image.into_rgb8())
}

/// The dimensions from the header alone, before any pixel is allocated.
fn reader_dimensions(bytes: &[u8], format: ImageFormat) -> Result<(u32, u32), FrameErrorKind> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    reader.into_dimensions().map_err(|e| match e {
        image::ImageError::Limits(_) => FrameErrorKind::OverLimits,
        other => FrameErrorKind::Decode(plain_decoder_message(&other.to_string())),
    })
}

/// A decoder's error as a person reads it: the PNG decoder names a chunk by the
/// debug text of its type (`ChunkType { type: IHDR, critical: true, … }`), which
/// is only its four letters to anyone checking the file, and says "Format error
/// decoding Png" where "PNG" says the same.
fn plain_decoder_message(message: &str) -> String {
    const CHUNK: &str = "ChunkType { type: ";
    let mut plain = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(CHUNK) {
        plain.push_str(&rest[..start]);
        let after = &rest[start + CHUNK.len()..];
        // The name may hold any bytes in a damaged file, a comma among them: it
        // ends where the field after it starts.
        let ends = after
            .find(", critical:")
            .and_then(|name_end| Some((name_end, name_end + after[name_end..].find('}')?)));
        match ends {
            Some((name_end, close)) => {
                plain.push_str(after[..name_end].trim());
                rest = &after[close + 1..];
            }
            None => {
                plain.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    plain.push_str(rest);
    plain.replacen("Format error decoding Png:", "PNG:", 1)
}

/// Whether a JPEG stream reaches its end-of-image marker: its segments are
/// walked from the start-of-image marker by their lengths (so an embedded
/// thumbnail, whole inside its EXIF segment, is stepped over), and each scan's
/// entropy-coded data up to the next marker (where every `FF` byte is followed by
/// `00`, a fill `FF` or a restart marker), until `FF D9`. What follows the end is
/// not looked at: phones append a motion photo's video to the JPEG, and its bytes
/// may hold anything.
fn jpeg_is_complete(bytes: &[u8]) -> bool {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return false;
    }
    let mut i = 2;
    loop {
        // At a marker: tolerate stray bytes and fill bytes before it.
        let Some(skip) = bytes[i..].iter().position(|&b| b == 0xFF) else {
            return false;
        };
        i += skip;
        while bytes.get(i + 1) == Some(&0xFF) {
            i += 1;
        }
        let Some(&marker) = bytes.get(i + 1) else {
            return false;
        };
        match marker {
            0xD9 => return true,
            // Markers without a length: restart markers, TEM, and a stuffed zero.
            0xD0..=0xD7 | 0x01 | 0x00 => i += 2,
            _ => {
                let Some(len) = bytes.get(i + 2..i + 4) else {
                    return false;
                };
                let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
                if len < 2 || i + 2 + len > bytes.len() {
                    return false;
                }
                i += 2 + len;
                if marker == 0xDA {
                    match scan_end(bytes, i) {
                        Some(end) => i = end,
                        None => return false,
                    }
                }
            }
        }
    }
}

/// Where the entropy-coded data of a scan starting at `start` ends: the first
/// `FF` not followed by `00`, a restart marker or another `FF`. `None`: the
/// data runs to the end of the bytes.
fn scan_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    loop {
        i += bytes.get(i..)?.iter().position(|&b| b == 0xFF)?;
        match *bytes.get(i + 1)? {
            0x00 | 0xD0..=0xD7 => i += 2,
            0xFF => i += 1,
            _ => return Some(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_bytes(w: u32, h: u32) -> Vec<u8> {
        let img = RgbImage::from_pixel(w, h, image::Rgb([10, 200, 30]));
        let mut out = Vec::new();
        img.write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    fn jpeg_bytes(w: u32, h: u32) -> Vec<u8> {
        let img = RgbImage::from_fn(w, h, |x, y| image::Rgb([(x * 7) as u8, (y * 5) as u8, 90]));
        let mut out = Vec::new();
        img.write_to(&mut Cursor::new(&mut out), ImageFormat::Jpeg)
            .unwrap();
        out
    }

    #[test]
    fn decodes_png_and_jpeg() {
        let img = decode_frame(&png_bytes(31, 17), "a.png").unwrap();
        assert_eq!(img.dimensions(), (31, 17));
        assert_eq!(img.get_pixel(3, 4).0, [10, 200, 30]);
        let img = decode_frame(&jpeg_bytes(64, 48), "a.jpg").unwrap();
        assert_eq!(img.dimensions(), (64, 48));
    }

    /// The EXIF block (TIFF, little-endian, one entry) of a photo whose orientation
    /// tag is `value`.
    fn exif_orientation(value: u8) -> Vec<u8> {
        let mut tiff = b"II*\0\x08\0\0\0\x01\0\x12\x01\x03\0\x01\0\0\0".to_vec();
        tiff.extend_from_slice(&[value, 0, 0, 0, 0, 0, 0, 0]);
        tiff
    }

    fn jpeg_with_exif(img: &RgbImage, exif: Vec<u8>) -> Vec<u8> {
        use image::ImageEncoder;
        let mut out = Vec::new();
        let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 95);
        encoder.set_exif_metadata(exif).unwrap();
        encoder
            .write_image(
                img.as_raw(),
                img.width(),
                img.height(),
                image::ExtendedColorType::Rgb8,
            )
            .unwrap();
        out
    }

    #[test]
    fn a_photo_is_turned_by_its_exif_orientation() {
        // Stored as the sensor saw it, 64 × 32 with a dark left half; orientation 6
        // says "turn a quarter clockwise to view": 32 × 64, the dark half on top.
        let stored = RgbImage::from_fn(64, 32, |x, _| {
            image::Rgb(if x < 32 { [20; 3] } else { [230; 3] })
        });
        let frame = decode_frame(&jpeg_with_exif(&stored, exif_orientation(6)), "p.jpg").unwrap();
        assert_eq!(frame.dimensions(), (32, 64));
        assert!(
            frame.get_pixel(16, 8).0[0] < 60,
            "{:?}",
            frame.get_pixel(16, 8)
        );
        assert!(
            frame.get_pixel(16, 56).0[0] > 180,
            "{:?}",
            frame.get_pixel(16, 56)
        );
        // Orientation 8 turns the other way: the dark half at the bottom.
        let frame = decode_frame(&jpeg_with_exif(&stored, exif_orientation(8)), "p.jpg").unwrap();
        assert!(
            frame.get_pixel(16, 56).0[0] < 60,
            "{:?}",
            frame.get_pixel(16, 56)
        );
        // "As stored", an invalid value and a broken block leave the pixels alone.
        for exif in [
            exif_orientation(1),
            exif_orientation(0),
            b"II*\0junk".to_vec(),
        ] {
            let frame = decode_frame(&jpeg_with_exif(&stored, exif), "p.jpg").unwrap();
            assert_eq!(frame.dimensions(), (64, 32));
        }
    }

    #[test]
    fn empty_and_unknown_files_are_named() {
        let e = decode_frame(&[], "empty.png").unwrap_err();
        assert!(matches!(e.kind, FrameErrorKind::Empty));
        assert!(e.to_string().starts_with("empty.png: "), "{e}");
        let e = decode_frame(b"hello, this is text", "note.txt").unwrap_err();
        assert!(matches!(e.kind, FrameErrorKind::UnknownFormat), "{e}");
    }

    #[test]
    fn truncated_jpeg_is_refused() {
        let full = jpeg_bytes(64, 48);
        let e = decode_frame(&full[..full.len() * 2 / 3], "cut.jpg").unwrap_err();
        assert!(matches!(e.kind, FrameErrorKind::TruncatedJpeg), "{e}");
    }

    #[test]
    fn a_jpeg_cut_anywhere_is_refused_and_one_with_a_trailer_is_not() {
        let full = jpeg_bytes(64, 48);
        assert!(jpeg_is_complete(&full));
        for cut in 1..full.len() {
            assert!(!jpeg_is_complete(&full[..cut]), "cut at {cut}");
        }
        // A motion photo: the phone appends its video after the end-of-image
        // marker, bytes that may look like a start of scan with no end after it.
        let mut motion = full.clone();
        motion.extend_from_slice(b"\0\0\0\x18ftypmp42");
        motion.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x0C, 1, 2, 3, 0xFF, 0xC4, 9, 9]);
        let frame = decode_frame(&motion, "motion.jpg").unwrap();
        assert_eq!(frame.dimensions(), (64, 48));
        // A thumbnail inside the EXIF segment has its own end-of-image marker; a
        // photo cut short after it is still refused.
        let stored = RgbImage::from_pixel(64, 32, image::Rgb([90; 3]));
        let mut exif = exif_orientation(1);
        exif.extend_from_slice(&jpeg_bytes(8, 8));
        let with_thumbnail = jpeg_with_exif(&stored, exif);
        assert!(jpeg_is_complete(&with_thumbnail));
        let cut = &with_thumbnail[..with_thumbnail.len() - 40];
        let e = decode_frame(cut, "cut.jpg").unwrap_err();
        assert!(matches!(e.kind, FrameErrorKind::TruncatedJpeg), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_device_that_never_ends_is_read_no_further_than_the_limit() {
        let e = load_frame(Path::new("/dev/zero")).unwrap_err();
        assert!(matches!(e.kind, FrameErrorKind::StreamTooLarge), "{e}");
        assert!(e.to_string().starts_with("/dev/zero: "), "{e}");
    }

    #[test]
    fn a_damaged_png_chunk_is_named_by_its_four_letters() {
        let mut bytes = png_bytes(20, 10);
        // The last byte of the header chunk's checksum.
        bytes[32] ^= 0xFF;
        let e = decode_frame(&bytes, "crc.png").unwrap_err();
        let text = e.to_string();
        assert!(matches!(e.kind, FrameErrorKind::Decode(_)), "{e}");
        assert!(text.contains("IHDR chunk"), "{text}");
        assert!(text.contains("PNG: CRC error"), "{text}");
        assert!(
            !text.contains("ChunkType") && !text.contains("critical:"),
            "{text}"
        );
        assert_eq!(
            plain_decoder_message("x ChunkType { type: ABCD, critical: true } y"),
            "x ABCD y"
        );
        // A damaged file's chunk type may hold a comma or a brace.
        assert_eq!(
            plain_decoder_message("ChunkType { type: A,}y, critical: true, private: false } z"),
            "A,}y z"
        );
        // Text that only looks like the start of one is left as it is.
        assert_eq!(
            plain_decoder_message("ChunkType { type: "),
            "ChunkType { type: "
        );
    }

    #[test]
    fn truncated_png_is_refused() {
        let full = png_bytes(200, 100);
        let e = decode_frame(&full[..full.len() / 2], "cut.png").unwrap_err();
        assert!(matches!(e.kind, FrameErrorKind::Decode(_)), "{e}");
    }
}
