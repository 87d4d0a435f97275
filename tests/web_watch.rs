//! Watching the play zone through the live service: frames of an empty table, then
//! of a four-card sequence, sent one at a time to `POST /api/watch` as the God
//! console sends its webcam's frames. The play must be reported once, when it has
//! lain still for three frames, with its frame kept as evidence that a play can
//! take; the zone must be seen cleared; cards outside the zone are not the play;
//! and bad requests get clear errors without disturbing the watcher.
//!
//! Also the service watching its own database: an acknowledged event deleted, or
//! an event's payload edited, by SQL typed beside the running service stops
//! recording (every write refused, saying what is wrong; reads go on, with the
//! alarm) until the database is restored.

mod web_support;

use serde_json::{json, Value};
use web_support::Server;

const ROUND: &str = r#"{"god":"Pierre","players":["Alain","François","Jacques"],"rule":"if last.odd then black else red","starter":"3H"}"#;

/// The committed four-card frame (4D 4H 8C 5H on a dark cloth), and the same
/// table with the cards taken away (every pixel the cloth's colour at a corner,
/// with a little texture so that it is not a blank image).
fn frames() -> (Vec<u8>, Vec<u8>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cards = std::fs::read(root.join("tests/data/scenes/08-seq4-dark.jpg")).expect("frame");
    let empty = empty_like(&cards);
    (cards, empty)
}

fn names(reads: &Value) -> Vec<String> {
    reads
        .as_array()
        .expect("reads")
        .iter()
        .map(|r| r["card"].as_str().expect("card").to_string())
        .collect()
}

#[test]
fn a_play_laid_in_the_zone_is_reported_once_with_its_frame_as_evidence() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("watch.db"));
    server.post("/api/rounds", ROUND).expect(200);
    let (cards, empty) = frames();

    // Cards already in the zone when watching starts are not a play.
    let first = server
        .post_bytes("/api/watch?restart=1", &cards)
        .expect(200);
    assert_eq!(first["phase"], "moving", "{first}");
    for _ in 0..3 {
        let r = server.post_bytes("/api/watch", &cards).expect(200);
        assert!(r["laid"].is_null(), "{r}");
    }
    let stale = server.post_bytes("/api/watch", &cards).expect(200);
    assert_eq!(stale["phase"], "not_ready", "{stale}");
    assert!(stale["text"]
        .as_str()
        .unwrap()
        .contains("clear the play zone"));

    // The zone is cleared (one empty frame is an odd one out among the last four,
    // two are movement, three are a clear), then the play is laid.
    let phases: Vec<Value> = (0..3)
        .map(|_| server.post_bytes("/api/watch", &empty).expect(200)["phase"].clone())
        .collect();
    assert_eq!(
        phases,
        [json!("not_ready"), json!("moving"), json!("clear")]
    );
    let replies: Vec<Value> = (0..3)
        .map(|_| server.post_bytes("/api/watch", &cards).expect(200))
        .collect();
    assert!(replies[0]["laid"].is_null() && replies[1]["laid"].is_null());
    let laid = &replies[2]["laid"];
    assert_eq!(replies[2]["phase"], "laid", "{}", replies[2]);
    assert_eq!(names(&laid["reads"]), ["4D", "4H", "8C", "5H"], "{laid}");
    assert_eq!(names(&replies[2]["cards"]), ["4D", "4H", "8C", "5H"]);
    assert_eq!(replies[2]["unreadable"], json!([]), "{}", replies[2]);
    let frame = laid["frame"].as_str().expect("frame id").to_string();
    assert_eq!(frame.len(), 64);
    // The frame was kept: it can be fetched, and a play can take it as evidence.
    assert_eq!(server.get(&format!("/api/frames/{frame}")).status, 200);
    let reads: Vec<Value> = laid["reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"read": r["card"], "confidence": r["confidence"], "corners": r["corners"]}))
        .collect();
    let play = server
        .post(
            "/api/plays",
            &json!({"cards": names(&laid["reads"]), "evidence": {"frame": frame, "reads": reads}})
                .to_string(),
        )
        .expect(200);
    assert_eq!(play["ack"]["ok"], true, "{play}");
    assert_eq!(
        play["last"]["evidence"]["frame_sha256"],
        frame.as_str(),
        "{play}"
    );
    assert_eq!(play["last"]["cards"], json!(["4D", "4H", "8C", "5H"]));

    // Still lying there: not reported again; taken away: cleared once.
    for _ in 0..3 {
        let r = server.post_bytes("/api/watch", &cards).expect(200);
        assert!(r["laid"].is_null(), "{r}");
        assert_eq!(r["phase"], "laid", "{r}");
    }
    let cleared: Vec<Value> = (0..4)
        .map(|_| server.post_bytes("/api/watch", &empty).expect(200)["cleared"].clone())
        .collect();
    assert_eq!(
        cleared,
        [json!(false), json!(false), json!(true), json!(false)]
    );

    // Frames that settled nothing were not kept: the spool holds the one frame,
    // now taken by the play into the database.
    let spooled = std::fs::read_dir(dir.path().join("watch.db.frames"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert!(spooled <= 1, "{spooled} frames spooled");
}

/// A webcam dropping out for a few frames (black frames, as a camera gives while it
/// starts or when its lens is covered) neither clears the play still lying in the
/// zone nor lets the same cards be reported again as the next play.
#[test]
fn black_frames_do_not_clear_the_zone_or_report_a_play_twice() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("black.db"));
    server.post("/api/rounds", ROUND).expect(200);
    let (cards, empty) = frames();
    let mut black = Vec::new();
    image::RgbImage::new(1280, 720)
        .write_to(
            &mut std::io::Cursor::new(&mut black),
            image::ImageFormat::Png,
        )
        .expect("png");
    lay_a_play(&server, &empty, &cards);
    for _ in 0..5 {
        let r = server.post_bytes("/api/watch", &black).expect(200);
        assert_eq!(r["phase"], "laid", "{r}");
        assert_eq!(r["unseen"], true, "{r}");
        assert_eq!(r["cleared"], false, "{r}");
        assert!(r["text"].as_str().unwrap().contains("black"), "{r}");
        assert_eq!(r["warnings"][0]["kind"], "dark", "{r}");
    }
    for _ in 0..4 {
        let r = server.post_bytes("/api/watch", &cards).expect(200);
        assert!(r["laid"].is_null(), "the same play reported again: {r}");
        assert_eq!(r["unseen"], false, "{r}");
    }
}

/// A hand held still over a play for longer than a clear takes hides it as an
/// empty zone would; lifted, the same cards where they lay are that play, not a
/// second one to judge.
#[test]
fn a_play_hidden_under_a_hand_for_a_while_is_not_reported_twice() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("hand.db"));
    server.post("/api/rounds", ROUND).expect(200);
    let (cards, empty) = frames();
    let hand = hand_over_the_cards(&cards);
    lay_a_play(&server, &empty, &cards);
    let covered: Vec<Value> = (0..5)
        .map(|_| server.post_bytes("/api/watch", &hand).expect(200))
        .collect();
    assert!(
        covered.iter().all(|r| r["cards"] == json!([])),
        "no card under the hand: {covered:?}"
    );
    assert_eq!(
        covered.iter().filter(|r| r["cleared"] == true).count(),
        1,
        "the hidden play looks taken away: {covered:?}"
    );
    let back: Vec<Value> = (0..4)
        .map(|_| server.post_bytes("/api/watch", &cards).expect(200))
        .collect();
    for r in &back {
        assert!(r["laid"].is_null(), "the same play reported again: {r}");
    }
    let uncovered: Vec<&Value> = back.iter().filter(|r| r["uncovered"] == true).collect();
    assert_eq!(uncovered.len(), 1, "{back:?}");
    assert!(uncovered[0]["text"]
        .as_str()
        .unwrap()
        .contains("back where it lay"));
    assert_eq!(back[3]["phase"], "laid", "{}", back[3]);
}

/// `bytes` with a hand-coloured oval over the cards of 08-seq4-dark (its sidecar's
/// corners, and a margin).
fn hand_over_the_cards(bytes: &[u8]) -> Vec<u8> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let labels: Value = serde_json::from_slice(
        &std::fs::read(root.join("tests/data/scenes/08-seq4-dark.json")).expect("sidecar"),
    )
    .expect("json");
    let corners: Vec<(f64, f64)> = labels["cards"]
        .as_array()
        .expect("cards")
        .iter()
        .flat_map(|c| c["corners"].as_array().expect("corners").clone())
        .map(|p| (p[0].as_f64().expect("x"), p[1].as_f64().expect("y")))
        .collect();
    let (x0, x1) = corners
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = corners
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let (rx, ry) = ((x1 - x0) * 0.75, (y1 - y0) * 0.85);
    let mut image = image::load_from_memory(bytes).expect("decodes").to_rgb8();
    for (x, y, p) in image.enumerate_pixels_mut() {
        let (dx, dy) = ((f64::from(x) - cx) / rx, (f64::from(y) - cy) / ry);
        if dx * dx + dy * dy <= 1.0 {
            let shade = (f64::from(y) - y0).max(0.0) / (y1 - y0) * 30.0;
            *p = image::Rgb([
                (214.0 - shade) as u8,
                (160.0 - shade) as u8,
                (128.0 - shade) as u8,
            ]);
        }
    }
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("png");
    png
}

/// Watching starts on the empty zone (three frames: a clear), then the play is
/// laid and reported once.
fn lay_a_play(server: &Server, empty: &[u8], cards: &[u8]) {
    server.post_bytes("/api/watch?restart=1", empty).expect(200);
    for _ in 0..2 {
        server.post_bytes("/api/watch", empty).expect(200);
    }
    let laid = (0..3)
        .map(|_| server.post_bytes("/api/watch", cards).expect(200))
        .filter(|r| !r["laid"].is_null())
        .count();
    assert_eq!(laid, 1);
}

/// A frame of `bytes`' size, every pixel its colour at (5, 5) with a little grain.
fn empty_like(bytes: &[u8]) -> Vec<u8> {
    let image = image::load_from_memory(bytes).expect("decodes").to_rgb8();
    let cloth = *image.get_pixel(5, 5);
    let empty = image::RgbImage::from_fn(image.width(), image.height(), |x, y| {
        let grain = ((x * 7 + y * 13) % 5) as u8;
        image::Rgb(cloth.0.map(|c| c.saturating_add(grain)))
    });
    let mut png = Vec::new();
    empty
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("png");
    png
}

#[test]
fn a_card_no_index_can_be_read_on_is_named_with_the_play_not_dropped() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("watch.db"));
    server.post("/api/rounds", ROUND).expect(200);
    // Eight cards on felt; the two of diamonds lies in an object's dark shadow,
    // where the model reads no index on it (tests/data/shadow).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shadow =
        std::fs::read(root.join("tests/data/shadow/73-0047-eight-slant.jpg")).expect("frame");
    let empty = empty_like(&shadow);
    // A capture says so too.
    let captured = server.post_bytes("/api/frames", &shadow).expect(200);
    assert_eq!(captured["reads"].as_array().unwrap().len(), 7, "{captured}");
    assert_eq!(
        captured["unreadable"].as_array().unwrap().len(),
        1,
        "{captured}"
    );
    // The whole frame; a zone of its lower part (the 2D lies at a third of the
    // frame's height); a zone around the 2D alone.
    for zone in ["", "zone=0,0.4,1,1", "zone=0.45,0.22,0.56,0.37"] {
        let ask = |restart: bool| {
            let query = [if restart { "restart=1" } else { "" }, zone]
                .into_iter()
                .filter(|q| !q.is_empty())
                .collect::<Vec<_>>()
                .join("&");
            format!("/api/watch?{query}")
        };
        server.post_bytes(&ask(true), &empty).expect(200);
        for _ in 0..2 {
            server.post_bytes(&ask(false), &empty).expect(200);
        }
        let replies: Vec<Value> = (0..3)
            .map(|_| server.post_bytes(&ask(false), &shadow).expect(200))
            .collect();
        let last = &replies[2];
        let laid = &last["laid"];
        assert_eq!(last["phase"], "laid", "{last}");
        let (want, reads) = match zone {
            "" => (1, 7),
            "zone=0,0.4,1,1" => (0, 6),
            _ => (1, 0),
        };
        assert_eq!(
            last["unreadable"].as_array().unwrap().len(),
            want,
            "{zone}: {last}"
        );
        assert_eq!(laid["unreadable"], last["unreadable"], "{zone}: {laid}");
        assert_eq!(
            laid["reads"].as_array().unwrap().len(),
            reads,
            "{zone}: {laid}"
        );
        // Still lying there, the shadowed card alone keeps the zone from clear.
        let again = server.post_bytes(&ask(false), &shadow).expect(200);
        assert_eq!(again["phase"], "laid", "{zone}: {again}");
    }
}

#[test]
fn only_the_cards_inside_the_zone_are_the_play() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("zone.db"));
    let (cards, empty) = frames();
    // The left quarter of the frame: the sequence's first card only.
    let zone = "zone=0,0,0.26,1";
    server
        .post_bytes(&format!("/api/watch?restart=1&{zone}"), &empty)
        .expect(200);
    for _ in 0..2 {
        server
            .post_bytes(&format!("/api/watch?{zone}"), &empty)
            .expect(200);
    }
    let replies: Vec<Value> = (0..3)
        .map(|_| {
            server
                .post_bytes(&format!("/api/watch?{zone}"), &cards)
                .expect(200)
        })
        .collect();
    let last = &replies[2];
    assert_eq!(names(&last["laid"]["reads"]), ["4D"], "{last}");
    assert_eq!(last["outside"], 3, "{last}");
    assert_eq!(last["zone"]["x1"], 0.26);
}

#[test]
fn bad_watch_requests_get_clear_errors_and_leave_the_watcher_as_it_was() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("bad.db"));
    let (cards, empty) = frames();
    server
        .post_bytes("/api/watch?restart=1", &empty)
        .expect(200);
    for _ in 0..2 {
        server.post_bytes("/api/watch", &empty).expect(200);
    }
    let ready = server.post_bytes("/api/watch", &empty).expect(200);
    assert_eq!(ready["phase"], "clear");
    // Between two frames of the play: a broken frame, a bad zone, no token.
    server.post_bytes("/api/watch", &cards).expect(200);
    let broken = server.post_bytes("/api/watch", b"not an image").expect(400);
    assert!(
        broken["error"].as_str().unwrap().contains("watched frame"),
        "{broken}"
    );
    let zone = server
        .post_bytes("/api/watch?zone=0.5,0,0.2,1", &cards)
        .expect(400);
    assert!(
        zone["error"].as_str().unwrap().contains("x0 < x1"),
        "{zone}"
    );
    assert_eq!(
        web_support::request(server.addr, "POST", "/api/watch", &[], &cards).status,
        401
    );
    // The play still settles on its third good frame.
    server.post_bytes("/api/watch", &cards).expect(200);
    let third = server.post_bytes("/api/watch", &cards).expect(200);
    assert_eq!(names(&third["laid"]["reads"]).len(), 4, "{third}");
}

#[test]
fn watching_without_a_recognizer_says_why() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("none.db"));
    let (cards, _) = frames();
    let refused = server.post_bytes("/api/watch", &cards).expect(422);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("needs the recognizer"),
        "{refused}"
    );
}

#[test]
fn a_spread_hand_is_kept_with_the_frame_that_found_all_its_cards() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("spread.db"));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let full = std::fs::read(root.join("tests/data/scenes/12-spread12-green.jpg")).expect("frame");
    let image = image::load_from_memory(&full).expect("decodes").to_rgb8();
    let cloth = *image.get_pixel(5, 5);
    let png = |image: &image::RgbImage| {
        let mut out = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .expect("png");
        out
    };
    // The king of clubs (lower right) lost in the webcam's noise.
    let mut without_king = image.clone();
    for y in 530..688 {
        for x in 984..1106 {
            without_king.put_pixel(x, y, cloth);
        }
    }
    let empty = image::RgbImage::from_pixel(image.width(), image.height(), cloth);
    server
        .post_bytes("/api/watch?restart=1", &png(&empty))
        .expect(200);
    for _ in 0..2 {
        server.post_bytes("/api/watch", &png(&empty)).expect(200);
    }
    let first = server.post_bytes("/api/watch", &full).expect(200);
    assert_eq!(first["cards"].as_array().map(Vec::len), Some(12), "{first}");
    server
        .post_bytes("/api/watch", &png(&without_king))
        .expect(200);
    let settled = server
        .post_bytes("/api/watch", &png(&without_king))
        .expect(200);
    assert_eq!(
        settled["cards"].as_array().map(Vec::len),
        Some(12),
        "{settled}"
    );
    let laid = &settled["laid"];
    assert!(names(&laid["reads"]).contains(&"KC".to_string()), "{laid}");
    // The evidence is the frame the twelve were read in, not the last one.
    use sha2::Digest;
    assert_eq!(laid["frame"], hex::encode(sha2::Sha256::digest(&full)));
}

/// Polls the public state until `ready` holds, or fails after a minute: the
/// service looks at its database twice a second.
fn wait_for_state(server: &Server, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let state = server.get("/api/state").expect(200);
        if ready(&state) {
            return state;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the service never showed {what}: {state}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Runs `sql` on the database as someone at a terminal would, the append-only
/// triggers dropped first and put back after.
fn tamper(db: &std::path::Path, sql: &str) {
    let conn = rusqlite::Connection::open(db).expect("raw");
    let triggers: Vec<String> = conn
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'")
        .and_then(|mut stmt| stmt.query_map([], |row| row.get(0))?.collect())
        .expect("triggers");
    assert_eq!(triggers.len(), 2, "{triggers:?}");
    conn.execute_batch(&format!(
        "BEGIN; DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete; \
         {sql}; {}; COMMIT;",
        triggers.join("; ")
    ))
    .expect("tampered");
}

#[test]
fn an_acknowledged_event_deleted_or_edited_outside_stops_recording_until_restored() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("club.db");
    let server = Server::start(&db);
    server.post("/api/rounds", ROUND).expect(200);
    let first = server.post("/api/plays", r#"{"cards":["5D"]}"#).expect(200);
    assert_eq!(first["ack"]["seq"], 2, "{first}");
    let second = server.post("/api/plays", r#"{"cards":["6S"]}"#).expect(200);
    assert_eq!(second["ack"]["seq"], 3, "{second}");
    let laid = server.get("/api/state").expect(200)["state"]["laid"].clone();

    // The newest acknowledged play deleted (its verdict first), rows kept aside
    // to put back.
    let conn = rusqlite::Connection::open(&db).expect("raw");
    let (id, event_row, verdict): (i64, Vec<rusqlite::types::Value>, String) = conn
        .query_row(
            "SELECT e.id, e.round_id, e.seq, e.recorded_ms, e.kind, e.payload, e.prev_hash, e.hash, v.outcome \
             FROM events e JOIN verdicts v ON v.event_id = e.id ORDER BY e.id DESC LIMIT 1",
            [],
            |row| {
                let values = (1..8)
                    .map(|i| row.get::<_, rusqlite::types::Value>(i))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((row.get(0)?, values, row.get(8)?))
            },
        )
        .expect("the last event");
    drop(conn);
    tamper(
        &db,
        &format!("DELETE FROM verdicts WHERE event_id = {id}; DELETE FROM reads WHERE event_id = {id}; DELETE FROM events WHERE id = {id}"),
    );
    let shown = wait_for_state(&server, "the alarm", |s| s["alarm"].is_string());
    let alarm = shown["alarm"].as_str().expect("alarm").to_string();
    assert!(
        alarm.contains("altered outside the service")
            && alarm.contains("event 3 of round 1.1, acknowledged at ")
            && alarm.contains("is gone")
            && alarm.contains("eleusis audit 1"),
        "{alarm}"
    );
    // The pages keep what was acknowledged; God's view says it too.
    assert_eq!(shown["state"]["laid"], laid, "{shown}");
    assert_eq!(server.get_god("/api/state").expect(200)["alarm"], alarm);
    // Nothing more is recorded, saying why.
    let refused = server.post("/api/plays", r#"{"cards":["7H"]}"#).expect(409);
    assert_eq!(refused["error"], alarm, "{refused}");
    let refused = server.post("/api/end-game", "{}").expect(409);
    assert_eq!(refused["error"], alarm, "{refused}");

    // Put back as it was: recording goes on after the acknowledged play.
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute(
        "INSERT INTO events (id, round_id, seq, recorded_ms, kind, payload, prev_hash, hash) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        rusqlite::params_from_iter(
            std::iter::once(rusqlite::types::Value::Integer(id)).chain(event_row),
        ),
    )
    .expect("event put back");
    conn.execute(
        "INSERT INTO verdicts (event_id, outcome) VALUES (?1, ?2)",
        rusqlite::params![id, verdict],
    )
    .expect("verdict put back");
    drop(conn);
    wait_for_state(&server, "the alarm gone", |s| s["alarm"].is_null());
    let third = server.post("/api/plays", r#"{"cards":["7H"]}"#).expect(200);
    assert_eq!(third["ack"]["seq"], 4, "{third}");
    let laid = server.get("/api/state").expect(200)["state"]["laid"].clone();

    // An acknowledged play's card changed in place: its hash no longer holds.
    tamper(
        &db,
        &format!("UPDATE events SET payload = replace(payload, '6S', '6H') WHERE id = {id}"),
    );
    let shown = wait_for_state(&server, "the alarm", |s| s["alarm"].is_string());
    let alarm = shown["alarm"].as_str().expect("alarm").to_string();
    assert!(
        alarm.contains("event 3 of round 1.1, acknowledged at ")
            && alarm.contains("no longer matches its hash"),
        "{alarm}"
    );
    let refused = server.post("/api/plays", r#"{"cards":["8C"]}"#).expect(409);
    assert_eq!(refused["error"], alarm, "{refused}");
    assert_eq!(shown["state"]["laid"], laid, "{shown}");
    // The altered game's exports are refused as a conflict, not a failure.
    let export = server.get_god("/api/export/1/scores").expect(409);
    assert!(
        export["error"]
            .as_str()
            .is_some_and(|e| e.contains("hash chain is broken at round 1.1 event 3")),
        "{export}"
    );
    tamper(
        &db,
        &format!("UPDATE events SET payload = replace(payload, '6H', '6S') WHERE id = {id}"),
    );
    wait_for_state(&server, "the alarm gone", |s| s["alarm"].is_null());
    let fourth = server.post("/api/plays", r#"{"cards":["8C"]}"#).expect(200);
    assert_eq!(fourth["ack"]["seq"], 5, "{fourth}");
    server.stop();
}
