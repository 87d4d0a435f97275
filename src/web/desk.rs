//! The table's desk: one thread that owns the store and the recorder, so every
//! event goes through the same gate as `eleusis record` (refereed first, stored
//! only when accepted, durable before the reply) and events are applied one at a
//! time in arrival order. HTTP handlers send it jobs and await the answer; after
//! every change it rebuilds the views and publishes them to the WebSocket clients.
//! Between jobs it watches the database for commits by other writers (an
//! `eleusis record` fed by a club's own tools, a correction typed at a terminal)
//! and shows them too. Each time it also checks that the database still holds
//! every event the service acknowledged (or showed) with the hash it had, and that
//! the game's hash chain still holds: an event deleted or edited outside the
//! service (SQL typed at a terminal) stops recording, with an alarm on God's view
//! and a refusal of every write, until the database is restored.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::{oneshot, watch};

use crate::store::chain::Break;
use crate::store::history::RefereeFactory;
use crate::store::log::ChainStatus;
use crate::store::recorder::{Ack, Recorder, Reply};
use crate::store::{format_utc, now_ms, GameId, RoundRef, Store, StoreError};

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
    /// The events of the game on show that the desk vouches for: each one it
    /// acknowledged, and the head it found at start or after another writer's
    /// commit. The database must go on holding each of them with the same hash.
    held: Vec<Held>,
    /// Where the game's chain was already broken when the desk took it up (the
    /// start warning): that break alone does not stop recording.
    known_break: Option<(GameId, Break)>,
    /// Set while the database no longer holds what the desk vouches for, or
    /// cannot be read: logged once (and again when it changes or is over).
    alarm: Option<Alarm>,
}

/// An event the desk vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Held {
    round: RoundRef,
    seq: u64,
    hash: String,
    /// When it was acknowledged (or first seen), Unix milliseconds.
    at_ms: i64,
    /// Acknowledged by this service, rather than found in the database.
    acknowledged: bool,
}

impl Held {
    /// `event 2 of round 1.1, acknowledged at 10:40:01 UTC`.
    fn describe(&self) -> String {
        let time = format_utc(self.at_ms);
        let clock = time.get(11..19).unwrap_or(&time);
        let how = if self.acknowledged {
            "acknowledged at"
        } else {
            "shown since"
        };
        format!(
            "event {} of round {}, {how} {clock} UTC",
            self.seq, self.round
        )
    }
}

/// Recording stopped: the database no longer holds what the desk vouches for.
struct Alarm {
    message: String,
    /// The views as they were before the database was altered: shown on, with
    /// the alarm, while it lasts.
    shown: Arc<Views>,
}

/// The views `shown` with `alarm` added (`"alarm"`, in both views): what the
/// pages show while recording is stopped.
fn with_alarm(shown: &Views, alarm: &str) -> Views {
    let value = Value::String(alarm.to_string());
    let splice = |body: &str| match body.strip_prefix('{') {
        Some(rest) if rest.trim_start().starts_with('}') => format!("{{\"alarm\":{value}}}"),
        Some(rest) => format!("{{\"alarm\":{value},{rest}"),
        None => body.to_string(),
    };
    let add = |view: &Value| {
        let mut view = view.clone();
        if let Value::Object(map) = &mut view {
            map.insert("alarm".into(), value.clone());
        }
        view
    };
    let public_body = splice(&shown.public_body);
    let god_body = splice(&shown.god_body);
    Views {
        version: shown.version,
        public: add(&shown.public),
        god: add(&shown.god),
        public_text: shown
            .public_text
            .replacen(&shown.public_body, &public_body, 1),
        god_text: shown.god_text.replacen(&shown.god_body, &god_body, 1),
        public_body,
        god_body,
    }
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
        // Another connection committed since the desk last looked (perhaps an
        // event deleted or edited by hand): checked now, not after this write.
        if self.alarm.is_some() || self.store.data_version().ok() != self.data_version {
            self.follow_outside_writers();
        }
        if let Some(alarm) = &self.alarm {
            return Err(ApiError::Halted {
                what: alarm.message.clone(),
                at: at.into(),
            });
        }
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
                    self.held.clear();
                }
                self.hold_acknowledged(&ack);
                if self.game_over() && self.take_up_newer_game() {
                    // A game another writer started meanwhile is on show from now.
                    self.took_up_game();
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

    /// Keeps an acknowledged event (the last of a correction group, whose hash
    /// the acknowledgement carries) among those the store must go on holding.
    fn hold_acknowledged(&mut self, ack: &Ack) {
        let Ok(round) = ack.round.parse::<RoundRef>() else {
            return;
        };
        let seq = ack
            .group
            .as_ref()
            .and_then(|group| group.last().copied())
            .unwrap_or(ack.seq);
        self.held.push(Held {
            round,
            seq,
            hash: ack.hash.clone(),
            at_ms: now_ms(),
            acknowledged: true,
        });
    }

    /// Keeps the head of the game on show, found in the store, among the events
    /// the store must go on holding (at start, after another writer's commit).
    fn hold_head(&mut self, head: Option<(RoundRef, u64, String)>) {
        let Some((round, seq, hash)) = head else {
            return;
        };
        if self
            .held
            .iter()
            .any(|h| h.round == round && h.seq == seq && h.hash == hash)
        {
            return;
        }
        self.held.push(Held {
            round,
            seq,
            hash,
            at_ms: now_ms(),
            acknowledged: false,
        });
    }

    /// After another game was put on show: what the desk vouches for is that
    /// game's head as stored, and a break its chain already has is known.
    fn took_up_game(&mut self) {
        self.held.clear();
        self.known_break = None;
        let Some(game) = self.game() else {
            return;
        };
        let found = self
            .store
            .read(|store| Ok::<_, StoreError>((store.head(game)?, store.verify_game(game, None)?)));
        match found {
            Ok((head, status)) => {
                self.hold_head(head);
                if let ChainStatus::Broken(broken) = status {
                    self.known_break = Some((game, broken));
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot read the head of game {game}"),
        }
    }

    /// Whether the store still holds every event the desk vouches for, each with
    /// its hash, and the chain of the game on show still holds (but for a break
    /// it had when the desk took the game up). `Ok` with the head it found, or
    /// the alarm to raise.
    fn check_store(&self) -> Result<Option<(RoundRef, u64, String)>, String> {
        let Some(game) = self.game() else {
            return Ok(None);
        };
        let until = self.until();
        let read = self.store.read(|store| {
            Ok::<_, StoreError>((store.events(game)?, store.verify_game(game, None)?))
        });
        let (events, status) = match read {
            Ok(found) => found,
            Err(StoreError::UnknownGame(_)) => {
                return Err(format!(
                    "the database was altered outside the service: game {game} is gone from it; {until}"
                ))
            }
            Err(e) => return Err(self.unreadable(&e)),
        };
        let stored: HashMap<(u32, u64), &str> = events
            .iter()
            .map(|e| ((e.round.number, e.seq), e.hash.as_str()))
            .collect();
        for held in self.held.iter().filter(|h| h.round.game == game) {
            let what = match stored.get(&(held.round.number, held.seq)) {
                None => "is gone",
                Some(hash) if *hash != held.hash => "no longer carries the hash it had",
                Some(_) => continue,
            };
            return Err(format!(
                "the database was altered outside the service: {}, {what}; {until}",
                held.describe()
            ));
        }
        if let ChainStatus::Broken(broken) = status {
            let known = self
                .known_break
                .as_ref()
                .is_some_and(|(g, b)| *g == game && *b == broken);
            if !known {
                let held = self
                    .held
                    .iter()
                    .find(|h| h.acknowledged && h.round == broken.round && h.seq == broken.seq);
                let what = match held {
                    Some(held) => format!(
                        "{}, no longer matches its hash: {}",
                        held.describe(),
                        broken.reason
                    ),
                    None => format!("game {game}'s hash chain is broken at {broken}"),
                };
                return Err(format!(
                    "the database was altered outside the service: {what}; {until}"
                ));
            }
        }
        Ok(events.last().map(|e| (e.round, e.seq, e.hash.clone())))
    }

    /// How the alarm ends: what stops and what to do.
    fn until(&self) -> String {
        let audit = match self.game() {
            Some(game) => format!("; run `eleusis audit {game}`"),
            None => String::new(),
        };
        format!(
            "nothing more is recorded until it is restored (the altered rows put back, or the \
             service stopped and a backup put in its place){audit}"
        )
    }

    /// The alarm for a database the desk cannot read any more.
    fn unreadable(&self, error: &StoreError) -> String {
        let audit = match self.game() {
            Some(game) => format!(", and run `eleusis audit {game}`"),
            None => String::new(),
        };
        format!(
            "the database cannot be read any more ({error}): it was altered outside the \
             service, or its disk failed; nothing more is recorded: stop the service, put the \
             database back (from a backup) and start it again{audit}"
        )
    }

    /// Stops recording with `message`, shown on both views over what they showed
    /// before, and logged once.
    fn raise(&mut self, message: String) {
        if self.alarm.as_ref().is_some_and(|a| a.message == message) {
            return;
        }
        tracing::error!("{message}");
        let shown = match self.alarm.take() {
            Some(alarm) => alarm.shown,
            None => self.latest(),
        };
        self.views
            .send_replace(Arc::new(with_alarm(&shown, &message)));
        self.alarm = Some(Alarm { message, shown });
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
    ///
    /// First it checks that the store still holds what the desk vouches for
    /// ([`Desk::check_store`]): when it does not, nothing is followed, the pages
    /// keep what they showed with the alarm over it, and every write is refused
    /// until a look finds the store as it was (restored); the check is made at
    /// every look meanwhile.
    fn follow_outside_writers(&mut self) {
        let version = match self.store.data_version() {
            Ok(v) => v,
            Err(e) => {
                // Twice a second while it lasts (a database file truncated under
                // the service): said once, as the alarm.
                let message = self.unreadable(&e);
                self.raise(message);
                return;
            }
        };
        if self.data_version == Some(version) && self.alarm.is_none() {
            return;
        }
        self.data_version = Some(version);
        match self.check_store() {
            Ok(head) => {
                if let Some(alarm) = self.alarm.take() {
                    tracing::warn!(
                        "the database holds again what the service acknowledged; recording \
                         goes on (it was stopped: {})",
                        alarm.message
                    );
                }
                self.hold_head(head);
            }
            Err(message) => {
                self.raise(message);
                return;
            }
        }
        if self.take_up_newer_game() {
            self.took_up_game();
        } else if let Err(e) = self.recorder.follow() {
            tracing::error!(error = %e, "cannot follow another writer's events");
        } else if self.take_up_newer_game() {
            // The other writer ended the game on show and started another between
            // two looks: ended only now that its events are followed, it gives way
            // to the newer game at once (no later look would, nothing having moved).
            self.took_up_game();
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

    /// Rebuilds the views and pushes them to every page. While recording is
    /// stopped (an alarm) the pages keep what they showed, with the alarm.
    pub fn publish(&mut self) {
        if let Some(alarm) = &self.alarm {
            self.views
                .send_replace(Arc::new(with_alarm(&alarm.shown, &alarm.message)));
            return;
        }
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
        held: Vec::new(),
        known_break: None,
        alarm: None,
    };
    desk.data_version = desk.store.data_version().ok();
    desk.took_up_game();
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

    /// Records `lines` through a second writer on the database at `path`, into
    /// `game` (a new game when `None`), as `eleusis record` beside the service would.
    fn record_outside(path: &std::path::Path, lines: &[&str], game: Option<GameId>) {
        let store = Store::open(path).expect("second writer");
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
    }

    #[test]
    fn the_table_shows_what_another_writer_records() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("t.db");
        let table = Table::open(&path, standard_referee()).expect("open");
        let round = r#"{"event":"round","god":"Gil","players":["Ana","Bo"],"rule":"true","starter":"3H","hand_size":12}"#;
        let outside = |lines: &[&str], game: Option<GameId>| record_outside(&path, lines, game);
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
        // Another writer ends the game on show and starts a third one, both between
        // two looks: the game ends when followed, and the third is taken up then.
        outside(&[r#"{"event":"end_game"}"#], Some(GameId(2)));
        outside(&[round], None);
        wait_for_view(&table, "the third game", |v| v["game"] == "3");
        table.close();
    }

    #[test]
    fn a_database_truncated_under_the_table_stops_recording_and_says_so() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("t.db");
        let table = Table::open(&path, standard_referee()).expect("open");
        let rt = runtime();
        let record = |line: &'static str| {
            rt.block_on(table.run(move |desk: &mut Desk<'_>| {
                let object: Map<String, Value> = serde_json::from_str(line).expect("object");
                desk.record(object, "test", false).map(|ack| ack.seq)
            }))
            .expect("desk")
        };
        let round = r#"{"event":"round","god":"Gil","players":["Ana","Bo"],"rule":"true","starter":"3H","hand_size":12}"#;
        assert_eq!(record(round).expect("round"), 1);
        assert_eq!(
            record(r#"{"event":"play","cards":["4S"]}"#).expect("play"),
            2
        );
        // Everything in the database file itself (none in its write-ahead log),
        // kept aside, and the file emptied.
        let other = rusqlite::Connection::open(&path).expect("other");
        other
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .expect("checkpoint");
        drop(other);
        let kept = std::fs::read(&path).expect("read");
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("file");
        file.set_len(0).expect("truncated");
        let view = wait_for_view(&table, "the alarm", |v| v["alarm"].is_string());
        let alarm = view["alarm"].as_str().expect("alarm");
        assert!(alarm.contains("cannot be read"), "{alarm}");
        assert_eq!(view["state"]["laid"], 2, "{view}");
        match record(r#"{"event":"play","cards":["5D"]}"#) {
            Err(ApiError::Halted { what, .. }) => assert_eq!(what, alarm),
            other => panic!("recorded on an emptied database: {other:?}"),
        }
        // SQLite's connection stays unable to read that file, even once it is put
        // back: stopped, and started again on the file put back, the table goes
        // on where it was.
        table.close();
        std::fs::write(&path, kept).expect("put back");
        let table = Table::open(&path, standard_referee()).expect("reopen");
        let next = rt
            .block_on(table.run(|desk: &mut Desk<'_>| {
                let play: Map<String, Value> =
                    serde_json::from_str(r#"{"event":"play","cards":["5D"]}"#).expect("object");
                desk.record(play, "test", false).map(|ack| ack.seq)
            }))
            .expect("desk");
        assert_eq!(next.expect("play"), 3);
        table.close();
    }

    #[test]
    fn a_chain_already_broken_at_start_does_not_stop_recording_but_a_new_change_does() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("t.db");
        let outside = |lines: &[&str], game: Option<GameId>| record_outside(&path, lines, game);
        let by_hand = |sql: &str| {
            let conn = rusqlite::Connection::open(&path).expect("raw");
            conn.execute_batch(&format!(
                "DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete; {sql}"
            ))
            .expect("by hand");
        };
        let round = r#"{"event":"round","god":"Gil","players":["Ana","Bo"],"rule":"true","starter":"3H","hand_size":12}"#;
        outside(&[round, r#"{"event":"play","cards":["4S"]}"#], None);
        // Broken before the service starts (its start warning says so).
        by_hand("UPDATE events SET payload = replace(payload, '4S', '4C') WHERE seq = 2");
        let table = Table::open(&path, standard_referee()).expect("open");
        let rt = runtime();
        let record = |line: &'static str| {
            rt.block_on(table.run(move |desk: &mut Desk<'_>| {
                let object: Map<String, Value> = serde_json::from_str(line).expect("object");
                desk.record(object, "test", false).map(|ack| ack.seq)
            }))
            .expect("desk")
        };
        assert_eq!(
            record(r#"{"event":"play","cards":["5D"]}"#).expect("play"),
            3
        );
        // Another writer's play is followed, the old break notwithstanding.
        outside(&[r#"{"event":"play","cards":["6C"]}"#], Some(GameId(1)));
        wait_for_view(&table, "the outside play", |v| v["state"]["laid"] == 4);
        assert!(table.views().borrow().public["alarm"].is_null());
        assert_eq!(
            record(r#"{"event":"play","cards":["7H"]}"#).expect("play"),
            5
        );
        // The newest event, acknowledged here, cut off by hand: caught.
        let conn = rusqlite::Connection::open(&path).expect("raw");
        conn.execute_batch(
            "DELETE FROM verdicts WHERE event_id = (SELECT max(id) FROM events); \
             DELETE FROM events WHERE id = (SELECT max(id) FROM events)",
        )
        .expect("cut");
        drop(conn);
        let view = wait_for_view(&table, "the alarm", |v| v["alarm"].is_string());
        let alarm = view["alarm"].as_str().expect("alarm");
        assert!(
            alarm.contains("event 5 of round 1.1, acknowledged at ") && alarm.contains("is gone"),
            "{alarm}"
        );
        assert_eq!(view["state"]["laid"], 5, "{view}");
        match record(r#"{"event":"play","cards":["8S"]}"#) {
            Err(e @ ApiError::Halted { .. }) => {
                assert_eq!(e.status(), axum::http::StatusCode::CONFLICT);
                assert_eq!(e.to_string(), alarm);
            }
            other => panic!("recorded on a cut log: {other:?}"),
        }
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
