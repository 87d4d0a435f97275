//! `eleusis rule …`: the secret rule from the command line. `rule judge` gives the
//! verdict on one card or a sequence, or streams verdicts for JSON lines on stdin.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};

use crate::cards::{parse_cards, Card};
use crate::rule::{Context, Judgment, Rule, RuleError};

/// Arguments of `eleusis rule`.
#[derive(Debug, Args)]
pub struct RuleArgs {
    #[command(subcommand)]
    pub command: RuleCommand,
}

/// What to do with a rule.
#[derive(Debug, Subcommand)]
pub enum RuleCommand {
    /// Judge cards against a rule: one card, a sequence, or JSON lines (--batch).
    Judge(JudgeArgs),
    /// Check a rule before sealing it: acceptance rate, dead ends, starters, hints.
    Check(crate::cli::rule_check::CheckArgs),
}

/// Arguments of `eleusis rule judge`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["rule_file", "rule"])))]
pub struct JudgeArgs {
    /// File holding the rule, in the rule language.
    #[arg(long, value_name = "FILE")]
    pub rule_file: Option<PathBuf>,
    /// The rule itself, instead of a file (extension).
    // A rule may start with a minus (`-card.rank < -5`): not an option.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub rule: Option<String>,
    /// The main line, oldest first (the starter first): "3H 5S 9D".
    #[arg(long, value_name = "CARDS", default_value = "")]
    pub main: String,
    /// The sideline under the last main-line card, for advanced rules (extension).
    #[arg(long, value_name = "CARDS", default_value = "")]
    pub side: String,
    /// Every sideline card of the round, for advanced rules (extension).
    #[arg(long, value_name = "CARDS", default_value = "")]
    pub wrong: String,
    /// Read JSON lines {"main":[…],"card":"8C"} on stdin, write one verdict per line.
    #[arg(long, conflicts_with = "cards")]
    pub batch: bool,
    /// In --batch mode, add each verdict's explanation (extension).
    #[arg(long, requires = "batch")]
    pub explain: bool,
    /// The card to judge, or several cards: a sequence judged in order.
    #[arg(value_name = "CARD", required_unless_present = "batch")]
    pub cards: Vec<String>,
}

/// Runs `eleusis rule …`.
pub fn run(args: &RuleArgs) -> ExitCode {
    let result = match &args.command {
        RuleCommand::Judge(judge) => run_judge(judge),
        RuleCommand::Check(check) => crate::cli::rule_check::run(check),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// The largest rule file read (a rule is a few lines; this only stops runaways).
const MAX_RULE_FILE: u64 = 16 * 1024 * 1024;

/// Reads and parses the rule; errors name the file, line and column, and show the
/// line with a caret under the column.
fn load_rule(args: &JudgeArgs) -> anyhow::Result<Rule> {
    let (name, text) = match (&args.rule_file, &args.rule) {
        (Some(path), _) => (path.display().to_string(), read_rule_file(path)?),
        (None, Some(text)) => ("--rule".to_string(), text.clone()),
        (None, None) => bail!("give the rule with --rule-file FILE or --rule TEXT"),
    };
    Rule::parse(&text).map_err(|err| anyhow::anyhow!("{name}: {err}{}", caret(&text, &err)))
}

fn read_rule_file(path: &Path) -> anyhow::Result<String> {
    let file =
        File::open(path).with_context(|| format!("cannot open rule file {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_RULE_FILE + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read rule file {}", path.display()))?;
    if bytes.len() as u64 > MAX_RULE_FILE {
        bail!(
            "{}: the rule file is larger than {} MiB; a rule is a few lines",
            path.display(),
            MAX_RULE_FILE / (1024 * 1024)
        );
    }
    String::from_utf8(bytes)
        .map(super::without_bom)
        .map_err(|err| anyhow::anyhow!("{}: {}", path.display(), not_utf8(&err)))
}

/// Where a rule's bytes stop being UTF-8: line, column (of the characters before
/// it, plus one) and the 1-based byte, the same in `rule judge` and `rule check`.
pub(crate) fn not_utf8(err: &std::string::FromUtf8Error) -> String {
    let at = err.utf8_error().valid_up_to();
    let valid = String::from_utf8_lossy(&err.as_bytes()[..at]);
    let line = valid.matches('\n').count() + 1;
    let column = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!(
        "line {line}, column {column}: not UTF-8 text (byte {}); a rule is plain text",
        at + 1
    )
}

/// The offending line with a caret under the column, for people at a terminal.
pub(crate) fn caret(text: &str, err: &RuleError) -> String {
    let Some(line) = text.lines().nth(err.line.saturating_sub(1)) else {
        return String::new();
    };
    const MAX: usize = 120;
    if line.chars().count() > MAX || err.column > MAX {
        return String::new();
    }
    // A control or bidirectional character is shown as its escape, never sent to
    // the terminal as is (an ESC would clear the screen, a CR overwrite the line);
    // the caret moves along by the escape's width.
    let mut shown = String::with_capacity(line.len());
    let mut pad = String::new();
    for (at, c) in line.chars().enumerate() {
        let part = if c == '\t' {
            "\t".to_string()
        } else {
            crate::store::printable::printable(c.encode_utf8(&mut [0; 4])).into_owned()
        };
        if at < err.column.saturating_sub(1) {
            if c == '\t' {
                pad.push('\t');
            } else {
                pad.extend(std::iter::repeat_n(' ', part.chars().count()));
            }
        }
        shown.push_str(&part);
    }
    format!("\n  {shown}\n  {pad}^")
}

fn card_list(flag: &str, text: &str) -> anyhow::Result<Vec<Card>> {
    parse_cards(text).with_context(|| format!("--{flag}"))
}

/// Every wrong card of the round (`wrong`) with the sideline under the last
/// main-line card (`side`) among them: the sideline is the latest wrong cards, so
/// `wrong` ends with it (RULE-LANGUAGE.md). A `wrong` left out is the sideline
/// alone; one that does not end with the sideline describes no round and is
/// refused, saying so, rather than judged.
fn wrong_with_side(side: &[Card], wrong: Vec<Card>) -> Result<Vec<Card>, String> {
    if wrong.is_empty() {
        return Ok(side.to_vec());
    }
    if wrong.ends_with(side) {
        return Ok(wrong);
    }
    let list = |cards: &[Card]| {
        cards
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    };
    Err(format!(
        "the sideline under the last main-line card ({}) must be the last cards of every wrong card of the round ({}): give the wrong cards oldest first, ending with that sideline, or leave them out to use the sideline alone",
        list(side),
        list(&wrong)
    ))
}

/// The single-shot output: the cards judged and the verdict.
#[derive(Serialize)]
struct JudgeOutput<'a> {
    cards: &'a [Card],
    accepted: bool,
    explanation: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_card: Option<&'a [Judgment]>,
}

fn run_judge(args: &JudgeArgs) -> anyhow::Result<ExitCode> {
    let rule = load_rule(args)?;
    let main = card_list("main", &args.main)?;
    let side = card_list("side", &args.side)?;
    let wrong = wrong_with_side(&side, card_list("wrong", &args.wrong)?)
        .map_err(|e| anyhow::anyhow!("--side and --wrong: {e}"))?;
    if args.batch {
        return batch(&rule, args.explain);
    }
    let mut cards = Vec::new();
    for (i, arg) in args.cards.iter().enumerate() {
        let parsed = parse_cards(arg).with_context(|| format!("card argument {}", i + 1))?;
        cards.extend(parsed);
    }
    if cards.is_empty() {
        bail!("no card to judge: give one card (8C) or a sequence (8C 7D)");
    }
    if cards.len() > MAX_SEQUENCE {
        bail!(
            "a play is one card or a sequence of 2 to {MAX_SEQUENCE} cards (RULES.md section 3), got {} cards",
            cards.len()
        );
    }
    let ctx = Context {
        main: &main,
        side: &side,
        wrong: &wrong,
    };
    let verdict = rule.judge_sequence(&ctx, &cards);
    let per_card = every_card(&verdict.per_card, &cards);
    let output = JudgeOutput {
        cards: &cards,
        accepted: verdict.accepted,
        explanation: &verdict.explanation,
        per_card: (cards.len() > 1).then_some(per_card.as_slice()),
    };
    let mut text = serde_json::to_string(&output)?;
    text.push('\n');
    Ok(match super::print_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    })
}

/// The longest sequence a play may be (RULES.md section 3).
const MAX_SEQUENCE: usize = 4;

/// One judgment per card of the sequence, so that `per_card[i]` is about
/// `cards[i]`: the rule stops at the first rejected card, and each card after it
/// is "not judged", in the words `replay --trace` uses.
fn every_card(judged: &[Judgment], cards: &[Card]) -> Vec<Judgment> {
    let mut all = judged.to_vec();
    if let Some(failed) = cards.get(judged.len().saturating_sub(1)) {
        for _ in judged.len()..cards.len() {
            all.push(Judgment {
                accepted: false,
                explanation: format!(
                    "not judged: the sequence is already wrong at {}",
                    failed.pretty()
                ),
            });
        }
    }
    all
}

/// One input line of `--batch`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchRequest {
    #[serde(default)]
    main: Vec<Card>,
    #[serde(default)]
    side: Vec<Card>,
    #[serde(default)]
    wrong: Vec<Card>,
    card: Option<Card>,
    cards: Option<Vec<Card>>,
}

#[derive(Serialize)]
struct BatchVerdict<'a> {
    accepted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<&'a str>,
}

#[derive(Serialize)]
struct BatchError {
    error: String,
}

/// Streams verdicts: one output line per input line, in order. A bad line gets an
/// `{"error":"line N: …"}` line and the batch goes on. Output is flushed whenever
/// the input has nothing more buffered, so an interactive caller sees each answer
/// at once while a bulk caller is not slowed by a write per line.
fn batch(rule: &Rule, explain: bool) -> anyhow::Result<ExitCode> {
    let stdin = io::stdin();
    let mut input = BufReader::with_capacity(64 * 1024, stdin.lock());
    let mut out = BufWriter::with_capacity(64 * 1024, super::stdout());
    let mut line = Vec::new();
    let mut number = 0usize;
    loop {
        line.clear();
        let read = input
            .read_until(b'\n', &mut line)
            .context("reading stdin")?;
        if read == 0 {
            break;
        }
        number += 1;
        let result = batch_line(rule, &line, explain);
        let written = match result {
            Ok(json) => out.write_all(json.as_bytes()),
            Err(message) => serde_json::to_writer(
                &mut out,
                &BatchError {
                    error: format!("line {number}: {message}"),
                },
            )
            .map_err(io::Error::from),
        }
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| {
            if input.buffer().is_empty() {
                out.flush()
            } else {
                Ok(())
            }
        });
        if let Err(err) = written {
            if err.kind() == io::ErrorKind::BrokenPipe {
                // The reader went away: nobody is left to tell (exit 141, as a
                // program stopped by SIGPIPE, as every other command does).
                return Ok(ExitCode::from(141));
            }
            return Err(err).context("writing stdout");
        }
    }
    match out.flush() {
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::from(141)),
        Err(err) => Err(err).context("writing stdout"),
        Ok(()) => Ok(ExitCode::SUCCESS),
    }
}

/// The verdict line for one input line, or the error message.
fn batch_line(rule: &Rule, line: &[u8], explain: bool) -> Result<String, String> {
    let text = std::str::from_utf8(line)
        .map_err(|e| format!("not UTF-8 text (byte {})", e.valid_up_to() + 1))?;
    let text = text.trim();
    if text.is_empty() {
        return Err(r#"empty line (expected {"main":[…],"card":"8C"})"#.to_string());
    }
    let request: BatchRequest = serde_json::from_str(text).map_err(|e| {
        format!(
            "invalid request: {}",
            crate::json_input::one_line_syntax(&e)
        )
    })?;
    let cards: Vec<Card> = match (request.card, request.cards) {
        (Some(card), None) => vec![card],
        (None, Some(cards)) if !cards.is_empty() => cards,
        (None, Some(_)) => return Err("\"cards\" is empty: give at least one card".to_string()),
        (Some(_), Some(_)) => return Err("give either \"card\" or \"cards\", not both".to_string()),
        (None, None) => {
            return Err("missing \"card\" (one card) or \"cards\" (a sequence)".to_string())
        }
    };
    if cards.len() > MAX_SEQUENCE {
        return Err(format!(
            "a play is one card or a sequence of 2 to {MAX_SEQUENCE} cards (RULES.md section 3), got {} cards",
            cards.len()
        ));
    }
    let wrong = wrong_with_side(&request.side, request.wrong)
        .map_err(|e| format!("\"side\" and \"wrong\": {e}"))?;
    let ctx = Context {
        main: &request.main,
        side: &request.side,
        wrong: &wrong,
    };
    let verdict = BatchVerdictOwned::judge(rule, &ctx, &cards, explain);
    serde_json::to_string(&BatchVerdict {
        accepted: verdict.accepted,
        explanation: verdict.explanation.as_deref(),
    })
    .map_err(|e| e.to_string())
}

/// A verdict, explained only when asked (the plain verdict stays on the fast path).
struct BatchVerdictOwned {
    accepted: bool,
    explanation: Option<String>,
}

impl BatchVerdictOwned {
    fn judge(rule: &Rule, ctx: &Context<'_>, cards: &[Card], explain: bool) -> Self {
        if explain {
            let verdict = rule.judge_sequence(ctx, cards);
            BatchVerdictOwned {
                accepted: verdict.accepted,
                explanation: Some(verdict.explanation),
            }
        } else {
            BatchVerdictOwned {
                accepted: rule.accepts_sequence(ctx, cards),
                explanation: None,
            }
        }
    }
}
