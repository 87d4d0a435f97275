//! The God console in a real browser (headless Chromium over WebDriver, as in
//! `tests/web_browser.rs`): watching the play zone with the camera panel scrolled
//! out of sight, God tokens that are not plain ASCII words, a failed upload after a
//! good one, the start form's checks, the player field following the turn, refused
//! plays and corrections, the Enter key, and the page's width on a small screen.
//!
//! Chromium and chromedriver are required (`scripts/test-all` installs them): when
//! they are missing these tests fail, they do not skip.

mod web_support;

use std::path::Path;
use std::time::Duration;

use eleusis::vision::geometry::{Point, Quad};
use serde_json::{json, Value};
use web_support::driver::{write_y4m, Driver};
use web_support::Server;

const RULE: &str = "if last.odd then black else red";

fn round(players: &[&str]) -> String {
    json!({"god": "Pierre", "players": players, "rule": RULE, "starter": "3H"}).to_string()
}

fn console(server: &Server) -> String {
    format!("http://{}/god?token={}", server.addr, server.token)
}

/// The plays of round 1.1 in the audit: (player, cards, whether a frame is kept).
fn plays(server: &Server) -> Vec<Value> {
    let audit = server.get_god("/api/audit/1.1").expect(200);
    audit["rounds"][0]["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "play")
        .cloned()
        .collect()
}

fn wait_for_turn(driver: &Driver, name: &str) {
    driver.wait_for(
        &format!("{name}'s turn"),
        "return document.getElementById('now').textContent;",
        |v| {
            v.as_str()
                .is_some_and(|t| t.contains(&format!("Turn: {name}")))
        },
    );
}

/// Switches the webcam on, waits for its picture, and watches the play zone with
/// "judge sure plays at once" on.
fn watch_with_auto_judge(driver: &Driver) {
    driver.eval("document.getElementById('cam-on').click(); return true;");
    driver.wait_for(
        "the webcam's picture",
        "return document.getElementById('preview').width;",
        |v| v.as_u64() == Some(1280),
    );
    driver.eval(
        "document.getElementById('auto-judge').checked = true; \
         const w = document.getElementById('watch'); w.checked = true; \
         w.dispatchEvent(new Event('change')); return true;",
    );
}

fn set_window(driver: &Driver, width: u32, height: u32) {
    driver.call(
        "POST",
        &driver.session_path("window/rect"),
        &json!({"width": width, "height": height}),
    );
}

/// Scrolled to the Play panel on a short screen, the camera panel is out of sight;
/// a browser pauses a muted video it thinks nobody sees, and the watcher would get
/// the same frozen picture for ever. The console keeps its video in view and
/// playing: two plays laid one after the other (a loop of the empty table, one card,
/// the empty table, another card, three seconds each) are both read and judged.
/// When the camera stops, the watch status says so.
#[test]
fn watching_goes_on_with_the_camera_panel_out_of_sight() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("watch.db"));
    server
        .post(
            "/api/rounds",
            &round(&["Alain", "François", "Jacques", "Philippe"]),
        )
        .expect(200);

    // 4D and 8C of a labelled scene, each alone on the cloth.
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/08-seq4-dark.jpg");
    let table = image::open(&scene).expect("frame").to_rgb8();
    let cloth = *table.get_pixel(5, 5);
    let empty = image::RgbImage::from_pixel(table.width(), table.height(), cloth);
    let alone = |x0: u32, y0: u32, x1: u32, y1: u32| {
        let mut frame = empty.clone();
        for y in y0..y1 {
            for x in x0..x1 {
                frame.put_pixel(x, y, *table.get_pixel(x, y));
            }
        }
        frame
    };
    let (four, eight) = (alone(188, 184, 332, 372), alone(490, 178, 642, 378));
    let video = dir.path().join("two-plays.y4m");
    let mut frames = vec![&empty; 3];
    frames.extend([&four; 3]);
    frames.extend([&empty; 3]);
    frames.extend([&eight; 3]);
    write_y4m(&video, &frames);

    let mut driver = Driver::start();
    driver.open_session_with_webcam(&dir.path().join("profile"), &video);
    set_window(&driver, 1366, 560);
    driver.goto(&console(&server));
    wait_for_turn(&driver, "Jacques");
    watch_with_auto_judge(&driver);
    driver.eval("window.scrollTo(0, 0); return true;");
    let view = driver.eval(
        "const r = document.getElementById('camera-view').getBoundingClientRect(); \
         return [r.top, window.innerHeight];",
    );
    assert!(
        view[0].as_f64() > view[1].as_f64(),
        "the camera panel is out of sight: {view}"
    );
    // The loop is twelve seconds long, and watching may begin with a card down.
    let start = std::time::Instant::now();
    let plays = loop {
        let plays = plays(&server);
        if plays.len() >= 2 || start.elapsed() > Duration::from_secs(40) {
            break plays;
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let status = driver.eval("return document.getElementById('watch-status').textContent;");
    let seen: Vec<(&Value, &Value)> = plays.iter().map(|p| (&p["player"], &p["cards"])).collect();
    assert_eq!(seen.len(), 2, "{plays:?} (watching: {status})");
    assert_eq!(seen[0].0, "Jacques", "{plays:?}");
    assert_eq!(seen[1].0, "Philippe", "{plays:?}");
    let mut cards: Vec<&Value> = seen.iter().map(|s| s.1).collect();
    cards.sort_by_key(|c| c.to_string());
    assert_eq!(cards, [&json!(["4D"]), &json!(["8C"])], "{plays:?}");

    // The camera is unplugged.
    driver.eval(
        "document.getElementById('video').srcObject.getVideoTracks()[0].stop(); return true;",
    );
    driver.wait_for(
        "the camera's trouble said",
        "return document.getElementById('watch-status').textContent;",
        |v| v.as_str().is_some_and(|t| t.contains("the camera stopped")),
    );
    drop(driver);
    server.stop();
}

/// A play of two sure cards beside a third washed out to blank paper by a lamp's
/// glare, on which no index can be read: with "judge sure plays at once" on, the
/// play is not judged (it could be a play of three), and God is told why and shown
/// the outline.
#[test]
fn a_play_beside_a_card_no_index_can_be_read_on_waits_for_god() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("watch.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    // The eight cards of a path-traced photo (tests/data/shadow) with all but the
    // 7H and the 7C painted over with the felt's colour, and the 3H's place
    // painted as a card washed out to white.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/shadow");
    let mut table = image::open(root.join("73-0047-eight-slant.jpg"))
        .expect("frame")
        .to_rgb8();
    let labelled: Value =
        serde_json::from_slice(&std::fs::read(root.join("73-0047-eight-slant.json")).unwrap())
            .unwrap();
    let felt = *table.get_pixel(900, 600);
    let mut paint = |corners: &Value, grow: f64, colour: image::Rgb<u8>| {
        let at = |k: usize| {
            Point::new(
                corners[k][0].as_f64().unwrap(),
                corners[k][1].as_f64().unwrap(),
            )
        };
        let c = Quad([0, 1, 2, 3].map(at)).centre();
        let grown = Quad([0, 1, 2, 3].map(|k| {
            let p = at(k);
            Point::new(c.x + grow * (p.x - c.x), c.y + grow * (p.y - c.y))
        }));
        for (x, y, px) in table.enumerate_pixels_mut() {
            if grown.contains(Point::new(f64::from(x), f64::from(y))) {
                *px = colour;
            }
        }
    };
    let cards = labelled["cards"].as_array().unwrap();
    for card in cards {
        if !["7H", "7C"].contains(&card["card"].as_str().unwrap()) {
            paint(&card["corners"], 1.2, felt);
        }
    }
    let blank = cards.iter().find(|c| c["card"] == "3H").unwrap();
    paint(&blank["corners"], 1.0, image::Rgb([246, 246, 242]));
    let empty = image::RgbImage::from_pixel(table.width(), table.height(), felt);
    let video = dir.path().join("shadow.y4m");
    let mut frames = vec![&empty; 3];
    frames.extend([&table; 4]);
    write_y4m(&video, &frames);

    let mut driver = Driver::start();
    driver.open_session_with_webcam(&dir.path().join("profile"), &video);
    driver.goto(&console(&server));
    driver.wait_for(
        "the round's turn",
        "return document.getElementById('now').textContent;",
        |v| v.as_str().is_some_and(|t| t.contains("Turn: ")),
    );
    watch_with_auto_judge(&driver);
    let said = driver.wait_for(
        "the play held for God",
        "return [document.getElementById('play-error').textContent, \
         document.getElementById('watch-status').textContent];",
        |v| {
            v[0].as_str()
                .is_some_and(|t| t.contains("could not be read"))
        },
    )[0]
    .clone();
    assert!(
        said.as_str().unwrap().starts_with("1 card-shaped outline"),
        "{said}"
    );
    let reads = driver.eval(
        "return [document.getElementById('unreadable') !== null, \
         [...document.querySelectorAll('#reads input[type=text]')].map((i) => i.value)];",
    );
    // The outline's cut comes first (left to right), with an empty field to
    // type the card in; typed, it takes its place in the play.
    assert_eq!(reads, json!([true, ["", "7H", "7C"]]), "{reads}");
    assert!(plays(&server).is_empty(), "{:?}", plays(&server));
    // The reads filled the cards field when the play was laid; the card typed
    // beside the outline fills it again, without another tap.
    let cards = driver.eval(
        "const i = document.querySelector('#reads .read.unreadable input[type=text]'); \
         const before = document.getElementById('cards').value; \
         i.value = '3H'; i.dispatchEvent(new Event('input', { bubbles: true })); \
         return [before, document.getElementById('cards').value, \
         document.querySelector('#reads .read.unreadable img.card-cut').src.includes('/card?corners=')];",
    );
    assert_eq!(cards, json!(["7H 7C", "3H 7H 7C", true]), "{cards}");
    // Cards God typed in the field itself are God's: a row edited after that
    // leaves them be.
    let kept = driver.eval(
        "const f = document.getElementById('cards'); f.value = '7H 7C 3H'; \
         const i = document.querySelector('#reads input[data-index]'); \
         i.dispatchEvent(new Event('input', { bubbles: true })); \
         const kept = f.value; f.value = '3H 7H 7C'; return kept;",
    );
    assert_eq!(kept, json!("7H 7C 3H"), "{kept}");

    // Played, the typed card is kept as evidence with the outline the camera saw
    // and no read, beside the two cards read: an audit shows all three.
    driver.eval("document.getElementById('play').click(); return true;");
    wait_for_turn(&driver, "Alain");
    let played = plays(&server);
    assert_eq!(played.len(), 1, "{played:?}");
    let reads = &played[0]["reads"];
    assert_eq!(played[0]["cards"], json!(["3H", "7H", "7C"]), "{played:?}");
    assert_eq!(reads[0]["read"], Value::Null, "{reads}");
    assert_eq!(reads[0]["status"], "typed", "{reads}");
    let cut = Quad([0, 1, 2, 3].map(|k| {
        Point::new(
            reads[0]["corners"][k][0].as_f64().unwrap(),
            reads[0]["corners"][k][1].as_f64().unwrap(),
        )
    }));
    let at = |k: usize| {
        Point::new(
            blank["corners"][k][0].as_f64().unwrap(),
            blank["corners"][k][1].as_f64().unwrap(),
        )
    };
    let blank_centre = Quad([0, 1, 2, 3].map(at)).centre();
    assert!(cut.contains(blank_centre), "{reads}");
    assert_eq!(
        [
            &reads[1]["read"],
            &reads[1]["status"],
            &reads[2]["read"],
            &reads[2]["status"]
        ],
        [
            &json!("7H"),
            &json!("confirmed"),
            &json!("7C"),
            &json!("confirmed")
        ],
        "{reads}"
    );
    driver.goto(&format!("http://{}/audit/1.1", server.addr));
    let shown = driver.wait_for(
        "the audit's reads",
        "return Array.from(document.querySelectorAll('.audit-read')).map((r) => \
         [r.textContent, r.querySelector('img.card-cut') !== null]);",
        |v| v.as_array().is_some_and(|a| a.len() == 3),
    );
    assert_eq!(
        shown[0],
        json!(["no index read → 3H (typed by God)", true]),
        "{shown}"
    );
    drop(driver);
    server.stop();
}

/// A browser session on the console at `url`, once its live connection is up.
fn open_console(dir: &Path, url: &str) -> Driver {
    let mut driver = Driver::start();
    driver.open_session(&dir.join("profile"));
    driver.goto(url);
    driver.wait_for(
        "the live connection",
        "return document.getElementById('conn').className;",
        |v| v.as_str().is_some_and(|c| c.contains("up")),
    );
    driver
}

/// Fills the start form (God Pierre; Alain, François, Jacques; the test rule, its
/// check run as typing would; starter 3H; `hand_size`, empty for the default) and
/// presses Start.
fn start_round_from_form(driver: &Driver, hand_size: &str) {
    driver.eval(&format!(
        "document.getElementById('god').value = 'Pierre'; \
         document.getElementById('players').value = 'Alain, François, Jacques'; \
         document.getElementById('hand-size').value = '{hand_size}'; \
         const r = document.getElementById('rule'); r.value = '{RULE}'; \
         r.dispatchEvent(new Event('input')); \
         document.getElementById('starter').value = '3H'; \
         document.getElementById('start').click(); return true;"
    ));
}

/// Opens the console with `?token=QUERY` and starts a round from its form: the
/// page must have read the token as `token` and sent it so that the service takes
/// it, in the header and on the WebSocket (God's view shows the rule).
fn start_a_round_as(token: &str, query: &str) {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_token(&dir.path().join("token.db"), token);
    let driver = open_console(
        dir.path(),
        &format!("http://{}/god?token={query}", server.addr),
    );
    start_round_from_form(&driver, "");
    let shown = driver.wait_for(
        "the round started",
        "return [document.getElementById('start-error').textContent, \
                 document.getElementById('rule-now').textContent];",
        |v| v[0] != "" || v[1].as_str().is_some_and(|t| t.contains(RULE)),
    );
    assert_eq!(shown[0], "", "the service refused the console's token");
    let state = web_support::request(server.addr, "GET", "/api/state", &[], b"").expect(200);
    assert_eq!(state["round"], "1.1", "{state}");
    drop(driver);
    server.stop();
}

/// README: any text will do as a God token. In the query string only percent
/// escapes are decoded, as the service reads it: a `+` stays a plus.
#[test]
fn a_god_token_with_a_space_and_a_plus_works_in_the_console() {
    start_a_round_as("table 7+Pierre", "table%207+Pierre");
}

/// A token with letters outside ISO-8859-1 cannot go in a header as it is: the
/// console sends it percent-encoded, and the service decodes it.
#[test]
fn a_god_token_with_accents_and_symbols_works_in_the_console() {
    start_a_round_as("café ♠", "caf%C3%A9%20%E2%99%A0");
}

/// What the note under the cards field says of a frame while no cards are typed.
const FRAME_KEPT: &str = "frame kept: it goes with the play as evidence once its cards are typed";

/// A good frame, then a file that is not a picture: the error shows, and the
/// earlier frame is no longer shown nor attached as evidence; the next play keeps
/// no frame.
#[test]
fn a_failed_upload_leaves_no_earlier_frame_as_evidence() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("upload.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    let png = dir.path().join("table.png");
    std::fs::write(&png, web_support::png_frame()).expect("png");
    let text = dir.path().join("notes.png");
    std::fs::write(&text, "not a picture").expect("text");

    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&console(&server));
    wait_for_turn(&driver, "Jacques");
    let attached = "return [document.getElementById('evidence-note').textContent, \
                    document.getElementById('frame-img').hidden, \
                    document.getElementById('frame-error').textContent];";
    driver.send_keys("#upload", &png.display().to_string());
    // No cards typed yet: the frame waits for them, attached to no play.
    driver.wait_for("the frame kept", attached, |v| {
        v[0] == FRAME_KEPT && v[1] == false
    });
    driver.send_keys("#cards", "4S");
    assert_eq!(driver.eval(attached)[0], "frame attached as evidence");
    driver.eval(
        "const f = document.getElementById('cards'); f.value = ''; \
         f.dispatchEvent(new Event('input', { bubbles: true })); return true;",
    );
    assert_eq!(driver.eval(attached)[0], FRAME_KEPT);
    driver.send_keys("#upload", &text.display().to_string());
    let after = driver.wait_for("the upload's error", attached, |v| v[2] != "");
    assert_eq!(after[0], "", "{after}");
    assert_eq!(after[1], true, "the earlier frame is still shown: {after}");
    assert!(
        after[2]
            .as_str()
            .is_some_and(|t| t.contains("no longer attached as evidence")),
        "{after}"
    );
    driver.send_keys("#cards", "4S");
    driver.eval("document.getElementById('play').click(); return true;");
    wait_for_turn(&driver, "Alain");
    let played = plays(&server);
    assert_eq!(played.len(), 1, "{played:?}");
    assert!(played[0]["frame"].is_null(), "{:?}", played[0]);
    drop(driver);
    server.stop();
}

/// Reads pair with a play's cards by position, and are stored for good: a play God
/// typed otherwise in the cards field (here the two reads swapped, the same count)
/// keeps the frame alone, where pairing them would store each read against the
/// other card. Played as the rows say, the reads go with it; so they do with a
/// card replaced in place by one the rows do not hold (a correction).
#[test]
fn reads_go_with_a_play_only_when_it_is_what_the_rows_say() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start_with_recognizer(&dir.path().join("pairs.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/06-seq2-green.jpg");
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&console(&server));
    wait_for_turn(&driver, "Jacques");
    let read_and_fill = |driver: &Driver| -> Vec<String> {
        driver.send_keys("#upload", &scene.display().to_string());
        driver.wait_for(
            "the recognizer's reads",
            "return document.querySelectorAll('#reads input[type=text]').length;",
            |v| v.as_u64() == Some(2),
        );
        let filled = driver.eval(
            "document.querySelectorAll('#reads .read.confirm input[type=checkbox]').forEach(c => c.checked = true); \
             document.getElementById('use-reads').click(); \
             return document.getElementById('cards').value;",
        );
        filled
            .as_str()
            .unwrap()
            .split(' ')
            .map(String::from)
            .collect()
    };
    let rows = read_and_fill(&driver);
    assert_eq!(rows.len(), 2, "{rows:?}");
    let note = "return document.getElementById('evidence-note').textContent;";
    assert_eq!(
        driver.eval(note),
        json!("frame attached as evidence, with its 2 read(s)")
    );
    let said = driver.eval(&format!(
        "const f = document.getElementById('cards'); f.value = '{} {}'; \
         f.dispatchEvent(new Event('input', {{ bubbles: true }})); \
         return document.getElementById('evidence-note').textContent;",
        rows[1], rows[0]
    ));
    assert!(said.as_str().unwrap().contains("not its reads"), "{said}");
    driver.eval("document.getElementById('play').click(); return true;");
    wait_for_turn(&driver, "Alain");
    let played = plays(&server);
    assert_eq!(played[0]["cards"], json!([rows[1], rows[0]]), "{played:?}");
    assert!(played[0]["frame"]["sha256"].is_string(), "{played:?}");
    assert!(played[0]["reads"].is_null(), "no reads kept: {played:?}");

    let rows = read_and_fill(&driver);
    driver.eval("document.getElementById('play').click(); return true;");
    wait_for_turn(&driver, "François");
    let played = plays(&server);
    let reads: Vec<&Value> = played[1]["reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["read"])
        .collect();
    assert_eq!(reads, [&json!(rows[0]), &json!(rows[1])], "{played:?}");

    // A card replaced in place in the field by one the rows do not hold is a
    // correction: the reads stay, that one stored as corrected.
    let rows = read_and_fill(&driver);
    let other = ["KS", "QS"]
        .into_iter()
        .find(|c| !rows.iter().any(|r| r == c))
        .unwrap();
    let said = driver.eval(&format!(
        "const f = document.getElementById('cards'); f.value = '{other} {}'; \
         f.dispatchEvent(new Event('input', {{ bubbles: true }})); \
         document.getElementById('play').click(); \
         return document.getElementById('evidence-note').textContent;",
        rows[1]
    ));
    assert_eq!(
        said,
        json!("frame attached as evidence, with its 2 read(s)")
    );
    wait_for_turn(&driver, "Jacques");
    let played = plays(&server);
    let reads = &played[2]["reads"];
    assert_eq!(
        [
            &reads[0]["read"],
            &reads[0]["card"],
            &reads[0]["status"],
            &reads[1]["status"]
        ],
        [
            &json!(rows[0]),
            &json!(other),
            &json!("corrected"),
            &json!("confirmed")
        ],
        "{played:?}"
    );

    // A frame with no card in it: no cards to use, and no play the frame is
    // attached to while none is typed; Play sends nothing of it.
    let empty =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/22-distractors-green.jpg");
    driver.send_keys("#upload", &empty.display().to_string());
    let seen = driver.wait_for(
        "the frame with no card",
        "return {reads: document.getElementById('reads').innerText, \
                 use: !!document.getElementById('use-reads'), \
                 note: document.getElementById('evidence-note').textContent};",
        |v| {
            v["reads"]
                .as_str()
                .is_some_and(|t| t.contains("no card found in the frame"))
        },
    );
    assert_eq!(seen["use"], false, "Use these cards with no cards: {seen}");
    assert_eq!(seen["note"], FRAME_KEPT, "{seen}");
    drop(driver);
    server.stop();
}

/// The start form: a hand size that is not a whole number is refused in the page,
/// naming the field, and nothing is sent (a started round cannot be undone).
/// Proven hints are buttons, reached with the keyboard.
#[test]
fn the_start_form_refuses_a_hand_size_that_is_not_a_number() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("form.db"));
    let driver = open_console(dir.path(), &console(&server));
    start_round_from_form(&driver, "abc");
    let error = driver.eval("return document.getElementById('start-error').textContent;");
    assert!(
        error
            .as_str()
            .is_some_and(|t| t.starts_with("hand size:") && t.contains("abc")),
        "{error}"
    );
    std::thread::sleep(Duration::from_millis(300));
    let state = server.get("/api/state").expect(200);
    assert!(state["round"].is_null(), "a round was started: {state}");

    let hint = driver.wait_for(
        "the proven hints",
        "const b = document.querySelector('#check button.hint'); \
         if (!b) return null; b.focus(); \
         return [document.activeElement === b, b.textContent];",
        |v| v.is_array(),
    );
    assert_eq!(hint[0], true, "a hint takes the keyboard's focus");
    driver.call(
        "POST",
        &driver.session_path("actions"),
        &json!({"actions": [{"type": "key", "id": "keys", "actions": [
            {"type": "keyDown", "value": "\u{E007}"}, {"type": "keyUp", "value": "\u{E007}"}]}]}),
    );
    let given = driver.eval("return document.getElementById('hint').value;");
    assert_eq!(given, hint[1], "Enter on a hint gives it");
    drop(driver);
    server.stop();
}

/// The player field follows the turn: after a play entered for the player chosen,
/// the next play goes to the next player, not again to the one chosen before.
/// When the round ends, the form God filled for it is filled for the next one (God:
/// the player on God's left). Enter in the cards field plays nothing.
#[test]
fn the_player_field_follows_the_turn_and_the_form_refills_after_a_round() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("turns.db"));
    let driver = open_console(dir.path(), &console(&server));
    start_round_from_form(&driver, "2");
    wait_for_turn(&driver, "Jacques");
    driver.eval(
        "const p = document.getElementById('player'); p.value = 'Jacques'; \
         p.dispatchEvent(new Event('change')); return true;",
    );
    driver.send_keys("#cards", "4S");
    driver.eval("document.getElementById('play').click(); return true;");
    wait_for_turn(&driver, "Alain");
    // Typed and Enter pressed: nothing is sent.
    driver.send_keys("#cards", "5H 6S\u{E007}");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(plays(&server).len(), 1, "Enter sent a play");
    driver.eval(
        "const c = document.getElementById('cards'); c.value = '5H'; \
         document.getElementById('play').click(); return true;",
    );
    wait_for_turn(&driver, "François");
    let error = driver.eval("return document.getElementById('play-error').textContent;");
    assert_eq!(error, "", "the second play was refused");
    let who: Vec<Value> = plays(&server).iter().map(|p| p["player"].clone()).collect();
    assert_eq!(who, [json!("Jacques"), json!("Alain")]);

    // Two cards each: the round ends when Jacques plays his second.
    server.post("/api/plays", r#"{"cards":["6S"]}"#).expect(200);
    server.post("/api/plays", r#"{"cards":["7D"]}"#).expect(200);
    let form = driver.wait_for(
        "the form for the next round",
        "return [document.getElementById('god').value, document.getElementById('players').value];",
        |v| v[0] != "Pierre",
    );
    assert_eq!(form, json!(["Alain", "François, Jacques, Pierre"]));

    // A newcomer is asked about: this round would join game 1 (and the +10 at its
    // end). Started anyway, the round is game 1's.
    driver.eval(&format!(
        "document.getElementById('players').value = 'François, Jacques, Pierre, Zoé'; \
         const r = document.getElementById('rule'); r.value = '{RULE}'; \
         r.dispatchEvent(new Event('input')); \
         document.getElementById('starter').value = '3H'; \
         document.getElementById('start').click(); return true;"
    ));
    let asked = driver.wait_for(
        "the question about the newcomer",
        "const q = document.getElementById('start-confirm'); return q.hidden ? '' : q.innerText;",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    );
    assert!(
        asked
            .as_str()
            .is_some_and(|t| t.contains("Zoé is new to game 1")
                && t.contains("end game 1 first")
                && t.contains("Change the players")),
        "{asked}"
    );
    assert_eq!(
        server.get("/api/state").expect(200)["round"],
        "1.1",
        "nothing sent yet"
    );
    driver.eval("document.getElementById('start-anyway').click(); return true;");
    driver.wait_for(
        "the round joining game 1",
        "return document.getElementById('now').textContent;",
        |v| v.as_str().is_some_and(|t| t.contains("Turn")),
    );
    assert_eq!(server.get("/api/state").expect(200)["round"], "1.2");
    drop(driver);
    server.stop();
}

/// Ending the game with a round unfinished fills the form for the next game's
/// first round as the end of a round does: the table plays on, God passes left.
#[test]
fn the_form_refills_after_the_game_is_ended_mid_round() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("ended.db"));
    let driver = open_console(dir.path(), &console(&server));
    start_round_from_form(&driver, "");
    wait_for_turn(&driver, "Jacques");
    driver.send_keys("#cards", "4S");
    driver.eval("document.getElementById('play').click(); return true;");
    wait_for_turn(&driver, "Alain");
    driver
        .eval("window.confirm = () => true; document.getElementById('end').click(); return true;");
    let form = driver.wait_for(
        "the form for the next game",
        "return [document.getElementById('god').value, document.getElementById('players').value, \
                 document.getElementById('end-error').textContent];",
        |v| v[0] != "Pierre" || v[2] != "",
    );
    assert_eq!(form, json!(["Alain", "François, Jacques, Pierre", ""]));
    let now = driver.eval("return document.getElementById('now').textContent;");
    assert!(
        now.as_str()
            .is_some_and(|t| t.starts_with("Game over") && !t.contains("Turn")),
        "{now}"
    );
    // Its scores are final: the log offers no correction any more.
    let buttons = driver.eval("return document.querySelectorAll('#log tr.event button').length;");
    assert_eq!(
        buttons,
        json!(0),
        "a correction offered after the game's end"
    );
    drop(driver);
    server.stop();
}

/// Presses "correct" on the newest event of the log, waits for its editor to hold
/// `cards`, and empties the field for the test to type in.
fn open_correction_editor(driver: &Driver, cards: &str) {
    // A page just opened may not have drawn its log yet.
    driver.wait_for(
        "the log's correct button",
        "return document.querySelector('#log tr.event button') !== null;",
        |v| v == true,
    );
    driver.eval("document.querySelector('#log tr.event button').click(); return true;");
    driver.wait_for(
        "the correction editor",
        "const i = document.getElementById('fix-text'); return i ? i.value : null;",
        |v| v == cards,
    );
    driver.eval("document.getElementById('fix-text').value = ''; return true;");
}

/// A refused play leaves the verdict before it marked as the earlier play's; a
/// refused correction is said under the event God is correcting.
#[test]
fn refusals_are_said_where_god_looks_and_not_beside_a_stale_verdict() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("refusals.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&console(&server));
    wait_for_turn(&driver, "Jacques");
    driver.send_keys("#cards", "4S");
    driver.eval("document.getElementById('play').click(); return true;");
    driver.wait_for(
        "the verdict",
        "return document.getElementById('result').innerText;",
        |v| v.as_str().is_some_and(|t| t.contains("RIGHT")),
    );
    driver.send_keys("#cards", "ZZ");
    driver.eval("document.getElementById('play').click(); return true;");
    let shown = driver.wait_for(
        "the refusal",
        "const r = document.getElementById('result'); \
         return [document.getElementById('play-error').textContent, r.className, r.innerText];",
        |v| v[0] != "",
    );
    assert_eq!(shown[1], "stale", "{shown}");
    assert!(
        shown[2]
            .as_str()
            .is_some_and(|t| t.starts_with("the verdict before")),
        "{shown}"
    );
    // The refusal in the service's words, without the route it came from.
    assert!(
        shown[0]
            .as_str()
            .is_some_and(|t| t.contains("ZZ") && !t.contains("/api/")),
        "{shown}"
    );

    // A correction the referee refuses: said in the log, in the editor under that
    // event, which stays open with what God typed.
    open_correction_editor(&driver, "4S");
    driver.send_keys("#fix-text", "ZZ\u{E007}");
    let note = driver.wait_for(
        "the correction's refusal",
        "const n = document.querySelector('#log tr.fix .fix-error'); \
         const row = n && n.closest('tr.fix'); \
         let e = row && row.previousElementSibling; \
         while (e && !e.classList.contains('event')) e = e.previousElementSibling; \
         return n ? [e.cells[0].textContent, n.innerText, row.dataset.seq, \
                     document.getElementById('fix-text').value] : null;",
        |v| v.is_array(),
    );
    assert_eq!(note[0], note[2], "said under the event corrected: {note}");
    assert!(
        note[1].as_str().is_some_and(|t| t.starts_with(&format!(
            "correction of event {} refused",
            note[0].as_str().unwrap_or("?")
        ))),
        "{note}"
    );
    assert_eq!(note[3], "ZZ", "what God typed is kept: {note}");
    drop(driver);
    server.stop();
}

/// A correction is written in the log under its event, survives a play made
/// meanwhile on another device, and once applied marks the event corrected;
/// Escape closes the editor without a change.
#[test]
fn a_correction_is_edited_in_the_log_and_kept_across_live_updates() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("corrections.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&console(&server));
    wait_for_turn(&driver, "Alain");

    // Open the editor on event 1 (the only play) and start typing.
    open_correction_editor(&driver, "4S");
    driver.send_keys("#fix-text", "5");
    // Another device plays: the log is drawn again, the editor and its text stay.
    server.post("/api/plays", r#"{"cards":["6H"]}"#).expect(200);
    wait_for_turn(&driver, "François");
    let kept = driver.eval(
        "const i = document.getElementById('fix-text'); \
         return i ? [i.closest('tr.fix').dataset.seq, i.value, document.activeElement === i] : null;",
    );
    let seq = plays(&server)[0]["seq"].clone();
    assert_eq!(kept[0].as_str(), Some(seq.to_string().as_str()), "{kept}");
    assert_eq!(kept[1], "5", "{kept}");
    assert_eq!(kept[2], true, "the focus stays in the editor: {kept}");
    driver.send_keys("#fix-text", "H\u{E007}");
    driver.wait_for(
        "the corrected event",
        "return document.getElementById('fix-text') === null && \
         [...document.querySelectorAll('#log tr.event')].some((r) => \
           r.innerText.includes('5H') && r.innerText.includes('corrected'));",
        |v| v == true,
    );
    // The result box tells of the corrected event, not of the newest play (6H).
    let result = driver.wait_for(
        "the correction's result",
        "const r = document.getElementById('fix-result'); \
         return r ? [document.querySelector('#result .verdict').textContent, r.textContent] : null;",
        |v| v.is_array(),
    );
    assert_eq!(result[0], "WRONG", "{result}");
    assert_eq!(
        result[1],
        format!("event 1.1:{seq} corrected: play of Jacques, now 5H (was right)"),
        "{result}"
    );
    // 5H after 3H is wrong where 4S was right: both flags, each a word of its own.
    let flags = driver.eval(
        "const r = [...document.querySelectorAll('#log tr.event')].find((r) => r.innerText.includes('5H')); \
         return r.cells[4].innerText;",
    );
    assert_eq!(flags, "wrong corrected verdict changed", "{flags}");
    let cards: Vec<Value> = plays(&server).iter().map(|p| p["cards"].clone()).collect();
    assert_eq!(cards[0], json!(["5H"]), "{cards:?}");
    // The correction has a row of its own, under its own number, newest first:
    // what it corrected and what it gave it.
    let rows = driver.eval(
        "return [...document.querySelectorAll('#log tr.event, #log tr.correction')] \
           .map((r) => [r.className, r.cells[0].textContent, r.innerText.replace(/\\s+/g, ' ').trim()]);",
    );
    assert_eq!(rows[0][0], "correction", "{rows}");
    assert_eq!(
        rows[0][1], "4",
        "the round, two plays, then the correction: {rows}"
    );
    let text = rows[0][2].as_str().unwrap_or_default().to_lowercase();
    assert!(
        text.contains(&format!("of #{seq}")) && text.contains("cards 5h"),
        "{rows}"
    );
    assert_eq!(rows[1][1], "3", "{rows}");
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("god-correction.png"));

    // Escape closes the editor and sends nothing.
    open_correction_editor(&driver, "6H");
    driver.send_keys("#fix-text", "7C\u{E00C}");
    driver.wait_for(
        "the editor closed",
        "return document.getElementById('fix-text') === null;",
        |v| v == true,
    );
    let cards: Vec<Value> = plays(&server).iter().map(|p| p["cards"].clone()).collect();
    assert_eq!(
        cards,
        [json!(["5H"]), json!(["6H"])],
        "Escape applied nothing"
    );

    // François's 9H, played here, is wrong (the line is 3H: black wanted). On
    // another console God corrects Alain's 6H to 6S: the line is 3H 6S, red is
    // wanted, and 9H is right. This console's verdict box follows.
    driver.eval(
        "document.getElementById('cards').value = '9H'; \
         document.getElementById('play').click(); return true;",
    );
    driver.wait_for(
        "François's verdict",
        "return document.getElementById('result').innerText;",
        |v| {
            v.as_str()
                .is_some_and(|t| t.contains("WRONG") && t.contains("9H"))
        },
    );
    let alain = plays(&server)[1]["seq"].clone();
    server
        .post(
            "/api/corrections",
            &json!({"seq": alain, "cards": ["6S"]}).to_string(),
        )
        .expect(200);
    let followed = driver.wait_for(
        "the verdict as corrected",
        "const c = document.getElementById('result-changed'); \
         return c ? [document.querySelector('#result .verdict').textContent, c.textContent, \
                     document.getElementById('result').innerText] : null;",
        |v| v.is_array(),
    );
    assert_eq!(followed[0], "RIGHT", "{followed}");
    assert!(
        followed[1]
            .as_str()
            .is_some_and(|t| t.contains("changed by a correction") && t.contains("was WRONG")),
        "{followed}"
    );
    assert!(
        !followed[2].as_str().unwrap_or("").contains("penalty"),
        "{followed}"
    );

    // Reloaded mid-round, the console shows the round's last verdict again.
    driver.goto(&console(&server));
    let reloaded = driver.wait_for(
        "the last verdict after a reload",
        "return document.getElementById('result').innerText;",
        |v| v.as_str().is_some_and(|t| t.contains("RIGHT")),
    );
    assert!(
        reloaded.as_str().is_some_and(|t| t.contains("9H")),
        "{reloaded}"
    );
    drop(driver);
    server.stop();
}

/// A no-play's hand is corrected with God's pick: the 5♠ God picked was a
/// misread 5♣, and both are mended in the editor (the hand alone would leave a
/// pick that is not in it, which the referee refuses).
#[test]
fn a_no_plays_pick_is_corrected_with_its_hand() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("pick.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François"]))
        .expect(200);
    // After 3H (odd) a black card is right: Alain had some, so his no-play is
    // wrong and God takes one of them.
    server
        .post(
            "/api/no-plays",
            r#"{"hand":["2C","3D","QH","5S","7C"],"pick":"5S"}"#,
        )
        .expect(200);
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&console(&server));
    open_correction_editor(&driver, "2C 3D QH 5S 7C");
    let pick = driver.eval("return document.getElementById('fix-pick').value;");
    assert_eq!(pick, "5S", "the recorded pick is offered");
    driver.send_keys("#fix-text", "2C 3D QH 5C 7C");
    driver.eval("document.getElementById('fix-pick').value = ''; return true;");
    driver.send_keys("#fix-pick", "5C\u{E007}");
    driver.wait_for(
        "the correction's result",
        "const r = document.getElementById('fix-result'); return r ? r.textContent : null;",
        |v| v.is_string(),
    );
    let state = server.get_god("/api/state").expect(200);
    let no_play = state["plays"]
        .as_array()
        .expect("plays")
        .iter()
        .find(|p| p["event"] == "no_play")
        .cloned()
        .expect("the no-play");
    assert_eq!(
        no_play["cards"],
        json!(["2C", "3D", "QH", "5C", "7C"]),
        "{no_play}"
    );
    assert_eq!(no_play["outcome"]["pick"]["card"], "5C", "{no_play}");
    drop(driver);
    server.stop();
}

/// On a 1024 × 768 screen, with players of 60-character names, the console fits
/// the window's width: no sideways scrolling.
#[test]
fn the_console_fits_a_1024_px_screen_with_long_names() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("layout.db"));
    let long = |who: &str| {
        format!("{who} {}", "de la Table Ronde et des Chevaliers ".repeat(3))[..60].to_string()
    };
    let players = [long("Alain"), long("François"), long("Jacques")];
    let body = json!({"god": long("Pierre"), "players": players, "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &body.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    server
        .post("/api/plays", r#"{"cards":["8H","9C"]}"#)
        .expect(200);
    // A correction that changes a verdict flags its row twice ("corrected",
    // "verdict changed"): the flags wrap in the verdict column.
    let fixed = server
        .post("/api/corrections", r#"{"seq":2,"cards":["4D"]}"#)
        .expect(200);
    assert!(
        fixed["ack"]["changed"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "{fixed}"
    );

    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (width, height, name) in [(1024, 768, "god-1024.png"), (390, 844, "god-390.png")] {
        set_window(&driver, width, height);
        driver.goto(&console(&server));
        driver.wait_for(
            "the round's log",
            "return document.querySelectorAll('#log tr').length;",
            |v| v.as_u64().is_some_and(|n| n >= 3),
        );
        let fit = driver.eval(
            // The page's width without its scroll bar: nothing may need sideways scrolling.
            "const w = document.documentElement.clientWidth; \
             return [document.documentElement.scrollWidth, w, \
             Array.from(document.querySelectorAll('body *')) \
               .filter(e => e.getBoundingClientRect().right > w + 0.5) \
               .slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)];",
        );
        driver.screenshot(&shots.join(name));
        assert!(
            fit[0].as_f64() <= fit[1].as_f64(),
            "at {width} px the console is wider than the window: {fit}"
        );
    }
    drop(driver);
    server.stop();
}

/// What the console's log shows of each event, newest first: its kind, its cards.
const LOG: &str = r#"return [...document.querySelectorAll('#log tr.event')].map((r) => {
  let next = r.nextElementSibling;
  const more = next && next.classList.contains('explanation') ? next : null;
  return {
    seq: r.cells[0].textContent,
    kind: r.querySelector('.kind').textContent,
    who: r.cells[2].textContent,
    cards: r.cells[3].innerText,
    verdict: r.cells[4].innerText,
    effects: more && more.querySelector('.effects') ? more.querySelector('.effects').innerText : '',
    explanation: more && more.querySelector('.explain') ? more.querySelector('.explain').innerText : ''
  };
});"#;

/// Every row of the log says what kind of event it was — a shown hand of sixteen
/// cards is a "no play", not a play — and what the event did besides its verdict:
/// God's pick, the prophet's call and God's answer, a false prophet overthrown.
#[test]
fn each_log_row_says_what_kind_of_event_it_was_and_what_it_did() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("kinds.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    let hand = [
        "5S", "7C", "2H", "9S", "JC", "QS", "KC", "AS", "3C", "5C", "7S", "9C", "JS", "KS", "AC",
        "3S",
    ];
    let no_play = json!({"hand": hand, "pick": "2H"}).to_string();
    for (path, body) in [
        ("/api/plays", r#"{"cards":["4S"]}"#),
        ("/api/no-plays", no_play.as_str()),
        ("/api/plays", r#"{"cards":["3D"]}"#),
        ("/api/prophet", r#"{"player":"François"}"#),
        ("/api/plays", r#"{"cards":["6C"],"prophet_says":"right"}"#),
        ("/api/plays", r#"{"cards":["8H"],"prophet_says":"wrong"}"#),
    ] {
        server.post(path, body).expect(200);
    }
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&console(&server));
    let rows = driver.wait_for("the log's seven events", LOG, |v| {
        v.as_array().map(Vec::len) == Some(7)
    });
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("god-log-kinds.png"));
    let row = |seq: &str| -> Value {
        rows.as_array()
            .and_then(|r| r.iter().find(|x| x["seq"] == seq))
            .cloned()
            .unwrap_or_else(|| panic!("no event {seq}: {rows}"))
    };
    let kinds: Vec<Value> = rows
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["kind"].clone())
        .collect();
    assert_eq!(
        kinds,
        ["play", "play", "prophet", "play", "no play", "play", "round"].map(Value::from),
        "{rows}"
    );
    let round_start = row("1");
    assert_eq!(round_start["cards"], "starter 3H", "{round_start}");

    let shown = row("3");
    assert_eq!(shown["who"], "no play Alain", "{shown}");
    assert!(
        shown["cards"]
            .as_str()
            .is_some_and(|c| c.starts_with("hand of 16: 5S 7C 2H")),
        "{shown}"
    );
    assert_eq!(shown["verdict"], "wrong", "{shown}");
    let effects = shown["effects"].as_str().expect("effects");
    assert!(effects.contains("God takes 2H (acceptable)"), "{shown}");
    assert!(
        effects.contains("Alain takes 5 penalty cards (wrong no play)"),
        "{shown}"
    );

    let declared = row("5");
    assert_eq!(declared["who"], "prophet François", "{declared}");
    assert_eq!(declared["verdict"], "", "{declared}");
    assert_eq!(
        declared["effects"], "François is Prophet, marker on laid card 4",
        "{declared}"
    );

    let confirmed = row("6");
    assert_eq!(
        confirmed["effects"], "prophet François said right, God confirms",
        "{confirmed}"
    );
    let overthrown = row("7");
    let effects = overthrown["effects"].as_str().expect("effects");
    assert!(
        effects.starts_with(
            "prophet François said wrong, God contradicts · false prophet François overthrown"
        ),
        "{overthrown}"
    );
    assert!(
        overthrown["explanation"]
            .as_str()
            .is_some_and(|e| e.starts_with("8H: ")),
        "{overthrown}"
    );

    // The correction editor opens on a no play with its hand, and closes again.
    driver.eval(
        "document.querySelector('#log tr.event[data-seq=\"3\"] button').click(); return true;",
    );
    driver.wait_for(
        "the correction editor with the hand",
        "const i = document.getElementById('fix-text'); return i ? i.value : null;",
        |v| {
            v.as_str()
                .is_some_and(|t| t.starts_with("5S 7C 2H") && t.ends_with("AC 3S"))
        },
    );
    driver.eval("document.getElementById('fix-cancel').click(); return true;");
    driver.wait_for(
        "the editor closed",
        "return document.getElementById('fix-text') === null;",
        |v| v == true,
    );
    drop(driver);
    server.stop();
}

/// Where the console's panels are, in viewport pixels, and what may be used.
const PANELS: &str = r#"const top = (id) => document.getElementById(id).getBoundingClientRect().top;
const end = document.getElementById('end');
return {
  now: document.getElementById('now').textContent,
  start_form: top('round-panel'), play_panel: top('play-panel'),
  play_form_shown: document.getElementById('play-form').getClientRects().length > 0,
  start_bottom: document.getElementById('start').getBoundingClientRect().bottom,
  height: window.innerHeight,
  end_disabled: end.disabled, end_class: end.className
};"#;

/// With no round in play the start form comes first, the Play panel keeps only
/// what it says, and "End the game" is not the red button of a round in play (no
/// use at all before the first round); with a round in play the Play panel is
/// first again. The ids stay the same throughout.
#[test]
fn with_no_round_in_play_the_start_form_comes_first() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("idle.db"));
    let mut driver = Driver::start();
    // table.example is this machine under another name: a page there is not
    // a secure context, as a console opened from another device over http.
    driver.open_session_with(
        &dir.path().join("profile"),
        &["--host-resolver-rules=MAP table.example 127.0.0.1".to_string()],
    );
    set_window(&driver, 1024, 768);
    driver.goto(&console(&server));
    let idle = driver.wait_for("the console with no round", PANELS, |v| {
        v["now"] == "No round in play." && v["end_disabled"] == true
    });
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("god-idle.png"));
    let f = |v: &Value| v.as_f64().expect("number");
    assert!(f(&idle["start_form"]) < f(&idle["play_panel"]), "{idle}");
    assert!(
        f(&idle["start_bottom"]) <= f(&idle["height"]),
        "Start round is below the fold: {idle}"
    );
    assert_eq!(idle["play_form_shown"], false, "{idle}");

    start_round_from_form(&driver, "2");
    wait_for_turn(&driver, "Jacques");
    let playing = driver.eval(PANELS);
    assert!(
        f(&playing["play_panel"]) < f(&playing["start_form"]),
        "{playing}"
    );
    assert_eq!(playing["play_form_shown"], true, "{playing}");
    assert_eq!(playing["end_disabled"], false, "{playing}");
    assert_eq!(playing["end_class"], "danger", "{playing}");

    // Two cards each: the round ends with Jacques's second. The game goes on: it
    // may still be ended, but not as a round in play is.
    for card in ["4S", "5H", "6S", "7D"] {
        server
            .post("/api/plays", &json!({ "cards": [card] }).to_string())
            .expect(200);
    }
    let over = driver.wait_for("the round over", PANELS, |v| {
        v["now"]
            .as_str()
            .is_some_and(|t| t.starts_with("Round over"))
    });
    assert!(f(&over["start_form"]) < f(&over["play_panel"]), "{over}");
    assert_eq!(over["play_form_shown"], false, "{over}");
    assert_eq!(over["end_disabled"], false, "{over}");
    assert_eq!(over["end_class"], "secondary", "{over}");

    server.post("/api/end-game", "").expect(200);
    let ended = driver.wait_for("the game over", PANELS, |v| v["end_disabled"] == true);
    assert!(f(&ended["start_form"]) < f(&ended["play_panel"]), "{ended}");

    // Opened from another device over plain http, the console says where the
    // browser allows the webcam, not a script error.
    let port = server.addr.port();
    driver.goto(&format!(
        "http://table.example:{port}/god?token={}",
        server.token
    ));
    driver.eval("document.getElementById('cam-on').click(); return true;");
    let said = driver.wait_for(
        "why there is no webcam",
        "return document.getElementById('frame-error').textContent;",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    );
    let said = said.as_str().unwrap_or_default();
    assert!(
        said.contains("https://")
            && said.contains(&format!("http://localhost:{port}/god"))
            && !said.contains("undefined"),
        "{said}"
    );
    drop(driver);
    server.stop();
}

/// A double click sends one action: a play twice would be the next player's
/// too, who takes its penalty; a correction twice hides the verdict it reversed;
/// a round started twice says a false error. The next round's form holds no
/// hint or starter of the last rule. A starter the rule rejects is asked about
/// before the round starts (it cannot be undone). Declare prophet waits for a
/// play. A second press a moment after the first was answered (a play, a prophet
/// declaration) is not sent again: no false refusal.
#[test]
fn a_double_click_sends_one_play_one_correction_and_one_round() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("double.db"));
    let driver = open_console(dir.path(), &console(&server));
    driver.eval(
        "document.getElementById('hint').value = 'black'; \
         const s = document.getElementById('start'); \
         document.getElementById('god').value = 'Pierre'; \
         document.getElementById('players').value = 'Alain, François, Jacques'; \
         document.getElementById('rule').value = 'black'; \
         document.getElementById('starter').value = '3H'; \
         s.click(); s.click(); return true;",
    );
    let asked = driver.wait_for(
        "the question about the starter",
        "const q = document.getElementById('start-confirm'); return q.hidden ? '' : q.innerText;",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    );
    assert!(
        asked.as_str().is_some_and(|t| t
            .contains("3H does not fit your rule (3♥ is red → rejected)")
            && t.contains("Start anyway")
            && t.contains("Change the starter")),
        "{asked}"
    );
    assert_eq!(
        server.get("/api/rounds").expect(200)["rounds"]
            .as_array()
            .map(Vec::len),
        Some(0),
        "started before God answered"
    );
    driver.eval(
        "const a = document.getElementById('start-anyway'); a.click(); a.click(); return true;",
    );
    wait_for_turn(&driver, "Jacques");
    // No play yet: there is no one to declare the Prophet.
    let prophet = driver.eval("return document.getElementById('prophet').disabled;");
    assert_eq!(prophet, true, "Declare prophet before any play");
    std::thread::sleep(Duration::from_millis(500));
    let after_start = driver.eval(
        "return ['start-error', 'hint', 'starter', 'rule'] \
           .map((id) => document.getElementById(id).value ?? document.getElementById(id).textContent);",
    );
    assert_eq!(after_start, json!(["", "", "", ""]), "{after_start}");
    assert_eq!(
        server.get("/api/rounds").expect(200)["rounds"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    // 9H is wrong (black wanted): twice, it would be Alain's too.
    driver.eval(
        "document.getElementById('cards').value = '9H'; \
         const b = document.getElementById('play'); b.click(); b.click(); return true;",
    );
    wait_for_turn(&driver, "Alain");
    std::thread::sleep(Duration::from_millis(500));
    let who: Vec<Value> = plays(&server).iter().map(|p| p["player"].clone()).collect();
    assert_eq!(who, [json!("Jacques")]);

    // Corrected to 9S (black: right), applied with a double click: one correction,
    // which says the verdict it reversed.
    open_correction_editor(&driver, "9H");
    driver.eval(
        "document.getElementById('fix-text').value = '9S'; \
         document.getElementById('fix-text').dispatchEvent(new Event('input')); \
         const a = document.getElementById('fix-apply'); a.click(); a.click(); return true;",
    );
    let said = driver.wait_for(
        "the correction's result",
        "const r = document.getElementById('fix-result'); return r ? r.textContent : '';",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    );
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        said.as_str().is_some_and(|t| t.contains("(was wrong)")),
        "{said}"
    );
    let view = server.get_god("/api/state").expect(200);
    assert_eq!(
        view["corrections"].as_array().map(Vec::len),
        Some(1),
        "{view}"
    );

    // Pressed again 120 ms later, when the first press was answered and shown:
    // a play (Alain's 4S) and a prophet declaration. Every error or stale verdict
    // the page shows meanwhile is noted.
    driver.eval(
        "window.seen = []; \
         new MutationObserver(() => { \
           const e = document.getElementById('play-error').textContent; \
           if (e) window.seen.push(e); \
           if (document.getElementById('result').classList.contains('stale')) window.seen.push('stale'); \
         }).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true}); \
         return true;",
    );
    let pressed_twice = |id: &str| {
        driver.eval(&format!(
            "window.twice = false; const b = document.getElementById('{id}'); \
             b.click(); setTimeout(() => {{ b.click(); window.twice = true; }}, 120); return true;"
        ));
        driver.wait_for(
            "both presses handled",
            "return window.twice && !document.body.classList.contains('acting');",
            |v| v == true,
        );
    };
    driver.eval("document.getElementById('cards').value = '4S'; return true;");
    pressed_twice("play");
    wait_for_turn(&driver, "François");
    pressed_twice("prophet");
    let shown = driver.wait_for(
        "the prophet declared",
        "return [document.getElementById('now').textContent, document.getElementById('result').innerText];",
        |v| v[0].as_str().is_some_and(|t| t.contains("prophet Alain")),
    );
    assert!(
        shown[1]
            .as_str()
            .is_some_and(|t| t.contains("Alain is the Prophet")),
        "{shown}"
    );
    let seen = driver.eval("return window.seen;");
    assert_eq!(seen, json!([]), "a false refusal");
    let view = server.get_god("/api/state").expect(200);
    let kinds: Vec<&str> = view["plays"]
        .as_array()
        .expect("plays")
        .iter()
        .filter_map(|p| p["event"].as_str())
        .collect();
    assert_eq!(kinds, ["round", "play", "play", "prophet"], "{view}");
    drop(driver);
    server.stop();
}

/// A console whose token the service no longer takes (restarted with a new one)
/// says so at once, not at God's next action.
#[test]
fn a_console_with_a_token_the_service_refuses_says_so_at_once() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("token.db");
    let server = Server::start(&db);
    let driver = open_console(dir.path(), &console(&server));
    let server = server.restart_with_token(&db, "a-new-token");
    let conn = driver.wait_for(
        "the token line",
        "return document.getElementById('conn').textContent;",
        |v| v.as_str().is_some_and(|t| t.starts_with("not God")),
    );
    assert!(
        conn.as_str().is_some_and(|t| t.contains("God link")),
        "{conn}"
    );
    let class = driver.eval("return document.getElementById('conn').className;");
    assert_eq!(class, "conn down");
    drop(driver);
    server.stop();
}

/// Whether each of the Play panel's controls is shown, and what the panel says.
const CONTROLS: &str = r#"const shown = (id) => document.getElementById(id).getClientRects().length > 0;
return {
  play: shown('play'), noplay: shown('noplay'), prophet: shown('prophet'), pick: shown('pick'),
  endRound: shown('end-round'),
  now: document.getElementById('now').textContent
};"#;

/// Which controls of the Play panel are shown — Play, No play, Declare prophet,
/// the pick, End the round — and whether "now" names the stock.
fn assert_controls(driver: &Driver, shown: [bool; 5], stock: bool) {
    let controls = driver.eval(CONTROLS);
    let got: Vec<&Value> = ["play", "noplay", "prophet", "pick", "endRound"]
        .iter()
        .map(|k| &controls[*k])
        .collect();
    assert_eq!(
        got,
        shown.map(Value::Bool).iter().collect::<Vec<_>>(),
        "{controls}"
    );
    assert_eq!(
        controls["now"]
            .as_str()
            .is_some_and(|t| t.contains("stock")),
        stock,
        "{controls}"
    );
}

/// The player God chooses for the next play holds through every redraw — a
/// correction opened and cancelled, plays from another device — until a play is
/// recorded for that player: one sent while it is another's turn is refused, not
/// recorded for whose turn it is. Then the list follows the turn again.
#[test]
fn the_player_god_chose_holds_until_a_play_is_sent() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("chosen.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    let driver = open_console(dir.path(), &console(&server));
    wait_for_turn(&driver, "Alain");
    // A hand variant: every control of the Play panel is offered.
    assert_controls(&driver, [true, true, true, true, false], true);
    driver.eval(
        "const p = document.getElementById('player'); p.value = 'Jacques'; \
         p.dispatchEvent(new Event('change')); return true;",
    );
    // Two redraws of the console's own: the editor opened, then cancelled.
    open_correction_editor(&driver, "4S");
    driver.eval("document.getElementById('fix-cancel').click(); return true;");
    driver.wait_for(
        "the editor closed",
        "return document.getElementById('fix-text') === null;",
        |v| v == true,
    );
    let chosen = driver.eval("return document.getElementById('player').value;");
    assert_eq!(chosen, "Jacques", "the choice was reset by the redraws");
    // A play from another device: a view pushed.
    server.post("/api/plays", r#"{"cards":["5H"]}"#).expect(200);
    wait_for_turn(&driver, "François");
    let chosen = driver.eval("return document.getElementById('player').value;");
    assert_eq!(chosen, "Jacques", "the choice was reset by the live update");

    // Played now, it is refused: François's turn, not Jacques's. The choice stays.
    driver.eval(
        "document.getElementById('cards').value = '6S'; \
         document.getElementById('play').click(); return true;",
    );
    let refused = driver.wait_for(
        "the play refused",
        "return [document.getElementById('play-error').textContent, \
                 document.getElementById('player').value];",
        |v| v[0] != "",
    );
    assert!(
        refused[0]
            .as_str()
            .is_some_and(|t| t.starts_with("it is François's turn, not Jacques's")),
        "{refused}"
    );
    assert_eq!(refused[1], "Jacques", "{refused}");
    server.post("/api/plays", r#"{"cards":["6C"]}"#).expect(200);
    wait_for_turn(&driver, "Jacques");
    driver.eval("document.getElementById('play').click(); return true;");
    let after = driver.wait_for(
        "the play recorded",
        "return [document.getElementById('result').innerText, \
                 document.getElementById('play-error').textContent, \
                 document.getElementById('player').value];",
        |v| v[2] == "" || v[1] != "" && !v[1].as_str().is_some_and(|t| t.starts_with("it is")),
    );
    assert_eq!(after[1], "", "{after}");
    assert_eq!(after[2], "", "the choice outlived its play: {after}");
    let who: Vec<Value> = plays(&server).iter().map(|p| p["player"].clone()).collect();
    assert_eq!(
        who,
        ["Jacques", "Alain", "François", "Jacques"].map(Value::from)
    );
    drop(driver);
    server.stop();
}

/// Delphos has no no-play, no prophet and no stock: the console does not offer
/// them, and its log says what each prediction said and how it fared (right once
/// God answered the proposal, waiting while not).
#[test]
fn the_console_offers_only_what_the_variant_has() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("delphos.db"));
    server
        .post(
            "/api/rounds",
            r#"{"variant":"delphos","god":"Gil","players":["Ana","Bo","Cy"],
                "rule":"if last.red then black else red","starter":"5H"}"#,
        )
        .expect(200);
    server
        .post_public(
            "/api/table/events",
            r#"{"event":"predict","player":"Cy","says":"rejected"}"#,
        )
        .expect(200);
    server.post("/api/plays", r#"{"cards":["7H"]}"#).expect(200);
    server
        .post_public(
            "/api/table/events",
            r#"{"event":"predict","player":"Ana","says":"accepted"}"#,
        )
        .expect(200);
    let driver = open_console(dir.path(), &console(&server));
    wait_for_turn(&driver, "Bo");
    assert_controls(&driver, [true, false, false, false, true], false);
    let rows = driver.wait_for("the log's four events", LOG, |v| {
        v.as_array().map(Vec::len) == Some(4)
    });
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("god-delphos.png"));
    let row = |seq: &str| -> Value {
        rows.as_array()
            .and_then(|r| r.iter().find(|x| x["seq"] == seq))
            .cloned()
            .unwrap_or_else(|| panic!("no event {seq}: {rows}"))
    };
    let answered = row("2");
    assert_eq!(answered["who"], "prediction Cy", "{answered}");
    assert_eq!(answered["cards"], "says rejected", "{answered}");
    assert_eq!(answered["verdict"], "right", "{answered}");
    assert!(
        answered["effects"]
            .as_str()
            .is_some_and(|t| t.starts_with("right: Ana's 7H (#3) was rejected")),
        "{answered}"
    );
    let pending = row("4");
    assert_eq!(pending["cards"], "says accepted", "{pending}");
    assert_eq!(pending["verdict"], "", "{pending}");
    assert_eq!(
        pending["effects"], "waiting for God's answer to Bo's proposal",
        "{pending}"
    );
    // God ends a Delphos round with a button, once sure.
    driver.eval(
        "window.confirm = () => true; document.getElementById('end-round').click(); return true;",
    );
    driver.wait_for(
        "the round's end",
        "return document.getElementById('end-round').getClientRects().length === 0;",
        |v| v == true,
    );
    let state = server.get("/api/state").expect(200);
    assert_eq!(state["state"]["ended"], true, "{state}");
    assert_eq!(
        state["state"]["end_reason"], "God ends the round",
        "{state}"
    );
    drop(driver);
    server.stop();
}

/// An action that could not reach the service says so; once the console is live
/// again that error goes (the play was not recorded: there is nothing to check).
#[test]
fn an_unreachable_service_error_goes_when_the_console_is_live_again() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("reconnect.db");
    let server = Server::start(&db);
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    let driver = open_console(dir.path(), &console(&server));
    wait_for_turn(&driver, "Jacques");
    let addr = server.stop_keeping_addr();
    driver.wait_for(
        "the lost connection",
        "return document.getElementById('conn').textContent;",
        |v| v == "reconnecting…",
    );
    driver.eval(
        "document.getElementById('cards').value = '4S'; \
         document.getElementById('play').click(); return true;",
    );
    driver.wait_for(
        "the error",
        "return document.getElementById('play-error').textContent;",
        |v| {
            v.as_str()
                .is_some_and(|t| t.starts_with("cannot reach the service"))
        },
    );
    let server = Server::start_on(&db, addr);
    let back = driver.wait_for(
        "the console live again",
        "return [document.getElementById('conn').textContent, \
                 document.getElementById('play-error').textContent];",
        |v| v[0] == "live",
    );
    // The view that says "live" and the error's going are one step: no wait.
    assert_eq!(back[1], "", "the old error stays up: {back}");
    assert!(plays(&server).is_empty());
    drop(driver);
    server.stop();
}

/// Escape in the correction editor (or its cancel) gives the focus back to the
/// "correct" button of its event, which keeps it through a play from another
/// device: a keyboard user goes on where they were.
#[test]
fn escape_in_the_correction_editor_returns_to_its_correct_button() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("escape.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    let driver = open_console(dir.path(), &console(&server));
    wait_for_turn(&driver, "Alain");
    let seq = plays(&server)[0]["seq"].to_string();
    const FOCUS: &str = "const a = document.activeElement; const row = a && a.closest('tr'); \
         return [a.tagName, a.textContent, row ? row.dataset.seq : null];";
    open_correction_editor(&driver, "4S");
    driver.send_keys("#fix-text", "\u{E00C}");
    let focus = driver.wait_for(
        "the editor closed",
        &format!(
            "return document.getElementById('fix-text') === null ? (() => {{ {FOCUS} }})() : null;"
        ),
        |v| v.is_array(),
    );
    assert_eq!(focus, json!(["BUTTON", "correct", seq]), "{focus}");
    server.post("/api/plays", r#"{"cards":["5H"]}"#).expect(200);
    wait_for_turn(&driver, "François");
    let focus = driver.eval(FOCUS);
    assert_eq!(
        focus,
        json!(["BUTTON", "correct", seq]),
        "the focus was lost with the redraw: {focus}"
    );
    drop(driver);
    server.stop();
}

/// A refused prophet declaration marks the result before it as the earlier
/// action's in words that fit: no "verdict" for a declaration, no "play above".
#[test]
fn a_refused_prophet_declaration_is_not_called_a_play() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("prophet.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    let hand = [
        "5S", "7C", "2H", "9S", "JC", "QS", "KC", "AS", "3C", "5C", "7S", "9C", "JS", "KS", "AC",
        "3S",
    ];
    let no_play = json!({"hand": hand, "pick": "2H"}).to_string();
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    server.post("/api/no-plays", &no_play).expect(200);
    server.post("/api/plays", r#"{"cards":["3D"]}"#).expect(200);
    let driver = open_console(dir.path(), &console(&server));
    wait_for_turn(&driver, "Jacques");
    driver.eval("document.getElementById('prophet').click(); return true;");
    driver.wait_for(
        "the prophet declared",
        "return [document.getElementById('result').innerText, \
                 document.getElementById('play-error').textContent];",
        |v| {
            v[1] != ""
                || v[0]
                    .as_str()
                    .is_some_and(|t| t.contains("François is the Prophet"))
        },
    );
    // A prophet is in office (he calls Jacques's 4H wrong, as it is): Jacques is refused.
    driver.wait_for(
        "the prophet in office",
        "return document.getElementById('now').textContent;",
        |v| v.as_str().is_some_and(|t| t.contains("prophet François")),
    );
    server
        .post("/api/plays", r#"{"cards":["4H"],"prophet_says":"wrong"}"#)
        .expect(200);
    driver.wait_for(
        "Jacques's play",
        "return document.getElementById('prophet').disabled;",
        |v| v == false,
    );
    driver.eval("document.getElementById('prophet').click(); return true;");
    let shown = driver.wait_for(
        "the refusal",
        "const r = document.getElementById('result'); \
         return [document.getElementById('play-error').textContent, r.className, r.innerText];",
        |v| v[0] != "",
    );
    assert_eq!(shown[1], "stale", "{shown}");
    assert!(
        shown[2].as_str().is_some_and(|t| t
            .starts_with("the result before (the prophet declaration above was not recorded):")),
        "{shown}"
    );
    drop(driver);
    server.stop();
}

/// Where "End the game", the export and score sheet links, the scores summary and
/// the log are, in page pixels from the top (scrolled to the top), and what the
/// summary says.
const GAME_PANEL: &str = r#"window.scrollTo(0, 0);
const box = (id) => { const e = document.getElementById(id); return e ? e.getBoundingClientRect() : null; };
const summary = document.getElementById('scores-summary');
return {
  end_top: box('end').top, end_bottom: box('end').bottom,
  links_bottom: Math.max(box('export-log').bottom, box('score-sheet').bottom),
  log_top: box('log').top,
  camera_top: document.getElementById('cam-on').closest('section').getBoundingClientRect().top,
  summary_bottom: summary ? summary.getBoundingClientRect().bottom : null,
  summary: summary ? summary.innerText : null,
  height: window.innerHeight, page: document.documentElement.scrollHeight,
  laid: document.querySelectorAll('#layout .card').length,
  now: document.getElementById('now').textContent,
  end_disabled: document.getElementById('end').disabled
};"#;

/// The 52 cards, one after the other: a play each (the test rule takes any card).
fn any_card(i: usize) -> String {
    let ranks = [
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ];
    format!("{}{}", ranks[i % 13], ["S", "H", "D", "C"][(i / 13) % 4])
}

/// A tally's names and numbers as the summary should say them: `name number`.
fn tally_shown(text: &str, tally: &Value) {
    let tally = tally.as_object().expect("a tally");
    assert!(!tally.is_empty());
    for (name, score) in tally {
        assert!(
            text.contains(&format!("{name} {score}")),
            "{name} {score} is not in {text:?}"
        );
    }
}

/// "End the game", the export log and score sheet links and a short scores
/// summary (round scores once a round has ended, the game's standings from its
/// first finished round on) are in reach without scrolling through the log: with
/// 47 cards laid they are in the first screen at 1280×800, and above the log and
/// the camera panel on a phone. "End the game" keeps its safety: it asks first,
/// and cannot be pressed once the game is over.
#[test]
fn the_game_controls_and_scores_are_in_reach_above_the_log() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("reach.db"));
    let players = ["Alain", "François", "Jacques", "Philippe"];
    let body = json!({"god": "Pierre", "players": players, "rule": "true", "starter": "3H", "hand_size": 13});
    server.post("/api/rounds", &body.to_string()).expect(200);
    // 46 plays and the starter: 47 cards laid, the round still in play (Jacques
    // plays his 13th and last card with the 49th play).
    for i in 0..46 {
        server
            .post("/api/plays", &json!({ "cards": [any_card(i)] }).to_string())
            .expect(200);
    }
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let f = |v: &Value| v.as_f64().expect("number");
    for (width, height, name) in [
        (1280, 800, "god-reach-1280.png"),
        (390, 844, "god-reach-390.png"),
    ] {
        set_window(&driver, width, height);
        driver.goto(&console(&server));
        let at = driver.wait_for("47 cards laid", GAME_PANEL, |v| v["laid"] == 47);
        driver.screenshot(&shots.join(name));
        assert!(
            f(&at["page"]) > 2.0 * f(&at["height"]),
            "the log is not long: {at}"
        );
        assert!(
            f(&at["end_top"]) < f(&at["log_top"]),
            "at {width} px End is under the log: {at}"
        );
        assert!(
            f(&at["end_top"]) < f(&at["camera_top"]),
            "at {width} px End is under the camera: {at}"
        );
        assert!(
            f(&at["links_bottom"]) < f(&at["log_top"]),
            "at {width} px the links are under the log: {at}"
        );
        if width > 1000 {
            assert!(
                f(&at["end_bottom"]) <= f(&at["height"]),
                "End is below the fold: {at}"
            );
            assert!(
                f(&at["links_bottom"]) <= f(&at["height"]),
                "the links are below the fold: {at}"
            );
        } else {
            // Right under the Play panel: a short scroll.
            assert!(
                f(&at["end_bottom"]) <= 1.5 * f(&at["height"]),
                "End is far down: {at}"
            );
        }
        assert!(
            at["summary"]
                .as_str()
                .is_some_and(|t| t.contains("No round scored yet")),
            "{at}"
        );
    }

    // Jacques plays his last card: the round is scored.
    for i in 46..49 {
        server
            .post("/api/plays", &json!({ "cards": [any_card(i)] }).to_string())
            .expect(200);
    }
    let state = server.get("/api/state").expect(200);
    assert_eq!(state["state"]["ended"], true, "{state}");
    assert!(state["state"]["game"]["totals"].is_null(), "{state}");
    let over = driver.wait_for("the round's scores", GAME_PANEL, |v| {
        v["now"]
            .as_str()
            .is_some_and(|t| t.starts_with("Round over"))
            && v["summary"].as_str().is_some_and(|t| t.contains("scores"))
    });
    driver.screenshot(&shots.join("god-reach-390-over.png"));
    let text = over["summary"].as_str().expect("summary");
    let (round_line, game_line) = text.split_once('\n').expect("two lines");
    assert!(round_line.starts_with("Round 1.1 scores:"), "{text}");
    tally_shown(round_line, &state["state"]["scores"]);
    assert!(game_line.starts_with("Game standings"), "{text}");
    tally_shown(game_line, &state["state"]["game"]["standings"]);
    // Seating order, God last.
    let at = |n: &str| round_line.find(n).expect(n);
    assert!(
        at("Alain") < at("François") && at("Philippe") < at("Pierre"),
        "{text}"
    );
    assert!(f(&over["end_top"]) < f(&over["log_top"]), "{over}");
    assert!(f(&over["summary_bottom"]) < f(&over["log_top"]), "{over}");
    set_window(&driver, 1280, 800);
    let wide = driver.eval(GAME_PANEL);
    driver.screenshot(&shots.join("god-reach-1280-over.png"));
    assert!(f(&wide["summary_bottom"]) <= f(&wide["height"]), "{wide}");
    assert!(f(&wide["end_bottom"]) <= f(&wide["height"]), "{wide}");

    // The next round: the standings stay, the last round's scores go.
    let next = json!({"god": "Alain", "players": ["François", "Jacques", "Philippe", "Pierre"], "rule": "true", "starter": "3H"});
    server.post("/api/rounds", &next.to_string()).expect(200);
    let playing = driver.wait_for("the next round", GAME_PANEL, |v| {
        v["now"].as_str().is_some_and(|t| t.starts_with("Turn"))
    });
    let text = playing["summary"].as_str().expect("summary");
    assert!(
        text.starts_with("Game standings") && !text.contains("Round 1.1"),
        "{text}"
    );

    // End the game asks first: refused, nothing is sent.
    driver
        .eval("window.confirm = () => false; document.getElementById('end').click(); return true;");
    std::thread::sleep(Duration::from_millis(300));
    let state = server.get("/api/state").expect(200);
    assert_ne!(state["game_over"], true, "ended without God's yes: {state}");
    driver
        .eval("window.confirm = () => true; document.getElementById('end').click(); return true;");
    let ended = driver.wait_for("the game over", GAME_PANEL, |v| v["end_disabled"] == true);
    let text = ended["summary"].as_str().expect("summary");
    let state = server.get("/api/state").expect(200);
    assert!(text.starts_with("Final game totals"), "{text}");
    tally_shown(text, &state["state"]["game"]["totals"]);
    drop(driver);
    server.stop();
}

/// What the start form says when Start is pressed, and how many requests to start
/// a round the page sent.
const START_ERROR: &str =
    "return [document.getElementById('start-error').textContent, window.roundPosts];";

/// Counts the page's requests to start a round (`window.roundPosts`).
const COUNT_ROUND_POSTS: &str = r#"window.roundPosts = 0;
const fetched = window.fetch;
window.fetch = (url, init) => {
  if (String(url).includes('/api/rounds')) window.roundPosts++;
  return fetched(url, init);
};
return true;"#;

/// Start round with fields missing or wrong is refused in the page, every field
/// named at once (God, players, rule, starter, hand size), and nothing is sent.
#[test]
fn the_start_form_names_every_missing_field_at_once() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("form-all.db"));
    let driver = open_console(dir.path(), &console(&server));
    driver.eval(COUNT_ROUND_POSTS);
    driver.eval("document.getElementById('start').click(); return true;");
    let shown = driver.wait_for("the form's errors", START_ERROR, |v| v[0] != "");
    let lines: Vec<&str> = shown[0].as_str().expect("text").lines().collect();
    let starts: Vec<&str> = lines
        .iter()
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(starts, ["God", "players", "rule", "starter"], "{shown}");
    assert_eq!(shown[1], 0, "a round was asked for: {shown}");
    let focused = driver.eval("return document.activeElement.id;");
    assert_eq!(focused, "god");

    // One player, God among them, a card that is not one, a hand size that is no
    // number: each said, nothing sent.
    driver.eval(
        "document.getElementById('god').value = 'Pierre'; \
         document.getElementById('players').value = 'Pierre'; \
         document.getElementById('rule').value = 'true'; \
         document.getElementById('starter').value = '1X'; \
         document.getElementById('hand-size').value = 'abc'; \
         document.getElementById('start-error').textContent = ''; \
         document.getElementById('start').click(); return true;",
    );
    let shown = driver.wait_for("the form's errors", START_ERROR, |v| v[0] != "");
    let text = shown[0].as_str().expect("text");
    let starts: Vec<&str> = text
        .lines()
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(starts, ["players", "starter", "hand size"], "{text}");
    assert!(
        text.contains("at least 2") && text.contains("God"),
        "{text}"
    );
    assert!(text.contains("“1X”") && text.contains("abc"), "{text}");
    assert_eq!(shown[1], 0, "a round was asked for: {shown}");
    let focused = driver.eval("return document.activeElement.id;");
    assert_eq!(focused, "players");

    // Mended, the round starts.
    driver.eval(
        "document.getElementById('players').value = 'Alain, François'; \
         document.getElementById('starter').value = '3h'; \
         document.getElementById('hand-size').value = ''; \
         document.getElementById('start').click(); return true;",
    );
    wait_for_turn(&driver, "Alain");
    let shown = driver.eval(START_ERROR);
    assert_eq!(shown, json!(["", 1]));
    drop(driver);
    server.stop();
}

/// The contrast of an element's text with what is behind it (WCAG 2: the
/// element's background and its ancestors', over the felt where it is lightest).
const CONTRAST: &str = r#"const rgba = (s) => { const m = s.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]));
const felt = getComputedStyle(document.documentElement).getPropertyValue('--felt').trim();
const lum = (c) => { const l = c.map((x) => { x /= 255; return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; };
const contrast = (sel) => {
  const el = document.querySelector(sel);
  if (!el) return null;
  let back = [1, 3, 5].map((i) => parseInt(felt.slice(i, i + 2), 16));
  const layers = [];
  for (let e = el; e; e = e.parentElement) layers.unshift(rgba(getComputedStyle(e).backgroundColor));
  for (const l of layers) back = over(l, back);
  const fore = over(rgba(getComputedStyle(el).color), back);
  const [a, b] = [lum(fore), lum(back)].sort((x, y) => y - x);
  return { text: el.textContent, ratio: (a + 0.05) / (b + 0.05), color: getComputedStyle(el).color, size: getComputedStyle(el).fontSize };
};
return SELECTORS.map(contrast);"#;

/// The log's small "wrong" and the flags of a corrected event ("corrected",
/// "verdict changed") are readable: a contrast of at least 4.5:1 (WCAG AA), in the
/// God console and in the audit, which shares them.
#[test]
fn the_logs_wrong_verdicts_and_flags_meet_aa_contrast() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("contrast.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    server.post("/api/plays", r#"{"cards":["5S"]}"#).expect(200);
    let fixed = server
        .post("/api/corrections", r#"{"seq":2,"cards":["4D"]}"#)
        .expect(200);
    assert!(
        fixed["ack"]["changed"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "{fixed}"
    );
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    let pages = [
        (console(&server), "#log .bad", "#log .flag"),
        (
            format!("http://{}/audit/1.1?token={}", server.addr, server.token),
            "table.events .bad",
            "table.events .flag",
        ),
    ];
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for ((url, wrong, flag), shot) in pages.into_iter().zip(["god-flags.png", "audit-flags.png"]) {
        driver.goto(&url);
        let script = CONTRAST.replace("SELECTORS", &json!([wrong, flag]).to_string());
        let seen = driver.wait_for("a wrong verdict and a flag", &script, |v| {
            v[0].is_object() && v[1].is_object()
        });
        driver.eval(&format!(
            "document.querySelector('{flag}').scrollIntoView({{block: 'center'}}); return true;"
        ));
        driver.screenshot(&shots.join(shot));
        for shown in seen.as_array().expect("two") {
            let ratio = shown["ratio"].as_f64().expect("ratio");
            assert!(
                ratio >= 4.5,
                "{url}: contrast {ratio:.2} below 4.5: {shown}"
            );
        }
    }
    drop(driver);
    server.stop();
}

/// Two devices show the console and God types the same card on both: pressed on
/// the first, it is recorded for the player whose turn it was. Cards typed hold
/// the player the field showed as they were typed, so the press on the second
/// device sends that player and is refused (said plainly), instead of being
/// charged, wrong and with a penalty, to the next player. Emptying the cards
/// field lets the hold go; a shown hand (No play) holds its player the same way.
#[test]
fn cards_typed_on_a_screen_the_turn_has_left_are_not_charged_to_the_next_player() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("stale.db"));
    server
        .post("/api/rounds", &round(&["Hélène", "Cy", "Ana"]))
        .expect(200);
    let driver = open_console(dir.path(), &console(&server));
    wait_for_turn(&driver, "Ana");
    driver.send_keys("#cards", "7D");
    let held = driver.eval("return document.getElementById('player').value;");
    assert_eq!(held, "Ana", "the cards typed do not hold the player shown");

    // The other device plays Ana's 7D first.
    let ack = server.post("/api/plays", r#"{"cards":["7D"]}"#).expect(200);
    assert_eq!(ack["last"]["player"], "Ana", "{ack}");
    wait_for_turn(&driver, "Hélène");
    let shown = driver.eval(
        "return [document.getElementById('player').value, \
                 document.getElementById('held-note').textContent];",
    );
    assert_eq!(shown[0], "Ana", "{shown}");
    assert!(
        shown[1]
            .as_str()
            .is_some_and(|t| t.contains("entered for Ana") && t.contains("now Hélène's turn")),
        "{shown}"
    );
    driver.eval("document.getElementById('play').click(); return true;");
    let refused = driver.wait_for(
        "the stale play refused",
        "return document.getElementById('play-error').textContent;",
        |v| v != "",
    );
    let text = refused.as_str().expect("text");
    assert!(
        text.starts_with("it is Hélène's turn, not Ana's"),
        "{refused}"
    );
    assert!(
        text.contains("entered for Ana") && text.contains("another device"),
        "{refused}"
    );
    let who: Vec<Value> = plays(&server).iter().map(|p| p["player"].clone()).collect();
    assert_eq!(who, [json!("Ana")], "the stale play was recorded");

    // The cards field emptied: the player follows the turn again.
    driver.eval(
        "const c = document.getElementById('cards'); c.value = ''; \
         c.dispatchEvent(new Event('input')); return true;",
    );
    let released = driver.eval(
        "return [document.getElementById('player').value, \
                 document.getElementById('held-note').textContent];",
    );
    assert_eq!(released, json!(["", ""]), "{released}");

    // A shown hand typed for Hélène; her play is recorded elsewhere first.
    driver.send_keys("#cards", "2C 4C 6C");
    let held = driver.eval("return document.getElementById('player').value;");
    assert_eq!(held, "Hélène");
    server.post("/api/plays", r#"{"cards":["8S"]}"#).expect(200);
    wait_for_turn(&driver, "Cy");
    driver.eval(
        "document.getElementById('play-error').textContent = ''; \
         document.getElementById('noplay').click(); return true;",
    );
    let refused = driver.wait_for(
        "the stale no-play refused",
        "return document.getElementById('play-error').textContent;",
        |v| v != "",
    );
    assert!(
        refused
            .as_str()
            .is_some_and(|t| t.starts_with("it is Cy's turn, not Hélène's")),
        "{refused}"
    );
    let audit = server.get_god("/api/audit/1.1").expect(200);
    let kinds: Vec<&Value> = audit["rounds"][0]["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| &e["event"])
        .collect();
    assert_eq!(kinds, ["round", "play", "play"], "{audit}");
    drop(driver);
    server.stop();
}

/// The page is no wider than the window once the layout has settled.
fn assert_no_sideways_scroll(driver: &Driver, what: &str) {
    std::thread::sleep(Duration::from_millis(300));
    let widths = driver.eval(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];",
    );
    assert!(
        widths[0].as_u64() <= widths[1].as_u64(),
        "{what}: the page scrolls sideways: {widths}"
    );
}

/// What the console's log shows of the event `seq`: whether its row is marked
/// void, its verdict cell, whether its cards are struck through, and the
/// correction rows' text.
fn log_row(driver: &Driver, seq: u64) -> Value {
    driver.eval(&format!(
        "const r = document.querySelector('#log tr.event[data-seq=\"{seq}\"]'); \
         if (!r) return null; \
         const said = r.nextElementSibling; \
         return {{void: r.classList.contains('void'), verdict: r.cells[4].innerText, \
                  said: said && said.classList.contains('explanation') ? said.innerText : '', \
                  struck: getComputedStyle(r.cells[3]).textDecorationLine, \
                  fixes: Array.from(document.querySelectorAll('#log tr.correction')).map(c => c.innerText)}};"
    ))
}

/// A play that did not happen is voided from its correction editor: the button
/// says so, asks first (saying what it does), and once applied the row stays
/// struck through, marked void, the penalty is taken back and the turn goes back.
/// The voided row's editor takes the void back.
#[test]
fn a_play_that_did_not_happen_is_voided_and_the_void_taken_back() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("void.db"));
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    // Alain's 9S after 4S (even: red wanted) is wrong, with a penalty.
    let ack = server.post("/api/plays", r#"{"cards":["9S"]}"#).expect(200);
    assert_eq!(ack["ack"]["right"], false, "{ack}");
    let hand =
        |server: &Server| server.get("/api/state").expect(200)["state"]["hands"]["Alain"].clone();
    let penalised = hand(&server);
    let driver = open_console(dir.path(), &console(&server));
    wait_for_turn(&driver, "François");
    open_correction_editor(&driver, "9S");
    let button = driver
        .eval("const b = document.getElementById('fix-void'); return b ? b.textContent : null;");
    assert_eq!(button, "Void (did not happen)");
    // The editor with its void button fits a phone.
    set_window(&driver, 390, 844);
    assert_no_sideways_scroll(&driver, "the editor on a phone");
    set_window(&driver, 1024, 768);
    // Asked first: "no" sends nothing.
    driver.eval(
        "window.confirm = (q) => { window.asked = q; return false; }; \
         document.getElementById('fix-void').click(); return window.asked;",
    );
    let asked = driver.eval("return window.asked;");
    assert!(
        asked.as_str().is_some_and(|q| q.contains("did not happen")
            && q.contains("penalty")
            && q.contains("turn goes back")),
        "{asked}"
    );
    std::thread::sleep(Duration::from_millis(300));
    let view = server.get_god("/api/state").expect(200);
    assert_eq!(view["corrections"], json!([]), "voided without a yes");

    driver.eval(
        "window.confirm = () => true; document.getElementById('fix-void').click(); return true;",
    );
    let said = driver.wait_for(
        "the void's result",
        "const r = document.getElementById('fix-result'); return r ? r.textContent : '';",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    );
    assert!(
        said.as_str()
            .is_some_and(|t| t.contains("event 1.1:3 voided") && t.contains("did not happen")),
        "{said}"
    );
    wait_for_turn(&driver, "Alain");
    let row = log_row(&driver, 3);
    assert_eq!(row["void"], true, "{row}");
    assert!(
        row["verdict"]
            .as_str()
            .is_some_and(|t| t.starts_with("void")),
        "{row}"
    );
    assert!(
        row["said"]
            .as_str()
            .is_some_and(|t| t.contains("voided by #4: it did not happen (announced wrong)")),
        "{row}"
    );
    assert!(
        row["struck"]
            .as_str()
            .is_some_and(|t| t.contains("line-through")),
        "{row}"
    );
    assert!(
        row["fixes"][0]
            .as_str()
            .is_some_and(|t| t.contains("void: the event did not happen")),
        "{row}"
    );
    assert_ne!(hand(&server), penalised, "the penalty was not taken back");
    let view = server.get_god("/api/state").expect(200);
    let voided = &view["plays"][2];
    assert_eq!(voided["void"], true, "{view}");

    // The voided row's editor takes the void back.
    driver.eval(
        "document.querySelector('#log tr.event[data-seq=\"3\"] button.fix-open').click(); return true;",
    );
    let offer = driver.wait_for(
        "the void taken back offered",
        "const b = document.getElementById('fix-unvoid'); \
         return b ? [b.textContent, !!document.getElementById('fix-text')] : null;",
        |v| v.is_array(),
    );
    assert_eq!(offer, json!(["Take the void back", false]));
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("god-void.png"));
    assert_no_sideways_scroll(&driver, "the voided row's editor at 1024 px");
    set_window(&driver, 390, 844);
    assert_no_sideways_scroll(&driver, "the voided row's editor on a phone");
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("god-void-390.png"));
    driver.eval("document.getElementById('fix-unvoid').click(); return true;");
    wait_for_turn(&driver, "François");
    let said = driver.eval("return document.getElementById('fix-result').textContent;");
    assert!(
        said.as_str()
            .is_some_and(|t| t.contains("void of event 1.1:3 taken back")),
        "{said}"
    );
    assert_eq!(log_row(&driver, 3)["void"], false);
    assert_eq!(hand(&server), penalised, "the penalty is owed again");
    drop(driver);
    server.stop();
}

/// Start round pressed again once the round has started (the form emptied of
/// its rule and starter) is no failure: while a round is in play Start cannot
/// be pressed, and the form says why, in no error's red.
#[test]
fn start_pressed_again_after_the_round_started_shows_no_false_failure() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("again.db"));
    let driver = open_console(dir.path(), &console(&server));
    driver.eval(COUNT_ROUND_POSTS);
    start_round_from_form(&driver, "");
    wait_for_turn(&driver, "Jacques");
    std::thread::sleep(Duration::from_millis(500));
    driver.eval("document.getElementById('start').click(); return true;");
    std::thread::sleep(Duration::from_millis(300));
    let shown = driver.eval(
        "return [document.getElementById('start-error').textContent, \
                 document.getElementById('start').disabled, \
                 (document.getElementById('start-note') || {}).textContent, window.roundPosts];",
    );
    assert_eq!(shown[0], "", "a false failure: {shown}");
    assert_eq!(shown[1], true, "{shown}");
    assert!(
        shown[2]
            .as_str()
            .is_some_and(|t| t.contains("Round 1.1 is in play")),
        "{shown}"
    );
    assert_eq!(shown[3], 1, "{shown}");

    // Once the round is over, Start is offered again.
    server.post("/api/end-game", "").expect(200);
    driver.wait_for(
        "Start offered again",
        "return document.getElementById('start').disabled;",
        |v| v == false,
    );
    let note = driver.eval("return document.getElementById('start-note').textContent;");
    assert_eq!(note, "");
    drop(driver);
    server.stop();
}

/// An acknowledged play edited in the database beside the running service (its
/// card changed by SQL, the append-only trigger dropped): the console says across
/// its top that recording stopped and why, a play pressed meanwhile is refused
/// with that reason, and once the row is put back the alarm goes and playing goes
/// on.
#[test]
fn an_event_altered_outside_the_service_stops_recording_on_the_console() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("altered.db");
    let server = Server::start(&db);
    server
        .post("/api/rounds", &round(&["Alain", "François", "Jacques"]))
        .expect(200);
    server.post("/api/plays", r#"{"cards":["5D"]}"#).expect(200);
    let turn = |server: &Server| {
        let state = server.get("/api/state").expect(200);
        state["state"]["turn"].as_str().expect("turn").to_string()
    };
    let next = turn(&server);
    let driver = open_console(dir.path(), &console(&server));
    wait_for_turn(&driver, &next);
    let alarm = "const a = document.getElementById('alarm'); return [a.hidden, a.textContent];";
    assert_eq!(driver.eval(alarm), json!([true, ""]));

    let edit = |from: &str, to: &str| {
        let conn = rusqlite::Connection::open(&db).expect("raw");
        let trigger: String = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'events_append_only_update'",
                [],
                |row| row.get(0),
            )
            .expect("trigger");
        conn.execute_batch(&format!(
            "BEGIN; DROP TRIGGER events_append_only_update; \
             UPDATE events SET payload = replace(payload, '{from}', '{to}') WHERE seq = 2; \
             {trigger}; COMMIT;"
        ))
        .expect("edited");
    };
    edit("5D", "5H");
    let shown = driver.wait_within(Duration::from_secs(60), "the alarm", alarm, |v| {
        v[0] == false
    });
    let text = shown[1].as_str().expect("text");
    assert!(
        text.contains("recording stopped")
            && text.contains("event 2 of round 1.1, acknowledged at ")
            && text.contains("no longer matches its hash"),
        "{text}"
    );
    driver.eval(
        "const f = document.getElementById('cards'); f.value = '6S'; \
         f.dispatchEvent(new Event('input', { bubbles: true })); \
         document.getElementById('play').click(); return true;",
    );
    let said = driver.wait_for(
        "the play refused",
        "return document.getElementById('play-error').textContent;",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    );
    assert!(
        said.as_str()
            .unwrap()
            .contains("altered outside the service"),
        "{said}"
    );
    assert_eq!(plays(&server).len(), 1, "a play was recorded");

    edit("5H", "5D");
    driver.wait_within(Duration::from_secs(60), "the alarm gone", alarm, |v| {
        v[0] == true
    });
    driver.eval(
        "const f = document.getElementById('cards'); f.value = '6S'; \
         f.dispatchEvent(new Event('input', { bubbles: true })); \
         document.getElementById('play').click(); return true;",
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while plays(&server).len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the play was not recorded: {}",
            driver.eval("return document.getElementById('play-error').textContent;")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_for_turn(&driver, &turn(&server));
    drop(driver);
    server.stop();
}

/// The question under the Play panel's buttons: its text, "" while hidden.
const NOPLAY_ASKED: &str =
    "const q = document.getElementById('noplay-confirm'); return q.hidden ? '' : q.innerText;";

/// The no-plays recorded in round 1.1.
fn no_plays(server: &Server) -> usize {
    let audit = server.get_god("/api/audit/1.1").expect(200);
    audit["rounds"][0]["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "no_play")
        .count()
}

/// Types `cards` in the cards field (as typing would) and presses No play.
fn press_no_play(driver: &Driver, cards: &str) {
    driver.eval(&format!(
        "const f = document.getElementById('cards'); f.value = '{cards}'; \
         f.dispatchEvent(new Event('input', {{ bubbles: true }})); \
         document.getElementById('noplay').click(); return true;"
    ));
}

/// The referee trusts the shown hand, and a right no-play with 4 cards or fewer
/// ends the round for good: No play pressed instead of Play with one card typed
/// (or a spread hand the camera read only part of) is asked about first, naming
/// the referee's count and the shown one. "Change the cards" sends nothing; a hand
/// of the referee's count is sent without a question; one that differs is sent
/// once God presses "Send anyway".
#[test]
fn a_no_play_that_could_end_the_round_or_differs_from_the_count_is_asked_first() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("noplay-ask.db"));
    let body = json!({"god": "Pierre", "players": ["Dee", "Alain", "Jacques"], "rule": RULE,
        "starter": "3H", "hand_size": 13});
    server.post("/api/rounds", &body.to_string()).expect(200);
    let state = |server: &Server| server.get("/api/state").expect(200)["state"].clone();
    let first = state(&server)["turn"].as_str().expect("turn").to_string();
    let driver = open_console(dir.path(), &console(&server));
    wait_for_turn(&driver, &first);

    // One card typed, No play pressed: asked, nothing sent.
    press_no_play(&driver, "5c");
    let asked = driver.wait_for("the question", NOPLAY_ASKED, |v| v != "");
    let text = asked.as_str().expect("text");
    assert!(
        text.contains(&format!(
            "{first} holds 13 cards by the referee's count; the shown hand has 1. \
             A right no play with 4 cards or fewer ends the round and reveals the rule, \
             and no correction can reopen it."
        )) && text.contains("Send anyway")
            && text.contains("Change the cards"),
        "{text}"
    );
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("god-noplay-asked.png"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(no_plays(&server), 0, "a no-play was sent");
    driver.eval("document.getElementById('noplay-change').click(); return true;");
    let after = driver.eval(
        "return [document.getElementById('noplay-confirm').hidden, document.activeElement.id];",
    );
    assert_eq!(after, json!([true, "cards"]));
    assert_eq!(no_plays(&server), 0, "a no-play was sent");

    // The whole hand, all red after the odd starter: a right no-play of the
    // referee's count, sent without a question (a new hand of 9).
    let hearts = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH";
    press_no_play(&driver, hearts);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while no_plays(&server) < 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "the no-play was not sent: {} / {}",
            driver.eval(NOPLAY_ASKED),
            driver.eval("return document.getElementById('play-error').textContent;")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(state(&server)["hands"][&first], 9);
    let second = state(&server)["turn"].as_str().expect("turn").to_string();
    wait_for_turn(&driver, &second);

    // Twelve cards shown of thirteen: asked, then sent with Send anyway.
    press_no_play(&driver, "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD");
    let asked = driver.wait_for("the question", NOPLAY_ASKED, |v| v != "");
    let text = asked.as_str().expect("text");
    assert!(
        text.contains(&format!(
            "{second} holds 13 cards by the referee's count; the shown hand has 12."
        )) && !text.contains("ends the round"),
        "{text}"
    );
    assert_eq!(no_plays(&server), 1, "the second no-play was sent unasked");
    driver.eval("document.getElementById('noplay-anyway').click(); return true;");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while no_plays(&server) < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "Send anyway sent nothing: {}",
            driver.eval("return document.getElementById('play-error').textContent;")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    driver.wait_for("the question gone", NOPLAY_ASKED, |v| v == "");
    assert_eq!(state(&server)["hands"][&second], 8);
    assert!(state(&server)["ended"] != true, "the round ended");
    drop(driver);
    server.stop();
}

/// A tally in a log row (the round's scores, the game's totals, score changes)
/// lists its players in seating order, God last, as the Game panel does, not in
/// the alphabetical order of the service's JSON object.
#[test]
fn a_log_rows_tallies_are_in_seating_order_god_last() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("tally-order.db"));
    let seats = ["Zoé", "Bo", "Ana"];
    let body = json!({"god": "Pierre", "players": seats, "rule": "true", "starter": "3H",
        "hand_size": 1});
    server.post("/api/rounds", &body.to_string()).expect(200);
    // The first play empties a hand: the round ends, scored.
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    let driver = open_console(dir.path(), &console(&server));
    // The effects of the first log row that `is_it`, once it is shown.
    let effects_of = |what: &str, is_it: &dyn Fn(&Value) -> bool| -> String {
        let rows = driver.wait_for(what, LOG, |v| {
            v.as_array().is_some_and(|r| r.iter().any(is_it))
        });
        rows.as_array()
            .and_then(|r| r.iter().find(|x| is_it(x)))
            .and_then(|x| x["effects"].as_str())
            .expect("the row's effects")
            .to_string()
    };
    // The names of the tally after `label` in `effects`, in the order shown.
    let names_after = |effects: &str, label: &str| -> Vec<String> {
        let tally = effects
            .split(label)
            .nth(1)
            .unwrap_or_else(|| panic!("no {label:?} in {effects:?}"));
        tally
            .split(" · ")
            .next()
            .unwrap_or("")
            .split(", ")
            .map(|t| t.split(' ').next().unwrap_or("").to_string())
            .collect()
    };
    let effects = effects_of("the play's row", &|x| x["seq"] == "2");
    assert_eq!(
        names_after(&effects, "; scores "),
        ["Zoé", "Bo", "Ana", "Pierre"],
        "{effects}"
    );
    let scores = effects.split("; scores ").nth(1).unwrap_or("");
    let summary = driver.eval("return document.getElementById('round-scores').textContent;");
    let summary = summary.as_str().expect("summary");
    assert!(
        summary.ends_with(scores.split(" · ").next().unwrap_or("")),
        "the log says {scores:?}, the Game panel {summary:?}"
    );

    // The game ended: its row's totals too.
    server.post("/api/end-game", "").expect(200);
    let effects = effects_of("the end of the game's row", &|x| x["kind"] == "end of game");
    assert_eq!(
        names_after(&effects, "game totals "),
        ["Zoé", "Bo", "Ana", "Pierre"],
        "{effects}"
    );
    drop(driver);
    server.stop();
}

/// Names that print alike (Ana and ana) are listed with the form's other
/// problems, not left to the service; a newcomer is one whose name the game has
/// not seen exactly, and one written like a participant's name but for case or
/// accents is asked about with the name meant ("did you mean Ana?"). Started
/// anyway, the service's refusal is said in the start form, naming the round.
#[test]
fn alike_names_and_a_newcomer_like_a_participant_are_said_in_the_start_form() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("alike.db"));
    let driver = open_console(dir.path(), &console(&server));
    driver.eval(COUNT_ROUND_POSTS);
    driver.eval(
        "document.getElementById('god').value = 'Cy'; \
         document.getElementById('players').value = 'Ana, Dee, Bo, Cy, ana'; \
         document.getElementById('rule').value = 'true'; \
         document.getElementById('starter').value = '3H'; \
         document.getElementById('start').click(); return true;",
    );
    let shown = driver.wait_for("the form's errors", START_ERROR, |v| v[0] != "");
    let text = shown[0].as_str().expect("text");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains("God (Cy) is among them"), "{text}");
    assert!(
        lines[1].starts_with("players: “Ana” and “ana” are alike"),
        "{text}"
    );
    assert_eq!(shown[1], 0, "a round was asked for: {shown}");

    // A first round, scored at its first play (a hand of one).
    let body = json!({"god": "Cy", "players": ["Ana", "Bo", "Dee"], "rule": "true",
        "starter": "3H", "hand_size": 1});
    server.post("/api/rounds", &body.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    driver.wait_for(
        "the round over",
        "return document.getElementById('now').textContent;",
        |v| v.as_str().is_some_and(|t| t.starts_with("Round over")),
    );
    driver.eval(
        "document.getElementById('god').value = 'Bo'; \
         document.getElementById('players').value = 'Dee, Cy, ana'; \
         document.getElementById('rule').value = 'true'; \
         document.getElementById('starter').value = '3H'; \
         document.getElementById('start-error').textContent = ''; \
         document.getElementById('start').click(); return true;",
    );
    let asked = driver.wait_for(
        "the question about the newcomer",
        "const q = document.getElementById('start-confirm'); return q.hidden ? '' : q.innerText;",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    );
    let text = asked.as_str().expect("text");
    assert!(
        text.contains("did you mean Ana?")
            && text.contains("ana is new to game 1")
            && text.contains("Change the players"),
        "{text}"
    );
    assert_eq!(driver.eval(START_ERROR)[1], 0, "a round was asked for");
    driver.eval("document.getElementById('start-anyway').click(); return true;");
    let shown = driver.wait_for("the refusal", START_ERROR, |v| v[0] != "");
    let text = shown[0].as_str().expect("text");
    assert!(
        text.starts_with(
            "Round not started: \"ana\" is new to this game, but \"Ana\" is in it already"
        ),
        "{text}"
    );
    assert_eq!(shown[1], 1, "{shown}");
    assert_eq!(driver.eval("return document.activeElement.id;"), "players");
    assert_eq!(server.get("/api/state").expect(200)["round"], "1.1");
    drop(driver);
    server.stop();
}
