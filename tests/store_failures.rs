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
