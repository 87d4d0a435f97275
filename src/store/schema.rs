//! The schema and its migrations. `PRAGMA user_version` holds the number of
//! migrations applied; each migration runs in its own transaction together with the
//! version bump, so a crash leaves the file at one version or the next, never between.

use super::{Store, StoreError};

/// Migration `i` (0-based) brings a database from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // Version 1: games, rounds, players, the chained event log, sealed rules,
    // evidence (frames and per-card reads) and the verdicts given at record time.
    r#"
    CREATE TABLE games (
        id          INTEGER PRIMARY KEY,
        created_ms  INTEGER NOT NULL
    );
    CREATE TABLE players (
        game_id     INTEGER NOT NULL REFERENCES games(id),
        name        TEXT NOT NULL,
        PRIMARY KEY (game_id, name)
    ) WITHOUT ROWID;
    CREATE TABLE rounds (
        id          INTEGER PRIMARY KEY,
        game_id     INTEGER NOT NULL REFERENCES games(id),
        number      INTEGER NOT NULL CHECK (number > 0),
        variant     TEXT NOT NULL,
        god         TEXT NOT NULL,
        commitment  TEXT NOT NULL,
        started_ms  INTEGER NOT NULL,
        UNIQUE (game_id, number)
    );
    CREATE TABLE round_players (
        round_id    INTEGER NOT NULL REFERENCES rounds(id),
        seat        INTEGER NOT NULL,
        name        TEXT NOT NULL,
        PRIMARY KEY (round_id, seat)
    ) WITHOUT ROWID;
    CREATE TABLE seals (
        round_id    INTEGER PRIMARY KEY REFERENCES rounds(id),
        rule        TEXT NOT NULL,
        salt        TEXT NOT NULL,
        revealed_ms INTEGER
    );
    CREATE TABLE events (
        id          INTEGER PRIMARY KEY,
        round_id    INTEGER NOT NULL REFERENCES rounds(id),
        seq         INTEGER NOT NULL CHECK (seq > 0),
        recorded_ms INTEGER NOT NULL,
        kind        TEXT NOT NULL,
        payload     TEXT NOT NULL,
        prev_hash   TEXT NOT NULL,
        hash        TEXT NOT NULL,
        UNIQUE (round_id, seq)
    );
    CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only: record a correction instead'); END;
    CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only: record a correction instead'); END;
    CREATE TABLE frames (
        sha256      TEXT PRIMARY KEY,
        jpeg        BLOB NOT NULL,
        stored_ms   INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE reads (
        event_id    INTEGER NOT NULL REFERENCES events(id),
        position    INTEGER NOT NULL,
        card        TEXT NOT NULL,
        read        TEXT NOT NULL,
        confidence  REAL NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('confirmed', 'corrected')),
        frame       TEXT REFERENCES frames(sha256),
        frame_ref   TEXT,
        PRIMARY KEY (event_id, position)
    ) WITHOUT ROWID;
    CREATE TABLE verdicts (
        event_id    INTEGER PRIMARY KEY REFERENCES events(id),
        outcome     TEXT NOT NULL
    );
    "#,
    // Version 2: a card the recognizer found but read no index on (glare, a hard
    // shadow), whose card God typed, is kept among the reads: `read` may be null and
    // `status` may be 'typed'. SQLite cannot loosen a column's constraints in
    // place, so the table is copied into its new shape.
    r#"
    CREATE TABLE reads_v2 (
        event_id    INTEGER NOT NULL REFERENCES events(id),
        position    INTEGER NOT NULL,
        card        TEXT NOT NULL,
        read        TEXT,
        confidence  REAL NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('confirmed', 'corrected', 'typed')),
        frame       TEXT REFERENCES frames(sha256),
        frame_ref   TEXT,
        PRIMARY KEY (event_id, position),
        CHECK ((read IS NULL) = (status = 'typed'))
    ) WITHOUT ROWID;
    INSERT INTO reads_v2 SELECT event_id, position, card, read, confidence, status, frame, frame_ref FROM reads;
    DROP TABLE reads;
    ALTER TABLE reads_v2 RENAME TO reads;
    "#,
];

/// The oldest schema version a read-only open can read as it is: every migration
/// since only widened what may be stored, so the queries are the same. A migration
/// that renames, removes or changes the meaning of a column must raise this.
const READABLE_FROM: i64 = 1;

/// The schema version this program writes.
pub(crate) const VERSION: i64 = MIGRATIONS.len() as i64;

fn user_version(store: &Store) -> Result<i64, StoreError> {
    store
        .conn()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| store.error("reading the schema version", e))
}

/// Applies every migration the file lacks.
pub(crate) fn migrate(store: &Store) -> Result<(), StoreError> {
    let found = user_version(store)?;
    if found > VERSION {
        return Err(StoreError::TooNew {
            path: store.path().to_path_buf(),
            found,
            supported: VERSION,
        });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
        store.write(|store| {
            // Another process may have migrated between our check and our lock.
            if user_version(store)? > index as i64 {
                return Ok(());
            }
            store.conn().execute_batch(sql).map_err(|e| {
                store.error(&format!("migrating to schema version {}", index + 1), e)
            })?;
            store
                .conn()
                .pragma_update(None, "user_version", index as i64 + 1)
                .map_err(|e| store.error("recording the schema version", e))
        })?;
    }
    Ok(())
}

/// For read-only opens: the file must be a database this program can read.
pub(crate) fn check_readable(store: &Store) -> Result<(), StoreError> {
    let found = user_version(store)?;
    if found > VERSION {
        return Err(StoreError::TooNew {
            path: store.path().to_path_buf(),
            found,
            supported: VERSION,
        });
    }
    if found == 0 {
        let tables: i64 = store
            .conn()
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
            .map_err(|e| store.error("reading the schema", e))?;
        if tables == 0 {
            return Err(StoreError::Empty {
                path: store.path().to_path_buf(),
            });
        }
    }
    if found < READABLE_FROM {
        return Err(StoreError::Outdated {
            path: store.path().to_path_buf(),
            found,
            expected: READABLE_FROM,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_records_the_version() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("m.db");
        let store = Store::open(&path).expect("open");
        assert_eq!(user_version(&store).expect("v"), VERSION);
        drop(store);
        // Re-opening must not re-run the migration (it would fail on CREATE TABLE).
        let store = Store::open(&path).expect("reopen");
        assert_eq!(user_version(&store).expect("v"), VERSION);
    }

    /// A file written by a version 1 program: its reads survive the migration
    /// that lets a read be "no index read", and read-only opens read it unmigrated.
    #[test]
    fn a_version_1_file_keeps_its_reads_and_takes_cards_typed_by_god() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("v1.db");
        let seed = "INSERT INTO games VALUES (1, 0);
             INSERT INTO rounds VALUES (1, 1, 1, 'basic', 'G', 'c', 0);
             INSERT INTO events VALUES (1, 1, 1, 0, 'play', '{}', 'p', 'h');
             INSERT INTO reads VALUES (1, 0, '8H', '8D', 0.61, 'corrected', NULL, 'cam1/7');";
        {
            let conn = rusqlite::Connection::open(&path).expect("raw");
            conn.execute_batch(MIGRATIONS[0]).expect("version 1");
            conn.pragma_update(None, "user_version", 1).expect("v1");
            conn.execute_batch(seed).expect("seed");
            // Version 1 had no room for a card nobody read.
            assert!(conn
                .execute(
                    "INSERT INTO reads VALUES (1, 1, '3H', NULL, 0, 'typed', NULL, NULL)",
                    []
                )
                .is_err());
        }
        let reader = Store::open_read_only(&path).expect("read-only open of version 1");
        drop(reader);
        let store = Store::open(&path).expect("migrate");
        assert_eq!(user_version(&store).expect("v"), VERSION);
        let conn = store.conn();
        let kept: (String, String, f64, String, String) = conn
            .query_row(
                "SELECT card, read, confidence, status, frame_ref FROM reads WHERE position = 0",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .expect("kept");
        assert_eq!(
            kept,
            (
                "8H".into(),
                "8D".into(),
                0.61,
                "corrected".into(),
                "cam1/7".into()
            )
        );
        conn.execute(
            "INSERT INTO reads VALUES (1, 1, '3H', NULL, 0, 'typed', NULL, NULL)",
            [],
        )
        .expect("a typed card");
        // "typed" and "no read" go together.
        for bad in [
            "INSERT INTO reads VALUES (1, 2, '3H', '3H', 0, 'typed', NULL, NULL)",
            "INSERT INTO reads VALUES (1, 3, '3H', NULL, 0, 'confirmed', NULL, NULL)",
        ] {
            assert!(conn.execute(bad, []).is_err(), "{bad}");
        }
    }

    #[test]
    fn refuses_a_newer_schema() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("n.db");
        {
            let conn = rusqlite::Connection::open(&path).expect("raw");
            conn.pragma_update(None, "user_version", VERSION + 1)
                .expect("bump");
        }
        let err = Store::open(&path).unwrap_err();
        assert!(matches!(err, StoreError::TooNew { .. }), "{err}");
    }

    #[test]
    fn the_event_log_refuses_edits() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("a.db")).expect("open");
        let conn = store.conn();
        conn.execute_batch(
            "INSERT INTO games VALUES (1, 0);
             INSERT INTO rounds VALUES (1, 1, 1, 'basic', 'G', 'c', 0);
             INSERT INTO events VALUES (1, 1, 1, 0, 'round', '{}', 'p', 'h');",
        )
        .expect("seed");
        let err = conn
            .execute("UPDATE events SET payload = 'x'", [])
            .unwrap_err();
        assert!(err.to_string().contains("append-only"), "{err}");
        assert!(conn.execute("DELETE FROM events", []).is_err());
    }
}
