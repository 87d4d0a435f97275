//! Recognizer speed on a 1280 × 720 webcam frame with four cards (committed scene
//! `08-seq4-dark`): localisation alone, the model alone on the eight index crops,
//! the whole read (localise, crop, one model
//! batch of eight crops), and loading the model. Goals: ≤ 15 ms for the whole read
//! on one core, ≤ 100 ms to load the model. tract runs single-threaded. Also
//! localisation on a light cloth (`tests/data/white`), where the localiser tries
//! its neutral-paper masks as well, the exposure check every read makes, and the
//! whole read of a 4-card frame where one card's first read is unsure and gets the
//! second look (`10-seq4-white`). And the same 4-card frame enlarged to 1920 ×
//! 1080, the size the God console asks a webcam for: decoding and the whole read.
//! And the whole read of an overlapping row of 12 and of a fanned hand of 16, and
//! the pip check of the four cards (each rectified, its pips found and read),
//! with its first two parts alone, and the whole read of a row of four cards
//! under 145 px (`tests/data/pips/0088-row-slant`), which pays that check.
//!
//! Run: `cargo bench --bench recognize` (the model benches are skipped, with a
//! note, when `models/recognizer.onnx` is not there).

use std::path::Path;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use eleusis::cards::Suit;
use eleusis::vision::pips::{find_pips, pips_and_ink_family};
use eleusis::vision::rectify::{index_crops, rectify, whole_card, CROP_LEN, WHOLE_LEN};
use eleusis::vision::{
    decode_frame, exposure_warnings, locate_cards, Classifier, LocaliserConfig, Recognizer,
};

fn scene(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Benchmarks the whole read of committed frame `file` (under `tests/data`),
/// after checking that it finds its `cards` cards.
fn bench_recognise(
    c: &mut Criterion,
    recognizer: &Recognizer,
    name: &str,
    file: &str,
    cards: usize,
) {
    let frame = decode_frame(&scene(file), file).expect("scene decodes");
    let read = recognizer.recognise(&frame).expect("model runs");
    assert_eq!(read.cards.len(), cards, "{file}: its cards");
    c.bench_function(name, |b| {
        b.iter(|| {
            recognizer
                .recognise(black_box(&frame))
                .map(|r| r.cards.len())
        })
    });
}

fn bench(c: &mut Criterion) {
    let bytes = scene("scenes/08-seq4-dark.jpg");
    let frame = decode_frame(&bytes, "08-seq4-dark.jpg").expect("scene decodes");
    let cfg = LocaliserConfig::default();
    assert_eq!(
        locate_cards(&frame, &cfg).len(),
        4,
        "the scene has four cards"
    );

    c.bench_function("decode 1280x720 jpeg", |b| {
        b.iter(|| decode_frame(black_box(&bytes), "frame").map(|f| f.width()))
    });
    c.bench_function("locate 4 cards 1280x720", |b| {
        b.iter(|| locate_cards(black_box(&frame), &cfg).len())
    });
    c.bench_function("exposure check 1280x720", |b| {
        b.iter(|| exposure_warnings(black_box(&frame)).len())
    });
    let light = decode_frame(&scene("white/seq3-tinted-white-cloth.jpg"), "white cloth")
        .expect("scene decodes");
    assert_eq!(
        locate_cards(&light, &cfg).len(),
        3,
        "the scene has three cards"
    );
    c.bench_function("locate 3 cards on a white cloth", |b| {
        b.iter(|| locate_cards(black_box(&light), &cfg).len())
    });

    // ELEUSIS_MODEL names another model folder (to compare two models on one build).
    let model_dir = std::env::var_os("ELEUSIS_MODEL")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("models"));
    if !model_dir.join("recognizer.onnx").is_file() {
        eprintln!("note: no models/recognizer.onnx: model benches skipped");
        return;
    }
    c.bench_function("load model", |b| {
        b.iter(|| Classifier::load(black_box(&model_dir)).map(|m| m.source.len()))
    });
    let recognizer = Recognizer::new(Classifier::load(&model_dir).expect("model loads"));
    // The model alone on the frame's eight index crops (one batch).
    let quads = locate_cards(&frame, &cfg);
    let mut crops = vec![0.0f32; quads.len() * 2 * CROP_LEN];
    for (q, slot) in quads.iter().zip(crops.chunks_exact_mut(2 * CROP_LEN)) {
        assert!(index_crops(&frame, q, slot));
    }
    c.bench_function("model 8 crops", |b| {
        b.iter(|| {
            recognizer
                .classifier
                .logits(black_box(&crops), 2 * quads.len())
                .map(|l| l.len())
        })
    });
    // The card reader's part: cutting the four whole cards, and reading them.
    c.bench_function("cut 4 whole cards", |b| {
        let mut out = vec![0.0f32; WHOLE_LEN];
        b.iter(|| {
            quads
                .iter()
                .filter(|q| whole_card(black_box(&frame), q, &mut out))
                .count()
        })
    });
    c.bench_function("read 8 crops and 4 whole cards", |b| {
        let mut wholes = vec![0.0f32; quads.len() * WHOLE_LEN];
        for (q, slot) in quads.iter().zip(wholes.chunks_exact_mut(WHOLE_LEN)) {
            assert!(whole_card(&frame, q, slot));
        }
        b.iter(|| {
            recognizer
                .classifier
                .read(black_box(&crops), &wholes, quads.len())
                .map(|r| r.len())
        })
    });
    // The pip check of four number cards: rectify, find the pips, name their ink's
    // colour family, read them. (The
    // recognizer checks only cards under 145 px, which this frame's are not: this
    // is what four such cards cost.)
    c.bench_function("check the pips of 4 cards", |b| {
        b.iter(|| {
            quads
                .iter()
                .filter_map(|q| rectify(black_box(&frame), q))
                .filter_map(|card| {
                    let (patches, n, family) = pips_and_ink_family(&card);
                    recognizer
                        .classifier
                        .read_pips(&patches, n, Suit::Spades)
                        .ok()
                        .map(|read| (read, family))
                })
                .count()
        })
    });
    // Its first two parts alone: rectifying the four cards, finding their pips.
    c.bench_function("rectify 4 cards", |b| {
        b.iter(|| {
            quads
                .iter()
                .filter_map(|q| rectify(black_box(&frame), q))
                .count()
        })
    });
    let rectified: Vec<_> = quads.iter().filter_map(|q| rectify(&frame, q)).collect();
    c.bench_function("find the pips of 4 cards", |b| {
        b.iter(|| {
            rectified
                .iter()
                .map(|card| find_pips(black_box(card)).1)
                .sum::<usize>()
        })
    });
    c.bench_function("recognise 4 cards 1280x720", |b| {
        b.iter(|| {
            recognizer
                .recognise(black_box(&frame))
                .map(|r| r.cards.len())
        })
    });
    // A table whose deck letters its courts otherwise (`--confirm-courts`): the
    // same four number cards, each checked against its pips at any height.
    recognizer.confirm_courts(true);
    c.bench_function("recognise 4 cards 1280x720, court cards confirmed", |b| {
        b.iter(|| {
            recognizer
                .recognise(black_box(&frame))
                .map(|r| r.cards.len())
        })
    });
    recognizer.confirm_courts(false);
    // Four cards 92-104 px tall at a slant (a webcam farther off): each is read
    // both ways up and checked against its pips on top (one, a plastic-deck 8C
    // read as 8S, is caught).
    bench_recognise(
        c,
        &recognizer,
        "recognise 4 small cards 1280x720",
        "pips/0088-row-slant.jpg",
        4,
    );
    // The console asks the webcam for 1920 × 1080: the same frame, enlarged.
    let big = image::imageops::resize(&frame, 1920, 1080, image::imageops::FilterType::CatmullRom);
    let mut big_jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut big_jpeg, 92)
        .encode_image(&big)
        .expect("jpeg encodes");
    let read = recognizer.recognise(&big).expect("model runs");
    assert_eq!(read.cards.len(), 4, "the enlarged scene has four cards");
    c.bench_function("decode 1920x1080 jpeg", |b| {
        b.iter(|| decode_frame(black_box(&big_jpeg), "frame").map(|f| f.width()))
    });
    c.bench_function("recognise 4 cards 1920x1080", |b| {
        b.iter(|| recognizer.recognise(black_box(&big)).map(|r| r.cards.len()))
    });
    c.bench_function("recognise 3 cards on a white cloth", |b| {
        b.iter(|| {
            recognizer
                .recognise(black_box(&light))
                .map(|r| r.cards.len())
        })
    });
    // A frame where one card's first read is unsure: the second look reads it
    // again from six more cuts (twelve more crops, one more batch).
    bench_recognise(
        c,
        &recognizer,
        "recognise 4 cards, one unsure (second look)",
        "scenes/10-seq4-white.jpg",
        4,
    );
    // A hand of twelve spread in an overlapping row: eleven covered cards read from
    // one corner each (three cuts), the one on top whole.
    let spread = decode_frame(
        &scene("spreads/0019-four-colour-white-12.jpg"),
        "0019-four-colour-white-12.jpg",
    )
    .expect("scene decodes");
    let read = recognizer.recognise(&spread).expect("model runs");
    assert_eq!(read.cards.len(), 12, "the row holds twelve cards");
    c.bench_function("recognise an overlapping row of 12", |b| {
        b.iter(|| {
            recognizer
                .recognise(black_box(&spread))
                .map(|r| r.cards.len())
        })
    });

    // A fanned hand of 16 on a white cloth: the fan's blob tried as a fan (step 8),
    // each corner of its arc read from one corner (three cuts), the top card whole.
    let fan = decode_frame(
        &scene("fans/0024-neoclassical-white-16.jpg"),
        "0024-neoclassical-white-16.jpg",
    )
    .expect("scene decodes");
    let read = recognizer.recognise(&fan).expect("model runs");
    assert!(
        read.cards.len() >= 6,
        "the fan's covered cards are read ({} cards)",
        read.cards.len()
    );
    c.bench_function("recognise a fan of 16", |b| {
        b.iter(|| recognizer.recognise(black_box(&fan)).map(|r| r.cards.len()))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
