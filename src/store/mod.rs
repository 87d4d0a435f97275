//! Durable storage of what happened at the table, on SQLite.
//!
//! The store keeps games, rounds, players and, for every round, the **append-only
//! event log**: the table-log events exactly as the referee accepted them, each with
//! its sequence number, recording time and a hash chaining it to the previous event
//! (see [`chain`]), so that an edited or deleted row is detected by [`Store::verify_game`].
//! Beside the log it keeps the **sealed rule** of each round (see [`seal`]): the rule
//! text and its salt stay in the store until the round ends; only the commitment is
//! public before that. Evidence of each play (camera frame, per-card reads and
//! confidences) lives in [`evidence`].
//!
//! Durability: the database runs in WAL mode with `synchronous=FULL`, so a
//! transaction that [`Store::commit`] returned from is on disk, and survives the
//! process being killed (and a power cut). Nothing in this module validates the game;
//! [`recorder`] is the gate that lets only referee-approved lines in.

pub mod audit;
pub mod chain;
pub mod evidence;
pub mod history;
pub mod ids;
pub mod log;
pub mod printable;
pub mod recorder;
mod schema;
pub mod scoresheet;
pub mod seal;
pub mod season;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};
use thiserror::Error;

pub use ids::{GameId, RoundRef, Target};

/// The file name used when no `--db` is given: beside the service, in the working
/// directory it was started from.
pub const DEFAULT_DB: &str = "eleusis.db";

/// How long a write waits for another process's lock before giving up.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest lock wait SQLite can be given, in milliseconds: it counts them in
/// a C `int`, and rusqlite panics on a longer one.
pub const MAX_BUSY_TIMEOUT_MS: u64 = i32::MAX as u64;

/// Everything that can go wrong in the store. Each message says which file and what
/// to do; none of them leaves a half-written transaction behind (SQLite rolls back).
#[derive(Debug, Error)]
pub enum StoreError {
    // The cause is said in the message and is not also given as the error's
    // source: a report that prints the whole chain (`{:#}`) would say it two or
    // three times over (`file is not a database: file is not a database: Error
    // code 26: …`).
    #[error("database {path}: cannot open it: {cause}")]
    Open {
        path: PathBuf,
        cause: rusqlite::Error,
    },
    #[error("database {path} is a directory; give the database file (e.g. {path}/eleusis.db)")]
    Directory { path: PathBuf },
    #[error("database {path}: does not exist (record something first, or pass --db)")]
    Missing { path: PathBuf },
    #[error("database {path}: its folder {folder} does not exist (create it first, or give another --db)")]
    NoFolder { path: PathBuf, folder: PathBuf },
    #[error("database {path} is read-only ({reason}); nothing was written")]
    ReadOnly { path: PathBuf, reason: String },
    #[error("database {path}: disk full or size limit reached while {during}; that write was rolled back, everything committed before it is intact")]
    Full { path: PathBuf, during: String },
    #[error("database {path} is locked by another connection (waited {waited_ms} ms) while {during}; nothing was written, retry when the other writer is done")]
    Locked {
        path: PathBuf,
        waited_ms: u128,
        during: String,
    },
    #[error("database {path}: schema version {found} is newer than this program knows ({supported}); upgrade eleusis")]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// A file with no table at all (empty, or a fresh SQLite file): nothing was
    /// ever recorded in it, which is a wrong `--db` more often than an old one. A
    /// `cp` of a database in use by a running service, taken without its `-wal`
    /// file, looks the same (every change is still in the write-ahead log), so the
    /// message says that too, and what makes a whole copy.
    #[error(
        "database {path} holds nothing (no game was ever recorded in it): check the --db path; a copy of a running service's database taken without its -wal file (e.g. with cp) looks like this too: `eleusis backup OUT` makes a whole copy"
    )]
    Empty { path: PathBuf },
    #[error("database {path}: schema version {found}, this program needs {expected}: open it once for writing (e.g. `eleusis record --db FILE < /dev/null`) to migrate it")]
    Outdated {
        path: PathBuf,
        found: i64,
        expected: i64,
    },
    /// The file this store opened is no longer the file its path names (moved,
    /// deleted, replaced) or was write-protected since: a write would go into a
    /// file nobody will read again, or past the operator's protection, so none is
    /// made. Only restarting on the right file helps.
    #[error("database {path} {what}; nothing was written: stop this program and restart it on the right database file")]
    Detached { path: PathBuf, what: Detachment },
    /// The database file is gone but a write-ahead log of that name is still
    /// beside it (a writer killed or crashed, then its file moved or deleted):
    /// SQLite would refuse with a bare "disk I/O error", and the log must not be
    /// played into a new database.
    #[error("database {path} does not exist, but {wal} is there: the write-ahead log of a database of that name that did not close cleanly, since moved or deleted; to start a new database there move {wal} and {path}-shm away, or put the database file back beside them")]
    OrphanWal { path: PathBuf, wal: PathBuf },
    /// A read-only open that needs write access because a writer left committed
    /// changes in the write-ahead log (see [`Store::open_read_only`]).
    #[error("database {path} cannot be read without write access: {wal} holds committed changes not yet checkpointed into it (a writer did not close cleanly); give write access back, open it once with a writer (e.g. `eleusis record --db {path} < /dev/null`), then write-protect it again ({reason})")]
    PendingWal {
        path: PathBuf,
        wal: PathBuf,
        reason: String,
    },
    /// Said once, like [`StoreError::Open`]: the cause is no `source`.
    #[error("database {path}: {during}: {cause}")]
    Sqlite {
        path: PathBuf,
        during: String,
        cause: rusqlite::Error,
    },
    #[error("no game {0} in this database")]
    UnknownGame(GameId),
    #[error("no round {0} in this database")]
    UnknownRound(RoundRef),
    #[error("round {0}: the rule is still sealed (the round has not ended); only God may read it before the reveal")]
    Sealed(RoundRef),
    #[error("round {round}: stored data is inconsistent: {what}")]
    Inconsistent { round: RoundRef, what: String },
    #[error(transparent)]
    Id(#[from] ids::IdError),
    #[error(transparent)]
    Evidence(#[from] evidence::EvidenceError),
}

/// What happened to a database file under a running writer (see
/// [`StoreError::Detached`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detachment {
    /// Nothing is at the path any more: renamed away or unlinked. SQLite would go
    /// on writing into the moved file or the deleted inode.
    Gone,
    /// The path names another file (a new database created there, a copy put
    /// back): this connection's writes would not reach it.
    Replaced,
    /// The file lost its write permission bits: the operator protected it.
    MadeReadOnly,
    /// The path cannot be examined any more (e.g. its directory lost its search
    /// permission); with no way to tell it is the same file, nothing is written.
    Unreachable(String),
}

impl std::fmt::Display for Detachment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Detachment::Gone => f.write_str("was moved or deleted while open"),
            Detachment::Replaced => f.write_str("was replaced by another file while open"),
            Detachment::MadeReadOnly => f.write_str("was made read-only while open"),
            Detachment::Unreachable(why) => {
                write!(f, "can no longer be checked while open ({why})")
            }
        }
    }
}

/// What names one file for as long as it exists: device and inode on unix. Other
/// platforms have no cheap equivalent, and there only the presence and the
/// permission of the path are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some(FileId {
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

#[cfg(not(unix))]
fn file_id(_meta: &std::fs::Metadata) -> Option<FileId> {
    None
}

/// What a path that is not a regular file is, in words (`a named pipe (FIFO)`),
/// or `None` for a regular file. Reading a named pipe blocks until some other
/// program opens it for writing, and a device may never end, so the commands
/// that read a file given by name say this instead of waiting for ever.
pub fn special_file_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a named pipe (FIFO)");
        }
        if kind.is_char_device() {
            return Some("a character device");
        }
        if kind.is_block_device() {
            return Some("a block device");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

/// Whether two paths name one existing file, under any name (hard and symbolic
/// links included); where the platform gives no file identity, by their canonical
/// paths.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    match (file_id(&ma), file_id(&mb)) {
        (Some(x), Some(y)) => x == y,
        _ => matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        ),
    }
}

/// An open database. All methods take `&self`; transactions are explicit
/// ([`Store::begin`], [`Store::commit`]) so that a batch of lines can share one
/// durable commit.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    busy_timeout: Duration,
    /// For a writable store: the file as it was when opened, checked before every
    /// write (see [`Store::begin`]). `None` for a read-only store.
    opened: Option<Opened>,
}

/// The identity of a writable store's file at open.
#[derive(Debug, Clone, Copy)]
struct Opened {
    /// `None` where the platform gives no file identity.
    id: Option<FileId>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (creating it when missing) the database at `path` for writing, and
    /// brings its schema up to date. A file or directory marked read-only (no write
    /// permission bit) is refused even for a super-user: an operator who marks the
    /// archive read-only means it.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, DEFAULT_BUSY_TIMEOUT)
    }

    /// [`Store::open`] with a chosen lock wait; one longer than SQLite can take
    /// ([`MAX_BUSY_TIMEOUT_MS`], about 24.8 days) waits that long, as good as for
    /// ever, instead of failing.
    pub fn open_with(path: &Path, busy_timeout: Duration) -> Result<Store, StoreError> {
        let busy_timeout = busy_timeout.min(Duration::from_millis(MAX_BUSY_TIMEOUT_MS));
        if path.is_dir() {
            return Err(StoreError::Directory {
                path: path.to_path_buf(),
            });
        }
        // SQLite would only say "unable to open database file".
        let folder = directory_of(path);
        if !folder.is_dir() {
            return Err(StoreError::NoFolder {
                path: path.to_path_buf(),
                folder,
            });
        }
        refuse_read_only(path)?;
        refuse_orphan_wal(path)?;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| open_error(path, source))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            busy_timeout,
            opened: None,
        };
        store.configure(true)?;
        // The file exists now (SQLite created it, WAL mode wrote its header): this
        // is the file every later write must still go to.
        let meta = std::fs::metadata(path).map_err(|e| StoreError::Detached {
            path: path.to_path_buf(),
            what: Detachment::Unreachable(e.to_string()),
        })?;
        store.opened = Some(Opened { id: file_id(&meta) });
        schema::migrate(&store)?;
        Ok(store)
    }

    /// Opens an existing database for reading only (audit, export). It never creates
    /// a file, and works on a read-only archive.
    ///
    /// A WAL-mode database normally needs its `-shm` file beside it even to be
    /// read, which a write-protected archive cannot take (and a super-user would
    /// leave behind in the protected folder). So when the file or its directory is
    /// write-protected by its permission bits, or a plain read-only open is refused
    /// for lack of write access, and no non-empty `-wal` is beside it (its writer
    /// closed cleanly, so the file holds everything), the file is opened
    /// *immutable*: read as it is, with no side file and no lock. A non-empty
    /// `-wal` holds committed changes not yet in the file; then only a plain open
    /// can read them, and when that fails [`StoreError::PendingWal`] says so.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        if !path.exists() {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        if path.is_dir() {
            return Err(StoreError::Directory {
                path: path.to_path_buf(),
            });
        }
        let wal = side_file(path, "-wal");
        let pending = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
        if !pending && write_protected(path) {
            if let Some(uri) = immutable_uri(path) {
                return Store::open_reader(path, &uri, Opening::Immutable);
            }
        }
        if !pending && !side_file(path, "-shm").exists() {
            // No writer has the file open (a WAL writer keeps its `-shm` while
            // open) and none left changes behind: open it as a writer that takes
            // no writes, so that closing it, as SQLite's last connection, removes
            // the `-wal` and `-shm` the open made, leaving the folder as it was.
            match Store::open_reader(path, path, Opening::QueryOnly) {
                Ok(store) => return Ok(store),
                Err(e) if !needs_write_access(&e) => return Err(e),
                Err(_) => {}
            }
        }
        match Store::open_reader(path, path, Opening::ReadOnly) {
            Ok(store) => Ok(store),
            Err(e) if !needs_write_access(&e) => Err(e),
            Err(e) if pending => Err(StoreError::PendingWal {
                path: path.to_path_buf(),
                wal,
                reason: e.to_string(),
            }),
            Err(e) => match immutable_uri(path) {
                Some(uri) => Store::open_reader(path, &uri, Opening::Immutable),
                None => Err(e),
            },
        }
    }

    /// One open of `path` for reading, given to SQLite as `name` (the path, or for
    /// [`Opening::Immutable`] a `file:` URI naming it).
    fn open_reader<P: AsRef<Path>>(
        path: &Path,
        name: P,
        opening: Opening,
    ) -> Result<Store, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_NO_MUTEX
            | match opening {
                Opening::QueryOnly => OpenFlags::SQLITE_OPEN_READ_WRITE,
                Opening::ReadOnly => OpenFlags::SQLITE_OPEN_READ_ONLY,
                Opening::Immutable => OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
            };
        let conn =
            Connection::open_with_flags(name, flags).map_err(|source| open_error(path, source))?;
        if opening == Opening::QueryOnly {
            if conn
                .is_readonly(rusqlite::DatabaseName::Main)
                .unwrap_or(true)
            {
                // SQLite fell back to reading only (a read-only mount): such a
                // connection leaves side files like a plain read-only one, so it
                // is refused here and the caller's next way is tried.
                return Err(StoreError::ReadOnly {
                    path: path.to_path_buf(),
                    reason: "the file cannot be opened for writing".into(),
                });
            }
            conn.pragma_update(None, "query_only", "ON")
                .map_err(|source| open_error(path, source))?;
        }
        let store = Store {
            conn,
            path: path.to_path_buf(),
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
            opened: None,
        };
        store.configure(false)?;
        schema::check_readable(&store)?;
        Ok(store)
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&self, writable: bool) -> Result<(), StoreError> {
        self.conn
            .busy_timeout(self.busy_timeout)
            .map_err(|e| self.error("setting the busy timeout", e))?;
        self.conn
            .pragma_update(None, "foreign_keys", "ON")
            .map_err(|e| self.error("enabling foreign keys", e))?;
        if writable {
            let mode: String = self
                .conn
                .query_row("PRAGMA journal_mode=WAL", [], |row| row.get(0))
                .map_err(|e| self.error("switching to WAL mode", e))?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(StoreError::ReadOnly {
                    path: self.path.clone(),
                    reason: format!("could not switch to WAL journal mode (got {mode})"),
                });
            }
            // FULL: the WAL is synced at every commit, so an acknowledged line
            // survives a killed process and a power cut alike.
            self.conn
                .pragma_update(None, "synchronous", "FULL")
                .map_err(|e| self.error("setting synchronous=FULL", e))?;
        }
        Ok(())
    }

    /// Caps the database at `pages` pages (of 4 KiB by default) for this connection:
    /// a write that would grow it further fails with [`StoreError::Full`], exactly as
    /// a full disk does. Returns the current page count.
    pub fn cap_pages(&self, pages: u64) -> Result<u64, StoreError> {
        self.conn
            .query_row(&format!("PRAGMA max_page_count={pages}"), [], |row| {
                row.get::<_, i64>(0)
            })
            .map_err(|e| self.error("capping the size", e))?;
        self.page_count()
    }

    /// Writes a consistent copy of the whole database into the new file `out`
    /// (SQLite's online backup, in one step under one read transaction): every
    /// transaction committed when it starts, the write-ahead log's included, in one
    /// self-contained file. Copying the database file while a writer runs misses
    /// whatever is still in its `-wal` file; this does not, and a reader may run it
    /// beside the live service.
    pub fn backup_into(&self, out: &Path) -> Result<(), StoreError> {
        let during = format!("writing the backup {}", out.display());
        let mut copy = Connection::open_with_flags(
            out,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| self.error(&during, e))?;
        let backup = rusqlite::backup::Backup::new(&self.conn, &mut copy)
            .map_err(|e| self.error(&during, e))?;
        match backup.step(-1).map_err(|e| self.error(&during, e))? {
            rusqlite::backup::StepResult::Done => Ok(()),
            // Busy or locked: a writer held the file for longer than the busy
            // timeout; the copy is incomplete and is thrown away.
            other => Err(self.error(
                &during,
                rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                    Some(format!("the copy did not finish ({other:?}); try again")),
                ),
            )),
        }
    }

    /// How many distinct frames the database keeps as evidence.
    pub fn frame_count(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM frames", [], |row| {
                row.get::<_, i64>(0)
            })
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|e| self.error("counting frames", e))
    }

    /// Pages the database file holds now.
    pub fn page_count(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("PRAGMA page_count", [], |row| row.get::<_, i64>(0))
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|e| self.error("counting pages", e))
    }

    /// Starts a write transaction, taking the write lock at once so that a
    /// conflict shows up here rather than half-way through a line.
    ///
    /// First it checks that the path still names the file opened and that the file
    /// is still writable by its permission bits ([`StoreError::Detached`]
    /// otherwise): SQLite keeps writing to the file it holds, so a database moved,
    /// deleted or replaced under a long-running writer would silently take
    /// acknowledged lines into a file nobody reads again. One `stat` per
    /// transaction; each commit already waits for an fsync.
    pub fn begin(&self) -> Result<(), StoreError> {
        self.check_still_there()?;
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| self.error("starting a write", e))
    }

    /// For a writable store: is the path still the file opened, and still
    /// writable by its permission bits? (A super-user could write anyway; the
    /// bits say what the operator means, as at open.)
    fn check_still_there(&self) -> Result<(), StoreError> {
        let Some(opened) = self.opened else {
            return Ok(());
        };
        let detached = |what| StoreError::Detached {
            path: self.path.clone(),
            what,
        };
        let meta = match std::fs::metadata(&self.path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(detached(Detachment::Gone))
            }
            Err(e) => return Err(detached(Detachment::Unreachable(e.to_string()))),
        };
        if opened.id.is_some() && file_id(&meta) != opened.id {
            return Err(detached(Detachment::Replaced));
        }
        if meta.permissions().readonly() {
            return Err(detached(Detachment::MadeReadOnly));
        }
        Ok(())
    }

    /// Commits the open transaction; once this returns, the data is on disk.
    pub fn commit(&self) -> Result<(), StoreError> {
        let result = self
            .conn
            .execute_batch("COMMIT")
            .map_err(|e| self.error("committing", e));
        if result.is_err() {
            self.rollback();
        }
        result
    }

    /// Abandons the open transaction, if any.
    pub fn rollback(&self) {
        if !self.conn.is_autocommit() {
            // A failed rollback leaves SQLite to roll back on close; nothing to add.
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }

    /// A number that changes whenever another connection (a second `eleusis record`,
    /// another service) commits to this database; this connection's own commits
    /// leave it as it is. The live service polls it to notice outside writers.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA data_version", [], |row| row.get(0))
            .map_err(|e| self.error("reading the data version", e))
    }

    /// Runs `f` on one snapshot of the database: reads that take several queries
    /// (a game's whole history) then see either all of another writer's commit or
    /// none of it.
    pub fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, E>,
    ) -> Result<T, E> {
        self.conn
            .execute_batch("BEGIN DEFERRED")
            .map_err(|e| self.error("starting a read", e))?;
        let result = f(self);
        self.rollback();
        result
    }

    /// Runs `f` inside one transaction, committed when `f` succeeds.
    pub fn write<T>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.begin()?;
        match f(self) {
            Ok(value) => {
                self.commit()?;
                Ok(value)
            }
            Err(e) => {
                self.rollback();
                Err(e)
            }
        }
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Turns a SQLite error into the store's error, naming the file and what was
    /// being done, and recognising the conditions an operator can act on.
    pub(crate) fn error(&self, during: &str, source: rusqlite::Error) -> StoreError {
        match source.sqlite_error_code() {
            Some(ErrorCode::DiskFull) => StoreError::Full {
                path: self.path.clone(),
                during: during.to_string(),
            },
            Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => StoreError::Locked {
                path: self.path.clone(),
                waited_ms: self.busy_timeout.as_millis(),
                during: during.to_string(),
            },
            Some(ErrorCode::ReadOnly) => StoreError::ReadOnly {
                path: self.path.clone(),
                reason: format!("{during}: {source}"),
            },
            _ => StoreError::Sqlite {
                path: self.path.clone(),
                during: during.to_string(),
                cause: source,
            },
        }
    }
}

fn open_error(path: &Path, source: rusqlite::Error) -> StoreError {
    match source.sqlite_error_code() {
        Some(ErrorCode::ReadOnly) => StoreError::ReadOnly {
            path: path.to_path_buf(),
            reason: source.to_string(),
        },
        _ => StoreError::Open {
            path: path.to_path_buf(),
            cause: source,
        },
    }
}

/// Whether the permission bits of `path` say read-only (no write bit at all).
fn read_only_bits(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.permissions().readonly())
        .unwrap_or(false)
}

/// The directory SQLite keeps the side files of `path` in.
pub(crate) fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The suffixes of the files kept beside a database: SQLite's (write-ahead log,
/// its shared-memory index, a rollback journal) and the one a running service
/// holds locked ([`SERVE_LOCK_SUFFIX`]).
pub const SIDE_FILE_SUFFIXES: [&str; 4] = ["-wal", "-shm", "-journal", SERVE_LOCK_SUFFIX];

/// The suffix of the file beside a database that a running `eleusis serve` (or
/// `demo`) holds locked for as long as it runs (`eleusis.db.serve.lock`), so
/// that a second service on the same database is refused: two would each judge
/// with a referee of their own, and the game would fork.
pub const SERVE_LOCK_SUFFIX: &str = ".serve.lock";

/// `path` with `suffix` appended to its file name, as SQLite names its `-wal`
/// and `-shm` files.
pub fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// How [`Store::open_read_only`] asks SQLite for a file it only reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opening {
    /// Opened for writing with every write refused (`PRAGMA query_only`): on a
    /// closed database in a writable folder, the last connection's close removes
    /// the `-wal` and `-shm` files that reading made.
    QueryOnly,
    /// SQLite's read-only open: reads a `-wal` left behind, but leaves the side
    /// files it makes.
    ReadOnly,
    /// Read as the file is, with no lock and no side file (write-protected
    /// archives whose writer closed cleanly).
    Immutable,
}

/// Whether the file or its directory is write-protected by its permission bits.
fn write_protected(path: &Path) -> bool {
    read_only_bits(path) || read_only_bits(&directory_of(path))
}

/// Whether a failed read-only open failed for want of write access (SQLite could
/// not create or open the `-shm` beside the file), as opposed to a bad file.
fn needs_write_access(error: &StoreError) -> bool {
    match error {
        StoreError::ReadOnly { .. } => true,
        StoreError::Open { cause, .. } | StoreError::Sqlite { cause, .. } => matches!(
            cause.sqlite_error_code(),
            Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied)
        ),
        _ => false,
    }
}

/// Characters kept as they are in a `file:` URI path; everything else (`?`, `#`,
/// `%`, spaces, non-ASCII bytes…) is percent-encoded, as SQLite decodes it.
const URI_PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The SQLite URI that opens `path` immutable (`file:///abs/path?immutable=1`):
/// read-only, no lock, no `-wal`/`-shm`. `None` when the path cannot be written as
/// a URI (not UTF-8 outside unix, or no absolute form).
fn immutable_uri(path: &Path) -> Option<String> {
    let absolute = std::path::absolute(path).ok()?;
    #[cfg(unix)]
    let encoded = {
        use std::os::unix::ffi::OsStrExt;
        percent_encoding::percent_encode(absolute.as_os_str().as_bytes(), URI_PATH).to_string()
    };
    #[cfg(not(unix))]
    let encoded = {
        let text = absolute.to_str()?.replace('\\', "/");
        let text = if text.starts_with('/') {
            text
        } else {
            format!("/{text}")
        };
        percent_encoding::utf8_percent_encode(&text, &URI_PATH.remove(b':')).to_string()
    };
    Some(format!("file://{encoded}?immutable=1"))
}

/// Refuses to write into a file, or a directory, whose permission bits say
/// read-only. SQLite needs to write the file and create `-wal`/`-shm` beside it.
fn refuse_read_only(path: &Path) -> Result<(), StoreError> {
    if path.exists() && read_only_bits(path) {
        return Err(StoreError::ReadOnly {
            path: path.to_path_buf(),
            reason: "the file has no write permission".into(),
        });
    }
    let dir = directory_of(path);
    if read_only_bits(&dir) {
        return Err(StoreError::ReadOnly {
            path: path.to_path_buf(),
            reason: format!(
                "its directory {} has no write permission (SQLite keeps its journal beside the file)",
                dir.display()
            ),
        });
    }
    Ok(())
}

/// Refuses to create a database where its file is missing but a non-empty
/// write-ahead log of that name is left ([`StoreError::OrphanWal`]).
fn refuse_orphan_wal(path: &Path) -> Result<(), StoreError> {
    if path.exists() {
        return Ok(());
    }
    let wal = side_file(path, "-wal");
    match std::fs::metadata(&wal) {
        Ok(meta) if meta.len() > 0 => Err(StoreError::OrphanWal {
            path: path.to_path_buf(),
            wal,
        }),
        _ => Ok(()),
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Formats Unix milliseconds as an RFC 3339 UTC time with milliseconds
/// (`2026-11-22T16:40:01.123Z`), the form stored in the log and shown by audit.
pub fn format_utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (H. Hinnant), proleptic Gregorian.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_times_in_utc() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_utc(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(format_utc(1_795_365_601_005), "2026-11-22T16:40:01.005Z");
    }

    #[test]
    fn opens_in_wal_with_full_sync_and_foreign_keys() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("t.db")).expect("open");
        let mode: String = store
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .expect("mode");
        assert_eq!(mode, "wal");
        let sync: i64 = store
            .conn()
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .expect("sync");
        assert_eq!(sync, 2, "FULL");
        let fk: i64 = store
            .conn()
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .expect("fk");
        assert_eq!(fk, 1);
    }

    #[cfg(unix)]
    #[test]
    fn immutable_uris_escape_what_sqlite_would_read_as_syntax() {
        assert_eq!(
            immutable_uri(Path::new("/srv/a b?c#d%e/é.db")).as_deref(),
            Some("file:///srv/a%20b%3Fc%23d%25e/%C3%A9.db?immutable=1")
        );
        let relative = immutable_uri(Path::new("x.db")).expect("uri");
        assert!(
            relative.starts_with("file:///") && relative.ends_with("/x.db?immutable=1"),
            "{relative}"
        );
    }

    #[test]
    fn a_write_ahead_log_left_without_its_database_is_named_not_played() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (live, gone) = (dir.path().join("live.db"), dir.path().join("gone.db"));
        let store = Store::open(&live).expect("open");
        store
            .conn()
            .execute_batch("CREATE TABLE scratch (x INTEGER); INSERT INTO scratch VALUES (1);")
            .expect("write");
        // The log as a killed writer leaves it, beside a database file since deleted.
        std::fs::copy(side_file(&live, "-wal"), side_file(&gone, "-wal")).expect("copy");
        assert!(
            std::fs::metadata(side_file(&gone, "-wal"))
                .expect("wal")
                .len()
                > 0
        );
        let err = Store::open(&gone).unwrap_err();
        assert!(matches!(err, StoreError::OrphanWal { .. }), "{err}");
        assert!(err.to_string().contains("gone.db-wal"), "{err}");
        assert!(!gone.exists(), "no database was created");
        // Moved away, the name is free for a new database.
        std::fs::rename(side_file(&gone, "-wal"), dir.path().join("kept-wal")).expect("move");
        Store::open(&gone).expect("a new database opens");
        drop(store);
    }

    #[test]
    fn read_only_open_of_a_missing_file_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let err = Store::open_read_only(&dir.path().join("none.db")).unwrap_err();
        assert!(matches!(err, StoreError::Missing { .. }), "{err}");
        assert!(!dir.path().join("none.db").exists());
        let err = Store::open_read_only(dir.path()).unwrap_err();
        assert!(matches!(err, StoreError::Directory { .. }), "{err}");
        let err = Store::open(dir.path()).unwrap_err();
        assert!(matches!(err, StoreError::Directory { .. }), "{err}");
    }
}
