//! The report as text for God, one section per question.

use std::fmt::Write;

use super::table::CASES;
use super::{line_text, Method, Report};

/// The report as readable text (the CLI's default output).
pub fn render_text(report: &Report) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail; the results are ignored on purpose.
    let _ = write_report(&mut out, report);
    out
}

fn percent(rate: f64) -> String {
    format!("{:.1} %", rate * 100.0)
}

fn write_report(out: &mut String, report: &Report) -> std::fmt::Result {
    writeln!(out, "reads: {}", report.uses.join("; "))?;
    match report.method {
        Method::Exact => writeln!(
            out,
            "method: exact (the rule reads at most main[-2]: all {CASES} cases enumerated)"
        )?,
        Method::Sampled => writeln!(
            out,
            "method: sampled (the rule reads beyond main[-2], positions or sidelines)"
        )?,
    }

    let a = &report.acceptance;
    writeln!(out)?;
    writeln!(
        out,
        "acceptance of a random card under random play ({} shuffles, seed {}):",
        a.trials, a.seed
    )?;
    writeln!(
        out,
        "  mean {}, std dev {}, 5–95 %: {} – {}",
        percent(a.mean),
        percent(a.std_dev),
        percent(a.p5),
        percent(a.p95)
    )?;

    writeln!(out)?;
    let starters = &report.starters;
    match starters.len() {
        0 => writeln!(out, "starters: none — no card can start the main line")?,
        52 => writeln!(out, "starters: any card (52 of 52)")?,
        n => writeln!(out, "starters ({n} of 52): {}", line_text(starters))?,
    }

    let d = &report.dead_ends;
    let how = match d.method {
        Method::Exact => format!("exact: {} reachable states explored", d.searched),
        Method::Sampled => format!("sampled: {} random walks", d.searched),
    };
    if d.examples.is_empty() {
        writeln!(out, "dead ends: none ({how})")?;
    } else {
        let found = match d.method {
            Method::Exact => format!("{} reachable (main[-2], main[-1]) states", d.found),
            Method::Sampled => format!("{} of {} random walks blocked", d.found, d.searched),
        };
        writeln!(
            out,
            "dead ends: {found} ({how}); no card is acceptable after:"
        )?;
        for line in &d.examples {
            writeln!(out, "  {}", line_text(line))?;
        }
    }

    if !d.deck_runs_out.is_empty() {
        writeln!(
            out,
            "the double deck runs out: both copies of every acceptable card are on the line after:"
        )?;
        for line in &d.deck_runs_out {
            writeln!(out, "  {}", line_text(line))?;
        }
    }

    writeln!(out)?;
    if report.hints.is_empty() {
        writeln!(out, "hints: none could be established")?;
    } else {
        writeln!(out, "hints God may announce:")?;
        for hint in &report.hints {
            let proof = match hint.method {
                Method::Exact => format!("proven on all {} cases", hint.checked),
                Method::Sampled => format!("checked on {} sampled lines", hint.checked),
            };
            writeln!(out, "  - {} ({proof})", hint.text)?;
        }
    }

    writeln!(out)?;
    if report.warnings.is_empty() {
        writeln!(out, "warnings: none")?;
    } else {
        writeln!(out, "warnings:")?;
        for warning in &report.warnings {
            writeln!(out, "  ! {}", warning.text)?;
        }
    }
    Ok(())
}
