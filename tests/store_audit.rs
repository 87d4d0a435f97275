//! The audit trail through the CLI: acknowledgements, the sealed rule and its reveal
//! checked by re-hashing with `sha256sum`, evidence, corrections flagged on the
//! audit, tampering found at the event it broke, score sheets and the season sheet.

mod store_support;

use std::path::Path;

use serde_json::Value;
use store_support::{acked, eleusis, export_log, record, replay, SHORT_GAME};

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}
fn audit_json(db: &Path, id: &str, extra: &[&str]) -> (Value, i32) {
    let mut args = vec!["audit", id, "--json", "--db", db.to_str().expect("path")];
    args.extend_from_slice(extra);
    let output = eleusis(&args, "");
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "audit JSON: {e}: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (report, output.status.code().unwrap_or(-1))
}

#[test]
fn record_acknowledges_seals_and_reveals_a_rule_anyone_can_re_hash() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("g.db");
    let log = lines(SHORT_GAME);
    let (replies, output) = record(&db, &log, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(acked(&replies).len(), log.len());
    let first = &replies[0];
    assert_eq!(first["game"], "1");
    assert_eq!(first["round"], "1.1");
    let commitment = first["commitment"]
        .as_str()
        .expect("commitment")
        .to_string();
    assert!(
        replies
            .iter()
            .all(|r| !r.to_string().contains("\"rule\"") || r.get("reveal").is_some()),
        "the rule appears only in a reveal"
    );
    // The round ends on line 4 (Ana is out): the reveal comes with that ack.
    let reveal = &replies[3]["reveal"];
    assert_eq!(reveal["rule"], "red");
    let salt = reveal["salt"].as_str().expect("salt");
    let hashed = std::process::Command::new("sh")
        .args(["-c", "printf '%s%s' \"$SALT\" \"$RULE\" | sha256sum"])
        .env("SALT", salt)
        .env("RULE", "red")
        .output()
        .expect("sha256sum");
    let by_hand = String::from_utf8_lossy(&hashed.stdout);
    assert_eq!(by_hand.split_whitespace().next(), Some(commitment.as_str()));
    // end_game reveals the second round's rule.
    assert_eq!(replies[6]["reveal"]["rule"], "black");

    let (report, code) = audit_json(&db, "1.1", &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["rounds"][0]["seal"]["state"], "revealed");
    assert_eq!(report["rounds"][0]["seal"]["verified"], true);
    assert_eq!(report["chain"]["ok"], true);
    let events = report["rounds"][0]["events"].as_array().expect("events");
    assert_eq!(events.len(), 4);
    assert_eq!(events[2]["player"], "Bo");
    assert_eq!(events[2]["verdict"], "wrong");
    assert!(events[2]["penalties"][0]
        .as_str()
        .expect("penalty")
        .contains("Bo takes 2"));
    assert!(events[2]["explanations"][0]
        .as_str()
        .expect("why")
        .contains("3S rejected"));
}

#[test]
fn explanations_stay_sealed_until_the_reveal_and_rules_do_not_leak() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("s.db");
    let log = lines(SHORT_GAME)[..3].to_vec();
    let (replies, _) = record(&db, &log, &[]);
    assert_eq!(acked(&replies).len(), 3);
    let (report, _) = audit_json(&db, "1.1", &[]);
    assert_eq!(report["rounds"][0]["seal"]["state"], "sealed");
    let text = report.to_string();
    assert!(!text.contains("\"red\""), "the rule leaked: {text}");
    assert_eq!(
        report["rounds"][0]["events"][2]["explanations_withheld"],
        true
    );
    let (god, _) = audit_json(&db, "1.1", &["--god"]);
    assert!(god["rounds"][0]["events"][2]["explanations"][0].is_string());
    // The log export needs the rule: refused while sealed, allowed to God.
    let output = eleusis(
        &["export", "1.1", "--log", "--db", db.to_str().expect("p")],
        "",
    );
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("sealed"));
    assert_eq!(export_log(&db, "1.1").len(), 3);
    // The database holds the rule only in the seals table.
    let conn = rusqlite::Connection::open(&db).expect("raw");
    let in_log: i64 = conn
        .query_row(
            "SELECT count(*) FROM events WHERE payload LIKE '%\"rule\"%'",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(in_log, 0);

    // A starter God kept though the rule refuses it tells the rule: withheld from
    // the audit too until the reveal, as from the tablet; God's audit says it.
    let db = dir.path().join("kept.db");
    let kept = [
        r#"{"event":"round","god":"G","players":["A","B","C"],"rule":"red","starter":"KS"}"#
            .to_string(),
    ];
    let (replies, _) = record(&db, &kept, &[]);
    assert_eq!(acked(&replies).len(), 1);
    let (report, _) = audit_json(&db, "1.1", &[]);
    assert!(
        !report.to_string().contains("God kept it as the starter"),
        "{report}"
    );
    let (god, _) = audit_json(&db, "1.1", &["--god"]);
    assert!(
        god.to_string().contains("God kept it as the starter"),
        "{god}"
    );
}

#[test]
fn illegal_lines_get_an_error_and_are_not_stored() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("e.db");
    let mut log = lines(SHORT_GAME)[..2].to_vec();
    log.insert(1, r#"{"event":"play","player":"Bo","cards":["2H"]}"#.into()); // Ana's turn
    log.insert(2, "not json".into());
    log.insert(3, r#"{"event":"shuffle"}"#.into());
    let huge = format!(
        r#"{{"event":"play","cards":["2H"],"hint":"{}"}}"#,
        "a".repeat(1 << 20)
    );
    log.push(huge);
    log.push(r#"{"event":"play","player":"Bo","cards":["3H"]}"#.into());
    let (replies, output) = record(&db, &log, &[]);
    assert_eq!(output.status.code(), Some(1), "some line was refused");
    assert_eq!(replies.len(), 7);
    assert_eq!(replies[1]["ok"], false);
    assert!(replies[1]["error"]
        .as_str()
        .expect("e")
        .contains("line 2: it is Ana's turn"));
    assert!(replies[2]["error"].as_str().expect("e").contains("line 3"));
    assert!(replies[3]["error"]
        .as_str()
        .expect("e")
        .contains("unknown event"));
    assert_eq!(
        replies[4]["seq"], 2,
        "the refused lines took no sequence number"
    );
    assert!(replies[5]["error"]
        .as_str()
        .expect("e")
        .contains("longer than"));
    assert_eq!(
        replies[6]["seq"], 3,
        "the line after an over-long one is read whole"
    );
    assert_eq!(export_log(&db, "1").len(), 3);
}

#[test]
fn continuing_a_game_in_a_missing_database_creates_no_file() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("nope.db");
    let log = lines(SHORT_GAME);
    let (replies, output) = record(&db, &log, &["--game", "1"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no database at")
            && stderr.contains("nope.db; --game continues a stored game"),
        "{stderr}"
    );
    assert!(replies.is_empty(), "no line is read: {replies:?}");
    assert!(
        std::fs::read_dir(dir.path()).expect("ls").next().is_none(),
        "no file was created"
    );
    // Without --game a new database is created, as always; an unknown game in an
    // existing database is still refused by the store.
    let (replies, output) = record(&db, &log, &[]);
    assert!(output.status.success());
    assert_eq!(acked(&replies).len(), log.len());
    let (replies, output) = record(&db, &log, &["--game", "2"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(replies.is_empty());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot continue game 2"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_field_given_twice_or_evidence_of_the_wrong_shape_is_refused_with_the_field() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("e.db");
    let mut log = lines(SHORT_GAME)[..1].to_vec();
    // Ana's 2H, written so that a reader keeping the last key would store a 2S.
    log.push(r#"{"event":"play","player":"Ana","cards":["2H"],"cards":["2S"]}"#.into());
    log.push(r#"{"event":"play","player":"Ana","cards":["2H"],"evidence":"x"}"#.into());
    log.push(
        r#"{"event":"play","player":"Ana","cards":["2H"],"evidence":{"reads":[{"read":"2H","confidence":"high"}]}}"#
            .into(),
    );
    log.push(
        r#"{"event":"play","player":"Ana","cards":["2H"],"evidence":{"frame_ref":"a","frame_ref":"b"}}"#
            .into(),
    );
    log.push(lines(SHORT_GAME)[1].clone());
    let (replies, output) = record(&db, &log, &[]);
    assert_eq!(output.status.code(), Some(1), "some line was refused");
    let errors: Vec<&str> = replies[1..5]
        .iter()
        .map(|r| r["error"].as_str().expect("error"))
        .collect();
    assert_eq!(
        errors,
        [
            r#"line 2: duplicate field "cards""#,
            r#"line 3: field "evidence": expected an object, got the string "x""#,
            r#"line 4: field "evidence.reads", item 1, field "confidence": expected a number, got the string "high""#,
            r#"line 5: field "evidence": duplicate field "frame_ref""#,
        ]
    );
    assert_eq!(
        replies[5]["seq"], 2,
        "the refused lines took no sequence number"
    );
    let stored = export_log(&db, "1");
    assert_eq!(stored.len(), 2);
    assert!(stored[1].contains("\"2H\""), "{}", stored[1]);

    // A log saved with a byte-order mark (Windows editors) records as any other.
    let bom = dir.path().join("bom.db");
    let mut log = lines(SHORT_GAME)[..2].to_vec();
    log[0].insert(0, '\u{feff}');
    let (replies, output) = record(&bom, &log, &[]);
    assert!(output.status.success(), "{replies:?}");
    assert_eq!(export_log(&bom, "1").len(), 2);
}

#[test]
fn evidence_is_stored_and_corrections_flag_the_verdicts_they_change() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("c.db");
    let frame = dir.path().join("frame.jpg");
    std::fs::write(&frame, [0xFF, 0xD8, 0xFF, 0xE0, 9, 9, 9]).expect("frame");
    let log = vec![
        r#"{"event":"round","variant":"new-eleusis","god":"Pierre","players":["Alain","François","Jacques","Philippe"],"rule":"if last.odd then black else red","starter":"3H"}"#.to_string(),
        // Camera read 8D (red, wrong after 3H); God let it stand.
        r#"{"event":"play","cards":["8D"],"evidence":{"frame":"frame.jpg","reads":[{"read":"8D","confidence":0.58}]}}"#.into(),
        // Camera read 5C; God corrected it to 5S at the table.
        r#"{"event":"play","cards":["5S"],"evidence":{"frame_ref":"cam1/000124","reads":[{"read":"5C","confidence":0.41,"corners":[[10,20],[60,21],[61,90],[9,89.5]]}]}}"#.into(),
        // The camera found the JC's outline but read no index on it (a lamp's
        // glare): God typed it.
        r#"{"event":"play","cards":["9D","JC"],"evidence":{"reads":[{"read":"9D","confidence":0.97},{"read":null,"confidence":0,"corners":[[70,20],[120,21],[121,90],[69,89]]}]}}"#.into(),
        // Later God finds the first card was really 8S: a correction, not an edit.
        r#"{"event":"correct","seq":2,"cards":["8S"]}"#.into(),
    ];
    let dir_arg = dir.path().to_str().expect("p").to_string();
    let (replies, output) = record(&db, &log, &["--frames", &dir_arg]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let changed: Vec<&str> = replies[4]["changed"]
        .as_array()
        .expect("changed")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(changed.contains(&"1.1:2"), "{changed:?}");

    let (report, code) = audit_json(&db, "1.1", &[]);
    assert_eq!(code, 0);
    let events = report["rounds"][0]["events"].as_array().expect("events");
    let first = &events[1];
    assert_eq!(first["cards"][0], "8S");
    assert_eq!(first["verdict"], "right");
    assert_eq!(first["changed"], true);
    assert!(first["announced"]
        .as_str()
        .expect("announced")
        .starts_with("wrong"));
    assert_eq!(first["corrected_by"][0], "1.1:5");
    // God confirmed the read at the table (the reads table says so); the card was
    // corrected later, which is said beside it, not in its place.
    assert_eq!(first["reads"][0]["status"], "confirmed", "{first}");
    assert_eq!(first["reads"][0]["card"], "8D", "{first}");
    assert_eq!(first["reads"][0]["corrected_later_to"], "8S", "{first}");
    assert_eq!(
        first["reads"][0]["corrected_later_by"][0], "1.1:5",
        "{first}"
    );
    assert!(
        events[2]["reads"][0].get("corrected_later_to").is_none(),
        "{}",
        events[2]
    );
    assert_eq!(first["frame"]["intact"], true);
    assert_eq!(first["frame"]["name"], "frame.jpg");
    let second = &events[2];
    assert_eq!(second["reads"][0]["read"], "5C");
    assert_eq!(second["reads"][0]["confidence"], 0.41);
    assert_eq!(second["reads"][0]["status"], "corrected");
    // The card's outline, where the evidence gave it, for the audit page's card cut.
    assert_eq!(second["reads"][0]["corners"][3][1], 89.5);
    assert!(first["reads"][0].get("corners").is_none(), "{first}");
    assert_eq!(second["frame"]["reference"], "cam1/000124");
    // The card nobody read: its outline kept, no read, typed by God.
    let typed = &events[3]["reads"];
    assert_eq!(typed[0]["status"], "confirmed", "{typed}");
    assert_eq!(typed[1]["read"], Value::Null, "{typed}");
    assert_eq!(typed[1]["card"], "JC", "{typed}");
    assert_eq!(typed[1]["status"], "typed", "{typed}");
    assert_eq!(typed[1]["corners"][2][0], 121.0, "{typed}");
    let text = eleusis(&["audit", "1.1", "--db", db.to_str().expect("path")], "");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("reads: 9D 0.97 confirmed; no index read, typed JC"),
        "{text}"
    );
    assert!(
        text.contains("reads: 8D 0.58 confirmed, since corrected to 8S by 1.1:5\n"),
        "{text}"
    );
    assert_eq!(events[4]["event"], "correct");
    assert_eq!(events[4]["correction"]["corrects"], "1.1:2");

    // The state is the corrected log's; the export is that log.
    let exported = export_log(&db, "1");
    assert_eq!(exported.len(), 4);
    assert!(exported[1].contains("8S"));
    let mut corrected = log[..4].to_vec();
    corrected[1] = r#"{"event":"play","cards":["8S"]}"#.into();
    corrected[2] = r#"{"event":"play","cards":["5S"]}"#.into();
    corrected[3] = r#"{"event":"play","cards":["9D","JC"]}"#.into();
    assert_eq!(replay(&exported), replay(&corrected));

    // A correction that makes the log illegal is refused and not stored.
    let bad = vec![r#"{"event":"correct","seq":4,"cards":["9D","JC","QC","KC","AC"]}"#.to_string()];
    let (replies, output) = record(&db, &bad, &["--game", "1"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        replies[0]["error"].as_str().expect("e").contains("illegal"),
        "{}",
        replies[0]
    );
    let bad = vec![r#"{"event":"correct","seq":99,"cards":["9D"]}"#.to_string()];
    let (replies, _) = record(&db, &bad, &["--game", "1"]);
    assert!(
        replies[0]["error"]
            .as_str()
            .expect("e")
            .contains("no event 99"),
        "{}",
        replies[0]
    );
    assert_eq!(export_log(&db, "1").len(), 4);

    // A correction that adds a card to a play read from the camera: the audit says
    // the reads no longer match the cards one for one.
    let more = vec![r#"{"event":"correct","seq":3,"cards":["5S","7S"]}"#.to_string()];
    let (replies, output) = record(&db, &more, &["--game", "1"]);
    assert!(output.status.success(), "{}", replies[0]);
    let (report, _) = audit_json(&db, "1.1", &[]);
    let second = &report["rounds"][0]["events"][2];
    assert_eq!(
        second["reads_note"],
        "the recognizer read 1 card and the event holds 2 cards: reads and cards are matched in order as far as both go",
        "{second}"
    );
    assert!(report["rounds"][0]["events"][1].get("reads_note").is_none());
}

#[test]
fn tampering_with_a_stored_card_is_reported_at_that_event() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("t.db");
    let log = lines(SHORT_GAME);
    record(&db, &log, &[]);
    let (clean, code) = audit_json(&db, "1", &[]);
    assert_eq!((clean["chain"]["ok"].clone(), code), (Value::Bool(true), 0));
    assert!(clean.get("exports_refused").is_none(), "{clean}");
    {
        // An attacker with the file: drop the append-only guard, change one card.
        let conn = rusqlite::Connection::open(&db).expect("raw");
        conn.execute_batch("DROP TRIGGER events_append_only_update")
            .expect("drop");
        let n = conn
            .execute(
                "UPDATE events SET payload = replace(payload, '\"3S\"', '\"3H\"')
                 WHERE seq = 3 AND round_id = (SELECT id FROM rounds WHERE number = 1)",
                [],
            )
            .expect("tamper");
        assert_eq!(n, 1);
    }
    let (report, code) = audit_json(&db, "1.1", &[]);
    assert_eq!(code, 1, "a broken chain fails the audit");
    assert_eq!(report["chain"]["ok"], false);
    assert_eq!(report["chain"]["broken_at"]["round"], "1.1");
    assert_eq!(report["chain"]["broken_at"]["seq"], 3);
    assert!(
        report["exports_refused"].as_str().is_some_and(
            |why| why.starts_with("game 1's hash chain is broken at round 1.1 event 3")
        ),
        "{report}"
    );
    let text = eleusis(&["audit", "1.1", "--db", db.to_str().expect("p")], "");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("chain: BROKEN at round 1.1 event 3"),
        "{text}"
    );
    // Nothing is exported from altered events: a score sheet or log made from
    // them would look as good as a true one.
    let out = dir.path().join("frames");
    let out = out.to_str().expect("p");
    for args in [
        &["export", "1", "--scores", "csv"][..],
        &["export", "1", "--scores", "html"],
        &["export", "1.1", "--log", "--god"],
        &["export", "1", "--frames", out],
    ] {
        let mut args = args.to_vec();
        args.extend(["--db", db.to_str().expect("p")]);
        let output = eleusis(&args, "");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(
            stderr.contains("game 1's hash chain is broken at round 1.1 event 3")
                && stderr.contains("run `eleusis audit 1`"),
            "{args:?}: {stderr}"
        );
    }

    // Deleting an event is found too.
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(
        "DROP TRIGGER events_append_only_delete;
         DELETE FROM reads; DELETE FROM verdicts;
         DELETE FROM events WHERE seq = 2 AND round_id = (SELECT id FROM rounds WHERE number = 2);",
    )
    .expect("delete");
    drop(conn);
    let (report, _) = audit_json(&db, "1", &[]);
    assert_eq!(
        report["chain"]["broken_at"]["round"], "1.1",
        "the first break is reported"
    );
}

#[test]
fn a_swapped_frame_or_rule_is_reported() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("f.db");
    std::fs::write(dir.path().join("f.jpg"), [0xFF, 0xD8, 0xFF, 1]).expect("frame");
    let mut log = lines(SHORT_GAME);
    log[1] =
        r#"{"event":"play","player":"Ana","cards":["2H"],"evidence":{"frame":"f.jpg"}}"#.into();
    let frames = dir.path().to_str().expect("p").to_string();
    record(&db, &log, &["--frames", &frames]);
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(
        "UPDATE frames SET jpeg = x'FFD8FF02';
         UPDATE seals SET rule = 'blue' WHERE round_id = (SELECT id FROM rounds WHERE number = 1);",
    )
    .expect("tamper");
    drop(conn);
    let (report, code) = audit_json(&db, "1.1", &[]);
    assert_eq!(code, 1);
    assert_eq!(report["chain"]["ok"], true, "the log itself is intact");
    assert_eq!(report["rounds"][0]["seal"]["verified"], false);
    let problems = report["problems"].to_string();
    assert!(
        problems.contains("frame") && problems.contains("commitment"),
        "{problems}"
    );
}

#[test]
fn an_edited_announced_verdict_is_reported_when_no_correction_explains_it() {
    // The verdicts table is outside the hash chain: what was announced at the
    // table may differ from the decision now only after a correction.
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("v.db");
    record(&db, &lines(SHORT_GAME), &[]);
    let conn = rusqlite::Connection::open(&db).expect("raw");
    let n = conn
        .execute(
            "UPDATE verdicts SET outcome = replace(outcome, '\"right\":true', '\"right\":false')
             WHERE event_id = (SELECT e.id FROM events e JOIN rounds r ON r.id = e.round_id
                               WHERE r.number = 1 AND e.seq = 2)",
            [],
        )
        .expect("tamper");
    assert_eq!(n, 1);
    drop(conn);
    let (report, code) = audit_json(&db, "1.1", &[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["chain"]["ok"], true, "the log itself is intact");
    let play = &report["rounds"][0]["events"][1];
    assert_eq!(
        (play["changed"].clone(), play["unexplained"].clone()),
        (Value::Bool(true), Value::Bool(true)),
        "{play}"
    );
    assert!(
        report["problems"].to_string().contains(
            "round 1.1 event 2: the verdict recorded as announced is not what the log then decided: the verdicts table was edited"
        ),
        "{report}"
    );
    let text = eleusis(&["audit", "1.1", "--db", db.to_str().expect("p")], "");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("CHANGED with no correction to explain it: the verdicts table records as announced: wrong; the log then decided: right\n"),
        "{text}"
    );
    // The decision did not change: nothing claims a correction changed it.
    assert!(!text.contains("CHANGED by a correction"), "{text}");
}

#[test]
fn an_announcement_forged_to_match_the_decision_now_is_reported() {
    // A correction reversed the call on 1.1:2 (8D, wrong after 3H, corrected to
    // 8S, right). Whoever edits the verdicts table to say "right" was announced
    // would erase the reversal; but what was announced follows from the chained
    // log as it stood when the play was appended.
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("forged.db");
    let log = lines(
        r#"{"event":"round","variant":"new-eleusis","god":"Pierre","players":["Alain","François","Jacques","Philippe"],"rule":"if last.odd then black else red","starter":"3H"}
{"event":"play","cards":["8D"]}
{"event":"play","cards":["5S"]}
{"event":"correct","seq":2,"cards":["8S"]}
{"event":"play","cards":["9D"]}"#,
    );
    let (replies, output) = record(&db, &log, &[]);
    assert!(output.status.success(), "{replies:?}");
    let (clean, code) = audit_json(&db, "1", &[]);
    assert_eq!(code, 0, "{clean}");
    let play = &clean["rounds"][0]["events"][1];
    assert_eq!(play["changed"], true, "{play}");
    assert!(play.get("unexplained").is_none(), "{play}");
    assert!(
        play["announced"]
            .as_str()
            .expect("announced")
            .starts_with("wrong"),
        "{play}"
    );
    let conn = rusqlite::Connection::open(&db).expect("raw");
    // The announcement made equal to today's decision: the outcome stored now.
    let verdict_of = |seq: u32| {
        format!(
            "(SELECT e.id FROM events e JOIN rounds r ON r.id = e.round_id WHERE r.number = 1 AND e.seq = {seq})"
        )
    };
    let mut game = eleusis::referee::Game::new();
    let parse = |line: &str| eleusis::referee::LogEvent::parse_line(line).expect("line");
    game.apply(&parse(&log[0])).expect("round");
    let today = game
        .apply(&parse(r#"{"event":"play","cards":["8S"]}"#))
        .expect("the corrected play");
    let today = serde_json::to_string(&today).expect("json");
    let n = conn
        .execute(
            &format!(
                "UPDATE verdicts SET outcome = ?1 WHERE event_id = {}",
                verdict_of(2)
            ),
            [&today],
        )
        .expect("forge");
    assert_eq!(n, 1);
    drop(conn);
    let (report, code) = audit_json(&db, "1", &[]);
    assert_eq!(code, 1, "{report}");
    let play = &report["rounds"][0]["events"][1];
    assert_eq!(play["unexplained"], true, "{play}");
    // What the table was told still shows: the log decides it, not the edited copy.
    assert!(
        play["announced"]
            .as_str()
            .expect("announced")
            .starts_with("wrong"),
        "{play}"
    );
    assert!(
        report["problems"].to_string().contains(
            "round 1.1 event 2: the verdict recorded as announced is not what the log then decided: the verdicts table was edited"
        ),
        "{report}"
    );
    // The other events' copies still check.
    assert_eq!(
        report["problems"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    let text = eleusis(&["audit", "1", "--db", db.to_str().expect("p")], "");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("CHANGED with no correction to explain it: the verdicts table records as announced: right; on the main line: 8S; no penalty; the log then decided: wrong;"),
        "{text}"
    );
    assert!(
        text.contains("CHANGED by a correction; announced at the table: wrong"),
        "{text}"
    );
}

#[test]
fn score_sheets_show_rounds_bonus_and_totals() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("sheet.db");
    let log = lines(SHORT_GAME);
    record(&db, &log, &[]);
    let state = replay(&log);
    let totals = &state["game"]["totals"];
    let csv = scores_csv(&db);
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0][..2], ["round", "god"]);
    let names: Vec<&str> = rows[0][2..].to_vec();
    assert_eq!(rows.len(), 5, "{csv}");
    let bonus = &rows[3];
    let total = &rows[4];
    assert_eq!(bonus[0], "not-God bonus");
    for (i, name) in names.iter().enumerate() {
        assert_eq!(total[i + 2], totals[name].to_string(), "{name}: {csv}");
        let round_sum: i64 = rows[1..3]
            .iter()
            .map(|r| r[i + 2].parse::<i64>().unwrap_or(0))
            .sum();
        let bonus_value: i64 = bonus[i + 2].trim_start_matches('+').parse().expect("bonus");
        assert_eq!(
            round_sum + bonus_value,
            totals[name].as_i64().expect("total")
        );
    }
    // Bo never was God: he gets the +10 at end_game.
    let bo = names.iter().position(|n| *n == "Bo").expect("Bo");
    assert_eq!(bonus[bo + 2], "+10");
    let out = eleusis(
        &[
            "export",
            "1",
            "--scores",
            "html",
            "--db",
            db.to_str().expect("p"),
        ],
        "",
    );
    let html = String::from_utf8(out.stdout).expect("utf-8");
    assert!(html.contains("@media print") && html.contains("<td class=\"n\">+10</td>"));
    let out = eleusis(
        &[
            "export",
            "1.1",
            "--scores",
            "csv",
            "--db",
            db.to_str().expect("p"),
        ],
        "",
    );
    assert!(!out.status.success(), "a sheet is for a game");
}

/// `eleusis export GAME --scores csv` of `db`, as text.
fn scores_csv(db: &Path) -> String {
    let out = eleusis(
        &[
            "export",
            "1",
            "--scores",
            "csv",
            "--db",
            db.to_str().expect("p"),
        ],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn edits_to_the_round_index_tables_are_reported_and_never_shown() {
    let dir = tempfile::tempdir().expect("dir");
    let clean_csv = {
        let db = dir.path().join("clean.db");
        record(&db, &lines(SHORT_GAME), &[]);
        let (report, code) = audit_json(&db, "1", &[]);
        assert_eq!(code, 0, "{report}");
        assert_eq!(report["problems"], Value::Array(Vec::new()));
        scores_csv(&db)
    };
    assert!(
        clean_csv.starts_with("round,god,Ana,Bo,Gil\n1,Gil,"),
        "{clean_csv}"
    );
    // None of these edits touches the chained events: the chain stays OK, so only the
    // cross-check of the index tables against the chained round event can see them.
    let round_1 = "(SELECT id FROM rounds WHERE number = 1)";
    let edits = [
        (
            format!("UPDATE rounds SET god = 'Mallory' WHERE id = {round_1}"),
            "the rounds table says God \"Mallory\", the chained round event \"Gil\"",
        ),
        (
            format!("UPDATE rounds SET variant = 'gardner' WHERE id = {round_1}"),
            "the rounds table says variant \"gardner\", the chained round event \"basic\"",
        ),
        (
            format!(
                "UPDATE round_players SET name = 'Zed' WHERE round_id = {round_1} AND seat = 0"
            ),
            "the round_players table says players [\"Zed\", \"Bo\"]",
        ),
        (
            format!(
                "UPDATE round_players SET seat = seat + 10 WHERE round_id = {round_1};
                 UPDATE round_players SET seat = 11 - seat WHERE round_id = {round_1}"
            ),
            "the round_players table says players [\"Bo\", \"Ana\"]",
        ),
        (
            format!("DELETE FROM round_players WHERE round_id = {round_1} AND seat = 1"),
            "the round_players table says players [\"Ana\"]",
        ),
        (
            format!("INSERT INTO round_players VALUES ({round_1}, 2, 'Eve')"),
            "the round_players table says players [\"Ana\", \"Bo\", \"Eve\"]",
        ),
        (
            format!("UPDATE rounds SET commitment = 'ab' WHERE id = {round_1}"),
            "the rounds table says commitment \"ab\"",
        ),
    ];
    for (i, (sql, expected)) in edits.iter().enumerate() {
        let db = dir.path().join(format!("t{i}.db"));
        record(&db, &lines(SHORT_GAME), &[]);
        let conn = rusqlite::Connection::open(&db).expect("raw");
        conn.execute_batch(sql).expect("tamper");
        drop(conn);

        let (report, code) = audit_json(&db, "1.1", &[]);
        assert_eq!(code, 1, "{sql}: {report}");
        assert_eq!(report["chain"]["ok"], true, "{sql}");
        let round = &report["rounds"][0];
        assert_eq!(round["god"], "Gil", "{sql}");
        assert_eq!(round["variant"], "basic", "{sql}");
        assert_eq!(round["players"], serde_json::json!(["Ana", "Bo"]), "{sql}");
        assert_eq!(round["seal"]["verified"], true, "{sql}");
        let problems = report["problems"].as_array().expect("problems");
        assert_eq!(problems.len(), 1, "{sql}: {problems:?}");
        let problem = problems[0].as_str().expect("problem");
        assert!(
            problem.starts_with("round 1.1: ") && problem.contains(expected),
            "{sql}: {problem}"
        );

        let text = eleusis(&["audit", "1", "--db", db.to_str().expect("p")], "");
        assert_eq!(text.status.code(), Some(1), "{sql}");
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(
            text.starts_with("round 1.1 (basic): God Gil, players Ana, Bo\n"),
            "{sql}: {text}"
        );
        assert!(text.contains("\nchain: OK ("), "{sql}: {text}");
        assert!(
            text.contains(&format!("\nproblem: round 1.1: {expected}")),
            "{sql}: {text}"
        );
        assert_eq!(
            scores_csv(&db),
            clean_csv,
            "{sql}: the sheet is the chain's"
        );
    }
}

/// Event times are outside the hash chain's links only in the events table's
/// index column: the chained payload holds each event's time, which is what is
/// shown; an edited column is reported at its event, and a round's start time is
/// its chained `round` event's, whatever the rounds table says.
#[test]
fn an_edited_event_time_is_reported_and_never_shown() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("times.db");
    record(&db, &lines(SHORT_GAME), &[]);
    let (clean, code) = audit_json(&db, "1", &[]);
    assert_eq!(code, 0, "{clean}");
    let time_of = |report: &Value, seq: u64| -> String {
        report["rounds"][0]["events"]
            .as_array()
            .expect("events")
            .iter()
            .find(|e| e["seq"] == seq)
            .and_then(|e| e["time"].as_str())
            .expect("time")
            .to_string()
    };
    let played = time_of(&clean, 2);
    let started = time_of(&clean, 1);

    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(
        "DROP TRIGGER events_append_only_update;
         UPDATE events SET recorded_ms = recorded_ms - 3600000
           WHERE seq = 2 AND round_id = (SELECT id FROM rounds WHERE number = 1);
         UPDATE rounds SET started_ms = 0 WHERE number = 1;",
    )
    .expect("edit");
    drop(conn);
    let (report, code) = audit_json(&db, "1", &[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(time_of(&report, 2), played, "the chained time is shown");
    let problems = report["problems"].to_string();
    assert!(
        problems.contains("round 1.1 event 2: the events table says recorded at ")
            && problems.contains(&format!(", the chained event {played}")),
        "{problems}"
    );
    assert_eq!(report["chain"]["ok"], true, "no link is broken: {report}");

    let store = eleusis::store::Store::open_read_only(&db).expect("open");
    let rounds = store.rounds(eleusis::store::GameId(1)).expect("rounds");
    assert_eq!(rounds[0].started, started, "the chained round event's time");
}

#[test]
fn a_round_row_with_no_chained_event_is_reported() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("forged.db");
    record(&db, &lines(SHORT_GAME), &[]);
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(
        "INSERT INTO rounds (game_id, number, variant, god, commitment, started_ms)
             VALUES (1, 3, 'basic', 'Mallory', 'ab', 0);
         INSERT INTO round_players VALUES (last_insert_rowid(), 0, 'Zed');
         INSERT INTO seals (round_id, rule, salt) VALUES ((SELECT max(id) FROM rounds), 'x', 'y');",
    )
    .expect("forge");
    drop(conn);
    let (report, code) = audit_json(&db, "1", &[]);
    assert_eq!(code, 1, "{report}");
    assert!(
        report["problems"].to_string().contains(
            "round 1.3: God, players, variant and commitment cannot be checked against the chain (it has no stored events)"
        ),
        "{report}"
    );
}

/// The `players` table ("everyone who sat at the game's table") is outside the chain:
/// a game's audit holds it to the names of the chained round events, both ways.
#[test]
fn edits_to_the_players_table_are_reported_by_the_game_audit() {
    let dir = tempfile::tempdir().expect("dir");
    let clean = dir.path().join("clean.db");
    record(&clean, &lines(SHORT_GAME), &[]);
    let (report, code) = audit_json(&clean, "1", &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["problems"], Value::Array(Vec::new()), "{report}");

    // SHORT_GAME seats Gil, Ana and Bo in both rounds. A name the table adds, one it
    // drops, and a renamed God whose new name would forge a line of the text report.
    let edits: [(&str, &[&str]); 3] = [
        (
            "INSERT INTO players (game_id, name) VALUES (1, 'Mallory')",
            &["game 1: the players table lists \"Mallory\", whom no chained round event names"],
        ),
        (
            "DELETE FROM players WHERE game_id = 1 AND name = 'Bo'",
            &["game 1: the players table lacks \"Bo\", whom the chained round events of rounds 1.1 and 1.2 name"],
        ),
        (
            "UPDATE players SET name = 'Gil' || char(10) || 'chain: OK' || char(8238)
             WHERE game_id = 1 AND name = 'Gil'",
            &[
                "game 1: the players table lacks \"Gil\", whom the chained round events of rounds 1.1 and 1.2 name",
                "game 1: the players table lists \"Gil\\nchain: OK\\u{202e}\", whom no chained round event names",
            ],
        ),
    ];
    for (i, (sql, expected)) in edits.iter().enumerate() {
        let db = dir.path().join(format!("p{i}.db"));
        record(&db, &lines(SHORT_GAME), &[]);
        let conn = rusqlite::Connection::open(&db).expect("raw");
        conn.execute_batch(sql).expect("tamper");
        drop(conn);

        let (report, code) = audit_json(&db, "1", &[]);
        assert_eq!(code, 1, "{sql}: {report}");
        assert_eq!(report["chain"]["ok"], true, "{sql}: no link is broken");
        assert_eq!(report["problems"], serde_json::json!(expected), "{sql}");

        let text = eleusis(&["audit", "1", "--db", db.to_str().expect("p")], "");
        assert_eq!(text.status.code(), Some(1), "{sql}");
        let text = String::from_utf8_lossy(&text.stdout);
        let problems: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("problem: "))
            .collect();
        assert_eq!(problems, *expected, "{sql}: {text}");
        assert_eq!(
            text.lines().filter(|l| l.starts_with("chain: OK")).count(),
            1,
            "{sql}: no forged chain line: {text}"
        );
        assert!(
            text.starts_with("round 1.1 (basic): God Gil, players Ana, Bo\n"),
            "{sql}: the chain's names are shown: {text}"
        );
    }

    // A round's audit covers the rounds up to it, not the game's table.
    let db = dir.path().join("p0.db");
    let (report, code) = audit_json(&db, "1.2", &[]);
    assert_eq!(code, 0, "{report}");
}

#[test]
fn names_that_spreadsheets_would_run_as_formulas_stay_text() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("formula.db");
    let log = vec![
        r#"{"event":"round","variant":"basic","god":"@Gil","players":["=HYPERLINK(\"http://x\",\"y\")","-Bo"],"rule":"red","starter":"AH","hand_size":2}"#.to_string(),
        r#"{"event":"play","cards":["2H"]}"#.into(),
        r#"{"event":"end_game"}"#.into(),
    ];
    let (replies, output) = record(&db, &log, &[]);
    assert!(output.status.success(), "{replies:?}");
    let csv = scores_csv(&db);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0], "round,god,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",'-Bo,'@Gil",
        "{csv}"
    );
    assert!(rows[1].starts_with("1,'@Gil,"), "{csv}");
    // Scores stay numbers, signs included.
    assert_eq!(rows.len(), 4, "{csv}");
    assert!(rows[2].starts_with("not-God bonus,,+10,+10,"), "{csv}");
}

/// `eleusis audit 1 | head -1`, `eleusis export 1 | head`, `eleusis rule check
/// FILE | head`: a reader that goes away is no error. Each command stops quietly
/// with the status of a program stopped by SIGPIPE (141), as `recognize` does,
/// not with a panic's backtrace.
#[test]
fn a_closed_output_ends_audit_export_and_rule_check_quietly() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("g.db");
    let (_, output) = record(&db, &lines(SHORT_GAME), &[]);
    assert!(output.status.success());
    let rule = dir.path().join("secret.rule");
    std::fs::write(&rule, "red\n").expect("rule file");
    let db = db.to_str().expect("path");
    let rule = rule.to_str().expect("path");
    for args in [
        vec!["audit", "1", "--db", db],
        vec!["audit", "1", "--json", "--db", db],
        vec!["export", "--log", "1", "--db", db],
        vec!["export", "--scores", "csv", "1", "--db", db],
        vec!["rule", "check", rule],
    ] {
        // The reader is gone before the command writes a byte.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_eleusis"))
            .args(&args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("the binary runs");
        assert_eq!(out.status.code(), Some(141), "{args:?}: {:?}", out.status);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
}

/// A play misread twice over and a no-play whose hand and pick were mended: every
/// corrected event shows what it first recorded beside what it records now (cards,
/// the shown hand, a pick removed), each correction says in words what it
/// replaced, and the effects count the cards by their laid numbers, from 1.
const MENDED: &str = r#"{"event":"round","variant":"new-eleusis","god":"Pierre","players":["Alain","François"],"rule":"if last.odd then black else red","starter":"3H"}
{"event":"play","cards":["8H"]}
{"event":"play","cards":["9S"]}
{"event":"no_play","hand":["2C","4D"],"pick":"2C"}
{"event":"correct","seq":2,"cards":["5S"]}
{"event":"correct","seq":4,"hand":["2C","5D"],"pick":null}
{"event":"correct","seq":2,"cards":["7S"]}
{"event":"play","cards":["4S"]}
{"event":"play","cards":["6S"]}"#;

#[test]
fn a_corrected_event_shows_what_it_first_recorded() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("m.db");
    let log = lines(MENDED);
    let (replies, output) = record(&db, &log, &[]);
    assert!(output.status.success(), "{replies:?}");
    assert_eq!(acked(&replies).len(), log.len());

    let (report, code) = audit_json(&db, "1.1", &[]);
    assert_eq!(code, 0, "{report}");
    let events = report["rounds"][0]["events"].as_array().expect("events");
    // The play as it stands, and as it was first recorded.
    let play = &events[1];
    assert_eq!(play["cards"], serde_json::json!(["7S"]), "{play}");
    assert_eq!(play["corrected_by"], serde_json::json!(["1.1:5", "1.1:7"]));
    assert_eq!(
        play["recorded"],
        serde_json::json!([{"field": "cards", "recorded": ["8H"], "corrected": ["7S"],
                            "text": "cards: recorded 8H → corrected to 7S"}]),
        "{play}"
    );
    // The no-play: its hand, and a pick a correction removed.
    let no_play = &events[3];
    let changes: Vec<&str> = no_play["recorded"]
        .as_array()
        .expect("recorded")
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect();
    assert_eq!(
        changes,
        [
            "shown hand: recorded 2C 4D → corrected to 2C 5D",
            "pick: recorded 2C → corrected to none"
        ],
        "{no_play}"
    );
    assert_eq!(no_play["recorded"][1]["corrected"], Value::Null);
    // Each correction: what it replaced, from what the event held just before it.
    // The fields it gives stay as they were.
    let first = &events[4]["correction"];
    assert_eq!(first["corrects"], "1.1:2");
    assert_eq!(first["fields"], serde_json::json!({"cards": ["5S"]}));
    assert_eq!(first["was"], serde_json::json!({"cards": ["8H"]}));
    assert_eq!(first["text"], "corrects 1.1:2: cards 8H → 5S");
    assert_eq!(
        events[5]["correction"]["text"],
        "corrects 1.1:4: shown hand 2C 4D → 2C 5D; pick 2C → none"
    );
    assert_eq!(
        events[5]["correction"]["was"],
        serde_json::json!({"hand": ["2C", "4D"], "pick": "2C"})
    );
    assert_eq!(
        events[6]["correction"]["text"],
        "corrects 1.1:2: cards 5S → 7S"
    );
    // One numbering: every card by its laid number, the starter being 1.
    assert_eq!(
        events[1]["effects"][0],
        "on the main line: 7S (laid card 2)"
    );
    assert_eq!(
        events[7]["effects"][0],
        "on the sideline under 2C (laid card 4): 4S (laid card 5)"
    );
    assert_eq!(
        events[8]["effects"][0],
        "on the sideline under 2C (laid card 4): 6S (laid card 6)"
    );

    let output = eleusis(&["audit", "1.1", "--db", db.to_str().expect("path")], "");
    let text = String::from_utf8_lossy(&output.stdout);
    for expected in [
        "  1.1:2 ",
        "      corrected by 1.1:5, 1.1:7\n      cards: recorded 8H → corrected to 7S\n",
        "      shown hand: recorded 2C 4D → corrected to 2C 5D\n      pick: recorded 2C → corrected to none\n",
        // Each says what it changed when it was recorded (the mended shown hand
        // changed no decision).
        "      corrects 1.1:2: cards 8H → 5S; at the time it changed 1.1:2: wrong, Alain takes 2 penalty cards (wrong card), on a sideline: 8H → right, on the main line: 5S, no penalty\n",
        "      corrects 1.1:4: shown hand 2C 4D → 2C 5D; pick 2C → none\n",
        "      corrects 1.1:2: cards 5S → 7S; at the time it changed 1.1:2: right, on the main line: 5S → right, on the main line: 7S\n",
        "      on the sideline under 2C (laid card 4): 4S (laid card 5)\n",
    ] {
        assert!(text.contains(expected), "{expected:?} missing:\n{text}");
    }
    assert!(!text.contains("main["), "{text}");
    assert!(!text.contains("{\"corrects\""), "raw JSON: {text}");
}

/// A correction that changes only a round's end scores (the play that ended it
/// holds a card less): what the table was told — the verdict and the scores
/// announced — is shown beside the scores now, in the text and the JSON.
#[test]
fn a_changed_round_end_shows_the_scores_announced() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("g4.db");
    let log = lines(
        r#"{"event":"round","god":"P","players":["Q","R"],"rule":"red","starter":"AH","hand_size":2}
{"event":"play","cards":["2S"]}
{"event":"play","cards":["2H","3H"]}
{"event":"round","god":"Q","players":["R","P"],"rule":"black","starter":"AS","hand_size":2}
{"event":"play","cards":["2D"]}
{"event":"correct","round":1,"seq":2,"cards":["2H"]}"#,
    );
    let (replies, output) = record(&db, &log, &[]);
    assert!(output.status.success(), "{replies:?}");

    let output = eleusis(&["audit", "1.1", "--db", db.to_str().expect("path")], "");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains(
            "      round ends: R has no cards left; scores Q 0, R 5, P 5\n      CHANGED by a correction; announced at the table: right; round ends: R has no cards left; scores Q 0, R 7, P 7\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("      CHANGED by a correction; announced at the table: wrong; Q takes 2 penalty cards (wrong card); on a sideline: 2S\n"),
        "{text}"
    );

    let (report, _) = audit_json(&db, "1.1", &[]);
    let ending = &report["rounds"][0]["events"][2];
    assert_eq!(ending["changed"], true);
    assert_eq!(
        ending["announced"], "right; round ends: R has no cards left; scores Q 0, R 7, P 7",
        "{ending}"
    );
    let parts = ending["announced_parts"].as_array().expect("parts");
    let round_end = parts
        .iter()
        .find(|p| p["part"] == "round_end")
        .expect("the round's end");
    assert_eq!(round_end["announced"]["scores"]["R"], 7, "{round_end}");
    assert_eq!(round_end["now"]["scores"]["R"], 5, "{round_end}");
    assert_eq!(
        round_end["text"],
        "round ends: R has no cards left; scores Q 0, R 7, P 7"
    );
    assert!(
        parts.iter().all(|p| p["part"] != "right"),
        "the verdict stands: {parts:?}"
    );
}

/// Cy joins; Bo empties his hand; the game is not ended.
const GAME_B: &str = r#"{"event":"round","variant":"basic","god":"Ana","players":["Bo","Cy"],"rule":"red","starter":"AH","hand_size":1}
{"event":"play","player":"Bo","cards":["2H"]}"#;

/// A round that never finished.
const GAME_C: &str = r#"{"event":"round","variant":"basic","god":"Bo","players":["Ana","Cy"],"rule":"red","starter":"AH","hand_size":3}"#;

fn season(db: &Path, extra: &[&str]) -> (String, String, Option<i32>) {
    let mut args = vec!["season", "--db", db.to_str().expect("p")];
    args.extend_from_slice(extra);
    let output = eleusis(&args, "");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code(),
    )
}

#[test]
fn a_season_sheet_sums_each_games_own_totals() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("club.db");
    for game in [SHORT_GAME, GAME_B, GAME_C] {
        let (_, output) = record(&db, &lines(game), &[]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // Each game's totals, as the referee gives them (standings once a round ended).
    let a = replay(&lines(SHORT_GAME));
    let b = replay(&lines(GAME_B));
    let total = |state: &serde_json::Value, name: &str| {
        let game = &state["game"];
        let value = if game["totals"].is_null() {
            &game["standings"][name]
        } else {
            &game["totals"][name]
        };
        value.as_i64().unwrap_or_else(|| panic!("{name}: {state}"))
    };

    let (csv, stderr, code) = season(&db, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0],
        ["game", "date", "rounds", "variant", "status", "Ana", "Bo", "Gil", "Cy"]
    );
    assert_eq!(
        rows.len(),
        6,
        "games 1 and 2, then games, wins, total: {csv}"
    );
    assert_eq!(rows[1][..5], ["1", rows[1][1], "1", "basic", "ended"]);
    assert_eq!(rows[2][..5], ["2", rows[2][1], "1", "basic", "not ended"]);
    let (ana, bo, gil) = (total(&a, "Ana"), total(&a, "Bo"), total(&a, "Gil"));
    let (ana_b, bo_b, cy_b) = (total(&b, "Ana"), total(&b, "Bo"), total(&b, "Cy"));
    let cell = |v: i64| v.to_string();
    assert_eq!(
        rows[1][5..],
        [cell(ana), cell(bo), cell(gil), String::new()]
    );
    assert_eq!(
        rows[2][5..],
        [cell(ana_b), cell(bo_b), String::new(), cell(cy_b)]
    );
    assert_eq!(rows[3], ["games", "", "", "", "", "2", "2", "1", "1"]);
    assert_eq!(
        rows[5][5..],
        [cell(ana + ana_b), cell(bo + bo_b), cell(gil), cell(cy_b)]
    );
    // A win is the highest total of a game.
    let wins = |values: &[(usize, i64)]| {
        let best = values.iter().map(|v| v.1).max().expect("values");
        values
            .iter()
            .filter(|v| v.1 == best)
            .map(|v| v.0)
            .collect::<Vec<_>>()
    };
    let mut expected = [0u32; 4];
    for i in wins(&[(0, ana), (1, bo), (2, gil)]) {
        expected[i] += 1;
    }
    for i in wins(&[(0, ana_b), (1, bo_b), (3, cy_b)]) {
        expected[i] += 1;
    }
    let expected: Vec<String> = expected.iter().map(u32::to_string).collect();
    assert_eq!(rows[4][5..], expected[..]);

    // The page lists the unfinished game as not counted.
    let (page, _, code) = season(&db, &["--format", "html"]);
    assert_eq!(code, Some(0));
    assert!(
        page.contains("Not counted (no round finished): game 3."),
        "{page}"
    );

    // Days bound the games by their first round's day.
    let (csv, _, _) = season(&db, &["--until", "2000-01-01"]);
    assert_eq!(csv.lines().count(), 4, "no game before 2000: {csv}");
    let (csv, _, _) = season(&db, &["--since", "2000-01-01"]);
    assert_eq!(csv.lines().count(), 6);
    let (_, stderr, code) = season(&db, &["--since", "1/9/2026"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("\"1/9/2026\" is not a day: write it as YYYY-MM-DD"),
        "{stderr}"
    );
    let (_, stderr, code) = season(&db, &["--since", "2026-10-01", "--until", "2026-09-01"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("since 2026-10-01 is after until 2026-09-01"),
        "{stderr}"
    );

    // An altered game stops the sheet, naming it.
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(
        "DROP TRIGGER events_append_only_update;
         UPDATE events SET payload = replace(payload, '\"2H\"', '\"9H\"')
         WHERE seq = 2 AND round_id = (SELECT id FROM rounds WHERE game_id = 2);",
    )
    .expect("tamper");
    drop(conn);
    let (csv, stderr, code) = season(&db, &[]);
    assert_eq!(code, Some(2), "{csv}");
    assert!(csv.is_empty());
    assert!(stderr.contains("game 2's hash chain is broken"), "{stderr}");
}

/// The rounds table's id of round `number` of game 1, for raw SQL.
const ROUND_1: &str = "(SELECT id FROM rounds WHERE game_id = 1 AND number = 1)";

#[test]
fn a_forged_rule_stops_every_export_and_the_backup_names_it() {
    // The seals table is outside the hash chain: a rule changed there re-referees
    // every play under another rule, and the chain still holds. Every place that
    // refuses a broken chain refuses it too.
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("rule.db");
    let (_, output) = record(&db, &lines(SHORT_GAME), &[]);
    assert!(output.status.success());
    let clean = scores_csv(&db);
    let conn = rusqlite::Connection::open(&db).expect("raw");
    let n = conn
        .execute(
            &format!("UPDATE seals SET rule = 'black' WHERE round_id = {ROUND_1}"),
            [],
        )
        .expect("forge");
    assert_eq!(n, 1);
    drop(conn);
    let (report, code) = audit_json(&db, "1", &[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["chain"]["ok"], true, "{report}");
    // The audit page hides its export links on this.
    assert!(
        report["exports_refused"]
            .as_str()
            .is_some_and(|why| why.starts_with(
                "round 1.1's stored rule no longer matches the commitment made before play"
            )),
        "{report}"
    );
    let db_arg = db.to_str().expect("p");
    let frames = dir.path().join("frames");
    let frames = frames.to_str().expect("p");
    let said = "game 1: round 1.1's stored rule no longer matches the commitment made before play";
    for args in [
        &["export", "1", "--scores", "csv"][..],
        &["export", "1", "--scores", "html"],
        &["export", "1", "--log"],
        &["export", "1.1", "--log", "--god"],
        &["export", "1", "--frames", frames],
        &["season"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--db", db_arg]);
        let output = eleusis(&args, "");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(
            stderr.contains(said) && stderr.contains("run `eleusis audit 1`"),
            "{args:?}: {stderr}"
        );
    }
    // The backup keeps the evidence, and says the game does not check.
    let copy = dir.path().join("copy.db");
    let output = eleusis(&["backup", copy.to_str().expect("p"), "--db", db_arg], "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(said), "{stderr}");
    assert!(copy.exists());
    let (report, code) = audit_json(&copy, "1", &[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["rounds"][0]["seal"]["verified"], false, "{report}");
    // Put back, the sheet is the true one again.
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute(
        &format!("UPDATE seals SET rule = 'red' WHERE round_id = {ROUND_1}"),
        [],
    )
    .expect("restore");
    drop(conn);
    assert_eq!(scores_csv(&db), clean);
}

#[test]
fn a_forged_sealed_rule_is_refused_too_without_saying_the_rule() {
    // The round never ended: its rule is sealed, but God's export and the audit
    // re-referee under it.
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("sealed.db");
    let log = lines(
        r#"{"event":"round","variant":"basic","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"AH","hand_size":3}
{"event":"play","player":"Ana","cards":["2H"]}"#,
    );
    let (_, output) = record(&db, &log, &[]);
    assert!(output.status.success());
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute(
        &format!("UPDATE seals SET rule = 'black' WHERE round_id = {ROUND_1}"),
        [],
    )
    .expect("forge");
    drop(conn);
    let db_arg = db.to_str().expect("p");
    let output = eleusis(&["export", "1", "--log", "--god", "--db", db_arg], "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr
            .contains("round 1.1's stored rule no longer matches the commitment made before play"),
        "{stderr}"
    );
    let (report, code) = audit_json(&db, "1", &[]);
    assert_eq!(code, 1, "{report}");
    let problems = report["problems"].to_string();
    assert!(
        problems.contains(
            "round 1.1: the sealed rule and salt do not hash to the commitment made before play"
        ),
        "{problems}"
    );
    assert!(
        !report.to_string().contains("black"),
        "the rule leaked: {report}"
    );
}

#[test]
fn a_backup_of_a_database_with_a_broken_game_is_written_and_names_it() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("club.db");
    for game in [SHORT_GAME, GAME_B] {
        let (_, output) = record(&db, &lines(game), &[]);
        assert!(output.status.success());
    }
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(&format!(
        "DROP TRIGGER events_append_only_update;
         UPDATE events SET payload = replace(payload, '\"3S\"', '\"3H\"')
         WHERE seq = 3 AND round_id = {ROUND_1};"
    ))
    .expect("tamper");
    drop(conn);
    let copy = dir.path().join("evidence.db");
    let output = eleusis(
        &[
            "backup",
            copy.to_str().expect("p"),
            "--db",
            db.to_str().expect("p"),
        ],
        "",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("2 game(s), 9 event(s), 0 frame(s), not every game checks: game 1 (copied as it is, as evidence)"),
        "{stdout}"
    );
    assert!(
        stderr.contains("warning: game 1's hash chain is broken at round 1.1 event 3")
            && stderr.contains("run `eleusis audit 1 --db"),
        "{stderr}"
    );
    // The copy is whole: the altered game as it is, the other one clean.
    let (report, code) = audit_json(&copy, "1", &[]);
    assert_eq!(code, 1);
    assert_eq!(report["chain"]["broken_at"]["seq"], 3, "{report}");
    let (report, code) = audit_json(&copy, "2", &[]);
    assert_eq!(code, 0, "{report}");
    // Still never over a file.
    let again = eleusis(
        &[
            "backup",
            copy.to_str().expect("p"),
            "--db",
            db.to_str().expect("p"),
        ],
        "",
    );
    assert_eq!(again.status.code(), Some(2));
}

#[test]
fn a_revealed_round_whose_end_was_cut_off_the_log_is_reported() {
    // The chain cannot show a cut tail, but the seals table can: round 1.2's rule
    // was revealed by the `end_game` that the cut removed.
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("cut.db");
    record(&db, &lines(SHORT_GAME), &[]);
    let (clean, code) = audit_json(&db, "1", &[]);
    assert_eq!(code, 0, "{clean}");
    let last = "(SELECT e.id FROM events e JOIN rounds r ON r.id = e.round_id
                 WHERE r.game_id = 1 AND r.number = 2 AND e.seq = 3)";
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(&format!(
        "DROP TRIGGER events_append_only_delete;
         DELETE FROM verdicts WHERE event_id = {last};
         DELETE FROM events WHERE id = {last};"
    ))
    .expect("cut");
    drop(conn);
    let (report, code) = audit_json(&db, "1", &[]);
    assert_eq!(report["chain"]["ok"], true, "{report}");
    assert_eq!(code, 1, "{report}");
    let problems = report["problems"].to_string();
    assert!(
        problems
            .contains("round 1.2: its rule is revealed, but the stored log never ends the round"),
        "{problems}"
    );
    // Round 1.1 ended by its last play, and 1.2 followed it: nothing said of it.
    assert!(!problems.contains("round 1.1"), "{problems}");
}

#[test]
fn a_confidence_below_one_never_reads_as_one() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("sure.db");
    let log = lines(
        r#"{"event":"round","variant":"basic","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"AH","hand_size":3}
{"event":"play","cards":["2H"],"evidence":{"reads":[{"read":"2H","confidence":0.9995}]}}
{"event":"play","cards":["3H"],"evidence":{"reads":[{"read":"3H","confidence":1}]}}"#,
    );
    record(&db, &log, &[]);
    let text = eleusis(&["audit", "1", "--db", db.to_str().expect("p")], "");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("reads: 2H 0.9995 confirmed\n"), "{text}");
    assert!(text.contains("reads: 3H 1.00 confirmed\n"), "{text}");
}

#[test]
fn a_frame_whose_card_was_corrected_after_the_table_says_both() {
    // God confirmed the recognizer's 8S at the table; a later correction made it
    // 8C. The check set labels the frame 8C and counts the read as corrected (what
    // `recognize --check` scores), and says how it stood at the table.
    let dir = tempfile::tempdir().expect("dir");
    std::fs::copy(
        "tests/data/scenes/08-seq4-dark.jpg",
        dir.path().join("f.jpg"),
    )
    .expect("frame");
    let db = dir.path().join("frames.db");
    let log = lines(
        r#"{"event":"round","variant":"basic","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"AH"}
{"event":"play","player":"Ana","cards":["8S"],"evidence":{"frame":"f.jpg","reads":[{"read":"8S","confidence":0.61}]}}
{"event":"correct","seq":2,"cards":["8C"]}"#,
    );
    let frames = dir.path().to_str().expect("p").to_string();
    let (replies, output) = record(&db, &log, &["--frames", &frames]);
    assert!(output.status.success(), "{replies:?}");
    let out = dir.path().join("checks");
    let output = eleusis(
        &[
            "export",
            "1",
            "--frames",
            out.to_str().expect("p"),
            "--db",
            db.to_str().expect("p"),
        ],
        "",
    );
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("God confirmed 0, corrected 1, typed 0 (no index read); a correction made after the table changed 1 of these cards"),
        "{said}"
    );
    let sidecar: Value = serde_json::from_slice(
        &std::fs::read(out.join("round-1.1-event-002.json")).expect("sidecar"),
    )
    .expect("json");
    let read = &sidecar["meta"]["reads"][0];
    assert_eq!(sidecar["cards"][0], "8C", "{sidecar}");
    assert_eq!(read["status"], "corrected", "{read}");
    assert_eq!(read["status_at_table"], "confirmed", "{read}");
    assert_eq!(read["recorded_at_table"], "8S", "{read}");
    assert_eq!(read["corrected_later_by"][0], "1.1:3", "{read}");
}

/// The correction `ROUND:SEQ` of a report's round: its `correction` object.
fn correction_of(report: &Value, seq: u64) -> &Value {
    report["rounds"][0]["events"]
        .as_array()
        .and_then(|events| events.iter().find(|e| e["seq"] == seq))
        .map(|e| &e["correction"])
        .unwrap_or(&Value::Null)
}

/// The audit's text report of `id`.
fn audit_text(db: &Path, id: &str) -> String {
    let output = eleusis(&["audit", id, "--db", db.to_str().expect("path")], "");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Ana's 4D (right: the rule is red) corrected to 4S: the play became wrong and her
/// penalty was announced to the table; then corrected again to 4H, right again. The
/// audit says, on each correction's line, what it changed when it was recorded: the
/// first what the table heard between the two, which the decision now no longer
/// shows. A shown hand corrected to another with the same verdict changed no
/// decision, and says nothing of it.
#[test]
fn each_correction_says_what_it_changed_when_it_was_recorded() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("then.db");
    let log = lines(
        r#"{"event":"round","variant":"basic","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"AH","hand_size":3}
{"event":"play","player":"Ana","cards":["4D"]}
{"event":"play","player":"Bo","cards":["5H"]}
{"event":"correct","seq":2,"cards":["4S"]}
{"event":"correct","seq":2,"cards":["4H"]}
{"event":"no_play","player":"Ana","hand":["2S","3C"]}
{"event":"correct","seq":6,"hand":["2S","4C"]}"#,
    );
    let (replies, output) = record(&db, &log, &[]);
    assert!(output.status.success(), "{replies:?}");
    for i in [3, 4] {
        assert_eq!(
            replies[i]["changed"],
            serde_json::json!(["1.1:2"]),
            "{}",
            replies[i]
        );
    }
    // The ack lists the corrected no-play (its event changed), though no decision
    // of it did.
    assert_eq!(
        replies[6]["changed"],
        serde_json::json!(["1.1:6"]),
        "{}",
        replies[6]
    );

    let (report, code) = audit_json(&db, "1.1", &[]);
    assert_eq!(code, 0, "{report}");
    let first = correction_of(&report, 4);
    assert_eq!(first["text"], "corrects 1.1:2: cards 4D → 4S", "{first}");
    let turned = first["changed_then"].as_array().expect("changed_then");
    assert_eq!(turned.len(), 1, "{first}");
    assert_eq!(turned[0]["event"], "1.1:2");
    assert_eq!(turned[0]["was"]["right"], true, "{first}");
    assert_eq!(turned[0]["was"]["placed"]["line"], "main", "{first}");
    assert!(turned[0]["was"].get("penalties").is_none(), "{first}");
    assert_eq!(turned[0]["became"]["right"], false, "{first}");
    assert_eq!(
        turned[0]["became"]["penalties"],
        serde_json::json!([{"player": "Ana", "cards": 2, "reason": "wrong card"}]),
        "{first}"
    );
    assert_eq!(
        turned[0]["text"],
        "1.1:2: right, on the main line: 4D, no penalty → wrong, Ana takes 2 penalty cards (wrong card), on a sideline: 4S"
    );
    let second = correction_of(&report, 5);
    let turned = second["changed_then"].as_array().expect("changed_then");
    assert_eq!(turned.len(), 1, "{second}");
    assert_eq!(
        turned[0]["was"], first["changed_then"][0]["became"],
        "{second}"
    );
    assert_eq!(turned[0]["became"]["right"], true, "{second}");
    assert_eq!(
        turned[0]["text"],
        "1.1:2: wrong, Ana takes 2 penalty cards (wrong card), on a sideline: 4S → right, on the main line: 4H, no penalty"
    );
    // The play now stands as first announced but for its card.
    let play = &report["rounds"][0]["events"][1];
    assert_eq!(play["verdict"], "right", "{play}");
    // The shown hand: no decision changed, nothing said; no group either.
    let hand = correction_of(&report, 7);
    assert_eq!(
        hand["text"], "corrects 1.1:6: shown hand 2S 3C → 2S 4C",
        "{hand}"
    );
    assert!(hand.get("changed_then").is_none(), "{hand}");
    assert!(hand.get("group").is_none(), "{hand}");
    assert!(
        report["problems"].as_array().is_some_and(Vec::is_empty),
        "{report}"
    );

    let text = audit_text(&db, "1.1");
    for expected in [
        "      corrects 1.1:2: cards 4D → 4S; at the time it changed 1.1:2: right, on the main line: 4D, no penalty → wrong, Ana takes 2 penalty cards (wrong card), on a sideline: 4S\n",
        "      corrects 1.1:2: cards 4S → 4H; at the time it changed 1.1:2: wrong, Ana takes 2 penalty cards (wrong card), on a sideline: 4S → right, on the main line: 4H, no penalty\n",
        "      corrects 1.1:6: shown hand 2S 3C → 2S 4C\n",
    ] {
        assert!(text.contains(expected), "{expected:?} missing:\n{text}");
    }
}

/// A prophet's call corrected on one play and removed from the next, on one line
/// (`also`): the line changed both plays' decisions, said once, at its first
/// correction; the second names the first. The log between the two is never
/// replayed (it is illegal there): a group whose mark was stripped from the file
/// is then said as a log that does not replay, not a crash.
#[test]
fn a_line_of_corrections_says_what_it_changed_once() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("group.db");
    let log = lines(
        r#"{"event":"round","god":"G","players":["A","B","C","D"],"rule":"red","starter":"AH"}
{"event":"play","cards":["2H"]}
{"event":"prophet","player":"A"}
{"event":"play","cards":["3S"],"prophet_says":"wrong"}
{"event":"play","cards":["4H"],"prophet_says":"right"}
{"event":"correct","seq":4,"prophet_says":"right","also":[{"seq":5,"prophet_says":null}]}"#,
    );
    let (replies, output) = record(&db, &log, &[]);
    assert!(output.status.success(), "{replies:?}");
    assert_eq!(
        replies[5]["group"],
        serde_json::json!([6, 7]),
        "{}",
        replies[5]
    );

    let (report, code) = audit_json(&db, "1.1", &[]);
    assert_eq!(code, 0, "{report}");
    let first = correction_of(&report, 6);
    let second = correction_of(&report, 7);
    for c in [first, second] {
        assert_eq!(c["group"], serde_json::json!(["1.1:6", "1.1:7"]), "{c}");
    }
    assert!(second.get("changed_then").is_none(), "said once: {second}");
    let turned = first["changed_then"].as_array().expect("changed_then");
    let events: Vec<&str> = turned.iter().filter_map(|t| t["event"].as_str()).collect();
    assert_eq!(events, ["1.1:4", "1.1:5"], "{first}");
    // 3S: the prophet now contradicted, overthrown, he takes the penalty.
    assert_eq!(turned[0]["was"]["penalties"][0]["player"], "B", "{first}");
    assert_eq!(turned[0]["became"]["overthrown"], "A", "{first}");
    assert_eq!(
        turned[1]["text"],
        "1.1:5: right, prophet A said right, God confirms → right, no prophet's call"
    );
    let text = audit_text(&db, "1.1");
    let line = text
        .lines()
        .find(|l| l.starts_with("      corrects 1.1:4: prophet's call wrong → right"))
        .expect("the first correction's line");
    assert!(
        line.starts_with(
            "      corrects 1.1:4: prophet's call wrong → right; at the time, with 1.1:7, it changed 1.1:4: wrong, B takes 2 penalty cards (wrong card), prophet A said wrong, God confirms, "
        ),
        "{line}"
    );
    assert!(
        line.ends_with(
            "; 1.1:5: right, prophet A said right, God confirms → right, no prophet's call"
        ),
        "{line}"
    );
    assert_eq!(text.matches("it changed").count(), 1, "{text}");
    assert!(
        text.contains(
            "      corrects 1.1:5: prophet's call right → none; given with 1.1:6 on one line\n"
        ),
        "{text}"
    );

    // The group's mark stripped from the file: the two look like corrections made
    // one after the other, and the log between them does not replay.
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch("DROP TRIGGER events_append_only_update")
        .expect("drop");
    let n = conn
        .execute(
            "UPDATE events SET payload = replace(payload, ',\"with_previous\":true', '') WHERE seq = 7",
            [],
        )
        .expect("strip");
    assert_eq!(n, 1);
    drop(conn);
    let (report, code) = audit_json(&db, "1.1", &[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["chain"]["ok"], false, "{report}");
    for seq in [6, 7] {
        let c = correction_of(&report, seq);
        assert!(c.get("changed_then").is_none(), "{c}");
        assert!(c.get("group").is_none(), "{c}");
    }
    let problems = report["problems"].to_string();
    assert!(
        problems
            .contains("the stored log as it stood before the correction 1.1:7 does not replay (")
            && problems.contains("what 1.1:6 and 1.1:7 changed when recorded cannot be said"),
        "{report}"
    );
}

/// A void and its taking back, and a correction in round 1.2 of a play of round
/// 1.1 that moved that round's end scores: each says what it changed then, the
/// void as `void`, the scores in round 1.1's seating order.
#[test]
fn a_void_and_an_earlier_rounds_scores_are_said_as_changed_then() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("void.db");
    let log = lines(
        r#"{"event":"round","variant":"new-eleusis","god":"Pierre","players":["Alain","François","Jacques","Philippe"],"rule":"if last.odd then black else red","starter":"3H"}
{"event":"play","cards":["4S"]}
{"event":"play","cards":["9S"]}
{"event":"correct","seq":3,"void":true}
{"event":"correct","seq":3,"void":null}"#,
    );
    let (replies, output) = record(&db, &log, &[]);
    assert!(output.status.success(), "{replies:?}");
    let (report, _) = audit_json(&db, "1.1", &[]);
    let voided = &correction_of(&report, 4)["changed_then"];
    assert_eq!(voided[0]["became"], Value::Null, "{voided}");
    assert_eq!(
        voided[0]["text"],
        "1.1:3: wrong, Philippe takes 2 penalty cards (wrong card) → void (it did not happen)"
    );
    let back = &correction_of(&report, 5)["changed_then"];
    assert_eq!(back[0]["was"], Value::Null, "{back}");
    assert_eq!(
        back[0]["text"],
        "1.1:3: void → wrong, Philippe takes 2 penalty cards (wrong card)"
    );

    let db = dir.path().join("scores.db");
    let log = lines(
        r#"{"event":"round","god":"P","players":["Q","R"],"rule":"red","starter":"AH","hand_size":2}
{"event":"play","cards":["2S"]}
{"event":"play","cards":["2H","3H"]}
{"event":"round","god":"Q","players":["R","P"],"rule":"black","starter":"AS","hand_size":2}
{"event":"play","cards":["2D"]}
{"event":"correct","round":1,"seq":2,"cards":["2H"]}"#,
    );
    let (replies, output) = record(&db, &log, &[]);
    assert!(output.status.success(), "{replies:?}");
    let text = audit_text(&db, "1.2");
    assert!(
        text.contains(
            "      corrects 1.1:2: cards 2S → 2H; at the time it changed 1.1:2: wrong, Q takes 2 penalty cards (wrong card), on a sideline: 2S → right, on the main line: 2H, no penalty; 1.1:3: right, round ends: R has no cards left; scores Q 0, R 7, P 7 → right, round ends: R has no cards left; scores Q 0, R 5, P 5\n"
        ),
        "{text}"
    );
}
