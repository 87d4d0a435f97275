//! `eleusis serve`: the live service for a table — the tablet page, the God
//! console and the audit pages, on one address. It opens (or creates) the store,
//! continues the game it was playing (the state is rebuilt from the stored log),
//! prints the URLs with the God token, and stops cleanly on Ctrl-C or SIGTERM.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use clap::Args;
use rusqlite::{Connection, ErrorCode, OpenFlags};
use thiserror::Error;
use tokio::net::TcpListener;

use crate::store::history::HistoryError;
use crate::store::{side_file, DEFAULT_DB, SERVE_LOCK_SUFFIX};
use crate::web::{Service, ServiceOptions, Urls};

/// Arguments of `eleusis serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The database file (created when missing); the game it holds is continued.
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Address to listen on: `HOST:PORT` (`0.0.0.0:8080`: every network;
    /// `localhost:8080`: this machine only) or a port alone (`8080`: every network).
    /// Port 0: any free port, printed at start.
    #[arg(long, default_value = "0.0.0.0:8080", value_parser = parse_addr)]
    pub addr: SocketAddr,
    /// Directory of the card recognizer (`recognizer.onnx` + `recognizer.json`);
    /// default: the usual search path (`$ELEUSIS_MODEL`, `./models`, …).
    #[arg(long)]
    pub models: Option<PathBuf>,
    /// Run without the card recognizer (God types every card).
    #[arg(long, conflicts_with = "models")]
    pub no_recognizer: bool,
    /// Ask God about every read less sure than this, as well as those the model's
    /// own threshold asks about: stricter only. For a deck the model misreads
    /// surely; `eleusis recognize --check` of photos of it suggests one.
    #[arg(long, conflicts_with = "no_recognizer", value_parser = super::recognize::parse_confidence, value_name = "CONFIDENCE")]
    pub confirm_threshold: Option<f32>,
    /// Ask God about every card read as a jack, queen or king, however sure: for a
    /// deck whose court cards are not indexed J, Q, K (French V, D, R; German B,
    /// D, K), whose court letters the model never learnt.
    #[arg(long, conflicts_with = "no_recognizer")]
    pub confirm_courts: bool,
    /// The God token (default: a fresh random one each start). Also read from
    /// `ELEUSIS_GOD_TOKEN`.
    #[arg(long)]
    pub god_token: Option<String>,
}

/// Runs the service until Ctrl-C or SIGTERM.
pub fn run(args: &ServeArgs) -> ExitCode {
    init_logging("info");
    match runtime() {
        Ok(runtime) => runtime.block_on(serve(args)),
        Err(code) => code,
    }
}

async fn serve(args: &ServeArgs) -> ExitCode {
    let options = ServiceOptions {
        db: args.db.clone(),
        models: args.models.clone(),
        god_token: args
            .god_token
            .clone()
            .or_else(|| std::env::var("ELEUSIS_GOD_TOKEN").ok()),
        no_recognizer: args.no_recognizer,
        confirm_threshold: args.confirm_threshold,
        confirm_courts: args.confirm_courts,
    };
    let (service, listener, addr, stop) = match start("serve", &options, args.addr).await {
        Ok(started) => started,
        Err(code) => return code,
    };
    say(&format!("  recognizer:   {}", service.state.camera.note));
    if service.state.camera.settings().confirm_courts {
        say("  court cards:  every one asks God (--confirm-courts; switched at the God console's Camera panel)");
    }
    if addr.ip().is_unspecified() {
        let network =
            lan_address(addr.ip()).map(|ip| service.urls(SocketAddr::new(ip, addr.port())));
        for line in network_lines(network.as_ref()) {
            say(&line);
        }
    }
    flush_stdout();
    serve_until_stopped(
        service,
        listener,
        stop,
        "eleusis serve: stopped; the database is closed",
    )
    .await
}

/// Logs to standard error at `level` unless `RUST_LOG` says otherwise. The
/// inference library's notes about the CPU kernels it picked are kept to warnings:
/// they would bury the URLs God needs at start.
pub(crate) fn init_logging(level: &str) {
    let default = format!("{level},tract_linalg=warn,tract_core=warn,tract_onnx=warn");
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default)),
        )
        .with_writer(std::io::stderr)
        .try_init();
}

/// The async runtime the service runs on, or the exit code after saying why not.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("error: cannot start the async runtime: {e}");
            ExitCode::from(2)
        })
}

/// A started service: the service, its listener and address, and the future that
/// resolves when it is told to stop.
pub(crate) type Started = (
    Service,
    TcpListener,
    SocketAddr,
    std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
);

/// Opens the service, binds `addr` and prints the URLs a table needs (`serve` and
/// `demo` start the same way); on failure, says why and gives the exit code. The
/// stop signals are caught from before the URLs are printed: a script that reads
/// them and stops the service at once must get a clean stop, not a killed process.
pub(crate) async fn start(
    name: &str,
    options: &ServiceOptions,
    addr: SocketAddr,
) -> Result<Started, ExitCode> {
    // The address first: a start refused for a busy port leaves no database and
    // no frames folder behind, like one refused for a bad database path.
    let listener = TcpListener::bind(addr).await.map_err(|e| {
        eprintln!("error: cannot listen on {addr}: {e}");
        ExitCode::from(2)
    })?;
    // A database refused (damaged, unreadable) leaves no frames folder behind,
    // like one refused for a bad path: the service makes the folder once the
    // file opened, before it has read the game in it.
    let spool = crate::web::desk::spool_dir(&options.db);
    let spool_was_there = spool.exists();
    let service = Service::open(options).map_err(|e| {
        if !spool_was_there {
            // Only an empty folder goes: nothing was put in it yet.
            let _ = std::fs::remove_dir(&spool);
        }
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    // Once the database is known good: a refused one leaves no lock file. Held
    // until the process ends (see `HELD`).
    match ServeLock::take(&options.db) {
        Ok(lock) => HELD
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(lock),
        Err(e) => {
            eprintln!("error: {e}");
            return Err(ExitCode::from(2));
        }
    }
    let addr = listener.local_addr().unwrap_or(addr);
    let stop = Box::pin(shutdown_signal());
    let urls = service.urls(addr);
    say(&format!(
        "eleusis {name}: listening on {addr}, database {}",
        options.db.display()
    ));
    say(&format!("  tablet:       {}", urls.tablet));
    say(&format!("  God console:  {}", urls.god));
    say(&format!("  audit:        {}", urls.audit));
    say(&format!(
        "  game:         {}",
        where_the_game_stands(&service.state.table.views().borrow().public)
    ));
    for line in broken_chains(&options.db) {
        say(&line);
    }
    Ok((service, listener, addr, stop))
}

/// A start line for each game of `db` whose hash chain no longer holds: events
/// altered after they were recorded. The service still runs (the table may need
/// to play on), but the organiser should know before a sheet is asked for.
fn broken_chains(db: &std::path::Path) -> Vec<String> {
    let Ok(store) = crate::store::Store::open_read_only(db) else {
        return Vec::new();
    };
    let games = store.games().unwrap_or_default();
    let mut lines = Vec::new();
    let mut latest_checks = false;
    for &game in &games {
        let line = match crate::store::history::require_intact_chain(&store, game, None) {
            Err(HistoryError::BrokenChain { broken, .. }) => Some(format!(
                "  warning:      game {game}'s hash chain is broken at {broken}: its stored events were altered; run `eleusis audit {game}` (its exports are refused)"
            )),
            Err(HistoryError::ForgedRule { round, what, .. }) => Some(format!(
                "  warning:      game {game}: round {round}'s stored rule no longer matches the commitment made before play ({what}): the seals table was altered; run `eleusis audit {game}` (its exports are refused)"
            )),
            Err(_) => None,
            Ok(()) => {
                latest_checks = games.last() == Some(&game);
                None
            }
        };
        lines.extend(line);
    }
    if latest_checks {
        if let Some(&game) = games.last() {
            lines.extend(continued_game_problems(&store, game));
        }
    }
    lines
}

/// A start line for each problem `eleusis audit` finds in `game`, the one the service
/// continues, once its chain and rules check (otherwise the lines above say so): a
/// revealed round whose end was cut off the log, an announcement the log did not
/// decide, a frame gone, an index table edited. The table plays on in that game.
fn continued_game_problems(store: &crate::store::Store, game: crate::store::GameId) -> Vec<String> {
    let factory = crate::store::history::standard_referee();
    match crate::store::audit::audit(store, &factory, crate::store::Target::Game(game), true) {
        Ok(report) => report
            .problems
            .iter()
            .map(|problem| {
                format!(
                    "  warning:      game {game}: {}; run `eleusis audit {game}`",
                    crate::store::printable::printable(problem)
                )
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The start lines for the tablets on the network, for a service listening on
/// every network: the pages at this machine's own address when it was found
/// (`tablet:` as on the first lines, so that a script reading the first
/// `tablet:` line still finds `localhost`), else the advice to use it.
fn network_lines(urls: Option<&Urls>) -> Vec<String> {
    match urls {
        Some(urls) => vec![
            "  from a tablet or phone on the network, this machine's address:".to_string(),
            format!("  tablet:       {}", urls.tablet),
            format!("  God console:  {}", urls.god),
        ],
        None => vec![
            "  (from a tablet on the network, use this machine's address instead of localhost)"
                .to_string(),
        ],
    }
}

/// This machine's address on the network its default route leads to (the one a
/// tablet on the same Wi-Fi reaches it by), for a service listening on every
/// network; `None` when there is none (no network) or only a loopback one.
/// Connecting a UDP socket sends nothing: the system only picks the interface it
/// would send from, whose address the socket then has. The peer is an address
/// reserved for documentation (RFC 5737, RFC 3849), never a real host. An IPv4
/// address is tried first, even for `[::]`, which takes IPv4 too on most systems
/// and is easier to type on a tablet.
fn lan_address(listening: IpAddr) -> Option<IpAddr> {
    let mut probes: Vec<(SocketAddr, SocketAddr)> = vec![(
        SocketAddr::from(([0, 0, 0, 0], 0)),
        SocketAddr::from(([192, 0, 2, 1], 9)),
    )];
    if listening.is_ipv6() {
        probes.push((
            SocketAddr::from((std::net::Ipv6Addr::UNSPECIFIED, 0)),
            SocketAddr::from((std::net::Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), 9)),
        ));
    }
    probes.into_iter().find_map(|(local, peer)| {
        let socket = std::net::UdpSocket::bind(local).ok()?;
        socket.connect(peer).ok()?;
        let ip = socket.local_addr().ok()?.ip();
        (!ip.is_unspecified() && !ip.is_loopback()).then_some(ip)
    })
}

/// The locks of the databases this process serves, kept until it ends: the
/// operating system lets them go when it does, however it ends (a crash, a
/// kill, a power cut), so a lock is never left behind to refuse the next start.
static HELD: Mutex<Vec<ServeLock>> = Mutex::new(Vec::new());

/// A running service's hold on its database: an exclusive SQLite lock on the file
/// `DB.serve.lock` beside it ([`SERVE_LOCK_SUFFIX`]), kept for as long as the
/// value lives. SQLite's lock, not one on the database itself, because `record`,
/// `audit`, `export` and `backup` must go on working beside the service; and not
/// a file whose mere presence means "taken", which a killed service would leave
/// behind.
pub(crate) struct ServeLock {
    /// Inside a transaction that is never ended: the lock it holds.
    _conn: Connection,
}

/// Why a service cannot take its database.
#[derive(Debug, Error)]
pub(crate) enum ServeLockError {
    #[error("database {db} is already served by another `eleusis serve` (or `eleusis demo`), which holds {lock} locked: two services on one database would each start games of their own, and the game would fork; stop the other one first, or give another --db (`eleusis record`, `audit`, `export` and `backup` work beside it)")]
    Held { db: PathBuf, lock: PathBuf },
    #[error("database {db}: cannot take the lock file {lock} that keeps a second service off it: {cause}")]
    Lock {
        db: PathBuf,
        lock: PathBuf,
        cause: rusqlite::Error,
    },
}

/// Where `db` really is: a symbolic link (of the file or of a folder on its path)
/// resolved, so that the lock is taken beside the file itself, whatever name a
/// second service is given for it. A file not made yet is resolved by its folder.
fn real_path(db: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(db) {
        return real;
    }
    match (db.parent(), db.file_name()) {
        (Some(folder), Some(name)) => {
            let folder = if folder.as_os_str().is_empty() {
                Path::new(".")
            } else {
                folder
            };
            std::fs::canonicalize(folder)
                .map(|real| real.join(name))
                .unwrap_or_else(|_| db.to_path_buf())
        }
        _ => db.to_path_buf(),
    }
}

impl ServeLock {
    /// Takes the hold on `db`, or says which service has it. Never waits: a
    /// second service is refused at once.
    pub(crate) fn take(db: &Path) -> Result<ServeLock, ServeLockError> {
        let lock = side_file(&real_path(db), SERVE_LOCK_SUFFIX);
        let failed = |cause: rusqlite::Error| {
            let busy = matches!(
                cause.sqlite_error_code(),
                Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
            );
            if busy {
                ServeLockError::Held {
                    db: db.to_path_buf(),
                    lock: lock.clone(),
                }
            } else {
                ServeLockError::Lock {
                    db: db.to_path_buf(),
                    lock: lock.clone(),
                    cause,
                }
            }
        };
        let conn = Connection::open_with_flags(
            &lock,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(failed)?;
        conn.busy_timeout(Duration::ZERO).map_err(failed)?;
        // No journal: the lock file stays empty, and a service killed while it
        // holds the lock leaves no journal beside it.
        conn.query_row("PRAGMA journal_mode=OFF", [], |row| row.get::<_, String>(0))
            .map_err(failed)?;
        conn.execute_batch("BEGIN EXCLUSIVE").map_err(failed)?;
        Ok(ServeLock { _conn: conn })
    }
}

/// Reads `--addr`: an IP address and port, a host name and port (`localhost:8080`,
/// as the printed URLs say), or a port alone, on every network (`8080`).
pub(crate) fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let text = text.trim();
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([0, 0, 0, 0], port)));
    }
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let expected = "expected HOST:PORT (0.0.0.0:8080 for every network, localhost:8080 for this machine only) or a port alone (8080)";
    // Digits alone are a port, however many: `70000` is a port too large, not
    // a host without one.
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{text:?} is not a port: give one from 0 to 65535; {expected}"
        ));
    }
    if !text.contains(':') {
        return Err(format!("{text:?} has no port: {expected}"));
    }
    let found: Vec<SocketAddr> = text
        .to_socket_addrs()
        .map_err(|e| format!("{text:?}: {e}; {expected}"))?
        .collect();
    // `localhost` names both 127.0.0.1 and ::1: the IPv4 one is what a browser on
    // this machine tries first for the printed URL.
    found
        .iter()
        .find(|a| a.is_ipv4())
        .or_else(|| found.first())
        .copied()
        .ok_or_else(|| format!("{text:?} names no address; {expected}"))
}

/// Where the database's game stands, said at start: an organiser who reuses last
/// week's database must see that its game is continued, not a new one begun.
fn where_the_game_stands(view: &serde_json::Value) -> String {
    let game = view["game"].as_str();
    let round = view["round"].as_str();
    let state = &view["state"];
    let plays = view["plays"].as_array().map_or(0, |p| {
        p.iter()
            // Plays and "no play" declarations: a prophet's declaration, a
            // correction or a hint is not a turn taken.
            .filter(|p| (p["event"] == "play" || p["event"] == "no_play") && p["void"].is_null())
            .count()
    });
    match (game, round) {
        (None, _) => "none yet: the first round starts game 1".to_string(),
        (Some(game), _) if view["game_over"] == true => {
            format!("game {game} is over; the next round starts a new game")
        }
        (Some(game), None) => format!("game {game} continued, no round started yet"),
        (Some(_), Some(round)) if state["ended"] == true => {
            format!("round {round} is over; God starts the next round of its game")
        }
        (Some(_), Some(round)) => {
            let turn = state["turn"]
                .as_str()
                .map(|t| format!(", {t} to play"))
                .unwrap_or_default();
            format!(
                "round {round} continued ({plays} play{} so far{turn}; its rule still sealed)",
                if plays == 1 { "" } else { "s" }
            )
        }
    }
}

/// Serves until `stop` resolves (Ctrl-C or SIGTERM: [`shutdown_signal`]), then
/// prints `stopped`.
pub(crate) async fn serve_until_stopped(
    service: Service,
    listener: TcpListener,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
    stopped: &str,
) -> ExitCode {
    match service.serve(listener, stop).await {
        Ok(()) => {
            // The reader may be gone (`eleusis demo | head -3`): nothing to tell.
            say(stopped);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: the server failed: {e}");
            ExitCode::from(2)
        }
    }
}

/// Writes `line` to standard output, flushed; `false` when no one reads it any
/// more (a pipe closed: `eleusis demo | head -3`), where `println!` would panic.
pub(crate) fn say(line: &str) -> bool {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
}

/// Flushes standard output so that scripts reading the URLs see them at once.
pub(crate) fn flush_stdout() {
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
}

/// Resolves on Ctrl-C or (on Unix) SIGTERM; `demo` stops the same way. On Unix
/// the handlers are installed when this is called, not when the future is first
/// polled (inside the server, perhaps after requests were already answered): a
/// SIGTERM sent right after the URLs are printed stops the service cleanly instead
/// of killing it. Call it inside the runtime.
pub(crate) fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let (interrupt, terminate) = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = wait(interrupt) => {},
                _ = wait(terminate) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        tracing::info!("shutting down");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_is_held_by_one_service_at_a_time() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("club.db");
        let first = ServeLock::take(&db).expect("first");
        let second = ServeLock::take(&db).err().expect("second refused");
        assert!(matches!(second, ServeLockError::Held { .. }), "{second}");
        let said = second.to_string();
        assert!(said.contains(&db.display().to_string()), "{said}");
        assert!(said.contains("club.db.serve.lock"), "{said}");
        // The same file by another name (a symbolic link, or a linked folder) is
        // the same database.
        let other = dir.path().join("other");
        std::fs::create_dir(&other).expect("folder");
        std::fs::write(&db, b"").expect("the database file");
        std::os::unix::fs::symlink(&db, other.join("link.db")).expect("link");
        let linked = ServeLock::take(&other.join("link.db"))
            .err()
            .expect("refused");
        assert!(matches!(linked, ServeLockError::Held { .. }), "{linked}");
        std::fs::remove_file(other.join("link.db")).expect("unlink");
        std::fs::remove_dir(&other).expect("rmdir");
        std::fs::remove_file(&db).expect("rm");
        // Let go (as when the process ends): the next service takes it.
        drop(first);
        let _again = ServeLock::take(&db).expect("taken again");
        // Only the lock file beside it, empty: no journal, no database made.
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("list")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["club.db.serve.lock"]);
    }

    /// A prophet's declaration, a correction or a voided play is not a play.
    #[test]
    fn the_start_line_counts_plays_and_no_plays_only() {
        let view = serde_json::json!({
            "game": "1", "round": "1.1", "game_over": false,
            "state": {"ended": false, "turn": "Bo"},
            "plays": [
                {"event": "round"}, {"event": "play"}, {"event": "no_play"},
                {"event": "prophet"}, {"event": "play", "void": true}, {"event": "correct"},
            ],
        });
        assert_eq!(
            where_the_game_stands(&view),
            "round 1.1 continued (2 plays so far, Bo to play; its rule still sealed)"
        );
    }

    #[test]
    fn a_service_on_every_network_prints_its_address_for_the_tablets() {
        let urls = Urls {
            tablet: "http://192.168.1.23:8080/".into(),
            god: "http://192.168.1.23:8080/god?token=t".into(),
            audit: "http://192.168.1.23:8080/audit".into(),
        };
        let lines = network_lines(Some(&urls));
        assert!(
            lines.contains(&"  tablet:       http://192.168.1.23:8080/".to_string()),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.ends_with("/god?token=t")),
            "{lines:?}"
        );
        // Not found (no network): the advice of before.
        let lines = network_lines(None);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].contains("use this machine's address"), "{lines:?}");
        // Whatever the machine's network, never an address a tablet cannot reach.
        for listening in [
            IpAddr::from([0, 0, 0, 0]),
            IpAddr::from(std::net::Ipv6Addr::UNSPECIFIED),
        ] {
            if let Some(ip) = lan_address(listening) {
                assert!(!ip.is_loopback() && !ip.is_unspecified(), "{ip}");
            }
        }
    }

    #[test]
    fn an_address_may_be_a_host_name_or_a_port_alone() {
        assert_eq!(
            parse_addr("8080"),
            Ok(SocketAddr::from(([0, 0, 0, 0], 8080)))
        );
        assert_eq!(
            parse_addr("127.0.0.1:9000"),
            Ok(SocketAddr::from(([127, 0, 0, 1], 9000)))
        );
        assert_eq!(
            parse_addr("localhost:8080"),
            Ok(SocketAddr::from(([127, 0, 0, 1], 8080)))
        );
        assert_eq!(
            parse_addr("[::1]:8080"),
            Ok("[::1]:8080".parse::<SocketAddr>().expect("v6"))
        );
        for too_large in ["65536", "70000", "18446744073709551616"] {
            let said = parse_addr(too_large).expect_err("too large");
            assert!(said.contains("from 0 to 65535"), "{said}");
        }
        let no_port = parse_addr("localhost").expect_err("no port");
        assert!(no_port.contains("has no port"), "{no_port}");
        let bad = parse_addr("localhost:http-alt").expect_err("bad port");
        assert!(bad.contains("expected HOST:PORT"), "{bad}");
    }
}
