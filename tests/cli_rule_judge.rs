//! `eleusis rule judge` as a user runs it: one card, a sequence, sidelines, streamed
//! JSON lines, and bad rule files.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

fn eleusis() -> Command {
    Command::new(env!("CARGO_BIN_EXE_eleusis"))
}

fn rule_file(dir: &Path, name: &str, text: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write rule file");
    path
}

fn run(args: &[&str]) -> Output {
    eleusis().args(args).output().expect("run eleusis")
}

/// `rule judge --rule-file RULE 5H`: the file's rule judges one card.
fn judge_5h(rule: &Path) -> Output {
    eleusis()
        .args(["rule", "judge", "--rule-file"])
        .arg(rule)
        .arg("5H")
        .output()
        .expect("run eleusis")
}

fn json(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "exit {:?}, stderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn run_batch(rule: &Path, input: &str, extra: &[&str]) -> Vec<Value> {
    let mut child = eleusis()
        .args(["rule", "judge", "--rule-file"])
        .arg(rule)
        .arg("--batch")
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn eleusis");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("wait");
    writer.join().expect("writer thread").expect("write stdin");
    assert!(output.status.success());
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn judges_one_card() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(dir.path(), "odd.rule", b"if last.odd then black else red\n");
    let rule = rule.to_str().expect("utf-8 path");
    let out = json(&run(&[
        "rule",
        "judge",
        "--rule-file",
        rule,
        "--main",
        "3H 5S 9D",
        "8C",
    ]));
    assert_eq!(out["cards"], serde_json::json!(["8C"]));
    assert_eq!(out["accepted"], Value::Bool(true));
    assert_eq!(
        out["explanation"],
        "last 9♦ is odd → card must be black; 8♣ is black → accepted"
    );
    let out = json(&run(&[
        "rule",
        "judge",
        "--rule-file",
        rule,
        "--main",
        "3H 5S 9D",
        "5H",
    ]));
    assert_eq!(out["accepted"], Value::Bool(false));
    assert_eq!(
        out["explanation"],
        "last 9♦ is odd → card must be black; 5♥ is red → rejected"
    );
}

#[test]
fn judges_a_sequence_card_by_card() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(
        dir.path(),
        "diagram.rule",
        b"# 002's diagram\nif last.black then card.rank >= 7 else card.rank <= 6\n",
    );
    let rule = rule.to_str().expect("utf-8 path");
    let out = json(&run(&[
        "rule",
        "judge",
        "--rule-file",
        rule,
        "--main",
        "3H 5S 9D 5C KH",
        "4S",
        "9D",
        "JC",
    ]));
    assert_eq!(out["cards"], serde_json::json!(["4S", "9D", "JC"]));
    assert_eq!(out["accepted"], Value::Bool(false));
    let per_card = out["per_card"].as_array().expect("per_card");
    assert_eq!(per_card.len(), 3);
    assert_eq!(per_card[2]["accepted"], Value::Bool(false));
    let out = json(&run(&[
        "rule",
        "judge",
        "--rule-file",
        rule,
        "--main",
        "3H 5S 9D 5C KH",
        "4S 9D 2C",
    ]));
    assert_eq!(out["accepted"], Value::Bool(true));

    // One entry per card: past the first rejected card, "not judged".
    let out = json(&run(&[
        "rule", "judge", "--rule", "red", "2H", "3S", "4H", "5H",
    ]));
    let per_card = out["per_card"].as_array().expect("per_card");
    assert_eq!(per_card.len(), 4);
    assert_eq!(per_card[1]["explanation"], "3♠ is black → rejected");
    for late in &per_card[2..] {
        assert_eq!(late["accepted"], Value::Bool(false));
        assert_eq!(
            late["explanation"],
            "not judged: the sequence is already wrong at 3♠"
        );
    }
    // A play is at most four cards, on the command line and in a batch line.
    let out = run(&[
        "rule", "judge", "--rule", "red", "2H", "3H", "4H", "5H", "6H",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "a play is one card or a sequence of 2 to 4 cards (RULES.md section 3), got 5 cards"
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let red = rule_file(dir.path(), "red.rule", b"red");
    let lines = run_batch(
        &red,
        "{\"cards\":[\"2H\",\"3H\",\"4H\",\"5H\",\"6H\"]}\n{\"cards\":[\"2H\",\"3H\"]}\n",
        &[],
    );
    assert_eq!(
        lines[0]["error"],
        "line 1: a play is one card or a sequence of 2 to 4 cards (RULES.md section 3), got 5 cards"
    );
    assert_eq!(lines[1]["accepted"], Value::Bool(true));
}

#[test]
fn reads_sidelines_for_advanced_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(
        dir.path(),
        "side.rule",
        b"len(side) == 0 or card.color != side[-1].color",
    );
    let rule = rule.to_str().expect("utf-8 path");
    let args = ["rule", "judge", "--rule-file", rule, "--main", "3H"];
    let with = |extra: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(extra);
        json(&run(&all))["accepted"].clone()
    };
    assert_eq!(with(&["--side", "5S", "--wrong", "5S", "2C"]), false);
    assert_eq!(with(&["--side", "5S", "2D"]), true);
    assert_eq!(with(&["2C"]), true);
}

#[test]
fn the_sideline_is_among_the_wrong_cards() {
    // RULE-LANGUAGE.md: `side` is the latest wrong cards, `wrong` all of them.
    let judge = |extra: &[&str]| {
        let mut all = vec!["rule", "judge", "--rule", "len(wrong) == 1", "--main", "3H"];
        all.extend_from_slice(extra);
        run(&all)
    };
    assert_eq!(json(&judge(&["--side", "4S", "8C"]))["accepted"], true);
    assert_eq!(
        json(&judge(&["--side", "4S", "--wrong", "2D 4S", "8C"]))["accepted"],
        false
    );
    let refused = judge(&["--side", "4S", "--wrong", "2D", "8C"]);
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("--side and --wrong: the sideline under the last main-line card (4S) must be the last cards of every wrong card of the round (2D)"),
        "{err}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(dir.path(), "w.rule", b"len(wrong) == 1");
    let out = run_batch(
        &rule,
        concat!(
            "{\"main\":[\"3H\"],\"side\":[\"4S\"],\"card\":\"8C\"}\n",
            "{\"main\":[\"3H\"],\"side\":[\"4S\"],\"wrong\":[\"2D\"],\"card\":\"8C\"}\n",
        ),
        &[],
    );
    assert_eq!(out[0], serde_json::json!({"accepted": true}));
    assert!(
        out[1]["error"].as_str().is_some_and(|e| e.starts_with(
            "line 2: \"side\" and \"wrong\": the sideline under the last main-line card (4S)"
        )),
        "{out:?}"
    );
}

#[test]
fn batch_answers_every_line_in_order_and_survives_bad_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(dir.path(), "odd.rule", b"if last.odd then black else red");
    let input = concat!(
        "{\"main\":[\"3H\",\"5S\"],\"card\":\"8C\"}\n",
        "{\"main\":[\"9D\"],\"card\":\"8H\"}\n",
        "not json\n",
        "{\"main\":[\"9D\"],\"cards\":[\"8C\",\"7D\"]}\n",
        "{\"main\":[\"9D\"],\"card\":\"ZZ\"}\n",
        "\n",
        "{\"main\":[\"9D\"],\"card\":\"8C\",\"cards\":[\"8C\"]}\n",
        "{\"main\":[\"9D\"],\"cards\":[\"8C\",\"7C\"]}\n",
        "{\"main\":[\"9D\"],\"side\":[\"2S\"],\"wrong\":[\"2S\"],\"card\":\"2C\"}",
    );
    let out = run_batch(&rule, input, &[]);
    assert_eq!(out.len(), 9, "{out:?}");
    assert_eq!(out[0], serde_json::json!({"accepted": true}));
    assert_eq!(out[1], serde_json::json!({"accepted": false}));
    // The README's example: the input line, then the column in it, said once.
    assert_eq!(
        out[2]["error"],
        "line 3: invalid request: expected ident (column 2)"
    );
    assert_eq!(out[3], serde_json::json!({"accepted": true}));
    assert!(out[4]["error"]
        .as_str()
        .is_some_and(|e| e.starts_with("line 5: ") && e.contains("\"ZZ\"")));
    assert!(out[5]["error"]
        .as_str()
        .is_some_and(|e| e.starts_with("line 6: empty line")));
    assert!(out[6]["error"]
        .as_str()
        .is_some_and(|e| e.contains("not both")));
    assert_eq!(out[7], serde_json::json!({"accepted": false}));
    assert_eq!(out[8], serde_json::json!({"accepted": true}));
}

#[test]
fn batch_can_explain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(dir.path(), "odd.rule", b"if last.odd then black else red");
    let out = run_batch(
        &rule,
        "{\"main\":[\"9D\"],\"card\":\"5H\"}\n",
        &["--explain"],
    );
    assert_eq!(
        out,
        vec![serde_json::json!({
            "accepted": false,
            "explanation": "last 9♦ is odd → card must be black; 5♥ is red → rejected"
        })]
    );
}

#[test]
fn batch_handles_large_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(dir.path(), "odd.rule", b"if last.odd then black else red");
    let deck = ["AS", "2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "10H"];
    let mut input = String::new();
    let mut expected = Vec::new();
    for i in 0..20_000usize {
        let last = deck[i % deck.len()];
        let play = deck[(i / deck.len()) % deck.len()];
        input.push_str(&format!("{{\"main\":[\"{last}\"],\"card\":\"{play}\"}}\n"));
        let last_odd = (i % deck.len()).is_multiple_of(2); // A, 3, 5, 7, 9 sit at even positions
        let play_black = play.ends_with('S') || play.ends_with('C');
        expected.push(last_odd == play_black);
    }
    let out = run_batch(&rule, &input, &[]);
    assert_eq!(out.len(), expected.len());
    for (i, (line, want)) in out.iter().zip(&expected).enumerate() {
        assert_eq!(line["accepted"], Value::Bool(*want), "line {}", i + 1);
    }
}

#[test]
fn batch_streams_an_answer_before_the_input_ends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(dir.path(), "odd.rule", b"if last.odd then black else red");
    let mut child = eleusis()
        .args(["rule", "judge", "--rule-file"])
        .arg(&rule)
        .arg("--batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn eleusis");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    stdin
        .write_all(b"{\"main\":[\"9D\"],\"card\":\"5H\"}\n")
        .expect("write");
    stdin.flush().expect("flush");
    // stdin stays open: the answer must come anyway.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    // A generous bound only so that a regression fails instead of hanging.
    let line = rx.recv_timeout(Duration::from_secs(120));
    drop(stdin);
    let _ = child.wait();
    assert_eq!(
        line.expect("an answer while stdin is still open").trim(),
        "{\"accepted\":false}"
    );
}

#[test]
fn a_bad_rule_file_names_the_file_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(
        dir.path(),
        "broken.rule",
        b"# after a face card\nif last.face else red\n",
    );
    let out = judge_5h(&rule);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}: line 2, column 14: expected 'then' after the condition of 'if', found 'else'",
            rule.display()
        )),
        "{stderr}"
    );

    let binary = rule_file(dir.path(), "binary.rule", &[b'r', b'e', b'd', 0xff, 0xfe]);
    let out = judge_5h(&binary);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The byte is counted from 1, like the column (and as `rule check` says it).
    assert!(
        stderr.contains("line 1, column 4: not UTF-8 text (byte 4)"),
        "{stderr}"
    );

    let out = judge_5h(&dir.path().join("missing.rule"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.rule"));

    let typed = rule_file(dir.path(), "typed.rule", b"card.suit == red");
    let out = judge_5h(&typed);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("typed.rule: line 1, column 14: cannot compare a suit with a color"));
}

/// The line shown under an error never sends a control character to the terminal
/// (an ESC sequence would clear the screen, a lone CR overwrite what came before):
/// it is written as its escape, the caret moved along with it.
#[test]
fn the_line_shown_with_an_error_escapes_control_characters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = rule_file(dir.path(), "esc.rule", b"red \x1b[2J\n");
    let out = judge_5h(&rule);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    assert!(
        stderr.contains("line 1, column 5: unexpected character U+001B"),
        "{stderr}"
    );
    assert!(stderr.contains("\n  red \\u{1b}[2J\n      ^"), "{stderr:?}");
    let rule = rule_file(dir.path(), "cr.rule", b"red # c\rblack");
    let stderr = String::from_utf8_lossy(&judge_5h(&rule).stderr).into_owned();
    assert!(!stderr.contains('\r'), "{stderr:?}");
    assert!(
        stderr.contains("\n  red # c\\rblack\n         ^"),
        "{stderr:?}"
    );
}

/// A rule file saved by Notepad starts with a byte-order mark: no part of the
/// rule. Anywhere else it is refused by its name, not shown as nothing.
#[test]
fn a_rule_file_with_a_byte_order_mark_is_read_as_its_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let saved = rule_file(dir.path(), "notepad.rule", "\u{feff}red\r\n".as_bytes());
    let out = judge_5h(&saved);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out)["accepted"], Value::Bool(true));
    let inside = rule_file(dir.path(), "inside.rule", "red or\u{feff} black".as_bytes());
    let out = judge_5h(&inside);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 1, column 7: unexpected character U+FEFF (a byte-order mark"),
        "{stderr}"
    );
}

/// A rule given with `--rule` may start with a minus sign: it is the rule, not an
/// unknown option.
#[test]
fn a_rule_text_starting_with_a_minus_is_a_rule() {
    let out = run(&["rule", "judge", "--rule", "-8 % 3 == 1", "5H"]);
    assert_eq!(json(&out)["accepted"], Value::Bool(true));
    let out = run(&[
        "rule",
        "judge",
        "--rule",
        "-card.rank < -5",
        "--main",
        "3H",
        "8C",
        "5D",
    ]);
    let doc = json(&out);
    assert_eq!(doc["accepted"], Value::Bool(false));
    assert_eq!(doc["per_card"][1]["accepted"], Value::Bool(false));
}

#[test]
fn bad_cards_on_the_command_line_are_reported() {
    let out = run(&["rule", "judge", "--rule", "red", "--main", "3H 1X", "5H"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--main") && stderr.contains("\"1X\""),
        "{stderr}"
    );
    // Said once, with the position: not repeated as its own cause.
    assert_eq!(
        stderr.trim(),
        "error: --main: card 2 of the list: card \"1X\": unknown suit 'X' (expected one of S H D C or ♠ ♥ ♦ ♣)"
    );
    let out = run(&["rule", "judge", "--rule", "red", "ZZ"]);
    assert!(!out.status.success());
}
