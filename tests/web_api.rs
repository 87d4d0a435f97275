//! Drives a whole round through the live service's API, as the God console and the
//! tablet do: start, plays, a wrong play, evidence from a frame, a correction, the
//! reveal; the errors (bad JSON, illegal play, missing token, broken frame); the
//! WebSocket pushes; and a restart that must come back to the same state, both
//! in-process and with a real `eleusis serve` process stopped by SIGTERM. Then what
//! the API does with input that does not say one plain thing: evidence given as a
//! list of its values, values a megabyte long echoed in errors, a query parameter or
//! the token given twice, an enum field given an object, a lone surrogate.

mod web_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use web_support::{png_frame, request, Server};

const ROUND: &str = r#"{"god":"Pierre","players":["Alain","François","Jacques","Philippe"],"rule":"if last.odd then black else red","starter":"3H"}"#;
const RULE: &str = "if last.odd then black else red";

fn version(value: &Value) -> u64 {
    value["version"].as_u64().expect("version")
}

#[test]
fn a_round_through_the_api_with_pushes_errors_correction_reveal_and_restart() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("table.db");
    let server = Server::start(&db);

    // Pages: the tablet is public, the console needs the token.
    let tablet = server.get("/");
    assert_eq!(tablet.status, 200);
    assert!(tablet.text().contains("eleusis.js"), "{}", tablet.text());
    assert_eq!(server.get("/god").status, 401);
    assert_eq!(
        server.get(&format!("/god?token={}", server.token)).status,
        200
    );
    assert_eq!(server.get("/static/nothing.js").status, 404);
    // Any other address says there is no such page and names the pages there are,
    // its path escaped.
    let missing = server.get("/scores%3Cb%3E");
    assert_eq!(missing.status, 404);
    assert!(
        missing
            .text()
            .contains("no page at <code>/scores%3Cb%3E</code>")
            && missing.text().contains("/audit"),
        "{}",
        missing.text()
    );
    // The token page also speaks to a table that started `eleusis demo`.
    assert!(
        server.get("/god").text().contains("eleusis demo"),
        "{}",
        server.get("/god").text()
    );
    // An old link whose token is not this service's is told so.
    let stale = server.get("/god?token=from-before-the-restart");
    assert_eq!(stale.status, 401);
    assert!(
        stale.text().contains("not this service's"),
        "{}",
        stale.text()
    );
    assert!(server.get("/god").text().contains("needs the God token"));
    // A frame over the body limit is refused saying which limit.
    let huge = server.post_bytes("/api/frames", &vec![0u8; eleusis::web::MAX_BODY + 1]);
    let body = huge.expect(413);
    assert!(
        body["error"]
            .as_str()
            .expect("error")
            .contains("24 MiB limit"),
        "{body}"
    );

    // Ending a game before any round: refused as a play would be, nothing stored.
    let early = server.post("/api/end-game", "{}").expect(422);
    assert!(
        early["error"]
            .as_str()
            .is_some_and(|e| e.contains("no round has started")),
        "{early}"
    );

    // God's routes without the token: 401 with a JSON error.
    let refused = server.post_public("/api/rounds", ROUND);
    let body = refused.expect(401);
    assert!(body["error"].as_str().expect("error").contains("God token"));
    assert_eq!(server.get("/api/rounds").expect(200)["rounds"], json!([]));

    // The rule checker: a parse error says line and column, a good rule gets a report.
    let bad = server
        .post("/api/rule/check", r#"{"rule":"if last.odd then black"}"#)
        .expect(200);
    assert_eq!(bad["ok"], false);
    assert_eq!(bad["error"]["line"], 1);
    assert!(
        bad["error"]["column"].as_u64().expect("column") > 1,
        "{bad}"
    );
    let good = server
        .post("/api/rule/check", &json!({ "rule": RULE }).to_string())
        .expect(200);
    assert_eq!(good["ok"], true, "{good}");
    let mean = good["report"]["acceptance"]["mean"].as_f64().expect("mean");
    assert!((0.3..0.7).contains(&mean), "{mean}");
    assert!(
        good["report"]["starters"]
            .as_array()
            .expect("starters")
            .len()
            == 52
    );
    // A misspelt or mistyped field is refused, not taken for the default.
    for (body, field) in [
        (r#"{"rule":"red","analyze":false}"#, "analyze"),
        (r#"{"rule":"red","analyse":"false"}"#, "analyse"),
        (r#"{"rule":"red","analyse":0}"#, "analyse"),
    ] {
        let refused = server.post("/api/rule/check", body).expect(400);
        assert!(
            refused["where"].as_str().is_some_and(|w| w.contains(field)),
            "{body}: {refused}"
        );
    }
    // A pasted page is parsed, but not analysed on every keystroke.
    let long = vec!["red"; 5000].join(" or ");
    let too_long = server
        .post("/api/rule/check", &json!({ "rule": long }).to_string())
        .expect(413);
    assert!(
        too_long["error"]
            .as_str()
            .is_some_and(|e| e.contains("too long to analyse") && e.contains("\"analyse\": false")),
        "{too_long}"
    );
    let parsed = server
        .post(
            "/api/rule/check",
            &json!({ "rule": long, "analyse": false }).to_string(),
        )
        .expect(200);
    assert_eq!(parsed, json!({"ok": true}));

    // The tablet's socket gets the empty table at once.
    let mut tablet_ws = server.ws(false);
    let mut god_ws = server.ws(true);
    let first = tablet_ws.next_view(&server.rt);
    assert_eq!(first["round"], Value::Null);
    god_ws.next_view(&server.rt);

    // Start the round: the commitment is public, the rule is not.
    let started = server.post("/api/rounds", ROUND).expect(200);
    let commitment = started["ack"]["commitment"]
        .as_str()
        .expect("commitment")
        .to_string();
    assert_eq!(started["ack"]["round"], "1.1");
    let view = tablet_ws.view_from(&server.rt, version(&started));
    assert_eq!(view["seal"]["commitment"], commitment.as_str());
    assert_eq!(
        view["state"]["turn"], "Jacques",
        "3H: third player from God's left"
    );
    assert!(!view.to_string().contains(RULE), "the rule leaked: {view}");
    let god_view = god_ws.view_from(&server.rt, version(&started));
    assert_eq!(god_view["rule"], RULE);

    // A wrong card: the push carries the verdict and penalty, without the explanation.
    let wrong = server.post("/api/plays", r#"{"cards":["8H"]}"#).expect(200);
    assert_eq!(wrong["ack"]["right"], false);
    assert!(
        wrong["last"]["text"]
            .as_str()
            .expect("God's trace")
            .contains("must be black"),
        "God sees the explanation: {wrong}"
    );
    let view = tablet_ws.view_from(&server.rt, version(&wrong));
    assert_eq!(view["last"]["right"], false);
    assert_eq!(view["last"]["player"], "Jacques");
    assert_eq!(view["last"]["outcome"]["penalties"][0]["cards"], 2);
    assert_eq!(view["layout"][0]["side"][0][0]["card"], "8H");
    assert_eq!(view["state"]["hands"]["Jacques"], 15);
    let text = view.to_string();
    assert!(
        !text.contains("must be black") && !text.contains("explanation"),
        "{text}"
    );
    let public_state = server.get("/api/state").expect(200);
    assert!(!public_state.to_string().contains("must be black"));

    // A right sequence, then a right card with a frame as evidence.
    let seq = server
        .post(
            "/api/plays",
            r#"{"player":"Philippe","cards":["4S","9D","JC"]}"#,
        )
        .expect(200);
    assert_eq!(seq["ack"]["right"], true);
    let frame = server.post_bytes("/api/frames", &png_frame()).expect(200);
    let frame_id = frame["frame"].as_str().expect("frame id").to_string();
    assert_eq!(frame["width"], 320);
    assert_eq!(frame["recognized"], false, "no recognizer in this test");
    assert_eq!(
        frame["warnings"],
        json!([]),
        "a well-exposed frame: {frame}"
    );
    // A blown-out white cloth is reported, recognizer or not.
    let white = {
        let image = image::RgbImage::from_pixel(320, 240, image::Rgb([255, 255, 254]));
        let mut out = std::io::Cursor::new(Vec::new());
        image
            .write_to(&mut out, image::ImageFormat::Png)
            .expect("png");
        out.into_inner()
    };
    // The card cut from the frame along given corners, upright, as PNG: the white
    // rectangle of the frame comes out white, the cloth beside it green.
    let cut = |corners: &str| server.get(&format!("/api/frames/{frame_id}/card?corners={corners}"));
    let card = cut("131,61,214,61,214,178,131,178");
    assert_eq!(card.status, 200, "{}", String::from_utf8_lossy(&card.body));
    assert!(card.headers.to_ascii_lowercase().contains("image/png"));
    let card = image::load_from_memory(&card.body)
        .expect("a PNG")
        .to_rgb8();
    assert_eq!((card.width(), card.height()), (160, 224));
    let mean = |img: &image::RgbImage, c: usize| {
        img.pixels().map(|p| f64::from(p[c])).sum::<f64>() / f64::from(img.width() * img.height())
    };
    assert!(
        mean(&card, 0) > 240.0 && mean(&card, 1) > 240.0,
        "a white card"
    );
    let cloth = image::load_from_memory(&cut("10,10,80,10,80,110,10,110").body)
        .expect("a PNG")
        .to_rgb8();
    assert!(
        mean(&cloth, 1) > 100.0 && mean(&cloth, 0) < 40.0,
        "green cloth"
    );
    for (corners, says) in [
        ("", "give the card's corners"),
        ("1,2,3", "8 numbers"),
        ("1,2,3,4,5,6,7,x", "is not a number"),
        ("0,0,10,0,10,10,0,5000", "far outside the 320 × 240 frame"),
        ("5,5,5,5,5,5,5,5", "degenerate"),
    ] {
        let bad = cut(corners);
        assert_eq!(bad.status, 400, "{corners}");
        assert!(
            String::from_utf8_lossy(&bad.body).contains(says),
            "{corners}: {}",
            String::from_utf8_lossy(&bad.body)
        );
    }
    server
        .get(&format!(
            "/api/frames/{}/card?corners=1,1,9,1,9,9,1,9",
            "0".repeat(64)
        ))
        .expect(404);
    server
        .get("/api/frames/zz/card?corners=1,1,9,1,9,9,1,9")
        .expect(400);
    let blown = server.post_bytes("/api/frames", &white).expect(200);
    assert_eq!(blown["warnings"][0]["kind"], "overexposed", "{blown}");
    assert!(
        blown["warnings"][0]["text"]
            .as_str()
            .expect("text")
            .contains("lower the camera's exposure"),
        "{blown}"
    );
    let with_evidence = server
        .post(
            "/api/plays",
            &json!({"cards": ["5S"], "evidence": {"frame": frame_id, "reads": [{"read": "5C", "confidence": 0.42}]}})
                .to_string(),
        )
        .expect(200);
    assert_eq!(with_evidence["ack"]["right"], true);
    let jpeg = server.get(&format!("/api/frames/{frame_id}"));
    assert_eq!(jpeg.status, 200);
    assert!(jpeg.body.starts_with(&[0xFF, 0xD8, 0xFF]));
    assert!(jpeg.headers.to_ascii_lowercase().contains("image/jpeg"));

    // Errors: nothing stored, state intact.
    let before = server.get("/api/state").expect(200);
    let not_turn = server
        .post("/api/plays", r#"{"player":"Alain","cards":["2H"]}"#)
        .expect(422);
    assert!(
        not_turn["error"]
            .as_str()
            .expect("error")
            .contains("François's turn"),
        "{not_turn}"
    );
    let too_long = server
        .post("/api/plays", r#"{"cards":["2H","3H","4H","5H","6H"]}"#)
        .expect(422);
    assert!(too_long["error"]
        .as_str()
        .expect("error")
        .contains("2 to 4"));
    let bad_card = server.post("/api/plays", r#"{"cards":["1X"]}"#).expect(422);
    assert!(bad_card["error"].as_str().expect("error").contains("1X"));
    let bad_json = server.post("/api/plays", r#"{"cards":["2H""#).expect(400);
    assert!(
        bad_json["where"]
            .as_str()
            .expect("where")
            .contains("column"),
        "{bad_json}"
    );
    server.post("/api/plays", "[1,2]").expect(400);
    server.post("/api/plays", "").expect(400);
    // A key given twice is refused, not resolved by keeping the last (9H).
    let twice = server
        .post("/api/plays", r#"{"cards":["2S"],"cards":["9H"]}"#)
        .expect(400);
    assert_eq!(twice["error"], r#"duplicate field "cards""#, "{twice}");
    let twice = server
        .post(
            "/api/plays",
            r#"{"cards":["2S"],"evidence":{"frame_ref":"a","frame_ref":"b"}}"#,
        )
        .expect(400);
    assert_eq!(
        twice["error"], r#"field "evidence": duplicate field "frame_ref""#,
        "{twice}"
    );
    // A value of the wrong shape names its field (and the card in a list), in the
    // words of the table log rather than Rust's.
    let shapes = [
        (
            "/api/plays",
            r#"{"cards":"8S"}"#,
            422,
            r#"field "cards": expected a list, got the string "8S""#,
        ),
        (
            "/api/no-plays",
            r#"{"hand":["2S","3S","1X"]}"#,
            422,
            r#"field "hand", card 3: "1X": unknown suit 'X' (expected one of S H D C or ♠ ♥ ♦ ♣)"#,
        ),
        (
            "/api/rounds",
            r#"{"god":"G","players":["A","B"],"rule":"true","starter":"3H","hand_size":"7"}"#,
            422,
            r#"field "hand_size": expected a whole number, got the string "7""#,
        ),
        (
            "/api/plays",
            r#"{"cards":["2S"],"evidence":"x"}"#,
            400,
            r#"field "evidence": expected an object, got the string "x""#,
        ),
        (
            "/api/plays",
            r#"{"cards":["2S"],"evidence":{"reads":[{"read":"2S","confidence":"high"}]}}"#,
            400,
            r#"field "evidence.reads", item 1, field "confidence": expected a number, got the string "high""#,
        ),
    ];
    for (route, body, status, expected) in shapes {
        let refused = server.post(route, body).expect(status);
        assert_eq!(refused["error"], expected, "{route} {body}");
    }
    let broken = server
        .post_bytes("/api/frames", b"\x89PNG\r\n\x1a\nbroken")
        .expect(400);
    assert!(broken["error"]
        .as_str()
        .expect("error")
        .contains("uploaded frame"));
    server.post_bytes("/api/frames", b"").expect(400);
    assert_ne!(server.get("/api/frames/../../etc/passwd").status, 200);
    server.get("/api/frames/zz").expect(400);
    server
        .get(&format!("/api/frames/{}", "0".repeat(64)))
        .expect(404);
    server
        .post(
            "/api/plays",
            &json!({"cards": ["2H"], "evidence": {"frame": "../x"}}).to_string(),
        )
        .expect(400);
    server.get("/api/audit/nonsense").expect(400);
    let unknown = server.get("/api/nothing-here").expect(404);
    assert_eq!(unknown["where"], "GET /api/nothing-here");
    server.get("/api/plays").expect(405);
    server.get("/api/audit/9.9").expect(404);
    let after = server.get("/api/state").expect(200);
    assert_eq!(before, after, "refused requests changed the state");

    // Sealed: the public cannot export the log yet; God can.
    server.get("/api/export/1.1/log").expect(403);
    assert_eq!(server.get_god("/api/export/1.1/log").status, 200);

    // A correction: the misread 8H was an 8S; later verdicts change and are flagged.
    let fixed = server
        .post("/api/corrections", r#"{"seq":2,"cards":["8S"]}"#)
        .expect(200);
    let changed: Vec<&str> = fixed["ack"]["changed"]
        .as_array()
        .expect("changed")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(changed.contains(&"1.1:2"), "{changed:?}");
    let view = tablet_ws.view_from(&server.rt, version(&fixed));
    assert_eq!(view["state"]["main"][1], "8S");
    let plays = view["plays"].as_array().expect("plays");
    let corrected = plays.iter().find(|p| p["seq"] == 2).expect("event 2");
    assert_eq!(corrected["corrected"], true);
    assert!(plays.iter().any(|p| p["changed"] == true), "{plays:?}");
    // The sequence is wrong now; the public is not told which card failed.
    let sequence = plays.iter().find(|p| p["seq"] == 3).expect("event 3");
    assert_eq!(sequence["right"], false, "{sequence}");
    assert!(sequence["outcome"].get("verdicts").is_none(), "{sequence}");
    // The round's corrections, each under its own number, for the console's log.
    let corrections = view["corrections"].as_array().expect("corrections");
    assert_eq!(corrections.len(), 1, "{corrections:?}");
    assert_eq!(corrections[0]["target"], "1.1:2", "{corrections:?}");
    assert_eq!(corrections[0]["target_seq"], 2, "{corrections:?}");
    assert_eq!(
        corrections[0]["fields"]["cards"],
        json!(["8S"]),
        "{corrections:?}"
    );
    assert_eq!(
        corrections[0]["seq"], fixed["ack"]["seq"],
        "{corrections:?}"
    );
    server
        .post("/api/corrections", r#"{"seq":99,"cards":["8S"]}"#)
        .expect(422);

    // The audit: reads, frame, chain; explanations withheld from the public.
    let audit = server.get("/api/audit/1.1").expect(200);
    assert_eq!(audit["chain"]["ok"], true);
    let events = audit["rounds"][0]["events"].as_array().expect("events");
    let evidenced = events.iter().find(|e| e["seq"] == 4).expect("event 4");
    assert_eq!(evidenced["reads"][0]["read"], "5C");
    assert_eq!(evidenced["reads"][0]["status"], "corrected");
    assert_eq!(evidenced["frame"]["sha256"], frame_id.as_str());
    assert_eq!(evidenced["explanations_withheld"], true);
    let god_audit = server.get_god("/api/audit/1.1").expect(200);
    assert_eq!(
        god_audit["rounds"][0]["events"][3]["explanations_withheld"],
        false
    );

    // A new game while this one is in play is refused: the round would never end
    // and its rule never be revealed.
    let mut fresh: Value = serde_json::from_str(ROUND).expect("round");
    fresh["new_game"] = json!(true);
    let refused = server.post("/api/rounds", &fresh.to_string()).expect(422);
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("game 1 has not ended")),
        "{refused}"
    );
    assert_eq!(server.get("/api/state").expect(200)["round"], "1.1");

    // End the game: the rule and salt are revealed and re-hash to the commitment.
    let ended = server.post("/api/end-game", "").expect(200);
    assert_eq!(ended["ack"]["reveal"]["rule"], RULE);
    let view = tablet_ws.view_from(&server.rt, version(&ended));
    assert_eq!(view["seal"]["revealed"]["verified"], true);
    assert_eq!(view["seal"]["revealed"]["rule"], RULE);
    assert_eq!(view["game_over"], true);
    assert!(
        view.to_string().contains("explanation"),
        "explanations after the reveal"
    );
    let totals = &view["state"]["game"]["totals"];
    assert_eq!(totals["Alain"], 10, "not-God bonus: {totals}");

    // The exported log replays to the state the service shows.
    let log = server.get("/api/export/1.1/log");
    assert_eq!(log.status, 200);
    let (replayed, _) = eleusis::referee::replay(log.text().lines()).expect("the export replays");
    assert_eq!(
        serde_json::to_value(&replayed).expect("state")["main"],
        view["state"]["main"]
    );
    let csv = server.get("/api/export/1/scores?format=csv");
    assert_eq!(csv.status, 200);
    assert!(csv.text().contains("not-God bonus"), "{}", csv.text());
    server.get("/api/export/1.1/scores").expect(400);
    // The season sheet: game 1 was ended during its first round, so it scored
    // nothing to compare (the not-God bonus alone): named, not counted.
    let season = server.get("/api/export/season?format=csv");
    assert_eq!(season.status, 200);
    assert_eq!(
        season.text(),
        "game,date,rounds,variant,status\ngames,,,,\nwins,,,,\ntotal,,,,\n"
    );
    let page = server.get("/api/export/season?since=2000-01-01");
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains("Eleusis — season from 2000-01-01")
            && page
                .text()
                .contains("Not counted (no round finished): game 1."),
        "{}",
        page.text()
    );
    let bad = server.get("/api/export/season?since=yesterday").expect(400);
    assert_eq!(
        bad["error"],
        "\"yesterday\" is not a day: write it as YYYY-MM-DD, like 2026-09-01"
    );
    assert_eq!(bad["where"], "GET /api/export/season: since");
    let reversed = server
        .get("/api/export/season?since=2026-10-01&until=2026-09-01")
        .expect(400);
    assert_eq!(
        reversed["error"],
        "since 2026-10-01 is after until 2026-09-01: no game can be in between"
    );
    let rounds = server.get("/api/rounds").expect(200);
    assert_eq!(rounds["rounds"][0]["round"], "1.1");
    assert!(rounds["rounds"][0]["revealed"].is_string());

    // A new round after the game ended opens game 2.
    let second = server.post("/api/rounds", ROUND).expect(200);
    assert_eq!(second["ack"]["round"], "2.1");
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    let state_before = server.get_god("/api/state").expect(200);
    server.stop();

    // Restart on the same database: the same state, rebuilt from the stored log.
    let server = Server::start(&db);
    let state_after = server.get_god("/api/state").expect(200);
    assert_eq!(state_after["state"], state_before["state"]);
    assert_eq!(state_after["layout"], state_before["layout"]);
    assert_eq!(state_after["seal"], state_before["seal"]);
    assert_eq!(state_after["round"], "2.1");
    // And play goes on from there.
    let next = server.post("/api/plays", r#"{"cards":["9D"]}"#).expect(200);
    assert_eq!(next["ack"]["seq"], 3);
    server.stop();
}

#[test]
fn the_table_may_post_only_its_own_events() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("t.db"));
    let refused = server.post_public("/api/table/events", r#"{"event":"play","cards":["8H"]}"#);
    assert_eq!(refused.status, 401, "{}", refused.text());
    server.post_public("/api/table/events", "nope").expect(400);
    let variants = server.get("/api/variants").expect(200);
    for script in variants["scripts"].as_array().expect("scripts") {
        let path = script.as_str().expect("path");
        assert!(path.starts_with("/static/variant-"), "{path}");
        assert_eq!(server.get(path).status, 200, "{path}");
    }
    server.stop();
}

/// `serve --confirm-threshold`: a table's stricter threshold is named at start; one
/// below the model's own stops the service before it listens, saying why.
#[test]
fn a_serve_process_takes_a_stricter_confirmation_threshold_only() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("threshold.db");
    let serve = |threshold: &str| {
        Command::new(env!("CARGO_BIN_EXE_eleusis"))
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--confirm-threshold",
                threshold,
            ])
            .arg("--db")
            .arg(&db)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn eleusis serve")
    };
    let refused = serve("0.5").wait_with_output().expect("wait");
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("--confirm-threshold: 0.5 is below the model's own"),
        "{err}"
    );

    let mut child = serve("0.99999");
    let stdout = child.stdout.take().expect("stdout");
    let recognizer = BufReader::new(stdout)
        .lines()
        .map(|l| l.expect("line"))
        .find(|l| l.trim().starts_with("recognizer:"))
        .expect("the recognizer line");
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        recognizer.contains("confirmation threshold 0.99999, the table's"),
        "{recognizer}"
    );
}

/// `serve --models DIR` naming a folder without a model (a typo): the service
/// stops before it listens, saying why, rather than serve a table that reads
/// no card; no database is created.
#[test]
fn a_serve_process_named_a_models_folder_without_a_model_stops_saying_why() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("typo.db");
    let refused = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["serve", "--addr", "127.0.0.1:0", "--models"])
        .arg(dir.path().join("modles"))
        .arg("--db")
        .arg(&db)
        .output()
        .expect("run eleusis serve");
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("--models: no recognizer"), "{err}");
    assert!(err.contains("modles"), "{err}");
    assert!(!db.exists(), "no database created");
}

#[test]
fn a_serve_process_prints_its_urls_and_stops_cleanly_on_sigterm() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("process.db");
    let run = |play: Option<&str>| -> (Value, Vec<String>) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
            .args(["serve", "--no-recognizer", "--addr", "127.0.0.1:0", "--db"])
            .arg(&db)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn eleusis serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut god_url = None;
        for line in lines.by_ref() {
            let line = line.expect("line");
            if let Some(url) = line.trim().strip_prefix("God console:") {
                god_url = Some(url.trim().to_string());
            }
            if line.trim().starts_with("audit:") {
                break;
            }
        }
        let god_url = god_url.expect("the God console URL is printed");
        let rest = god_url.strip_prefix("http://").expect("http URL");
        let (host, query) = rest.split_once("/god?token=").expect("token in the URL");
        let addr: std::net::SocketAddr = host.parse().expect("address");
        let auth = format!("Bearer {query}");
        let headers = [("Authorization", auth.as_str())];
        if let Some(body) = play {
            let r = request(addr, "POST", "/api/rounds", &headers, ROUND.as_bytes());
            assert_eq!(r.status, 200, "{}", r.text());
            let r = request(addr, "POST", "/api/plays", &headers, body.as_bytes());
            assert_eq!(r.status, 200, "{}", r.text());
        }
        let state = request(addr, "GET", "/api/state", &[], b"").json();
        // A tablet stays connected: it must not hold the shutdown up.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let (_tablet, _) = rt
            .block_on(tokio_tungstenite::connect_async(format!("ws://{addr}/ws")))
            .expect("websocket");
        let status = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let start = std::time::Instant::now();
        let exit = loop {
            if let Some(exit) = child.try_wait().expect("wait") {
                break exit;
            }
            if start.elapsed() > std::time::Duration::from_secs(20) {
                let _ = child.kill();
                panic!("eleusis serve did not stop within 20 s of SIGTERM");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        assert!(exit.success(), "eleusis serve exited with {exit}");
        let tail: Vec<String> = lines.map_while(Result::ok).collect();
        assert!(tail.iter().any(|l| l.contains("stopped")), "{tail:?}");
        (state, tail)
    };
    let (first, said) = run(Some(r#"{"cards":["8H"]}"#));
    assert_eq!(first["state"]["laid"], 2);
    assert!(
        said.iter()
            .any(|l| l.trim() == "game:         none yet: the first round starts game 1"),
        "{said:?}"
    );
    // The start says which game goes on: last week's database is not a new game.
    let (second, said) = run(None);
    assert_eq!(second["state"], first["state"]);
    assert_eq!(second["seal"], first["seal"]);
    let next = first["state"]["turn"].as_str().expect("turn");
    assert!(
        said.iter().any(|l| l.trim()
            == format!("game:         round 1.1 continued (1 play so far, {next} to play; its rule still sealed)")),
        "{said:?}"
    );
}

/// `serve --confirm-courts`: a deck whose court letters are not J, Q, K has God
/// asked about every court card; the number cards beside it are judged as read.
#[test]
fn a_service_confirming_courts_asks_about_a_sure_king_only() {
    let dir = tempfile::tempdir().expect("dir");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let jpeg = std::fs::read(root.join("tests/data/scenes/09-seq3-pattern.jpg")).expect("frame");
    let asks = |server: &Server| -> Vec<(String, bool)> {
        let reply = server.post_bytes("/api/frames", &jpeg).expect(200);
        reply["reads"]
            .as_array()
            .expect("reads")
            .iter()
            .map(|r| {
                let card = r["card"].as_str().expect("card").to_string();
                (card, r["needs_confirmation"].as_bool().expect("flag"))
            })
            .collect()
    };
    let plain = Server::start_with_recognizer(&dir.path().join("plain.db"));
    let courts = Server::start_confirming_courts(&dir.path().join("courts.db"));
    let read = |cards: [(&str, bool); 3]| -> Vec<(String, bool)> {
        cards.iter().map(|(c, a)| (c.to_string(), *a)).collect()
    };
    assert_eq!(
        asks(&plain),
        read([("8C", false), ("KH", false), ("5C", false)])
    );
    assert_eq!(
        asks(&courts),
        read([("8C", false), ("KH", true), ("5C", false)])
    );
    // The reply says so (only when so), for the console to say why a sure king asks.
    let said = |server: &Server| {
        server.post_bytes("/api/frames", &jpeg).expect(200)["confirm_courts"].clone()
    };
    assert_eq!(said(&courts), json!(true));
    assert_eq!(said(&plain), Value::Null);
}

/// `POST /api/camera`: God finds out mid-game that the deck letters its courts
/// otherwise and switches court-card confirmation on at the console, without a
/// restart; a wrong request changes nothing, and a player cannot switch it.
#[test]
fn god_switches_court_confirmation_on_and_off_while_the_service_runs() {
    let dir = tempfile::tempdir().expect("dir");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let jpeg = std::fs::read(root.join("tests/data/scenes/09-seq3-pattern.jpg")).expect("frame");
    let server = Server::start_with_recognizer(&dir.path().join("switch.db"));
    let king_asks = || {
        let reply = server.post_bytes("/api/frames", &jpeg).expect(200);
        let king = reply["reads"]
            .as_array()
            .expect("reads")
            .iter()
            .find(|r| r["card"] == "KH")
            .cloned()
            .expect("the king is read");
        (
            king["needs_confirmation"].clone(),
            reply["confirm_courts"].clone(),
        )
    };
    assert_eq!(server.get("/api/camera").status, 401, "God's only");
    let settings = server.get_god("/api/camera").expect(200);
    assert_eq!(settings["loaded"], json!(true), "{settings}");
    assert_eq!(settings["confirm_courts"], json!(false), "{settings}");
    assert!(
        settings["confirm_threshold"].as_f64().is_some(),
        "{settings}"
    );
    assert_eq!(king_asks(), (json!(false), Value::Null));

    // Refused, each with what is wrong; the setting stays off.
    let player = server.post_public("/api/camera", r#"{"confirm_courts":true}"#);
    assert_eq!(player.status, 401, "{}", player.text());
    let not_bool = server
        .post("/api/camera", r#"{"confirm_courts":"yes"}"#)
        .expect(400);
    assert!(
        not_bool["error"]
            .as_str()
            .is_some_and(|e| e.contains("true or false")),
        "{not_bool}"
    );
    assert!(
        not_bool["where"]
            .as_str()
            .is_some_and(|w| w.contains("confirm_courts")),
        "{not_bool}"
    );
    let unknown = server
        .post("/api/camera", r#"{"confirm_kings":true}"#)
        .expect(400);
    assert!(
        unknown["error"]
            .as_str()
            .is_some_and(|e| e.contains("confirm_kings")),
        "{unknown}"
    );
    server.post("/api/camera", "{}").expect(400);
    server.post("/api/camera", "not json").expect(400);
    assert_eq!(
        server.get_god("/api/camera").expect(200)["confirm_courts"],
        json!(false)
    );
    assert_eq!(king_asks(), (json!(false), Value::Null));

    // On: the sure king asks from the next frame on, and the reply says why.
    let on = server
        .post("/api/camera", r#"{"confirm_courts":true}"#)
        .expect(200);
    assert_eq!(on["confirm_courts"], json!(true), "{on}");
    assert_eq!(server.get_god("/api/camera").expect(200), on);
    assert_eq!(king_asks(), (json!(true), json!(true)));
    // Off again.
    let off = server
        .post("/api/camera", r#"{"confirm_courts":false}"#)
        .expect(200);
    assert_eq!(off["confirm_courts"], json!(false), "{off}");
    assert_eq!(king_asks(), (json!(false), Value::Null));
    server.stop();

    // A service started with it on says so, and God can switch it off.
    let courts = Server::start_confirming_courts(&dir.path().join("courts.db"));
    assert_eq!(
        courts.get_god("/api/camera").expect(200)["confirm_courts"],
        json!(true)
    );
    courts
        .post("/api/camera", r#"{"confirm_courts":false}"#)
        .expect(200);
    assert_eq!(
        courts.get_god("/api/camera").expect(200)["confirm_courts"],
        json!(false)
    );
    courts.stop();

    // Without a recognizer nothing is read, so nothing can ask: refused, 422.
    let typed = Server::start(&dir.path().join("typed.db"));
    let none = typed.get_god("/api/camera").expect(200);
    assert_eq!(none["loaded"], json!(false), "{none}");
    assert_eq!(none["confirm_threshold"], Value::Null, "{none}");
    let refused = typed
        .post("/api/camera", r#"{"confirm_courts":true}"#)
        .expect(422);
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("God types every card")),
        "{refused}"
    );
    typed.stop();
}

#[test]
fn a_frame_of_an_overlapping_row_comes_back_with_its_covered_cards_marked() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("spread.db"));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let jpeg = std::fs::read(root.join("tests/data/spreads/0019-four-colour-white-12.jpg"))
        .expect("committed frame");
    let reply = server.post_bytes("/api/frames", &jpeg).expect(200);
    assert_eq!(reply["recognized"], true, "{reply}");
    let reads = reply["reads"].as_array().expect("reads");
    let names: Vec<&str> = reads.iter().map(|r| r["card"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["2S", "4S", "9C", "3S", "QD", "AS", "QH", "6C", "5C", "8C", "8H", "KS"],
        "{reply}"
    );
    // Eleven cards read from the index their neighbour leaves uncovered; the one on
    // top read whole, without the field.
    for r in &reads[..11] {
        assert_eq!(r["overlapped"], true, "{r}");
        assert!(r["needs_confirmation"].is_boolean(), "{r}");
    }
    assert!(reads[11].get("overlapped").is_none(), "{}", reads[11]);
}

#[test]
fn a_frame_from_a_low_resolution_camera_says_its_cards_are_too_small() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("small.db"));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let frame = image::open(root.join("tests/data/scenes/08-seq4-dark.jpg"))
        .expect("committed frame")
        .to_rgb8();
    // The sequence through a 512 × 288 camera: cards about 64 px tall.
    let small = image::imageops::resize(&frame, 512, 288, image::imageops::FilterType::Lanczos3);
    let mut png = Vec::new();
    small
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("png");
    let reply = server.post_bytes("/api/frames", &png).expect(200);
    assert_eq!(reply["recognized"], true, "{reply}");
    assert_eq!(reply["reads"].as_array().map(Vec::len), Some(4), "{reply}");
    // Cards this small ask God, however sure the model is.
    assert!(
        reply["reads"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["needs_confirmation"] == true),
        "{reply}"
    );
    assert_eq!(reply["warnings"][0]["kind"], "small-cards", "{reply}");
    assert!(
        reply["warnings"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("1280x720")),
        "{reply}"
    );
}

#[test]
fn the_api_shows_the_chained_round_not_edited_index_tables() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("i.db");
    let server = Server::start(&db);
    server.post("/api/rounds", ROUND).expect(200);
    // Someone with the file edits the tables outside the hash chain.
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(
        "UPDATE rounds SET god = 'Mallory', variant = 'gardner';
         UPDATE round_players SET name = 'Zed' WHERE seat = 0;",
    )
    .expect("tamper");
    drop(conn);
    let audit = server.get("/api/audit/1.1").expect(200);
    assert_eq!(audit["chain"]["ok"], true);
    assert_eq!(audit["clean"], false, "{audit}");
    assert_eq!(audit["rounds"][0]["god"], "Pierre");
    assert_eq!(audit["rounds"][0]["variant"], "new-eleusis");
    assert_eq!(audit["rounds"][0]["players"][0], "Alain");
    assert_eq!(
        audit["problems"].as_array().map(Vec::len),
        Some(3),
        "{audit}"
    );
    let rounds = server.get("/api/rounds").expect(200);
    assert_eq!(rounds["rounds"][0]["god"], "Pierre", "{rounds}");
    assert_eq!(rounds["rounds"][0]["players"][0], "Alain", "{rounds}");
    let csv = server.get("/api/export/1/scores?format=csv");
    assert!(
        csv.text()
            .starts_with("round,god,Alain,François,Jacques,Philippe,Pierre\n1,Pierre,"),
        "{}",
        csv.text()
    );
    server.stop();
}

#[test]
fn the_pages_show_what_eleusis_record_stores_into_the_live_database() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("table.db");
    let server = Server::start(&db);
    server.post("/api/rounds", ROUND).expect(200);
    let mut tablet = server.ws(false);
    let first = tablet.next_view(&server.rt);
    assert_eq!(first["state"]["laid"], 1, "{first}");

    // A club's own tool appends Jacques's play with `eleusis record` while the
    // service runs on the same file.
    let mut record = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["record", "--game", "1", "--db"])
        .arg(&db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn eleusis record");
    record
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"{\"event\":\"play\",\"cards\":[\"8H\"]}\n")
        .expect("write the line");
    let output = record.wait_with_output().expect("record ran");
    let ack = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{ack}");
    assert!(ack.contains("\"ok\":true"), "{ack}");

    // The open page is pushed the play without anyone touching the service.
    let shown = tablet.view_from(&server.rt, version(&first) + 1);
    assert_eq!(shown["state"]["laid"], 2, "{shown}");
    assert_eq!(shown["plays"][1]["player"], "Jacques", "{shown}");
    assert_eq!(shown["plays"][1]["right"], false, "{shown}");
    assert_eq!(server.get("/api/state").expect(200)["state"]["laid"], 2);
    // And the service judges the next player's play from there.
    let next = server.post("/api/plays", r#"{"cards":["5S"]}"#).expect(200);
    assert_eq!(next["ack"]["seq"], 3, "{next}");
    server.stop();
}

/// The frames folder emptied, folder and all, while the service runs (`DB.frames/`
/// is for frames no play took): the next frame makes it again, not a 500 until
/// a restart.
#[test]
fn a_frames_folder_removed_while_serving_is_made_again() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("spool.db");
    let server = Server::start(&db);
    let spool = dir.path().join("spool.db.frames");
    server.post_bytes("/api/frames", &png_frame()).expect(200);
    assert!(spool.is_dir(), "{}", spool.display());
    std::fs::remove_dir_all(&spool).expect("remove the folder");
    let frame = server.post_bytes("/api/frames", &png_frame()).expect(200);
    let id = frame["frame"].as_str().expect("frame id");
    assert!(spool.join(format!("{id}.jpg")).is_file());
    assert_eq!(server.get(&format!("/api/frames/{id}")).status, 200);
    server.stop();
}

/// A prophet's call mis-entered on one play: corrected, the prophet falls there and
/// the call on the next play must go. Neither alone replays, so God sends both in
/// one correction (`also`); the views, the audit and a restart read them together.
#[test]
fn corrections_sent_together_are_viewed_audited_and_replayed_together() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("group.db");
    let server = Server::start(&db);
    web_support::record_a_prophet_call_to_correct(&server);
    let alone = server.post("/api/corrections", r#"{"seq":4,"prophet_says":"right"}"#);
    assert_eq!(alone.status, 422, "{}", alone.text());
    let answer = server
        .post(
            "/api/corrections",
            r#"{"seq":4,"prophet_says":"right","also":[{"seq":5,"prophet_says":null}]}"#,
        )
        .expect(200);
    assert_eq!(answer["ack"]["group"], json!([6, 7]), "{answer}");
    // The view tells the line's own correction, and lists the group.
    assert_eq!(answer["correction"]["event"], "1.1:6", "{answer}");
    assert_eq!(answer["correction"]["target"]["event"], "1.1:4", "{answer}");
    assert_eq!(
        answer["correction"]["group"],
        json!([{"event": "1.1:6", "target": "1.1:4"}, {"event": "1.1:7", "target": "1.1:5"}]),
        "{answer}"
    );
    let changed = answer["correction"]["changed"].as_array().expect("changed");
    assert!(
        changed.iter().any(|p| p["event"] == "1.1:4"),
        "the call on 3S now overthrows the prophet: {answer}"
    );
    let state = server.get("/api/state").expect(200);
    assert!(state["state"]["prophet"].is_null(), "{state}");
    let audit = server.get_god("/api/audit/1.1").expect(200);
    assert_eq!(audit["chain"]["ok"], true, "{audit}");
    let token = server.token.clone();
    let server = server.restart_with_token(&db, &token);
    let state = server.get("/api/state").expect(200);
    assert!(
        state["state"]["prophet"].is_null(),
        "after a restart: {state}"
    );
    server.stop();
}

/// God kept a starter the rule does not accept (new-eleusis allows it): the
/// warning says something of the rule, so the players' view leaves it out until
/// the reveal; God's view has it.
#[test]
fn a_kept_unacceptable_starter_is_not_told_to_the_players_before_the_reveal() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("starter.db"));
    let round = json!({"god": "G", "players": ["Bo", "Ana"], "rule": "red", "starter": "AS"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    let says_it = |view: &Value| view.to_string().contains("not acceptable under the rule");
    let public = server.get("/api/state").expect(200);
    assert!(!says_it(&public), "{public}");
    let raw = server.get("/api/state");
    assert!(
        raw.text().contains(r#""hands":{"Bo":"#),
        "seating order kept: {}",
        raw.text()
    );
    let god = server.get_god("/api/state").expect(200);
    assert!(says_it(&god), "{god}");
    server.post("/api/end-game", "").expect(200);
    let revealed = server.get("/api/state").expect(200);
    assert!(says_it(&revealed), "after the reveal: {revealed}");
    server.stop();
}

/// A play entered by mistake (cards typed on a second device pressed after the
/// player's play was recorded) is charged to the next player, as a wrong play with a
/// penalty. God voids it: the view keeps its row, struck through, the penalty is
/// taken back, the next play is that player's own, and the audit and the exported
/// log agree.
#[test]
fn a_play_entered_by_mistake_is_voided_and_the_round_goes_on() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("void.db"));
    let round = json!({"god": "G", "players": ["Ana", "Bo", "Cy"], "rule": "red", "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["5D"]}"#).expect(200);
    let ana = server.post("/api/plays", r#"{"cards":["9D"]}"#).expect(200);
    assert_eq!(ana["last"]["player"], "Ana", "{ana}");
    let hands_before = server.get("/api/state").expect(200)["state"]["hands"].clone();
    let wrong = server.post("/api/plays", r#"{"cards":["7S"]}"#).expect(200);
    assert_eq!(wrong["ack"]["right"], false, "{wrong}");
    // Its player cannot be corrected (the turn order), so God voids it.
    let voided = server
        .post("/api/corrections", r#"{"seq":4,"void":true}"#)
        .expect(200);
    assert_eq!(voided["ack"]["changed"], json!(["1.1:4"]), "{voided}");
    assert_eq!(voided["correction"]["target"]["void"], true, "{voided}");
    assert_eq!(voided["correction"]["target"]["was"], false, "{voided}");
    assert!(
        voided["correction"]["target"]["right"].is_null(),
        "{voided}"
    );
    let view = server.get("/api/state").expect(200);
    assert_eq!(
        view["state"]["hands"], hands_before,
        "penalty taken back: {view}"
    );
    let plays = view["plays"].as_array().expect("plays");
    let row = plays
        .iter()
        .find(|p| p["seq"] == 4)
        .expect("the voided row");
    assert_eq!(row["void"], true, "{row}");
    assert_eq!(row["cards"], json!(["7S"]), "{row}");
    assert_eq!(row["voided_by"], json!(["1.1:5"]), "{row}");
    assert_eq!(
        view["last"]["seq"], 3,
        "the newest play that happened: {view}"
    );
    assert_eq!(view["last"]["player"], "Ana", "{view}");
    // The next player plays as if the mistake had never been entered.
    let next = server.post("/api/plays", r#"{"cards":["9H"]}"#).expect(200);
    assert_eq!(next["ack"]["right"], true, "{next}");
    let audit = server.get_god("/api/audit/1.1").expect(200);
    let audited = audit["rounds"][0]["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["seq"] == 4)
        .cloned()
        .expect("audited");
    assert_eq!(audited["verdict"], "void", "{audited}");
    assert_eq!(audited["announced"], "wrong", "{audited}");
    let log = server.get_god("/api/export/1.1/log").text();
    assert!(
        !log.contains("7S"),
        "the voided play is not in the table log: {log}"
    );
    server.stop();
}

#[test]
fn the_rule_checker_says_whether_a_starter_fits_as_the_referee_would_judge_it() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("table.db"));
    let check = |body: Value| server.post("/api/rule/check", &body.to_string());

    // The first card of the main line: nothing before it.
    let refused = check(json!({"rule": "black", "starter": "3H"})).expect(200);
    assert_eq!(refused["ok"], true, "{refused}");
    assert!(refused["report"].is_object(), "{refused}");
    assert_eq!(refused["starter"]["card"], "3H");
    assert_eq!(refused["starter"]["fits"], false);
    assert_eq!(refused["starter"]["explanation"], "3♥ is red → rejected");
    let fits = check(json!({"rule": "black", "starter": "Q♠", "analyse": false})).expect(200);
    assert_eq!(
        fits,
        json!({"ok": true, "starter": {"card": "QS", "fits": true, "explanation": "Q♠ is black → accepted"}})
    );
    // The referee's own words for the same starter, when the round starts with it.
    let round = json!({"variant": "gardner", "god": "G", "players": ["A", "B", "C", "D"],
                       "rule": "black", "starter": "3H"});
    let refused_round = server.post("/api/rounds", &round.to_string()).expect(422);
    let said = refused_round["error"].as_str().expect("error");
    assert!(
        said.contains("the starter 3H is not acceptable under the rule (3♥ is red → rejected)"),
        "{said}"
    );

    // Without a starter the answer is as it was; a rule that does not parse has
    // no starter to judge.
    let plain = check(json!({"rule": "black", "analyse": false})).expect(200);
    assert_eq!(plain, json!({"ok": true}));
    let broken = check(json!({"rule": "if last.odd then black", "starter": "3H"})).expect(200);
    assert_eq!(broken["ok"], false);
    assert!(broken.get("starter").is_none(), "{broken}");

    // A bad card is refused naming the field, as every card field is.
    for (starter, said) in [
        (json!("1X"), "unknown suit 'X'"),
        (json!(3), "expected a string, got the number 3"),
        (json!(["3H"]), "expected a string, got a list of 1 item"),
    ] {
        let bad = check(json!({"rule": "black", "starter": starter})).expect(400);
        let error = bad["error"].as_str().expect("error");
        assert!(
            error.starts_with(r#"field "starter": "#) && error.contains(said),
            "{starter}: {bad}"
        );
        assert_eq!(bad["where"], r#"POST /api/rule/check: field "starter""#);
    }
}

/// A service with a round started and one play (event 2) recorded.
fn a_round_with_a_play(dir: &tempfile::TempDir) -> Server {
    let server = Server::start(&dir.path().join("table.db"));
    server.post("/api/rounds", ROUND).expect(200);
    server.post("/api/plays", r#"{"cards":["2S"]}"#).expect(200);
    server
}

fn error_of(body: &Value) -> &str {
    body["error"].as_str().expect("an error message")
}

fn plays(server: &Server) -> usize {
    server.get("/api/state").expect(200)["plays"]
        .as_array()
        .expect("plays")
        .len()
}

#[test]
fn evidence_given_as_a_list_is_refused_and_nothing_is_stored() {
    let dir = tempfile::tempdir().expect("dir");
    let server = a_round_with_a_play(&dir);
    let before = plays(&server);
    let id = "02f3".repeat(16);
    for evidence in [
        json!([format!("{id}.jpg"), "cam/1", [{"read": "7H", "confidence": 0.9}]]),
        json!([]),
        json!([null]),
    ] {
        let body = json!({"cards": ["7H"], "evidence": evidence});
        let refused = server.post("/api/plays", &body.to_string()).expect(400);
        assert!(
            error_of(&refused).starts_with(r#"field "evidence": expected an object, got a list"#),
            "{evidence}: {refused}"
        );
    }
    // A read given as a list of its values is refused the same way.
    let body = json!({"cards": ["7H"], "evidence": {"reads": [["7H", 0.9]]}});
    let refused = server.post("/api/plays", &body.to_string()).expect(400);
    assert_eq!(
        error_of(&refused),
        r#"field "evidence.reads", item 1: expected an object, got a list of 2 items"#
    );
    // An empty list of reads for a card laid is a wrong count, as one read for two is.
    let body = json!({"cards": ["7H"], "evidence": {"reads": []}});
    let refused = server.post("/api/plays", &body.to_string()).expect(422);
    assert!(
        error_of(&refused).starts_with("evidence: 0 card reads for 1 card"),
        "{refused}"
    );
    assert_eq!(plays(&server), before, "nothing was stored");
    // The object form still works.
    let body = json!({"cards": ["7H"], "evidence": {"reads": [{"read": "7H", "confidence": 0.9}]}});
    server.post("/api/plays", &body.to_string()).expect(200);
}

#[test]
fn errors_quote_at_most_the_first_characters_of_a_value() {
    let dir = tempfile::tempdir().expect("dir");
    let server = a_round_with_a_play(&dir);
    let long = "A".repeat(200_000);
    let cut = format!("\"{}…\"", "A".repeat(60));
    let cases = [
        ("/api/corrections", json!({"seq": 2, "round": long}), 422),
        ("/api/corrections", json!({"seq": 2, "void": long}), 422),
        ("/api/corrections", json!({"seq": 2, "round": [long]}), 422),
        (
            "/api/rule/check",
            json!({"rule": "red", "analyse": long}),
            400,
        ),
        ("/api/camera", json!({"confirm_courts": long}), 400),
        ("/api/rounds", json!({"new_game": long}), 400),
        ("/api/plays", json!({"cards": ["7H"], "event": long}), 400),
        (
            "/api/plays",
            json!({"cards": ["7H"], "evidence": {"frame": long}}),
            400,
        ),
        ("/api/rule/check", json!({"rule": "red", &long: 1}), 400),
    ];
    for (path, body, status) in cases {
        let answer = server.post(path, &body.to_string());
        assert!(
            answer.body.len() < 1000,
            "{path}: {} bytes",
            answer.body.len()
        );
        let refused = answer.expect(status);
        // A list too long to write out whole is described instead.
        let said = if body.get("round").is_some_and(Value::is_array) {
            "got a list of 1 item".to_string()
        } else {
            cut.clone()
        };
        assert!(
            error_of(&refused).contains(&said),
            "{path}: {}",
            error_of(&refused)
        );
    }
    // A list too long to quote is described.
    let many = vec![1; 100_000];
    let refused = server
        .post("/api/rounds", &json!({"new_game": many}).to_string())
        .expect(400);
    assert_eq!(
        error_of(&refused),
        "\"new_game\" must be true or false, got a list of 100000 items"
    );
    // A huge number is said in a few characters.
    let body = r#"{"cards":["7H"],"evidence":{"reads":[{"read":"7H","confidence":1e308}]}}"#;
    let refused = server.post("/api/plays", body).expect(422);
    assert_eq!(
        error_of(&refused),
        "evidence: read 1 has confidence 1e308, expected a number from 0 to 1"
    );
    let frame = server.post_bytes("/api/frames", &png_frame()).expect(200);
    let id = frame["frame"].as_str().expect("frame id");
    let far = server.get(&format!(
        "/api/frames/{id}/card?corners=1e308,1,9,1,9,9,1,9"
    ));
    assert_eq!(
        error_of(&far.expect(400)),
        "corners: (1e308, 1) is far outside the 320 × 240 frame"
    );
    // As long as an address may be.
    let long = "A".repeat(5000);
    let garbled = server.get(&format!("/api/frames/{id}/card?corners={long}"));
    assert!(error_of(&garbled.expect(400)).contains(&cut));
    let format = server.get(&format!("/api/export/1/scores?format={long}"));
    assert!(error_of(&format.expect(400)).contains(&cut));
    let audit = server.get(&format!("/api/audit/{long}")).expect(400);
    assert!(error_of(&audit).contains(&cut), "{audit}");
    assert!(
        audit["where"].as_str().is_some_and(|w| w.len() < 100),
        "{audit}"
    );
}

#[test]
fn a_parameter_or_the_token_given_twice_is_refused_naming_it() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("table.db"));
    let god = format!("Bearer {}", server.token);

    let twice = server.post_bytes("/api/watch?restart=1&restart=2", b"");
    let refused = twice.expect(400);
    assert_eq!(
        error_of(&refused),
        r#"query parameter "restart" given twice: give each parameter once"#
    );
    assert_eq!(refused["where"], "POST /api/watch");

    // The token twice is nobody's, whichever comes first.
    for query in [
        format!("token={}&token=nope", server.token),
        format!("token=nope&token={}", server.token),
    ] {
        let refused = server.get(&format!("/api/camera?{query}")).expect(400);
        assert!(
            error_of(&refused).contains(r#""token" given twice"#),
            "{refused}"
        );
        let public = server.get(&format!("/api/state?{query}")).expect(400);
        assert!(error_of(&public).contains(r#""token""#), "{public}");
    }
    let pages = server.get(&format!("/god?token={}&token=nope", server.token));
    assert_eq!(pages.status, 401);
    for headers in [
        [
            ("Authorization", god.as_str()),
            ("Authorization", "Bearer nope"),
        ],
        [
            ("Authorization", "Bearer nope"),
            ("Authorization", god.as_str()),
        ],
    ] {
        let answer = request(server.addr, "GET", "/api/camera", &headers, b"");
        let refused = answer.expect(400);
        assert_eq!(
            error_of(&refused),
            r#"header "Authorization" given twice: give the token once"#
        );
    }
    // Once each is as before.
    server
        .get(&format!("/api/camera?token={}", server.token))
        .expect(200);
    server.get_god("/api/camera").expect(200);
}

#[test]
fn a_field_of_a_closed_list_and_a_broken_string_are_said_plainly() {
    let dir = tempfile::tempdir().expect("dir");
    let server = a_round_with_a_play(&dir);
    let refused = server
        .post("/api/plays", r#"{"cards":["7H"],"prophet_says":{}}"#)
        .expect(422);
    assert_eq!(
        error_of(&refused),
        r#"field "prophet_says": expected "right" or "wrong", got an object"#
    );
    let refused = server
        .post("/api/plays", r#"{"cards":["7H"],"player":"\ud800"}"#)
        .expect(400);
    assert!(
        error_of(&refused).contains("a lone UTF-16 surrogate"),
        "{refused}"
    );
}
