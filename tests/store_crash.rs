//! A real `eleusis record` process is killed with SIGKILL in the middle of a burst
//! of more than 1 000 plays; after a restart every acknowledged play is in the store
//! and the stored log replays to the same state as the lines it holds.

mod store_support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::Value;
use store_support::{acked, export_log, legal_burst, record, replay};

#[test]
fn no_acknowledged_play_is_lost_when_record_is_killed() {
    let lines = legal_burst(2_000, 7);
    let plays = lines.iter().filter(|l| l.contains("\"play\"")).count();
    assert!(plays >= 1_000, "{plays} plays");
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("crash.db");

    let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["record", "--db", db.to_str().expect("path")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start record");
    let mut stdin = child.stdin.take().expect("stdin");
    let feed = lines.clone();
    // Bursts of lines with no pause: the recorder batches what is waiting.
    let writer = std::thread::spawn(move || {
        for chunk in feed.chunks(50) {
            let mut text = chunk.join("\n");
            text.push('\n');
            if stdin.write_all(text.as_bytes()).is_err() {
                return; // killed
            }
        }
    });
    let stdout = child.stdout.take().expect("stdout");
    let mut acks: Vec<Value> = Vec::new();
    let mut reader = BufReader::new(stdout);
    // Kill after a quarter: the recorder can run ahead of our reading only by what
    // the pipe holds (a few hundred acks) plus one batch, so it is surely mid-burst.
    let kill_after = lines.len() / 4;
    let mut line = String::new();
    while acks.len() < kill_after {
        line.clear();
        let n = reader.read_line(&mut line).expect("read ack");
        assert!(n > 0, "record stopped early after {} acks", acks.len());
        let reply: Value = serde_json::from_str(&line).expect("ack JSON");
        assert_eq!(reply["ok"], Value::Bool(true), "{reply}");
        acks.push(reply);
    }
    child.kill().expect("SIGKILL"); // std's kill is SIGKILL on Unix
    let status = child.wait().expect("wait");
    assert!(!status.success(), "record was killed, not finished");
    // Acknowledgements already in the pipe were printed after their commit: they count.
    for rest in reader.lines() {
        let Ok(rest) = rest else { break };
        if let Ok(reply) = serde_json::from_str::<Value>(&rest) {
            if reply["ok"] == Value::Bool(true) {
                acks.push(reply);
            }
        }
    }
    let _ = writer.join();
    let acked_lines = acks.len();
    eprintln!(
        "{} lines sent, {acked_lines} acknowledged before the kill",
        lines.len()
    );
    assert!(acked_lines < lines.len(), "the kill came mid-burst");
    for (i, ack) in acks.iter().enumerate() {
        assert_eq!(ack["line"], Value::from(i + 1), "acks come in input order");
    }
    let game = acks[0]["game"].as_str().expect("game id").to_string();

    // Restart: everything acknowledged is there, and the stored log is exactly a
    // prefix of the input (a line committed but killed before its ack may follow).
    let stored = export_log(&db, &game);
    eprintln!("{} lines stored after the restart", stored.len());
    assert!(
        stored.len() >= acked_lines,
        "lost acknowledged lines: {} stored, {acked_lines} acknowledged",
        stored.len()
    );
    assert!(
        stored.len() - acked_lines <= 256,
        "at most one batch unacknowledged"
    );
    assert_eq!(
        replay(&stored),
        replay(&lines[..stored.len()]),
        "stored log replays to the state of the lines it holds"
    );
    if stored.len() == acked_lines {
        assert_eq!(replay(&stored), replay(&lines[..acked_lines]));
    }

    // The restarted recorder continues the same game with the remaining lines.
    let rest: Vec<String> = lines[stored.len()..].to_vec();
    let (replies, output) = record(&db, &rest, &["--game", &game]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(acked(&replies).len(), rest.len());
    let all = export_log(&db, &game);
    assert_eq!(all.len(), lines.len());
    assert_eq!(replay(&all), replay(&lines));

    // The chain holds across the kill.
    let audit = store_support::eleusis(
        &["audit", &game, "--json", "--db", db.to_str().expect("path")],
        "",
    );
    let report: Value = serde_json::from_slice(&audit.stdout).expect("audit JSON");
    assert_eq!(
        report["chain"]["ok"],
        Value::Bool(true),
        "{}",
        report["chain"]
    );
    assert_eq!(report["chain"]["events"], Value::from(lines.len()));
}
