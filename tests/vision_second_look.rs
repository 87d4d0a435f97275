//! The recognizer's second look at unsure reads, on the committed scenes: a card
//! whose first read is below the confirmation threshold is reported with the read
//! of seven cuts of its outline (as located, shrunk, grown and moved a little), not
//! the first one.

use std::path::Path;

use eleusis::vision::frame::load_frame;
use eleusis::vision::recognizer::{second_look_cuts, ONE_CARD_ASPECT, PIP_CHECK_BELOW};
use eleusis::vision::rectify::{index_crops, whole_card, CROP_LEN, WHOLE_LEN};
use eleusis::vision::{Classifier, Recognizer};

#[test]
fn unsure_cards_are_reported_with_the_read_of_seven_cuts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let classifier =
        Classifier::load(&root.join("models/recognizer.onnx")).expect("the committed model loads");
    let threshold = classifier.settings().confirm_threshold;
    let recognizer = Recognizer::new(classifier);
    let mut looked_again = 0;
    let mut changed = 0;
    let dir = root.join("tests/data/scenes");
    let mut frames: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenes folder")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jpg"))
        .collect();
    frames.sort();
    for path in frames {
        let frame = load_frame(&path).expect("committed frame decodes");
        let read = recognizer.recognise(&frame).expect("model runs");
        for card in &read.cards {
            let quad = card.corners;
            let mut pair = vec![0.0f32; 2 * CROP_LEN];
            assert!(index_crops(&frame, &quad, &mut pair));
            let mut whole = vec![0.0f32; WHOLE_LEN];
            assert!(whole_card(&frame, &quad, &mut whole));
            assert!(recognizer.classifier.reads_whole_cards());
            // The corners first; the whole card too when they leave the card unsure.
            let mut first = recognizer
                .classifier
                .read(&pair, &[], 1)
                .expect("model runs");
            if recognizer.classifier.wants_whole_card(&first[0]) {
                recognizer
                    .classifier
                    .add_whole_cards(&mut first, &whole)
                    .expect("model runs");
            }
            let first = first[0];
            // A card's outline big enough is read from its top-left crop alone
            // when that crop is sure enough (within a row of the localiser's, from
            // both crops all the same): that read is the card's.
            let one_card =
                quad.longest_side() >= PIP_CHECK_BELOW && ONE_CARD_ASPECT.contains(&quad.aspect());
            let one = recognizer
                .classifier
                .read_one_corner(&pair[..CROP_LEN], 1, 1)
                .expect("model runs")[0];
            let alone = recognizer.classifier.settings().one_corner_threshold();
            if one_card && one.card.is_some() && one.confidence >= alone {
                assert!(
                    [one, first].iter().any(|r| r.card == Some(card.card)
                        && (card.confidence - r.confidence).abs() < 1e-6),
                    "{}: {} at {} is neither its one-crop nor its two-crop read",
                    path.display(),
                    card.card,
                    card.confidence
                );
                continue;
            }
            if first.card.is_none() || first.confidence >= threshold {
                // A sure first read is reported as it is.
                if first.card.is_some() {
                    assert_eq!(Some(card.card), first.card, "{}", path.display());
                    assert!((card.confidence - first.confidence).abs() < 1e-6);
                }
                continue;
            }
            let cuts = second_look_cuts(&quad);
            assert_eq!(cuts[0], quad, "the first cut is the outline itself");
            let mut crops = vec![0.0f32; cuts.len() * 2 * CROP_LEN];
            for (q, out) in cuts.iter().zip(crops.chunks_exact_mut(2 * CROP_LEN)) {
                assert!(index_crops(&frame, q, out));
            }
            // The six other cuts read in one batch of their own, the first read
            // (the whole card's term included) standing for the outline's look.
            let again = recognizer
                .classifier
                .read_looks(&crops[2 * CROP_LEN..], 1, cuts.len() - 1, &[first])
                .expect("model runs")[0];
            let Some(again_card) = again.card else {
                // "Not a card" on the second look keeps the first read.
                assert_eq!(Some(card.card), first.card);
                continue;
            };
            looked_again += 1;
            assert_eq!(card.card, again_card, "{}", path.display());
            assert!(
                (card.confidence - again.confidence).abs() < 1e-6,
                "{}",
                path.display()
            );
            assert_eq!(card.needs_confirmation, again.confidence < threshold);
            if (again.confidence - first.confidence).abs() > 1e-4 || again.card != first.card {
                changed += 1;
            }
        }
    }
    // The committed scenes hold unsure cards (a tilted spread of small cards), and
    // their second look reads differently from the first.
    assert!(looked_again >= 3, "only {looked_again} unsure cards");
    assert!(
        changed >= 3,
        "only {changed} reads changed by the second look"
    );
}
