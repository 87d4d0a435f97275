//! The score sheet of a game: rounds × participants, the not-God bonus (+10 for
//! everyone who had not been God when the game stopped, RULES.md section 5) and the
//! totals, as CSV or as a self-contained HTML page that prints on one page.
//!
//! The numbers come from re-refereeing the stored log (corrections applied), not
//! from a cache: a sheet always agrees with `eleusis replay` of the exported log.

use serde::Serialize;

use super::history::{require_intact_chain, History, HistoryError, RefereeFactory};
use super::log::RoundInfo;
use super::printable::printable;
use super::{GameId, Store};

/// One row: a round, its God, and each participant's score (`None` while the
/// round has not ended; a participant absent from a round scores nothing there).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SheetRound {
    pub number: u32,
    pub god: String,
    pub scores: Option<Vec<Option<i64>>>,
}

/// A game's score sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScoreSheet {
    pub game: String,
    /// Column order: first-seen order at the table (seating, then God).
    pub participants: Vec<String>,
    pub rounds: Vec<SheetRound>,
    /// The not-God bonus per participant (0 until the game has ended).
    pub adjustment: Vec<i64>,
    pub totals: Vec<i64>,
    pub ended: bool,
}

impl ScoreSheet {
    /// Builds the sheet of `game` by re-refereeing its log. Gods and seatings are the
    /// chained `round` events' ([`Store::rounds`]), never the index tables alone.
    pub fn build(
        store: &Store,
        factory: &RefereeFactory,
        game: GameId,
    ) -> Result<ScoreSheet, HistoryError> {
        let infos = store.rounds(game)?;
        ScoreSheet::from_rounds(store, factory, game, &infos)
    }

    /// As [`ScoreSheet::build`], with the game's rounds already read (the season
    /// sheet reads them to choose its games by day).
    pub(crate) fn from_rounds(
        store: &Store,
        factory: &RefereeFactory,
        game: GameId,
        infos: &[RoundInfo],
    ) -> Result<ScoreSheet, HistoryError> {
        require_intact_chain(store, game, None)?;
        let history = History::load(store, game, true)?;
        let effective = history.effective(&[])?;
        let (referee, outcomes) = history.replay(factory, &effective)?;
        let mut participants: Vec<String> = Vec::new();
        let seen = |name: &str, list: &mut Vec<String>| {
            if !list.iter().any(|n| n == name) {
                list.push(name.to_string());
            }
        };
        for info in infos {
            for name in info.players.iter().chain(std::iter::once(&info.god)) {
                seen(name, &mut participants);
            }
        }
        let mut rounds: Vec<SheetRound> = infos
            .iter()
            .map(|info| SheetRound {
                number: info.round.number,
                god: info.god.clone(),
                scores: None,
            })
            .collect();
        let mut sums = vec![0i64; participants.len()];
        for outcome in &outcomes {
            let Some(end) = &outcome.round_end else {
                continue;
            };
            let Some(row) = rounds.iter_mut().find(|r| r.number == outcome.round) else {
                continue;
            };
            let scores: Vec<Option<i64>> = participants.iter().map(|p| end.scores.get(p)).collect();
            for (sum, score) in sums.iter_mut().zip(&scores) {
                *sum += score.unwrap_or(0);
            }
            row.scores = Some(scores);
        }
        let (totals, adjustment) = match referee.totals() {
            Some(tally) => {
                let totals: Vec<i64> = participants
                    .iter()
                    .zip(&sums)
                    .map(|(p, &sum)| tally.get(p).unwrap_or(sum))
                    .collect();
                let adjustment = totals.iter().zip(&sums).map(|(t, s)| t - s).collect();
                (totals, adjustment)
            }
            None => (sums.clone(), vec![0; participants.len()]),
        };
        Ok(ScoreSheet {
            game: game.to_string(),
            participants,
            rounds,
            adjustment,
            totals,
            ended: referee.ended(),
        })
    }

    /// The sheet as CSV: a header, one row per round, the bonus row and the totals.
    /// Names go through `csv_text` (no spreadsheet formulas, no control
    /// characters); numbers are written as numbers.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let mut row = |cells: Vec<String>| {
            out.push_str(&cells.join(","));
            out.push('\n');
        };
        let mut header = vec!["round".to_string(), "god".to_string()];
        header.extend(self.participants.iter().map(|p| csv_text(p)));
        row(header);
        for r in &self.rounds {
            let mut cells = vec![r.number.to_string(), csv_text(&r.god)];
            match &r.scores {
                Some(scores) => cells.extend(
                    scores
                        .iter()
                        .map(|s| s.map(|v| v.to_string()).unwrap_or_default()),
                ),
                None => cells.extend(self.participants.iter().map(|_| String::new())),
            }
            row(cells);
        }
        let mut bonus = vec!["not-God bonus".to_string(), String::new()];
        bonus.extend(self.adjustment.iter().map(|a| signed(*a)));
        row(bonus);
        let mut totals = vec!["total".to_string(), String::new()];
        totals.extend(self.totals.iter().map(i64::to_string));
        row(totals);
        out
    }

    /// The sheet as one self-contained HTML page, laid out to print on one page.
    pub fn to_html(&self) -> String {
        let mut body = String::new();
        body.push_str("<tr><th>Round</th><th>God</th>");
        for p in &self.participants {
            body.push_str(&format!("<th>{}</th>", html(p)));
        }
        body.push_str("</tr>\n");
        for r in &self.rounds {
            body.push_str(&format!(
                "<tr><td>{}</td><td>{}</td>",
                r.number,
                html(&r.god)
            ));
            match &r.scores {
                Some(scores) => {
                    for s in scores {
                        body.push_str(&format!(
                            "<td class=\"n\">{}</td>",
                            s.map(|v| v.to_string()).unwrap_or_else(|| "–".into())
                        ));
                    }
                }
                None => body.push_str(&format!(
                    "<td class=\"open\" colspan=\"{}\">round not finished</td>",
                    self.participants.len()
                )),
            }
            body.push_str("</tr>\n");
        }
        body.push_str("<tr class=\"bonus\"><td colspan=\"2\">Not-God bonus</td>");
        for a in &self.adjustment {
            body.push_str(&format!("<td class=\"n\">{}</td>", signed(*a)));
        }
        body.push_str("</tr>\n<tr class=\"total\"><td colspan=\"2\">Total</td>");
        for t in &self.totals {
            body.push_str(&format!("<td class=\"n\">{t}</td>"));
        }
        body.push_str("</tr>\n");
        let status = if self.ended {
            "Game over: players who had not been God get 10 more."
        } else {
            "Game in progress."
        };
        format!(
            r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Eleusis — score sheet, game {game}</title>
<style>
  body {{ font-family: Georgia, serif; margin: 2em; color: #111; }}
  h1 {{ font-size: 1.4em; margin: 0 0 .3em; }}
  p {{ margin: .2em 0 1em; font-size: .9em; }}
  table {{ border-collapse: collapse; width: 100%; font-size: .95em; }}
  th, td {{ border: 1px solid #444; padding: .25em .5em; text-align: left; }}
  th {{ background: #eee; }}
  td.n {{ text-align: right; font-variant-numeric: tabular-nums; }}
  td.open {{ color: #666; font-style: italic; text-align: center; }}
  tr.bonus td {{ font-style: italic; }}
  tr.total td {{ font-weight: bold; border-top: 2px solid #000; }}
  @page {{ size: A4 landscape; margin: 12mm; }}
  @media print {{
    body {{ margin: 0; font-size: 10pt; }}
    table {{ page-break-inside: avoid; break-inside: avoid; }}
    tr {{ page-break-inside: avoid; break-inside: avoid; }}
    th {{ -webkit-print-color-adjust: exact; print-color-adjust: exact; }}
  }}
</style>
</head>
<body>
<h1>Eleusis — score sheet, game {game}</h1>
<p>{status}</p>
<table>
{body}</table>
</body>
</html>
"#,
            game = html(&self.game),
        )
    }
}

fn signed(value: i64) -> String {
    if value > 0 {
        format!("+{value}")
    } else {
        value.to_string()
    }
}

/// Characters that make a spreadsheet (Excel, LibreOffice, Google Sheets) read a
/// cell as a formula, or that it strips before doing so.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A text cell (a name) for the CSV sheet. Player names come from the table log, so
/// a name like `=HYPERLINK("…")` would run as a formula when a club opens the sheet:
/// a cell starting with one of [`FORMULA_STARTS`] gets a `'` in front, which
/// spreadsheets show as text (OWASP's advice for CSV injection). Control characters
/// are written as escapes ([`printable`]) so a name cannot split a row, and the cell
/// is quoted when it holds a comma or a quote.
pub(crate) fn csv_text(text: &str) -> String {
    let text = printable(text);
    let text = if text.starts_with(FORMULA_STARTS) {
        format!("'{text}")
    } else {
        text.into_owned()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

pub(crate) fn html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet() -> ScoreSheet {
        ScoreSheet {
            game: "3".into(),
            participants: vec!["Alain".into(), "Zoë, \"Z\"".into(), "<b>".into()],
            rounds: vec![
                SheetRound {
                    number: 1,
                    god: "<b>".into(),
                    scores: Some(vec![Some(4), Some(0), Some(4)]),
                },
                SheetRound {
                    number: 2,
                    god: "Alain".into(),
                    scores: None,
                },
            ],
            adjustment: vec![0, 10, 0],
            totals: vec![4, 10, 4],
            ended: true,
        }
    }

    #[test]
    fn csv_quotes_and_lays_out_rounds_bonus_and_totals() {
        let csv = sheet().to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "round,god,Alain,\"Zoë, \"\"Z\"\"\",<b>");
        assert_eq!(lines[1], "1,<b>,4,0,4");
        assert_eq!(lines[2], "2,Alain,,,");
        assert_eq!(lines[3], "not-God bonus,,0,+10,0");
        assert_eq!(lines[4], "total,,4,10,4");
    }

    #[test]
    fn csv_neutralises_formulas_and_control_characters_but_not_numbers() {
        let sheet = ScoreSheet {
            game: "1".into(),
            participants: vec![
                "=HYPERLINK(\"http://x\",\"y\")".into(),
                "+1".into(),
                "-2".into(),
                "@SUM(A1)".into(),
                "\tTab".into(),
                "\rCR".into(),
                "Ana\nround,god".into(),
                "Bo=1".into(),
            ],
            rounds: vec![SheetRound {
                number: 1,
                god: "=1+1".into(),
                scores: Some(vec![
                    Some(-3),
                    Some(0),
                    Some(4),
                    None,
                    None,
                    None,
                    None,
                    None,
                ]),
            }],
            adjustment: vec![10, 0, 0, 0, 0, 0, 0, 0],
            totals: vec![7, 0, 4, 0, 0, 0, 0, 0],
            ended: true,
        };
        let csv = sheet.to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4, "a name cannot add a row: {csv}");
        assert_eq!(
            lines[0],
            "round,god,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",'+1,'-2,'@SUM(A1),\\tTab,\\rCR,\"Ana\\nround,god\",Bo=1"
        );
        assert_eq!(lines[1], "1,'=1+1,-3,0,4,,,,,");
        assert_eq!(lines[2], "not-God bonus,,+10,0,0,0,0,0,0,0");
        assert_eq!(lines[3], "total,,7,0,4,0,0,0,0,0");
        for line in &lines {
            for cell in line.split(',') {
                let cell = cell.trim_start_matches('"');
                assert!(
                    !cell.starts_with(['=', '@', '\t', '\r'])
                        && (cell.parse::<i64>().is_ok() || !cell.starts_with(['+', '-'])),
                    "{cell:?} in {line}"
                );
            }
        }
    }

    #[test]
    fn html_is_escaped_self_contained_and_printable() {
        let page = sheet().to_html();
        assert!(page.contains("&lt;b&gt;") && !page.contains("<th><b></th>"));
        assert!(page.contains("@media print") && page.contains("@page"));
        assert!(!page.contains("<link") && !page.contains("<script") && !page.contains("src="));
        assert!(page.contains("round not finished"));
        assert!(page.contains("<td class=\"n\">+10</td>"));
    }
}
