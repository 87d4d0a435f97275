//! `eleusis recognize IMAGE…`: reads the cards in camera frames. One line per image
//! (JSON with `--json`), cards left to right; a frame that cannot be loaded gets an
//! error line and the others go on. `--check` compares the reads with each image's
//! labelled sidecar (`NAME.json`) and prints accuracy: how a table checks its camera
//! and how end-to-end accuracy is measured on a rendered evaluation set.
//! `--save-cards DIR` also writes every card found as the upright card image the
//! model read, so that a table can see what its camera gives the model.
//!
//! Exit status: 0 when every frame was read (and, with `--check`, every labelled
//! card was read right or `--min-accuracy` was met); 1 when some frame could not be
//! loaded, had no usable sidecar, or the check failed (no labelled card at all
//! fails it: nothing was measured); 2 when the model cannot be loaded or nothing
//! was given to read.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use image::RgbImage;
use serde_json::{json, Value};

use crate::store::evidence::counted;
use crate::vision::rectify::rectify;
use crate::vision::scene::{
    corner_tolerance, suggested_confirm_threshold, CheckSummary, LabelledCards, Labels, SceneScore,
};
use crate::vision::{
    exposure_warnings, load_frame, locate_cards, reading_frame, small_cards_warning,
    too_dark_to_see, CameraTurn, CardRead, Classifier, FrameRead, FrameWarning, LocaliserConfig,
    PlayZoneWatcher, Point, Quad, Recognizer, SameCard, Seen, WatchConfig, Zone, TOO_DARK_TO_WATCH,
    UNCOVERED,
};

/// Arguments of `eleusis recognize`.
#[derive(Debug, Args)]
pub struct RecognizeArgs {
    /// Frames to read (PNG or JPEG); a directory stands for its `.png`, `.jpg` and
    /// `.jpeg` files in name order. With `--check`, `.json` files named here are
    /// skipped (they are sidecars).
    #[arg(required = true)]
    pub images: Vec<PathBuf>,
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
    /// The model: a directory holding `recognizer.onnx` and `recognizer.json`, or
    /// the `.onnx` file itself. Default: `$ELEUSIS_MODEL`, then `./models`, then the
    /// `models/` directory of the checkout the binary was built from.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Only find the cards' outlines (no model needed): camera placement checks.
    #[arg(long, conflicts_with = "check")]
    pub locate_only: bool,
    /// Compare the reads with each image's sidecar `NAME.json` (the labelled-scene
    /// format of `tests/data/scenes/`) and print per-image results and totals.
    #[arg(long)]
    pub check: bool,
    /// With `--check`: the least fraction of labelled cards that must be read right
    /// for exit status 0, from 0 to 1 (0.95: 95 %; default 1.0: every card).
    #[arg(long, default_value_t = 1.0, requires = "check", value_parser = parse_min_accuracy, value_name = "FRACTION")]
    pub min_accuracy: f64,
    /// Also save every card found as the model saw it: the 160 × 224 upright card cut
    /// from its outline (the model reads its top-left 40 × 72 corner, and the same
    /// corner of the card turned), as `DIR/<image>-<n>-<card>.png`, with `-confirm`
    /// added when the read asks God (`DIR/<image>-<n>.png` with `--locate-only`).
    /// Files of the same name are replaced. Not with `--watch`.
    #[arg(long, value_name = "DIR", conflicts_with = "watch")]
    pub save_cards: Option<PathBuf>,
    /// Feed the frames, in order, to the play-zone watcher of `eleusis serve`, as
    /// frames a webcam took one after the other (e.g. `ffmpeg -i /dev/video0 -r 1.5
    /// frames/%04d.jpg`): one line per frame says what the zone holds, when a play
    /// settles and its cards, and when the zone is cleared.
    #[arg(long, conflicts_with_all = ["check", "locate_only"])]
    pub watch: bool,
    /// With `--watch`: the play zone, as fractions of the frame `x0,y0,x1,y1`
    /// (default the whole frame).
    #[arg(long, requires = "watch", value_parser = Zone::parse, value_name = "X0,Y0,X1,Y1")]
    pub zone: Option<Zone>,
    /// Turn every frame clockwise by this many degrees (0, 90, 180 or 270) before
    /// reading it, so that its top is the far side of the table as the players see
    /// the line: cards are ordered left to right across the turned frame, and
    /// corners, width and height are the turned frame's. A camera clamped on the
    /// other side of the table needs 180. A negative turn is counter-clockwise
    /// (-90 is 270).
    #[arg(long, value_parser = CameraTurn::parse_degrees, default_value = "0", value_name = "DEGREES", allow_negative_numbers = true)]
    pub turn: u16,
    /// Mirror every frame left to right (before `--turn`): for a camera set to
    /// mirror its picture, which mirrors the cards' indices too.
    #[arg(long)]
    pub mirror: bool,
    /// Ask God about every read less sure than this, as well as those the model's
    /// own threshold asks about: stricter only (a number between the model's
    /// threshold and 1). A `--check` of your own deck suggests one when it finds
    /// misreads that did not ask.
    #[arg(long, conflicts_with = "locate_only", value_parser = parse_confidence, value_name = "CONFIDENCE")]
    pub confirm_threshold: Option<f32>,
    /// Ask God about every card read as a jack, queen or king, however sure: for a
    /// deck whose court cards are not indexed J, Q, K (French V, D, R; German B,
    /// D, K), whose court letters the model never learnt.
    #[arg(long, conflicts_with = "locate_only")]
    pub confirm_courts: bool,
}

/// Parses `--confirm-threshold` (of `recognize` and `serve`): a confidence between
/// 0 and 1, refused before anything is loaded otherwise. Whether it is at least the
/// model's own is checked once the model is loaded.
pub(crate) fn parse_confidence(text: &str) -> Result<f32, String> {
    let value: f32 = text.trim().parse().map_err(|_| {
        format!("'{text}' is not a number: give a confidence between 0 and 1, such as 0.999998")
    })?;
    if value > 0.0 && value < 1.0 {
        Ok(value)
    } else if text.trim().parse::<f64>().is_ok_and(|v| v > 0.0 && v < 1.0) {
        // Inside (0, 1) as written, but 1 or 0 once held as a confidence is.
        Err(format!(
            "'{text}' is {value} as a confidence (7 significant digits): give one between \
             0 and 1 such as 0.999998"
        ))
    } else {
        Err(crate::vision::TableThresholdError::NotAConfidence(value).to_string())
    }
}

/// Parses `--min-accuracy`: a fraction from 0 to 1. A percentage (`95`), a number
/// above 1, `NaN` or `inf` would make every check fail (or none) with no sign of
/// why, so they are refused when the command is given, saying what is meant.
fn parse_min_accuracy(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| {
        format!("'{text}' is not a number: give a fraction from 0 to 1 (0.95 means 95 % of the labelled cards read right)")
    })?;
    if !(0.0..=1.0).contains(&value) {
        // 95 or 99.5 is surely a percentage; 1.5 may be anything.
        let hint = if (10.0..=100.0).contains(&value) {
            format!(" ({value} % is {})", round(value / 100.0, 6))
        } else {
            String::new()
        };
        return Err(format!(
            "'{text}' is not a fraction from 0 to 1: 0.95 means 95 % of the labelled cards read right{hint}"
        ));
    }
    Ok(value)
}

/// Writes the cards of each frame as upright card images (`--save-cards`).
struct CardSaver {
    dir: PathBuf,
    /// The prefixes given so far, so that two frames of one name (from two
    /// folders) do not overwrite each other's cards.
    used: HashSet<String>,
}

impl CardSaver {
    fn new(dir: &Path) -> Result<CardSaver> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the folder {} for --save-cards", dir.display()))?;
        Ok(CardSaver {
            dir: dir.to_path_buf(),
            used: HashSet::new(),
        })
    }

    /// The file-name prefix of a frame's cards: the image's name without its
    /// extension, `~2`, `~3` … added when that prefix was given before (to a
    /// frame of the same name, or to one named `a~2` itself).
    fn prefix(&mut self, image: &Path) -> String {
        let name = image
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "frame".to_string());
        let prefix = std::iter::once(name.clone())
            .chain((2..).map(|n| format!("{name}~{n}")))
            .find(|p| !self.used.contains(p))
            .unwrap_or(name);
        self.used.insert(prefix.clone());
        prefix
    }

    /// Saves one image per outline of the frame read from `image`, left to right,
    /// each named by its suffix (`""` for none).
    fn save(&mut self, image: &Path, frame: &RgbImage, cards: &[(Quad, String)]) -> Result<()> {
        let prefix = self.prefix(image);
        for (i, (quad, suffix)) in cards.iter().enumerate() {
            // Outlines come from the localiser, never degenerate; skip one that is.
            let Some(card) = rectify(frame, quad) else {
                continue;
            };
            let path = self.dir.join(format!("{prefix}-{:02}{suffix}.png", i + 1));
            card.save(&path)
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }
}

/// The file-name suffix of a read card: `-QH`, or `-QH-confirm` when it asks God.
fn card_suffix(card: &crate::vision::CardRead) -> String {
    if card.needs_confirmation {
        format!("-{}-confirm", card.card)
    } else {
        format!("-{}", card.card)
    }
}

/// Runs the subcommand.
pub fn run(args: &RecognizeArgs) -> ExitCode {
    let mut out = super::stdout();
    match run_to(args, &mut out, &mut io::stderr()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        // The reader of the output went away (`eleusis recognize … | head -1`):
        // nobody is left to tell, so stop quietly, with the status of a program
        // stopped by SIGPIPE (128 + 13): the frames were not all read, and a
        // `--check` cut short has not passed.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<io::Error>()
                    .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::from(141)
        }
        Err(e) => {
            let _ = out.flush();
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The images named on the command line, directories expanded: each image, or a
/// folder that could not be listed with the reason (said in its place, and the
/// rest go on). Inside a folder only regular files (or links to them) named
/// `.png`, `.jpg` or `.jpeg` are taken: a pipe or a device there would block or
/// never end. A file named on the command line that is not a regular file is
/// refused in its place, for the same reason, unless it is standard input or a
/// descriptor handed over (`/dev/stdin`, `/dev/fd/N`). With `--check`, `.json`
/// files named on the command line are left out: they are the sidecars a shell
/// glob such as `DIR/01*` also matches.
fn expand(paths: &[PathBuf], check: bool) -> Vec<(PathBuf, Option<String>)> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let listing = match std::fs::read_dir(p) {
                Ok(listing) => listing,
                Err(e) => {
                    files.push((p.clone(), Some(format!("cannot list the folder: {e}"))));
                    continue;
                }
            };
            let mut inside: Vec<PathBuf> = listing
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                        matches!(e.to_ascii_lowercase().as_str(), "png" | "jpg" | "jpeg")
                    })
                })
                // A broken link stays, to be reported; a pipe, a device or a
                // folder named like an image does not.
                .filter(|f| std::fs::metadata(f).map_or(true, |m| m.is_file()))
                .collect();
            inside.sort();
            files.extend(inside.into_iter().map(|f| (f, None)));
        } else if check
            && p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            continue;
        } else if let Some(kind) = super::not_a_regular_file(p) {
            // Named on the command line but not an image file: a named pipe
            // would block the read for ever. Said in its place; the rest go on.
            files.push((
                p.clone(),
                Some(format!(
                    "{kind}, not a regular file: give a PNG or JPEG file"
                )),
            ));
        } else {
            files.push((p.clone(), None));
        }
    }
    files
}

/// A card as `--watch` keeps it: its read (`None` for an outline no index could
/// be read on) and the file it was read in.
#[derive(Debug, Clone)]
struct WatchedCard {
    read: Option<CardRead>,
    file: String,
}

/// The same card: the same name read, or two outlines no index could be read on
/// (paired by place; a play of those alone is never the last one uncovered).
impl SameCard for WatchedCard {
    fn same_card(&self, other: &Self) -> bool {
        self.read.as_ref().map(|r| r.card) == other.read.as_ref().map(|r| r.card)
    }

    fn is_read(&self) -> bool {
        self.read.is_some()
    }
}

/// Feeds one frame's cards in the zone to the watcher: the frame's line (JSON or
/// text) and whether a play settled with it.
fn watch_line(
    watcher: &mut PlayZoneWatcher<WatchedCard>,
    zone: Zone,
    file: &str,
    read: &FrameRead,
    as_json: bool,
) -> (String, bool) {
    let (inside, outside): (Vec<&CardRead>, Vec<&CardRead>) = read
        .cards
        .iter()
        .partition(|c| zone.contains(c.corners.centre(), read.width, read.height));
    // An outline no index could be read on is something in the zone too: part of
    // the play, and the zone is not clear while it lies there (`eleusis serve`).
    let unreadable: Vec<&Quad> = read
        .unreadable
        .iter()
        .filter(|q| zone.contains(q.centre(), read.width, read.height))
        .collect();
    let seen = inside
        .iter()
        .map(|c| (c.corners, Some((*c).clone())))
        .chain(unreadable.iter().map(|q| (**q, None)))
        .map(|(quad, card)| Seen {
            quad,
            read: WatchedCard {
                read: card,
                file: file.to_string(),
            },
        })
        .collect();
    let watch = watcher.observe_frame(seen, too_dark_to_see(&read.warnings));
    let names = |cards: &[&CardRead]| -> Vec<String> {
        cards
            .iter()
            .map(|c| format!("{}{}", c.card, if c.needs_confirmation { "?" } else { "" }))
            .collect()
    };
    let laid: Option<Vec<String>> = watch.laid.as_ref().map(|l| {
        let cards: Vec<&CardRead> = l.iter().filter_map(|s| s.read.read.as_ref()).collect();
        names(&cards)
    });
    let laid_unreadable = watch
        .laid
        .as_ref()
        .map(|l| l.iter().filter(|s| s.read.read.is_none()).count());
    // The play is read from the frame of the last few that found the most of it.
    let laid_from = watch
        .laid
        .as_ref()
        .and_then(|l| l.first())
        .map(|s| s.read.file.clone());
    let line = if as_json {
        let mut line = json!({
            "file": file,
            "phase": watch.phase,
            "in_zone": names(&inside),
            "outside": outside.len(),
            "laid": laid,
            "laid_from": laid_from,
            "cleared": watch.cleared,
        });
        if !unreadable.is_empty() {
            line["unreadable"] = json!(unreadable.len());
        }
        if let Some(n) = laid_unreadable.filter(|n| *n > 0) {
            line["laid_unreadable"] = json!(n);
        }
        if watch.unseen {
            line["unseen"] = json!(true);
        }
        if watch.uncovered {
            line["uncovered"] = json!(true);
        }
        with_warnings(&mut line, &read.warnings);
        line.to_string()
    } else {
        let mut text = format!(
            "{file}: {} ({} in the zone",
            watch.phase.name(),
            inside.len()
        );
        if !unreadable.is_empty() {
            text += &format!(", {} unreadable", unreadable.len());
        }
        if !outside.is_empty() {
            text += &format!(", {} outside", outside.len());
        }
        text += ")";
        if let Some(cards) = &laid {
            let mut parts = vec![cards.join(" ")];
            if let Some(n) = laid_unreadable.filter(|n| *n > 0) {
                parts.push(format!("{n} card-shaped outline(s) not read"));
            }
            parts.retain(|p| !p.is_empty());
            text += &format!("; play laid: {}", parts.join(" and "));
        }
        if let Some(from) = laid_from.as_deref().filter(|f| *f != file) {
            text += &format!(" (read in {from})");
        }
        if watch.cleared {
            text += "; zone cleared";
        }
        if watch.uncovered {
            text += &format!("; {UNCOVERED}");
        }
        if watch.unseen {
            text += &format!("; {TOO_DARK_TO_WATCH}");
        }
        text + &warnings_text(&read.warnings)
    };
    (line, laid.is_some())
}

fn round(v: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (v * f).round() / f
}

/// A note when a sidecar's labelled corners reach well outside the frame (more
/// than a tenth of its size beyond an edge): labels written for another
/// resolution or another photo, which would otherwise only show as cards not
/// located and reads counted spurious.
fn labels_outside_frame(labels: &Labels, width: u32, height: u32) -> Option<String> {
    let LabelledCards::Outlined(scene) = &labels.cards else {
        return None;
    };
    let (w, h) = (f64::from(width), f64::from(height));
    let outside = |p: &Point| p.x < -0.1 * w || p.x > 1.1 * w || p.y < -0.1 * h || p.y > 1.1 * h;
    let stray = scene
        .cards
        .iter()
        .filter(|c| c.corners.0.iter().any(outside))
        .count();
    (stray > 0).then(|| {
        format!(
            "corners of {} lie outside this {width} × {height} frame: labels written for \
             another resolution or another photo?",
            counted(stray, "labelled card")
        )
    })
}

/// The JSON line of a read frame; `warnings` only when there are some.
fn frame_json(file: &str, read: &FrameRead) -> Value {
    let mut line = json!({
        "file": file,
        "width": read.width,
        "height": read.height,
        "cards": read.cards.iter().map(|c| {
            let mut card = json!({
                "card": c.card,
                "confidence": round(f64::from(c.confidence), 4),
                "corners": c.corners,
                "needs_confirmation": c.needs_confirmation,
            });
            if c.overlapped {
                card["overlapped"] = json!(true);
            }
            if let Some(suit) = c.pips_say {
                card["pips_say"] = json!(suit);
            }
            if let Some(n) = c.pips_counted {
                card["pips_counted"] = json!(n);
            }
            if let Some(index) = c.index_read {
                card["index_read"] = json!(index.to_string());
            }
            card
        }).collect::<Vec<_>>(),
    });
    if !read.unreadable.is_empty() {
        line["unreadable"] = json!(read.unreadable);
    }
    with_warnings(&mut line, &read.warnings);
    line
}

fn with_warnings(line: &mut Value, warnings: &[FrameWarning]) {
    if !warnings.is_empty() {
        line["warnings"] = json!(warnings);
    }
}

/// The text lines of a frame's warnings, one per warning.
fn warnings_text(warnings: &[FrameWarning]) -> String {
    warnings
        .iter()
        .map(|w| format!("\n  warning: {w}"))
        .collect()
}

/// The text line of a frame's unreadable outlines, when it has some.
fn unreadable_text(read: &FrameRead) -> String {
    match read.unreadable.len() {
        0 => String::new(),
        n => format!(
            "\n  unreadable: {n} card-shaped outline(s), no index read (a card in glare or shadow?)"
        ),
    }
}

fn frame_text(file: &str, read: &FrameRead) -> String {
    if read.cards.is_empty() {
        return format!("{file}: no cards");
    }
    let cards: Vec<String> = read
        .cards
        .iter()
        .map(|c| {
            format!(
                "{} ({:.2}%{}{}{})",
                c.card,
                100.0 * c.confidence,
                if c.overlapped { ", overlapped" } else { "" },
                if c.needs_confirmation {
                    ", confirm"
                } else {
                    ""
                },
                c.index_read
                    .map(|i| format!(", index read {i}"))
                    .unwrap_or_default()
            )
        })
        .collect();
    format!("{file}: {}", cards.join(" "))
}

fn locate_json(file: &str, frame: &RgbImage, quads: &[Quad], warnings: &[FrameWarning]) -> Value {
    let mut line = json!({
        "file": file,
        "width": frame.width(),
        "height": frame.height(),
        "cards": quads.iter().map(|q| json!({"corners": q})).collect::<Vec<_>>(),
    });
    with_warnings(&mut line, warnings);
    line
}

/// The warnings of a frame whose outlines were located without the model: its
/// exposure, and cards too small to read (a camera placement check).
fn outline_warnings(frame: &RgbImage, quads: &[Quad]) -> Vec<FrameWarning> {
    let mut warnings = exposure_warnings(frame);
    warnings.extend(small_cards_warning(quads));
    warnings
}

fn check_text(file: &str, s: &SceneScore) -> String {
    let list = |v: &[crate::cards::Card]| {
        v.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let ok = s.sequence_ok && s.spurious == 0 && s.correct == s.labelled;
    let corner = if s.by_order {
        "by order".to_string()
    } else if s.located == 0 && s.labelled > 0 {
        "no card located, no corner to measure".to_string()
    } else {
        format!("worst corner {:.1} px", s.max_corner_error)
    };
    let outside = if s.outside_zone > 0 {
        format!(", {} outside the zone", s.outside_zone)
    } else {
        String::new()
    };
    format!(
        "{} {file}: read [{}], expected [{}]; located {}/{}, right {}, misread {}, spurious {}, {corner}{outside}",
        if ok { "ok  " } else { "FAIL" },
        list(&s.read),
        list(&s.expected),
        s.located,
        s.labelled,
        s.correct,
        s.misread,
        s.spurious,
    )
}

/// The threshold to suggest after a check: when a misread asked God for nothing,
/// the one that would have had God confirm the surest misread, if it is stricter
/// than the one in effect (`None` when every misread asked, or none could be
/// caught).
fn suggestion(sum: &CheckSummary, in_effect: Option<f32>) -> Option<f64> {
    if sum.misread_confident == 0 {
        return None;
    }
    let suggested = suggested_confirm_threshold(sum.surest_misread?)?;
    // Compared as the threshold is held (f32): the suggestion itself, once set,
    // must not be suggested again.
    ((suggested as f32) > in_effect.unwrap_or(0.0)).then_some(suggested)
}

fn summary_json(sum: &CheckSummary, in_effect: Option<f32>, courts_confirmed: bool) -> Value {
    let mut summary = json!({"summary": {
        "scenes": sum.scenes,
        "scenes_failed": sum.scenes_failed,
        "scenes_unlabelled": sum.scenes_unlabelled,
        "labelled": sum.labelled,
        "located": sum.located,
        "correct": sum.correct,
        "correct_needing_confirmation": sum.correct_unsure,
        "misread": sum.misread,
        "misread_confident": sum.misread_confident,
        "spurious": sum.spurious,
        "sequences_exact": sum.sequences_ok,
        "accuracy": sum.accuracy().map(|a| round(a, 4)),
        "localisation": sum.localisation().map(|l| round(l, 4)),
        "max_corner_error": corner_error(sum).map(|e| round(e, 2)),
        "outside_zone": sum.outside_zone,
        "confirm_threshold": in_effect.map(|t| round(f64::from(t), 6)),
        "surest_misread": sum.surest_misread.map(|c| round(f64::from(c), 6)),
        "suggested_confirm_threshold": suggestion(sum, in_effect),
    }});
    // Added only when there are some, as the text line does.
    if sum.misread_confident_courts > 0 {
        summary["summary"]["misread_confident_courts"] = json!(sum.misread_confident_courts);
    }
    if courts_confirmed {
        summary["summary"]["confirm_courts"] = json!(true);
    }
    summary
}

/// What the totals line adds when court cards were misread without asking and
/// `--confirm-courts` was not given: the option that has God confirm them.
fn courts_hint(sum: &CheckSummary, courts_confirmed: bool) -> Option<String> {
    (sum.misread_confident_courts > 0 && !courts_confirmed).then(|| {
        format!(
            "; {} of the misreads without asking are court cards: run with --confirm-courts to have God confirm every jack, queen and king (a deck whose court cards are not lettered J, Q, K needs it)",
            sum.misread_confident_courts
        )
    })
}

/// A fraction as a percentage for the summary line, or what stands in for it when
/// no card was labelled (a 0/0 is not 100 %).
fn percent(fraction: Option<f64>) -> String {
    match fraction {
        Some(f) => format!("{:.1}%", 100.0 * f),
        None => "nothing labelled".to_string(),
    }
}

/// The worst corner error of the located cards, `None` when no card was located
/// by its corners (every frame scored by order, or none located): 0.0 would claim
/// outlines measured and perfect.
fn corner_error(sum: &CheckSummary) -> Option<f64> {
    (sum.corners_measured > 0).then_some(sum.max_corner_error)
}

fn summary_text(sum: &CheckSummary, in_effect: Option<f32>) -> String {
    let mut text = format!(
        "cards read right: {}/{} ({}), located {}/{} ({}), misread {} ({} without asking for confirmation), right but asking {}, spurious {}, exact sequences {}/{}, unreadable files {}, worst corner error {}",
        sum.correct,
        sum.labelled,
        percent(sum.accuracy()),
        sum.located,
        sum.labelled,
        percent(sum.localisation()),
        sum.misread,
        sum.misread_confident,
        sum.correct_unsure,
        sum.spurious,
        sum.sequences_ok,
        sum.scenes,
        sum.scenes_failed,
        corner_error(sum).map_or("not measured (no card located by its corners)".to_string(), |e| format!("{e:.1} px"))
    );
    // Added at the end, and only when there are some, so that the line stays as
    // tools already parse it.
    if sum.scenes_unlabelled > 0 {
        text += &format!(", frames without usable labels {}", sum.scenes_unlabelled);
    }
    if sum.outside_zone > 0 {
        text += &format!(", reads outside the labelled zones {}", sum.outside_zone);
    }
    if let Some(surest) = sum.surest_misread {
        text += &format!(", surest misread {:.6}", f64::from(surest));
        if let Some(suggested) = suggestion(sum, in_effect) {
            text += &format!(
                "; to have God confirm reads as sure as that, run with --confirm-threshold {suggested:.6}"
            );
        } else if sum.misread_confident > 0 && suggested_confirm_threshold(surest).is_none() {
            text += "; no threshold can have God confirm a read that sure";
        }
    }
    text
}

/// Why a check with no labelled card failed, for standard error: no frame had
/// usable labels, or cards were found in frames labelled with none.
fn nothing_checked(sum: &CheckSummary) -> String {
    if sum.scenes == 0 {
        format!(
            "check failed: no labelled frames to check ({} without usable labels, {}): each image needs a sidecar of its name with .json naming its cards, e.g. {{\"cards\":[\"QH\",\"10S\"]}}",
            counted(sum.scenes_unlabelled, "frame"),
            counted(sum.scenes_failed, "unreadable file"),
        )
    } else {
        format!(
            "check failed: {} labelled with no cards, yet {} found in them",
            counted(sum.scenes, "frame"),
            counted(sum.spurious, "card"),
        )
    }
}

/// Runs the subcommand writing to `out`, and to `err` why a check fell short (not
/// to `out`, whose last line is the totals and every line JSON with `--json`);
/// `Ok(false)` when a frame failed or the check fell short, `Err` when nothing
/// could be done (no model, no files).
pub fn run_to(args: &RecognizeArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<bool> {
    let files = expand(&args.images, args.check);
    if files.is_empty() {
        anyhow::bail!(
            "no images to read (directories hold no .png, .jpg or .jpeg files{})",
            if args.check {
                "; .json files named under --check are sidecars, not frames"
            } else {
                ""
            }
        );
    }
    let recognizer = if args.locate_only {
        None
    } else {
        let started = Instant::now();
        let classifier = match &args.model {
            Some(p) => Classifier::load(p),
            None => Classifier::load_default(),
        }
        .context("loading the recognizer model")?;
        // A misspelt setting falls back to another value without a word: say so.
        for key in &classifier.settings().unknown {
            writeln!(
                err,
                "warning: {}: unknown model setting {key:?} ignored (misspelt, or from a newer training pipeline?)",
                classifier.source
            )?;
        }
        if !args.json {
            writeln!(
                out,
                "model {} loaded in {} ms",
                classifier.source,
                started.elapsed().as_millis()
            )?;
        }
        let mut recognizer = Recognizer::new(classifier);
        recognizer.confirm_courts(args.confirm_courts);
        if args.confirm_courts && !args.json {
            writeln!(out, "every court card asks God (--confirm-courts)")?;
        }
        if let Some(threshold) = args.confirm_threshold {
            recognizer
                .set_table_threshold(threshold)
                .map_err(|e| anyhow::anyhow!("--confirm-threshold: {e}"))?;
            if !args.json {
                writeln!(
                    out,
                    "confirmation threshold {threshold} (the table's; the model's own is {})",
                    recognizer.classifier.settings().confirm_threshold
                )?;
            }
        }
        Some(recognizer)
    };
    let mut saver = match &args.save_cards {
        Some(dir) => Some(CardSaver::new(dir)?),
        None => None,
    };
    let turn = CameraTurn::new(args.turn, args.mirror).map_err(anyhow::Error::msg)?;
    let localiser = LocaliserConfig::default();
    let mut all_ok = true;
    let mut summary = CheckSummary::default();
    let mut watcher: PlayZoneWatcher<WatchedCard> = PlayZoneWatcher::new(WatchConfig::default());
    let mut plays = 0usize;
    for (path, unlisted) in &files {
        let file = path.display().to_string();
        let fail = |out: &mut dyn Write, msg: String| -> Result<()> {
            if args.json {
                writeln!(out, "{}", json!({"file": file, "error": msg}))?;
            } else {
                writeln!(out, "{file}: error: {msg}")?;
            }
            Ok(())
        };
        if let Some(why) = unlisted {
            fail(out, why.clone())?;
            all_ok = false;
            summary.scenes_failed += 1;
            continue;
        }
        let frame = match load_frame(path) {
            Ok(f) => f,
            Err(e) => {
                fail(out, e.kind.to_string())?;
                all_ok = false;
                summary.scenes_failed += 1;
                continue;
            }
        };
        // The frame first: a missing or bad sidecar beside a good image is counted
        // as a frame without usable labels, not as an unreadable file.
        let labels = if args.check {
            match Labels::for_image(path) {
                Ok(l) => Some(l),
                Err(e) => {
                    fail(out, e.to_string())?;
                    all_ok = false;
                    summary.scenes_unlabelled += 1;
                    continue;
                }
            }
        } else {
            None
        };
        let labels = labels.map(|l| l.turned(&turn, frame.width(), frame.height()));
        let frame = turn.apply(frame);
        let Some(recognizer) = &recognizer else {
            // Located as the recognizer would read the frame (a large one shrunk),
            // the outlines given in the frame's own pixels.
            let (read_frame, back) = reading_frame(&frame);
            let read_quads = locate_cards(&read_frame, &localiser);
            let warnings = outline_warnings(&read_frame, &read_quads);
            let quads: Vec<Quad> = read_quads.iter().map(|q| q.scaled(back)).collect();
            if args.json {
                writeln!(out, "{}", locate_json(&file, &frame, &quads, &warnings))?;
            } else {
                writeln!(
                    out,
                    "{file}: {} card outlines{}",
                    quads.len(),
                    warnings_text(&warnings)
                )?;
                for q in &quads {
                    writeln!(out, "  {}", serde_json::to_string(q)?)?;
                }
            }
            if let Some(saver) = &mut saver {
                let outlines: Vec<(Quad, String)> =
                    quads.iter().map(|q| (*q, String::new())).collect();
                if let Err(e) = saver.save(path, &frame, &outlines) {
                    fail(out, format!("{e:#}"))?;
                    all_ok = false;
                }
            }
            continue;
        };
        let read = recognizer.recognise(&frame).context("running the model")?;
        if args.watch {
            let line = watch_line(
                &mut watcher,
                args.zone.unwrap_or(Zone::WHOLE),
                &file,
                &read,
                args.json,
            );
            plays += usize::from(line.1);
            writeln!(out, "{}", line.0)?;
            continue;
        }
        match &labels {
            Some(labels) => {
                let s = labels.score(
                    &read.cards,
                    corner_tolerance(read.width, read.height),
                    read.width,
                    read.height,
                );
                summary.add(&s);
                let stray = labels_outside_frame(labels, read.width, read.height);
                if args.json {
                    let mut line = frame_json(&file, &read);
                    line["check"] = serde_json::to_value(&s)?;
                    if let Some(note) = &stray {
                        line["labels_note"] = json!(note);
                    }
                    writeln!(out, "{line}")?;
                } else {
                    writeln!(
                        out,
                        "{}{}{}{}",
                        check_text(&file, &s),
                        stray.map_or(String::new(), |n| format!("\n  labels: {n}")),
                        unreadable_text(&read),
                        warnings_text(&read.warnings)
                    )?;
                }
            }
            None if args.json => writeln!(out, "{}", frame_json(&file, &read))?,
            None => writeln!(
                out,
                "{}{}{}",
                frame_text(&file, &read),
                unreadable_text(&read),
                warnings_text(&read.warnings)
            )?,
        }
        if let Some(saver) = &mut saver {
            let cards: Vec<(Quad, String)> = read
                .cards
                .iter()
                .map(|c| (c.corners, card_suffix(c)))
                .collect();
            if let Err(e) = saver.save(path, &frame, &cards) {
                fail(out, format!("{e:#}"))?;
                all_ok = false;
            }
        }
    }
    if args.watch && !args.json {
        writeln!(out, "{plays} plays laid in {} frames", files.len())?;
    }
    if args.check {
        let in_effect = recognizer.as_ref().map(Recognizer::confirm_threshold);
        if args.json {
            writeln!(
                out,
                "{}",
                summary_json(&summary, in_effect, args.confirm_courts)
            )?;
        } else {
            let hint = courts_hint(&summary, args.confirm_courts).unwrap_or_default();
            writeln!(out, "{}{hint}", summary_text(&summary, in_effect))?;
        }
        // Reads asked for no confirmation yet wrong are the failure that matters
        // most; a spurious card would be refereed as a play.
        let labelled_ok = match summary.accuracy() {
            Some(accuracy) => {
                let met = accuracy + 1e-12 >= args.min_accuracy;
                if !met {
                    // The totals line says the accuracy but not the minimum it
                    // missed, and a run with no failed frame would otherwise end
                    // with status 1 and no word why.
                    writeln!(
                        err,
                        "check failed: {}/{} cards read right ({:.1}%), below --min-accuracy {} ({}%)",
                        summary.correct,
                        summary.labelled,
                        100.0 * accuracy,
                        args.min_accuracy,
                        round(100.0 * args.min_accuracy, 4),
                    )?;
                }
                met
            }
            // Frames labelled with no cards (a phone and a coaster on the cloth)
            // still check something: that no card is reported where there is none.
            None if summary.scenes > 0 && summary.spurious == 0 => true,
            None => {
                writeln!(err, "{}", nothing_checked(&summary))?;
                false
            }
        };
        all_ok &= labelled_ok;
    }
    Ok(all_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_for_another_resolution_are_pointed_out() {
        let card = |x: f64, y: f64| -> serde_json::Value {
            json!({"card": "QH", "corners": [[x, y], [x + 100.0, y], [x + 100.0, y + 140.0], [x, y + 140.0]]})
        };
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("a.jpg");
        let labels = |cards: Vec<serde_json::Value>| {
            std::fs::write(
                dir.path().join("a.json"),
                json!({ "cards": cards }).to_string(),
            )
            .unwrap();
            Labels::for_image(&image).unwrap()
        };
        // Corners of a 2560 × 1440 photo checked against its 1280 × 720 copy.
        let note = labels_outside_frame(
            &labels(vec![card(100.0, 100.0), card(1900.0, 900.0)]),
            1280,
            720,
        );
        assert_eq!(
            note.as_deref(),
            Some("corners of 1 labelled card lie outside this 1280 × 720 frame: labels written for another resolution or another photo?")
        );
        // A card hanging a little over the edge is a card at the edge.
        assert_eq!(
            labels_outside_frame(&labels(vec![card(1250.0, 600.0)]), 1280, 720),
            None
        );
        // Names alone have no corners to be outside.
        std::fs::write(dir.path().join("a.json"), r#"{"cards":["QH"]}"#).unwrap();
        assert_eq!(
            labels_outside_frame(&Labels::for_image(&image).unwrap(), 1280, 720),
            None
        );
    }

    #[test]
    fn a_confidence_too_fine_to_hold_says_what_it_became() {
        assert_eq!(parse_confidence("0.999998"), Ok(0.999998));
        let e = parse_confidence("0.99999999999").unwrap_err();
        assert!(e.starts_with("'0.99999999999' is 1 as a confidence"), "{e}");
        let e = parse_confidence("1e-50").unwrap_err();
        assert!(e.starts_with("'1e-50' is 0 as a confidence"), "{e}");
        let e = parse_confidence("1").unwrap_err();
        assert!(e.starts_with("1 is not a confidence"), "{e}");
    }

    #[test]
    fn saved_cards_of_frames_of_one_name_never_share_a_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let mut saver = CardSaver::new(dir.path()).unwrap();
        let prefixes: Vec<String> = ["g1/a.jpg", "g1/a~2.jpg", "g2/a.jpg", "g3/a.png"]
            .iter()
            .map(|p| saver.prefix(Path::new(p)))
            .collect();
        assert_eq!(prefixes, ["a", "a~2", "a~3", "a~4"]);
    }

    fn checked(misread_confident: usize, surest: Option<f32>) -> CheckSummary {
        CheckSummary {
            misread: misread_confident + 1,
            misread_confident,
            surest_misread: surest,
            ..CheckSummary::default()
        }
    }

    #[test]
    fn a_threshold_is_suggested_only_after_a_misread_that_asked_nothing() {
        // Every misread asked God: nothing to suggest, however sure it was.
        assert_eq!(suggestion(&checked(0, Some(0.9995)), Some(0.999_699)), None);
        // One did not: the model's odds margin on the surest one.
        assert_eq!(
            suggestion(&checked(1, Some(0.999_965)), Some(0.999_699)),
            Some(0.999_998)
        );
        // Already held to that: not suggested again.
        assert_eq!(
            suggestion(&checked(1, Some(0.999_965)), Some(0.999_998)),
            None
        );
        // Too sure for any threshold: said so in words, not as a number.
        let sum = checked(1, Some(1.0));
        assert_eq!(suggestion(&sum, Some(0.999_699)), None);
        assert!(summary_text(&sum, Some(0.999_699))
            .ends_with("no threshold can have God confirm a read that sure"));
    }

    #[test]
    fn a_frame_with_nothing_located_has_no_corner_error_to_give() {
        let missed = SceneScore {
            labelled: 2,
            ..SceneScore::default()
        };
        let line = check_text("f.jpg", &missed);
        assert!(line.contains("no card located"), "{line}");
        assert!(!line.contains("0.0 px"), "{line}");
        let found = SceneScore {
            labelled: 2,
            located: 2,
            correct: 2,
            sequence_ok: true,
            max_corner_error: 3.25,
            ..SceneScore::default()
        };
        assert!(check_text("f.jpg", &found).contains("worst corner 3.2 px"));
        // In the totals: measured when some card was located by its corners, and
        // "not measured" (null in JSON) when every frame was scored by order.
        let mut sum = CheckSummary::default();
        sum.add(&found);
        assert!(summary_text(&sum, None).contains("worst corner error 3.2 px"));
        assert_eq!(
            summary_json(&sum, None, false)["summary"]["max_corner_error"],
            3.25
        );
        let mut by_order = CheckSummary::default();
        by_order.add(&SceneScore {
            by_order: true,
            max_corner_error: 0.0,
            ..found
        });
        let text = summary_text(&by_order, None);
        assert!(
            text.contains("worst corner error not measured (no card located by its corners)"),
            "{text}"
        );
        assert!(summary_json(&by_order, None, false)["summary"]["max_corner_error"].is_null());
    }

    #[test]
    fn court_cards_misread_without_asking_name_confirm_courts_until_it_is_given() {
        let mut sum = checked(2, Some(0.99995));
        assert_eq!(courts_hint(&sum, false), None);
        sum.misread_confident_courts = 1;
        let hint = courts_hint(&sum, false).expect("hint");
        assert!(hint.starts_with("; 1 of the misreads without asking are court cards"));
        assert!(hint.contains("--confirm-courts"), "{hint}");
        assert_eq!(courts_hint(&sum, true), None);
        assert_eq!(
            summary_json(&sum, None, false)["summary"]["misread_confident_courts"],
            1
        );
        assert_eq!(
            summary_json(&sum, None, true)["summary"]["confirm_courts"],
            true
        );
        assert!(summary_json(&sum, None, false)["summary"]
            .get("confirm_courts")
            .is_none());
    }
}
