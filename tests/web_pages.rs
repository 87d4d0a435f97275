//! The tablet and the audit pages in a real browser (headless Chromium over
//! WebDriver, as in `web_browser.rs`): players and scores in seating order, no turn
//! once the game is over, a correction shown to the table, the audit following the
//! table live and a game audited whole, and the tablet's layout on a small
//! landscape screen and on a phone.
//!
//! Chromium and chromedriver are required (`scripts/test-all` installs them): when
//! they are missing these tests fail, they do not skip.

mod web_support;

use std::path::Path;

use serde_json::{json, Value};
use web_support::driver::Driver;
use web_support::Server;

const RULE: &str = "if last.odd then black else red";

/// What the tablet shows, read from the page.
const TABLET: &str = r#"const text = (id) => (document.getElementById(id) || {}).textContent || '';
return {
  conn: document.getElementById('conn').className,
  version: document.body.dataset.version || '',
  players: Array.from(document.querySelectorAll('#players tr td:first-child')).map(e => e.textContent),
  to_play: Array.from(document.querySelectorAll('#players tr.turn td:first-child')).map(e => e.textContent),
  scores: Array.from(document.querySelectorAll('#scores tr td:first-child')).map(e => e.textContent),
  turn: text('turn'),
  verdict: text('verdict'),
  last: document.getElementById('last').innerText,
  changed: Array.from(document.querySelectorAll('#changed li')).map(e => e.textContent),
  text: document.body.innerText
};"#;

/// A service, a browser session and the tablet page, live.
fn tablet(db: &Path) -> (Server, Driver) {
    let server = Server::start(db);
    let mut driver = Driver::start();
    driver.open_session(&db.with_extension("profile"));
    driver.goto(&format!("http://{}/", server.addr));
    driver.wait_for("the live connection", TABLET, |v| {
        v["conn"].as_str().is_some_and(|c| c.contains("up"))
    });
    (server, driver)
}

fn names(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `GET /api/state` from the page, its `state`'s keys in the order the text gives
/// them (a JavaScript object keeps the order of its names).
const STATE_ORDER: &str = r#"const x = new XMLHttpRequest();
x.open('GET', '/api/state', false); x.send();
const s = JSON.parse(x.responseText).state;
return {hands: Object.keys(s.hands || {}), totals: Object.keys((s.game || {}).totals || {})};"#;

#[test]
fn the_tablet_lists_players_and_scores_in_seating_order_god_last() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = tablet(&dir.path().join("seats.db"));
    let seats = ["Jacques", "Philippe", "Pierre", "Alain"];
    let round = json!({"god": "François", "players": seats, "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["8H"]}"#).expect(200);
    let seen = driver.wait_for("the players", TABLET, |v| names(&v["players"]).len() == 4);
    assert_eq!(names(&seen["players"]), seats, "{seen}");
    let order = driver.eval(STATE_ORDER);
    assert_eq!(names(&order["hands"]), seats, "the view's hands: {order}");

    // The game's totals: the players in seating order, God last.
    server.post("/api/end-game", "").expect(200);
    let seen = driver.wait_for("the game's totals", TABLET, |v| {
        names(&v["scores"]).len() == 5
    });
    let with_god = ["Jacques", "Philippe", "Pierre", "Alain", "François"];
    assert_eq!(names(&seen["scores"]), with_god, "{seen}");
    let order = driver.eval(STATE_ORDER);
    assert_eq!(
        names(&order["totals"]),
        with_god,
        "the view's totals: {order}"
    );
    drop(driver);
    server.stop();
}

#[test]
fn once_the_game_is_over_the_tablet_shows_no_turn() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = tablet(&dir.path().join("over.db"));
    let round = json!({"god": "Pierre", "players": ["Alain", "François", "Jacques", "Philippe"],
                       "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["8H"]}"#).expect(200);
    driver.wait_for("Philippe's turn", TABLET, |v| v["turn"] == "Philippe");

    server.post("/api/end-game", "").expect(200);
    let seen = driver.wait_for("the end of the game", TABLET, |v| {
        v["verdict"] == "GAME OVER"
    });
    // Nobody is to play: the state names no turn, and neither does the page.
    let state = server.get("/api/state").expect(200);
    assert_eq!(state["game_over"], true);
    assert_eq!(state["state"]["turn"], serde_json::Value::Null, "{state}");
    assert_eq!(seen["turn"], "game over", "{seen}");
    assert_eq!(seen["to_play"], json!([]), "{seen}");
    let text = seen["text"].as_str().expect("text");
    assert!(!text.contains("to play"), "{text}");

    // The revealed rule on a phone: it wraps, between its words only.
    driver.viewport(390, 844);
    let seen = driver.wait_for("the rule on a phone", RULE_WORDS, |v| {
        v["width"] == 390 && v["rule"] == RULE
    });
    assert!(
        seen["lines"].as_u64() > Some(1),
        "the rule did not wrap: {seen}"
    );
    assert_eq!(seen["broken"], json!([]), "words of the rule split: {seen}");
    drop(driver);
    server.stop();
}

/// The words the tablet split across two lines in the revealed rule and in the
/// verdict on the commitment beside it, and on how many lines the rule is.
const RULE_WORDS: &str = r#"const rule = document.getElementById('rule');
if (!rule) return {width: window.innerWidth, rule: null};
const broken = [], tops = new Set();
for (const el of [rule, ...document.querySelectorAll('#seal .ok, #seal .bad')]) {
  const text = el.firstChild, re = /\S+/g;
  let m;
  while ((m = re.exec(text.data))) {
    const r = document.createRange();
    r.setStart(text, m.index);
    r.setEnd(text, m.index + m[0].length);
    const lines = new Set(Array.from(r.getClientRects()).filter((x) => x.width > 0).map((x) => Math.round(x.top)));
    if (el === rule) lines.forEach((t) => tops.add(t));
    if (lines.size > 1) broken.push(m[0]);
  }
}
return {width: window.innerWidth, rule: rule.textContent, broken, lines: tops.size};"#;

/// Which of the hand game's panels the tablet shows.
const HAND_PANELS: &str =
    "return ['markers-white', 'markers-black', 'prophet', 'stock', 'players-panel'] \
  .map((id) => document.getElementById(id).hidden);";

#[test]
fn variants_without_hands_markers_or_a_prophet_do_not_show_them_empty() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = tablet(&dir.path().join("variants.db"));
    let round = json!({"god": "Gil", "players": ["Ana", "Bo"], "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    driver.wait_for("the hand game", TABLET, |v| v["turn"] != "—");
    assert_eq!(
        driver.eval(HAND_PANELS),
        json!([false, false, false, false, false])
    );
    server.post("/api/end-game", "").expect(200);
    let mut round = round;
    round["variant"] = json!("delphos");
    round["new_game"] = json!(true);
    server.post("/api/rounds", &round.to_string()).expect(200);
    driver.wait_for("the Delphos round", HAND_PANELS, |v| v[4] == true);
    assert_eq!(
        driver.eval(HAND_PANELS),
        json!([true, true, true, true, true])
    );
    // A proposal is accepted or rejected, in Delphos's words: after the odd 3H a
    // black card is accepted, and after the even 4S a black one is rejected.
    for (card, verdict) in [("4S", "ACCEPTED ✓"), ("5S", "REJECTED ✗")] {
        let proposer = server.get("/api/state").expect(200)["state"]["turn"]
            .as_str()
            .expect("turn")
            .to_string();
        let ack = server
            .post("/api/plays", &json!({ "cards": [card] }).to_string())
            .expect(200);
        let version = ack["version"].to_string();
        let seen = driver.wait_for("the proposal's answer", TABLET, |v| {
            v["version"] == version.as_str()
        });
        assert_eq!(seen["verdict"], verdict, "{seen}");
        let last = seen["last"].as_str().expect("last");
        assert!(
            last.starts_with(&format!("{verdict}\n{proposer} proposes\n")),
            "{last}"
        );
        assert!(
            !last.contains("RIGHT") && !last.contains("WRONG") && !last.contains("plays"),
            "{last}"
        );
    }
    // The 1959 game shows its hands in its own panel.
    server.post("/api/end-game", "").expect(200);
    round["variant"] = json!("eleusis-1959");
    server.post("/api/rounds", &round.to_string()).expect(200);
    driver.wait_for(
        "the 1959 round",
        "return !!document.getElementById('stage');",
        |v| v == true,
    );
    assert_eq!(
        driver.eval(HAND_PANELS),
        json!([true, true, true, true, true])
    );
    drop(driver);
    server.stop();
}

#[test]
fn a_correction_tells_the_table_which_verdicts_it_reversed() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = tablet(&dir.path().join("correct.db"));
    let round = json!({"god": "Pierre", "players": ["Alain", "François", "Jacques", "Philippe"],
                       "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    // Jacques 4S, Philippe 9D, Alain 9S: all right.
    for card in ["4S", "9D", "9S"] {
        let ack = server
            .post("/api/plays", &json!({ "cards": [card] }).to_string())
            .expect(200);
        assert_eq!(ack["ack"]["right"], true, "{ack}");
    }
    driver.wait_for("Alain's play", TABLET, |v| {
        v["last"]
            .as_str()
            .is_some_and(|t| t.contains("Alain plays"))
    });

    // Jacques's card was a 4♥: his play and Philippe's after it are now wrong.
    let ack = server
        .post("/api/corrections", r#"{"seq":2,"cards":["4H"]}"#)
        .expect(200);
    assert_eq!(ack["ack"]["changed"], json!(["1.1:2", "1.1:3"]), "{ack}");
    let seen = driver.wait_for("the correction", TABLET, |v| v["verdict"] == "CORRECTION");
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("tablet-correction.png"));
    let last = seen["last"].as_str().expect("last");
    assert!(last.contains("God corrects 1.1:2 — Jacques, now"), "{last}");
    assert!(
        !last.contains("RIGHT ✓\n"),
        "the old verdict is still shown: {last}"
    );
    assert_eq!(
        seen["changed"],
        json!([
            "1.1:2 Jacques 4H: now WRONG ✗ (was RIGHT ✓)",
            "1.1:3 Philippe 9D: now WRONG ✗ (was RIGHT ✓)"
        ]),
        "{seen}"
    );
    let view = server.get("/api/state").expect(200);
    let correction = &view["correction"];
    assert_eq!(correction["target"]["event"], "1.1:2", "{correction}");
    assert_eq!(correction["target"]["cards"], json!(["4H"]), "{correction}");
    assert_eq!(
        correction["fields"],
        json!({"cards": ["4H"]}),
        "{correction}"
    );

    // The next play is the news again.
    server
        .post("/api/plays", r#"{"cards":["10D"]}"#)
        .expect(200);
    let seen = driver.wait_for("the next play", TABLET, |v| v["verdict"] != "CORRECTION");
    assert_eq!(seen["changed"], json!([]), "{seen}");
    assert!(server.get("/api/state").expect(200)["correction"].is_null());

    // François's red 10D after the black 9S was wrong, and so is the 10H it really
    // was: another card, the same ruling, which the table must not read as reversed.
    let ack = server
        .post("/api/corrections", r#"{"seq":6,"cards":["10H"]}"#)
        .expect(200);
    assert_eq!(ack["correction"]["target"]["right"], false, "{ack}");
    assert_eq!(ack["correction"]["target"]["was"], false, "{ack}");
    let seen = driver.wait_for("the second correction", TABLET, |v| {
        v["verdict"] == "CORRECTION" && v["last"].as_str().is_some_and(|t| t.contains("1.1:6"))
    });
    assert_eq!(
        seen["changed"],
        json!(["1.1:6 François 10H: still WRONG ✗"]),
        "{seen}"
    );
    let last = seen["last"].as_str().expect("last");
    assert!(
        last.contains("no verdict changed; 1 play changed without its verdict:"),
        "{last}"
    );
    drop(driver);
    server.stop();
}

/// What an audit page shows.
const AUDIT: &str = r#"return {
  conn: (document.getElementById('conn') || {}).className || '',
  title: document.getElementById('title').textContent,
  chain: (document.getElementById('chain') || {}).textContent || '',
  rounds: Array.from(document.querySelectorAll('#report table')).map(t => t.dataset.round || null),
  rows: Array.from(document.querySelectorAll('#report table')).map(t => t.rows.length - 1),
  marker: window.__loadedOnce || null
};"#;

#[test]
fn the_audit_shows_a_whole_game_and_follows_the_table_live() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("audit.db"));
    // Round 1.1 ends at the first play (one card each); round 1.2 goes on.
    let first = json!({"god": "Pierre", "players": ["Alain", "François"], "rule": "true",
                       "starter": "3H", "hand_size": 1});
    server.post("/api/rounds", &first.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    let second = json!({"god": "Alain", "players": ["François", "Pierre"], "rule": "true",
                        "starter": "5D", "hand_size": 3});
    server.post("/api/rounds", &second.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["6C"]}"#).expect(200);

    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&format!("http://{}/audit/1", server.addr));
    let seen = driver.wait_for("the game's rounds", AUDIT, |v| {
        v["rounds"].as_array().map(Vec::len) == Some(2)
            && v["conn"].as_str().is_some_and(|c| c.contains("up"))
    });
    assert_eq!(seen["title"], "game 1", "{seen}");
    assert_eq!(seen["rounds"], json!(["1.1", "1.2"]), "{seen}");
    assert_eq!(seen["rows"], json!([2, 2]), "{seen}");
    assert_eq!(seen["chain"], "✓ hash chain of game 1 intact (4 events)");

    // A play at the table shows up without a reload.
    driver.eval("window.__loadedOnce = 'yes'; return true;");
    server.post("/api/plays", r#"{"cards":["7H"]}"#).expect(200);
    let seen = driver.wait_for("the new play", AUDIT, |v| v["rows"] == json!([2, 3]));
    assert_eq!(seen["marker"], "yes", "the page was reloaded: {seen}");
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("audit-game.png"));
    assert_eq!(seen["chain"], "✓ hash chain of game 1 intact (5 events)");

    // A round's page is that round, titled as one.
    driver.goto(&format!("http://{}/audit/1.2", server.addr));
    let seen = driver.wait_for("the round", AUDIT, |v| v["rows"] == json!([3]));
    assert_eq!(seen["title"], "round 1.2", "{seen}");
    assert_eq!(seen["rounds"], json!(["1.2"]), "{seen}");
    // Its chain check runs up to that round: the count is not the game's.
    driver.goto(&format!("http://{}/audit/1.1", server.addr));
    let seen = driver.wait_for("round 1.1's chain check", AUDIT, |v| {
        v["title"] == "round 1.1" && v["chain"].as_str().is_some_and(|c| !c.is_empty())
    });
    assert_eq!(
        seen["chain"],
        "✓ hash chain of game 1 intact up to round 1.1 (2 events)"
    );
    driver.goto(&format!("http://{}/audit/1.2", server.addr));
    driver.wait_for("round 1.2 again", AUDIT, |v| v["rows"] == json!([3]));

    // A play read by the camera as one card, corrected to two: the page says the
    // reads no longer pair with the cards one for one.
    let read = json!({"cards": ["8C"], "evidence": {"reads": [{"read": "8C", "confidence": 0.9}]}});
    server.post("/api/plays", &read.to_string()).expect(200);
    server
        .post(
            "/api/corrections",
            r#"{"seq":4,"round":2,"cards":["8C","9C"]}"#,
        )
        .expect(200);
    let note = driver.wait_for(
        "the reads' note",
        "const n = document.querySelector('.reads-note'); return n ? n.textContent : null;",
        |v| v.is_string(),
    );
    assert_eq!(
        note,
        "the recognizer read 1 card and the event holds 2 cards: reads and cards are matched in order as far as both go"
    );
    drop(driver);
    server.stop();
}

/// Where things are on the tablet, in viewport pixels.
const GEOMETRY: &str = r#"const rect = (e) => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height}; };
const cards = Array.from(document.querySelectorAll('#layout .card'));
const newest = cards.reduce((a, c) => { const n = Number((c.querySelector('.laid') || {}).textContent || 0); return n > a.n ? {n, c} : a; }, {n: 0, c: null});
const turn = document.getElementById('turn');
return {
  version: document.body.dataset.version || '',
  laid: newest.n,
  newest: newest.c ? rect(newest.c) : null,
  box: rect(document.getElementById('layout-scroll')),
  turn: rect(turn), turn_cut: turn.scrollWidth > turn.clientWidth,
  verdict: rect(document.getElementById('verdict') || document.getElementById('last')),
  players: rect(document.getElementById('players')),
  width: window.innerWidth, height: window.innerHeight,
  scroll_width: document.documentElement.scrollWidth
};"#;

#[test]
fn a_long_round_of_many_players_fits_a_small_tablet_and_a_phone() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("long.db"));
    let players: Vec<String> = (1..=14)
        .map(|i| format!("{i:02} Bartholomew-Maximilian Fitzgerald-Montgomery de la Tour-Dupont"))
        .map(|n| n.chars().take(60).collect())
        .collect();
    let round = json!({"god": "Pierre", "players": players, "rule": "true", "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    let suits = ["S", "H", "D", "C"];
    let ranks = [
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ];
    for i in 0..100 {
        let card = format!("{}{}", ranks[i % 13], suits[(i / 13) % 4]);
        server
            .post("/api/plays", &json!({ "cards": [card] }).to_string())
            .expect(200);
    }

    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.viewport(1024, 768);
    driver.goto(&format!("http://{}/", server.addr));
    let seen = driver.wait_for("the 101 cards", GEOMETRY, |v| v["laid"] == 101);
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    driver.screenshot(&shots.join("tablet-1024.png"));
    let height = seen["height"].as_f64().expect("height");
    let (newest, box_) = (&seen["newest"], &seen["box"]);
    let f = |v: &Value| v.as_f64().expect("number");
    assert!(
        f(&newest["top"]) >= f(&box_["top"])
            && f(&newest["bottom"]) <= f(&box_["bottom"])
            && f(&newest["bottom"]) <= height,
        "the newest card is out of view: {seen}"
    );
    // Long names are cut in big type: one line for whose turn it is, one row per
    // player.
    assert!(f(&seen["turn"]["height"]) < 60.0, "{seen}");
    assert_eq!(seen["turn_cut"], true, "{seen}");
    assert!(
        f(&seen["players"]["height"]) < 15.0 * 40.0,
        "the player list is too long: {seen}"
    );

    // A phone: nothing wider than the screen, whose turn it is and the verdict on
    // the first screen.
    driver.viewport(390, 844);
    driver.goto(&format!("http://{}/", server.addr));
    let seen = driver.wait_for("the 101 cards", GEOMETRY, |v| v["laid"] == 101);
    driver.screenshot(&shots.join("tablet-390.png"));
    assert!(
        seen["scroll_width"].as_u64() <= seen["width"].as_u64(),
        "the page is wider than the screen: {seen}"
    );
    let height = f(&seen["height"]);
    assert!(f(&seen["turn"]["bottom"]) <= height, "{seen}");
    assert!(f(&seen["verdict"]["bottom"]) <= height, "{seen}");
    drop(driver);
    server.stop();
}

/// Where the end of a round shows on the tablet, in viewport pixels.
const ROUND_OVER: &str = r#"const rect = (e) => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
const banner = Array.from(document.querySelectorAll('#banners .banner')).find(b => b.textContent.startsWith('Round over'));
const scores = document.getElementById('scores-panel');
return {
  banner: banner ? rect(banner) : null,
  scroll: rect(document.getElementById('layout-scroll')),
  wrap: rect(document.getElementById('layout-wrap')),
  scores: scores.hidden ? null : rect(scores),
  scores_rows: document.querySelectorAll('#scores tr').length,
  aside: rect(document.querySelector('aside')),
  height: window.innerHeight,
  scroll_width: document.documentElement.scrollWidth,
  width: window.innerWidth
};"#;

/// A round of five players with long names, 20 cards each, played in sequences of
/// four: laid 85 cards when the first hand is empty. The tablet is open at
/// 1024 × 768 while it is played; when the round ends, its banner shows whole at
/// the top of the layout's panel (the cards scroll under it, not the banner) and
/// the scores are on the screen without scrolling the side column by hand; on a
/// phone they come right after whose turn it is.
#[test]
fn at_the_end_of_a_round_the_tablet_shows_its_banner_and_scores() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("ends.db"));
    let players: Vec<String> = ["Alain", "François", "Jacques", "Philippe", "Marie"]
        .iter()
        .map(|n| format!("{n} de la Tour-Dupont de Montmorency"))
        .collect();
    let round = json!({"god": "Pierre", "players": players, "rule": "true", "starter": "3H",
                       "hand_size": 20});
    server.post("/api/rounds", &round.to_string()).expect(200);
    let deck: Vec<String> = ["S", "H", "D", "C"]
        .iter()
        .flat_map(|s| {
            [
                "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
            ]
            .iter()
            .map(move |r| format!("{r}{s}"))
        })
        .collect();
    let sequence = |i: usize| -> Vec<&String> { (0..4).map(|k| &deck[(i * 4 + k) % 52]).collect() };
    // Four sequences each: nobody's hand is empty yet.
    for i in 0..20 {
        let ack = server
            .post("/api/plays", &json!({ "cards": sequence(i) }).to_string())
            .expect(200);
        assert_eq!(ack["ack"]["right"], true, "{ack}");
    }

    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.viewport(1024, 768);
    driver.goto(&format!("http://{}/", server.addr));
    driver.wait_for("the 81 cards", GEOMETRY, |v| v["laid"] == 81);
    // The fifth sequence of the first to play empties his hand: the round ends.
    server
        .post("/api/plays", &json!({ "cards": sequence(20) }).to_string())
        .expect(200);
    assert_eq!(server.get("/api/state").expect(200)["state"]["ended"], true);
    let seen = driver.wait_for("the end of the round", ROUND_OVER, |v| {
        !v["banner"].is_null() && v["scores_rows"] == 7
    });
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    driver.screenshot(&shots.join("tablet-round-over-1024.png"));
    let f = |v: &Value| v.as_f64().expect("number");
    let (banner, wrap, scroll) = (&seen["banner"], &seen["wrap"], &seen["scroll"]);
    assert!(
        f(&banner["top"]) >= f(&wrap["top"]) && f(&banner["bottom"]) <= f(&scroll["top"]),
        "the banner is not whole above the cards: {seen}"
    );
    let newest = driver.eval(GEOMETRY);
    assert_eq!(newest["laid"], 85, "{newest}");
    assert!(
        f(&newest["newest"]["top"]) >= f(&scroll["top"])
            && f(&newest["newest"]["bottom"]) <= f(&scroll["bottom"]),
        "the newest card is out of view: {newest}"
    );
    let (scores, aside) = (&seen["scores"], &seen["aside"]);
    assert!(
        f(&scores["top"]) >= f(&aside["top"])
            && f(&scores["bottom"]) <= f(&aside["bottom"])
            && f(&scores["bottom"]) <= f(&seen["height"]),
        "the scores are not all on the screen: {seen}"
    );

    // A phone: the scores on the first screen, under whose turn it is.
    driver.viewport(390, 844);
    driver.goto(&format!("http://{}/", server.addr));
    let seen = driver.wait_for("the end of the round", ROUND_OVER, |v| {
        !v["banner"].is_null() && v["scores_rows"] == 7
    });
    driver.screenshot(&shots.join("tablet-round-over-390.png"));
    assert!(
        f(&seen["scores"]["top"]) < f(&seen["height"]),
        "the scores are not on the first screen: {seen}"
    );
    assert!(
        seen["scroll_width"].as_u64() <= seen["width"].as_u64(),
        "the page is wider than the screen: {seen}"
    );
    drop(driver);
    server.stop();
}

/// How wide an audit page is, once loaded with its card cuts.
const AUDIT_WIDTH: &str = r#"const imgs = Array.from(document.querySelectorAll('img.card-cut'));
const tables = Array.from(document.querySelectorAll('#report table, #rounds'))
  .filter(t => t.offsetParent !== null);
return {
  loaded: Number(document.body.dataset.loaded || 0),
  images: imgs.length, images_loaded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
  rows: tables.reduce((n, t) => n + t.rows.length, 0),
  scroll_width: document.documentElement.scrollWidth,
  client_width: document.documentElement.clientWidth,
  tables_cut: tables.filter(t => t.parentElement.scrollWidth > t.parentElement.clientWidth).length,
  too_wide: Array.from(document.querySelectorAll('body *'))
    .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
    .slice(0, 5).map(e => e.tagName + '.' + e.className)
};"#;

/// The words of the audit's tables that the page broke across two lines (a hyphen,
/// a dash or a slash may end a line: those are not broken words), and what the
/// events table says of corrections, placements and markers.
const AUDIT_WORDS: &str = r#"const broken = [];
for (const td of document.querySelectorAll('#report table.events td, #rounds td')) {
  const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const re = /[^\s\-‐–—\/]+/g;
    let m;
    while ((m = re.exec(n.data))) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set(Array.from(r.getClientRects()).filter((x) => x.width > 0).map((x) => Math.round(x.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
}
const rows = Array.from(document.querySelectorAll('#report table.events tr')).slice(1);
const cellOf = (tr, label) => ((tr.querySelector('td[data-label="' + label + '"]') || {}).textContent || '');
return {
  broken: broken.slice(0, 10),
  corrections: rows.filter((tr) => cellOf(tr, 'event') === 'correct').map((tr) => cellOf(tr, 'verdict')),
  second: rows.filter((tr) => cellOf(tr, '#') === '2').map((tr) => cellOf(tr, 'verdict')),
  effects: rows.map((tr) => cellOf(tr, 'effects')).filter(Boolean)
};"#;

/// The audit of a round with all it can hold — 60-character names, a shown hand of
/// sixteen cards and God's pick, a prophet overthrown, a correction and its JSON, a
/// sequence of four with the cards cut from its frame, every explanation — is no
/// wider than the window at 1024 × 768 and on a 390 × 844 phone: the page never
/// scrolls sideways. At 1024 px the events table fits its panel whole; on the
/// phone each event is a block of its own. So do the game's page and the list.
#[test]
fn the_audit_pages_fit_a_tablet_and_a_phone() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("wide.db"));
    let long = |who: &str| {
        format!("{who} {}", "de la Table Ronde et des Chevaliers ".repeat(3))[..60].to_string()
    };
    let (alain, francois, jacques) = (long("Alain"), long("François"), long("Jacques"));
    let round = json!({"god": long("Pierre"), "players": [&alain, &francois, &jacques],
                       "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    let hand = [
        "5S", "7C", "2H", "9S", "JC", "QS", "KC", "AS", "3C", "5C", "7S", "9C", "JS", "KS", "AC",
        "3S",
    ];
    let prophet = json!({ "player": francois }).to_string();
    for (path, body) in [
        ("/api/plays", r#"{"cards":["4S"]}"#),
        (
            "/api/no-plays",
            &json!({"hand": hand, "pick": "2H"}).to_string(),
        ),
        ("/api/plays", r#"{"cards":["3D"]}"#),
        ("/api/prophet", &prophet),
        ("/api/plays", r#"{"cards":["6C"],"prophet_says":"right"}"#),
        ("/api/plays", r#"{"cards":["8H"],"prophet_says":"wrong"}"#),
        ("/api/corrections", r#"{"seq":2,"cards":["4C"]}"#),
    ] {
        server.post(path, body).expect(200);
    }
    let frame = server
        .post_bytes("/api/frames", &web_support::png_frame())
        .expect(200);
    let corners = json!([[130, 60], [216, 60], [216, 180], [130, 180]]);
    let cards = ["9H", "10S", "JD", "QS"];
    let reads: Vec<Value> = cards
        .iter()
        .map(|c| json!({"read": c, "confidence": 0.42, "corners": corners}))
        .collect();
    let play = json!({"cards": cards, "evidence": {"frame": frame["frame"], "reads": reads}});
    let ack = server.post("/api/plays", &play.to_string()).expect(200);
    assert_eq!(ack["ack"]["right"], true, "{ack}");

    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let pages = [
        (format!("/audit/1.1?token={}", server.token), 4),
        ("/audit/1".to_string(), 4),
        ("/audit".to_string(), 0),
    ];
    for (width, height) in [(1024, 768), (390, 844)] {
        driver.viewport(width, height);
        for (page, images) in &pages {
            driver.goto(&format!("http://{}{page}", server.addr));
            let seen = driver.wait_for(&format!("{page} loaded"), AUDIT_WIDTH, |v| {
                v["loaded"].as_u64() >= Some(1)
                    && v["rows"].as_u64() >= Some(2)
                    && v["images"] == *images
                    && v["images_loaded"] == *images
            });
            if page.starts_with("/audit/1.1") {
                driver.screenshot(&shots.join(format!("audit-{width}.png")));
            }
            // Words are never cut in the middle, and corrections, placements and
            // markers are said in words, every card counted from 1 by its laid
            // number.
            let words = driver.eval(AUDIT_WORDS);
            assert_eq!(
                words["broken"],
                json!([]),
                "{page} at {width} px breaks words: {words}"
            );
            if *images > 0 {
                assert_eq!(
                    words["corrections"],
                    json!(["corrects 1.1:2: cards 4S → 4C"]),
                    "{page} at {width} px: {words}"
                );
                let second = words["second"][0].as_str().unwrap_or_default();
                assert!(
                    second.contains("cards: recorded 4S → corrected to 4C"),
                    "{page} at {width} px: {words}"
                );
                let effects = words["effects"].to_string();
                assert!(
                    effects.contains("on the main line: 4C (laid card 2)"),
                    "{page} at {width} px: {words}"
                );
                assert!(
                    !effects.contains("main[") && !effects.contains("on ["),
                    "{page} at {width} px counts from 0 or prints a list: {words}"
                );
            }
            assert!(
                seen["scroll_width"].as_u64() <= seen["client_width"].as_u64(),
                "{page} at {width} px scrolls sideways: {seen}"
            );
            assert_eq!(
                seen["tables_cut"], 0,
                "{page} at {width} px: a table is cut in its panel: {seen}"
            );
        }
    }
    drop(driver);
    server.stop();
}

/// A play that did not happen, voided: the tablet says which event, that it did
/// not happen and what was announced for it, and who gives back the penalty
/// cards; the turn is back with its player. The audit page keeps its row, struck
/// through, with the verdict "void", what the table was told and the correction
/// that voided it.
#[test]
fn a_voided_play_is_told_to_the_table_and_struck_through_in_the_audit() {
    let dir = tempfile::tempdir().expect("dir");
    let (server, driver) = tablet(&dir.path().join("void.db"));
    let round = json!({"god": "Pierre", "players": ["Alain", "François", "Jacques", "Philippe"],
                       "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    // Philippe's 9S after 4S (even: red wanted): wrong, with a penalty.
    let ack = server.post("/api/plays", r#"{"cards":["9S"]}"#).expect(200);
    assert_eq!(ack["last"]["player"], "Philippe", "{ack}");
    assert_eq!(ack["ack"]["right"], false, "{ack}");
    driver.wait_for("Philippe's play", TABLET, |v| v["turn"] == "Alain");

    let ack = server
        .post("/api/corrections", r#"{"seq":3,"void":true}"#)
        .expect(200);
    assert_eq!(ack["correction"]["target"]["void"], true, "{ack}");
    let seen = driver.wait_for("the void", TABLET, |v| v["verdict"] == "VOIDED");
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("tablet-void.png"));
    let last = seen["last"].as_str().expect("last");
    assert!(
        last.contains("1.1:3 voided: Philippe's 9S did not happen"),
        "{last}"
    );
    assert!(last.contains("announced WRONG ✗"), "{last}");
    assert!(last.contains("Philippe gives back"), "{last}");
    assert!(!last.contains("now no verdict (was"), "{last}");
    assert_eq!(seen["turn"], "Philippe", "{seen}");

    driver.goto(&format!("http://{}/audit/1.1", server.addr));
    let row = driver.wait_for(
        "the voided row",
        "const r = document.querySelector('#report table tr.void'); \
         if (!r) return null; \
         const cell = (l) => r.querySelector('td[data-label=\"' + l + '\"]'); \
         return {seq: cell('#').innerText, verdict: cell('verdict').innerText, \
                 player: cell('player').innerText, \
                 struck: getComputedStyle(cell('cards').querySelector('.void-struck') || cell('cards')).textDecorationLine, \
                 text: document.getElementById('report').innerText};",
        |v| v.is_object(),
    );
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("audit-void.png"));
    assert_eq!(row["seq"], "3", "{row}");
    assert_eq!(row["player"], "Philippe", "{row}");
    let verdict = row["verdict"].as_str().expect("verdict");
    assert!(verdict.starts_with("void"), "{row}");
    assert!(verdict.contains("voided by 1.1:4"), "{row}");
    assert!(verdict.contains("announced at the table: wrong"), "{row}");
    assert!(
        row["struck"]
            .as_str()
            .is_some_and(|t| t.contains("line-through")),
        "{row}"
    );
    assert!(
        row["text"]
            .as_str()
            .is_some_and(|t| t.contains("corrects 1.1:3: voided (the event did not happen)")),
        "{row}"
    );
    drop(driver);
    server.stop();
}

/// `HH:MM:SS` of a stored UTC time (`2026-11-28T22:26:56.123Z`) moved by
/// `minutes`, with its milliseconds when `ms`.
fn shifted(at: &str, minutes: i64, ms: bool) -> String {
    let part = |range: std::ops::Range<usize>| -> i64 { at[range].parse().expect("a number") };
    let secs =
        (part(11..13) * 3600 + part(14..16) * 60 + part(17..19) + minutes * 60).rem_euclid(86_400);
    let time = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if ms {
        format!("{time}.{}", &at[20..23])
    } else {
        time
    }
}

/// Stored times are UTC; at the table they are shown in the browser's own time
/// zone (here India's, UTC+05:30, which has no summer time): the console's log
/// and the audit page, which says which zone that is and keeps the UTC time in
/// each time's tooltip.
#[test]
fn times_are_shown_in_the_browsers_time_zone() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("zone.db"));
    let round =
        json!({"god": "Pierre", "players": ["Alain", "François"], "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    let mut driver = Driver::start_in_zone("Asia/Kolkata");
    driver.open_session(&dir.path().join("profile"));

    let audit = server.get_god("/api/audit/1.1").expect(200);
    let at = audit["rounds"][0]["events"][1]["time"]
        .as_str()
        .expect("time")
        .to_string();
    assert!(at.ends_with('Z'), "{at}");
    driver.goto(&format!("http://{}/audit/1.1", server.addr));
    let shown = driver.wait_for(
        "the audit's times",
        "const rows = document.querySelectorAll('#report table tr'); \
         if (rows.length < 3) return null; \
         const t = rows[2].querySelector('td[data-label=\"time\"]'); \
         return [t.innerText, t.title, (document.getElementById('zone-note') || {}).textContent];",
        |v| v.is_array(),
    );
    let local = shifted(&at, 330, true);
    assert!(
        shown[0].as_str().is_some_and(|t| t.ends_with(&local)),
        "{local} expected: {shown}"
    );
    assert!(
        shown[1].as_str().is_some_and(|t| t.contains(&at)),
        "{shown}"
    );
    assert!(
        shown[2]
            .as_str()
            .is_some_and(|t| t.starts_with("Times are this device's local time, UTC+05:30")),
        "{shown}"
    );

    driver.goto(&format!(
        "http://{}/god?token={}",
        server.addr, server.token
    ));
    let shown = driver.wait_for(
        "the console's log",
        "const r = document.querySelector('#log tr.event[data-seq=\"2\"]'); \
         return r ? [r.cells[1].innerText, r.cells[1].title] : null;",
        |v| v.is_array(),
    );
    assert_eq!(shown[0], shifted(&at, 330, false), "{shown}");
    assert!(
        shown[1].as_str().is_some_and(|t| t.contains(&at)),
        "{shown}"
    );
    drop(driver);
    server.stop();
}

/// The audit page says what the CLI says of an announcement the log did not decide
/// (the verdicts table edited), shows a confidence below 1 as below 100 %, and
/// offers no export of a game whose stored rule no longer matches its commitment.
#[test]
fn the_audit_page_says_an_edited_announcement_and_hides_refused_exports() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("edited.db");
    let server = Server::start(&db);
    let round =
        json!({"god": "Pierre", "players": ["Alain", "François"], "rule": "true", "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server
        .post(
            "/api/plays",
            r#"{"cards":["4S"],"evidence":{"reads":[{"read":"4S","confidence":0.9995}]}}"#,
        )
        .expect(200);
    let conn = rusqlite::Connection::open(&db).expect("raw");
    for trigger in ["verdicts", "seals"] {
        for (name,) in conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1")
            .expect("triggers")
            .query_map([trigger], |row| Ok((row.get::<_, String>(0)?,)))
            .expect("names")
            .map(|r| r.expect("name"))
            .collect::<Vec<_>>()
        {
            conn.execute_batch(&format!("DROP TRIGGER {name}"))
                .expect("drop trigger");
        }
    }
    conn.execute(
        "UPDATE verdicts SET outcome = replace(outcome, '\"right\":true', '\"right\":false') \
         WHERE event_id = (SELECT MAX(id) FROM events)",
        [],
    )
    .expect("edit");
    conn.execute("UPDATE seals SET rule = 'false'", [])
        .expect("forge");
    drop(conn);
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&format!("http://{}/audit/1.1", server.addr));
    let seen = driver.wait_for(
        "the edited announcement",
        "const r = document.getElementById('report'); const x = document.getElementById('exports'); \
         if (!r || r.hidden || !x) return null; \
         return {text: r.innerText, links: x.querySelectorAll('a[href^=\"/api/export/\"]').length, exports: x.innerText};",
        |v| v.is_object(),
    );
    let text = seen["text"].as_str().expect("text");
    assert!(
        text.contains(
            "CHANGED with no correction to explain it: the verdicts table records as announced: wrong"
        ),
        "{text}"
    );
    assert!(!text.contains("changed by a correction"), "{text}");
    assert!(text.contains("4S 99.95% (confirmed)"), "{text}");
    assert_eq!(seen["links"], 0, "{seen}");
    assert!(
        seen["exports"]
            .as_str()
            .is_some_and(|t| t.starts_with("no exports: round 1.1's stored rule no longer matches")),
        "{seen}"
    );
    drop(driver);
    server.stop();
}

/// With nothing to push, `/ws` sends a heartbeat (`{"type":"beat"}`, every 5 s),
/// by which the pages tell a frozen service (or its laptop asleep) from a quiet
/// one. The deadline is generous: this is no timing test.
#[test]
fn an_idle_websocket_gets_a_heartbeat() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("beat.db"));
    let mut ws = server.ws(false);
    let (first, next) = server.rt.block_on(async {
        let first = ws
            .next_message_async(std::time::Duration::from_secs(20))
            .await;
        let next = ws
            .next_message_async(std::time::Duration::from_secs(30))
            .await;
        (first, next)
    });
    assert_eq!(first["type"], "view", "{first}");
    assert_eq!(next, json!({"type": "beat"}));
    // The view client skips beats: the next view after a change comes through.
    server
        .post(
            "/api/rounds",
            &json!({"god": "Pierre", "players": ["Alain", "Bo"], "rule": RULE, "starter": "3H"})
                .to_string(),
        )
        .expect(200);
    let view = ws.next_view(&server.rt);
    assert_eq!(view["round"], "1.1", "{view}");
    drop(ws);
    server.stop();
}

/// While the service has stopped recording (its database altered outside it) the
/// tablet says so across its top, as the God console does: plays made meanwhile
/// are not recorded. Once the row is put back the banner goes.
#[test]
fn the_tablet_says_when_recording_stopped() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("alarm.db");
    let (server, driver) = tablet(&db);
    let round = json!({"god": "Pierre", "players": ["Alain", "François", "Jacques"], "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["5D"]}"#).expect(200);
    let alarm = "const a = document.getElementById('alarm'); \
                 return [a.hidden, a.textContent, a.getBoundingClientRect().height];";
    driver.wait_for("the play", TABLET, |v| {
        v["last"].as_str().is_some_and(|t| t.contains("5"))
    });
    assert_eq!(driver.eval(alarm)[0], true);

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
    let limit = std::time::Duration::from_secs(60);
    let shown = driver.wait_within(limit, "the alarm", alarm, |v| v[0] == false);
    let text = shown[1].as_str().expect("text");
    assert!(
        text.starts_with("⚠ recording stopped: ")
            && text.contains("altered outside the service")
            && text.contains("event 2 of round 1.1"),
        "{text}"
    );
    assert!(shown[2].as_f64().unwrap_or(0.0) > 0.0, "{shown}");
    driver.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("tablet-alarm.png"));
    edit("5H", "5D");
    driver.wait_within(limit, "the alarm gone", alarm, |v| v[0] == true);
    drop(driver);
    server.stop();
}

/// A TCP relay in front of the service that can be frozen: while frozen it holds
/// every byte either way and closes nothing, as a service stopped with SIGSTOP (or
/// a laptop asleep) looks to a tablet on another device.
struct Relay {
    addr: std::net::SocketAddr,
    frozen: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Relay {
    fn start(to: std::net::SocketAddr) -> Relay {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("relay");
        let addr = listener.local_addr().expect("relay address");
        let frozen = Arc::new(AtomicBool::new(false));
        let held = frozen.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let Ok(service) = std::net::TcpStream::connect(to) else {
                    continue;
                };
                for (mut from, mut into) in [
                    (
                        client.try_clone().expect("clone"),
                        service.try_clone().expect("clone"),
                    ),
                    (service, client),
                ] {
                    let held = held.clone();
                    std::thread::spawn(move || {
                        use std::io::{Read, Write};
                        let mut buf = [0u8; 16384];
                        loop {
                            let n = match from.read(&mut buf) {
                                Ok(0) | Err(_) => break,
                                Ok(n) => n,
                            };
                            while held.load(Ordering::SeqCst) {
                                std::thread::sleep(std::time::Duration::from_millis(50));
                            }
                            if into.write_all(&buf[..n]).is_err() {
                                break;
                            }
                        }
                        let _ = into.shutdown(std::net::Shutdown::Write);
                    });
                }
            }
        });
        Relay { addr, frozen }
    }

    fn freeze(&self, frozen: bool) {
        self.frozen
            .store(frozen, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A frozen service (no byte comes back, no socket is closed) is not shown as
/// `live`: without a message for a while (the heartbeat comes every 5 s) the
/// tablet says `reconnecting…` and tries again, and is live again once the
/// service answers. The deadlines are generous: this is no timing test.
#[test]
fn the_tablet_says_reconnecting_while_the_service_is_frozen() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("frozen.db"));
    let relay = Relay::start(server.addr);
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&format!("http://{}/", relay.addr));
    let conn = "const c = document.getElementById('conn'); return [c.className, c.textContent];";
    let up = |v: &Value| v[0].as_str().is_some_and(|c| c.contains("up"));
    let limit = std::time::Duration::from_secs(90);
    driver.wait_within(limit, "the live connection", conn, up);

    relay.freeze(true);
    let shown = driver.wait_within(limit, "not live", conn, |v| !up(v));
    assert_eq!(shown[1], "reconnecting…", "{shown}");

    relay.freeze(false);
    driver.wait_within(limit, "live again", conn, up);
    // Live indeed: a round started now is shown.
    let round = json!({"god": "Pierre", "players": ["Alain", "Bo"], "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    driver.wait_within(limit, "the round", TABLET, |v| {
        v["text"].as_str().is_some_and(|t| t.contains("round 1.1"))
    });
    drop(driver);
    server.stop();
}

/// A play corrected twice (right, wrong, right again): each correction's row says
/// in its effects what it changed when it was recorded, in the CLI's words.
#[test]
fn the_audit_page_says_what_each_correction_changed_at_the_time() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("then.db"));
    let round =
        json!({"god": "Pierre", "players": ["Alain", "François"], "rule": RULE, "starter": "3H"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    server.post("/api/plays", r#"{"cards":["4S"]}"#).expect(200);
    server
        .post("/api/corrections", r#"{"seq":2,"cards":["4D"]}"#)
        .expect(200);
    server
        .post("/api/corrections", r#"{"seq":2,"cards":["4C"]}"#)
        .expect(200);
    let mut driver = Driver::start();
    driver.open_session(&dir.path().join("profile"));
    driver.goto(&format!("http://{}/audit/1.1", server.addr));
    let seen = driver.wait_for(
        "the corrections",
        "const rows = Array.from(document.querySelectorAll('#report table.events tr')) \
           .filter(tr => (tr.querySelector('td[data-label=\"event\"]') || {}).textContent === 'correct'); \
         return rows.length === 2 ? rows.map(tr => tr.querySelector('td[data-label=\"effects\"]').innerText) : null;",
        |v| v.is_array(),
    );
    let first = seen[0].as_str().unwrap_or_default();
    assert!(
        first.starts_with(
            "at the time it changed 1.1:2: right, on the main line: 4S, no penalty → wrong, "
        ),
        "{seen}"
    );
    assert!(
        first.contains("penalty cards (wrong card), on a sideline: 4D"),
        "{seen}"
    );
    let second = seen[1].as_str().unwrap_or_default();
    assert!(
        second.starts_with("at the time it changed 1.1:2: wrong, "),
        "{seen}"
    );
    assert!(
        second.ends_with("→ right, on the main line: 4C, no penalty"),
        "{seen}"
    );
    drop(driver);
    server.stop();
}
