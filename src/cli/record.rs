//! `eleusis record`: reads table-log lines on standard input and stores each one the
//! referee accepts, printing one JSON acknowledgement per line once it is durable:
//!
//! ```text
//! {"ok":true,"line":1,"game":"1","round":"1.1","seq":1,"event":"round","hash":"…","commitment":"…"}
//! {"ok":false,"line":2,"error":"line 2: it is Alain's turn, not Jacques's"}
//! ```
//!
//! An `ok:true` line is printed only after the line's transaction has committed
//! (lines already waiting on standard input share one commit). Exit status: 0 when
//! every line was stored, 1 when some line was refused (nothing of it was stored),
//! 2 when the database failed. A database that cannot be opened (read-only, missing
//! with `--game`, …) stops `record` before any line is read: nothing on standard
//! output. A store failure during a batch (disk full, locked, file moved) answers
//! each line of the failing batch `ok:false … not stored` and stops.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use crate::store::history::standard_referee;
use crate::store::recorder::{Recorder, Rejection, Reply};
use crate::store::{GameId, Store, StoreError, DEFAULT_DB, MAX_BUSY_TIMEOUT_MS};

/// Lines taken into one commit at most.
const MAX_BATCH: usize = 256;

/// The longest line accepted (a table-log line with evidence is well under 4 KiB).
const MAX_LINE: usize = 1 << 20;

/// Arguments of `eleusis record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The database file (created when missing, unless `--game` is given).
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Continue this stored game (e.g. after a restart) instead of starting a new one.
    #[arg(long)]
    pub game: Option<GameId>,
    /// Directory that evidence frame paths are relative to.
    #[arg(long, default_value = ".")]
    pub frames: PathBuf,
    /// How long to wait for another writer's lock, in milliseconds (at most
    /// 2147483647, about 24.8 days).
    #[arg(long, default_value_t = 5000, value_parser = parse_busy_timeout, value_name = "MS")]
    pub busy_timeout_ms: u64,
}

/// Parses `--busy-timeout-ms`. SQLite holds the wait in a signed 32-bit count of
/// milliseconds ([`MAX_BUSY_TIMEOUT_MS`]) and a longer one cannot be given to it
/// (rusqlite panics): it is refused when the command is given, saying the limit,
/// before anything is opened.
fn parse_busy_timeout(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() || !trimmed.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "'{text}' is not a number of milliseconds: give a whole number from 0 to {MAX_BUSY_TIMEOUT_MS}"
        ));
    }
    match trimmed.parse::<u64>() {
        Ok(ms) if ms <= MAX_BUSY_TIMEOUT_MS => Ok(ms),
        // All digits, but past the limit (or past any 64-bit number).
        _ => Err(format!(
            "'{text}' ms is too long a wait: at most {MAX_BUSY_TIMEOUT_MS} (about 24.8 days)"
        )),
    }
}

/// Runs the subcommand.
pub fn run(args: &RecordArgs) -> ExitCode {
    // Each line's answer goes to standard output: with nowhere to say which lines
    // were stored, none is taken.
    if let Some(e) = super::stdout_closed() {
        eprintln!("error: {e}: record answers every line there; nothing was read or stored");
        return ExitCode::from(2);
    }
    // `--game` continues a stored game: with no file there is no game to continue,
    // and opening would leave an empty database behind (a typo in `--db` must not
    // litter the folder). A path that cannot be examined is left to the open,
    // which says why.
    if args.game.is_some() && matches!(args.db.try_exists(), Ok(false)) {
        eprintln!(
            "error: no database at {}; --game continues a stored game",
            args.db.display()
        );
        return ExitCode::from(2);
    }
    let store = match Store::open_with(&args.db, Duration::from_millis(args.busy_timeout_ms)) {
        Ok(store) => store,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let factory = standard_referee();
    let recorder = match args.game {
        Some(game) => match Recorder::resume(&store, factory, game) {
            Ok(r) => {
                // Where the stored log ends: a line committed just before a crash
                // may never have been acknowledged; resend from after this event.
                if let Ok(Some((round, seq, hash))) = store.head(game) {
                    eprintln!("resuming game {game} after event {round}:{seq} (head {hash})");
                }
                r
            }
            Err(e) => {
                eprintln!("error: cannot continue game {game}: {e}");
                return ExitCode::from(2);
            }
        },
        None => Recorder::new_game(&store, factory),
    };
    let recorder = recorder.frames_from(args.frames.clone());
    let stdin = io::stdin();
    let input = BufReader::with_capacity(1 << 16, stdin.lock());
    match record(recorder, input, &mut super::stdout()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(Failure::Store(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Input(e)) => {
            eprintln!("error: cannot read standard input: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Output(e)) => {
            eprintln!("error: cannot write acknowledgements: {e}");
            ExitCode::from(2)
        }
    }
}

enum Failure {
    Store(StoreError),
    Input(io::Error),
    Output(io::Error),
}

/// Discards input up to and including the next newline (or the end).
fn skip_rest_of_line<R: Read>(input: &mut BufReader<R>) -> io::Result<()> {
    loop {
        let (done, used) = {
            let buf = input.fill_buf()?;
            if buf.is_empty() {
                return Ok(());
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (true, i + 1),
                None => (false, buf.len()),
            }
        };
        input.consume(used);
        if done {
            return Ok(());
        }
    }
}

/// The record loop: batches the lines already available, commits, then answers.
/// Returns whether every line was stored.
fn record<R: Read>(
    mut recorder: Recorder<'_>,
    mut input: BufReader<R>,
    out: &mut impl Write,
) -> Result<bool, Failure> {
    let mut number = 0usize;
    let mut all_stored = true;
    let mut eof = false;
    while !eof {
        let mut batch: Vec<(usize, String)> = Vec::new();
        let mut early: Vec<Reply> = Vec::new();
        loop {
            let mut bytes = Vec::new();
            let n = (&mut input)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut bytes)
                .map_err(Failure::Input)?;
            if n == 0 {
                eof = true;
                break;
            }
            number += 1;
            if bytes.len() > MAX_LINE && bytes.last() != Some(&b'\n') {
                skip_rest_of_line(&mut input).map_err(Failure::Input)?;
                early.push(Reply::Rejected(Rejection {
                    ok: false,
                    line: number,
                    error: format!("line {number}: longer than {MAX_LINE} bytes"),
                }));
            } else {
                // A log saved by a Windows editor starts with a byte-order mark.
                if number == 1 && bytes.starts_with("\u{feff}".as_bytes()) {
                    bytes.drain(..3);
                }
                // The line without its end (`\n` or `\r\n`), as `replay` reads it:
                // a line cut short must be said to end where its text ends
                // (`column 29`), not on the next line (`column 0`).
                if bytes.ends_with(b"\n") {
                    bytes.pop();
                    if bytes.ends_with(b"\r") {
                        bytes.pop();
                    }
                }
                match String::from_utf8(bytes) {
                    Ok(text) if text.trim().is_empty() => {}
                    Ok(text) => batch.push((number, text)),
                    Err(_) => early.push(Reply::Rejected(Rejection {
                        ok: false,
                        line: number,
                        error: format!("line {number}: not UTF-8 text"),
                    })),
                }
            }
            // Take the next line into this commit only if it is already here:
            // `buffer()` never blocks, so a lone line is acknowledged at once.
            let more = input.buffer().contains(&b'\n');
            if !more || batch.len() >= MAX_BATCH {
                break;
            }
        }
        let result = if batch.is_empty() {
            Ok(Vec::new())
        } else {
            recorder.record_batch(&batch)
        };
        let replies = match result {
            Ok(replies) => replies,
            Err(e) => {
                for (line, _) in &batch {
                    let reply = Reply::Rejected(Rejection {
                        ok: false,
                        line: *line,
                        error: format!("line {line}: not stored: {e}"),
                    });
                    writeln!(out, "{}", reply.to_line()).map_err(Failure::Output)?;
                }
                out.flush().map_err(Failure::Output)?;
                return Err(Failure::Store(e));
            }
        };
        let mut all: Vec<Reply> = early.into_iter().chain(replies).collect();
        all.sort_by_key(|r| match r {
            Reply::Stored(a) => a.line,
            Reply::Rejected(r) => r.line,
        });
        for reply in &all {
            all_stored &= matches!(reply, Reply::Stored(_));
            writeln!(out, "{}", reply.to_line()).map_err(Failure::Output)?;
        }
        out.flush().map_err(Failure::Output)?;
    }
    Ok(all_stored)
}
