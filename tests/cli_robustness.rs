//! The commands facing what a shell or a careless hand gives them: a lock wait
//! SQLite cannot hold, named pipes where files are expected, a standard output
//! closed or gone, a damaged database, a line cut short, a second service on the
//! same database. Each is refused with a clear word, or stops quietly where the
//! README says so; none hangs, panics or reports success for lost output.

#![cfg(unix)]

mod store_support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use store_support::{eleusis, record};

const ROUND: &str = r#"{"event":"round","variant":"basic","god":"G","players":["A","B"],"rule":"true","starter":"3H"}"#;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_eleusis")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A child process killed when dropped, so that a test that fails while it runs
/// (a hang caught by a guard) leaves nothing running.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits for `child` to exit; a guard against a hang, not a timing check.
fn finished(mut child: Running, what: &str) -> Output {
    let started = Instant::now();
    while child.0.try_wait().expect("wait").is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what}: still running (blocked?)"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let Running(inner) = &mut child;
    let mut out = Output {
        status: inner.wait().expect("status"),
        stdout: Vec::new(),
        stderr: Vec::new(),
    };
    if let Some(mut s) = inner.stdout.take() {
        std::io::Read::read_to_end(&mut s, &mut out.stdout).expect("stdout");
    }
    if let Some(mut s) = inner.stderr.take() {
        std::io::Read::read_to_end(&mut s, &mut out.stderr).expect("stderr");
    }
    out
}

/// A database holding one round, with one play.
fn small_db(dir: &Path) -> PathBuf {
    let db = dir.join("club.db");
    let lines = vec![
        ROUND.to_string(),
        r#"{"event":"play","cards":["4H"]}"#.to_string(),
    ];
    let (replies, out) = record(&db, &lines, &[]);
    assert!(out.status.success(), "{replies:?} {}", stderr(&out));
    db
}

#[test]
fn a_lock_wait_sqlite_cannot_hold_is_refused_when_given() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("x.db");
    let db = db.to_str().expect("path");
    for value in [
        "2147483648",
        "4294967296",
        "18446744073709551615",
        "18446744073709551616",
    ] {
        let out = eleusis(&["record", "--db", db, "--busy-timeout-ms", value], "");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{value}: {err}");
        assert!(err.contains("at most 2147483647"), "{value}: {err}");
        assert!(!err.contains("panicked"), "{value}: {err}");
        assert!(!Path::new(db).exists(), "{value}: nothing is created");
    }
    let out = eleusis(&["record", "--db", db, "--busy-timeout-ms", "ten"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a number of milliseconds"));
    // The limit itself is taken.
    let out = eleusis(
        &["record", "--db", db, "--busy-timeout-ms", "2147483647"],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A frame that is a named pipe would block its read until a writer came; read
/// inside the write transaction, it held the database locked meanwhile, and the
/// live service beside it failed every write. It is refused for its line, and
/// while `record` waits for more input the database is free.
#[test]
fn an_evidence_frame_that_is_a_pipe_is_refused_and_never_holds_the_lock() {
    let dir = tempfile::tempdir().expect("dir");
    let frames = dir.path().join("rc");
    std::fs::create_dir(&frames).expect("frames");
    mkfifo(&frames.join("fifo"));
    std::fs::create_dir(frames.join("folder")).expect("folder");
    let db = dir.path().join("g.db");
    let child = Command::new(bin())
        .args(["record", "--db"])
        .arg(&db)
        .arg("--frames")
        .arg(&frames)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("record runs");
    let mut child = Running(child);
    let mut input = child.0.stdin.take().expect("stdin");
    let stdout = child.0.stdout.take().expect("stdout");
    let (tx, replies) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let reply = serde_json::from_str(&line).expect("JSON reply");
            if tx.send(reply).is_err() {
                break;
            }
        }
    });
    let fifo = r#"{"event":"play","cards":["4H"],"evidence":{"frame":"fifo"}}"#;
    let folder = r#"{"event":"play","cards":["4H"],"evidence":{"frame":"folder"}}"#;
    writeln!(input, "{ROUND}\n{fifo}\n{folder}").expect("write");
    input.flush().expect("flush");
    let mut got = Vec::new();
    while got.len() < 3 {
        got.push(
            replies
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("no reply ({e}): blocked on the pipe? {got:?}")),
        );
    }
    assert_eq!(got[0]["ok"], true, "{got:?}");
    for (reply, kind) in got[1..].iter().zip(["a named pipe (FIFO)", "a directory"]) {
        assert_eq!(reply["ok"], false, "{reply}");
        let error = reply["error"].as_str().expect("error");
        assert!(error.contains(kind), "{error}");
        assert!(error.contains("not a regular file"), "{error}");
    }
    // `record` still runs, waiting for input: another writer gets the lock.
    let other = rusqlite::Connection::open(&db).expect("open");
    other
        .execute_batch("BEGIN IMMEDIATE; ROLLBACK;")
        .expect("the database is not held locked");
    drop(other);
    drop(input);
    let out = finished(child, "record");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn replay_and_recognize_refuse_a_named_pipe_and_still_read_standard_input() {
    let dir = tempfile::tempdir().expect("dir");
    let fifo = dir.path().join("log.jsonl");
    mkfifo(&fifo);
    let run = |args: &[&str]| {
        let child = Command::new(bin())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        finished(Running(child), &args.join(" "))
    };
    let fifo_arg = fifo.to_str().expect("path");
    let out = run(&["replay", fifo_arg]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("named pipe") && err.contains("not a regular file"),
        "{err}"
    );
    assert!(err.contains("`-` to read standard input"), "{err}");

    // Each file named gets its line; the pipe's says why, the frame is read.
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/08-seq4-dark.jpg");
    let out = run(&[
        "recognize",
        "--json",
        "--locate-only",
        fifo_arg,
        scene.to_str().expect("path"),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["file"], fifo_arg);
    let error = lines[0]["error"].as_str().expect("error");
    assert!(error.contains("not a regular file"), "{error}");
    assert!(lines[1].get("error").is_none(), "{}", lines[1]);

    // Standard input, by `-` or by name, is read whatever it is (here a pipe).
    for name in ["-", "/dev/stdin"] {
        let out = eleusis(&["replay", name], &format!("{ROUND}\n"));
        assert!(out.status.success(), "{name}: {}", stderr(&out));
    }
}

/// Runs `eleusis ARGS` with its standard output closed (`>&-`).
fn with_stdout_closed(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" >&-")
        .arg(bin())
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("sh runs")
}

#[test]
fn a_closed_standard_output_is_an_error_not_a_silent_success() {
    let dir = tempfile::tempdir().expect("dir");
    let db = small_db(dir.path());
    let log = dir.path().join("round.jsonl");
    std::fs::write(&log, format!("{ROUND}\n")).expect("log");
    let rule = dir.path().join("secret.rule");
    std::fs::write(&rule, "red\n").expect("rule");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/08-seq4-dark.jpg");
    let (db, log, rule, scene) = (
        db.to_str().expect("path"),
        log.to_str().expect("path"),
        rule.to_str().expect("path"),
        scene.to_str().expect("path"),
    );
    let commands: Vec<Vec<&str>> = vec![
        vec!["audit", "1", "--db", db],
        vec!["audit", "1", "--json", "--db", db],
        vec!["export", "--log", "1", "--god", "--db", db],
        vec!["export", "--scores", "csv", "1", "--db", db],
        vec!["replay", log],
        vec!["replay", "--trace", log],
        vec!["rule", "check", rule],
        vec!["rule", "judge", "--rule", "red", "3H"],
        vec!["recognize", "--locate-only", scene],
        vec!["record", "--db", db, "--game", "1"],
    ];
    for args in &commands {
        let out = with_stdout_closed(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("standard output is closed") && err.contains("Bad file descriptor"),
            "{args:?}: {err}"
        );
    }
    // `/dev/null` given on purpose is no error.
    for args in &commands[..9] {
        let out = Command::new(bin())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("runs");
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
}

/// `eleusis replay LOG | head -1`: the reader gone is no error, as for `audit`.
#[test]
fn a_closed_output_ends_replay_quietly() {
    let dir = tempfile::tempdir().expect("dir");
    let log = dir.path().join("round.jsonl");
    std::fs::write(
        &log,
        format!("{ROUND}\n{}\n", r#"{"event":"play","cards":["4H"]}"#),
    )
    .expect("log");
    for args in [vec!["replay"], vec!["replay", "--trace"]] {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = Command::new(bin())
            .args(&args)
            .arg(&log)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(141), "{args:?}: {:?}", out.status);
        assert_eq!(stderr(&out), "", "{args:?}");
    }
    // `rule judge`, one verdict or a batch, ends the same way.
    for batch in [false, true] {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let mut command = Command::new(bin());
        command.args(["rule", "judge", "--rule", "red"]);
        if batch {
            command.arg("--batch");
        } else {
            command.arg("5H");
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            // The command may stop before reading it all: a refused write is fine.
            let _ = stdin.write_all(b"{\"card\":\"5H\"}\n");
        }
        let out = child.wait_with_output().expect("waits");
        assert_eq!(
            out.status.code(),
            Some(141),
            "batch {batch}: {:?}",
            out.status
        );
        assert_eq!(stderr(&out), "", "batch {batch}");
    }
}

/// A copy of `db` with every page after the first overwritten: SQLite opens it
/// (the header and schema are intact) and finds it malformed on the first read.
fn damaged_copy(db: &Path, name: &str) -> PathBuf {
    let mut bytes = std::fs::read(db).expect("read");
    assert!(bytes.len() > 8192, "a database of several pages");
    for (i, b) in bytes[4096..].iter_mut().enumerate() {
        *b = (i % 251) as u8 ^ 0xA5;
    }
    let damaged = db.with_file_name(name);
    std::fs::write(&damaged, bytes).expect("write");
    damaged
}

#[test]
fn a_damaged_database_is_refused_naming_it_once_and_leaving_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let db = small_db(dir.path());
    let damaged = damaged_copy(&db, "damaged.db");
    let not_sqlite = dir.path().join("notes.db");
    std::fs::write(&not_sqlite, vec![0x5Au8; 8192]).expect("write");

    // `serve` leaves no frames folder and no lock file for a refused database.
    let out = Command::new(bin())
        .args(["serve", "--no-recognizer", "--addr", "127.0.0.1:0", "--db"])
        .arg(&damaged)
        .output()
        .expect("serve runs");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("malformed"), "{}", stderr(&out));
    for left in ["damaged.db.frames", "damaged.db.serve.lock"] {
        assert!(!dir.path().join(left).exists(), "{left} was left behind");
    }

    // `backup` names the database given, not its (deleted) partial copy.
    let out = eleusis(
        &[
            "backup",
            dir.path().join("copy.db").to_str().expect("path"),
            "--db",
            damaged.to_str().expect("path"),
        ],
        "",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(damaged.to_str().expect("path")), "{err}");
    assert!(!err.contains("partial"), "{err}");
    assert!(err.contains("malformed"), "{err}");

    // The cause is said once, whichever way the command prints its error.
    let notes = not_sqlite.to_str().expect("path");
    for args in [
        vec!["audit", "1", "--db", notes],
        vec!["export", "--log", "1", "--db", notes],
        vec!["backup", "x.db", "--db", notes],
    ] {
        let out = eleusis(&args, "");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.matches("not a database").count(), 1, "{args:?}: {err}");
        assert!(!err.contains("Error code"), "{args:?}: {err}");
    }
}

#[test]
fn record_names_a_line_cut_short_as_replay_does() {
    let dir = tempfile::tempdir().expect("dir");
    let cut = r#"{"event":"play","cards":["8H""#;
    for end in ["\n", "\r\n", ""] {
        let text = format!("{ROUND}\n{cut}{end}");
        let db = dir.path().join(format!("cut{}.db", end.len()));
        let out = eleusis(&["record", "--db", db.to_str().expect("path")], &text);
        let replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("reply"))
            .collect();
        let recorded = replies[1]["error"].as_str().expect("error").to_string();
        let out = eleusis(&["replay", "-"], &text);
        let replayed = stderr(&out);
        assert_eq!(recorded, replayed.trim_end(), "{end:?}");
        assert!(recorded.ends_with("(column 29)"), "{recorded}");
    }
}

/// A started `eleusis serve`: its start lines, and the process (stopped when
/// dropped).
struct Serve {
    lines: Vec<String>,
    _child: Running,
}

fn serve(db: &Path) -> Serve {
    let mut child = Running(
        Command::new(bin())
            .args(["serve", "--no-recognizer", "--addr", "127.0.0.1:0", "--db"])
            .arg(db)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve runs"),
    );
    let stdout = child.0.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    // The start lines end with the recognizer's.
    while !lines.iter().any(|l: &String| l.contains("recognizer:")) {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("serve did not start ({e}): {lines:?}"));
        lines.push(line);
    }
    Serve {
        lines,
        _child: child,
    }
}

#[test]
fn a_second_service_on_one_database_is_refused_and_record_goes_on_beside_it() {
    let dir = tempfile::tempdir().expect("dir");
    let db = small_db(dir.path());
    let first = serve(&db);
    assert!(
        first.lines.iter().any(|l| l.contains("tablet:")),
        "{:?}",
        first.lines
    );

    let out = Command::new(bin())
        .args(["serve", "--no-recognizer", "--addr", "127.0.0.1:0", "--db"])
        .arg(&db)
        .output()
        .expect("second serve runs");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(db.to_str().expect("path")), "{err}");
    assert!(
        err.contains("already served by another `eleusis serve`"),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "no URL of a service that is not there"
    );

    // Recording, auditing and backing up beside the service work as before.
    let (replies, out) = record(
        &db,
        &[r#"{"event":"play","cards":["6H"]}"#.to_string()],
        &["--game", "1"],
    );
    assert!(out.status.success(), "{replies:?} {}", stderr(&out));
    let db_arg = db.to_str().expect("path");
    let out = eleusis(&["audit", "1", "--db", db_arg], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let copy = dir.path().join("copy.db");
    let out = eleusis(
        &["backup", copy.to_str().expect("path"), "--db", db_arg],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // Killed, the first service holds nothing: the next one starts.
    drop(first);
    let next = serve(&db);
    assert!(
        next.lines.iter().any(|l| l.contains("game:")),
        "{:?}",
        next.lines
    );
    assert!(
        !next.lines.iter().any(|l| l.contains("warning:")),
        "{:?}",
        next.lines
    );

    // Events altered while it was stopped: the start lines say so at once.
    drop(next);
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(
        "DROP TRIGGER events_append_only_update;
         UPDATE events SET payload = replace(payload, '\"4H\"', '\"4S\"') WHERE seq = 2;",
    )
    .expect("tamper");
    drop(conn);
    let altered = serve(&db);
    assert!(
        altered.lines.iter().any(|l| l
            .starts_with("  warning:      game 1's hash chain is broken at round 1.1 event 2")
            && l.contains("run `eleusis audit 1`")),
        "{:?}",
        altered.lines
    );

    // The events put back but an announcement edited: the chain holds, and the
    // start lines give what the audit of the continued game finds.
    drop(altered);
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(
        "UPDATE events SET payload = replace(payload, '\"4S\"', '\"4H\"') WHERE seq = 2;
         DROP TRIGGER IF EXISTS verdicts_append_only_update;
         UPDATE verdicts SET outcome = replace(outcome, '\"right\":true', '\"right\":false')
           WHERE event_id = (SELECT id FROM events WHERE seq = 2);",
    )
    .expect("edit the announcement");
    drop(conn);
    let edited = serve(&db);
    assert!(
        !edited
            .lines
            .iter()
            .any(|l| l.contains("hash chain is broken")),
        "{:?}",
        edited.lines
    );
    assert!(
        edited.lines.iter().any(|l| l.starts_with(
            "  warning:      game 1: round 1.1 event 2: the verdict recorded as announced is not what the log then decided"
        ) && l.ends_with("run `eleusis audit 1`")),
        "{:?}",
        edited.lines
    );
}
