//! `eleusis backup OUT`: a consistent copy of the database into a new file, safe to
//! take while `eleusis serve` runs. Copying `eleusis.db` alone with `cp` while the
//! service runs misses every event still in its write-ahead log (`eleusis.db-wal`)
//! and gives a copy that audits clean but stops short; this copy holds every
//! acknowledged event, and every game's hash chain, and every rule against the
//! commitment made before play, is checked in it before it is given its name.
//!
//! A game that does not check (an altered event, a rule that no longer matches
//! its commitment) does not stop the backup: the copy is the evidence of what was
//! done to the database, and the one thing to keep before anything else happens to
//! it. The copy is written, each such game is named, and the exit status is 1
//! ([`BACKED_UP_WITH_BROKEN_GAMES`]); only a copy that cannot be written or read
//! back whole is refused (status 2).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::store::history::{require_intact_chain, HistoryError};
use crate::store::{directory_of, Store, StoreError, DEFAULT_DB};

/// The exit status of a backup that wrote its copy, whole, of a database holding
/// games that do not check: the copy is there, but those games' records were
/// altered (in the database itself; the copy keeps them as they are).
pub const BACKED_UP_WITH_BROKEN_GAMES: u8 = 1;

/// What a backup wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    /// What the copy holds, in words (`backed up A to B: 1 game(s), …`).
    pub summary: String,
    /// Each game of the copy that does not check, in words, with the command that
    /// shows where: copied as it is, as evidence.
    pub broken: Vec<String>,
}

/// Arguments of `eleusis backup`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The new file to write the copy into (never overwritten: name a new file, e.g.
    /// `club-2026-11-28.db`).
    pub out: PathBuf,
    /// The database file to copy.
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: &BackupArgs) -> ExitCode {
    match backup(&args.db, &args.out) {
        Ok(done) => {
            if let Err(status) = super::print_stdout(&format!("{}\n", done.summary)) {
                return status;
            }
            for game in &done.broken {
                eprintln!("warning: {game}");
            }
            if done.broken.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(BACKED_UP_WITH_BROKEN_GAMES)
            }
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Copies `db` into the new file `out` and checks the copy: what it holds, in words,
/// and the games in it that do not check (the copy is written all the same).
pub fn backup(db: &Path, out: &Path) -> Result<Backup> {
    if out.exists() {
        bail!(
            "{} already exists; a backup never overwrites a file: name a new one (e.g. with the date)",
            out.display()
        );
    }
    let folder = directory_of(out);
    if !folder.is_dir() {
        bail!(
            "cannot write the backup {}: the folder {} does not exist",
            out.display(),
            folder.display()
        );
    }
    let source = Store::open_read_only(db)?;
    // Written under a name of its own and linked to `out` only once checked, so a
    // failed backup never leaves a file by the name asked for, and a file created
    // there meanwhile is not overwritten.
    let partial = folder.join(format!(
        ".{}.partial-{}",
        out.file_name().and_then(|n| n.to_str()).unwrap_or("backup"),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&partial);
    let written = source
        .backup_into(&partial)
        .map_err(anyhow::Error::from)
        .and_then(|()| check(&partial).map_err(|e| of_the_source(db, e)))
        .and_then(|summary| {
            std::fs::hard_link(&partial, out)
                .or_else(|_| {
                    // A file system without hard links: a rename, after one more
                    // look that nothing took the name meanwhile.
                    if out.exists() {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::AlreadyExists,
                            "the file was created meanwhile",
                        ));
                    }
                    std::fs::rename(&partial, out)
                })
                .with_context(|| format!("naming the backup {}", out.display()))?;
            Ok(summary)
        });
    let _ = std::fs::remove_file(&partial);
    let (summary, broken) = written?;
    let copy = out.display();
    Ok(Backup {
        summary: format!("backed up {} to {copy}: {summary}", db.display()),
        broken: broken
            .into_iter()
            .map(|(game, why)| {
                format!("{why}; copied as it is: run `eleusis audit {game} --db {copy}` to see it")
            })
            .collect(),
    })
}

/// A failure to read the copy back, said of the database given (`--db`): the copy
/// is its pages as they are, so what is damaged in the copy is damaged in it,
/// and the copy's own name is of a file already deleted when this is read.
fn of_the_source(db: &Path, e: anyhow::Error) -> anyhow::Error {
    match e.downcast::<StoreError>() {
        Ok(StoreError::Sqlite { during, cause, .. }) => anyhow::anyhow!(
            "database {}: {during}, in the copy just taken of it: {cause} (the copy is the database's pages as they are: check the database itself, e.g. with `eleusis audit GAME --db {}`)",
            db.display(),
            db.display()
        ),
        Ok(other) => anyhow::Error::from(other)
            .context(format!("checking the copy taken of {}", db.display())),
        Err(other) => other.context(format!("checking the copy taken of {}", db.display())),
    }
}

/// A game that does not check: the game and why, in words.
type Unsound = (crate::store::GameId, String);

/// Opens the copy on its own and checks every game in it as exports do (its hash
/// chain, and every rule against the commitment made before play): what it
/// holds, in words, and the games that do not check. A copy that cannot be read
/// whole is an error.
fn check(copy: &Path) -> Result<(String, Vec<Unsound>)> {
    let store = Store::open_read_only(copy).context("reading the copy back")?;
    let games = store.games()?;
    let mut events = 0;
    let mut broken = Vec::new();
    for &game in &games {
        events += store.events(game)?.len();
        match require_intact_chain(&store, game, None) {
            Ok(()) => {}
            Err(HistoryError::BrokenChain { game, broken: at }) => {
                broken.push((game, format!("game {game}'s hash chain is broken at {at}")))
            }
            Err(HistoryError::ForgedRule { game, round, what }) => broken.push((
                game,
                format!("game {game}: round {round}'s stored rule no longer matches the commitment made before play ({what})"),
            )),
            Err(HistoryError::Store(e)) => return Err(e.into()),
            Err(other) => return Err(other.into()),
        }
    }
    let frames = store.frame_count()?;
    let verdict = match broken.len() {
        0 => "every hash chain intact, every rule matches its commitment".to_string(),
        _ => format!(
            "not every game checks: {} (copied as {}, as evidence)",
            broken
                .iter()
                .map(|(game, _)| format!("game {game}"))
                .collect::<Vec<_>>()
                .join(", "),
            if broken.len() == 1 {
                "it is"
            } else {
                "they are"
            }
        ),
    };
    Ok((
        format!(
            "{} game(s), {events} event(s), {frames} frame(s), {verdict}",
            games.len()
        ),
        broken,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::history::standard_referee;
    use crate::store::recorder::{Recorder, Reply};

    #[test]
    fn a_backup_taken_while_a_writer_holds_the_file_has_every_event() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("club.db");
        // The writer stays open: its events are in the write-ahead log, not yet in
        // the database file, which `cp club.db` would copy alone.
        let store = Store::open(&db).expect("open");
        let mut recorder = Recorder::new_game(&store, standard_referee());
        let lines: Vec<(usize, String)> = [
            r#"{"event":"round","god":"G","players":["Ana","Bo"],"rule":"red","starter":"3H"}"#,
            r#"{"event":"play","cards":["5D"]}"#,
            r#"{"event":"play","cards":["7S"]}"#,
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| (i + 1, t.to_string()))
        .collect();
        let replies = recorder.record_batch(&lines).expect("record");
        assert!(replies.iter().all(|r| matches!(r, Reply::Stored(_))));
        let out = dir.path().join("copy.db");
        let done = backup(&db, &out).expect("backup");
        assert!(
            done.summary.contains("1 game(s), 3 event(s)"),
            "{}",
            done.summary
        );
        assert!(done.broken.is_empty(), "{done:?}");
        let copy = Store::open_read_only(&out).expect("copy");
        assert_eq!(
            copy.events(crate::store::GameId(1)).expect("events").len(),
            3
        );
        // Never over a file, and nothing left behind by a refused one.
        let again = backup(&db, &out).expect_err("exists");
        assert!(again.to_string().contains("already exists"), "{again}");
        let nowhere = backup(&db, &dir.path().join("no/such/dir/x.db")).expect_err("folder");
        assert!(nowhere.to_string().contains("does not exist"), "{nowhere}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("partial"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        drop(recorder);
        drop(store);
    }
}
