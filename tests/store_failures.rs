//! Storage failures give a clear error and leave the database as it was: a full
//! disk (simulated with `max_page_count`), a read-only file, a read-only directory,
//! and a database locked by another connection.

mod store_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use eleusis::store::history::standard_referee;
use eleusis::store::log::ChainStatus;
use eleusis::store::recorder::{Recorder, Reply};
use eleusis::store::{GameId, Store, StoreError};
use serde_json::Value;
use store_support::{acked, eleusis, export_log, legal_burst, record, replay};

fn numbered(lines: &[String], from: usize) -> Vec<(usize, String)> {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| (from + i + 1, l.clone()))
        .collect()
}

/// The database is sound: SQLite's own check passes and the chain holds over
/// exactly `events` events.
fn assert_sound(db: &Path, events: usize) {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check");
    assert_eq!(check, "ok");
    drop(conn);
    let store = Store::open_read_only(db).expect("reopen");
    match store.verify_game(GameId(1), None).expect("verify") {
        ChainStatus::Intact { events: n, .. } => assert_eq!(n, events),
        broken => panic!("{broken:?}"),
    }
}

#[test]
fn a_full_disk_rolls_back_the_batch_and_recording_can_go_on() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("full.db");
    let lines = legal_burst(400, 11);
    let store = Store::open(&db).expect("open");
    let mut recorder = Recorder::new_game(&store, standard_referee());
    let replies = recorder
        .record_batch(&numbered(&lines[..20], 0))
        .expect("first batch");
    assert!(replies.iter().all(|r| matches!(r, Reply::Stored(_))));

    let pages = store.page_count().expect("pages");
    store.cap_pages(pages).expect("cap");
    let err = recorder
        .record_batch(&numbered(&lines[20..], 20))
        .expect_err("the disk is full");
    assert!(matches!(err, StoreError::Full { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("disk full") && message.contains("rolled back"),
        "{message}"
    );
    assert_sound(&db, 20);

    // Space comes back: the recorder resumes exactly where the store is.
    store.cap_pages(1 << 30).expect("uncap");
    let replies = recorder
        .record_batch(&numbered(&lines[20..], 20))
        .expect("rest");
    assert!(replies.iter().all(|r| matches!(r, Reply::Stored(_))));
    drop(recorder);
    drop(store);
    assert_sound(&db, lines.len());
    assert_eq!(replay(&export_log(&db, "1")), replay(&lines));
}

#[test]
fn a_read_only_file_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("ro.db");
    let lines = legal_burst(30, 5);
    let (replies, _) = record(&db, &lines[..10], &[]);
    assert_eq!(acked(&replies).len(), 10);
    let before = std::fs::read(&db).expect("bytes");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).expect("chmod");

    let (replies, output) = record(&db, &lines[10..], &["--game", "1"]);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod back");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("read-only") && stderr.contains("ro.db"),
        "{stderr}"
    );
    assert!(replies.is_empty(), "nothing acknowledged");
    assert_eq!(std::fs::read(&db).expect("bytes"), before, "file unchanged");
    assert_sound(&db, 10);
}

#[test]
fn a_read_only_archive_can_still_be_audited_and_exported() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("archive.db");
    let lines = legal_burst(30, 6);
    record(&db, &lines, &[]);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let audit = eleusis(&["audit", "1", "--db", db.to_str().expect("p")], "");
    let exported = export_log(&db, "1");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod back");
    assert!(
        audit.status.success(),
        "{}",
        String::from_utf8_lossy(&audit.stderr)
    );
    assert_eq!(exported.len(), lines.len());
}

/// An empty file given as `--db` (a wrong path, a file made by `touch`) is
/// no old database to migrate: the audit and the export say it holds nothing,
/// and leave it as it was.
#[test]
fn an_empty_file_is_said_to_hold_nothing_not_to_need_a_migration() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("empty.db");
    std::fs::write(&db, b"").expect("empty file");
    let Err(err) = Store::open_read_only(&db) else {
        panic!("an empty file was opened as a database")
    };
    assert!(matches!(err, StoreError::Empty { .. }), "{err}");
    let path = db.to_str().expect("path");
    for args in [
        vec!["audit", "1", "--db", path],
        vec!["export", "--log", "1", "--db", path],
    ] {
        let out = eleusis(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("holds nothing"), "{args:?}: {said}");
        assert!(!said.contains("migrate"), "{args:?}: {said}");
    }
    assert_eq!(std::fs::metadata(&db).expect("file").len(), 0);
    assert_eq!(names_in(dir.path()), ["empty.db"]);
}

/// A `cp` of the database file alone, taken while a writer (the service) holds
/// it, misses the write-ahead log that holds every change: such a copy holds
/// nothing, and the message says that this is what it looks like, and what makes
/// a whole copy.
#[test]
fn a_copy_taken_without_its_wal_says_how_to_take_a_whole_one() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("live.db");
    let store = Store::open(&db).expect("open");
    let mut recorder = Recorder::new_game(&store, standard_referee());
    let lines = numbered(
        &[
            r#"{"event":"round","god":"G","players":["Ana","Bo"],"rule":"red","starter":"3H"}"#
                .to_string(),
            r#"{"event":"play","cards":["5D"]}"#.to_string(),
        ],
        0,
    );
    let replies = recorder.record_batch(&lines).expect("record");
    assert!(replies.iter().all(|r| matches!(r, Reply::Stored(_))));
    let copy = dir.path().join("cp.db");
    std::fs::copy(&db, &copy).expect("cp");
    let out = eleusis(&["audit", "1", "--db", copy.to_str().expect("path")], "");
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("holds nothing"), "{said}");
    assert!(
        said.contains("taken without its -wal file") && said.contains("`eleusis backup OUT`"),
        "{said}"
    );
    drop(recorder);
    drop(store);
}

#[test]
fn a_database_in_a_missing_folder_names_the_folder() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("no-such-folder").join("club.db");
    let Err(err) = Store::open(&db) else {
        panic!("a database in a missing folder was opened")
    };
    assert!(matches!(err, StoreError::NoFolder { .. }), "{err}");
    assert!(
        err.to_string().contains("no-such-folder does not exist"),
        "{err}"
    );
    assert!(!dir.path().join("no-such-folder").exists());
}

#[test]
fn a_busy_address_is_refused_without_creating_files() {
    let dir = tempfile::tempdir().expect("dir");
    let busy = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = busy.local_addr().expect("addr").to_string();
    let db = dir.path().join("club.db");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["serve", "--no-recognizer", "--addr", &addr, "--db"])
        .arg(&db)
        .output()
        .expect("run serve");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot listen on"), "{stderr}");
    let created: Vec<_> = std::fs::read_dir(dir.path()).expect("ls").collect();
    assert!(
        created.is_empty(),
        "no database, no frames folder: {created:?}"
    );
}

#[test]
fn a_read_only_directory_is_refused_without_creating_files() {
    let dir = tempfile::tempdir().expect("dir");
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).expect("mkdir");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let db = locked.join("new.db");
    let lines = legal_burst(3, 1);
    let (replies, output) = record(&db, &lines, &[]);
    let created: Vec<_> = std::fs::read_dir(&locked).expect("ls").collect();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod back");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("read-only") && stderr.contains("directory"),
        "{stderr}"
    );
    assert!(replies.is_empty());
    assert!(created.is_empty(), "no file was created");
}

#[test]
fn a_locked_database_is_reported_and_nothing_is_half_written() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("busy.db");
    let lines = legal_burst(40, 9);
    let (replies, _) = record(&db, &lines[..15], &[]);
    assert_eq!(acked(&replies).len(), 15);

    let holder = rusqlite::Connection::open(&db).expect("raw");
    holder
        .execute_batch("BEGIN EXCLUSIVE; INSERT INTO games (created_ms) VALUES (0);")
        .expect("hold the write lock");
    let (replies, output) = record(
        &db,
        &lines[15..],
        &["--game", "1", "--busy-timeout-ms", "200"],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("locked by another connection"), "{stderr}");
    assert!(!replies.is_empty() && replies.iter().all(|r| r["ok"] == Value::Bool(false)));
    assert!(replies[0]["error"]
        .as_str()
        .expect("e")
        .contains("not stored"));
    holder.execute_batch("ROLLBACK").expect("release");
    drop(holder);
    assert_sound(&db, 15);

    // Once the other writer is gone, recording continues.
    let (replies, output) = record(&db, &lines[15..], &["--game", "1"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(acked(&replies).len(), lines.len() - 15);
    assert_sound(&db, lines.len());
}

/// The events stored for game 1 in `db` (opened afresh, after every writer closed).
fn stored_events(db: &Path) -> usize {
    Store::open_read_only(db)
        .expect("reopen")
        .events(GameId(1))
        .expect("events")
        .len()
}

/// A store with ten lines of game 1 recorded, kept open like a running `eleusis
/// serve`; `then` changes the file under it (returning where the opened file went,
/// if it still exists), and the next batch must be refused with `what` in its
/// message while nothing more goes into the opened file.
fn writer_under_change(
    db: &Path,
    then: impl FnOnce(&Path) -> Option<std::path::PathBuf>,
    what: &str,
) {
    let lines = legal_burst(20, 21);
    let store = Store::open(db).expect("open");
    let mut recorder = Recorder::new_game(&store, standard_referee());
    let replies = recorder
        .record_batch(&numbered(&lines[..10], 0))
        .expect("first batch");
    assert!(replies.iter().all(|r| matches!(r, Reply::Stored(_))));
    let before = store.events(GameId(1)).expect("events").len();

    let moved = then(db);
    let err = recorder
        .record_batch(&numbered(&lines[10..], 10))
        .expect_err("the write is refused");
    assert!(matches!(err, StoreError::Detached { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains(what)
            && message.contains(db.to_str().expect("path"))
            && message.contains("nothing was written")
            && message.contains("restart"),
        "{message}"
    );
    // Every later write is refused the same way: nothing slips through.
    let err = store.write(|s| s.new_game()).expect_err("still refused");
    assert!(matches!(err, StoreError::Detached { .. }), "{err}");
    drop(recorder);
    drop(store);
    if let Some(moved) = moved {
        assert_eq!(
            stored_events(&moved),
            before,
            "nothing went into the old file"
        );
        assert_sound(&moved, before);
    }
}

#[test]
fn a_database_moved_away_under_a_writer_takes_no_more_writes() {
    let dir = tempfile::tempdir().expect("dir");
    writer_under_change(
        &dir.path().join("moved.db"),
        |db| {
            let old = db.parent().expect("dir").join("old");
            std::fs::create_dir(&old).expect("mkdir");
            for suffix in ["", "-wal", "-shm"] {
                let from = std::path::PathBuf::from(format!("{}{suffix}", db.display()));
                let to = old.join(format!("moved.db{suffix}"));
                std::fs::rename(from, to).expect("mv");
            }
            Some(old.join("moved.db"))
        },
        "was moved or deleted while open",
    );
}

#[test]
fn a_database_deleted_under_a_writer_takes_no_more_writes() {
    let dir = tempfile::tempdir().expect("dir");
    writer_under_change(
        &dir.path().join("deleted.db"),
        |db| {
            for suffix in ["", "-wal", "-shm"] {
                std::fs::remove_file(format!("{}{suffix}", db.display())).expect("rm");
            }
            None
        },
        "was moved or deleted while open",
    );
}

#[test]
fn a_database_replaced_under_a_writer_takes_no_more_writes() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("replaced.db");
    let newcomer = legal_burst(3, 2);
    writer_under_change(
        &db,
        |db| {
            // `mv replaced.db* old/`, then another `eleusis record` creates a new
            // database at the same path.
            let old = db.parent().expect("dir").join("old");
            std::fs::create_dir(&old).expect("mkdir");
            for suffix in ["", "-wal", "-shm"] {
                let from = std::path::PathBuf::from(format!("{}{suffix}", db.display()));
                std::fs::rename(from, old.join(format!("replaced.db{suffix}"))).expect("mv");
            }
            let (replies, output) = record(db, &newcomer, &[]);
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert_eq!(acked(&replies).len(), newcomer.len());
            Some(old.join("replaced.db"))
        },
        "was replaced by another file while open",
    );
    // The new file holds its own writer's lines and nothing of the old writer's.
    assert_sound(&db, newcomer.len());
}

#[test]
fn a_database_made_read_only_under_a_writer_takes_no_more_writes() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("protected.db");
    let lines = legal_burst(20, 22);
    let store = Store::open(&db).expect("open");
    let mut recorder = Recorder::new_game(&store, standard_referee());
    recorder
        .record_batch(&numbered(&lines[..10], 0))
        .expect("first batch");
    let before = store.events(GameId(1)).expect("events").len();

    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let refused = recorder.record_batch(&numbered(&lines[10..], 10));
    let after = store.events(GameId(1)).expect("events").len();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod back");
    let err = refused.expect_err("refused");
    assert!(matches!(err, StoreError::Detached { .. }), "{err}");
    assert!(
        err.to_string().contains("was made read-only while open"),
        "{err}"
    );
    assert_eq!(after, before, "nothing was written");

    // Writable again: the same writer goes on where the store is.
    let replies = recorder
        .record_batch(&numbered(&lines[10..], 10))
        .expect("writable again");
    assert!(replies.iter().all(|r| matches!(r, Reply::Stored(_))));
    drop(recorder);
    drop(store);
    assert_sound(&db, lines.len());
}

#[test]
fn record_answers_every_line_not_stored_once_its_database_is_moved() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("live.db");
    let lines = legal_burst(10, 23);
    let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(["record", "--db", db.to_str().expect("path")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start record");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut ack = String::new();
    for line in &lines[..5] {
        writeln!(stdin, "{line}").expect("send");
        ack.clear();
        reader.read_line(&mut ack).expect("ack");
        let reply: Value = serde_json::from_str(&ack).expect("ack JSON");
        assert_eq!(reply["ok"], Value::Bool(true), "{reply}");
    }
    // `mv live.db* old/` while the recorder runs.
    let old = dir.path().join("old");
    std::fs::create_dir(&old).expect("mkdir");
    for suffix in ["", "-wal", "-shm"] {
        let from = std::path::PathBuf::from(format!("{}{suffix}", db.display()));
        std::fs::rename(from, old.join(format!("live.db{suffix}"))).expect("mv");
    }
    writeln!(stdin, "{}", lines[5]).expect("send");
    ack.clear();
    reader.read_line(&mut ack).expect("reply");
    drop(stdin);
    let output = child.wait_with_output().expect("wait");
    let reply: Value = serde_json::from_str(&ack).expect("reply JSON");
    assert_eq!(reply["ok"], Value::Bool(false), "{reply}");
    let error = reply["error"].as_str().expect("error");
    assert!(
        error.starts_with("line 6: not stored: ") && error.contains("was moved or deleted"),
        "{error}"
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("was moved or deleted"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stored_events(&old.join("live.db")),
        5,
        "the moved file holds the acknowledged lines only"
    );
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_archive_in_a_write_protected_folder_is_audited_without_side_files() {
    let dir = tempfile::tempdir().expect("dir");
    let folder = dir.path().join("archive ?#%");
    std::fs::create_dir(&folder).expect("mkdir");
    let db = folder.join("closed.db");
    let lines = legal_burst(30, 24);
    let (replies, _) = record(&db, &lines, &[]);
    assert_eq!(acked(&replies).len(), lines.len());
    assert_eq!(
        names_in(&folder),
        ["closed.db"],
        "the writer closed cleanly"
    );

    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let audit = eleusis(&["audit", "1", "--db", db.to_str().expect("p")], "");
    let exported = eleusis(
        &[
            "export",
            "1",
            "--log",
            "--god",
            "--db",
            db.to_str().expect("p"),
        ],
        "",
    );
    let left = names_in(&folder);
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).expect("chmod back");
    assert!(
        audit.status.success(),
        "{}",
        String::from_utf8_lossy(&audit.stderr)
    );
    assert!(
        String::from_utf8_lossy(&audit.stdout).contains("chain: OK"),
        "{}",
        String::from_utf8_lossy(&audit.stdout)
    );
    assert!(exported.status.success());
    assert_eq!(
        String::from_utf8_lossy(&exported.stdout).lines().count(),
        lines.len()
    );
    assert_eq!(
        left,
        ["closed.db"],
        "no -wal or -shm left in the protected folder"
    );
}

#[test]
fn auditing_a_closed_database_in_a_writable_folder_leaves_no_side_files() {
    let dir = tempfile::tempdir().expect("dir");
    let folder = dir.path().join("club");
    std::fs::create_dir(&folder).expect("mkdir");
    let db = folder.join("club.db");
    let lines = legal_burst(30, 26);
    let (replies, _) = record(&db, &lines, &[]);
    assert_eq!(acked(&replies).len(), lines.len());
    assert_eq!(names_in(&folder), ["club.db"], "the writer closed cleanly");
    let before = std::fs::read(&db).expect("bytes");

    let audit = eleusis(&["audit", "1", "--db", db.to_str().expect("p")], "");
    assert!(
        audit.status.success(),
        "{}",
        String::from_utf8_lossy(&audit.stderr)
    );
    assert!(String::from_utf8_lossy(&audit.stdout).contains("chain: OK"));
    assert_eq!(export_log(&db, "1").len(), lines.len());
    assert_eq!(
        names_in(&folder),
        ["club.db"],
        "no empty -wal or -shm left beside the file"
    );
    assert_eq!(std::fs::read(&db).expect("bytes"), before, "file unchanged");
}

#[test]
fn a_reader_beside_a_live_writer_leaves_the_writers_files_alone() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("live.db");
    let lines = legal_burst(20, 27);
    let store = Store::open(&db).expect("open");
    let mut recorder = Recorder::new_game(&store, standard_referee());
    recorder
        .record_batch(&numbered(&lines[..10], 0))
        .expect("recorded");
    let audit = eleusis(&["audit", "1", "--db", db.to_str().expect("p")], "");
    assert!(
        audit.status.success(),
        "{}",
        String::from_utf8_lossy(&audit.stderr)
    );
    // The writer goes on with its own -wal and -shm.
    recorder
        .record_batch(&numbered(&lines[10..], 10))
        .expect("recorded after the audit");
    drop(recorder);
    drop(store);
    assert_sound(&db, lines.len());
}

#[test]
fn a_crashed_writers_log_is_still_read_from_a_write_protected_folder() {
    let dir = tempfile::tempdir().expect("dir");
    let folder = dir.path().join("crashed");
    std::fs::create_dir(&folder).expect("mkdir");
    let db = folder.join("crashed.db");
    let lines = legal_burst(20, 25);
    let store = Store::open(&db).expect("open");
    let mut recorder = Recorder::new_game(&store, standard_referee());
    recorder
        .record_batch(&numbered(&lines, 0))
        .expect("recorded");
    drop(recorder);
    // Never closed, as if killed: the lines are committed in the -wal only.
    std::mem::forget(store);
    let wal = folder.join("crashed.db-wal");
    assert!(std::fs::metadata(&wal).expect("wal").len() > 0);

    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let audit = eleusis(&["audit", "1", "--db", db.to_str().expect("p")], "");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).expect("chmod back");
    // Read past the file into the -wal (an immutable open would see no game).
    assert!(
        audit.status.success(),
        "{}",
        String::from_utf8_lossy(&audit.stderr)
    );
    let report = String::from_utf8_lossy(&audit.stdout);
    assert!(
        report.contains(&format!("chain: OK ({} events", lines.len())),
        "{report}"
    );
}

/// SQLite counts its lock wait in a C `int` of milliseconds; a longer wait given
/// to the store is held as the longest it can take, where rusqlite would panic.
#[test]
fn a_lock_wait_longer_than_sqlite_takes_is_capped_not_a_panic() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("long.db");
    for wait in [
        std::time::Duration::from_millis(eleusis::store::MAX_BUSY_TIMEOUT_MS + 1),
        std::time::Duration::from_millis(u64::MAX),
        std::time::Duration::MAX,
    ] {
        let store = Store::open_with(&db, wait).expect("opened");
        drop(store);
    }
}
