//! `eleusis serve`: the live service for a table — the tablet page, the God
//! console and the audit pages, on one address. It opens (or creates) the store,
//! continues the game it was playing (the state is rebuilt from the stored log),
//! prints the URLs with the God token, and stops cleanly on Ctrl-C or SIGTERM.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use tokio::net::TcpListener;

use crate::store::DEFAULT_DB;
use crate::web::{Service, ServiceOptions};

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
        say("  (from a tablet on the network, use this machine's address instead of localhost)");
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
    let service = Service::open(options).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
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
    Ok((service, listener, addr, stop))
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
            .filter(|p| p["event"] != "round" && p["void"].is_null())
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
        let no_port = parse_addr("localhost").expect_err("no port");
        assert!(no_port.contains("has no port"), "{no_port}");
        let bad = parse_addr("localhost:http-alt").expect_err("bad port");
        assert!(bad.contains("expected HOST:PORT"), "{bad}");
    }
}
