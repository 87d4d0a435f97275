//! `eleusis demo` as a club runs it: a real process on a free port plays a whole
//! round into its own database; the public API shows the round fill up and end,
//! and the exported table log replays to the state the tablet shows.

mod web_support;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use web_support::request;

/// Kills the demo when the test ends, whatever happens.
struct Demo(Child);

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `eleusis demo` on `db` with `seed`, every event at once, on any free port.
fn demo_on(db: &std::path::Path, seed: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_eleusis"));
    command
        .args([
            "demo",
            "--pace-ms",
            "0",
            "--addr",
            "127.0.0.1:0",
            "--seed",
            seed,
        ])
        .arg("--db")
        .arg(db);
    command
}

fn get(addr: SocketAddr, path: &str) -> (u16, Vec<u8>) {
    let resp = request(addr, "GET", path, &[], b"");
    (resp.status, resp.body)
}

#[test]
fn the_demo_plays_a_whole_round_into_the_live_service() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("demo.db");
    let child = demo_on(&db, "11")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start eleusis demo");
    let mut demo = Demo(child);
    let stdout = demo.0.stdout.take().expect("stdout");
    let (lines_tx, lines) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    // The URLs come first: the tablet's gives the address.
    let mut printed = Vec::new();
    let addr: SocketAddr = loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("no tablet URL printed ({e}): {printed:?}"));
        printed.push(line.clone());
        if let Some(url) = line.trim().strip_prefix("tablet:") {
            let host = url
                .trim()
                .trim_start_matches("http://")
                .trim_end_matches('/');
            break host.parse().expect("tablet URL address");
        }
    };
    assert!(
        printed
            .iter()
            .any(|l| l.contains("database") && l.contains("demo.db")),
        "{printed:?}"
    );
    // The God console and audit URLs follow.
    for want in ["God console:", "audit:"] {
        let line = lines.recv_timeout(Duration::from_secs(10)).expect(want);
        assert!(line.contains(want), "{line}");
        if want == "God console:" {
            assert!(line.contains("/god?token="), "{line}");
        }
    }

    // Wait until the round has ended (a guard against a hang, not a timing check).
    let deadline = Instant::now() + Duration::from_secs(180);
    let view = loop {
        let (status, body) = get(addr, "/api/state");
        assert_eq!(status, 200);
        let view: Value = serde_json::from_slice(&body).expect("state JSON");
        if view["state"]["ended"] == Value::Bool(true) {
            break view;
        }
        assert!(
            Instant::now() < deadline,
            "the demo round did not end: {view}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };

    let state = &view["state"];
    assert_eq!(view["god_view"], false);
    assert_eq!(state["variant"], "new-eleusis");
    assert_eq!(
        state["players"],
        serde_json::json!(["Alain", "François", "Jacques", "Philippe"])
    );
    assert_eq!(state["turn"], Value::Null);
    let scores = state["scores"].as_object().expect("scores");
    assert_eq!(scores.len(), 5, "{scores:?}");
    assert!(state["laid"].as_u64().unwrap_or(0) > 10, "{state}");
    // The round's end reveals the sealed rule, and it matches the commitment.
    assert_eq!(view["revealed"], true);
    let reveal = &view["seal"]["revealed"];
    assert_eq!(
        reveal["rule"],
        "if last.black then card.rank >= 7 else card.rank <= 6"
    );
    assert_eq!(reveal["verified"], true);
    // Right and wrong plays were recorded, each with the referee's verdict.
    let plays = view["plays"].as_array().expect("plays");
    let verdicts: Vec<&Value> = plays
        .iter()
        .filter(|p| p["event"] == "play")
        .map(|p| &p["right"])
        .collect();
    assert!(verdicts.contains(&&Value::Bool(true)), "{verdicts:?}");
    assert!(verdicts.contains(&&Value::Bool(false)), "{verdicts:?}");

    // What was stored replays, from the exported table log, to what the tablet shows.
    let round = view["round"].as_str().expect("round id");
    let (status, log) = get(addr, &format!("/api/export/{round}/log"));
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&log));
    let text = String::from_utf8(log).expect("UTF-8 log");
    let replayed = eleusis::referee::replay_state(text.lines()).expect("the log replays");
    let replayed = serde_json::to_value(&replayed).expect("state JSON");
    for field in ["main", "sidelines", "hands", "scores", "laid", "end_reason"] {
        assert_eq!(replayed[field], state[field], "{field}");
    }

    // The events were printed as they were recorded, then the end.
    let rest: Vec<String> = std::iter::from_fn(|| lines.recv_timeout(Duration::from_secs(10)).ok())
        .take_while(|l| !l.starts_with("eleusis demo: all events played"))
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|seq| seq.parse::<u64>().is_ok())
        })
        .collect();
    assert!(rest.iter().any(|l| l.contains("→ wrong")), "{rest:?}");
    // This round has a Prophet (François, from event 17): his calls are printed.
    assert!(
        rest.iter()
            .any(|l| l.contains("Jacques plays 8D, the Prophet says wrong → wrong")),
        "{rest:?}"
    );
    assert_eq!(
        rest.len(),
        plays.len(),
        "one printed line per recorded event"
    );
}

/// `eleusis demo | head -3`: once its reader goes away the demo stops as Ctrl-C
/// stops it, removing its temporary database, instead of serving on with its
/// events no longer fed (a panic on the closed pipe).
#[test]
fn a_demo_whose_reader_goes_away_stops_and_cleans_up() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["demo", "--addr", "127.0.0.1:0", "--pace-ms", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn eleusis demo");
    let stdout = child.stdout.take().expect("stdout");
    let first = BufReader::new(stdout)
        .lines()
        .next()
        .expect("a first line")
        .expect("text");
    // The reader is dropped here, as `head -1` exits.
    let db = first
        .split("database ")
        .nth(1)
        .map(std::path::PathBuf::from)
        .expect("the database is named");
    assert!(db.exists(), "{first}");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the demo did not stop once its reader went away");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut err, &mut stderr);
    }
    assert!(status.success(), "{status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!db.exists(), "the temporary database is removed");
}

/// On a database whose latest game has not ended the demo cannot open its game:
/// it says so and stops (exit 2), rather than serve someone else's round after a
/// refused first event.
#[test]
fn a_demo_on_a_database_with_a_game_in_play_says_so_and_stops() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("club.db");
    let mut record = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["record", "--db"])
        .arg(&db)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("record");
    {
        use std::io::Write as _;
        let mut stdin = record.stdin.take().expect("stdin");
        stdin
            .write_all(
                br#"{"event":"round","god":"G","players":["A","B"],"rule":"red","starter":"2H"}
"#,
            )
            .expect("line");
    }
    assert!(record.wait().expect("recorded").success());
    let child = demo_on(&db, "3")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start eleusis demo");
    let mut demo = Demo(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = demo.0.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "the demo did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(2));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut demo.0.stderr.take().expect("stderr"), &mut stderr)
        .expect("stderr");
    assert!(
        stderr.contains(
            "its game 1 has not ended, and the demo opens a new game only once the latest one has"
        ),
        "{stderr}"
    );
}
