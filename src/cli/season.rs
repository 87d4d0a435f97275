//! `eleusis season`: the season sheet of a club's database — every game (or those
//! started within `--since`/`--until`) side by side, with each participant's games
//! played, games won and season total ([`crate::store::season`]).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;

use super::export::{clobbers_database, deliver, exit_with, SheetFormat};
use crate::store::history::standard_referee;
use crate::store::season::{parse_day, DaySpan, SeasonSheet};
use crate::store::{Store, DEFAULT_DB};

/// Arguments of `eleusis season`.
#[derive(Debug, Args)]
pub struct SeasonArgs {
    /// The sheet's format.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: SheetFormat,
    /// Only games whose first round started on this day or later (YYYY-MM-DD, UTC).
    #[arg(long, value_parser = parse_day)]
    pub since: Option<String>,
    /// Only games whose first round started on this day or earlier (YYYY-MM-DD, UTC).
    #[arg(long, value_parser = parse_day)]
    pub until: Option<String>,
    /// The database file.
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Write to this file instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: &SeasonArgs) -> ExitCode {
    exit_with(season(args))
}

/// Builds the sheet: what to print on standard output, if anything.
fn season(args: &SeasonArgs) -> Result<Option<String>> {
    let span = DaySpan::new(args.since.clone(), args.until.clone()).map_err(|e| anyhow!(e))?;
    if let Some(output) = &args.output {
        if let Some(what) = clobbers_database(&args.db, output) {
            bail!(
                "refusing to write the sheet to {}: it is {what}; choose another file",
                output.display()
            );
        }
    }
    let store = Store::open_read_only(&args.db)?;
    let sheet = SeasonSheet::build(&store, &standard_referee(), &span)
        .context("building the season sheet")?;
    let text = match args.format {
        SheetFormat::Csv => sheet.to_csv(),
        SheetFormat::Html => sheet.to_html(&span.words()),
    };
    deliver(text, args.output.as_deref())
}
