//! The table's desk: one thread that owns the store and the recorder, so every
//! event goes through the same gate as `eleusis record` (refereed first, stored
//! only when accepted, durable before the reply) and events are applied one at a
//! time in arrival order. HTTP handlers send it jobs and await the answer; after
//! every change it rebuilds the views and publishes them to the WebSocket clients.
//! Between jobs it watches the database for commits by other writers (an
//! `eleusis record` fed by a club's own tools, a correction typed at a terminal)
//! and shows them too.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::{oneshot, watch};

use crate::store::history::RefereeFactory;
use crate::store::recorder::{Ack, Recorder, Reply};
use crate::store::{GameId, Store, StoreError};

use super::error::ApiError;
use super::views::{self, Views};

/// How often the desk looks for other writers' commits: a page shows an outside
/// `eleusis record` within about this long.
const FOLLOW_EVERY: Duration = Duration::from_millis(500);

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
    /// The store's data version when the desk last looked ([`Store::data_version`]).
    data_version: Option<i64>,
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
                if self.game_over() {
                    // A game another writer started meanwhile is on show from now.
                    self.take_up_newer_game();
                }
                self.publish();
                Ok(ack)
            }
            Some(Reply::Rejected(rejection)) => {
                let what = rejection
                    .error
                    .strip_prefix("line 1: ")
                    .unwrap_or(&rejection.error);
                // The recorder's and the referee's reasons may quote the request's
                // values; an answer carries at most the first characters of each.
                Err(ApiError::rejected(crate::json_input::cut_message(what), at))
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

    /// Shows what other writers committed since the desk last looked: the game on
    /// show is rebuilt from the store when its log moved, and a newer game is
    /// followed once the one on show has ended (or none was started here), as a
    /// restarted service would. The game being played is never left for another
    /// while it goes on. A failure is logged and the desk keeps what it had.
    fn follow_outside_writers(&mut self) {
        let version = match self.store.data_version() {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "cannot look for other writers");
                return;
            }
        };
        if self.data_version == Some(version) {
            return;
        }
        self.data_version = Some(version);
        if !self.take_up_newer_game() {
            if let Err(e) = self.recorder.follow() {
                tracing::error!(error = %e, "cannot follow another writer's events");
            }
        }
        // Always: another game's rounds (the audit list) may have changed too.
        self.publish();
    }

    /// Puts on show the newest stored game when it is newer than the game on show
    /// and that game has ended (or none was started here): a game another writer
    /// started, as a restarted service would show it. Returns whether it did.
    fn take_up_newer_game(&mut self) -> bool {
        let latest = match self.store.games() {
            Ok(games) => games.last().copied(),
            Err(e) => {
                tracing::warn!(error = %e, "cannot list the stored games");
                return false;
            }
        };
        let newer = latest.filter(|&latest| match self.game() {
            None => true,
            Some(ours) => latest > ours && self.game_over(),
        });
        let Some(game) = newer else {
            return false;
        };
        match Recorder::resume(self.store, Arc::clone(&self.factory), game) {
            Ok(r) => {
                self.recorder = r.frames_from(self.spool.clone());
                true
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot take up game {game} from the store");
                false
            }
        }
    }

    /// The views as last published: taken in the same job as a change, the ones
    /// that change produced (another request may publish as soon as it ends).
    pub fn latest(&self) -> Arc<Views> {
        Arc::clone(&self.views.borrow())
    }

    /// Rebuilds the views and pushes them to every page.
    pub fn publish(&mut self) {
        self.version += 1;
        // On one snapshot: an outside writer's commit half-way through would
        // otherwise show a round's header without its last events.
        let (factory, game, referee, version) = (
            &self.factory,
            self.recorder.game(),
            self.recorder.referee(),
            self.version,
        );
        let built = self.store.read(|store| {
            Ok::<_, StoreError>(views::build(store, factory, game, referee, version))
        });
        match built {
            Ok(Ok(v)) => {
                self.views.send_replace(Arc::new(v));
            }
            Ok(Err(e)) => tracing::error!(error = %e, "cannot build the table view"),
            Err(e) => tracing::error!(error = %e, "cannot read the store for the table view"),
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
    #[error("--confirm-threshold: {0}")]
    ConfirmThreshold(#[from] crate::vision::TableThresholdError),
    /// `--models` named a folder the recognizer cannot be loaded from: a typo
    /// would otherwise leave the table without card reading, said only on a
    /// start line.
    #[error("--models: {0}; leave --models out to serve without a model (God types every card)")]
    Models(String),
}

/// The handle the web handlers hold.
pub struct Table {
    tx: Mutex<mpsc::Sender<Message>>,
    views: watch::Receiver<Arc<Views>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    spool: PathBuf,
}

impl Table {
    /// Opens (creating it when missing, in a directory that must exist) the store
    /// at `db`, continues its latest game, and starts the desk thread. Frames wait
    /// in `DB.frames/` beside the database until a play stores them; that folder is
    /// made only once the database opened.
    pub fn open(db: &Path, factory: RefereeFactory) -> Result<Table, OpenError> {
        let spool = spool_dir(db);
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
    // Only once the database opened: a mistyped directory or a read-only archive
    // must not leave a frames folder behind (nor create the missing directory).
    if let Err(source) = std::fs::create_dir_all(&spool) {
        let _ = opened.send(Err(OpenError::Spool {
            path: spool.clone(),
            source,
        }));
        return;
    }
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
        data_version: None,
    };
    desk.data_version = desk.store.data_version().ok();
    desk.publish();
    if opened.send(Ok(())).is_err() {
        return;
    }
    let mut followed = Instant::now();
    loop {
        let job = match rx.recv_timeout(FOLLOW_EVERY) {
            Ok(Message::Job(job)) => Some(job),
            Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => None,
        };
        if let Some(job) = job {
            // A bug must not take the table down: the job's caller gets
            // "unavailable", and the recorder is rebuilt from the store, which
            // holds only what was committed before the failure.
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&mut desk)));
            if outcome.is_err() {
                tracing::error!("a request failed inside the desk; resuming from the store");
                desk.resume();
            }
        }
        // Also between jobs that keep coming: a busy table still shows others' events.
        if followed.elapsed() >= FOLLOW_EVERY {
            followed = Instant::now();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                desk.follow_outside_writers()
            }));
            if outcome.is_err() {
                tracing::error!("following another writer failed; resuming from the store");
                desk.resume();
            }
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

    /// Waits until the table's public view satisfies `ready`, or fails after 10 s.
    fn wait_for_view(table: &Table, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            let view = table.views().borrow().public.clone();
            if ready(&view) {
                return view;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the table never showed {what}: {view}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn the_table_shows_what_another_writer_records() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("t.db");
        let table = Table::open(&path, standard_referee()).expect("open");
        let round = r#"{"event":"round","god":"Gil","players":["Ana","Bo"],"rule":"true","starter":"3H","hand_size":12}"#;
        let outside = |lines: &[&str], game: Option<GameId>| {
            let store = Store::open(&path).expect("second writer");
            let mut recorder = match game {
                Some(game) => Recorder::resume(&store, standard_referee(), game).expect("resume"),
                None => Recorder::new_game(&store, standard_referee()),
            };
            let batch: Vec<(usize, String)> = lines
                .iter()
                .enumerate()
                .map(|(i, l)| (i + 1, l.to_string()))
                .collect();
            for reply in recorder.record_batch(&batch).expect("stored") {
                assert!(matches!(reply, Reply::Stored(_)), "{}", reply.to_line());
            }
        };
        // A game started elsewhere while none was being played here is taken up.
        outside(&[round, r#"{"event":"play","cards":["4S"]}"#], None);
        let view = wait_for_view(&table, "the outside game", |v| v["game"] == "1");
        assert_eq!(view["state"]["laid"], 2, "{view}");
        // More plays of the same game are shown, and the desk judges on from there.
        outside(&[r#"{"event":"play","cards":["5D"]}"#], Some(GameId(1)));
        wait_for_view(&table, "the outside play", |v| v["state"]["laid"] == 3);
        let rt = runtime();
        let ack = rt
            .block_on(table.run(|desk: &mut Desk<'_>| {
                let play: Map<String, Value> =
                    serde_json::from_str(r#"{"event":"play","cards":["6C"]}"#).expect("object");
                desk.record(play, "test", false).map(|ack| ack.seq)
            }))
            .expect("desk");
        assert_eq!(ack.expect("Ana's play is judged after Bo's"), 4);
        // A second game started elsewhere is not followed while this one goes on.
        outside(&[round], None);
        std::thread::sleep(FOLLOW_EVERY * 3);
        let view = table.views().borrow().public.clone();
        assert_eq!(view["game"], "1", "{view}");
        assert_eq!(view["state"]["laid"], 4, "{view}");
        // Once this game ends here, the game started elsewhere is on show at once,
        // without waiting for another outside write.
        let shown = rt
            .block_on(table.run(|desk: &mut Desk<'_>| {
                let end: Map<String, Value> =
                    serde_json::from_str(r#"{"event":"end_game"}"#).expect("object");
                desk.record(end, "test", false).map(|_| desk.game())
            }))
            .expect("desk");
        assert_eq!(shown.expect("end_game is stored"), Some(GameId(2)));
        assert_eq!(table.views().borrow().public["game"], "2");
        table.close();
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
    fn a_missing_directory_or_read_only_database_leaves_nothing_behind() {
        let dir = tempfile::tempdir().expect("dir");
        let missing = dir.path().join("usb-stick-not-mounted");
        let err = Table::open(&missing.join("club.db"), standard_referee())
            .err()
            .expect("a database in a missing directory is refused");
        assert!(err.to_string().contains("usb-stick-not-mounted"), "{err}");
        assert!(!missing.exists(), "the missing directory was created");

        let archive = dir.path().join("archive.db");
        Store::open(&archive).expect("create");
        let mut perms = std::fs::metadata(&archive).expect("meta").permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&archive, perms).expect("chmod");
        assert!(Table::open(&archive, standard_referee()).is_err());
        assert!(!spool_dir(&archive).exists(), "a frames folder was left");
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
