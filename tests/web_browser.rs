//! The pages in a real browser: headless Chromium driven over WebDriver
//! (`chromedriver`, started here). The tablet page is loaded, a round and a wrong
//! play are posted through the API, and the page must show them — pushed over the
//! WebSocket, without a reload. The God console's live rule check and its camera
//! upload (read by the project's recognizer, confirmed, played with its evidence)
//! are exercised too, and its watching of the play zone through a (fake) webcam.
//!
//! Chromium and chromedriver are required (`scripts/test-all` installs them): when
//! they are missing this test fails, it does not skip.

mod web_support;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use web_support::driver::{write_y4m, Driver};
use web_support::Server;

const RULE: &str = "if last.odd then black else red";

const TABLET_STATE: &str = r#"return {
  conn: document.getElementById('conn').className,
  cards: Array.from(document.querySelectorAll('#layout [data-card]')).map(e => e.dataset.card),
  side: Array.from(document.querySelectorAll('#layout .side-entry [data-card]')).map(e => e.dataset.card),
  verdict: (document.getElementById('verdict') || {}).textContent || '',
  turn: document.getElementById('turn').textContent,
  commitment: (document.getElementById('commitment') || {}).textContent || '',
  text: document.body.innerText,
  marker: window.__loadedOnce || null
};"#;

#[test]
fn the_tablet_shows_a_posted_play_pushed_over_the_websocket() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("browser.db"));
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));

    driver.goto(&format!("http://{}/", server.addr));
    driver.wait_for("the live connection", TABLET_STATE, |v| {
        v["conn"].as_str().is_some_and(|c| c.contains("up"))
    });
    // Marks this page load: a reload would lose it.
    driver.eval("window.__loadedOnce = 'yes'; return true;");

    let round = json!({"god": "Pierre", "players": ["Alain", "François", "Jacques", "Philippe"],
                       "rule": RULE, "starter": "3H"});
    let started = server.post("/api/rounds", &round.to_string()).expect(200);
    let commitment = started["ack"]["commitment"]
        .as_str()
        .expect("commitment")
        .to_string();
    driver.wait_for("the round's commitment", TABLET_STATE, |v| {
        v["commitment"] == commitment.as_str() && v["turn"] == "Jacques"
    });

    server.post("/api/plays", r#"{"cards":["8H"]}"#).expect(200);
    let seen = driver.wait_for("the wrong play", TABLET_STATE, |v| {
        v["side"] == json!(["8H"]) && v["verdict"].as_str().is_some_and(|t| t.contains("WRONG"))
    });
    assert_eq!(
        seen["marker"], "yes",
        "the page was reloaded instead of pushed"
    );
    assert_eq!(seen["turn"], "Philippe");
    let text = seen["text"].as_str().expect("text");
    assert!(text.contains("Jacques takes 2 penalty cards"), "{text}");
    assert!(
        !text.contains(RULE) && !text.contains("must be black"),
        "the rule leaked: {text}"
    );

    server
        .post("/api/plays", r#"{"cards":["4S","9D","JC"]}"#)
        .expect(200);
    let seen = driver.wait_for("the right sequence", TABLET_STATE, |v| {
        v["verdict"].as_str().is_some_and(|t| t.contains("RIGHT"))
    });
    let cards: Vec<&str> = seen["cards"]
        .as_array()
        .expect("cards")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        cards,
        ["3H", "8H", "4S", "9D", "JC"],
        "main line with the sideline under 3H"
    );
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    driver.screenshot(&shots.join("tablet.png"));

    // The God console checks the rule as God types it.
    driver.goto(&format!(
        "http://{}/god?token={}",
        server.addr, server.token
    ));
    driver.eval(
        "const r = document.getElementById('rule'); r.value = 'if last.odd then'; \
         r.dispatchEvent(new Event('input')); return true;",
    );
    let error = driver.wait_for(
        "the rule's parse error",
        "return (document.getElementById('rule-error') || {}).textContent || '';",
        |v| v.as_str().is_some_and(|t| t.starts_with("line 1, column")),
    );
    assert!(error.as_str().expect("text").contains("column"), "{error}");
    driver.eval(&format!(
        "const r = document.getElementById('rule'); r.value = '{RULE}'; \
         r.dispatchEvent(new Event('input')); return true;"
    ));
    let report = driver.wait_for(
        "the rule checker's report",
        "return document.getElementById('check').innerText;",
        |v| v.as_str().is_some_and(|t| t.contains("acceptance rate")),
    );
    assert!(
        report.as_str().expect("text").contains("dead ends"),
        "{report}"
    );
    // A pasted page of rule is parsed, not analysed at every keystroke: said so.
    driver.eval(
        "const r = document.getElementById('rule'); \
         r.value = Array(5000).fill('red').join(' or '); \
         r.dispatchEvent(new Event('input')); return true;",
    );
    let long = driver.wait_for(
        "the long rule's parse, without analysis",
        "return document.getElementById('check').innerText;",
        |v| {
            v.as_str()
                .is_some_and(|t| t.contains("too long to analyse"))
        },
    );
    assert!(
        long.as_str().expect("text").contains("the rule parses"),
        "{long}"
    );

    // The camera: a frame of two cards on the table is uploaded from the console,
    // read by the recognizer, confirmed by God and played with its evidence.
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/06-seq2-green.jpg");
    let labels: Value = serde_json::from_str(
        &std::fs::read_to_string(scene.with_extension("json")).expect("sidecar"),
    )
    .expect("sidecar JSON");
    let labelled = labels["cards"].as_array().expect("cards").len();
    driver.send_keys("#upload", &scene.display().to_string());
    driver.wait_for(
        "the recognizer's reads",
        "return document.querySelectorAll('#reads input[type=text]').length;",
        |v| v.as_u64() == Some(labelled as u64),
    );
    // Beside each read, the card as the recognizer cut it from the frame, upright.
    driver.wait_for(
        "the cards cut from the frame",
        "return Array.from(document.querySelectorAll('#reads img.card-cut')) \
           .filter(i => i.complete && i.naturalWidth === 160 && i.naturalHeight === 224).length;",
        |v| v.as_u64() == Some(labelled as u64),
    );
    driver.eval("document.getElementById('reads').scrollIntoView(); return true;");
    driver.screenshot(&shots.join("god.png"));
    let cards = driver.eval(
        "document.querySelectorAll('#reads .read.confirm input[type=checkbox]').forEach(c => c.checked = true); \
         document.getElementById('use-reads').click(); \
         return document.getElementById('cards').value;",
    );
    let cards: Vec<String> = cards
        .as_str()
        .expect("cards")
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(cards.len(), labelled, "{cards:?}");
    driver.eval("document.getElementById('play').click(); return true;");
    // The verdict of this play, not the round's last event shown as the console opened.
    driver.wait_for(
        "the verdict on the camera's play",
        "const r = document.getElementById('result'); \
         return r.classList.contains('from-log') ? '' : r.innerText;",
        |v| {
            v.as_str()
                .is_some_and(|t| t.contains("RIGHT") || t.contains("WRONG"))
        },
    );
    let audit = server.get_god("/api/audit/1.1").expect(200);
    let events = audit["rounds"][0]["events"].as_array().expect("events");
    let played = events.last().expect("the camera's play");
    let recorded: Vec<&str> = played["cards"]
        .as_array()
        .expect("cards")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(recorded, cards, "{played}");
    assert_eq!(
        played["reads"].as_array().map(Vec::len),
        Some(labelled),
        "{played}"
    );
    let frame = played["frame"]["sha256"].as_str().expect("frame stored");
    assert_eq!(played["frame"]["intact"], true, "{played}");
    let jpeg = server.get(&format!("/api/frames/{frame}"));
    assert!(jpeg.body.starts_with(&[0xFF, 0xD8, 0xFF]));
    // The evidence keeps each card's outline, and the audit page shows the card as
    // it was read, cut from the stored frame.
    assert!(
        played["reads"]
            .as_array()
            .expect("reads")
            .iter()
            .all(|r| r["corners"].as_array().map(Vec::len) == Some(4)),
        "{played}"
    );
    driver.goto(&format!("http://{}/audit/1.1", server.addr));
    driver.wait_for(
        "the audit's cards cut from the frame",
        "return Array.from(document.querySelectorAll('.audit-read img.card-cut')) \
           .filter(i => i.complete && i.naturalWidth === 160).length;",
        |v| v.as_u64() == Some(labelled as u64),
    );
    driver.screenshot(&shots.join("audit.png"));
    driver.goto(&format!(
        "http://{}/god?token={}",
        server.addr, server.token
    ));

    // A hand spread out: most of its covered cards ask God, who confirms them all
    // with one tap once the cuts look right.
    let spread = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/spreads/0019-four-colour-white-12.jpg");
    driver.send_keys("#upload", &spread.display().to_string());
    let unsure = driver.wait_for(
        "the spread's unsure reads",
        "return document.querySelectorAll('#reads .read.confirm input[type=checkbox]').length;",
        |v| v.as_u64().is_some_and(|n| n >= 2),
    );
    let unsure = unsure.as_u64().expect("count");
    let button = driver.eval("return document.getElementById('confirm-all').textContent;");
    assert_eq!(
        button.as_str(),
        Some(format!("Confirm all {unsure} unsure reads").as_str()),
        "{button}"
    );
    let left = driver.eval(
        "document.getElementById('confirm-all').click(); \
         return document.querySelectorAll('#reads .read.confirm input[type=checkbox]:not(:checked)').length;",
    );
    assert_eq!(left.as_u64(), Some(0), "unsure reads left unconfirmed");

    // How tall the cards are: said for every frame, with advice when they are
    // smaller than the recognizer reads best (a spread of 20 cards about 112 px tall).
    let size = driver.eval("return document.getElementById('card-size').innerText;");
    let size = size.as_str().expect("the size of the spread's cards");
    assert!(
        size.starts_with("cards about 22") && !size.contains("read best"),
        "{size}"
    );

    let small =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/14-spread20-dark.jpg");
    driver.send_keys("#upload", &small.display().to_string());
    let size = driver.wait_for(
        "the advice on small cards",
        "const s = document.getElementById('card-size'); return s ? s.innerText : '';",
        |v| {
            v.as_str()
                .is_some_and(|t| t.contains("read best from about 150 px"))
        },
    );
    let px: u32 = size
        .as_str()
        .and_then(|t| t.strip_prefix("cards about "))
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a height in pixels");
    assert!((100..=125).contains(&px), "{size}");

    // Reads whose pips deny them say so beside the read: a seven read as a three
    // shows 7 pips, and is offered as the seven with what its index read; a king
    // read as a ten shows none.
    let pips = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pips/0100-white-spread.jpg");
    driver.send_keys("#upload", &pips.display().to_string());
    driver.wait_for(
        "the pips counted beside two reads",
        "return document.getElementById('reads').innerText;",
        |v| {
            v.as_str().is_some_and(|t| {
                t.contains("7 pips") && t.contains("0 pips") && t.contains("index: 3♦")
            })
        },
    );

    // An ace read in the wrong suit: its one pip says so, in the singular.
    let ace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pips/heldout-crop-1-neoclassical-ace.png");
    driver.send_keys("#upload", &ace.display().to_string());
    driver.wait_for(
        "the ace's pip beside its read",
        "return document.getElementById('reads').innerText;",
        |v| {
            v.as_str()
                .is_some_and(|t| t.contains("pip: ♠") && t.contains("index: A♣"))
        },
    );

    // A blown-out frame: the console says what is wrong with the camera.
    let dir = tempfile::tempdir().expect("temp dir");
    let blown = dir.path().join("blown.png");
    image::RgbImage::from_pixel(640, 360, image::Rgb([255, 255, 255]))
        .save(&blown)
        .expect("png");
    driver.send_keys("#upload", &blown.display().to_string());
    driver.wait_for(
        "the exposure warning",
        "return document.getElementById('reads').innerText;",
        |v| {
            v.as_str()
                .is_some_and(|t| t.contains("camera: overexposed"))
        },
    );

    drop(driver);
    server.stop();
}

/// The God console watching the play zone through a webcam (Chromium's fake
/// camera playing the empty table for six seconds, then four cards laid on it
/// for five, in a loop):
/// God drags the play zone over the first card's place; with "judge sure plays at
/// once" on, the card laid there is judged for the player whose turn it is, with
/// the settling frame and its read as evidence, and no one taps anything. The
/// three cards outside the zone are not played.
#[test]
fn the_console_watches_the_play_zone_and_judges_a_sure_play_by_itself() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("watch.db"));
    let round = json!({"god": "Pierre", "players": ["Alain", "François", "Jacques"],
                       "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);

    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/08-seq4-dark.jpg");
    let cards = image::open(&scene).expect("frame").to_rgb8();
    let cloth = *cards.get_pixel(5, 5);
    let empty = image::RgbImage::from_pixel(cards.width(), cards.height(), cloth);
    let video = dir.path().join("table.y4m");
    let mut frames = vec![&empty; 6];
    frames.extend(std::iter::repeat_n(&cards, 5));
    write_y4m(&video, &frames);

    let mut driver = Driver::start();
    driver.open_session_with_webcam(&dir.path().join("profile"), &video);
    driver.goto(&format!(
        "http://{}/god?token={}",
        server.addr, server.token
    ));
    driver.wait_for(
        "the live round",
        "return document.getElementById('now').textContent;",
        |v| v.as_str().is_some_and(|t| t.contains("Turn: Jacques")),
    );
    driver.eval("document.getElementById('cam-on').click(); return true;");
    driver.wait_for(
        "the webcam's picture",
        "return document.getElementById('video').videoWidth;",
        |v| v.as_u64() == Some(1280),
    );
    driver.wait_for(
        "the preview drawn",
        "return document.getElementById('preview').width;",
        |v| v.as_u64() == Some(1280),
    );
    // God marks the play zone by dragging over the left quarter of the picture:
    // of the four cards on the table, only the first lies in it.
    driver.eval("document.getElementById('preview').scrollIntoView(); return true;");
    let rect = driver.eval(
        "const r = document.getElementById('preview').getBoundingClientRect(); \
         return [r.left, r.top, r.width, r.height];",
    );
    let at = |fx: f64, fy: f64| {
        let r: Vec<f64> = rect
            .as_array()
            .expect("rect")
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        (
            (r[0] + fx * r[2]).round() as i64,
            (r[1] + fy * r[3]).round() as i64,
        )
    };
    let ((x0, y0), (x1, y1)) = (at(0.01, 0.02), at(0.26, 0.98));
    driver.eval("document.getElementById('mark-zone').click(); return true;");
    driver.call(
        "POST",
        &driver.session_path("actions"),
        &json!({"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "x": x0, "y": y0, "origin": "viewport"},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerMove", "x": x1, "y": y1, "origin": "viewport", "duration": 200},
                {"type": "pointerUp", "button": 0}]}]}),
    );
    let zone = driver.eval(
        "return [JSON.parse(localStorage.getItem('eleusis.zone')), \
                 document.getElementById('zone-box').hidden];",
    );
    let marked: Vec<f64> = zone[0]
        .as_array()
        .expect("zone kept")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert!(
        marked.len() == 4 && marked[0] < 0.03 && (marked[2] - 0.26).abs() < 0.02,
        "{zone}"
    );
    assert_eq!(zone[1], false, "the zone is drawn over the picture");
    driver.eval(
        "document.getElementById('auto-judge').checked = true; \
         const w = document.getElementById('watch'); w.checked = true; \
         w.dispatchEvent(new Event('change')); return true;",
    );
    // The fake camera's loop is eleven seconds long, and watching may begin with
    // the cards already down: they must be seen taken away first.
    let result = driver.wait_within(
        Duration::from_secs(40),
        "the verdict on the play laid in the zone",
        "return document.getElementById('result').innerText;",
        |v| {
            v.as_str()
                .is_some_and(|t| t.contains("RIGHT") || t.contains("WRONG"))
        },
    );
    assert!(
        result.as_str().unwrap_or("").contains("plays card 4D"),
        "{result}"
    );
    let status = driver.eval("return document.getElementById('watch-status').textContent;");
    assert!(
        status
            .as_str()
            .is_some_and(|t| t.contains("play read") && t.contains("3 card(s) outside the zone")),
        "{status}"
    );
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("god-watch.png"));

    let audit = server.get_god("/api/audit/1.1").expect(200);
    let events = audit["rounds"][0]["events"].as_array().expect("events");
    let plays: Vec<&Value> = events.iter().filter(|e| e["event"] == "play").collect();
    assert_eq!(plays.len(), 1, "one play, judged once: {events:?}");
    let played = plays[0];
    assert_eq!(played["player"], "Jacques", "{played}");
    assert_eq!(played["cards"], json!(["4D"]), "{played}");
    assert_eq!(
        played["reads"].as_array().map(Vec::len),
        Some(1),
        "{played}"
    );
    assert_eq!(played["frame"]["intact"], true, "{played}");
}

/// A webcam clamped on the far side of the table, set to mirror its picture: it
/// gives the table upside down and mirrored, and the row of four comes out in
/// reverse with every index mirrored. God sets "upside down" and "mirrored" once;
/// the console turns every picture before showing and sending it, so the capture
/// reads the four cards in the players' order, and the setting is kept for the
/// next visit. A quarter turn makes the preview portrait.
#[test]
fn the_console_turns_a_mirrored_upside_down_webcam_to_the_players_view() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("turn.db"));
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/08-seq4-dark.jpg");
    let table = image::open(&scene).expect("frame").to_rgb8();
    let camera = image::imageops::flip_horizontal(&image::imageops::rotate180(&table));
    let video = dir.path().join("far-side.y4m");
    write_y4m(&video, &[&camera, &camera]);

    let mut driver = Driver::start();
    driver.open_session_with_webcam(&dir.path().join("profile"), &video);
    let console = format!("http://{}/god?token={}", server.addr, server.token);
    driver.goto(&console);
    let set_turn = |degrees: &str, mirror: bool| {
        driver.eval(&format!(
            "const t = document.getElementById('cam-turn'); t.value = '{degrees}'; \
             t.dispatchEvent(new Event('change')); \
             const m = document.getElementById('cam-mirror'); m.checked = {mirror}; \
             m.dispatchEvent(new Event('change')); return true;"
        ));
    };
    set_turn("180", true);
    driver.eval("document.getElementById('cam-on').click(); return true;");
    let preview = "const c = document.getElementById('preview'); return [c.width, c.height];";
    driver.wait_for("the turned preview", preview, |v| v == &json!([1280, 720]));
    driver.eval("document.getElementById('snap').click(); return true;");
    let reads = driver.wait_for(
        "the captured frame's reads",
        "return Array.from(document.querySelectorAll('#reads input[type=text]')).map((i) => i.value);",
        |v| v.as_array().is_some_and(|a| a.len() == 4),
    );
    assert_eq!(
        reads,
        json!(["4D", "4H", "8C", "5H"]),
        "left to right as the players see them"
    );
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("god-turned.png"));

    // The setting outlives the page.
    driver.goto(&console);
    let kept = driver.wait_for(
        "the kept setting",
        "return [document.getElementById('cam-turn').value, document.getElementById('cam-mirror').checked];",
        |v| v.is_array(),
    );
    assert_eq!(kept, json!(["180", true]));
    // A camera at the table's end: its landscape picture is shown portrait.
    set_turn("90", false);
    driver.eval("document.getElementById('cam-on').click(); return true;");
    driver.wait_for("the portrait preview", preview, |v| {
        v == &json!([720, 1280])
    });
    drop(driver);
    server.stop();
}

/// With a prophet in office the prophet calls every play first (RULES.md 4): the
/// console refuses to send a play until God has chosen the prophet's call, sends
/// the call chosen, and starts the next play with no call chosen again.
#[test]
fn the_console_never_makes_up_the_prophets_call() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("prophet.db"));
    let round = json!({"god": "Pierre", "players": ["Alain", "François", "Jacques", "Philippe"],
                       "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    server
        .post("/api/prophet", r#"{"player":"Jacques"}"#)
        .expect(200);

    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&format!(
        "http://{}/god?token={}",
        server.addr, server.token
    ));
    driver.wait_for(
        "the prophet's call box",
        "return [document.getElementById('call-box').hidden, document.getElementById('call').value];",
        |v| v == &json!([false, ""]),
    );
    let laid = || server.get("/api/state").expect(200)["state"]["laid"].clone();
    let before = laid();
    driver.send_keys("#cards", "5H");
    driver.eval("document.getElementById('play').click(); return true;");
    driver.wait_for(
        "the refusal",
        "return document.getElementById('play-error').textContent;",
        |v| v.as_str().is_some_and(|t| t.contains("prophet's call")),
    );
    assert_eq!(laid(), before, "nothing was sent");

    driver.eval(
        "document.getElementById('call').value = 'right'; \
         document.getElementById('play').click(); return true;",
    );
    let result = driver.wait_for(
        "the verdict",
        "return document.getElementById('result').innerText;",
        |v| v.as_str().is_some_and(|t| t.contains("5H")),
    );
    assert!(
        result.as_str().unwrap_or("").contains("said right"),
        "{result}"
    );
    let call = driver.eval("return document.getElementById('call').value;");
    assert_eq!(call, json!(""), "the next play starts with no call");

    // A wrong call is corrected in the log's editor, beside the play's cards.
    driver.eval("document.querySelector('#log tr.event button').click(); return true;");
    let offered = driver.wait_for(
        "the prophet's call in the correction editor",
        "const c = document.getElementById('fix-call'); \
         return c ? [...c.options].map((o) => o.text) : null;",
        |v| v.is_array(),
    );
    assert_eq!(
        offered,
        json!(["as called (right)", "right", "wrong", "no call"])
    );
    driver.eval(
        "const c = document.getElementById('fix-call'); c.value = 'wrong'; \
         c.dispatchEvent(new Event('change')); \
         document.getElementById('fix-apply').click(); return true;",
    );
    driver.wait_for(
        "the editor closed",
        "return document.getElementById('fix-call') === null;",
        |v| v == true,
    );
    let view = server.get("/api/state").expect(200);
    let said = view["plays"]
        .as_array()
        .and_then(|plays| plays.iter().find(|p| p["cards"] == json!(["5H"])))
        .map(|p| p["outcome"]["prophet_call"]["said"].clone());
    assert_eq!(said, Some(json!("wrong")), "{view}");
    drop(driver);
    server.stop();
}

/// Uploads the committed three-card scene (8C, a sure KH, 5C) and checks that only
/// the king asks God, marked "court".
fn assert_the_sure_king_asks_as_a_court(driver: &Driver) {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/09-seq3-pattern.jpg");
    driver.send_keys("#upload", &scene.display().to_string());
    let rows = driver.wait_for(
        "the three reads",
        "return Array.from(document.querySelectorAll('#reads .read')).map(r => \
           [r.querySelector('input[type=text]').value, r.classList.contains('confirm'), \
            !!r.querySelector('.court-asks')]);",
        |v| v.as_array().is_some_and(|a| a.len() == 3),
    );
    assert_eq!(
        rows,
        json!([
            ["8C", false, false],
            ["KH", true, true],
            ["5C", false, false]
        ])
    );
}

/// `serve --confirm-courts`: the console marks a court card's read as asked by
/// the table's choice, beside the sure read that would not otherwise ask.
#[test]
fn the_console_says_why_a_sure_court_card_asks_at_a_table_confirming_courts() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_confirming_courts(&dir.path().join("courts.db"));
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&format!(
        "http://{}/god?token={}",
        server.addr, server.token
    ));
    assert_the_sure_king_asks_as_a_court(&driver);
}

/// The Camera panel's "court cards ask God" box: shown as the service has it,
/// and switched there when God ticks it, so the next frame's sure king asks.
#[test]
fn god_ticks_court_confirmation_on_in_the_console_and_the_next_frame_asks() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("tick.db"));
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&format!(
        "http://{}/god?token={}",
        server.addr, server.token
    ));
    let boxed =
        "const b = document.getElementById('confirm-courts'); return [b.checked, b.disabled];";
    driver.wait_for("the box, unticked and ready", boxed, |v| {
        *v == json!([false, false])
    });
    driver.eval("document.getElementById('confirm-courts').click(); return null;");
    driver.wait_for("the box, ticked and answered", boxed, |v| {
        *v == json!([true, false])
    });
    assert_eq!(
        server.get_god("/api/camera").expect(200)["confirm_courts"],
        json!(true)
    );
    assert_the_sure_king_asks_as_a_court(&driver);
    // Unticked: the service reads courts as any card again.
    driver.eval("document.getElementById('confirm-courts').click(); return null;");
    driver.wait_for("the box, unticked and answered", boxed, |v| {
        *v == json!([false, false])
    });
    assert_eq!(
        server.get_god("/api/camera").expect(200)["confirm_courts"],
        json!(false)
    );
    drop(driver);
    server.stop();
}

/// A service on a fresh database in `dir` and the tablet page open on it, live
/// (in a window of `size` when given).
fn live_tablet(dir: &Path, db: &str, size: Option<(u32, u32)>) -> (Server, Driver) {
    let server = Server::start(&dir.join(db));
    let mut driver = Driver::start();
    driver.open_session(&dir.join("profile"));
    if let Some((width, height)) = size {
        driver.call(
            "POST",
            &driver.session_path("window/rect"),
            &json!({"width": width, "height": height}),
        );
    }
    driver.goto(&format!("http://{}/", server.addr));
    driver.wait_for("the live connection", TABLET_STATE, |v| {
        v["conn"].as_str().is_some_and(|c| c.contains("up"))
    });
    (server, driver)
}

#[test]
fn the_tablet_keeps_the_game_standings_up_during_the_next_round() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = live_tablet(dir.path(), "standings.db", None);
    // One card each: the first right play empties a hand and ends the round.
    let round = json!({"variant": "basic", "god": "Gil", "players": ["Ana", "Bo"],
                       "rule": "red", "starter": "AH", "hand_size": 1});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["2H"]}"#).expect(200);
    let state = server.get("/api/state").expect(200);
    let standings = state["state"]["game"]["standings"].clone();
    assert!(standings.is_object(), "standings after one round: {state}");
    assert!(state["state"]["game"]["totals"].is_null(), "{state}");
    let round = json!({"variant": "basic", "god": "Ana", "players": ["Bo", "Gil"],
                       "rule": "black", "starter": "AS", "hand_size": 1});
    server.post("/api/rounds", &round.to_string()).expect(200);
    let shown = driver.wait_for(
        "the standings during round 2",
        "const p = document.getElementById('scores-panel'); \
         return {hidden: p.hidden, rows: Array.from(document.querySelectorAll('#scores tr')) \
           .map(r => Array.from(r.cells).map(c => c.textContent))};",
        |v| v["hidden"] == false && v["rows"].as_array().is_some_and(|r| r.len() == 4),
    );
    for row in shown["rows"].as_array().expect("rows").iter().skip(1) {
        let name = row[0].as_str().expect("name");
        let game = row[2].as_str().expect("game");
        assert_eq!(
            game,
            standings[name].to_string(),
            "{name}'s standing: {shown}"
        );
    }
}

/// Each player's row of the tablet's Players panel, and the last play's verdict:
/// whether it is in sight, inside both the screen and the side column's box (a
/// row scrolled out of that box is out of sight too).
const PLAYERS_IN_SIGHT: &str = r#"const aside = document.querySelector('aside').getBoundingClientRect();
const top = Math.max(0, aside.top), bottom = Math.min(window.innerHeight, aside.bottom);
const seen = (e) => { if (!e) return false; const r = e.getBoundingClientRect();
  return r.height > 0 && r.top >= top - 0.5 && r.bottom <= bottom + 0.5; };
const rows = Array.from(document.querySelectorAll('#players tr')).slice(1);
return {width: window.innerWidth, height: window.innerHeight, rows: rows.length,
  out: rows.filter(r => !seen(r)).map(r => r.cells[0].textContent),
  verdict: seen(document.getElementById('verdict')),
  last: document.getElementById('last').innerText};"#;

/// On a landscape tablet (1024 × 768, the viewport the tablet is open at, then
/// 1280 × 800) every player's hand count is in sight beside a long last play, and
/// so is its verdict.
fn assert_every_player_in_sight(driver: &Driver, players: usize, shot: &str) {
    for (width, height) in [(1024, 768), (1280, 800)] {
        driver.viewport(width, height);
        let seen = driver.wait_for(
            &format!("every player's row in sight at {width} × {height}"),
            PLAYERS_IN_SIGHT,
            |v| {
                v["width"] == width
                    && v["height"] == height
                    && v["rows"] == players
                    && v["out"] == json!([])
            },
        );
        assert_eq!(seen["verdict"], true, "the verdict is out of sight: {seen}");
        driver.screenshot(
            &Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{shot}-{width}.png")),
        );
    }
}

#[test]
fn a_correction_tells_the_table_whose_hands_change_and_keeps_the_last_play_in_sight() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = live_tablet(dir.path(), "hands.db", None);
    driver.viewport(1024, 768);
    let round = json!({"god": "Pierre", "players": ["Alain", "François", "Jacques", "Philippe"],
                       "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    // Jacques 4S, Philippe 9D, Alain 9S: all right.
    for card in ["4S", "9D", "9S"] {
        server
            .post("/api/plays", &json!({ "cards": [card] }).to_string())
            .expect(200);
    }
    let before = server.get("/api/state").expect(200)["state"]["hands"].clone();
    // Jacques's card was a 4♥: his play and Philippe's are now wrong, and each
    // owes the penalty; the players must be told to take the cards.
    server
        .post("/api/corrections", r#"{"seq":2,"cards":["4H"]}"#)
        .expect(200);
    let view = server.get("/api/state").expect(200);
    let after = view["state"]["hands"].clone();
    let hands = view["correction"]["hands"]
        .as_array()
        .expect("hands")
        .clone();
    assert!(!hands.is_empty(), "{view}");
    let expected: Vec<String> = hands
        .iter()
        .map(|h| {
            let name = h["player"].as_str().expect("player");
            assert_eq!(h["was"], before[name], "{name}: {h}");
            assert_eq!(h["now"], after[name], "{name}: {h}");
            let (was, now) = (
                h["was"].as_i64().expect("was"),
                h["now"].as_i64().expect("now"),
            );
            assert!(now > was, "a wrong play owes cards: {h}");
            format!(
                "{name} takes {} card{} (hand {was} → {now})",
                now - was,
                if now - was == 1 { "" } else { "s" }
            )
        })
        .collect();
    let names: Vec<&str> = hands.iter().filter_map(|h| h["player"].as_str()).collect();
    assert_eq!(names, ["Jacques", "Philippe"], "{view}");
    let shown = driver.wait_for(
        "the hands the correction changed",
        "return {hands: Array.from(document.querySelectorAll('#hand-changes li')).map(e => e.textContent), \
                 last: (document.getElementById('last-play') || {}).textContent || ''};",
        |v| v["hands"].as_array().is_some_and(|h| !h.is_empty()),
    );
    assert_eq!(shown["hands"], json!(expected), "{shown}");
    assert_eq!(shown["last"], "last play: Alain 9S — RIGHT ✓", "{shown}");
    // The hands it changed are in sight on a landscape tablet.
    assert_every_player_in_sight(&driver, 4, "tablet-correction-hands");
}

/// A long round with sidelines and a prophet, on a 1280 × 800 tablet: the whole
/// layout stays inside its box (smaller cards rather than cards cut off at its
/// edge), and the prophet's marker is on its own card, which is outlined.
#[test]
fn a_long_round_fits_the_tablet_and_the_prophets_card_is_marked_on_itself() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = live_tablet(dir.path(), "long.db", Some((1280, 800)));
    let round = json!({"god": "Gil", "players": ["Ana", "Bo", "Cy", "Dee"],
                       "rule": "red", "starter": "AH", "hand_size": 30});
    server.post("/api/rounds", &round.to_string()).expect(200);
    let reds: Vec<String> = ["H", "D"]
        .iter()
        .flat_map(|s| {
            ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
                .iter()
                .map(move |r| format!("{r}{s}"))
        })
        .collect();
    let blacks = ["2S", "5C", "9S", "JC", "KS", "3C", "8S", "QC", "4S", "7C"];
    let mut prophet = false;
    // Wrong plays early only: in sudden death they would eliminate.
    for i in 0..56 {
        let wrong = i < 24 && i % 3 == 2;
        let card = if wrong {
            blacks[(i / 3) % blacks.len()].to_string()
        } else {
            reds[i % reds.len()].clone()
        };
        let mut play = json!({ "cards": [card] });
        if prophet {
            play["prophet_says"] = json!(if wrong { "wrong" } else { "right" });
        }
        let answer = server.post("/api/plays", &play.to_string()).expect(200);
        if i == 6 {
            let player = answer["last"]["player"]
                .as_str()
                .expect("player")
                .to_string();
            server
                .post("/api/prophet", &json!({ "player": player }).to_string())
                .expect(200);
            prophet = true;
        }
    }
    let state = server.get("/api/state").expect(200);
    let laid = state["state"]["laid"].as_u64().expect("laid");
    assert!(laid >= 57, "{state}");
    let marker = state["state"]["prophet"]["marker"]
        .as_u64()
        .expect("a prophet");
    let seen = driver.wait_for(
        "the long layout",
        "const w = document.getElementById('layout-scroll'); \
         const cards = document.querySelectorAll('#layout [data-card]'); \
         const marked = Array.from(document.querySelectorAll('#layout .card.prophet-marked')); \
         const inside = marked.map(c => { const r = c.getBoundingClientRect(), \
             p = c.querySelector('.marker.prophet').getBoundingClientRect(); \
           return p.left >= r.left && p.right <= r.right && p.top >= r.top && p.bottom <= r.bottom; }); \
         return {cards: cards.length, fits: w.scrollHeight <= w.clientHeight + 1, size: document.getElementById('layout').className, \
                 scroll: [w.scrollHeight, w.clientHeight], \
                 marked: marked.map(c => c.querySelector('.laid').textContent), inside};",
        |v| v["cards"].as_u64() == Some(laid),
    );
    assert_eq!(seen["fits"], true, "the layout overflows its box: {seen}");
    assert_eq!(seen["marked"], json!([marker.to_string()]), "{seen}");
    assert_eq!(seen["inside"], json!([true]), "{seen}");
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("tablet-long.png"));
}

#[test]
fn the_tablet_names_every_event_a_correction_line_corrected_together() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = live_tablet(dir.path(), "group.db", None);
    web_support::record_a_prophet_call_to_correct(&server);
    server
        .post(
            "/api/corrections",
            r#"{"seq":4,"prophet_says":"right","also":[{"seq":5,"prophet_says":null}]}"#,
        )
        .expect(200);
    let shown = driver.wait_for(
        "the grouped correction",
        "return (document.getElementById('group') || {}).textContent || '';",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    );
    assert_eq!(shown, "corrected together: 1.1:4, 1.1:5");
}

#[test]
fn the_tablet_says_why_a_shown_hand_moved_the_counts() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = live_tablet(dir.path(), "noted.db", None);
    driver.viewport(1024, 768);
    let players = ["Ana", "Bo", "Cy", "Dee", "Eve", "Flo", "Guy", "Hal"];
    let round = json!({"god": "Gil", "players": players, "rule": "red",
                       "starter": "AH", "hand_size": 8});
    server.post("/api/rounds", &round.to_string()).expect(200);
    let state = server.get("/api/state").expect(200);
    let first = state["state"]["turn"].as_str().expect("turn").to_string();
    // A right no-play showing 6 cards where the referee counted 8 (the round goes on).
    server
        .post(
            "/api/no-plays",
            r#"{"hand":["2S","4C","6S","8C","10S","QC"]}"#,
        )
        .expect(200);
    assert_eq!(
        server.get("/api/state").expect(200)["state"]["ended"],
        false
    );
    let shown = driver.wait_for(
        "the note",
        "return Array.from(document.querySelectorAll('#last .effect')).map(e => e.textContent);",
        |v| {
            v.as_array().is_some_and(|e| {
                e.iter()
                    .any(|t| t.as_str().is_some_and(|t| t.starts_with("note: ")))
            })
        },
    );
    let notes: Vec<&str> = shown
        .as_array()
        .expect("effects")
        .iter()
        .filter_map(Value::as_str)
        .filter(|t| t.starts_with("note: "))
        .collect();
    assert_eq!(
        notes,
        [format!(
            "note: {first} showed 6 cards but the referee counted 8; the shown hand is trusted"
        )],
        "{shown}"
    );
    // Eight players' hand counts stay in sight beside the note.
    assert_every_player_in_sight(&driver, players.len(), "tablet-note");
}

/// A round of 12 players on a portrait tablet (800 × 1280): the stock banner says
/// the four decks were needed to deal (the stock never ran out), the Prophet is
/// named as such (not "declares himself", whoever reads it), and the white
/// marker on a sideline card leaves the laid number of the card above it clear.
#[test]
fn a_portrait_tablet_says_why_decks_were_added_and_keeps_laid_numbers_clear() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = live_tablet(dir.path(), "portrait.db", Some((800, 1280)));
    let players: Vec<String> = (1..=12).map(|i| format!("P{i}")).collect();
    let round = json!({"god": "Gil", "players": players, "rule": "red", "starter": "AH"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    let state = server.get("/api/state").expect(200);
    assert_eq!(state["state"]["decks"], 4, "{state}");
    // Laid 2 to 8 right, then a wrong sequence laid 9 and 10: the white marker
    // of laid card 10 on the sequence's second card, under laid card 9.
    for card in ["2H", "3H", "4H", "5H", "6H", "7H", "8H"] {
        server
            .post("/api/plays", &json!({ "cards": [card] }).to_string())
            .expect(200);
    }
    server
        .post("/api/plays", r#"{"cards":["2S","3C"]}"#)
        .expect(200);
    let answer = server.post("/api/plays", r#"{"cards":["9H"]}"#).expect(200);
    let prophet = answer["last"]["player"]
        .as_str()
        .expect("player")
        .to_string();
    server
        .post("/api/prophet", &json!({ "player": prophet }).to_string())
        .expect(200);
    let seen = driver.wait_for(
        "the marked sideline",
        "const laid = Array.from(document.querySelectorAll('#layout .card .laid')); \
         const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; \
         const badges = Array.from(document.querySelectorAll('#layout .side-entry .marker.white, #layout .side-entry .marker.black')); \
         return {badges: badges.map(m => m.textContent), \
                 covered: badges.flatMap(m => laid.filter(l => l.parentElement !== m.parentElement && \
                   overlaps(m.getBoundingClientRect(), l.getBoundingClientRect())).map(l => l.textContent)), \
                 banner: (document.getElementById('stock-banner') || {}).textContent || '', \
                 verdict: (document.getElementById('last') || {}).innerText || ''};",
        |v| v["badges"] == json!(["10"]) && v["verdict"].as_str().is_some_and(|t| t.contains("PROPHET")),
    );
    assert_eq!(
        seen["covered"],
        json!([]),
        "a badge covers a laid number: {seen}"
    );
    assert_eq!(
        seen["banner"], "4 decks in play (12 hands of 14 and the starter needed 169 cards)",
        "{seen}"
    );
    assert!(
        seen["verdict"]
            .as_str()
            .is_some_and(|t| t.contains(&format!("{prophet} is the Prophet"))),
        "{seen}"
    );
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("tablet-portrait.png"));
}
