//! `eleusis rule check FILE`: everything God should know before sealing a rule —
//! acceptance rate under random play, dead ends, starters, what the rule reads,
//! proven hints and warnings. Text for people by default, `--json` for tools.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use crate::rule::analyse::{self, CheckOptions, Report};
use crate::rule::Rule;

/// Arguments of `eleusis rule check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// File holding the rule, in the rule language (`-` reads standard input).
    pub file: PathBuf,
    /// Print one JSON object (shape in the README) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Seed of every random choice; the same seed gives the same report.
    #[arg(long, default_value_t = CheckOptions::default().seed)]
    pub seed: u64,
    /// Double-deck shuffles played out for the acceptance rate.
    #[arg(long, default_value_t = CheckOptions::default().trials as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub trials: u64,
    /// Random walks of the dead-end search (rules reading beyond main[-2]).
    #[arg(long, default_value_t = CheckOptions::default().walks as u64, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub walks: u64,
    /// Layouts sampled to check hints (rules reading beyond main[-2]).
    #[arg(long, default_value_t = CheckOptions::default().samples as u64, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub samples: u64,
}

impl CheckArgs {
    fn options(&self) -> CheckOptions {
        // The parsers above bound every count to at most 1_000_000, which fits a usize.
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        CheckOptions {
            seed: self.seed,
            trials: count(self.trials),
            walks: count(self.walks),
            samples: count(self.samples),
        }
    }
}

/// The JSON document: the rule as written, then the report.
#[derive(Serialize)]
struct JsonReport<'a> {
    file: String,
    rule: &'a str,
    #[serde(flatten)]
    report: &'a Report,
}

/// Runs the check and prints the report on standard output.
pub fn run(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let source = read_source(&args.file)?;
    let rule = Rule::parse(&source).map_err(|err| {
        anyhow::anyhow!(
            "{}: {err}{}",
            source_name(&args.file),
            super::rule::caret(&source, &err)
        )
    })?;
    let reads = rule.footprint();
    let options = args.options();
    let progress = progress_bar(analyse::work_units(&reads, &options));
    let report = analyse::check(&rule, reads, &options, &progress);
    progress.finish_and_clear();

    let text = if args.json {
        let doc = JsonReport {
            file: args.file.display().to_string(),
            rule: rule.source(),
            report: &report,
        };
        serde_json::to_string_pretty(&doc)? + "\n"
    } else {
        format!(
            "rule: {}\n{}",
            rule.source().trim(),
            analyse::render_text(&report)
        )
    };
    Ok(match super::print_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(status) => status,
    })
}

/// The largest rule read: a rule is a few lines; this only stops runaway input.
const MAX_RULE_BYTES: u64 = 1024 * 1024;

/// How the rule's origin is named in messages.
fn source_name(file: &Path) -> String {
    if file.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        file.display().to_string()
    }
}

fn read_source(file: &Path) -> anyhow::Result<String> {
    let name = source_name(file);
    let reader: Box<dyn Read> = if file.as_os_str() == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            std::fs::File::open(file)
                .with_context(|| format!("cannot read the rule file {name}"))?,
        )
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_RULE_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read the rule from {name}"))?;
    if bytes.len() as u64 > MAX_RULE_BYTES {
        anyhow::bail!("{name}: larger than 1 MiB; a rule is a few lines");
    }
    String::from_utf8(bytes)
        .map(super::without_bom)
        .map_err(|err| anyhow::anyhow!("{name}: {}", super::rule::not_utf8(&err)))
}

/// A bar on standard error when it is a terminal, hidden otherwise (pipes, tests).
fn progress_bar(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{msg:>24} [{bar:40}] {percent:>3}%") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}
