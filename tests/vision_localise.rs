//! Localisation on the committed labelled scenes (`tests/data/scenes/`): every card
//! found with its corners within a few pixels of the sidecar, in left-to-right
//! order, and nothing card-shaped reported where there are only distractors (paper
//! notes excepted: they are card-shaped, the classifier turns them away).

use std::path::{Path, PathBuf};

use eleusis::vision::scene::SceneLabels;
use eleusis::vision::{load_frame, locate, locate_cards, LocaliserConfig, Quad};

fn scenes() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("scenes directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jpg" || e == "png"))
        .collect();
    v.sort();
    assert!(
        v.len() >= 20,
        "expected the committed scenes, found {}",
        v.len()
    );
    v
}

/// Corners must be within this many pixels of the labels (cards are 100–200 px
/// tall in these frames; the model is trained with corner jitter of this order).
const TOLERANCE: f64 = 4.0;

/// The blurred, strongly tilted spread of light cards on a white cloth is the
/// hardest scene: a few of its cards may be missed or outlined loosely.
const HARD_SCENE: &str = "21-tilted-spread.jpg";
const HARD_SCENE_MAX_MISSED: usize = 3;

struct SceneResult {
    missed: Vec<String>,
    out_of_order: bool,
    spurious: Vec<Quad>,
    errors: Vec<f64>,
}

fn check_scene(path: &Path, cfg: &LocaliserConfig) -> SceneResult {
    let labels = SceneLabels::for_image(path).unwrap();
    let frame = load_frame(path).unwrap();
    let found = locate_cards(&frame, cfg);
    let mut matched: Vec<usize> = Vec::new();
    let mut res = SceneResult {
        missed: Vec::new(),
        out_of_order: false,
        spurious: Vec::new(),
        errors: Vec::new(),
    };
    for (li, label) in labels.cards.iter().enumerate() {
        let best = found
            .iter()
            .enumerate()
            .map(|(i, q)| (i, q.corner_error(&label.corners)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match best {
            Some((i, err)) if err <= TOLERANCE => {
                res.errors.push(err);
                matched.push(i);
            }
            other => res
                .missed
                .push(format!("card {li} ({}): nearest {other:?}", label.card)),
        }
    }
    res.out_of_order = !matched.windows(2).all(|w| w[0] < w[1]);
    let notes = labels
        .distractors
        .iter()
        .filter(|d| d["kind"] == "note")
        .count();
    let unmatched: Vec<Quad> = found
        .iter()
        .enumerate()
        .filter(|(i, _)| !matched.contains(i))
        .map(|(_, q)| *q)
        .collect();
    // Paper notes may pass (the classifier rejects them); mislocated cards of a
    // hard scene are counted as missed, not twice.
    let allowed = notes + res.missed.len();
    if unmatched.len() > allowed {
        res.spurious = unmatched;
    }
    res
}

#[test]
fn every_labelled_card_is_located_in_order_within_a_few_pixels() {
    let cfg = LocaliserConfig::default();
    let mut failures = Vec::new();
    let mut errors = Vec::new();
    for path in scenes() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let r = check_scene(&path, &cfg);
        errors.extend(&r.errors);
        let missed_ok = if name == HARD_SCENE {
            r.missed.len() <= HARD_SCENE_MAX_MISSED
        } else {
            r.missed.is_empty()
        };
        if !missed_ok {
            failures.push(format!("{name}: not located: {}", r.missed.join("; ")));
        }
        if r.out_of_order {
            failures.push(format!("{name}: cards out of left-to-right order"));
        }
        if !r.spurious.is_empty() {
            failures.push(format!("{name}: spurious outlines {:?}", r.spurious));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    assert!(errors.len() >= 120, "only {} cards located", errors.len());
    assert!(median <= 2.5, "median corner error {median:.2} px");
}

#[test]
fn distractor_only_scenes_have_no_card_outlines_but_notes() {
    let cfg = LocaliserConfig::default();
    let mut seen = 0;
    for path in scenes() {
        let labels = SceneLabels::for_image(&path).unwrap();
        if !labels.cards.is_empty() {
            continue;
        }
        seen += 1;
        let notes = labels
            .distractors
            .iter()
            .filter(|d| d["kind"] == "note")
            .count();
        let found = locate_cards(&load_frame(&path).unwrap(), &cfg);
        assert!(
            found.len() <= notes,
            "{}: {} outlines among distractors ({} notes): {found:?}",
            path.display(),
            found.len(),
            notes
        );
    }
    assert!(seen >= 3, "expected the distractor-only scenes");
}

#[test]
fn corner_order_is_the_contract_order() {
    // Clockwise, portrait (short top side), first corner nearest the image's
    // top-left of the two portrait orderings: on every found outline.
    let cfg = LocaliserConfig::default();
    for path in scenes().into_iter().take(12) {
        for q in locate_cards(&load_frame(&path).unwrap(), &cfg) {
            let c = q.0;
            let area2: f64 = (0..4)
                .map(|i| c[i].x * c[(i + 1) % 4].y - c[(i + 1) % 4].x * c[i].y)
                .sum();
            assert!(area2 > 0.0, "{}: not clockwise: {q:?}", path.display());
            let top = c[0].dist(c[1]) + c[2].dist(c[3]);
            let side = c[1].dist(c[2]) + c[3].dist(c[0]);
            assert!(top < side, "{}: not portrait: {q:?}", path.display());
            assert!(c[0].x + c[0].y <= c[2].x + c[2].y);
        }
    }
}

/// Every card of a committed light-cloth frame is located, in order, with nothing
/// spurious; and without the masks named by `masks` (the config `without`) some
/// card is not, so the frame keeps testing them.
fn assert_found_only_with(file: &str, without: LocaliserConfig, masks: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let r = check_scene(&path, &LocaliserConfig::default());
    assert!(r.missed.is_empty(), "not located: {}", r.missed.join("; "));
    assert!(!r.out_of_order, "cards out of left-to-right order");
    assert!(r.spurious.is_empty(), "spurious outlines {:?}", r.spurious);
    assert!(
        !check_scene(&path, &without).missed.is_empty(),
        "{file} no longer needs the {masks} masks: pick a harder one"
    );
}

#[test]
fn cards_on_a_tinted_white_cloth_are_found_by_their_neutral_paper() {
    // A row of three on a pink-tinted white cloth with bright speckles: in the
    // whiteness masks the queen's outline takes in speckles of the cloth around
    // her (a loose outline, read as another card); the paper's neutral colour
    // sets her apart.
    let without = LocaliserConfig {
        neutral_spreads: Vec::new(),
        ..LocaliserConfig::default()
    };
    assert_found_only_with(
        "tests/data/white/seq3-tinted-white-cloth.jpg",
        without,
        "neutral-paper",
    );
}

#[test]
fn cards_on_a_pale_cloth_under_uneven_light_are_found_by_their_closed_outline() {
    // Fourteen small cards and a phone on a pale blue-white cloth, unevenly lit:
    // the six of hearts in the bright corner is as white as the cloth around it,
    // and the king of diamonds' art merges with its shadow in the other masks.
    // Their outlines, closed all round, set them apart.
    let without = LocaliserConfig {
        outline_steps: Vec::new(),
        ..LocaliserConfig::default()
    };
    assert_found_only_with(
        "tests/data/white/spread14-pale-cloth.jpg",
        without,
        "enclosed-outline",
    );
}

#[test]
fn cream_cards_on_a_pale_green_cloth_are_found_by_their_colour_outline() {
    // Twelve cards of a cream deck with red and black indices at its very edge on
    // a pale green cloth: paper and cloth are equally white, so the whiteness
    // masks and their outlines find the cards only in part (a side drawn through
    // an index), and the cloth-distance masks split them where the cloth's colour
    // estimate changes. Their edges are a step in hue all round.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/white/spread12-cream-pale-green.jpg");
    let with = check_scene(&path, &LocaliserConfig::default());
    assert!(
        with.missed.len() <= 1,
        "not located: {}",
        with.missed.join("; ")
    );
    assert!(!with.out_of_order, "cards out of left-to-right order");
    let without = LocaliserConfig {
        outline_colour_steps: Vec::new(),
        ..LocaliserConfig::default()
    };
    let missed = check_scene(&path, &without).missed.len();
    // Without them 7 are missed (at least 9 before the enclosed outlines' sides were
    // no longer searched for outside them).
    assert!(
        missed >= 6,
        "only {missed} of 12 cards missed without the colour-outline masks: pick a harder frame"
    );
}

#[test]
fn a_tight_row_given_whole_only_beside_its_groups_of_strips_is_a_short_row() {
    // Sixteen cards spread tightly on a dark cloth: the masks cut the row into
    // groups of strips with a whole card's proportions, and the outline of the
    // whole row, a card's proportions too (short/long 0.35), swallows them. Taken
    // for cards merged through their gaps, it used to be dropped; it is returned
    // as a short row, for the recognizer to tell.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/spreads/val-0017-gnomangelo-bitmap-dark-16.jpg");
    let labels = SceneLabels::for_image(&path).unwrap();
    let frame = load_frame(&path).unwrap();
    let located = locate(&frame, &LocaliserConfig::default());
    let ends: Vec<&Quad> = vec![&labels.cards[0].corners, &labels.cards[15].corners];
    // Each corner of the row's outline is a corner of its first or last card.
    let near = |q: &Quad, card: &Quad| {
        q.0.iter()
            .filter(|p| card.0.iter().any(|c| c.dist(**p) <= 8.0))
            .count()
    };
    assert!(
        located
            .short_rows
            .iter()
            .any(|q| near(q, ends[0]) == 2 && near(q, ends[1]) == 2),
        "short rows {:?}, row ends {ends:?}",
        located.short_rows
    );
    // Without the short rows, no outline of the whole row is found.
    assert!(
        !located
            .rows
            .iter()
            .chain(&located.cards)
            .any(|q| near(q, ends[0]) == 2 && near(q, ends[1]) == 2),
        "{:?}",
        located.rows
    );
}

#[test]
fn a_court_card_on_a_dark_cloth_is_fitted_on_its_colour_axis() {
    // Four cards of the paris deck on a dark cloth: the jack of spades' art, red
    // and blue, runs to his edges, where whiteness scores it as low as the cloth,
    // so his sides cannot be fitted on whiteness; on the colour axis from the
    // cloth to the paper they can.
    let without = LocaliserConfig {
        refit_on_colour: false,
        ..LocaliserConfig::default()
    };
    assert_found_only_with(
        "tests/data/courts/dark-seq4-paris.jpg",
        without,
        "colour-axis",
    );
}

#[test]
fn court_cards_on_a_dotted_cloth_are_found_opened_or_around_their_art() {
    // Nineteen cards of the paris deck on a green cloth with brown dots, four of
    // them court cards whose art runs to their edges. In the cloth-distance masks
    // the dots touching a card make its sides ragged; the mask opened (the dots
    // taken away) gives the jack of spades whole. The jack of clubs' art is cut
    // into two halves of a card's shape, which win over the card's own outline:
    // the card comes back as an enclosing outline, for the recognizer to read when
    // the halves read as no card.
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/courts/dotted-spread19-paris.jpg");
    let labels = SceneLabels::for_image(&path).unwrap();
    let frame = load_frame(&path).unwrap();
    let near = |found: &[Quad], tolerance: f64| {
        labels
            .cards
            .iter()
            .filter(|l| {
                found
                    .iter()
                    .any(|q| q.corner_error(&l.corners) <= tolerance)
            })
            .count()
    };
    let located = locate(&frame, &LocaliserConfig::default());
    let unopened = locate(
        &frame,
        &LocaliserConfig {
            opening_radius: 0,
            ..LocaliserConfig::default()
        },
    );
    let (with, without) = (near(&located.cards, 8.0), near(&unopened.cards, 8.0));
    assert!(
        with > without,
        "cards located: opened {with}, not opened {without}"
    );
    // The jack of clubs: no card outline, but an enclosing one.
    let jack = &labels.cards[4];
    assert_eq!(jack.card.to_string(), "JC");
    let nearest = |found: &[Quad]| {
        found
            .iter()
            .map(|q| q.corner_error(&jack.corners))
            .fold(f64::INFINITY, f64::min)
    };
    assert!(nearest(&located.cards) > 8.0, "{:?}", located.cards);
    assert!(
        nearest(&located.enclosing) <= 6.0,
        "{:?}",
        located.enclosing
    );
}

#[test]
fn a_court_card_close_beside_another_is_fitted_on_its_own_edge() {
    // Three cards of the paris deck on a cream cloth, the king of diamonds and the
    // jack of clubs a few pixels apart. The jack's art runs to his sides, so his
    // outline comes only from a flood that stops at edges, and that outline holds
    // his soft shadow: his sides are searched for further in than the outline.
    // They must not be searched for further out: there the king's border, a dark
    // line with pale cloth beyond, is a step of the same sign as the jack's edge,
    // and his left side was fitted on it, 20 px off.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/courts/cream-seq3-paris.jpg");
    let labels = SceneLabels::for_image(&path).unwrap();
    let frame = load_frame(&path).unwrap();
    let jack = &labels.cards[2];
    assert_eq!(jack.card.to_string(), "JC");
    let located = locate(&frame, &LocaliserConfig::default());
    let nearest = located
        .cards
        .iter()
        .chain(&located.enclosing)
        .map(|q| q.corner_error(&jack.corners))
        .fold(f64::INFINITY, f64::min);
    assert!(
        nearest <= 6.0,
        "nearest outline {nearest:.1} px off: cards {:?}, enclosing {:?}",
        located.cards,
        located.enclosing
    );
    // The outline around all three (a short row) overlaps the jack: the
    // recognizer must read his outline all the same (`tests/vision_cli.rs`).
    assert!(
        located
            .short_rows
            .iter()
            .any(|r| r.contains(jack.corners.centre())),
        "{:?}",
        located.short_rows
    );
}

#[test]
fn a_speckled_light_cloth_makes_few_fans_and_a_fanned_hand_is_one() {
    // A pale cloth's speckle blobs make hulls with short arcs of corners, each a
    // model read per corner for the recognizer. Arcs whose cards would be smaller
    // than any card, or whose radius no hand fans about, are not fans: this frame
    // of three cards laid apart gave 14 "fans" before, and gives 8.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cloth = load_frame(&root.join("tests/data/white/seq3-tinted-white-cloth.jpg")).unwrap();
    let located = locate(&cloth, &LocaliserConfig::default());
    assert!(
        located.fans.len() <= 8,
        "{} fans on a frame of three cards laid apart",
        located.fans.len()
    );
    // A real fan still is one, with a card per corner of its arc.
    let hand = load_frame(&root.join("tests/data/fans/0024-neoclassical-white-16.jpg")).unwrap();
    let located = locate(&hand, &LocaliserConfig::default());
    assert!(
        located.fans.iter().any(|f| f.len() >= 16),
        "fans of {:?} cards",
        located.fans.iter().map(Vec::len).collect::<Vec<_>>()
    );
}
