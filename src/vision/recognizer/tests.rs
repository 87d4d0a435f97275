//! Unit tests of the recognizer.

use super::fans::fans_worth_reading;
use super::*;
use crate::cards::Rank;
use crate::vision::classify::{CountHistogram, PipRead, CLASSES};
use crate::vision::geometry::Point;
use crate::vision::pips::InkFamily;

#[test]
fn only_a_single_cards_proportions_may_be_read_from_one_corner() {
    // Poker (63 × 88 mm) and bridge (57 × 89 mm) cards seen from above.
    assert!(ONE_CARD_ASPECT.contains(&(63.0 / 88.0)));
    assert!(ONE_CARD_ASPECT.contains(&(57.0 / 89.0)));
    // Two poker cards overlapping by all but a tenth of a card's width, and
    // three barely overlapping (a short row the localiser may not mark).
    assert!(!ONE_CARD_ASPECT.contains(&(63.0 * 1.1 / 88.0)));
    assert!(!ONE_CARD_ASPECT.contains(&(88.0 / (63.0 * 2.9))));
}

/// A read of `card` (`None`: not a card) at `confidence`, with no scores.
fn class_read(card: Option<&str>, confidence: f32) -> ClassRead {
    ClassRead {
        card: card.map(|c| c.parse().unwrap()),
        confidence,
        score: [0.0; CLASSES],
        whole: [0.0; CLASSES],
        one_corner: false,
        blank_corner: false,
    }
}

/// A read whose classes have these probabilities (the rest share what is left).
fn read_of(probs: &[(&str, f32)]) -> ClassRead {
    let rest = (1.0 - probs.iter().map(|p| p.1).sum::<f32>()) / (CLASSES - probs.len()) as f32;
    let mut score = [rest.ln(); CLASSES];
    for (card, p) in probs {
        score[card.parse::<Card>().unwrap().index()] = p.ln();
    }
    let best = probs.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    ClassRead {
        card: Some(best.0.parse().unwrap()),
        confidence: best.1,
        score,
        whole: [0.0; CLASSES],
        one_corner: false,
        blank_corner: false,
    }
}

#[test]
fn pips_weigh_in_on_the_suit_of_an_unsure_read_within_its_ink_colour() {
    let read = read_of(&[("9D", 0.69), ("9C", 0.3)]);
    let nine = Rank::new(9).unwrap();
    // Suits S H D C: nine pips that lean hard to clubs outweigh 0.69 to 0.3.
    let clubs = [0.05f32, 0.01, 0.04, 0.9].map(f32::ln);
    assert_eq!(
        pips_weighed_suit(&read, nine, &clubs, None),
        Some(Suit::Clubs)
    );
    // Red ink rules clubs out, whatever the pips say.
    let red = Some(InkFamily::Red);
    assert_eq!(
        pips_weighed_suit(&read, nine, &clubs, red),
        Some(Suit::Diamonds)
    );
    // Pips that barely lean leave the readers' suit.
    let lean = [0.2f32, 0.2, 0.25, 0.35].map(f32::ln);
    assert_eq!(
        pips_weighed_suit(&read, nine, &lean, None),
        Some(Suit::Diamonds)
    );
    // A suit the readers all but rule out is not offered on the pips' word
    // (short of their denial, which is the check's, not this weighing's).
    let spades = [0.97f32, 0.01, 0.01, 0.01].map(f32::ln);
    assert_eq!(
        pips_weighed_suit(&read, nine, &spades, None),
        Some(Suit::Diamonds)
    );
}

#[test]
fn a_pip_count_weighs_in_on_the_rank_of_an_unsure_read() {
    let counts: CountHistogram = serde_json::from_str(
        r#"{"4": [0, 0, 5, 20, 75], "6": [0, 0, 0, 0, 0, 10, 90],
            "10": [1, 0, 0, 0, 0, 0, 1, 2, 10, 10, 76], "K": [80, 10, 10]}"#,
    )
    .unwrap();
    let spades = Suit::Spades;
    // A six shows four pips almost never, a four mostly: 0.7 to 0.3 is outweighed.
    let read = read_of(&[("6S", 0.7), ("4S", 0.29)]);
    assert_eq!(pips_weighed_rank(&read, spades, 4, &counts), Rank::new(4));
    // Six pips rule the four out (blur never adds pips), whatever the index says.
    let read = read_of(&[("4S", 0.9), ("6S", 0.09)]);
    assert_eq!(pips_weighed_rank(&read, spades, 6, &counts), Rank::new(6));
    // No pips on a ten: a king, which the index gives some weight to.
    let read = read_of(&[("10S", 0.8), ("KS", 0.19)]);
    assert_eq!(
        pips_weighed_rank(&read, spades, 0, &counts),
        Some(Rank::KING)
    );
    // A count that fits the read leaves it.
    let read = read_of(&[("10S", 0.8), ("KS", 0.19)]);
    assert_eq!(pips_weighed_rank(&read, spades, 10, &counts), Rank::new(10));
}

#[test]
fn pips_deny_a_rank_they_outnumber_and_a_high_rank_they_leave_bare() {
    // More pips than the rank: a seven read as a three.
    assert!(pips_deny_rank(3, 7));
    assert!(!pips_deny_rank(3, 3));
    // Blur merges pips: fewer than the rank is no denial, down to three on a ten.
    assert!(!pips_deny_rank(10, 3));
    assert!(!pips_deny_rank(6, 3));
    // Next to none on a six to ten: a court card's art, read as a ten.
    assert!(pips_deny_rank(10, 0));
    assert!(pips_deny_rank(6, 2));
    // Low ranks show few pips anyway.
    assert!(!pips_deny_rank(5, 2));
    assert!(!pips_deny_rank(2, 0));
}

/// What the pips say: `denies`, and the pips read as each suit (S, H, D, C).
fn pips(denies: Option<Suit>, by_suit: [usize; 4]) -> PipRead {
    PipRead {
        suit_sum: None,
        denies,
        pips: by_suit.iter().sum(),
        by_suit,
    }
}

#[test]
fn pips_propose_their_suit_and_their_count_in_place_of_the_index_read() {
    let card = |c: &str| c.parse::<Card>().unwrap();
    // Three clubs deny a spade: the three of clubs.
    let clubs = pips(Some(Suit::Clubs), [0, 0, 0, 3]);
    assert_eq!(pips_correction(card("3S"), &clubs), Some(card("3C")));
    // Seven diamonds, one of them misread as a heart, on a read of 3D: 7D.
    let seven = pips(None, [0, 1, 6, 0]);
    assert_eq!(pips_correction(card("3D"), &seven), Some(card("7D")));
    // Two clubs and two hearts: a neighbour's pips in a loose outline; the
    // count says nothing.
    let mixed = pips(None, [0, 2, 0, 2]);
    assert_eq!(pips_correction(card("2C"), &mixed), None);
    // Both at once: seven clubs on a read of 3S.
    let both = pips(Some(Suit::Clubs), [0, 0, 0, 7]);
    assert_eq!(pips_correction(card("3S"), &both), Some(card("7C")));
    // Fewer pips than the rank (merged by blur), or as many: the read stands.
    assert_eq!(pips_correction(card("9H"), &pips(None, [0, 6, 0, 0])), None);
    assert_eq!(pips_correction(card("4H"), &pips(None, [0, 4, 0, 0])), None);
    // No card shows eleven pips: the suit may change, the rank stays.
    let eleven = pips(Some(Suit::Hearts), [0, 11, 0, 0]);
    assert_eq!(pips_correction(card("9D"), &eleven), Some(card("9H")));
    // Next to no pips on a ten: a court card, but the pips cannot say which.
    assert_eq!(
        pips_correction(card("10H"), &pips(None, [0, 0, 0, 0])),
        None
    );
}

#[test]
fn only_fans_with_two_covered_cards_read_as_cards_are_read_in_every_cut() {
    let as_read = |card: Option<&str>| class_read(card, 0.6);
    // Fan 0: two cards and a blank; fan 1: one card; fan 2: no covered card.
    let fan_of = [0, 1, 0, 0, 1];
    let screened = [
        as_read(Some("QH")),
        as_read(None),
        as_read(None),
        as_read(Some("3C")),
        as_read(Some("9S")),
    ];
    assert_eq!(
        fans_worth_reading(3, fan_of.into_iter(), &screened),
        [true, false, false]
    );
}

fn quad(pts: [(f64, f64); 4]) -> Quad {
    Quad(pts.map(|(x, y)| Point::new(x, y)))
}

fn read(card: &str, confidence: f32, left: f64, width: f64, overlapped: bool) -> CardRead {
    CardRead {
        card: card.parse().unwrap(),
        confidence,
        corners: quad([
            (left, 0.0),
            (left + width, 0.0),
            (left + width, 140.0),
            (left, 140.0),
        ]),
        needs_confirmation: false,
        overlapped,
        pips_say: None,
        pips_counted: None,
        index_read: None,
        class_read: None,
    }
}

/// The reads `drop_duplicates` keeps, each as `card@left`.
fn kept(mut cards: Vec<CardRead>) -> Vec<String> {
    drop_duplicates(&mut cards);
    cards
        .iter()
        .map(|c| format!("{}@{}", c.card, c.corners.0[0].x))
        .collect()
}

#[test]
fn outlines_turned_away_that_look_like_a_card_are_unreadable() {
    let at =
        |left: f64, w: f64, h: f64| quad([(left, 0.0), (left + w, 0.0), (left + w, h), (left, h)]);
    // Whole cards 100 × 140 read at x = 0 and 200, and two covered strips of
    // a row of bigger cards, whose size does not count (with them, the
    // median would be 300).
    let strip = |card: &str, left: f64| CardRead {
        corners: at(left, 40.0, 300.0),
        ..read(card, 1.0, left, 40.0, true)
    };
    let cards = vec![
        read("2S", 1.0, 0.0, 100.0, false),
        read("3S", 1.0, 200.0, 100.0, false),
        strip("4S", 2000.0),
        strip("5S", 2040.0),
    ];
    let rejected = [
        // A card of the same size in glare: unreadable.
        at(400.0, 100.0, 140.0),
        // Another outline of that same thing counts once.
        at(405.0, 95.0, 135.0),
        // An outline of a read card's size and shape on it (another cut of
        // that card), and one a little off holding its centre.
        at(2.0, 100.0, 140.0),
        at(-45.0, 100.0, 140.0),
        // A phone (too narrow), a coaster (square), a card-shaped thing
        // twice the cards' size or half of it.
        at(800.0, 70.0, 150.0),
        at(900.0, 120.0, 120.0),
        at(1100.0, 200.0, 280.0),
        at(1400.0, 50.0, 70.0),
        // Turned landscape, the same card.
        at(1600.0, 140.0, 100.0),
    ];
    let unreadable = unreadable_cards(&cards, &rejected);
    assert_eq!(unreadable, [rejected[0], rejected[8]]);
    // With no card read, any outline of a card's proportions is one.
    assert_eq!(
        unreadable_cards(&[], &rejected[4..8]),
        [rejected[6], rejected[7]]
    );
    assert!(unreadable_cards(&cards, &[]).is_empty());
}

#[test]
fn frames_larger_than_the_read_size_are_shrunk_and_others_kept() {
    let photo = RgbImage::new(4032, 3024);
    let (read, back) = reading_frame(&photo);
    assert_eq!(read.dimensions(), (1920, 1440));
    assert!((back - 2.1).abs() < 1e-9, "{back}");
    let portrait = RgbImage::new(1000, 2500);
    let (read, back) = reading_frame(&portrait);
    assert_eq!(read.dimensions(), (768, 1920));
    assert!((back * 768.0 - 1000.0).abs() < 1e-9, "{back}");
    // A strip: its short side rounds to one pixel, the factor is the long side's.
    let strip = RgbImage::new(1, 5000);
    let (read, back) = reading_frame(&strip);
    assert_eq!(read.dimensions(), (1, 1920));
    assert!((back * 1920.0 - 5000.0).abs() < 1e-9, "{back}");
    let webcam = RgbImage::new(1920, 1080);
    let (read, back) = reading_frame(&webcam);
    assert!(matches!(read, Cow::Borrowed(_)));
    assert_eq!(back, 1.0);
}

#[test]
fn a_covered_card_found_twice_is_reported_once_and_its_neighbours_stay() {
    let cards = vec![
        read("8C", 0.9999, 100.0, 100.0, true),
        // The same strip with its neighbour's: the card's visible side agrees.
        read("8C", 0.99, 102.0, 90.0, true),
        // The next card of the row, a strip further on.
        read("8H", 1.0, 130.0, 100.0, true),
        // Whole cards side by side and touching are never merged.
        read("2S", 0.9, 400.0, 100.0, false),
        read("2S", 0.8, 500.0, 100.0, false),
    ];
    assert_eq!(kept(cards), ["8C@100", "8H@130", "2S@400", "2S@500"]);
}

#[test]
fn one_card_read_from_outlines_of_different_heights_is_reported_once() {
    // The row's cut of a covered 2D and the strip's cut of it: the same left
    // side, but the strip's outline 12 pixels taller (more than the side
    // error allows), and a second 2D of the other deck a strip further on.
    let taller = |card: &str, left: f64| CardRead {
        corners: quad([
            (left, 0.0),
            (left + 100.0, 0.0),
            (left + 100.0, 152.0),
            (left, 152.0),
        ]),
        ..read(card, 0.99, left, 100.0, true)
    };
    let cards = vec![
        read("2D", 0.9999, 100.0, 100.0, true),
        taller("2D", 101.0),
        taller("2D", 125.0),
        // Another card at that place is not the same card.
        taller("9H", 100.0),
    ];
    assert_eq!(kept(cards), ["2D@100", "2D@125", "9H@100"]);
}

#[test]
fn a_whole_card_read_from_its_outline_and_its_rows_is_reported_once() {
    let cards = vec![
        // The card on top of a row, read from the row's split...
        read("AD", 0.999, 300.0, 100.0, false),
        // ...and from its own outline, a few pixels off.
        read("AD", 0.9999, 303.0, 100.0, false),
        // The other deck's AD beside it, and another card at its place.
        read("AD", 0.99, 400.0, 100.0, false),
        read("9C", 0.98, 301.0, 100.0, false),
    ];
    assert_eq!(kept(cards), ["AD@303", "AD@400", "9C@301"]);
}

#[test]
fn a_strip_narrower_than_a_card_stands_for_a_card_reaching_past_it() {
    // A strip 30 wide and 140 tall: a card 0.71 × 140 = 99.4 wide.
    let strip = quad([(10.0, 0.0), (40.0, 0.0), (40.0, 140.0), (10.0, 140.0)]);
    let (card, visible) = covered_card(&strip).unwrap();
    assert!((card.0[1].x - (10.0 + 99.4)).abs() < 1e-6, "{card:?}");
    assert_eq!(card.0[0], strip.0[0]);
    assert_eq!(card.0[3], strip.0[3]);
    assert!((visible - 30.0 / 99.4).abs() < 1e-9);
    // A whole card is no strip.
    let whole = quad([(0.0, 0.0), (100.0, 0.0), (100.0, 140.0), (0.0, 140.0)]);
    assert!(covered_card(&whole).is_none());
}

#[test]
fn a_quarter_turn_swaps_the_long_sides_and_keeps_the_contract_order() {
    // A card seen with its long side foreshortened: 100 wide, 90 tall.
    let q = quad([(0.0, 0.0), (100.0, 0.0), (100.0, 90.0), (0.0, 90.0)]);
    let t = quarter_turn(&q);
    // Clockwise, first corner nearest the top-left of the two portrait orderings
    // of the turned card: (100, 0) → (100, 90) → (0, 90) → (0, 0) or its 180°
    // twin starting at (0, 90); x + y is 100 vs 90, so (0, 90) comes first.
    assert_eq!(
        t,
        quad([(0.0, 90.0), (0.0, 0.0), (100.0, 0.0), (100.0, 90.0)])
    );
    // Its "top" side (corner 0 to 1) is now one of the 90-long sides.
    assert!((t.0[0].dist(t.0[1]) - 90.0).abs() < 1e-9);
    // Turning twice gives the original outline back (as one of its orderings).
    assert!(quarter_turn(&t).corner_error(&q) < 1e-9);
}

#[test]
fn a_row_of_touching_cards_is_cut_into_portrait_cards() {
    // Three 60 × 84 cards side by side: one 180 × 84 outline, located in portrait
    // order (its first side is a short one).
    let row = quad([(180.0, 0.0), (180.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
    assert_eq!(touching_cards(&row), Some(3));
    let parts = split_row(&row, 3).unwrap();
    assert_eq!(parts.len(), 3);
    let mut xs: Vec<f64> = parts.iter().map(|p| p.centre().x).collect();
    xs.sort_by(f64::total_cmp);
    for (x, want) in xs.iter().zip([30.0, 90.0, 150.0]) {
        assert!((x - want).abs() < 1e-6, "{xs:?}");
    }
    for p in &parts {
        // Each part is a portrait card: its first side is the 60-long one.
        assert!((p.0[0].dist(p.0[1]) - 60.0).abs() < 1e-6, "{p:?}");
        assert!((p.0[1].dist(p.0[2]) - 84.0).abs() < 1e-6, "{p:?}");
        assert!((p.aspect() - 60.0 / 84.0).abs() < 1e-9);
    }
    // Two touching cards look like one card turned; a single card lying in
    // the frame has the same proportions, so the model decides.
    let pair = quad([(120.0, 0.0), (120.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
    assert_eq!(touching_cards(&pair), Some(2));
    let four = quad([(240.0, 0.0), (240.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
    assert_eq!(touching_cards(&four), Some(4));
    // Near-square outlines and longer rows are not cut.
    let square = quad([(0.0, 0.0), (90.0, 0.0), (90.0, 100.0), (0.0, 100.0)]);
    assert_eq!(touching_cards(&square), None);
    let five = quad([(300.0, 0.0), (300.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
    assert_eq!(touching_cards(&five), None);
}

#[test]
fn second_look_cuts_scale_about_the_centre_and_move_along_the_sides() {
    let q = quad([(10.0, 20.0), (110.0, 30.0), (100.0, 170.0), (0.0, 160.0)]);
    let s = scaled(&q, 1.04);
    let c = q.centre();
    assert!(s.centre().dist(c) < 1e-9);
    for (p, o) in s.0.iter().zip(q.0) {
        assert!((p.dist(c) - 1.04 * o.dist(c)).abs() < 1e-9);
    }
    assert!((scaled(&q, 0.96).area() - 0.96 * 0.96 * q.area()).abs() < 1e-6);
    // Moved by 10 % of the top side (100, 10) and 10 % of the left side
    // (-10, 140): every corner by (9, 15), and the cuts start with the outline.
    let m = shifted(&q, 0.1, 0.1);
    for (p, o) in m.0.iter().zip(q.0) {
        assert!((p.x - o.x - 9.0).abs() < 1e-9 && (p.y - o.y - 15.0).abs() < 1e-9);
    }
    let cuts = second_look_cuts(&q);
    assert_eq!(cuts.len(), 7);
    assert_eq!(cuts[0], q);
}

#[test]
fn a_card_read_beats_not_a_card_and_confidence_decides_between_cards() {
    let card = |c: &str, p: f32| class_read(Some(c), p);
    let none = class_read(None, 0.99);
    assert!(better(&card("QH", 0.4), &none));
    assert!(!better(&none, &card("QH", 0.4)));
    assert!(better(&card("QH", 0.9), &card("KH", 0.6)));
    assert!(!better(&card("QH", 0.5), &card("KH", 0.6)));
}

#[test]
fn a_short_row_holding_two_cards_is_those_cards_not_a_spread() {
    let read = class_read;
    let rect = |x0: f64, x1: f64| quad([(x0, 0.0), (x1, 0.0), (x1, 140.0), (x0, 140.0)]);
    let long_row = quad([(0.0, 0.0), (400.0, 0.0), (400.0, 60.0), (0.0, 60.0)]);
    // A short spread: a group of its strips (its two index corners those of
    // different cards) reads as no card, the card on top as one.
    let spread = rect(500.0, 800.0);
    // Two cards laid apart, merged through the gap between them: one read
    // unsure on its own outline, the other cut from touching cards.
    let merged = rect(900.0, 1200.0);
    let located = Located {
        cards: Vec::new(),
        rows: vec![long_row],
        short_rows: vec![spread, merged],
        fans: Vec::new(),
        enclosing: Vec::new(),
    };
    let best = vec![
        Some((rect(500.0, 600.0), read(None, 0.99))),
        Some((rect(700.0, 800.0), read(Some("3C"), 1.0))),
        Some((rect(900.0, 1000.0), read(Some("JS"), 0.94))),
        None,
    ];
    let parts = vec![(rect(1100.0, 1200.0), read(Some("9H"), 1.0))];
    assert_eq!(spread_rows(&located, &best, &parts), vec![long_row, spread]);
    // With one card in it, the merged outline may be a short spread.
    assert_eq!(
        spread_rows(&located, &best, &[]),
        vec![long_row, spread, merged]
    );
}

/// A table confirming courts has a sure number card checked against its pips at
/// any height: a king read as an eight (as a German jack's B is) shows none of
/// an eight's pips and asks God; without the option a sure read of a card this
/// size is not checked.
#[test]
fn confirming_courts_checks_a_sure_tall_number_card_against_its_pips() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let frame = crate::vision::load_frame(&root.join("tests/data/scenes/04-single-wood.jpg"))
        .expect("frame");
    // The king of hearts, 200 px tall, as the sidecar places him.
    let corners = Quad([
        Point::new(32.8, 241.8),
        Point::new(167.1, 247.2),
        Point::new(161.8, 445.8),
        Point::new(21.9, 438.6),
    ]);
    assert!(corners.longest_side() >= PIP_CHECK_BELOW);
    let eight = CardRead {
        card: "8H".parse().unwrap(),
        confidence: 0.99999,
        corners,
        needs_confirmation: false,
        overlapped: false,
        pips_say: None,
        pips_counted: None,
        index_read: None,
        class_read: Some(class_read(Some("8H"), 0.99999)),
    };
    let recognizer = Recognizer::new(Classifier::load_default().expect("the committed model"));
    let mut plain = [eight.clone()];
    recognizer
        .check_pips(&frame, &mut plain, false)
        .expect("check");
    assert_eq!(plain[0], eight, "not checked at this height");
    let mut checked = [eight.clone()];
    recognizer
        .check_pips(&frame, &mut checked, true)
        .expect("check");
    assert!(checked[0].needs_confirmation, "{:?}", checked[0]);
    assert!(
        checked[0].pips_counted.is_some_and(|n| n <= 2),
        "{:?}",
        checked[0]
    );
}
