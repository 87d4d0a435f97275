//! The command-line interface: one binary, one subcommand per capability. Each
//! subcommand lives in its own module and returns an exit code; errors get their
//! context here, at the boundary.

use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

use clap::{Parser, Subcommand};

pub mod audit;
pub mod backup;
pub mod demo;
pub mod export;
pub mod export_frames;
pub mod recognize;
pub mod record;
pub mod replay;
pub mod rule;
pub mod rule_check;
pub mod season;
pub mod serve;

/// Referee for the card game Eleusis.
#[derive(Debug, Parser)]
#[command(name = "eleusis", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Every capability of the binary.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Re-referee a table log and print the resulting state (or a trace).
    Replay(replay::ReplayArgs),
    /// Store table-log lines from standard input, acknowledging each once durable.
    Record(record::RecordArgs),
    /// Show the audit trail of a round or game, and check its hash chain.
    Audit(audit::AuditArgs),
    /// Export a round's table log, a game's score sheet, or the plays' frames as a
    /// labelled check set.
    Export(export::ExportArgs),
    /// The season sheet: every game side by side, with games played, wins and totals.
    Season(season::SeasonArgs),
    /// Copy the database into a new file, consistently, even while `serve` runs.
    Backup(backup::BackupArgs),
    /// Work with a secret rule: check it before sealing, judge cards against it.
    Rule(rule::RuleArgs),
    /// Read the cards in camera frames (JSON lines with --json; --check compares
    /// with labelled sidecars).
    Recognize(recognize::RecognizeArgs),
    /// Run the live service: tablet page, God console, audit pages and JSON API.
    Serve(serve::ServeArgs),
    /// Run the service and play a simulated round into it, to see the product
    /// without cards or camera.
    Demo(demo::DemoArgs),
}

/// Writes a command's `text` to standard output, flushed. The reader may go away
/// before the end (`eleusis audit 1 | head -1`): nobody is left to tell, so the
/// command stops quietly with the status of a program stopped by SIGPIPE (141),
/// as `recognize` does, where `print!` would panic. Any other failure to write is
/// said on standard error (exit status 2), a standard output closed from the
/// start (`eleusis audit 1 >&-`) included. `Err` carries the status to exit with.
pub(crate) fn print_stdout(text: &str) -> Result<(), ExitCode> {
    use std::io::Write;
    let mut out = stdout();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ExitCode::from(141)),
        Err(e) if stdout_closed().is_some() => {
            eprintln!("error: {e}");
            Err(ExitCode::from(2))
        }
        Err(e) => {
            eprintln!("error: writing standard output: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// The OS error of a standard output that was closed when the program started
/// (`>&-`), or 0 while it is open. Set once, before `main` (see
/// [`note_closed_stdout`]).
static STDOUT_CLOSED: AtomicI32 = AtomicI32::new(0);

/// Standard output for a command's results: [`std::io::stdout`], except that a
/// standard output closed when the program started fails every write with its
/// error (`Bad file descriptor`): the runtime put `/dev/null` in its place, so a
/// report would vanish while the command said it succeeded.
pub(crate) fn stdout() -> Stdout {
    Stdout(std::io::stdout().lock())
}

/// See [`stdout`].
pub(crate) struct Stdout(std::io::StdoutLock<'static>);

impl Stdout {
    fn open() -> std::io::Result<()> {
        match stdout_closed() {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }
}

/// The error every write to a standard output closed at start gives, or `None`
/// while it is open: `standard output is closed (Bad file descriptor (os error 9))`.
pub(crate) fn stdout_closed() -> Option<std::io::Error> {
    match STDOUT_CLOSED.load(Ordering::Relaxed) {
        0 => None,
        code => {
            let cause = std::io::Error::from_raw_os_error(code);
            Some(std::io::Error::new(
                cause.kind(),
                format!("standard output is closed ({cause})"),
            ))
        }
    }
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Stdout::open()?;
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Stdout::open()?;
        self.0.flush()
    }
}

/// Notes whether standard output is closed. It must run before `main`: Rust's
/// runtime, before `main`, opens `/dev/null` (for reading and writing) on each
/// standard descriptor it finds closed, so that a file opened later cannot take
/// its number; from then on a closed standard output looks exactly like
/// `/dev/null` given on purpose (as Python's `subprocess.DEVNULL` opens it), and
/// every write to it succeeds and is lost. The platform's table of initialisers
/// runs this before the runtime starts.
#[cfg(unix)]
extern "C" fn note_closed_stdout() {
    use std::os::fd::AsFd;
    if let Err(e) = std::io::stdout().as_fd().try_clone_to_owned() {
        // `EBADF` (9 on Linux, macOS and the BSDs) when nothing says otherwise.
        STDOUT_CLOSED.store(e.raw_os_error().unwrap_or(9), Ordering::Relaxed);
    }
}

#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd"
))]
#[used]
#[link_section = ".init_array"]
static NOTE_CLOSED_STDOUT: extern "C" fn() = note_closed_stdout;

#[cfg(any(target_os = "macos", target_os = "ios"))]
#[used]
#[link_section = "__DATA,__mod_init_func"]
static NOTE_CLOSED_STDOUT: extern "C" fn() = note_closed_stdout;

/// Keeps the initialiser above linked into every binary that runs the commands.
fn keep_stdout_check() {
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd",
        target_os = "macos",
        target_os = "ios"
    ))]
    std::hint::black_box(&NOTE_CLOSED_STDOUT);
}

/// Whether `path` names a descriptor this process was handed open rather than a
/// file to open: standard input as `/dev/stdin`, or `/dev/fd/N` (what a shell
/// gives for `<(zcat log.gz)`). Such a path may be a pipe, and is read as one: it
/// is the caller's, already connected, so reading it does not wait for a writer
/// that may never come as a named pipe's open does.
pub(crate) fn is_handed_descriptor(path: &std::path::Path) -> bool {
    if !cfg!(unix) {
        return false;
    }
    let Some(text) = path.to_str() else {
        return false;
    };
    text == "/dev/stdin"
        || ["/dev/fd/", "/proc/self/fd/"].iter().any(|dir| {
            text.strip_prefix(dir)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Why the file named `path` is not read: it exists but is not a regular file (a
/// named pipe, whose open waits for a writer, perhaps for ever; a device, which
/// may never end; a directory), unless it is a descriptor this process was handed
/// ([`is_handed_descriptor`]). `None` when it is to be read (a regular file, or a
/// path that cannot be examined: reading it says why).
pub(crate) fn not_a_regular_file(path: &std::path::Path) -> Option<&'static str> {
    if is_handed_descriptor(path) {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    crate::store::special_file_kind(&meta)
}

/// A rule file's text without the byte-order mark some editors (Notepad) put at
/// its start: no part of the rule, as it is no part of a table log's first line.
pub(crate) fn without_bom(text: String) -> String {
    match text.strip_prefix(crate::referee::BOM) {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// Parses the arguments and runs the chosen subcommand.
pub fn main() -> ExitCode {
    keep_stdout_check();
    let cli = Cli::parse();
    match cli.command {
        Command::Replay(args) => replay::run(&args),
        Command::Record(args) => record::run(&args),
        Command::Audit(args) => audit::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Season(args) => season::run(&args),
        Command::Backup(args) => backup::run(&args),
        Command::Rule(args) => rule::run(&args),
        Command::Recognize(args) => recognize::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Demo(args) => demo::run(&args),
    }
}
