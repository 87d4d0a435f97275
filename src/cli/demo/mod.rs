//! `eleusis demo`: the product without cards or camera. It starts the real service
//! (the same `Service` as `eleusis serve`, on a fresh database) and plays a whole
//! simulated New Eleusis round into it, one event every `--pace-ms`, through the
//! desk's recorder — the gate every God-console event goes through — so the tablet,
//! the God console and the audit pages fill up exactly as at a real table.
//! The round itself comes from [`round::demo_round`], a pure function of the seed.

pub mod round;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde_json::{Map, Value};

use crate::referee::{Call, LogEvent};
use crate::store::{side_file, SIDE_FILE_SUFFIXES};
use crate::web::desk::{spool_dir, Desk};
use crate::web::{AppState, ServiceOptions};

use round::{demo_round, DemoSetup, DEFAULT_RULE};

/// Arguments of `eleusis demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Address to listen on, as `serve --addr` takes it (port 0: any free port,
    /// printed at start).
    #[arg(long, default_value = "127.0.0.1:8080", value_parser = crate::cli::serve::parse_addr)]
    pub addr: SocketAddr,
    /// The database file (default: a temporary one, removed on exit). An existing
    /// database is kept; the demo round opens a new game in it.
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// The secret rule, in the rule language.
    #[arg(long, default_value = DEFAULT_RULE)]
    pub rule: String,
    /// Decides the deal and every choice of the simulated players (default: from
    /// the clock; printed at start so a round can be shown again).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Milliseconds between two events.
    #[arg(long, default_value_t = 1500)]
    pub pace_ms: u64,
    /// Stop after this many plays and "no plays" (default: until the round ends).
    #[arg(long)]
    pub plays: Option<usize>,
}

/// Runs the demo until Ctrl-C or SIGTERM.
pub fn run(args: &DemoArgs) -> ExitCode {
    super::serve::init_logging("warn");
    let seed = args.seed.unwrap_or_else(clock_seed);
    let mut setup = DemoSetup::new(seed, &args.rule);
    setup.max_plays = args.plays;
    let events = match demo_round(&setup) {
        Ok(events) => events,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let (db, temporary) = match &args.db {
        Some(db) => (db.clone(), false),
        None => (temp_db(seed), true),
    };
    let runtime = match super::serve::runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let code = runtime.block_on(demo(args, &db, seed, events));
    drop(runtime);
    if temporary {
        remove_db(&db);
    }
    code
}

async fn demo(args: &DemoArgs, db: &Path, seed: u64, events: Vec<LogEvent>) -> ExitCode {
    let options = ServiceOptions {
        db: db.to_path_buf(),
        models: None,
        god_token: None,
        no_recognizer: true,
        confirm_threshold: None,
        confirm_courts: false,
    };
    let (service, listener, _, stop) = match super::serve::start("demo", &options, args.addr).await
    {
        Ok(started) => started,
        Err(code) => return code,
    };
    // The demo opens a new game, which the table refuses while the latest game of
    // the database has not ended: said now, not as a refused first event after
    // which the pages would stay up showing someone else's round.
    let unfinished = service
        .state
        .table
        .run(|desk: &mut Desk<'_>| desk.game().filter(|_| !desk.game_over()))
        .await;
    if let Ok(Some(game)) = unfinished {
        eprintln!(
            "error: database {}: its game {game} has not ended, and the demo opens a new game only once the latest one has: end game {game} first (the God console's End the game), or give the demo another --db",
            db.display()
        );
        return ExitCode::from(2);
    }
    super::serve::say(&format!(
        "  round:        seed {seed}, {} events, one every {} ms (Ctrl-C stops)",
        events.len(),
        args.pace_ms
    ));
    super::serve::flush_stdout();
    let state = Arc::clone(&service.state);
    let pace = Duration::from_millis(args.pace_ms);
    // A reader that goes away (`eleusis demo | head -3`) stops the demo as Ctrl-C
    // does, so that its temporary database is removed.
    let (gone, reader_gone) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move { feed(state, events, pace, gone).await });
    let stop = async move {
        tokio::select! {
            () = stop => {}
            Ok(()) = reader_gone => {}
        }
    };
    super::serve::serve_until_stopped(service, listener, stop, "eleusis demo: stopped").await
}

/// Records the events one by one on the table's desk, `pace` apart.
async fn feed(
    state: Arc<AppState>,
    events: Vec<LogEvent>,
    pace: Duration,
    gone: tokio::sync::oneshot::Sender<()>,
) {
    for (i, event) in events.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(pace).await;
        }
        let summary = summary(&event);
        let call = prophet_call(&event);
        let object = match serde_json::to_value(&event) {
            Ok(Value::Object(object)) => object,
            _ => Map::new(),
        };
        let new_game = i == 0;
        let recorded = state
            .table
            .run(move |desk: &mut Desk<'_>| desk.record(object, "eleusis demo", new_game))
            .await;
        match recorded {
            Ok(Ok(ack)) => {
                let verdict = match ack.right {
                    Some(true) => " → right",
                    Some(false) => " → wrong",
                    None => "",
                };
                // A Prophet whose call God contradicts is overthrown (RULES.md 4).
                let prophet = match (call, ack.right) {
                    (Some(said), Some(right)) if said.accepts() != right => {
                        "; the Prophet was wrong and is overthrown"
                    }
                    _ => "",
                };
                if !super::serve::say(&format!("  {:>3}  {summary}{verdict}{prophet}", ack.seq)) {
                    let _ = gone.send(());
                    return;
                }
            }
            Ok(Err(e)) => {
                eprintln!("error: the table refused the demo's event {summary}: {e}");
                return;
            }
            // The service is shutting down.
            Err(_) => return,
        }
    }
    let ended = {
        let views = state.table.views();
        let view = views.borrow();
        view.public["state"]["end_reason"]
            .as_str()
            .map(|reason| format!("the round has ended: {reason}"))
    };
    if !super::serve::say(&format!(
        "eleusis demo: all events played ({}); the pages stay up until Ctrl-C",
        ended.unwrap_or_else(|| "the round goes on".to_string())
    )) {
        let _ = gone.send(());
    }
}

/// One line for the terminal, e.g. `Alain plays 4S 9D JC`.
fn summary(event: &LogEvent) -> String {
    let cards = |cards: &[crate::cards::Card]| {
        cards
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    };
    match event {
        LogEvent::Round(r) => format!(
            "round: God {}, players {}, starter {}",
            r.god,
            r.players.join(", "),
            r.starter
        ),
        LogEvent::Play(p) => format!(
            "{} plays {}{}",
            p.player.as_deref().unwrap_or("?"),
            cards(&p.cards),
            said(p.prophet_says)
        ),
        LogEvent::NoPlay(n) => format!(
            "{} declares no play ({} cards){}",
            n.player.as_deref().unwrap_or("?"),
            n.hand.len(),
            said(n.prophet_says)
        ),
        LogEvent::Prophet(p) => format!("{} becomes the Prophet", p.player),
        other => other.name().to_string(),
    }
}

/// The Prophet's call on a play or a "no play", when there is a Prophet.
fn prophet_call(event: &LogEvent) -> Option<Call> {
    match event {
        LogEvent::Play(p) => p.prophet_says,
        LogEvent::NoPlay(n) => n.prophet_says,
        _ => None,
    }
}

/// `, the Prophet says wrong` for a line of the terminal; empty without a call.
fn said(call: Option<Call>) -> String {
    match call {
        Some(Call::Right) => ", the Prophet says right".to_string(),
        Some(Call::Wrong) => ", the Prophet says wrong".to_string(),
        None => String::new(),
    }
}

/// A seed from the clock, for a different round at every start.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() ^ u64::from(d.subsec_nanos()))
        .unwrap_or(0)
}

/// A fresh database path in the temporary directory.
fn temp_db(seed: u64) -> PathBuf {
    std::env::temp_dir().join(format!("eleusis-demo-{}-{seed}.db", std::process::id()))
}

/// Removes a temporary database, its SQLite side files and its frame spool.
fn remove_db(db: &Path) {
    let _ = std::fs::remove_file(db);
    for suffix in SIDE_FILE_SUFFIXES {
        let _ = std::fs::remove_file(side_file(db, suffix));
    }
    let _ = std::fs::remove_dir_all(spool_dir(db));
}
