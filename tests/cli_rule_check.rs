//! `eleusis rule check FILE` end to end: the binary on rule files from the seed texts,
//! text and JSON output, reproducibility and errors.

use std::io::Write;
use std::process::{Command, Output};

use serde_json::Value;

fn rule_file(source: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(source.as_bytes()).expect("write rule");
    file
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["rule", "check"])
        .args(args)
        .output()
        .expect("run eleusis")
}

/// Checks `source` and returns the text report; the run must succeed quietly.
fn text(source: &str, extra: &[&str]) -> String {
    let file = rule_file(source);
    let path = file.path().to_str().expect("utf-8 path");
    let mut args = vec![path];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Not a terminal: no progress bar on stderr.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn json(source: &str, extra: &[&str]) -> Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&text(source, &args)).expect("one JSON document")
}

fn ids(doc: &Value, key: &str) -> Vec<String> {
    doc[key]
        .as_array()
        .expect("an array")
        .iter()
        .map(|x| x["id"].as_str().expect("an id").to_string())
        .collect()
}

#[test]
fn odd_then_black_needs_only_the_last_card_and_colours() {
    // 000, rule 1.
    let out = text("# 000, rule 1\nif last.odd then black else red\n", &[]);
    assert!(out.contains("rule: # 000, rule 1"), "{out}");
    assert!(out.contains("method: exact"), "{out}");
    assert!(
        out.contains("depends only on the last card of the main line and the card played"),
        "{out}"
    );
    assert!(
        out.contains("of a suit, only its colour matters (proven on all 143364 cases)"),
        "{out}"
    );
    assert!(
        out.contains("the rule ignores the suit of the last card"),
        "{out}"
    );
    assert!(out.contains("starters: any card (52 of 52)"), "{out}");
    assert!(out.contains("dead ends: none (exact"), "{out}");
    assert!(out.contains("seed 001 advises 25–40 %"), "{out}");
}

#[test]
fn same_suit_or_rank_has_no_dead_end() {
    // 000, rule 3.
    let doc = json("card.suit == last.suit or card.rank == last.rank", &[]);
    assert_eq!(doc["method"], "exact");
    assert_eq!(doc["dead_ends"]["method"], "exact");
    assert_eq!(doc["dead_ends"]["found"], 0);
    assert_eq!(doc["dead_ends"]["examples"], serde_json::json!([]));
    let hints = ids(&doc, "hints");
    assert!(hints.contains(&"last-card-only".to_string()), "{hints:?}");
    assert!(hints.contains(&"suits-symmetric".to_string()), "{hints:?}");
    assert!(!hints.contains(&"ignores-suits".to_string()), "{hints:?}");
    assert!(!ids(&doc, "warnings").contains(&"dead-end".to_string()));
    assert_eq!(
        doc["rule"],
        "card.suit == last.suit or card.rank == last.rank"
    );
}

#[test]
fn higher_than_the_last_blocks_after_a_king_with_an_example() {
    // 001's forbidden rule.
    let doc = json("card.rank > last.rank", &[]);
    let example = &doc["dead_ends"]["examples"][0];
    let last = example
        .as_array()
        .and_then(|line| line.last())
        .and_then(Value::as_str)
        .expect("an example line");
    assert!(last.starts_with('K'), "{example}");
    assert!(ids(&doc, "warnings").contains(&"dead-end".to_string()));
    let out = text("card.rank > last.rank", &[]);
    assert!(
        out.contains("no card is acceptable after:\n  KS\n"),
        "{out}"
    );
    assert!(out.contains("accepts nearly nothing"), "{out}");
}

#[test]
fn false_accepts_nothing() {
    let doc = json("false", &[]);
    assert_eq!(doc["acceptance"]["mean"], 0.0);
    assert_eq!(doc["starters"], serde_json::json!([]));
    let warnings = ids(&doc, "warnings");
    assert!(warnings.contains(&"no-starter".to_string()), "{warnings:?}");
    assert!(
        warnings.contains(&"accepts-nearly-nothing".to_string()),
        "{warnings:?}"
    );
    let out = text("false", &[]);
    assert!(out.contains("starters: none"), "{out}");
}

#[test]
fn reading_main_minus_three_warns_and_says_hints_are_sampled() {
    let out = text(
        "if (main[-1].rank + main[-2].rank + main[-3].rank) % 2 == 0 then red else black",
        &["--samples", "300", "--walks", "50"],
    );
    assert!(
        out.contains("reads main[-3], which does not exist until"),
        "{out}"
    );
    assert!(out.contains("method: sampled"), "{out}");
    assert!(out.contains("checked on 300 sampled lines"), "{out}");
    assert!(!out.contains("proven"), "{out}");
    assert!(out.contains("sampled: 50 random walks"), "{out}");
}

#[test]
fn sideline_rules_are_flagged_advanced() {
    let doc = json("len(side) < 2 or card.rank > 10", &["--trials", "200"]);
    assert!(ids(&doc, "warnings").contains(&"advanced".to_string()));
    assert_eq!(doc["reads"]["reads_side"], true);
}

#[test]
fn the_seed_makes_the_report_reproducible() {
    let file = rule_file("if last.black then card.rank >= last.rank else card.rank <= last.rank");
    let path = file.path().to_str().expect("utf-8 path");
    let with_seed = |seed: &str| {
        let out = run(&[path, "--json", "--seed", seed, "--trials", "300"]);
        assert!(out.status.success());
        serde_json::from_slice::<Value>(&out.stdout).expect("json")
    };
    let (a, b, c) = (with_seed("7"), with_seed("7"), with_seed("8"));
    assert_eq!(a, b);
    assert_ne!(a["acceptance"], c["acceptance"]);
    assert_eq!(a["acceptance"]["trials"], 300);
    assert_eq!(a["acceptance"]["seed"], 7);
}

#[test]
fn a_bad_rule_is_reported_with_its_place() {
    let file = rule_file("if last.odd then black else");
    let out = run(&[file.path().to_str().expect("utf-8 path")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 1, column"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_rule_file_starting_with_a_byte_order_mark_is_checked_as_its_rule() {
    let doc = json("\u{feff}red\r\n", &[]);
    assert_eq!(doc["rule"].as_str().map(str::trim), Some("red"), "{doc}");
}

#[test]
fn a_missing_file_and_bad_options_are_errors() {
    let out = run(&["/nonexistent/rule.txt"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/rule.txt"), "{err}");
    let file = rule_file("red");
    let path = file.path().to_str().expect("utf-8 path");
    let out = run(&[path, "--trials", "0"]);
    assert!(!out.status.success());
    let out = run(&[path, "--seed", "minus one"]);
    assert!(!out.status.success());
}

#[test]
fn the_same_card_again_runs_out_of_copies() {
    let doc = json("card == last", &["--trials", "200"]);
    assert_eq!(doc["dead_ends"]["found"], 0);
    let line = doc["dead_ends"]["deck_runs_out"][0]
        .as_array()
        .expect("an example line");
    assert_eq!(line.len(), 2);
    assert_eq!(line[0], line[1]);
    assert!(ids(&doc, "warnings").contains(&"deck-runs-out".to_string()));
}

#[test]
fn the_rule_can_come_from_standard_input() {
    use std::process::Stdio;
    let check = |input: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
            .args(["rule", "check", "-", "--json", "--trials", "100"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run eleusis");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write rule");
        child.wait_with_output().expect("wait")
    };
    let out = check(b"card.prime != last.prime");
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["file"], "-");
    assert_eq!(doc["rule"], "card.prime != last.prime");
    let out = check(b"card.prime != ");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("standard input: line 1"), "{err}");
    let out = check(b"\xff red");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
    // As `rule judge` says them: where the bad byte is, and the line with a caret.
    let out = check(b"red or\n  bl\xffack");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("standard input: line 2, column 5: not UTF-8 text (byte 12)"),
        "{err}"
    );
    let out = check(b"red or\n  blak");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "standard input: line 2, column 3: unknown name 'blak' (did you mean 'black'?"
        ) && err.contains("\n    blak\n    ^"),
        "{err}"
    );
}
