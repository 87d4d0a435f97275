//! `eleusis replay` as a person or a script runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn eleusis(args: &[&str], stdin: Option<&str>) -> Output {
    eleusis_bytes(args, stdin.map(str::as_bytes))
}

fn eleusis_bytes(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run eleusis");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text)
            .expect("write stdin");
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().expect("wait")
}

fn fixture(name: &str) -> String {
    format!("{}/tests/data/logs/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn a_good_log_prints_the_state_in_the_table_log_shape() {
    let out = eleusis(&["replay", &fixture("002-diagram.jsonl")], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = json(&out);
    assert_eq!(state["variant"], "gardner");
    assert_eq!(
        state["main"],
        serde_json::json!(["3H", "5S", "9D", "5C", "KH"])
    );
    assert_eq!(
        state["sidelines"],
        serde_json::json!([
            {"after": 0, "plays": [["8H"]]},
            {"after": 2, "plays": [["JH"], ["7D"], ["8S"]]},
            {"after": 4, "plays": [["4S", "9D", "JC"]]}
        ])
    );
    assert_eq!(state["laid"], 12);
    assert_eq!(state["white_markers"], serde_json::json!([10]));
    assert_eq!(state["black_markers"], serde_json::json!([]));
    assert_eq!(state["prophet"], serde_json::Value::Null);
    assert_eq!(
        state["hands"],
        serde_json::json!({"Ana": 12, "Carlos": 14, "Mario": 19, "Rui": 14})
    );
    assert_eq!(state["eliminated"], serde_json::json!([]));
    assert_eq!(state["turn"], "Rui");
    assert_eq!(state["ended"], false);
    assert_eq!(state["scores"], serde_json::Value::Null);
    assert_eq!(state["game"]["rounds"], 1);
    assert_eq!(state["game"]["totals"], serde_json::Value::Null);
    assert_eq!(state["warnings"], serde_json::json!([]));
}

#[test]
fn a_finished_round_prints_scores_and_a_null_turn() {
    let out = eleusis(&["replay", &fixture("000-scoring.jsonl")], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = json(&out);
    assert_eq!(state["turn"], serde_json::Value::Null);
    assert_eq!(state["ended"], true);
    assert_eq!(
        state["scores"],
        serde_json::json!({"Alain": 0, "François": 3, "Jacques": 21, "Philippe": 42, "Pierre": 42})
    );
    assert_eq!(
        state["prophet"],
        serde_json::json!({"player": "Philippe", "marker": 25})
    );
    assert_eq!(state["black_markers"], serde_json::json!([35, 45]));
}

#[test]
fn standard_input_and_end_game_totals() {
    let mut log = std::fs::read_to_string(fixture("000-scoring.jsonl")).expect("fixture");
    log.push_str("{\"event\":\"end_game\"}\n");
    let out = eleusis(&["replay", "-"], Some(&log));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = json(&out);
    assert_eq!(
        state["game"]["totals"],
        serde_json::json!({"Alain": 10, "François": 13, "Jacques": 31, "Philippe": 52, "Pierre": 42})
    );
}

#[test]
fn a_bad_line_exits_non_zero_and_names_the_line() {
    let good = std::fs::read_to_string(fixture("002-diagram.jsonl")).expect("fixture");
    let mut lines: Vec<&str> = good.lines().collect();
    // Line 4 claims the wrong player.
    lines.insert(3, r#"{"event":"play","player":"Mario","cards":["2H"]}"#);
    let out = eleusis(&["replay", "-"], Some(&lines.join("\n")));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim(), "line 4: it is Ana's turn, not Mario's");
    assert!(out.stdout.is_empty(), "no state for a rejected log");

    let out = eleusis(&["replay", "-"], Some("{\"event\":\"round\"\n"));
    assert_eq!(out.status.code(), Some(1));
    // One position, said once: the line of the file and the column in it.
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "line 1: not a JSON object: EOF while parsing an object (column 16)"
    );

    let lines = [good.lines().next().expect("round"), r#"{"event":"deal"}"#];
    let out = eleusis(&["replay", "-"], Some(&lines.join("\n")));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("line 2: unknown event \"deal\""));

    let out = eleusis(&["replay", "/nonexistent/table.jsonl"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/table.jsonl"));
}

#[test]
fn trace_prints_one_line_per_event_with_explanations() {
    let out = eleusis(&["replay", "--trace", &fixture("002-diagram.jsonl")], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10);
    assert!(lines[1].starts_with("line 2: "), "{}", lines[1]);
    assert!(lines[1].contains("8H: wrong"), "{}", lines[1]);
    assert!(lines[1].contains("8H rejected ("), "{}", lines[1]);
    assert!(lines[1].contains("takes 2 penalty cards"), "{}", lines[1]);
    assert!(
        lines[9].contains("sequence 4S 9D JC: wrong"),
        "{}",
        lines[9]
    );
    assert!(lines[9].contains("6 penalty cards"), "{}", lines[9]);
    assert!(lines[9].contains("white marker on [10]"), "{}", lines[9]);

    let out = eleusis(
        &["replay", "--trace", &fixture("000-sudden-death.jsonl")],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("sudden death begins (30 cards laid)"),
        "{text}"
    );
    assert!(text.contains("Pierre is eliminated"), "{text}");
    assert!(
        text.contains("Paul is Prophet, marker on laid card 38"),
        "{text}"
    );
}

/// The first line of a fixture: a `round` event to put refused lines after.
fn round_line() -> String {
    let log = std::fs::read_to_string(fixture("002-diagram.jsonl")).expect("fixture");
    log.lines().next().expect("round").to_string()
}

/// Replays `log` from standard input, which must be refused: the error line.
fn refused(log: &[u8]) -> String {
    let out = eleusis_bytes(&["replay", "-"], Some(log));
    assert_eq!(
        out.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "no state for a rejected log");
    String::from_utf8_lossy(&out.stderr).trim().to_string()
}

#[test]
fn a_field_given_twice_is_refused_not_overwritten() {
    let round = round_line();
    let log = format!("{round}\n{{\"event\":\"play\",\"cards\":[\"2S\"],\"cards\":[\"2H\"]}}\n");
    assert_eq!(
        refused(log.as_bytes()),
        r#"line 2: duplicate field "cards""#
    );
    let twice = round.replacen("\"god\":", "\"god\":\"Nobody\",\"god\":", 1);
    assert_eq!(
        refused(twice.as_bytes()),
        r#"line 1: duplicate field "god""#
    );
}

#[test]
fn errors_name_the_field_and_the_card_in_the_logs_words() {
    let round = round_line();
    let with_size = round.replacen('}', r#","hand_size":"7"}"#, 1);
    assert!(with_size.ends_with(r#""hand_size":"7"}"#), "{with_size}");
    assert_eq!(
        refused(with_size.as_bytes()),
        r#"line 1: field "hand_size": expected a whole number, got the string "7""#
    );
    let cases = [
        (
            r#"{"event":"play","cards":"8S"}"#,
            r#"line 2: field "cards": expected a list, got the string "8S""#,
        ),
        (
            r#"{"event":"no_play","hand":["2S","3S","1X"]}"#,
            r#"line 2: field "hand", card 3: "1X": unknown suit 'X' (expected one of S H D C or ♠ ♥ ♦ ♣)"#,
        ),
        (
            r#"{"event":"play","cards":["2S"],"prophet_says":"right"}"#,
            r#"line 2: "prophet_says": "right" given but no prophet is in office"#,
        ),
    ];
    for (line, expected) in cases {
        assert_eq!(refused(format!("{round}\n{line}").as_bytes()), expected);
    }
}

#[test]
fn a_line_that_is_not_utf8_is_refused_with_its_number() {
    let mut log = format!("{}\n\n", round_line()).into_bytes();
    log.extend_from_slice(b"{\"event\":\"play\",\"cards\":[\"8\xe9H\"]}\n");
    assert_eq!(refused(&log), "line 3: not UTF-8 text");
    // From a file too: the same line, the same exit status as any rejected log.
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("latin1.jsonl");
    std::fs::write(&path, &log).expect("write log");
    let out = eleusis(&["replay", path.to_str().expect("path")], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "line 3: not UTF-8 text"
    );
}

#[test]
fn a_byte_order_mark_at_the_start_is_skipped() {
    let plain = eleusis(&["replay", &fixture("002-diagram.jsonl")], None);
    let log = std::fs::read(fixture("002-diagram.jsonl")).expect("fixture");
    let mut with_bom = b"\xef\xbb\xbf".to_vec();
    with_bom.extend_from_slice(&log);
    let out = eleusis_bytes(&["replay", "-"], Some(&with_bom));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out), json(&plain));
}

#[test]
fn a_log_without_events_is_refused() {
    for log in ["", "\n", "\n  \n\r\n", "\u{feff}\n"] {
        assert_eq!(
            refused(log.as_bytes()),
            "the log holds no events",
            "{log:?}"
        );
        let out = eleusis(&["replay", "--trace", "-"], Some(log));
        assert_eq!(out.status.code(), Some(1), "--trace {log:?}");
    }
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("empty.jsonl");
    std::fs::write(&path, "").expect("write log");
    let out = eleusis(&["replay", path.to_str().expect("path")], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "the log holds no events"
    );
}

#[test]
fn end_game_before_any_round_is_refused_like_a_play() {
    let err = refused(b"{\"event\":\"end_game\"}\n");
    assert!(
        err.contains("line 1") && err.contains("no round has started"),
        "{err}"
    );
}

#[test]
fn end_game_in_a_round_warns_once_with_the_round() {
    let log = format!("{}\n{{\"event\":\"end_game\"}}\n", round_line());
    let out = eleusis(&["replay", "-"], Some(&log));
    assert!(out.status.success());
    let state = json(&out);
    assert_eq!(
        state["warnings"],
        serde_json::json!(["round 1: the round had not ended and is not scored"])
    );
    // The game has stopped: nobody is to play, though the round was not finished.
    assert_eq!(state["turn"], serde_json::Value::Null);
    assert_eq!(state["ended"], serde_json::json!(false));
    assert_eq!(state["game"]["ended"], serde_json::json!(true));
}

#[test]
fn the_trace_says_how_sudden_death_ends_when_the_prophet_falls() {
    // gardner: 20 right cards after the prophet marker start sudden death; the
    // prophet's wrong call overthrows him, the marker goes, and the 23 laid cards
    // are under the 30 that start it without a prophet.
    let out = eleusis(
        &[
            "replay",
            "--trace",
            &fixture("gardner-false-prophet-sudden-death.jsonl"),
        ],
        None,
    );
    let trace =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let line = trace
        .lines()
        .find(|l| l.starts_with("line 24:"))
        .unwrap_or_else(|| panic!("no line 24 in the trace: {trace}"));
    assert!(line.contains("false prophet A overthrown"), "{line}");
    assert!(
        line.contains("sudden death ends: the prophet marker is gone and the count is of all"),
        "{line}"
    );
    assert!(!line.contains("restarts from the prophet marker"), "{line}");
}
