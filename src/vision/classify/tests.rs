use tract_onnx::prelude::*;

use super::network::MAX_SIZED_BATCH;
use super::pip_evidence::{denied_suit, pip_suit_sum, pip_suits};
use super::*;
use crate::cards::{Card, Rank};
use crate::vision::rectify::{CROP_H, CROP_LEN, CROP_W};
use crate::vision::warning::SMALL_CARD_HEIGHT;

#[test]
fn pip_count_likelihoods_come_from_the_counts_with_one_more_card_each() {
    let counts: CountHistogram =
        serde_json::from_str(r#"{"3": [0, 0, 2, 8], "K": [6, 2, 1, 0]}"#).unwrap();
    let (three, king) = (Rank::new(3).unwrap(), Rank::KING);
    // 8 of 10 threes showed three pips: (8 + 1) / (10 + 4).
    assert!((counts.likelihood(three, 3) - 9.0 / 14.0).abs() < 1e-6);
    // None showed none: unlikely, not ruled out.
    assert!((counts.likelihood(three, 0) - 1.0 / 14.0).abs() < 1e-6);
    // More pips than a three has: ruled out.
    assert_eq!(counts.likelihood(three, 4), 0.0);
    // A court card has no rank to exceed; counts past the list take its last.
    assert!((counts.likelihood(king, 7) - 1.0 / 13.0).abs() < 1e-6);
    // A rank not counted is never offered.
    assert_eq!(counts.likelihood(Rank::new(5).unwrap(), 5), 0.0);
    assert_eq!(counts.ranks().map(Rank::value).collect::<Vec<_>>(), [3, 13]);
}

#[test]
fn a_pip_count_histogram_names_ranks_from_two_to_king_with_counts() {
    for (json, says) in [
        (r#"{"A": [1]}"#, "\"A\" is not a rank from 2 to K"),
        (r#"{"Z": [1]}"#, "\"Z\" is not a rank from 2 to K"),
        (r#"{"7": []}"#, "rank 7 has no counts"),
    ] {
        let err = serde_json::from_str::<CountHistogram>(json).unwrap_err();
        assert!(err.to_string().contains(says), "{json}: {err}");
    }
}

fn logits(hot: usize, value: f32) -> Vec<f32> {
    let mut v = vec![0.0; CLASSES];
    v[hot] = value;
    v
}

#[test]
fn two_agreeing_crops_are_more_confident_than_one() {
    let qh: Card = "QH".parse().unwrap();
    let one = combine(&logits(qh.index(), 6.0), &vec![0.0; CLASSES], 1.0);
    let two = combine(&logits(qh.index(), 6.0), &logits(qh.index(), 6.0), 1.0);
    assert_eq!(one.card, Some(qh));
    assert_eq!(two.card, Some(qh));
    assert!(two.confidence > one.confidence);
    // One crop: e^6 / (e^6 + 52).
    let expect = 6f32.exp() / (6f32.exp() + 52.0);
    assert!((one.confidence - expect).abs() < 1e-5, "{}", one.confidence);
}

#[test]
fn temperature_softens_confidence() {
    let c = logits(3, 8.0);
    let sharp = combine(&c, &c, 1.0);
    let soft = combine(&c, &c, 4.0);
    assert!(soft.confidence < sharp.confidence);
    assert_eq!(soft.card, Card::from_index(3));
}

#[test]
fn not_a_card_wins_when_both_crops_say_so() {
    let r = combine(&logits(NOT_A_CARD, 9.0), &logits(NOT_A_CARD, 7.0), 1.5);
    assert_eq!(r.card, None);
    assert!(r.confidence > 0.9);
}

#[test]
fn a_blank_corner_gives_way_to_a_legible_one() {
    let jc: Card = "JC".parse().unwrap();
    let (legible, blank) = (logits(jc.index(), 8.0), logits(NOT_A_CARD, 12.0));
    // Summed, the blank corner outvotes the index: the card would vanish.
    assert_eq!(combine(&legible, &blank, 1.0).card, None);
    for (a, b) in [(&legible, &blank), (&blank, &legible)] {
        let r = blank_corner_read(a, b, 1.0).unwrap();
        assert_eq!(r.card, Some(jc));
        assert!(r.one_corner && r.blank_corner);
        let one = combine(&legible, &vec![0.0; CLASSES], 1.0);
        assert!((r.confidence - one.confidence).abs() < 1e-6);
    }
    // Not when the legible corner is unsure, nor when both or neither read a card.
    let faint = logits(jc.index(), 2.0);
    assert!(combine(&faint, &vec![0.0; CLASSES], 1.0).confidence < BLANK_CORNER_LEVEL);
    assert!(blank_corner_read(&faint, &blank, 1.0).is_none());
    assert!(blank_corner_read(&blank, &blank, 1.0).is_none());
    assert!(blank_corner_read(&legible, &logits(0, 6.0), 1.0).is_none());
}

#[test]
fn disagreeing_crops_pick_the_stronger_and_are_unsure() {
    let r = combine(&logits(0, 5.0), &logits(14, 3.0), 1.0);
    assert_eq!(r.card, Card::from_index(0));
    assert!(r.confidence < 0.9);
}

#[test]
fn looks_are_averaged_so_one_look_is_the_plain_read_and_agreement_is_not_counted_twice() {
    let (a, b) = (logits(7, 5.0), logits(7, 2.0));
    let looks = |pairs: &[(&Vec<f32>, &Vec<f32>)]| {
        mean_read(
            pairs.iter().map(|(a, b)| look_score(a, b, 0.8)),
            [0.0; CLASSES],
        )
    };
    let one = looks(&[(&a, &b)]);
    assert_eq!(one, combine(&a, &b, 0.8));
    // The same look three times is the same read: averaging, not adding up.
    let same = looks(&[(&a, &b), (&a, &b), (&a, &b)]);
    assert_eq!(same.card, one.card);
    assert!((same.confidence - one.confidence).abs() < 1e-6);
    // A look that disagrees pulls the read down; two that agree outvote it.
    let (c, d) = (logits(20, 5.0), logits(20, 2.0));
    let mixed = looks(&[(&a, &b), (&c, &d), (&a, &b)]);
    assert_eq!(mixed.card, Card::from_index(7));
    assert!(mixed.confidence < one.confidence);
}

/// One pip's logits: `value` on class `hot` (0..3 a suit, 4 "not a pip").
fn pip(hot: usize, value: f32) -> Vec<f32> {
    let mut v = vec![0.0; PIP_CLASSES];
    v[hot] = value;
    v
}

#[test]
fn pips_read_as_clubs_deny_a_spade_and_confirm_a_club() {
    // Three pips, each four times likelier a club (index 3) than anything else.
    let clubs: Vec<f32> = (0..3).flat_map(|_| pip(3, 4.0)).collect();
    let read = pip_suits(&clubs, 0.0);
    assert_eq!((read.pips, read.sure), (3, 3));
    assert_eq!(read.by_suit, [0, 0, 0, 3]);
    let sum = pip_suit_sum(read.sure, &read.sum, 2).unwrap();
    // Each pip makes a spade e^4 times less likely than a club; three, e^12
    // (a spade left about 6e-6).
    let spade = sum[0].exp();
    assert!(spade < 1e-5 && spade > 1e-7, "{spade}");
    assert_eq!(denied_suit(&sum, Suit::Spades, 1e-3), Some(Suit::Clubs));
    assert_eq!(denied_suit(&sum, Suit::Clubs, 1e-3), None);
    // A threshold below what the pips leave the spade denies nothing.
    assert_eq!(denied_suit(&sum, Suit::Spades, 1e-8), None);
}

#[test]
fn blobs_that_are_not_pips_are_left_out_and_too_few_pips_say_nothing() {
    // Court art: every blob "not a pip".
    let art: Vec<f32> = (0..4).flat_map(|_| pip(4, 6.0)).collect();
    let read = pip_suits(&art, 0.0);
    assert_eq!(pip_suit_sum(read.sure, &read.sum, 2), None);
    // One club and two pieces of art: one pip alone is not enough...
    let one: Vec<f32> = [pip(3, 6.0), pip(4, 6.0), pip(4, 6.0)].concat();
    let read = pip_suits(&one, 0.0);
    assert_eq!(pip_suit_sum(read.sure, &read.sum, 2), None);
    assert_eq!(read.pips, 1);
    assert_eq!(read.by_suit, [0, 0, 0, 1]);
    assert_eq!(pip_suits(&art, 0.0).pips, 0);
    // ...and the art does not count against the two clubs beside it.
    let two: Vec<f32> = [pip(3, 6.0), pip(4, 6.0), pip(3, 6.0)].concat();
    let alone = [pip(3, 6.0), pip(3, 6.0)].concat();
    assert_eq!(pip_suits(&two, 0.0), pip_suits(&alone, 0.0));
    // Pips torn between two suits deny neither.
    let torn: Vec<f32> = [pip(0, 7.0), pip(3, 7.0)].concat();
    let read = pip_suits(&torn, 0.0);
    let sum = pip_suit_sum(read.sure, &read.sum, 2).unwrap();
    assert_eq!(denied_suit(&sum, Suit::Spades, 1e-3), None);
    assert_eq!(denied_suit(&sum, Suit::Clubs, 1e-3), None);
    assert!(matches!(
        denied_suit(&sum, Suit::Hearts, 1e-3),
        Some(Suit::Spades | Suit::Clubs)
    ));
}

#[test]
fn an_aces_one_pip_is_enough_to_deny_its_suit() {
    // An ace's big spade, read about 0.95 a spade (e^4 over each other class),
    // beside the club its index was read as.
    let spade = pip(0, 4.0);
    // Held to a number card's two pips it says nothing...
    assert_eq!(pip_read(&spade, Suit::Clubs, 0.7, 2, 1e-3).denies, None);
    // ...nor to a number card's threshold: one pip leaves a club about 0.018.
    assert_eq!(pip_read(&spade, Suit::Clubs, 0.7, 1, 1e-3).denies, None);
    // An ace's pip alone, held to "less likely than not", denies the club
    // and confirms a spade.
    let read = pip_read(&spade, Suit::Clubs, 0.7, 1, 0.5);
    assert_eq!((read.denies, read.pips), (Some(Suit::Spades), 1));
    assert_eq!(pip_read(&spade, Suit::Spades, 0.7, 1, 0.5).denies, None);
    // A pip that leaves the spade under the threshold but still first denies
    // nothing: the spade is what it favours.
    let faint = pip(0, 1.0);
    let read = pip_read(&faint, Suit::Spades, 0.0, 1, 0.5);
    assert!(read.suit_sum.unwrap()[0].exp() < 0.5);
    assert_eq!(read.denies, None);
    // A pip read less surely than min_confidence (ornate art) is no evidence.
    let unsure = pip(0, 1.0);
    assert_eq!(pip_read(&unsure, Suit::Clubs, 0.7, 1, 0.5).suit_sum, None);
}

#[test]
fn smudged_pips_are_counted_but_are_no_evidence_of_a_suit() {
    // Nine blurred pips, each leaning a little to hearts (e^1 over the rest,
    // about 0.40 sure): summed, the lean alone would deny a diamond.
    let smudges: Vec<f32> = (0..9).flat_map(|_| pip(1, 1.0)).collect();
    let all = pip_suits(&smudges, 0.0);
    let sum = pip_suit_sum(all.sure, &all.sum, 2).unwrap();
    assert_eq!(denied_suit(&sum, Suit::Diamonds, 1e-3), Some(Suit::Hearts));
    // Held to 0.6, none is evidence: nothing is denied, all nine still count.
    let sure = pip_suits(&smudges, 0.6);
    assert_eq!((sure.pips, sure.sure), (9, 0));
    assert_eq!(pip_suit_sum(sure.sure, &sure.sum, 2), None);
    // A clear pip (e^4: about 0.93 sure) is evidence at 0.6.
    let clear = [pip(3, 4.0), pip(3, 4.0), pip(1, 1.0)].concat();
    let read = pip_suits(&clear, 0.6);
    assert_eq!((read.pips, read.sure), (3, 2));
}

#[test]
fn pip_reader_settings_are_checked() {
    let with = |reader: &str| {
        format!(
            r#"{{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"pip_reader":{reader}}}"#
        )
    };
    let good = with(r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2}"#);
    let s = ModelSettings::parse(good.as_bytes(), "r.json").unwrap();
    let p = s.pip_reader.unwrap();
    assert_eq!(
        (p.deny_below, p.min_pips, p.min_confidence),
        (0.001, 2, 0.0)
    );
    let sure = with(
        r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"min_confidence":0.7}"#,
    );
    let p = ModelSettings::parse(sure.as_bytes(), "r.json").unwrap();
    let p = p.pip_reader.unwrap();
    assert_eq!(p.min_confidence, 0.7);
    // Without ace_deny_below aces are not checked.
    assert_eq!(p.ace_deny_below, None);
    let aces = with(
        r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"ace_deny_below":0.5}"#,
    );
    let p = ModelSettings::parse(aces.as_bytes(), "r.json").unwrap();
    assert_eq!(p.pip_reader.unwrap().ace_deny_below, Some(0.5));
    for (reader, says) in [
        (
            r#"{"file":"pips.onnx","input":[3,24,24],"deny_below":0.001,"min_pips":2}"#,
            "pip_reader input is [3, 24, 24], the recognizer feeds [1, 24, 24]",
        ),
        (
            r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":2,"min_pips":2}"#,
            "pip_reader deny_below 2 is outside [0, 1]",
        ),
        (
            r#"{"file":"../pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2}"#,
            "is not a file name",
        ),
        (
            r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"min_confidence":-1}"#,
            "pip_reader min_confidence -1 is outside [0, 1]",
        ),
        (
            r#"{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"ace_deny_below":1.5}"#,
            "pip_reader ace_deny_below 1.5 is outside [0, 1]",
        ),
        (r#"{"file":"pips.onnx","input":[1,24,24]}"#, "missing field"),
    ] {
        let e = ModelSettings::parse(with(reader).as_bytes(), "r.json").unwrap_err();
        assert!(e.to_string().contains(says), "{e}");
    }
}

#[test]
fn class_names_in_another_order_are_refused_and_unknown_settings_kept_to_say() {
    let base = r#""input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9"#;
    let mut names: Vec<String> = (0..52)
        .filter_map(Card::from_index)
        .map(|c| c.to_string())
        .collect();
    names.push("none".into());
    let with_names = |names: &[String]| {
        format!(
            "{{{base},\"class_names\":{}}}",
            serde_json::to_string(names).unwrap()
        )
    };
    let s = ModelSettings::parse(with_names(&names).as_bytes(), "r.json").unwrap();
    assert!(s.unknown.is_empty(), "{:?}", s.unknown);
    // Hearts and diamonds swapped at the fours: every 4H would be read as 4D.
    names.swap(16, 29);
    let e = ModelSettings::parse(with_names(&names).as_bytes(), "r.json").unwrap_err();
    assert!(
        e.to_string()
            .contains(r#"class_names[16] is "4D" where this build reads "4H""#),
        "{e}"
    );
    names.truncate(52);
    names.swap(16, 29);
    let e = ModelSettings::parse(with_names(&names).as_bytes(), "r.json").unwrap_err();
    assert!(e.to_string().contains("has 52 labels"), "{e}");
    // A misspelt threshold and a misspelt pip setting are kept to be said.
    let typo = format!(
        r#"{{{base},"confirm_treshold_one_corner":0.99,"pip_reader":{{"file":"pips.onnx","input":[1,24,24],"deny_below":0.001,"min_pips":2,"ace_deny_belwo":0.5}}}}"#
    );
    let s = ModelSettings::parse(typo.as_bytes(), "r.json").unwrap();
    assert_eq!(
        s.unknown,
        ["confirm_treshold_one_corner", "pip_reader.ace_deny_belwo"]
    );
    assert_eq!(s.pip_reader.unwrap().ace_deny_below, None);
    // A bad value is still placed in the text.
    let hot = br#"{"input":[3,72,40],"classes":53,"temperature":"hot","confirm_threshold":0.9}"#;
    let e = ModelSettings::parse(hot, "r.json").unwrap_err().to_string();
    assert!(e.contains("line 1 column"), "{e}");
}

#[test]
fn settings_are_checked_against_the_contract() {
    let parsed = |json: &[u8]| ModelSettings::parse(json, "r.json").unwrap();
    let good = br#"{"input":[3,72,40],"classes":53,"temperature":1.4,"confirm_threshold":0.93,"version":"1"}"#;
    let s = parsed(good);
    assert_eq!(s.temperature, 1.4);
    // No one-corner threshold: a read from one corner is held to the usual one.
    assert_eq!(s.one_corner_threshold(), 0.93);
    // No height: cards under the small-card height ask God.
    assert_eq!(s.confirm_below_height(), SMALL_CARD_HEIGHT);
    let own = br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"confirm_below_height":50}"#;
    assert_eq!(parsed(own).confirm_below_height(), 50.0);
    let own = br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"confirm_threshold_one_corner":0.99}"#;
    assert_eq!(parsed(own).one_corner_threshold(), 0.99);
    for bad in [
        &br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"confirm_threshold_one_corner":1.5}"#[..],
        br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"confirm_below_height":-3}"#,
        br#"{"input":[3,64,64],"classes":53,"temperature":1,"confirm_threshold":0.9}"#,
        br#"{"input":[3,72,40],"classes":52,"temperature":1,"confirm_threshold":0.9}"#,
        br#"{"input":[3,72,40],"classes":53,"temperature":0,"confirm_threshold":0.9}"#,
        br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":2}"#,
        br#"{"input":[3,72,40]"#,
    ] {
        let e = ModelSettings::parse(bad, "r.json").unwrap_err();
        assert!(
            e.to_string().starts_with("r.json: bad model settings"),
            "{e}"
        );
    }
}

#[test]
fn a_card_reader_is_named_by_file_and_checked_like_the_index_model() {
    let with = |reader: &str| {
        format!(
            r#"{{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9,"card_reader":{reader}}}"#
        )
    };
    let good = with(
        r#"{"file":"card_reader.onnx","input":[3,56,40],"temperature":0.6,"weight":1,"below":0.99}"#,
    );
    let s = ModelSettings::parse(good.as_bytes(), "r.json").unwrap();
    let c = s.card_reader.expect("card reader read");
    assert_eq!(
        (c.file.as_str(), c.temperature, c.weight),
        ("card_reader.onnx", 0.6, 1.0)
    );
    assert_eq!(c.below, Some(0.99));
    for (reader, says) in [
        (
            r#"{"file":"c.onnx","input":[3,72,40],"temperature":1,"weight":1}"#,
            "card_reader input",
        ),
        (
            r#"{"file":"c.onnx","input":[3,56,40],"temperature":0,"weight":1}"#,
            "card_reader temperature",
        ),
        (
            r#"{"file":"c.onnx","input":[3,56,40],"temperature":1,"weight":-1}"#,
            "card_reader weight",
        ),
        (
            r#"{"file":"../c.onnx","input":[3,56,40],"temperature":1,"weight":1}"#,
            "not a file name",
        ),
        (
            r#"{"file":"/etc/c.onnx","input":[3,56,40],"temperature":1,"weight":1}"#,
            "not a file name",
        ),
        (
            r#"{"file":"c.onnx","input":[3,56,40],"temperature":1}"#,
            "weight",
        ),
        (
            r#"{"file":"c.onnx","input":[3,56,40],"temperature":1,"weight":1,"below":1.2}"#,
            "card_reader below",
        ),
    ] {
        let e = ModelSettings::parse(with(reader).as_bytes(), "r.json").unwrap_err();
        assert!(e.to_string().contains(says), "{reader}: {e}");
    }
}

#[test]
fn a_named_card_reader_that_is_missing_is_an_error_naming_it() {
    let dir = std::env::temp_dir().join(format!("eleusis-card-reader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    std::fs::copy(models.join(MODEL_FILE), dir.join(MODEL_FILE)).unwrap();
    std::fs::copy(models.join(SETTINGS_FILE), dir.join(SETTINGS_FILE)).unwrap();
    let e = Classifier::load(&dir).unwrap_err();
    assert!(
        e.to_string().contains("no card_reader.onnx in this folder"),
        "{e}"
    );
    // Without the card reader named, the index model alone loads and reads.
    let text = std::fs::read_to_string(dir.join(SETTINGS_FILE)).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json.as_object_mut().unwrap().remove("card_reader");
    std::fs::write(dir.join(SETTINGS_FILE), json.to_string()).unwrap();
    // The pip reader named and missing is an error the same way.
    let e = Classifier::load(&dir).unwrap_err();
    assert!(e.to_string().contains("no pips.onnx in this folder"), "{e}");
    json.as_object_mut().unwrap().remove("pip_reader");
    std::fs::write(dir.join(SETTINGS_FILE), json.to_string()).unwrap();
    let c = Classifier::load(&dir).expect("the index model alone loads");
    assert!(!c.reads_whole_cards());
    assert!(!c.reads_pips());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_card_reader_adds_its_term_to_the_first_read_and_to_every_later_look() {
    use crate::vision::rectify::{index_crops, whole_card};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let c = Classifier::load(&dir).expect("the committed model loads");
    assert!(c.reads_whole_cards());
    // A plain card drawn in the frame: white paper, a dark index and pips.
    let frame = image::RgbImage::from_fn(200, 260, |x, y| {
        let on_card = (20..180).contains(&x) && (10..250).contains(&y);
        let ink = (30..44).contains(&x) && (20..50).contains(&y)
            || (80..120).contains(&x) && (100..160).contains(&y);
        image::Rgb(match (on_card, ink) {
            (true, true) => [20, 20, 20],
            (true, false) => [240, 240, 235],
            _ => [30, 110, 50],
        })
    });
    let q = crate::vision::geometry::Quad(
        [(20.0, 10.0), (180.0, 10.0), (180.0, 250.0), (20.0, 250.0)]
            .map(|(x, y)| crate::vision::geometry::Point::new(x, y)),
    );
    let mut crops = vec![0.0; 2 * CROP_LEN];
    let mut whole = vec![0.0; WHOLE_LEN];
    assert!(index_crops(&frame, &q, &mut crops) && whole_card(&frame, &q, &mut whole));
    let alone = c.read(&crops, &[], 1).unwrap()[0];
    let both = c.read(&crops, &whole, 1).unwrap()[0];
    assert!(alone.whole.iter().all(|&w| w == 0.0));
    assert!(both.whole.iter().any(|&w| w != 0.0));
    for k in 0..CLASSES {
        let want = alone.score[k] + both.whole[k];
        assert!((both.score[k] - want).abs() < 1e-4, "class {k}");
    }
    // A later look (the same crops again) averages with the first read, its
    // own card reader term added: the same read.
    let again = c.read_looks(&crops, 1, 1, &[both]).unwrap()[0];
    assert_eq!(again.card, both.card);
    assert!((again.confidence - both.confidence).abs() < 1e-5);
    assert_eq!(again.whole, both.whole);
    // A wrong count of whole-card floats is refused, not read.
    assert!(c.read(&crops, &whole[1..], 1).is_err());
    let mut added = [alone];
    assert!(c.add_whole_cards(&mut added, &whole[1..]).is_err());
    c.add_whole_cards(&mut added, &whole).unwrap();
    assert_eq!(added[0].card, both.card);
    assert!((added[0].confidence - both.confidence).abs() < 1e-5);
    // Only reads the corners leave less sure than `below` are read again.
    let below = c.settings().card_reader.as_ref().unwrap().below.unwrap();
    let sure = ClassRead {
        confidence: below,
        ..alone
    };
    let unsure = ClassRead {
        confidence: below - 1e-4,
        ..alone
    };
    assert!(!c.wants_whole_card(&sure) && c.wants_whole_card(&unsure));
}

#[test]
fn a_sure_top_left_crop_alone_reads_a_card_and_the_rest_read_both_crops() {
    use crate::vision::geometry::{Point, Quad};
    use crate::vision::rectify::index_crops;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let c = Classifier::load(&root.join("models")).expect("the committed model loads");
    let scene = root.join("tests/data/scenes/08-seq4-dark");
    let frame = image::open(scene.with_extension("jpg")).unwrap().to_rgb8();
    let side: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scene.with_extension("json")).unwrap())
            .unwrap();
    let quads: Vec<Quad> = side["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|card| {
            let p = |k: usize| {
                let xy = &card["corners"][k];
                Point::new(xy[0].as_f64().unwrap(), xy[1].as_f64().unwrap())
            };
            Quad([p(0), p(1), p(2), p(3)])
        })
        .collect();
    let n = quads.len();
    let mut crops = vec![0.0; n * 2 * CROP_LEN];
    for (q, slot) in quads.iter().zip(crops.chunks_exact_mut(2 * CROP_LEN)) {
        assert!(index_crops(&frame, q, slot));
    }
    let both = c.read(&crops, &[], n).unwrap();
    let firsts: Vec<f32> = crops
        .chunks_exact(2 * CROP_LEN)
        .flat_map(|pair| pair[..CROP_LEN].iter().copied())
        .collect();
    let one = c.read_one_corner(&firsts, n, 1).unwrap();
    let alone = c.settings().one_corner_threshold();
    // None marked: every card read from both crops, as `read` reads it.
    let unmarked = c.read_sure_corner_first(&crops, n, &[]).unwrap();
    for (a, b) in unmarked.iter().zip(&both) {
        assert_eq!((a.card, a.confidence), (b.card, b.confidence));
    }
    // Small cards' outlines: never read from one corner first, so read as
    // both crops read them (no corner of this scene is blank).
    let small = c
        .read_sure_corner_first(&crops, n, &vec![Outline::SmallCard; n])
        .unwrap();
    for (a, b) in small.iter().zip(&both) {
        assert_eq!(
            (a.card, a.confidence, a.one_corner),
            (b.card, b.confidence, false)
        );
    }
    // The first card's bottom-right index washed out to plain paper: read from
    // both crops it vanishes, but a card's outline (small or not) gives way to
    // its legible top-left crop, marked as read beside a blank corner.
    let mut glare = crops.clone();
    glare[CROP_LEN..2 * CROP_LEN].fill(1.0);
    let several = c.read_sure_corner_first(&glare, n, &[]).unwrap();
    assert_eq!(several[0].card, None, "{}", several[0].confidence);
    for outline in [Outline::SmallCard, Outline::Card] {
        let read = c.read_sure_corner_first(&glare, n, &[outline]).unwrap();
        assert_eq!(read[0].card, one[0].card, "{outline:?}");
        assert!(read[0].one_corner, "{outline:?}");
        if outline == Outline::SmallCard {
            assert!(read[0].blank_corner);
        }
    }
    // Every other card marked: a marked card whose top-left crop is sure is
    // that crop's read, every other card the read of both crops, in order.
    let early: Vec<Outline> = (0..n)
        .map(|k| {
            if k % 2 == 0 {
                Outline::Card
            } else {
                Outline::MaybeSeveral
            }
        })
        .collect();
    let reads = c.read_sure_corner_first(&crops, n, &early).unwrap();
    assert_eq!(reads.len(), n);
    let mut from_one = 0;
    for k in 0..n {
        let want =
            if early[k] == Outline::Card && one[k].card.is_some() && one[k].confidence >= alone {
                from_one += 1;
                one[k]
            } else {
                both[k]
            };
        assert_eq!(reads[k].card, want.card, "card {k}");
        assert!(
            (reads[k].confidence - want.confidence).abs() < 1e-6,
            "card {k}"
        );
    }
    // The scene's well-seen cards are sure from one crop: the shortcut is taken.
    assert!(
        from_one >= 1,
        "no marked card was read from its top-left crop alone"
    );
    // Cutting bottom-right crops on demand reads the same, and asks only for
    // the crops of cards the top-left crop alone did not read.
    let mut asked = Vec::new();
    let cutting = c
        .read_sure_corner_first_cutting(&crops, n, &early, |k, rest| {
            asked.push(k);
            rest.extend_from_slice(&crops[k * 2 * CROP_LEN + CROP_LEN..(k + 1) * 2 * CROP_LEN]);
            true
        })
        .unwrap();
    for (a, b) in cutting.iter().zip(&reads) {
        assert_eq!((a.card, a.confidence), (b.card, b.confidence));
    }
    assert_eq!(asked.len(), n - from_one);
    assert!(asked.iter().all(|&k| !reads[k].one_corner));
    // A crop that cannot be cut is an error, not a read of nothing.
    let failed = c.read_sure_corner_first_cutting(&crops, n, &early, |_, _| false);
    assert!(failed.is_err());
    let all = c
        .read_sure_corner_first(&crops, n, &vec![Outline::Card; n])
        .unwrap();
    for (k, read) in all.iter().enumerate() {
        assert_eq!(
            read.card, both[k].card,
            "card {k}: one crop and two agree here"
        );
    }
    // Too few crop values for the cards named is refused, not read.
    assert!(c.read_sure_corner_first(&crops[1..], n, &early).is_err());
}

#[test]
fn a_plan_sized_for_the_batch_gives_the_general_plans_logits() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let c = Classifier::load(&dir).expect("the committed model loads");
    // 70 crops run as eight parts of 8 and one of 6 on their sized plans.
    for n in [2usize, 3, 70] {
        // Smooth, card-like values (not constant: a constant input hides
        // layout mistakes).
        let x: Vec<f32> = (0..n * CROP_LEN)
            .map(|i| 0.5 + 0.4 * ((i % 977) as f32 * 0.013).sin())
            .collect();
        let sized = c.logits(&x, n).unwrap();
        let input = Tensor::from_shape(&[n, 3, CROP_H, CROP_W], &x).unwrap();
        let general = c.index.plan.run(tvec!(input.into())).unwrap();
        let general: Vec<f32> = general[0]
            .to_array_view::<f32>()
            .unwrap()
            .iter()
            .copied()
            .collect();
        assert_eq!(sized.len(), n * CLASSES);
        let diff = sized
            .iter()
            .zip(&general)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(diff < 1e-3, "batch {n}: logits differ by {diff}");
    }
    let cache = c.index.sized.lock().unwrap();
    assert!(cache.contains_key(&2) && cache.contains_key(&3));
    assert!(cache.contains_key(&MAX_SIZED_BATCH) && cache.contains_key(&6));
    assert!(!cache.contains_key(&70));
}

#[test]
fn a_look_read_already_counts_as_one_of_a_cards_looks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let c = Classifier::load(&dir).expect("the committed model loads");
    // Two cards of three looks each; the middle looks are read first, alone.
    let looks: Vec<Vec<f32>> = (0..6)
        .map(|k| {
            (0..CROP_LEN)
                .map(|i| 0.5 + 0.4 * ((i % (389 + 97 * k)) as f32 * 0.017).sin())
                .collect()
        })
        .collect();
    let all: Vec<f32> = looks.concat();
    let whole = c.read_one_corner(&all, 2, 3).unwrap();
    let middles: Vec<f32> = [&looks[1], &looks[4]].map(|l| l.to_vec()).concat();
    let first = c.read_one_corner(&middles, 2, 1).unwrap();
    let others: Vec<f32> = [&looks[0], &looks[2], &looks[3], &looks[5]]
        .map(|l| l.to_vec())
        .concat();
    let added = c.read_one_corner_adding(&others, 3, &first, 1).unwrap();
    assert_eq!(added.len(), 2);
    for (a, w) in added.iter().zip(&whole) {
        assert_eq!(a.card, w.card);
        let diff = a
            .score
            .iter()
            .zip(&w.score)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max);
        assert!(diff < 1e-3, "scores differ by {diff}");
    }
}

#[test]
fn garbage_model_bytes_are_an_error_not_a_panic() {
    let s = ModelSettings::parse(
        br#"{"input":[3,72,40],"classes":53,"temperature":1,"confirm_threshold":0.9}"#,
        "r.json",
    )
    .unwrap();
    let e = Classifier::from_parts(b"not an onnx file", None, s, "x.onnx".into()).unwrap_err();
    assert!(matches!(e, ModelError::Load { .. }), "{e}");
}
