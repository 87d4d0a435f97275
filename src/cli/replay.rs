//! `eleusis replay LOG`: re-referees a table log from scratch and prints the state
//! JSON of TABLE-LOG.md, or with `--trace` one line per event for a person reading a
//! disputed round. A malformed or illegal line stops the replay with exit status 1
//! and `line N: reason` on standard error.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use crate::referee::{Game, LineError, LogEvent};

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
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match replay_text(&text, args.trace, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(ReplayFailure::Line(e)) => {
            let _ = out.flush();
            eprintln!("{e}");
            ExitCode::from(1)
        }
        Err(ReplayFailure::Output(e)) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::from(2)
        }
    }
}

fn read_log(path: &PathBuf) -> Result<String> {
    let mut text = String::new();
    if path.as_os_str() == "-" {
        io::stdin()
            .read_to_string(&mut text)
            .context("reading the table log from standard input")?;
    } else {
        let bytes = std::fs::read(path)
            .with_context(|| format!("reading the table log {}", path.display()))?;
        text = String::from_utf8(bytes)
            .with_context(|| format!("the table log {} is not UTF-8 text", path.display()))?;
    }
    Ok(text)
}

/// Why a replay did not finish.
#[derive(Debug)]
pub enum ReplayFailure {
    /// The log has a malformed or illegal line.
    Line(LineError),
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
    let mut game = Game::new();
    // The state JSON shows no explanations; only the trace needs them.
    game.set_explanations(trace);
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let number = index + 1;
        let fail = |reason: String| {
            ReplayFailure::Line(LineError {
                line: number,
                reason,
            })
        };
        let event = LogEvent::parse_line(line).map_err(|e| fail(e.reason))?;
        let outcome = game.apply(&event).map_err(|e| fail(e.to_string()))?;
        if trace {
            writeln!(out, "line {number}: {outcome}")?;
        }
    }
    if !trace {
        let json = serde_json::to_string_pretty(&game.state())
            .map_err(|e| ReplayFailure::Output(io::Error::other(e)))?;
        writeln!(out, "{json}")?;
    }
    Ok(())
}
