//! `eleusis audit ID`: the audit trail of a round (`GAME.ROUND`) or a whole game
//! (`GAME`): every event with time, player, cards, reads and confidences, frame,
//! verdict and explanation (withheld until the rule is revealed, unless `--god`),
//! penalties, corrections and the verdicts they changed, the seal, and the hash
//! chain check with the first broken link. Exit status 0 when everything checks,
//! 1 when the chain is broken or anything else is wrong, 2 when it cannot run.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::store::audit::audit;
use crate::store::history::standard_referee;
use crate::store::{Store, Target, DEFAULT_DB};

/// Arguments of `eleusis audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// A round (`GAME.ROUND`, e.g. 1.2) or a whole game (`GAME`), as printed by `record`.
    pub id: Target,
    /// The database file.
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// God's audit: show the rule's explanations before the reveal.
    #[arg(long)]
    pub god: bool,
}

/// Runs the subcommand.
pub fn run(args: &AuditArgs) -> ExitCode {
    let store = match Store::open_read_only(&args.db) {
        Ok(store) => store,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let report = match audit(&store, &standard_referee(), args.id, args.god) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: auditing {}: {e}", args.id);
            return ExitCode::from(2);
        }
    };
    let text = if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => text + "\n",
            Err(e) => {
                eprintln!("error: cannot write the report: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        report.to_text()
    };
    if let Err(status) = super::print_stdout(&text) {
        return status;
    }
    if report.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
