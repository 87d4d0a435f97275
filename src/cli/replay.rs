//! `eleusis replay LOG`: re-referees a table log from scratch and prints the state
//! JSON of TABLE-LOG.md, or with `--trace` one line per event for a person reading a
//! disputed round. A malformed or illegal line (including one that is not UTF-8
//! text) stops the replay with exit status 1 and `line N: reason` on standard error;
//! so does a log with no events at all, most likely the wrong file. A byte-order mark
//! at the start of the log is skipped.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use crate::referee::{log_line, Game, LineError, LogEvent};

/// Arguments of `eleusis replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The table log (JSONL) to re-referee; `-` reads standard input.
    pub log: PathBuf,
    /// Print one line per event (verdicts with explanations, penalties, markers,
    /// phase changes, eliminations) instead of the final state.
    #[arg(long)]
    pub trace: bool,
}

/// Runs the subcommand; the exit code says whether the log was accepted.
pub fn run(args: &ReplayArgs) -> ExitCode {
    let text = match read_log(&args.log) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    let mut out = super::stdout();
    match replay_bytes(&text, args.trace, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(ReplayFailure::Line(e)) => {
            let _ = out.flush();
            eprintln!("{e}");
            ExitCode::from(1)
        }
        Err(ReplayFailure::NoEvents) => {
            let _ = out.flush();
            eprintln!("{NO_EVENTS}");
            ExitCode::from(1)
        }
        // The reader went away (`eleusis replay --trace LOG | head`): nobody is
        // left to tell, so stop quietly with the status of a program stopped by
        // SIGPIPE (141), as `audit`, `export` and `recognize` do.
        Err(ReplayFailure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::from(141)
        }
        Err(ReplayFailure::Output(e)) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::from(2)
        }
    }
}

/// The log's bytes; UTF-8 is checked line by line so that an error says which line.
///
/// A named file must be a regular file: a named pipe would be waited on until some
/// program wrote into it (for ever, for a pipe left over), a device might never
/// end. Standard input is read whatever it is, given as `-` or `/dev/stdin`, and
/// so is a descriptor handed over as `/dev/fd/N` (`eleusis replay <(zcat
/// log.gz)`).
fn read_log(path: &PathBuf) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        io::stdin()
            .read_to_end(&mut bytes)
            .context("reading the table log from standard input")?;
    } else {
        if let Some(kind) = super::not_a_regular_file(path) {
            anyhow::bail!(
                "the table log {} is {kind}, not a regular file: give the log's file, or `-` to read standard input",
                path.display()
            );
        }
        bytes = std::fs::read(path)
            .with_context(|| format!("reading the table log {}", path.display()))?;
    }
    Ok(bytes)
}

/// What `eleusis replay` says of a log with no events.
pub const NO_EVENTS: &str = "the log holds no events";

/// Why a replay did not finish.
#[derive(Debug)]
pub enum ReplayFailure {
    /// The log has a malformed or illegal line.
    Line(LineError),
    /// The log has no events (empty, or blank lines only).
    NoEvents,
    /// Standard output could not be written.
    Output(io::Error),
}

impl From<io::Error> for ReplayFailure {
    fn from(e: io::Error) -> Self {
        ReplayFailure::Output(e)
    }
}

/// Replays `text` and writes the trace lines (as they are decided) or the final
/// state JSON to `out`.
pub fn replay_text(text: &str, trace: bool, out: &mut impl Write) -> Result<(), ReplayFailure> {
    replay_bytes(text.as_bytes(), trace, out)
}

/// [`replay_text`] for a log as read from a file: a line that is not UTF-8 text
/// stops the replay there, with its number, like any other malformed line.
pub fn replay_bytes(bytes: &[u8], trace: bool, out: &mut impl Write) -> Result<(), ReplayFailure> {
    let mut game = Game::new();
    // The state JSON shows no explanations; only the trace needs them.
    game.set_explanations(trace);
    let mut events = 0usize;
    for (index, raw) in lines(bytes).enumerate() {
        let number = index + 1;
        let fail = |reason: String| {
            ReplayFailure::Line(LineError {
                line: number,
                reason,
            })
        };
        let Ok(line) = std::str::from_utf8(raw) else {
            return Err(fail("not UTF-8 text".to_string()));
        };
        let line = log_line(index, line);
        if line.trim().is_empty() {
            continue;
        }
        let event = LogEvent::parse_line(line).map_err(|e| fail(e.reason))?;
        let outcome = game.apply(&event).map_err(|e| fail(e.to_string()))?;
        events += 1;
        if trace {
            writeln!(out, "line {number}: {outcome}")?;
        }
    }
    if events == 0 {
        return Err(ReplayFailure::NoEvents);
    }
    if !trace {
        let json = serde_json::to_string_pretty(&game.state())
            .map_err(|e| ReplayFailure::Output(io::Error::other(e)))?;
        writeln!(out, "{json}")?;
    }
    Ok(())
}

/// The lines of `bytes` as `str::lines` splits text: at `\n` or `\r\n`, with no
/// empty line after a final newline.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').map(|line| {
        line.strip_suffix(b"\r\n")
            .or_else(|| line.strip_suffix(b"\n"))
            .unwrap_or(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUND: &str = r#"{"event":"round","variant":"basic","god":"G","players":["A","B"],"rule":"true","starter":"3H"}"#;

    fn replay(bytes: &[u8]) -> Result<String, String> {
        let mut out = Vec::new();
        match replay_bytes(bytes, false, &mut out) {
            Ok(()) => Ok(String::from_utf8(out).expect("UTF-8 output")),
            Err(ReplayFailure::Line(e)) => Err(e.to_string()),
            Err(ReplayFailure::NoEvents) => Err(NO_EVENTS.to_string()),
            Err(ReplayFailure::Output(e)) => panic!("output: {e}"),
        }
    }

    #[test]
    fn lines_split_like_str_lines() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\r\nb",
            "a\n\nb\n",
            "a\r\n\r\n",
            "\r",
        ] {
            let ours: Vec<&[u8]> = lines(text.as_bytes()).collect();
            let std: Vec<&[u8]> = text.lines().map(str::as_bytes).collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    #[test]
    fn a_line_that_is_not_utf8_is_named() {
        let mut log = format!("{ROUND}\n").into_bytes();
        log.extend_from_slice(b"{\"event\":\"play\",\"cards\":[\"2\xffS\"]}\n");
        assert_eq!(replay(&log).unwrap_err(), "line 2: not UTF-8 text");
    }

    #[test]
    fn a_log_without_events_is_refused() {
        for log in ["", "\n", "  \n\r\n\t\n", "\u{feff}\n"] {
            assert_eq!(replay(log.as_bytes()).unwrap_err(), NO_EVENTS, "{log:?}");
        }
        assert!(replay(ROUND.as_bytes()).is_ok());
    }

    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let plain = replay(ROUND.as_bytes()).expect("plain");
        let with_bom = replay(format!("\u{feff}{ROUND}\r\n").as_bytes()).expect("BOM");
        assert_eq!(plain, with_bom);
    }
}
