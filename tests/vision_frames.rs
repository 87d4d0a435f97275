//! Bad frames are turned away with an error naming the file, never a panic or a
//! hang: empty, not an image, truncated, corrupted, zero-size, and a header that
//! claims a gigantic image. All are made here from a committed scene.

use std::path::Path;

use eleusis::vision::frame::{FrameErrorKind, MAX_SIDE};
use eleusis::vision::{decode_frame, load_frame, locate_cards, LocaliserConfig};

fn scene_bytes() -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/08-seq4-dark.jpg");
    std::fs::read(p).expect("committed scene")
}

/// A minimal PNG: signature, IHDR with the given size, and an empty IDAT + IEND.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend((data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend(kind);
        out.extend(data);
        let crc = crc32(&out[start..]);
        out.extend(crc.to_be_bytes());
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]); // 8-bit RGB, no interlace
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(
        &mut out,
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    );
    chunk(&mut out, b"IEND", &[]);
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn the_committed_scene_loads() {
    let img = decode_frame(&scene_bytes(), "scene.jpg").unwrap();
    assert_eq!(img.dimensions(), (1280, 720));
}

#[test]
fn a_truncated_jpeg_is_refused_with_its_name() {
    let bytes = scene_bytes();
    for cut in [bytes.len() / 3, bytes.len() / 2, bytes.len() - 10] {
        let e = decode_frame(&bytes[..cut], "cut.jpg").unwrap_err();
        assert!(
            matches!(
                e.kind,
                FrameErrorKind::TruncatedJpeg | FrameErrorKind::Decode(_)
            ),
            "cut at {cut}: {e}"
        );
        assert!(e.to_string().starts_with("cut.jpg: "), "{e}");
    }
    // Cut inside the headers: still an error, not a panic.
    let e = decode_frame(&bytes[..200], "head.jpg").unwrap_err();
    assert!(e.to_string().starts_with("head.jpg: "), "{e}");
}

#[test]
fn flipped_bytes_never_panic_and_a_broken_header_is_an_error() {
    let bytes = scene_bytes();
    // The magic number gone: not an image.
    let mut bad = bytes.clone();
    bad[0] ^= 0xff;
    bad[1] ^= 0xff;
    let e = decode_frame(&bad, "flipped.jpg").unwrap_err();
    assert!(matches!(e.kind, FrameErrorKind::UnknownFormat), "{e}");
    // Bytes flipped all over the entropy-coded data: the decoder may produce a
    // garbled frame or an error, but must not panic, and a garbled frame must go
    // through localisation without panicking either.
    let cfg = LocaliserConfig::default();
    for seed in 0..6usize {
        let mut bad = bytes.clone();
        let n = bad.len();
        for k in 0..40 {
            let i = 700 + (seed * 7919 + k * 104_729) % (n - 800);
            bad[i] ^= 0x5a;
        }
        if let Ok(img) = decode_frame(&bad, "noisy.jpg") {
            let _ = locate_cards(&img, &cfg);
        }
    }
}

#[test]
fn a_png_header_claiming_a_gigantic_image_is_refused_before_decoding() {
    let e = decode_frame(&png_header(100_000, 100_000), "huge.png").unwrap_err();
    assert!(
        matches!(
            e.kind,
            FrameErrorKind::TooLarge { .. } | FrameErrorKind::OverLimits
        ),
        "{e}"
    );
    assert!(e.to_string().contains("huge.png"), "{e}");
    let e = decode_frame(&png_header(MAX_SIDE + 1, 10), "wide.png").unwrap_err();
    assert!(
        matches!(
            e.kind,
            FrameErrorKind::TooLarge { .. } | FrameErrorKind::OverLimits
        ),
        "{e}"
    );
}

#[test]
fn zero_size_and_empty_files_are_refused() {
    let e = decode_frame(&png_header(0, 10), "zero.png").unwrap_err();
    assert!(e.to_string().starts_with("zero.png: "), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jpg");
    std::fs::write(&empty, b"").unwrap();
    let e = load_frame(&empty).unwrap_err();
    assert!(matches!(e.kind, FrameErrorKind::Empty), "{e}");
    assert!(e.to_string().contains("empty.jpg"), "{e}");
    let e = load_frame(&dir.path().join("missing.png")).unwrap_err();
    assert!(matches!(e.kind, FrameErrorKind::Io(_)), "{e}");
    assert!(e.to_string().contains("missing.png"), "{e}");
}

#[test]
fn a_truncated_png_is_refused() {
    let img = decode_frame(&scene_bytes(), "scene.jpg").unwrap();
    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let e = decode_frame(&png[..png.len() / 2], "half.png").unwrap_err();
    assert!(matches!(e.kind, FrameErrorKind::Decode(_)), "{e}");
    assert!(e.to_string().starts_with("half.png: "), "{e}");
}
