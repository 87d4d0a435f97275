//! The command-line interface: one binary, one subcommand per capability. Each
//! subcommand lives in its own module and returns an exit code; errors get their
//! context here, at the boundary.

use std::process::ExitCode;

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
/// said on standard error (exit status 2). `Err` carries the status to exit with.
pub(crate) fn print_stdout(text: &str) -> Result<(), ExitCode> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ExitCode::from(141)),
        Err(e) => {
            eprintln!("error: writing standard output: {e}");
            Err(ExitCode::from(2))
        }
    }
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
