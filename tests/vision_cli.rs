//! `eleusis recognize` end to end on committed scenes with the committed model:
//! JSON lines in the documented shape, cards left to right and read right, an
//! error line for a bad file with the others going on, `--locate-only` without a
//! model, `--check` totals, `--save-cards` writing each card as the model saw it,
//! and `--watch` feeding frames in order to the play-zone watcher.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use eleusis::vision::geometry::{Point, Quad};
use serde_json::{json, Value};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scene(name: &str) -> PathBuf {
    root().join("tests/data/scenes").join(name)
}

fn eleusis(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs")
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

fn has_model() -> bool {
    root().join("models/recognizer.onnx").is_file()
}

/// The output line of the file whose name ends with `name`.
fn line_of<'a>(lines: &'a [Value], name: &str) -> &'a Value {
    lines
        .iter()
        .find(|v| v["file"].as_str().is_some_and(|f| f.ends_with(name)))
        .unwrap_or_else(|| panic!("no line for {name}"))
}

/// `recognize --check --json` over a folder of the repository: its lines, the last
/// one the summary, and whether it succeeded.
fn check_folder(folder: &str, extra: &[&str]) -> (Vec<Value>, bool) {
    let dir = root().join(folder);
    let mut args = vec!["recognize", "--check", "--json"];
    args.extend_from_slice(extra);
    args.push(dir.to_str().unwrap());
    let out = eleusis(&args);
    (lines(&out), out.status.success())
}

/// The card names, left to right, of a committed scene's sidecar.
fn scene_cards(name: &str) -> Vec<String> {
    let labelled: Value = serde_json::from_slice(&std::fs::read(scene(name)).unwrap()).unwrap();
    labelled["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["card"].as_str().unwrap().to_string())
        .collect()
}

/// Writes a names-only sidecar (what a table writes down for a photo).
fn write_names(path: &Path, names: &[String]) {
    std::fs::write(path, serde_json::json!({ "cards": names }).to_string()).unwrap();
}

/// The largest corner distance between a JSON quad and a labelled one, either
/// portrait ordering.
fn corner_error(a: &Value, b: &Value) -> f64 {
    let p = |v: &Value, i: usize| (v[i][0].as_f64().unwrap(), v[i][1].as_f64().unwrap());
    (0..2)
        .map(|shift| {
            (0..4)
                .map(|k| {
                    let (x, y) = p(a, k);
                    let (u, v) = p(b, (k + 2 * shift) % 4);
                    (x - u).hypot(y - v)
                })
                .fold(0.0, f64::max)
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn json_lines_read_a_sequence_and_report_a_bad_file_without_stopping() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.jpg");
    let bytes = std::fs::read(scene("06-seq2-green.jpg")).unwrap();
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    let seq = scene("08-seq4-dark.jpg");
    let empty = scene("22-distractors-green.jpg");
    let out = eleusis(&[
        "recognize",
        "--json",
        seq.to_str().unwrap(),
        bad.to_str().unwrap(),
        empty.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed file makes exit status 1"
    );
    let l = lines(&out);
    assert_eq!(l.len(), 3, "{l:?}");

    let labels: Value =
        serde_json::from_slice(&std::fs::read(scene("08-seq4-dark.json")).unwrap()).unwrap();
    assert_eq!(l[0]["file"], seq.to_str().unwrap());
    assert_eq!(
        (l[0]["width"].as_u64(), l[0]["height"].as_u64()),
        (Some(1280), Some(720))
    );
    let cards = l[0]["cards"].as_array().unwrap();
    let expected = labels["cards"].as_array().unwrap();
    assert_eq!(cards.len(), expected.len(), "{cards:?}");
    for (c, e) in cards.iter().zip(expected) {
        assert_eq!(c["card"], e["card"], "left-to-right reads: {cards:?}");
        let conf = c["confidence"].as_f64().unwrap();
        assert!(conf > 0.0 && conf <= 1.0, "{conf}");
        assert!(c["needs_confirmation"].is_boolean());
        assert!(
            corner_error(&c["corners"], &e["corners"]) <= 4.0,
            "{c} vs {e}"
        );
    }

    assert_eq!(l[1]["file"], bad.to_str().unwrap());
    let err = l[1]["error"].as_str().unwrap();
    assert!(err.contains("truncated"), "{err}");

    assert_eq!(l[2]["cards"].as_array().map(Vec::len), Some(0), "{}", l[2]);
}

#[cfg(unix)]
#[test]
fn a_pipe_in_a_folder_is_passed_over_and_a_globs_sidecars_are_not_frames() {
    // A named pipe called like a frame would block the read for ever.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(scene("08-seq4-dark.jpg"), dir.path().join("a.jpg")).unwrap();
    let fifo = dir.path().join("b.jpg");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["recognize", "--json", "--locate-only"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let started = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("recognize blocked on the pipe");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    assert!(out.status.success());
    let l = lines(&out);
    assert_eq!(l.len(), 1, "{l:?}");
    assert!(l[0]["file"].as_str().unwrap().ends_with("a.jpg"), "{l:?}");

    // `--check DIR/08*` names the frame and its sidecar: the sidecar is no frame.
    let out = eleusis(&[
        "recognize",
        "--check",
        "--json",
        scene("08-seq4-dark.jpg").to_str().unwrap(),
        scene("08-seq4-dark.json").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let l = lines(&out);
    assert!(l.iter().all(|v| v.get("error").is_none()), "{l:?}");
    assert_eq!(l.last().unwrap()["summary"]["scenes"], 1, "{l:?}");
    assert_eq!(l.last().unwrap()["summary"]["scenes_failed"], 0, "{l:?}");
}

#[test]
fn a_model_named_by_its_settings_file_is_read_and_a_closed_output_ends_quietly() {
    let out = eleusis(&[
        "recognize",
        "--json",
        "--model",
        "models/recognizer.json",
        scene("08-seq4-dark.jpg").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(lines(&out)[0]["cards"].as_array().map(Vec::len), Some(4));

    // `eleusis recognize DIR | head -1`: the reader leaves after one line, and
    // the rest (ten times the scenes, more than a pipe holds) has nowhere to go.
    let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["recognize", "--json", "--locate-only"])
        .args(["tests/data/scenes"; 10])
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut first = String::new();
    let stdout = child.stdout.take().expect("stdout");
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut first).unwrap();
    assert!(first.starts_with('{'), "{first}");
    let out = child.wait_with_output().expect("exits");
    assert_eq!(out.status.code(), Some(141), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn locate_only_needs_no_model() {
    let out = eleusis(&[
        "recognize",
        "--locate-only",
        "--json",
        "--model",
        "/nonexistent/model",
        scene("07-seq3-wood.jpg").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let l = lines(&out);
    let cards = l[0]["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 3);
    assert!(cards
        .iter()
        .all(|c| c.get("card").is_none() && c["corners"].is_array()));
}

/// `recognize --json` on the committed 4-card sequence (`08-seq4-dark`) and on a
/// frame made from it by `change`, saved as `name` in `dir`: the two output lines,
/// and the made frame's path.
fn read_with_the_sequence(
    dir: &Path,
    name: &str,
    change: impl Fn(&image::RgbImage) -> image::RgbImage,
) -> (Vec<Value>, PathBuf) {
    let seq = scene("08-seq4-dark.jpg");
    let frame = image::open(&seq).unwrap().to_rgb8();
    let path = dir.join(name);
    change(&frame).save(&path).unwrap();
    (read_two(&seq, &path), path)
}

/// `recognize --json` on two frames: their two output lines.
fn read_two(first: &Path, second: &Path) -> Vec<Value> {
    let out = eleusis(&[
        "recognize",
        "--json",
        first.to_str().unwrap(),
        second.to_str().unwrap(),
    ]);
    let l = lines(&out);
    assert_eq!(l.len(), 2, "{l:?}");
    l
}

#[test]
fn an_overexposed_frame_says_so_and_what_to_change() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // The committed sequence on its dark cloth, then the same frame blown out: the
    // cloth pushed to pure white, as an auto-exposing webcam does over a white
    // tablecloth.
    let dir = tempfile::tempdir().unwrap();
    let (l, path) = read_with_the_sequence(dir.path(), "blown.png", |frame| {
        image::RgbImage::from_fn(frame.width(), frame.height(), |x, y| {
            let p = frame.get_pixel(x, y).0;
            image::Rgb(p.map(|c| c.saturating_add(235)))
        })
    });
    assert!(l[0].get("warnings").is_none(), "well exposed: {}", l[0]);
    assert_eq!(l[1]["warnings"][0]["kind"], "overexposed", "{}", l[1]);
    // The same, in text and without a model.
    let out = eleusis(&["recognize", "--locate-only", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("warning: overexposed") && text.contains("lower the camera's exposure"),
        "{text}"
    );
}

#[test]
fn cards_too_small_to_read_are_named_with_the_fix() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // The committed sequence (cards about 160 px tall), then the same frame through
    // a camera of 512 × 288 pixels: cards about 64 px tall, as a cheap webcam left at
    // its lowest resolution gives them.
    let dir = tempfile::tempdir().unwrap();
    let (l, path) = read_with_the_sequence(dir.path(), "small.png", |frame| {
        image::imageops::resize(frame, 512, 288, image::imageops::FilterType::Lanczos3)
    });
    assert!(
        l[0].get("warnings").is_none(),
        "cards of a good size: {}",
        l[0]
    );
    assert_eq!(l[1]["cards"].as_array().map(Vec::len), Some(4), "{}", l[1]);
    // The same cards read sure at full size ask God at 64 px: the model is sure of
    // wrong reads at that size, so its confidence does not decide there.
    for (big, small) in l[0]["cards"]
        .as_array()
        .unwrap()
        .iter()
        .zip(l[1]["cards"].as_array().unwrap())
    {
        assert_eq!(big["needs_confirmation"], false, "{big}");
        assert_eq!(small["needs_confirmation"], true, "{small}");
    }
    let warning = &l[1]["warnings"][0];
    assert_eq!(warning["kind"], "small-cards", "{}", l[1]);
    let text = warning["text"].as_str().unwrap();
    assert!(
        text.contains("about 64 px tall") && text.contains("1280x720"),
        "{text}"
    );
    // A camera placement check without a model says it too.
    let out = eleusis(&["recognize", "--locate-only", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("warning: cards too small"), "{text}");
}

#[test]
fn a_photo_larger_than_the_read_size_is_read_shrunk_with_corners_in_its_own_pixels() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // The committed sequence as a 4K camera or a phone would give it: three times
    // the pixels. It is read at 1920 × 1080; the corners come back in 3840 × 2160.
    let dir = tempfile::tempdir().unwrap();
    let (l, _) = read_with_the_sequence(dir.path(), "big.jpg", |frame| {
        image::imageops::resize(frame, 3840, 2160, image::imageops::FilterType::Triangle)
    });
    assert_eq!(
        (&l[1]["width"], &l[1]["height"]),
        (&json!(3840), &json!(2160))
    );
    let (small, big) = (
        l[0]["cards"].as_array().unwrap(),
        l[1]["cards"].as_array().unwrap(),
    );
    assert_eq!(big.len(), 4, "{}", l[1]);
    for (s, b) in small.iter().zip(big) {
        assert_eq!(s["card"], b["card"], "{b}");
        let tripled: Vec<Value> = s["corners"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!([p[0].as_f64().unwrap() * 3.0, p[1].as_f64().unwrap() * 3.0]))
            .collect();
        let err = corner_error(&json!(tripled), &b["corners"]);
        assert!(err < 9.0, "{s} {b}: {err}");
    }
}

/// A JPEG with an EXIF block whose orientation tag is `value`, spliced in after the
/// start-of-image marker, as a phone writes it.
fn with_exif_orientation(jpeg: &[u8], value: u8) -> Vec<u8> {
    let mut app1 = b"Exif\0\0II*\0\x08\0\0\0\x01\0\x12\x01\x03\0\x01\0\0\0".to_vec();
    app1.extend_from_slice(&[value, 0, 0, 0, 0, 0, 0, 0]);
    let length = u16::try_from(app1.len() + 2).unwrap().to_be_bytes();
    [&jpeg[..2], &[0xFF, 0xE1], &length, &app1, &jpeg[2..]].concat()
}

/// The card names of a JSON line, left to right.
fn read_names(line: &Value) -> Vec<String> {
    line["cards"]
        .as_array()
        .unwrap_or_else(|| panic!("no cards: {line}"))
        .iter()
        .map(|c| c["card"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_phone_photo_stored_sideways_is_read_the_way_it_is_seen() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // A phone held upright stores the sequence turned a quarter anticlockwise and
    // says in its EXIF orientation (6) to turn it back for viewing. Read unturned,
    // the cards would come out top to bottom, with the wrong corners.
    let seq = scene("08-seq4-dark.jpg");
    let sensor = image::open(&seq).unwrap().to_rgb8();
    let sensor = image::imageops::rotate270(&sensor);
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 92)
        .encode_image(&sensor)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("phone.jpg");
    std::fs::write(&path, with_exif_orientation(&jpeg, 6)).unwrap();
    let l = read_two(&seq, &path);
    assert_eq!(
        (&l[1]["width"], &l[1]["height"]),
        (&l[0]["width"], &l[0]["height"]),
        "{}",
        l[1]
    );
    assert_eq!(read_names(&l[1]), ["4D", "4H", "8C", "5H"], "{}", l[1]);
    assert_eq!(read_names(&l[1]), read_names(&l[0]));
    for (a, b) in l[0]["cards"]
        .as_array()
        .unwrap()
        .iter()
        .zip(l[1]["cards"].as_array().unwrap())
    {
        assert!(corner_error(&a["corners"], &b["corners"]) < 3.0, "{a} {b}");
    }
}

#[test]
fn a_camera_turned_on_its_mount_is_read_in_the_players_order_with_turn() {
    use eleusis::vision::{CameraTurn, Quad};
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // The webcam hangs from a lamp arm at the table's end: its picture is the table
    // turned a quarter anticlockwise, and the row of four stands as a column.
    let seq = scene("08-seq4-dark.jpg");
    let table = image::open(&seq).unwrap().to_rgb8();
    let dir = tempfile::tempdir().unwrap();
    let camera = dir.path().join("camera.png");
    image::imageops::rotate270(&table).save(&camera).unwrap();
    let names = scene_cards("08-seq4-dark.json");
    let cam = camera.to_str().unwrap();

    let plain = lines(&eleusis(&["recognize", "--json", cam]));
    let mut seen = read_names(&plain[0]);
    assert_ne!(
        seen, names,
        "read as the camera gives it, the order is not the players'"
    );
    seen.sort();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(
        seen, sorted,
        "the same cards are found either way: {}",
        plain[0]
    );

    let out = eleusis(&["recognize", "--json", "--turn", "90", cam]);
    assert!(out.status.success());
    let turned = lines(&out);
    assert_eq!(read_names(&turned[0]), names, "{}", turned[0]);
    assert_eq!(
        (&turned[0]["width"], &turned[0]["height"]),
        (&json!(1280), &json!(720)),
        "corners are the turned frame's"
    );
    let labelled: Value =
        serde_json::from_slice(&std::fs::read(scene("08-seq4-dark.json")).unwrap()).unwrap();
    for (read, label) in turned[0]["cards"]
        .as_array()
        .unwrap()
        .iter()
        .zip(labelled["cards"].as_array().unwrap())
    {
        let err = corner_error(&read["corners"], &label["corners"]);
        assert!(err < 3.0, "{read} against {label}: {err} px");
    }

    // `--check` takes the labels in the camera's own pixels and turns them too.
    let to_camera = CameraTurn::new(270, false).unwrap();
    let cards: Vec<Value> = labelled["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let q: Quad = serde_json::from_value(c["corners"].clone()).unwrap();
            json!({"card": c["card"], "corners": to_camera.quad(&q, 1280, 720)})
        })
        .collect();
    std::fs::write(
        dir.path().join("camera.json"),
        json!({ "cards": cards }).to_string(),
    )
    .unwrap();
    let check = |extra: &[&str]| {
        let mut args = vec!["recognize", "--check", "--json"];
        args.extend_from_slice(extra);
        args.push(cam);
        let l = lines(&eleusis(&args));
        l.last().unwrap()["summary"].clone()
    };
    let with = check(&["--turn", "90"]);
    assert_eq!(with["correct"], json!(4), "{with}");
    // Counter-clockwise, written as someone turning the picture back would.
    assert_eq!(check(&["--turn", "-270"]), with);
    assert_eq!(with["sequences_exact"], json!(1), "{with}");
    let without = check(&[]);
    assert_eq!(without["located"], json!(4), "{without}");
    assert_eq!(without["sequences_exact"], json!(0), "{without}");

    for bad in ["45", "left", "-45"] {
        let err = stderr_of_status_2(&["recognize", "--turn", bad, cam]);
        assert!(err.contains("0, 90, 180 or 270"), "{err}");
    }
}

#[test]
fn a_camera_on_the_far_side_is_checked_in_the_order_it_reads_with_turn() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // A sidecar with corners lists the cards left to right in the picture it
    // labels. Turned half a turn, that picture shows them the other way round, and
    // the recognizer reads them left to right across the turned frame: the
    // expected sequence must follow, or every card read right and located still
    // fails as a wrong sequence.
    let seq = scene("08-seq4-dark.jpg");
    let wood = scene("07-seq3-wood.jpg");
    let out = eleusis(&[
        "recognize",
        "--check",
        "--json",
        "--turn",
        "180",
        seq.to_str().unwrap(),
        wood.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let l = lines(&out);
    for (line, sidecar) in [(&l[0], "08-seq4-dark.json"), (&l[1], "07-seq3-wood.json")] {
        let mut reversed = scene_cards(sidecar);
        reversed.reverse();
        assert_eq!(read_names(line), reversed, "{line}");
        assert_eq!(line["check"]["expected"], json!(reversed), "{line}");
        assert_eq!(line["check"]["sequence_ok"], json!(true), "{line}");
    }
    let summary = &l[2]["summary"];
    assert_eq!(summary["correct"], json!(7), "{summary}");
    assert_eq!(summary["sequences_exact"], json!(2), "{summary}");

    // Names alone are written in the players' order, which is what the turned
    // frame shows: they are taken as written, not re-sorted.
    let table = image::open(&seq).unwrap().to_rgb8();
    let dir = tempfile::tempdir().unwrap();
    let camera = dir.path().join("far-side.png");
    image::imageops::rotate180(&table).save(&camera).unwrap();
    let names = scene_cards("08-seq4-dark.json");
    write_names(&dir.path().join("far-side.json"), &names);
    let out = eleusis(&[
        "recognize",
        "--check",
        "--json",
        "--turn",
        "180",
        camera.to_str().unwrap(),
    ]);
    let l = lines(&out);
    assert_eq!(l[0]["check"]["expected"], json!(names), "{}", l[0]);
    assert_eq!(l[0]["check"]["sequence_ok"], json!(true), "{}", l[0]);
    assert!(out.status.success(), "{}", l[0]);
}

#[test]
fn frames_a_few_pixels_thin_are_read_as_no_cards() {
    // A strip of 8 × 8000 pixels shrinks to a working image with no columns: it
    // once crashed the localiser. Each is an answer with no cards, and the frame
    // after them is still read.
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["recognize".to_string(), "--json".to_string()];
    for (w, h) in [(8u32, 8000u32), (8000, 8), (8, 8)] {
        let path = dir.path().join(format!("strip-{w}x{h}.png"));
        image::RgbImage::from_pixel(w, h, image::Rgb([240, 240, 240]))
            .save(&path)
            .unwrap();
        args.push(path.to_string_lossy().into_owned());
    }
    args.push(scene("07-seq3-wood.jpg").to_string_lossy().into_owned());
    let out = eleusis(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let l = lines(&out);
    assert_eq!(l.len(), 4, "{l:?}");
    for strip in &l[..3] {
        assert_eq!(strip["cards"].as_array().map(Vec::len), Some(0), "{strip}");
    }
    assert_eq!(l[3]["cards"].as_array().map(Vec::len), Some(3), "{}", l[3]);
}

/// Runs `eleusis` expecting exit status 2 (nothing could be done); its stderr.
fn stderr_of_status_2(args: &[&str]) -> String {
    let out = eleusis(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_missing_model_is_a_clear_error_with_status_2() {
    let err = stderr_of_status_2(&[
        "recognize",
        "--model",
        "/nonexistent/model",
        scene("07-seq3-wood.jpg").to_str().unwrap(),
    ]);
    assert!(
        err.contains("loading the recognizer model") && err.contains("/nonexistent/model"),
        "{err}"
    );
    // The path given and what was looked for there, said once: not a settings
    // file the user never named, nor the reason twice.
    assert!(
        err.contains("/nonexistent/model: no such folder or file (a model is a folder holding recognizer.onnx and recognizer.json, or a .onnx file with its .json beside it)"),
        "{err}"
    );
    assert!(
        !err.contains("model.json") && !err.contains("os error"),
        "{err}"
    );
    // Named through the environment, it is not passed over for the committed one.
    let out = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args([
            "recognize",
            "--json",
            scene("07-seq3-wood.jpg").to_str().unwrap(),
        ])
        .env("ELEUSIS_MODEL", "/nonexistent/model")
        .current_dir(root())
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/nonexistent/model: no such folder or file"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("models/recognizer.json"),
        dir.path().join("recognizer.json"),
    )
    .unwrap();
    let folder = dir.path().to_str().unwrap();
    let image = scene("07-seq3-wood.jpg");
    let image = image.to_str().unwrap();
    let err = stderr_of_status_2(&["recognize", "--model", folder, image]);
    assert!(
        err.contains(&format!("{folder}: no recognizer.onnx in this folder (")),
        "{err}"
    );
    let onnx = dir.path().join("mine.onnx");
    std::fs::copy(root().join("models/recognizer.onnx"), &onnx).unwrap();
    let err = stderr_of_status_2(&["recognize", "--model", onnx.to_str().unwrap(), image]);
    assert!(
        err.contains(&format!("{}: no mine.json beside it (", onnx.display()))
            && err.matches("mine.json").count() == 1,
        "{err}"
    );
}

#[test]
fn check_mode_reads_the_committed_scenes() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let (l, ok) = check_folder("tests/data/scenes", &["--min-accuracy", "0.85"]);
    let summary = &l.last().unwrap()["summary"];
    assert_eq!(summary["scenes"].as_u64(), Some(28), "{summary}");
    assert!(summary["labelled"].as_u64().unwrap() >= 120);
    let accuracy = summary["accuracy"].as_f64().unwrap();
    let located = summary["localisation"].as_f64().unwrap();
    assert!(accuracy >= 0.85, "{summary}");
    assert!(located >= 0.95, "{summary}");
    // Distractors (phones, coasters, hands, paper notes) are never read as cards.
    for line in &l[..l.len() - 1] {
        if line["file"].as_str().unwrap().contains("distractors") {
            assert_eq!(line["cards"].as_array().map(Vec::len), Some(0), "{line}");
        }
    }
    assert!(ok, "accuracy {accuracy} met the minimum");
    // Each scene line carries its own check.
    assert!(l[0]["check"]["labelled"].is_u64());
}

#[test]
fn frames_labelled_with_no_cards_check_that_none_is_found() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // A phone, a coaster and a hand on three cloths, labelled with no cards: the
    // check passes when none of them is taken for a card.
    let dir = tempfile::tempdir().unwrap();
    for name in ["22-distractors-green", "23-distractors-wood"] {
        for ext in ["jpg", "json"] {
            let file = format!("{name}.{ext}");
            std::fs::copy(scene(&file), dir.path().join(&file)).unwrap();
        }
    }
    let folder = dir.path().to_str().unwrap();
    let out = eleusis(&["recognize", "--check", folder]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Four cards on a frame labelled with none: each is a card taken where the
    // labels say there is none.
    std::fs::copy(scene("08-seq4-dark.jpg"), dir.path().join("b.jpg")).unwrap();
    std::fs::write(dir.path().join("b.json"), r#"{"cards":[]}"#).unwrap();
    let out = eleusis(&["recognize", "--check", folder]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("check failed: 3 frames labelled with no cards, yet 4 cards found in them"),
        "{err}"
    );
}

#[test]
fn a_check_with_no_usable_labels_measures_nothing_and_fails() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // A folder of photos with no sidecars: nothing is checked, which must not
    // read as 100 % (a table would think its camera fine), and the images, read
    // well, are not "unreadable files".
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(scene("07-seq3-wood.jpg"), dir.path().join("a.jpg")).unwrap();
    std::fs::copy(scene("08-seq4-dark.jpg"), dir.path().join("b.jpg")).unwrap();
    std::fs::write(dir.path().join("b.json"), r#"{"cards":["4D","4X"]}"#).unwrap();
    let folder = dir.path().to_str().unwrap();
    let out = eleusis(&["recognize", "--check", folder]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with(
            "cards read right: 0/0 (nothing labelled), located 0/0 (nothing labelled),"
        ) && last.contains("unreadable files 0,")
            && last.ends_with(", frames without usable labels 2"),
        "{text}"
    );
    assert!(!text.contains("100.0%"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "check failed: no labelled frames to check (2 frames without usable labels, 0 unreadable files)"
        ),
        "{err}"
    );

    let out = eleusis(&["recognize", "--check", "--json", folder]);
    assert_eq!(out.status.code(), Some(1));
    let l = lines(&out);
    let summary = &l.last().unwrap()["summary"];
    assert_eq!(summary["accuracy"], Value::Null, "{summary}");
    assert_eq!(summary["localisation"], Value::Null, "{summary}");
    assert_eq!(
        (
            &summary["scenes"],
            &summary["scenes_failed"],
            &summary["scenes_unlabelled"]
        ),
        (&json!(0), &json!(0), &json!(2)),
        "{summary}"
    );

    // Beside a labelled frame, the count stays apart from a file that is no image.
    std::fs::copy(scene("07-seq3-wood.json"), dir.path().join("a.json")).unwrap();
    std::fs::write(dir.path().join("c.jpg"), b"not a jpeg").unwrap();
    let out = eleusis(&["recognize", "--check", "--json", folder]);
    let l = lines(&out);
    let summary = &l.last().unwrap()["summary"];
    assert_eq!(
        (
            &summary["scenes"],
            &summary["scenes_failed"],
            &summary["scenes_unlabelled"]
        ),
        (&json!(1), &json!(1), &json!(1)),
        "{summary}"
    );
    assert_eq!(summary["accuracy"], json!(1.0), "{summary}");
    assert_eq!(out.status.code(), Some(1), "a frame went unchecked");
}

#[test]
fn min_accuracy_is_a_fraction_and_a_check_short_of_it_says_so() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let wood = scene("07-seq3-wood.jpg");
    let wood = wood.to_str().unwrap();
    // A percentage or a number that is no fraction would make every check fail
    // (or none) with no word why: refused when the command is given.
    for bad in ["95", "1.5", "NaN", "inf", "-0.1", "most"] {
        let flag = format!("--min-accuracy={bad}");
        let err = stderr_of_status_2(&["recognize", "--check", &flag, wood]);
        assert!(
            err.contains(&format!("'{bad}' is not a"))
                && err.contains("from 0 to 1")
                && err.contains("0.95 means 95 %"),
            "{err}"
        );
    }
    let err = stderr_of_status_2(&["recognize", "--check", "--min-accuracy", "95", wood]);
    assert!(err.contains("(95 % is 0.95)"), "{err}");

    // One of four names wrong: 75 % read right. Short of the minimum, standard
    // error says by how much; at the minimum, the check passes silently.
    let dir = tempfile::tempdir().unwrap();
    let photo = dir.path().join("table.jpg");
    std::fs::copy(scene("08-seq4-dark.jpg"), &photo).unwrap();
    let mut names = scene_cards("08-seq4-dark.json");
    names[1] = if names[1] == "AS" { "2S" } else { "AS" }.to_string();
    write_names(&dir.path().join("table.json"), &names);
    let photo = photo.to_str().unwrap();
    for (extra, why) in [
        (vec![], "below --min-accuracy 1 (100%)"),
        (
            vec!["--min-accuracy", "0.8"],
            "below --min-accuracy 0.8 (80%)",
        ),
    ] {
        let mut args = vec!["recognize", "--check", "--json"];
        args.extend(extra);
        args.push(photo);
        let out = eleusis(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "check failed: 3/4 cards read right (75.0%), {why}"
            )),
            "{args:?}: {err}"
        );
        lines(&out); // standard output stays JSON lines
    }
    let out = eleusis(&["recognize", "--check", "--min-accuracy", "0.75", photo]);
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn check_mode_takes_card_names_alone_for_a_photo_of_a_known_layout() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let dir = tempfile::tempdir().unwrap();
    let photo = dir.path().join("our-table.jpg");
    std::fs::copy(scene("08-seq4-dark.jpg"), &photo).unwrap();
    let names = scene_cards("08-seq4-dark.json");
    assert_eq!(names.len(), 4);
    // What a table writes down: the cards left to right, no corners.
    write_names(&dir.path().join("our-table.json"), &names);
    let out = eleusis(&["recognize", "--check", "--json", photo.to_str().unwrap()]);
    let l = lines(&out);
    assert_eq!(l[0]["check"]["by_order"], Value::Bool(true), "{}", l[0]);
    assert_eq!(l[0]["check"]["correct"].as_u64(), Some(4), "{}", l[0]);
    assert_eq!(l[1]["summary"]["accuracy"].as_f64(), Some(1.0));
    assert!(out.status.success());

    // A wrong name is a misread at its place, and the check fails.
    let mut wrong = names.clone();
    wrong[1] = if names[1] == "AS" { "2S" } else { "AS" }.to_string();
    write_names(&dir.path().join("our-table.json"), &wrong);
    let out = eleusis(&["recognize", "--check", photo.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("FAIL") && text.contains("misread 1") && text.contains("by order"),
        "{text}"
    );
    assert!(!out.status.success());
}

#[test]
fn cards_seen_at_a_slant_are_read_the_right_way_up() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let (l, ok) = check_folder("tests/data/views", &[]);
    let summary = &l.last().unwrap()["summary"];
    // Eleven cards, most of them looking square or landscape in the frame.
    assert_eq!(summary["labelled"].as_u64(), Some(11), "{summary}");
    assert_eq!(summary["correct"].as_u64(), Some(11), "{summary}");
    assert_eq!(summary["spurious"].as_u64(), Some(0), "{summary}");
    assert!(ok);
}

#[test]
fn path_traced_photos_of_bent_glossy_cards_are_read() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let (l, ok) = check_folder("tests/data/photos", &[]);
    let summary = &l.last().unwrap()["summary"];
    // Eight cards straight above on felt under a mirrored lamp, one card on wood
    // sheared by a 49° slant (found only since sheared outlines are allowed), eight
    // at a slant on felt, a row of court cards at a slant on wood, and a row of
    // three whose jack's bottom-right index is washed out by the lamp's glare; then
    // a row of three on dark wood, two of them in an object's shadow, and eight at
    // a slant on wood, one of them darker than the lamp-lit wood beside it (found
    // only since colour outlines are tried on every cloth: 32 of 35 before); last,
    // eight straight above on wood, the three of clubs 96 px tall in the lamp's
    // glare and an object's shadow.
    assert_eq!(summary["labelled"].as_u64(), Some(43), "{summary}");
    assert_eq!(summary["correct"].as_u64(), Some(43), "{summary}");
    assert_eq!(summary["spurious"].as_u64(), Some(0), "{summary}");
    assert!(ok);
    // The jack is read from its legible top-left corner alone (the blank corner
    // read as "not a card" outvoted it before), and as one corner is, it asks God.
    let row = l
        .iter()
        .find(|v| {
            v["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("0031-row-above.jpg"))
        })
        .unwrap();
    let jack = &row["cards"][1];
    assert_eq!(jack["card"], "JC", "{row}");
    assert_eq!(jack["needs_confirmation"], true, "{row}");
    let shadow = line_of(&l, "73-0001-row-above.jpg");
    assert_eq!(read_names(shadow), ["7D", "4H", "3H"], "{shadow}");
    let glare = line_of(&l, "73-0035-eight-slant.jpg");
    assert!(read_names(glare).contains(&"2S".to_string()), "{glare}");
    // A small card's top-left index washed out to white: read from its legible
    // bottom-right one (it vanished from the read before), and, too small for one
    // corner to be believed, it asks God however sure that corner is.
    let small = line_of(&l, "73-0050-eight-above.jpg");
    let three = small["cards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["card"] == "3C")
        .unwrap_or_else(|| panic!("the 3C is read: {small}"));
    assert_eq!(three["needs_confirmation"], true, "{small}");
}

/// The centre of a JSON quad `[[x, y]; 4]`.
fn centre_of(quad: &Value) -> Point {
    Quad(std::array::from_fn(|k| {
        Point::new(quad[k][0].as_f64().unwrap(), quad[k][1].as_f64().unwrap())
    }))
    .centre()
}

#[test]
fn a_card_in_a_hard_shadow_is_reported_unreadable_not_dropped() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let frame = root().join("tests/data/shadow/73-0047-eight-slant.jpg");
    let out = eleusis(&["recognize", "--json", frame.to_str().unwrap()]);
    assert!(out.status.success());
    let line = &lines(&out)[0];
    let labelled: Value = serde_json::from_slice(
        &std::fs::read(root().join("tests/data/shadow/73-0047-eight-slant.json")).unwrap(),
    )
    .unwrap();
    let labels = labelled["cards"].as_array().unwrap();
    // The seven cards in the light are read; the two of diamonds in the shadow's
    // dark core is not, but its outline is reported as unreadable.
    let mut read = read_names(line);
    read.sort();
    let mut lit: Vec<String> = labels
        .iter()
        .map(|c| c["card"].as_str().unwrap().to_string())
        .filter(|c| c != "2D")
        .collect();
    lit.sort();
    assert_eq!(read, lit, "{line}");
    let unreadable = line["unreadable"].as_array().expect("unreadable outlines");
    assert_eq!(unreadable.len(), 1, "{line}");
    let two = labels.iter().find(|c| c["card"] == "2D").unwrap();
    assert!(
        centre_of(&unreadable[0]).dist(centre_of(&two["corners"])) < 8.0,
        "{line}"
    );
    // A frame whose cards are all read has none.
    let out = eleusis(&[
        "recognize",
        "--json",
        scene("08-seq4-dark.jpg").to_str().unwrap(),
    ]);
    assert!(lines(&out)[0].get("unreadable").is_none());
    // The text output says so under the frame's reads.
    let out = eleusis(&["recognize", frame.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\n  unreadable: 1 card-shaped outline(s), no index read"),
        "{text}"
    );
}

#[test]
fn touching_cards_of_a_borderless_deck_are_cut_apart_and_read() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // Rows of two, three and four touching cards of decks with no printed border:
    // each row is one outline to the localiser (read as no card, or as one unsure
    // card, before the recognizer learnt to cut it). In two of them (06, 07) the
    // masks give the plain cards on their own but not the court card, in the middle
    // of the row and at its end: it lies in the stretch they leave uncovered.
    let (l, ok) = check_folder("tests/data/touching", &[]);
    let summary = &l.last().unwrap()["summary"];
    assert_eq!(summary["labelled"].as_u64(), Some(21), "{summary}");
    assert_eq!(summary["correct"].as_u64(), Some(21), "{summary}");
    assert_eq!(summary["spurious"].as_u64(), Some(0), "{summary}");
    assert_eq!(summary["misread"].as_u64(), Some(0), "{summary}");
    assert!(ok);
}

/// A club checks its own deck: a misread that asked no confirmation makes the
/// check suggest a stricter threshold, and with it the same read asks God.
#[test]
fn a_deck_check_suggests_a_stricter_threshold_that_then_asks_god() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let dir = tempfile::tempdir().expect("dir");
    let photo = dir.path().join("deck.jpg");
    std::fs::copy(scene("14-spread20-dark.jpg"), &photo).expect("copy the frame");
    // The table's notes, with one card written down wrong: the model's sure read
    // of the 8C now counts as a misread that asked no confirmation.
    let mut names = scene_cards("14-spread20-dark.json");
    let at = names.iter().position(|c| c == "8C").expect("the 8C");
    names[at] = "8S".to_string();
    write_names(&dir.path().join("deck.json"), &names);
    let folder = dir.path().to_str().unwrap();

    let out = eleusis(&["recognize", "--check", "--json", folder]);
    let summary = lines(&out).last().unwrap()["summary"].clone();
    assert_eq!(summary["misread_confident"], 1, "{summary}");
    let surest = summary["surest_misread"].as_f64().unwrap();
    let in_effect = summary["confirm_threshold"].as_f64().unwrap();
    let suggested = summary["suggested_confirm_threshold"].as_f64().unwrap();
    assert!(
        surest >= in_effect && suggested > surest && suggested < 1.0,
        "{summary}"
    );
    let text = eleusis(&["recognize", "--check", folder]);
    let last = String::from_utf8_lossy(&text.stdout)
        .lines()
        .last()
        .unwrap()
        .to_string();
    assert!(
        last.contains(&format!("run with --confirm-threshold {suggested:.6}")),
        "{last}"
    );

    // Run as suggested: the same read asks God, and nothing else changes.
    let threshold = format!("{suggested}");
    let out = eleusis(&[
        "recognize",
        "--check",
        "--json",
        "--confirm-threshold",
        &threshold,
        folder,
    ]);
    let l = lines(&out);
    let strict = &l.last().unwrap()["summary"];
    assert_eq!(strict["misread"], 1, "{strict}");
    assert_eq!(strict["misread_confident"], 0, "{strict}");
    assert_eq!(strict["correct"], summary["correct"], "{strict}");
    assert_eq!(
        strict["suggested_confirm_threshold"],
        Value::Null,
        "{strict}"
    );
    let read = &l[0]["cards"][at];
    assert_eq!(read["card"], "8C", "{read}");
    assert_eq!(read["needs_confirmation"], true, "{read}");

    // A threshold below the model's own, or no confidence at all, is refused.
    for (bad, says) in [
        ("0.5", "below the model's own"),
        ("1.5", "not a confidence"),
    ] {
        let out = eleusis(&[
            "recognize",
            "--confirm-threshold",
            bad,
            photo.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--confirm-threshold") && err.contains(says),
            "{bad}: {err}"
        );
    }
}

#[test]
fn a_fanned_hand_is_read_from_its_wedges_and_nothing_is_made_up() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // Fans of 16 and 20 cards of three held-out designs (`render_spread.py --fan
    // --committed`): each covered card is read from the index in its wedge
    // (README, "Recognizing cards", step 8), not every one of them; what is
    // reported must be cards of the fan, never a card that is not there, and each
    // fan's top card, lying whole, is read.
    let l = checked_fans();
    let summary = &l.last().unwrap()["summary"];
    assert_eq!(summary["labelled"].as_u64(), Some(74), "{summary}");
    assert_eq!(summary["misread"].as_u64(), Some(0), "{summary}");
    let mut named = 0;
    for name in [
        "0024-neoclassical-white-16.jpg",
        "0031-four-colour-wood-20.jpg",
        "0070-tigullio-white-20.jpg",
    ] {
        let line = line_of(l, name);
        let expected: Vec<&str> = line["check"]["expected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let cards = line["cards"].as_array().unwrap();
        let read: Vec<&str> = cards.iter().map(|c| c["card"].as_str().unwrap()).collect();
        let top = expected.last().unwrap();
        reads_these_and_only_cards_of_the_fan(line, &[*top]);
        // Before fans were read, these frames gave 5, 1 and 3 covered cards; with
        // the arc's corners taken from the simplified hull alone, 7, 7 and 6; with
        // every corner of the whole hull on the arc, 11, 11 and 8; with the index
        // cut a little into the card from the hull's corner, 15, 18 and 11.
        let covered = cards
            .iter()
            .filter(|c| c["overlapped"].as_bool() == Some(true))
            .count();
        assert!(
            covered >= 11,
            "{name}: {covered} covered cards read: {line}"
        );
        named += expected.iter().filter(|card| read.contains(card)).count();
        // A card read from one corner asks God unless it is as sure as the
        // one-corner threshold (0.999932; the JSON rounds confidences to four
        // places, so such a read shows as 0.9999 or 1).
        assert!(
            cards
                .iter()
                .filter(|c| c["overlapped"].as_bool() == Some(true))
                .all(|c| c["needs_confirmation"].as_bool() == Some(true)
                    || c["confidence"].as_f64() >= Some(0.9999)),
            "{name}: {line}"
        );
    }
    // Of the 56 cards, 22 were named from the simplified hull's corners alone, 32
    // from every corner of the whole hull on the arc, 46 with the index cut a
    // little into the card from the hull's corner.
    assert!(named >= 44, "{named} of the fans' 56 cards named");
}

#[test]
fn small_fans_are_read_through_unsure_outlines_pieced_together_from_their_cards() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // Five cards fanned on a patterned cloth (frame 9 of the held-out fans). The
    // masks also give outlines pieced together from the fanned cards, read
    // unsure as a card or as a row's strip, and they held two of the cards'
    // corners: three of the five were read. An outline read unsure that holds a
    // fan's corner away from its own corners hides none of them: all five are
    // read, each on its own outline, left to right.
    let l = checked_fans();
    let line = line_of(l, "0009-younestouati-pattern-5.jpg");
    let check = &line["check"];
    assert_eq!(
        check["read"],
        json!(["JD", "9H", "6C", "KD", "QC"]),
        "{line}"
    );
    assert_eq!(check["correct"].as_u64(), Some(5), "{line}");
    assert_eq!(check["spurious"].as_u64(), Some(0), "{line}");
    // Eight cards fanned on wood (frame 12): the ten and queen of clubs are read
    // as a row's strips, whose outlines, pieced together from the fan, hold its
    // corners; the three of spades is the fan's one new card. The fan reads the
    // two clubs again by their strips, which confirms them and takes the fan: the
    // three of spades is read, the clubs are kept, and nothing else is made up.
    reads_these_and_only_cards_of_the_fan(
        line_of(l, "0012-neoclassical-wood-8.jpg"),
        &["10C", "QC", "3S", "9D"],
    );
}

/// The check of `tests/data/fans`, run once for every test that reads it.
fn checked_fans() -> &'static [Value] {
    static FANS: OnceLock<Vec<Value>> = OnceLock::new();
    FANS.get_or_init(|| check_folder("tests/data/fans", &[]).0)
}

/// Asserts that a checked frame's reads hold every one of `cards` and nothing that
/// is not in its fan.
fn reads_these_and_only_cards_of_the_fan(line: &Value, cards: &[&str]) {
    let read = line["check"]["read"].as_array().unwrap();
    for card in cards {
        assert!(read.contains(&json!(card)), "{card} not read: {line}");
    }
    let expected = line["check"]["expected"].as_array().unwrap();
    assert!(read.iter().all(|c| expected.contains(c)), "{line}");
}

#[test]
fn a_small_fan_most_of_whose_cards_are_read_whole_is_still_taken() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let l = checked_fans();
    // Five cards fanned on a white cloth (frame 6): the seven of diamonds, the
    // ace of hearts and the two of clubs show enough to be read on their own
    // outlines, and the jack of diamonds is the fan's one new card. The fan
    // reads the two of clubs again beside its outline, which counts for the fan
    // as a new card would: the fan is taken and the jack read.
    reads_these_and_only_cards_of_the_fan(
        line_of(l, "0006-neoclassical-white-5.jpg"),
        &["7D", "JD", "AH", "2C"],
    );
}

#[test]
fn a_hand_spread_in_an_overlapping_row_is_read_from_its_uncovered_indices() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // Rows of 12 and 20 cards of a held-out design, of 12 of another on a
    // patterned cloth and of 20 of two more (one borderless), and a row of 16 of
    // a validation design, each card covering most of the one before it: all but
    // the top card show only a strip with their index.
    let (l, _) = check_folder("tests/data/spreads", &[]);
    let summary = &l.last().unwrap()["summary"];
    assert_eq!(summary["labelled"].as_u64(), Some(100), "{summary}");
    assert!(summary["correct"].as_u64().unwrap() >= 92, "{summary}");
    assert_eq!(summary["misread"].as_u64(), Some(0), "{summary}");
    assert!(summary["spurious"].as_u64().unwrap() <= 1, "{summary}");
    // The borderless row: the masks cut it into strips, and it is read only when
    // its whole outline is found beside them (2 of 20 cards before).
    let borderless = line_of(&l, "0033-borderless-green-20.jpg");
    assert!(
        borderless["check"]["correct"].as_u64().unwrap() >= 16,
        "{borderless}"
    );
    // The plastic deck's row: the masks cut out a few groups of strips, two of
    // them of a whole card's proportions, and its whole outline is found too; it
    // is read only when those groups are not taken for separate cards merged into
    // it (1 of 20 cards before).
    let plastic = line_of(&l, "0071-plastic-wood-20.jpg");
    assert!(
        plastic["check"]["correct"].as_u64().unwrap() >= 18,
        "{plastic}"
    );
    // The tight row of 16 on a dark cloth: the masks give it only as groups of
    // strips of a whole card's proportions and, whole, as an outline of a card's
    // proportions that swallows them, which was taken for cards merged through
    // their gaps until it was kept as a short row (2 of 16 cards read before).
    let short = line_of(&l, "val-0017-gnomangelo-bitmap-dark-16.jpg");
    assert!(short["check"]["correct"].as_u64().unwrap() >= 14, "{short}");
    // The row on a patterned cloth: scored only in the bands near the cards'
    // ends, where the strokes of an index reach too, its edges were found wrong;
    // the row's middle, which only the cards' edges cross, is now scored too (6
    // of 12 cards read before).
    let pattern = line_of(&l, "0054-neoclassical-pattern-12.jpg");
    assert!(
        pattern["check"]["correct"].as_u64().unwrap() >= 10,
        "{pattern}"
    );
    // The row of twelve is read whole, in order; the covered cards say so, and
    // their confidence is held to the one-corner threshold.
    let twelve = line_of(&l, "0019-four-colour-white-12.jpg");
    assert_eq!(
        twelve["check"]["sequence_ok"].as_bool(),
        Some(true),
        "{twelve}"
    );
    let cards = twelve["cards"].as_array().unwrap();
    let covered = cards
        .iter()
        .filter(|c| c["overlapped"].as_bool() == Some(true))
        .count();
    assert_eq!(covered, 11, "{twelve}");
    assert!(
        cards.last().unwrap().get("overlapped").is_none(),
        "the top card is whole"
    );
}

#[test]
fn court_cards_whose_art_runs_to_their_edges_are_read() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // Cards of the paris deck, whose court art runs to the cards' edges: a row of
    // four on a dark cloth, nineteen cards on a dotted green cloth, and three close
    // together on a cream cloth.
    let (l, _) = check_folder("tests/data/courts", &[]);
    let summary = &l.last().unwrap()["summary"];
    assert_eq!(summary["labelled"].as_u64(), Some(26), "{summary}");
    assert_eq!(summary["misread"].as_u64(), Some(0), "{summary}");
    // The jack of spades on the dark cloth is fitted on the colour axis from the
    // cloth to the paper (the row lost him before).
    let row = line_of(&l, "dark-seq4-paris.jpg");
    assert_eq!(row["check"]["sequence_ok"].as_bool(), Some(true), "{row}");
    assert_eq!(row["check"]["correct"].as_u64(), Some(4), "{row}");
    // On the dotted cloth the jack of spades is found in the opened cloth-distance
    // mask, and the jack of clubs, whose art the masks cut into two halves that
    // read as no card, from the outline around them (15 of 19 before), and the
    // queen of hearts by her outline of colour steps (17 of 19 before).
    let dotted = line_of(&l, "dotted-spread19-paris.jpg");
    assert!(
        dotted["check"]["correct"].as_u64().unwrap() >= 18,
        "{dotted}"
    );
    assert!(read_names(dotted).contains(&"JC".to_string()), "{dotted}");
    // On the cream cloth the jack of clubs is read from the outline around his
    // art, though the outline around all three cards overlaps it; his sides are
    // fitted on his own edges, not on the king's border beside him. (The king,
    // whose outline the masks join to the two of clubs', is still lost.)
    let cream = line_of(&l, "cream-seq3-paris.jpg");
    assert_eq!(read_names(cream), ["2C", "JC"], "{cream}");
    assert_eq!(cream["check"]["correct"].as_u64(), Some(2), "{cream}");
}

#[test]
fn cards_that_look_landscape_at_a_strong_slant_are_turned_and_read() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    // A camera far off vertical squashes the table: four portrait cards, squashed to
    // 45 % of their height, look wider than tall, so their outlines name the wrong
    // sides as the long ones until the recognizer reads them turned.
    let frame = image::open(scene("08-seq4-dark.jpg")).unwrap().to_rgb8();
    let squashed =
        image::imageops::resize(&frame, 1280, 324, image::imageops::FilterType::Triangle);
    let dir = tempfile::tempdir().unwrap();
    let photo = dir.path().join("slant.png");
    squashed.save(&photo).unwrap();
    write_names(
        &dir.path().join("slant.json"),
        &scene_cards("08-seq4-dark.json"),
    );
    let out = eleusis(&["recognize", "--check", "--json", photo.to_str().unwrap()]);
    let l = lines(&out);
    assert_eq!(l[0]["check"]["correct"].as_u64(), Some(4), "{}", l[0]);
    // The corners come back for the card as it lies: its long sides are the short
    // ones in the frame.
    for card in l[0]["cards"].as_array().unwrap() {
        let c = &card["corners"];
        let len = |a: usize, b: usize| {
            let (x0, y0) = (c[a][0].as_f64().unwrap(), c[a][1].as_f64().unwrap());
            let (x1, y1) = (c[b][0].as_f64().unwrap(), c[b][1].as_f64().unwrap());
            (x1 - x0).hypot(y1 - y0)
        };
        assert!(
            len(0, 1) > len(1, 2),
            "top side longer than the left side: {card}"
        );
    }
}

#[test]
fn save_cards_writes_each_card_as_the_model_saw_it() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let dir = tempfile::tempdir().unwrap();
    let cards_dir = dir.path().join("cards");
    // The same frame again from another folder: its cards must not overwrite the
    // first frame's.
    let twin = dir.path().join("07-seq3-wood.jpg");
    std::fs::copy(scene("07-seq3-wood.jpg"), &twin).unwrap();
    let out = eleusis(&[
        "recognize",
        "--json",
        "--save-cards",
        cards_dir.to_str().unwrap(),
        scene("07-seq3-wood.jpg").to_str().unwrap(),
        twin.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let l = lines(&out);
    let saved = sorted_file_names(&cards_dir);
    let expected = scene_cards("07-seq3-wood.json");
    let mut want = Vec::new();
    for prefix in ["07-seq3-wood", "07-seq3-wood~2"] {
        for (i, card) in expected.iter().enumerate() {
            want.push(format!("{prefix}-{:02}-{card}.png", i + 1));
        }
    }
    want.sort();
    assert_eq!(saved, want);
    // Each file is the upright card the model read: the rectification of the
    // reported outline (whose corners the JSON rounds to a tenth of a pixel), and
    // not its neighbour's.
    let frame = eleusis::vision::load_frame(&scene("07-seq3-wood.jpg")).unwrap();
    let reads = l[0]["cards"].as_array().unwrap();
    let rectified: Vec<image::RgbImage> = reads
        .iter()
        .map(|c| {
            let quad: eleusis::vision::Quad = serde_json::from_value(c["corners"].clone()).unwrap();
            eleusis::vision::rectify::rectify(&frame, &quad).unwrap()
        })
        .collect();
    for (i, card) in reads.iter().enumerate() {
        let name = format!("07-seq3-wood-{:02}-{}.png", i + 1, expected_name(card));
        let file = image::open(cards_dir.join(&name)).unwrap().to_rgb8();
        assert_eq!((file.width(), file.height()), (160, 224), "{name}");
        let own = mean_difference(&file, &rectified[i]);
        let other = mean_difference(&file, &rectified[(i + 1) % reads.len()]);
        assert!(
            own < 2.0 && other > 10.0 * own,
            "{name}: {own} against {other}"
        );
    }
}

/// Mean absolute difference of two images of one size, per channel value.
fn mean_difference(a: &image::RgbImage, b: &image::RgbImage) -> f64 {
    let sum: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    sum as f64 / a.as_raw().len() as f64
}

/// The names of the files in a folder, sorted.
fn sorted_file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The card name of a JSON read, with `-confirm` when it asks God.
fn expected_name(card: &Value) -> String {
    let name = card["card"].as_str().unwrap().to_string();
    if card["needs_confirmation"].as_bool().unwrap() {
        format!("{name}-confirm")
    } else {
        name
    }
}

#[test]
fn save_cards_marks_unsure_reads_and_works_without_a_model() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let dir = tempfile::tempdir().unwrap();
    let spread = scene("21-tilted-spread.jpg");
    let out = eleusis(&[
        "recognize",
        "--json",
        "--save-cards",
        dir.path().to_str().unwrap(),
        spread.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let reads = lines(&out)[0]["cards"].as_array().unwrap().clone();
    assert!(reads.iter().any(|c| c["needs_confirmation"] == true));
    for (i, card) in reads.iter().enumerate() {
        let name = format!("21-tilted-spread-{:02}-{}.png", i + 1, expected_name(card));
        assert!(dir.path().join(&name).is_file(), "{name}");
    }
    // Outlines alone, no model: one image per outline, named by position.
    let located = tempfile::tempdir().unwrap();
    let out = eleusis(&[
        "recognize",
        "--locate-only",
        "--json",
        "--model",
        "/nonexistent/model",
        "--save-cards",
        located.path().to_str().unwrap(),
        scene("07-seq3-wood.jpg").to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let saved = sorted_file_names(located.path());
    assert_eq!(
        saved,
        [
            "07-seq3-wood-01.png",
            "07-seq3-wood-02.png",
            "07-seq3-wood-03.png"
        ]
    );
}

#[test]
fn save_cards_into_a_path_that_is_a_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, b"x").unwrap();
    let err = stderr_of_status_2(&[
        "recognize",
        "--locate-only",
        "--save-cards",
        file.to_str().unwrap(),
        scene("07-seq3-wood.jpg").to_str().unwrap(),
    ]);
    assert!(
        err.contains("--save-cards") && err.contains("not-a-folder"),
        "{err}"
    );
}

/// A webcam's frames of the play zone, in order: the empty cloth three times, the
/// four-card sequence three times, the cloth again three times.
fn watch_folder(dir: &Path) {
    let cards = scene("08-seq4-dark.jpg");
    let image = image::open(&cards).expect("frame").to_rgb8();
    let cloth = image::RgbImage::from_pixel(image.width(), image.height(), *image.get_pixel(5, 5));
    for i in 0..9 {
        let path = dir.join(format!("{i:02}.png"));
        if (3..6).contains(&i) {
            std::fs::copy(&cards, path.with_extension("jpg")).expect("copy");
        } else {
            cloth.save(&path).expect("png");
        }
    }
}

/// `--confirm-courts`, for a deck whose court letters are not J, Q, K: a king
/// read surely asks God, the number cards beside it do not.
#[test]
fn confirm_courts_asks_about_every_court_card_and_only_those() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let frame = scene("09-seq3-pattern.jpg");
    let frame = frame.to_str().unwrap();
    let asks = |extra: &[&str]| -> Vec<(String, bool)> {
        let mut args = vec!["recognize", "--json"];
        args.extend_from_slice(extra);
        args.push(frame);
        lines(&eleusis(&args))[0]["cards"]
            .as_array()
            .expect("cards")
            .iter()
            .map(|c| {
                let asks = c["needs_confirmation"].as_bool().expect("flag");
                (c["card"].as_str().expect("card").to_string(), asks)
            })
            .collect()
    };
    let named = |cards: &[(&str, bool)]| -> Vec<(String, bool)> {
        cards.iter().map(|(c, a)| (c.to_string(), *a)).collect()
    };
    assert_eq!(
        asks(&[]),
        named(&[("8C", false), ("KH", false), ("5C", false)])
    );
    assert_eq!(
        asks(&["--confirm-courts"]),
        named(&[("8C", false), ("KH", true), ("5C", false)])
    );
    let out = eleusis(&["recognize", "--confirm-courts", frame]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("every court card asks God"), "{text}");
    assert!(text.contains("KH (100.00%, confirm)"), "{text}");
    let refused = eleusis(&["recognize", "--confirm-courts", "--locate-only", frame]);
    assert_eq!(refused.status.code(), Some(2));
}

/// A deck with German court letters: its queen's D read as a jack without asking.
/// The check says so and names `--confirm-courts`, with which she asks God.
#[test]
fn a_check_of_a_deck_with_other_court_letters_names_confirm_courts() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let frame = root().join("tests/data/letters/purple-seq3-rheinland.jpg");
    let frame = frame.to_str().unwrap();
    let out = eleusis(&["recognize", "--check", frame]);
    let text = String::from_utf8_lossy(&out.stdout);
    let totals = text.lines().last().expect("totals");
    assert!(
        totals.contains(
            "1 of the misreads without asking are court cards: run with --confirm-courts"
        ),
        "{text}"
    );
    let summary = |extra: &[&str]| -> Value {
        let mut args = vec!["recognize", "--check", "--json"];
        args.extend_from_slice(extra);
        args.push(frame);
        lines(&eleusis(&args)).last().expect("summary")["summary"].clone()
    };
    let plain = summary(&[]);
    assert_eq!(
        (
            &plain["misread_confident"],
            &plain["misread_confident_courts"]
        ),
        (&json!(1), &json!(1)),
        "{plain}"
    );
    let courts = summary(&["--confirm-courts"]);
    assert_eq!(courts["confirm_courts"], json!(true), "{courts}");
    assert_eq!(courts["misread_confident"], json!(0), "{courts}");
    assert!(courts.get("misread_confident_courts").is_none(), "{courts}");
    assert_eq!(courts["misread"], json!(1), "{courts}");
    let out = eleusis(&["recognize", "--check", "--confirm-courts", frame]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("run with --confirm-courts"), "{text}");
}

#[test]
fn watch_mode_does_not_lay_a_play_again_when_it_is_back_after_a_moment_hidden() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let dir = tempfile::tempdir().expect("dir");
    watch_folder(dir.path());
    // Seen empty for three frames (a hand held over it), then back as it was.
    let cards = scene("08-seq4-dark.jpg");
    for i in 9..12 {
        std::fs::copy(&cards, dir.path().join(format!("{i:02}.jpg"))).expect("copy");
    }
    let folder = dir.path().display().to_string();
    let lines = lines(&eleusis(&["recognize", "--watch", "--json", &folder]));
    let laid = lines.iter().filter(|l| !l["laid"].is_null()).count();
    assert_eq!(laid, 1, "{lines:?}");
    assert_eq!(lines[8]["cleared"], true, "{lines:?}");
    let uncovered: Vec<&Value> = lines.iter().filter(|l| l["uncovered"] == true).collect();
    assert_eq!(uncovered.len(), 1, "{lines:?}");
    assert!(uncovered[0]["file"].as_str().unwrap().ends_with("11.jpg"));
    assert_eq!(lines[11]["phase"], "laid", "{lines:?}");
    let out = eleusis(&["recognize", "--watch", &folder]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("11.jpg: laid (4 in the zone); the last play is back where it lay"),
        "{text}"
    );
    assert!(text.ends_with("1 plays laid in 12 frames\n"), "{text}");
}

#[test]
fn watch_mode_counts_a_card_no_index_can_be_read_on_as_part_of_the_play() {
    assert!(has_model(), "the committed model models/recognizer.onnx");
    let dir = tempfile::tempdir().expect("dir");
    let shadow = root().join("tests/data/shadow/73-0047-eight-slant.jpg");
    let image = image::open(&shadow).expect("frame").to_rgb8();
    let felt = image::RgbImage::from_pixel(image.width(), image.height(), *image.get_pixel(5, 5));
    for i in 0..6 {
        let path = dir.path().join(format!("{i:02}.png"));
        if i < 3 {
            felt.save(&path).expect("png");
        } else {
            std::fs::copy(&shadow, path.with_extension("jpg")).expect("copy");
        }
    }
    let folder = dir.path().display().to_string();
    let out = eleusis(&["recognize", "--watch", "--json", &folder]);
    let lines = lines(&out);
    let laid = &lines[5];
    assert_eq!(laid["phase"], "laid", "{lines:?}");
    assert_eq!(laid["laid"].as_array().unwrap().len(), 7, "{laid}");
    assert_eq!(laid["laid_unreadable"], 1, "{laid}");
    assert_eq!(laid["unreadable"], 1, "{laid}");
    // A zone around the shadowed two of diamonds alone: a play of it settles.
    let out = eleusis(&[
        "recognize",
        "--watch",
        "--zone",
        "0.45,0.22,0.56,0.37",
        &folder,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "05.jpg: laid (0 in the zone, 1 unreadable, 7 outside); play laid: 1 card-shaped outline(s) not read\n"
        ),
        "{text}"
    );
}

#[test]
fn watch_mode_reports_a_play_once_when_it_settles_and_the_clear_after_it() {
    if !has_model() {
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    watch_folder(dir.path());
    let folder = dir.path().display().to_string();
    let out = eleusis(&["recognize", "--watch", "--json", &folder]);
    assert!(out.status.success(), "{out:?}");
    let lines = lines(&out);
    let phases: Vec<&str> = lines
        .iter()
        .map(|l| l["phase"].as_str().expect("phase"))
        .collect();
    assert_eq!(
        phases,
        ["moving", "moving", "clear", "clear", "moving", "laid", "laid", "moving", "clear"]
    );
    let laid: Vec<&Value> = lines.iter().filter(|l| !l["laid"].is_null()).collect();
    assert_eq!(laid.len(), 1, "{lines:?}");
    assert_eq!(laid[0]["laid"], json!(["4D", "4H", "8C", "5H"]));
    assert!(laid[0]["file"].as_str().expect("file").ends_with("05.jpg"));
    assert_eq!(laid[0]["laid_from"], laid[0]["file"], "{:?}", laid[0]);
    assert_eq!(lines[8]["cleared"], true);

    // Text, with a zone holding the sequence's first card only.
    let out = eleusis(&["recognize", "--watch", "--zone", "0,0,0.26,1", &folder]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("05.jpg: laid (1 in the zone, 3 outside); play laid: 4D\n"),
        "{text}"
    );
    assert!(text.ends_with("1 plays laid in 9 frames\n"), "{text}");

    // A zone that is not one is refused before anything is read.
    let bad = eleusis(&["recognize", "--watch", "--zone", "0.5,0,0.4,1", &folder]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("x0 < x1"),
        "{bad:?}"
    );
}
