//! `eleusis export ID --log`: the table log that `eleusis replay` re-referees to
//! the stored state (corrections applied). For a round `GAME.ROUND` it holds the
//! game's rounds up to and including that one, since the replay state carries the
//! game totals. Rules of sealed rounds are refused unless `--god`.
//!
//! `eleusis export GAME --scores csv|html`: the score sheet (rounds × participants,
//! the not-God bonus, totals); the HTML page is self-contained and prints on one page.
//!
//! `eleusis export ID --frames DIR`: the plays' evidence frames as a labelled check
//! set ([`super::export_frames`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use super::export_frames::export_frames;
use crate::store::history::{export_log, standard_referee};
use crate::store::scoresheet::ScoreSheet;
use crate::store::{
    directory_of, same_file, side_file, Store, Target, DEFAULT_DB, SIDE_FILE_SUFFIXES,
};

/// Score sheet formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SheetFormat {
    Csv,
    Html,
}

/// Arguments of `eleusis export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// A round (`GAME.ROUND`) or a game (`GAME`), as printed by `record`.
    pub id: Target,
    /// Write the table log.
    #[arg(
        long,
        conflicts_with = "scores",
        required_unless_present_any = ["scores", "frames"]
    )]
    pub log: bool,
    /// Write the game's score sheet in this format.
    #[arg(long, value_enum)]
    pub scores: Option<SheetFormat>,
    /// God's export: include rules that are still sealed.
    #[arg(long)]
    pub god: bool,
    /// The database file.
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Write to this file instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Write the frames kept as evidence of the plays into this folder, each with
    /// a sidecar naming the cards as recorded: a labelled set of the table's own
    /// photographs for `eleusis recognize --check`.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["log", "scores", "output", "god"])]
    pub frames: Option<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: &ExportArgs) -> ExitCode {
    exit_with(export(args))
}

/// The exit of a command that prints a text or writes it to `-o` (`Ok(None)`):
/// the text on standard output, or the error on standard error (status 2).
pub(crate) fn exit_with(result: Result<Option<String>>) -> ExitCode {
    match result {
        Ok(Some(text)) => match super::print_stdout(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(status) => status,
        },
        Ok(None) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Exports as `args` say: what to print on standard output, if anything.
fn export(args: &ExportArgs) -> Result<Option<String>> {
    if let Some(dir) = &args.frames {
        return export_frames(&args.db, args.id, dir).map(Some);
    }
    if let Some(output) = &args.output {
        if let Some(what) = clobbers_database(&args.db, output) {
            bail!(
                "refusing to write the export to {}: it is {what}; choose another file",
                output.display()
            );
        }
    }
    let store = Store::open_read_only(&args.db)?;
    let text = match args.scores {
        Some(format) => {
            let Target::Game(game) = args.id else {
                bail!("a score sheet is for a whole game: give GAME (e.g. 1), not a round");
            };
            let sheet = ScoreSheet::build(&store, &standard_referee(), game)
                .with_context(|| format!("building the score sheet of game {game}"))?;
            match format {
                SheetFormat::Csv => sheet.to_csv(),
                SheetFormat::Html => sheet.to_html(),
            }
        }
        None => {
            let lines = export_log(&store, args.id, args.god)
                .with_context(|| format!("exporting the log of {}", args.id))?;
            let mut text = lines.join("\n");
            text.push('\n');
            text
        }
    };
    deliver(text, args.output.as_deref())
}

/// Writes `text` to `output` when given (then nothing is left to print), else
/// hands it back for standard output.
pub(crate) fn deliver(text: String, output: Option<&Path>) -> Result<Option<String>> {
    match output {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            Ok(None)
        }
        None => Ok(Some(text)),
    }
}

/// What of the database `output` names, if anything: the database file itself (the
/// same file under any name, links included) or one of the files SQLite keeps beside
/// it. Writing an export there would destroy the archive it was read from.
pub(crate) fn clobbers_database(db: &Path, output: &Path) -> Option<&'static str> {
    if same_file(db, output) {
        return Some("the database being exported");
    }
    // A side file may not exist yet: compare names within the same directory.
    let directory = |path: &Path| std::fs::canonicalize(directory_of(path)).ok();
    let out_dir = directory(output)?;
    let is_side_file = SIDE_FILE_SUFFIXES.iter().any(|suffix| {
        let side = side_file(db, suffix);
        side.file_name() == output.file_name() && directory(&side).as_ref() == Some(&out_dir)
    });
    is_side_file.then_some("one of the database's own files")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_onto_the_database_or_its_side_files_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("club.db");
        std::fs::write(&db, b"x").expect("db");
        let link = dir.path().join("link.db");
        std::fs::hard_link(&db, &link).expect("link");
        assert!(clobbers_database(&db, &db).is_some());
        assert!(clobbers_database(&db, &link).is_some());
        assert!(clobbers_database(&db, &dir.path().join("./club.db")).is_some());
        assert!(clobbers_database(&db, &dir.path().join("club.db-wal")).is_some());
        assert!(clobbers_database(&db, &dir.path().join("club.db-shm")).is_some());
        assert_eq!(clobbers_database(&db, &dir.path().join("scores.csv")), None);
        assert_eq!(
            clobbers_database(&db, &dir.path().join("club.db.csv")),
            None
        );
    }
}
