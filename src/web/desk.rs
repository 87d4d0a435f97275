//! The table's desk: one thread that owns the store and the recorder, so every
//! event goes through the same gate as `eleusis record` (refereed first, stored
//! only when accepted, durable before the reply) and events are applied one at a
//! time in arrival order. HTTP handlers send it jobs and await the answer; after
//! every change it rebuilds the views and publishes them to the WebSocket clients.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{Map, Value};
use tokio::sync::{oneshot, watch};

use crate::store::history::RefereeFactory;
use crate::store::recorder::{Ack, Recorder, Reply};
use crate::store::{GameId, Store, StoreError};

use super::error::ApiError;
use super::views::{self, Views};

/// A job for the desk thread.
type Job = Box<dyn for<'a, 's> FnOnce(&'a mut Desk<'s>) + Send>;

enum Message {
    Job(Job),
    Stop,
}

/// The state the desk thread works on.
pub struct Desk<'s> {
    store: &'s Store,
    factory: RefereeFactory,
    recorder: Recorder<'s>,
    spool: PathBuf,
    views: watch::Sender<Arc<Views>>,
    /// The number of the latest view. It starts from the clock (milliseconds since
    /// 1970) rather than 0, so that a restarted service numbers its views above
    /// those of the process before it: an open page that kept the old numbers
    /// would otherwise drop every new view as stale until the new process had
    /// published as many.
    version: u64,
}

impl<'s> Desk<'s> {
    /// The open store (reads: audit, export, frames).
    pub fn store(&self) -> &'s Store {
        self.store
    }

    pub fn factory(&self) -> &RefereeFactory {
        &self.factory
    }

    /// The game being played, once its first round is stored.
    pub fn game(&self) -> Option<GameId> {
        self.recorder.game()
    }

    /// Where uploaded frames wait until a play takes them as evidence.
    pub fn spool(&self) -> &Path {
        &self.spool
    }

    /// Whether the game being played has ended (`end_game`).
    pub fn game_over(&self) -> bool {
        self.recorder.referee().ended()
    }

    /// Records one table-log line (a JSON object) through the recorder. A refusal
    /// leaves the store and the state untouched and says why. With `new_game` (or
    /// when the game being played has ended) the line opens a new game; the game on
    /// show changes only if the line is stored. A new game is refused while the
    /// game being played has not ended: it would be left with a round that never
    /// ends and rules that are never revealed, and the service could not go back
    /// to it.
    pub fn record(
        &mut self,
        object: Map<String, Value>,
        at: &str,
        new_game: bool,
    ) -> Result<Ack, ApiError> {
        let is_round = object.get("event").and_then(Value::as_str) == Some("round");
        if let Some(game) = self
            .game()
            .filter(|_| is_round && new_game && !self.game_over())
        {
            return Err(ApiError::rejected(
                format!(
                    "game {game} has not ended: end it first (\"end_game\", the console's \
                     \"End the game\", reveals its rules and scores it), then start a new game"
                ),
                at,
            ));
        }
        let fresh = is_round && (new_game || self.game_over());
        let text = Value::Object(object).to_string();
        let mut fresh_recorder = fresh.then(|| {
            Recorder::new_game(self.store, Arc::clone(&self.factory))
                .frames_from(self.spool.clone())
        });
        let recorder = fresh_recorder.as_mut().unwrap_or(&mut self.recorder);
        let replies = recorder
            .record_batch(&[(1, text)])
            .map_err(|e| ApiError::store(e, at))?;
        match replies.into_iter().next() {
            Some(Reply::Stored(ack)) => {
                if let Some(recorder) = fresh_recorder {
                    self.recorder = recorder;
                }
                self.publish();
                Ok(ack)
            }
            Some(Reply::Rejected(rejection)) => {
                let what = rejection
                    .error
                    .strip_prefix("line 1: ")
                    .unwrap_or(&rejection.error)
                    .to_string();
                Err(ApiError::rejected(what, at))
            }
            None => Err(ApiError::Store {
                what: "the recorder gave no reply".into(),
                at: at.into(),
            }),
        }
    }

    /// Rebuilds the recorder from the store (after a failure inside a job).
    fn resume(&mut self) {
        let recorder = match self.recorder.game() {
            Some(game) => Recorder::resume(self.store, Arc::clone(&self.factory), game),
            None => Ok(Recorder::new_game(self.store, Arc::clone(&self.factory))),
        };
        match recorder {
            Ok(r) => self.recorder = r.frames_from(self.spool.clone()),
            Err(e) => tracing::error!(error = %e, "cannot resume the game from the store"),
        }
        self.publish();
    }

    /// Rebuilds the views and pushes them to every page.
    pub fn publish(&mut self) {
        self.version += 1;
        match views::build(
            self.store,
            &self.factory,
            self.recorder.game(),
            self.recorder.referee(),
            self.version,
        ) {
            Ok(v) => {
                self.views.send_replace(Arc::new(v));
            }
            Err(e) => tracing::error!(error = %e, "cannot build the table view"),
        }
    }
}

/// Why the table could not open.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot continue game {game}: {reason}")]
    Resume { game: GameId, reason: String },
    #[error("frame spool {path}: {source}")]
    Spool {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the desk thread stopped while opening")]
    Thread,
}

/// The handle the web handlers hold.
pub struct Table {
    tx: Mutex<mpsc::Sender<Message>>,
    views: watch::Receiver<Arc<Views>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    spool: PathBuf,
}

impl Table {
    /// Opens (creating it when missing) the store at `db`, continues its latest game
    /// unless that game has ended, and starts the desk thread. Frames wait in
    /// `DB.frames/` beside the database until a play stores them.
    pub fn open(db: &Path, factory: RefereeFactory) -> Result<Table, OpenError> {
        let spool = spool_dir(db);
        std::fs::create_dir_all(&spool).map_err(|source| OpenError::Spool {
            path: spool.clone(),
            source,
        })?;
        let (tx, rx) = mpsc::channel::<Message>();
        let (opened_tx, opened_rx) = mpsc::sync_channel::<Result<(), OpenError>>(1);
        let (views_tx, views_rx) = watch::channel(Arc::new(Views::default()));
        let db = db.to_path_buf();
        let thread_spool = spool.clone();
        let thread = std::thread::Builder::new()
            .name("eleusis-desk".into())
            .spawn(move || desk_thread(db, factory, thread_spool, views_tx, rx, opened_tx))
            .map_err(|_| OpenError::Thread)?;
        match opened_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                let _ = thread.join();
                return Err(e);
            }
            Err(_) => return Err(OpenError::Thread),
        }
        Ok(Table {
            tx: Mutex::new(tx),
            views: views_rx,
            thread: Mutex::new(Some(thread)),
            spool,
        })
    }

    /// Runs `f` on the desk thread and returns its answer.
    pub async fn run<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: for<'a, 's> FnOnce(&'a mut Desk<'s>) -> T + Send + 'static,
    {
        let (reply_tx, reply_rx) = oneshot::channel();
        let job: Job = Box::new(move |desk| {
            let _ = reply_tx.send(f(desk));
        });
        let sent = self
            .tx
            .lock()
            .map(|tx| tx.send(Message::Job(job)).is_ok())
            .unwrap_or(false);
        if !sent {
            return Err(ApiError::Unavailable {
                at: "the table".into(),
            });
        }
        reply_rx.await.map_err(|_| ApiError::Unavailable {
            at: "the table".into(),
        })
    }

    /// The latest views; `changed()` on the receiver wakes on every change.
    pub fn views(&self) -> watch::Receiver<Arc<Views>> {
        self.views.clone()
    }

    /// The frame spool directory.
    pub fn spool(&self) -> &Path {
        &self.spool
    }

    /// Stops the desk thread after the jobs already sent, and waits for it: the
    /// store is closed cleanly (its WAL checkpointed) when this returns.
    pub fn close(&self) {
        if let Ok(tx) = self.tx.lock() {
            let _ = tx.send(Message::Stop);
        }
        let handle = self.thread.lock().ok().and_then(|mut t| t.take());
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        self.close();
    }
}

/// `eleusis.db` → `eleusis.db.frames`.
pub fn spool_dir(db: &Path) -> PathBuf {
    let mut name = db.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".frames");
    db.with_file_name(name)
}

fn desk_thread(
    db: PathBuf,
    factory: RefereeFactory,
    spool: PathBuf,
    views: watch::Sender<Arc<Views>>,
    rx: mpsc::Receiver<Message>,
    opened: mpsc::SyncSender<Result<(), OpenError>>,
) {
    let store = match Store::open(&db) {
        Ok(store) => store,
        Err(e) => {
            let _ = opened.send(Err(e.into()));
            return;
        }
    };
    let latest = match store.games() {
        Ok(games) => games.last().copied(),
        Err(e) => {
            let _ = opened.send(Err(e.into()));
            return;
        }
    };
    let recorder = match latest {
        Some(game) => match Recorder::resume(&store, Arc::clone(&factory), game) {
            Ok(r) => r,
            Err(e) => {
                let _ = opened.send(Err(OpenError::Resume {
                    game,
                    reason: e.to_string(),
                }));
                return;
            }
        },
        None => Recorder::new_game(&store, Arc::clone(&factory)),
    };
    let mut desk = Desk {
        store: &store,
        factory,
        recorder: recorder.frames_from(spool.clone()),
        spool,
        views,
        version: first_version(),
    };
    desk.publish();
    if opened.send(Ok(())).is_err() {
        return;
    }
    while let Ok(Message::Job(job)) = rx.recv() {
        // A bug must not take the table down: the job's caller gets "unavailable",
        // and the recorder is rebuilt from the store, which holds only what was
        // committed before the failure.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&mut desk)));
        if outcome.is_err() {
            tracing::error!("a request failed inside the desk; resuming from the store");
            desk.resume();
        }
    }
}

/// Where a desk's view numbers start: the clock in milliseconds. Views are
/// published far less often than once a millisecond, so a restarted desk starts
/// above every number the one before it gave out.
fn first_version() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX / 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::history::standard_referee;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
    }

    #[test]
    fn a_reopened_table_numbers_its_views_above_the_last_ones() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("t.db");
        let version = |table: &Table| table.views().borrow().version;
        let first = Table::open(&path, standard_referee()).expect("open");
        let before = version(&first);
        first.close();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let again = Table::open(&path, standard_referee()).expect("reopen");
        assert!(
            version(&again) > before,
            "{} after {before}",
            version(&again)
        );
        again.close();
    }

    #[test]
    fn the_spool_sits_beside_the_database() {
        assert_eq!(
            spool_dir(Path::new("/srv/club/eleusis.db")),
            PathBuf::from("/srv/club/eleusis.db.frames")
        );
    }

    #[test]
    fn a_failing_job_does_not_take_the_table_down() {
        let dir = tempfile::tempdir().expect("dir");
        let table = Table::open(&dir.path().join("t.db"), standard_referee()).expect("open");
        let rt = runtime();
        let failed = rt.block_on(
            table.run(|_desk: &mut Desk<'_>| -> u32 { panic!("a bug inside a request") }),
        );
        assert!(
            matches!(failed, Err(ApiError::Unavailable { .. })),
            "{failed:?}"
        );
        let game = rt
            .block_on(table.run(|desk: &mut Desk<'_>| desk.game()))
            .expect("the desk still answers");
        assert_eq!(game, None);
        table.close();
        let closed = rt.block_on(table.run(|desk: &mut Desk<'_>| desk.game()));
        assert!(matches!(closed, Err(ApiError::Unavailable { .. })));
    }

    #[test]
    fn a_database_that_cannot_be_opened_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("plain-file");
        std::fs::write(&file, "not a database ".repeat(300)).expect("write");
        let err = Table::open(&file.join("t.db"), standard_referee())
            .err()
            .expect("error");
        assert!(err.to_string().contains("plain-file"), "{err}");
        let err = Table::open(&file, standard_referee())
            .err()
            .expect("not a database");
        assert!(!err.to_string().is_empty());
    }
}
