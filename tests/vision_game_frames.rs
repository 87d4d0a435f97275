//! A game's evidence frames as the table's own check set: `eleusis export ID
//! --frames DIR` writes each play's frame with a sidecar naming its cards as the
//! game holds them (corrections applied) and the zone around them, and
//! `eleusis recognize --check DIR` scores the recognizer on them, the other cards
//! in view set aside.

mod store_support;

use std::path::Path;

use serde_json::Value;
use store_support::{eleusis, record};

/// The committed frame of four cards, 4D 4H 8C 5H left to right.
const FRAME: &str = "tests/data/scenes/08-seq4-dark.jpg";

const CORNERS_4H: &str = "[[375.8,168.3],[481.2,196.3],[442.8,358.3],[333.2,329.6]]";
const CORNERS_8C: &str = "[[500.1,207.8],[607.6,186.5],[631.7,347.4],[515.7,367.1]]";
const CORNERS_5H: &str = "[[648.3,201.6],[766.6,197.1],[772.6,346.6],[655.7,361.7]]";

/// A round whose first play (4H 8C 5H) was read from the frame, with 4D lying
/// beside it on the table: 4H read as it is, 8C read as 8S and recorded so, then
/// corrected by a later event, 5H typed by God on an outline no index was read on.
/// The second play kept only a reference to a frame archived elsewhere.
fn game_log() -> Vec<String> {
    vec![
        r#"{"event":"round","variant":"basic","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"AH"}"#.to_string(),
        format!(
            r#"{{"event":"play","player":"Ana","cards":["4H","8S","5H"],"evidence":{{"frame":"f.jpg","reads":[{{"read":"4H","confidence":0.99,"corners":{CORNERS_4H}}},{{"read":"8S","confidence":0.61,"corners":{CORNERS_8C}}},{{"read":null,"confidence":0,"corners":{CORNERS_5H}}}]}}}}"#
        ),
        r#"{"event":"play","player":"Bo","cards":["6H"],"evidence":{"frame_ref":"cam1/0012"}}"#.to_string(),
        r#"{"event":"correct","seq":2,"cards":["4H","8C","5H"]}"#.to_string(),
    ]
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `eleusis export ID --frames OUT --db DB EXTRA…`.
fn export_frames(id: &str, out: &Path, db: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "export",
        id,
        "--frames",
        out.to_str().expect("p"),
        "--db",
        db,
    ];
    args.extend_from_slice(extra);
    eleusis(&args, "")
}

fn recorded_game(dir: &Path) -> String {
    let frames = dir.join("captures");
    std::fs::create_dir(&frames).expect("dir");
    std::fs::copy(FRAME, frames.join("f.jpg")).expect("frame");
    let db = dir.join("club.db");
    let (_, output) = record(&db, &game_log(), &["--frames", frames.to_str().expect("p")]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    db.to_str().expect("p").to_string()
}

#[test]
fn a_games_frames_check_the_recognizer_on_the_plays_as_recorded() {
    let dir = tempfile::tempdir().expect("dir");
    let db = recorded_game(dir.path());
    let out = dir.path().join("checks");
    let out_arg = out.to_str().expect("p");

    let export = export_frames("1", &out, &db, &[]);
    assert!(export.status.success(), "{}", text(&export.stderr));
    let said = text(&export.stdout);
    assert!(
        said.contains("wrote 1 frame of game 1")
            && said.contains("3 cards")
            && said.contains("God confirmed 1, corrected 1, typed 1"),
        "{said}"
    );
    assert!(
        said.contains("not exported: round 1.1 event 3: its frame is kept elsewhere (cam1/0012)"),
        "{said}"
    );
    let image = out.join("round-1.1-event-002.jpg");
    assert_eq!(
        std::fs::read(&image).expect("frame written"),
        std::fs::read(FRAME).expect("frame"),
        "the frame is the stored one, byte for byte"
    );
    let sidecar: Value =
        serde_json::from_slice(&std::fs::read(out.join("round-1.1-event-002.json")).expect("json"))
            .expect("sidecar JSON");
    assert_eq!(sidecar["cards"], serde_json::json!(["4H", "8C", "5H"]));
    let statuses: Vec<&str> = sidecar["meta"]["reads"]
        .as_array()
        .expect("reads")
        .iter()
        .map(|r| r["status"].as_str().expect("status"))
        .collect();
    assert_eq!(statuses, ["confirmed", "corrected", "typed"]);
    assert_eq!(sidecar["meta"]["reads"][1]["read"], "8S");
    assert_eq!(
        sidecar["meta"]["reads"][1]["corners"],
        serde_json::from_str::<Value>(CORNERS_8C).expect("corners")
    );
    assert_eq!(sidecar["meta"]["player"], "Ana");
    // The zone holds the play and not 4D, whose centre is at x 259 of 1280.
    let zone: Vec<f64> = sidecar["zone"]
        .as_array()
        .expect("zone")
        .iter()
        .map(|v| v.as_f64().expect("number"))
        .collect();
    assert!(
        zone[0] > 259.0 / 1280.0 && zone[0] < 333.0 / 1280.0,
        "{zone:?}"
    );
    assert!(zone[2] > 772.6 / 1280.0, "{zone:?}");

    // The check reads the play right and sets 4D aside.
    let check = eleusis(&["recognize", "--check", "--json", out_arg], "");
    assert!(
        check.status.success(),
        "{}{}",
        text(&check.stdout),
        text(&check.stderr)
    );
    let lines: Vec<Value> = text(&check.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let frame = &lines[0]["check"];
    assert_eq!(frame["correct"], 3, "{frame}");
    assert_eq!(frame["outside_zone"], 1, "{frame}");
    assert_eq!(frame["spurious"], 0, "{frame}");
    let summary = &lines[1]["summary"];
    assert_eq!(
        (summary["correct"].as_u64(), summary["labelled"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(summary["outside_zone"], 1);
    let check = eleusis(&["recognize", "--check", out_arg], "");
    assert!(
        text(&check.stdout)
            .contains("right 3, misread 0, spurious 0, by order, 1 outside the zone"),
        "{}",
        text(&check.stdout)
    );

    // Without its zone the same frame counts 4D as a card read where none is named.
    let mut whole = sidecar.clone();
    whole.as_object_mut().expect("object").remove("zone");
    std::fs::write(out.join("round-1.1-event-002.json"), whole.to_string()).expect("rewrite");
    let check = eleusis(&["recognize", "--check", out_arg], "");
    let said = text(&check.stdout);
    assert!(
        said.contains("FAIL") && said.contains("spurious 1"),
        "{said}"
    );
}

#[test]
fn a_round_without_stored_frames_exports_nothing_and_says_why() {
    let dir = tempfile::tempdir().expect("dir");
    let db = recorded_game(dir.path());
    let out = dir.path().join("none");
    // Round 1.1's only frame is exported by the round too.
    let round = export_frames("1.1", &out, &db, &[]);
    assert!(round.status.success(), "{}", text(&round.stderr));
    assert!(out.join("round-1.1-event-002.json").is_file());
    std::fs::remove_dir_all(&out).expect("clean");

    // A game whose plays kept no frame: an error, and no folder made.
    let bare = dir.path().join("bare.db");
    let log: Vec<String> = game_log()
        .into_iter()
        .map(|l| l.replace(r#""frame":"f.jpg","#, ""))
        .collect();
    let (_, output) = record(&bare, &log, &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let none = export_frames("1", &out, bare.to_str().expect("p"), &[]);
    assert_eq!(none.status.code(), Some(2));
    let err = text(&none.stderr);
    assert!(
        err.contains("no play or no-play of game 1 kept a frame as evidence")
            && err.contains("cam1/0012"),
        "{err}"
    );
    assert!(!out.exists());

    // The frames mode takes no log, score or output options.
    let both = export_frames("1", &out, &db, &["--log"]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn a_card_added_by_a_correction_leaves_the_frame_without_a_zone() {
    // 8C and 5H were read and played; God then found 4H had been played with
    // them. The two reads no longer pair with the three cards: where 4H lies is
    // not known from them, so no zone (it could leave 4H out) and no statuses.
    let dir = tempfile::tempdir().expect("dir");
    let frames = dir.path().join("captures");
    std::fs::create_dir(&frames).expect("dir");
    std::fs::copy(FRAME, frames.join("f.jpg")).expect("frame");
    let db = dir.path().join("club.db");
    let log = vec![
        game_log()[0].clone(),
        format!(
            r#"{{"event":"play","player":"Ana","cards":["8C","5H"],"evidence":{{"frame":"f.jpg","reads":[{{"read":"8C","confidence":0.99,"corners":{CORNERS_8C}}},{{"read":"5H","confidence":0.98,"corners":{CORNERS_5H}}}]}}}}"#
        ),
        r#"{"event":"correct","seq":2,"cards":["4H","8C","5H"]}"#.to_string(),
    ];
    let (_, output) = record(&db, &log, &["--frames", frames.to_str().expect("p")]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = dir.path().join("checks");
    let export = export_frames("1", &out, db.to_str().expect("p"), &[]);
    assert!(export.status.success(), "{}", text(&export.stderr));
    let said = text(&export.stdout);
    assert!(
        said.contains("round 1.1 event 2: a correction changed how many cards it holds")
            && said.contains("God confirmed 0, corrected 0, typed 0"),
        "{said}"
    );
    let sidecar: Value =
        serde_json::from_slice(&std::fs::read(out.join("round-1.1-event-002.json")).expect("json"))
            .expect("sidecar JSON");
    assert_eq!(sidecar["cards"], serde_json::json!(["4H", "8C", "5H"]));
    assert!(sidecar.get("zone").is_none(), "{sidecar}");
    assert!(
        sidecar["meta"]["reads"][0].get("status").is_none(),
        "{sidecar}"
    );
    assert!(sidecar["meta"]["reads_note"].is_string(), "{sidecar}");
}
