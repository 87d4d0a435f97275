//! The season sheet: every game of a database (or of a span of dates) side by side,
//! one row per game with each participant's game total, then each participant's
//! games played, games won and season total. A club keeps one database for its
//! evenings; this is the sheet it pins up at the end of the season.
//!
//! Each game's numbers are its own score sheet's ([`ScoreSheet::build`]): re-refereed
//! from the stored log, corrections applied, refused when its hash chain is broken.

use serde::Serialize;

use super::history::{HistoryError, RefereeFactory};
use super::scoresheet::{csv_text, html, ScoreSheet};
use super::Store;

/// One game's row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SeasonGame {
    pub game: String,
    /// The day its first round started (UTC, `YYYY-MM-DD`).
    pub date: String,
    /// Rounds that ended.
    pub finished_rounds: usize,
    /// The variants its rounds were played in, in order of first use: scores of
    /// different variants are on different scales (a Delphos round gives a few
    /// points, a New Eleusis round dozens).
    pub variants: Vec<String>,
    /// Whether the game was ended (`end_game`: the not-God bonus is in).
    pub ended: bool,
    /// Each participant's game total; `None` for one who did not play in it.
    pub totals: Vec<Option<i64>>,
}

/// The season sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SeasonSheet {
    /// Column order: first seen, game by game.
    pub participants: Vec<String>,
    /// Games with at least one finished round, oldest first.
    pub games: Vec<SeasonGame>,
    /// Games each participant played (of those listed).
    pub played: Vec<u32>,
    /// Games each participant won: the highest total of a game (a tie is a win for
    /// each of the tied).
    pub wins: Vec<u32>,
    /// The sum of each participant's game totals.
    pub totals: Vec<i64>,
    /// Games left out because no round of theirs has ended.
    pub unfinished: Vec<String>,
}

/// A day as `YYYY-MM-DD`, checked, for `--since` and `--until`.
pub fn parse_day(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
    let shaped = bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && digits(0..4)
        && digits(5..7)
        && digits(8..10);
    let month = text.get(5..7).and_then(|m| m.parse::<u32>().ok());
    let day = text.get(8..10).and_then(|d| d.parse::<u32>().ok());
    match (shaped, month, day) {
        (true, Some(1..=12), Some(1..=31)) => Ok(text.to_string()),
        _ => Err(format!(
            "{text:?} is not a day: write it as YYYY-MM-DD, like 2026-09-01"
        )),
    }
}

/// The days a season sheet covers, both bounds included (`YYYY-MM-DD`, UTC; `None`:
/// no bound), checked once for the command line and the web export alike.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DaySpan {
    since: Option<String>,
    until: Option<String>,
}

impl DaySpan {
    /// The span from `since` to `until`, days already read by [`parse_day`]; a
    /// span that ends before it starts holds no game, which is a mistake in the
    /// asking, not an empty season: refused with both days named.
    pub fn new(since: Option<String>, until: Option<String>) -> Result<DaySpan, String> {
        if let (Some(s), Some(u)) = (&since, &until) {
            if s > u {
                return Err(format!(
                    "since {s} is after until {u}: no game can be in between"
                ));
            }
        }
        Ok(DaySpan { since, until })
    }

    /// Whether a game that started on `day` (`YYYY-MM-DD`) is in the span.
    fn holds(&self, day: &str) -> bool {
        self.since.as_deref().is_none_or(|s| s <= day)
            && self.until.as_deref().is_none_or(|u| day <= u)
    }

    /// The span in words, for the sheet's title.
    pub fn words(&self) -> String {
        match (&self.since, &self.until) {
            (None, None) => "(every game)".to_string(),
            (Some(s), None) => format!("from {s}"),
            (None, Some(u)) => format!("to {u}"),
            (Some(s), Some(u)) => format!("{s} to {u}"),
        }
    }
}

impl SeasonSheet {
    /// Builds the sheet of every game whose first round started on a day of `span`.
    pub fn build(
        store: &Store,
        factory: &RefereeFactory,
        span: &DaySpan,
    ) -> Result<SeasonSheet, HistoryError> {
        let mut sheet = SeasonSheet {
            participants: Vec::new(),
            games: Vec::new(),
            played: Vec::new(),
            wins: Vec::new(),
            totals: Vec::new(),
            unfinished: Vec::new(),
        };
        let mut per_game = Vec::new();
        for game in store.games()? {
            let rounds = store.rounds(game)?;
            let Some(first) = rounds.first() else {
                continue;
            };
            let mut variants: Vec<String> = Vec::new();
            for info in &rounds {
                if !variants.contains(&info.variant) {
                    variants.push(info.variant.clone());
                }
            }
            let date = first
                .started
                .get(..10)
                .unwrap_or(&first.started)
                .to_string();
            if !span.holds(&date) {
                continue;
            }
            let game_sheet = ScoreSheet::from_rounds(store, factory, game, &rounds)?;
            let finished = game_sheet
                .rounds
                .iter()
                .filter(|r| r.scores.is_some())
                .count();
            // No round scored: nothing to compare (a game ended during its first
            // round has only the not-God bonus, which would make everyone but
            // God its winner).
            if finished == 0 {
                sheet.unfinished.push(game.to_string());
                continue;
            }
            for name in &game_sheet.participants {
                if !sheet.participants.contains(name) {
                    sheet.participants.push(name.clone());
                }
            }
            per_game.push((date, finished, variants, game_sheet));
        }
        let n = sheet.participants.len();
        sheet.played = vec![0; n];
        sheet.wins = vec![0; n];
        sheet.totals = vec![0; n];
        for (date, finished, variants, game_sheet) in per_game {
            let totals: Vec<Option<i64>> = sheet
                .participants
                .iter()
                .map(|name| {
                    game_sheet
                        .participants
                        .iter()
                        .position(|p| p == name)
                        .and_then(|i| game_sheet.totals.get(i).copied())
                })
                .collect();
            let best = totals.iter().flatten().max().copied();
            for (i, total) in totals.iter().enumerate() {
                if let Some(total) = total {
                    sheet.played[i] += 1;
                    sheet.totals[i] += total;
                    if Some(*total) == best {
                        sheet.wins[i] += 1;
                    }
                }
            }
            sheet.games.push(SeasonGame {
                game: game_sheet.game,
                date,
                finished_rounds: finished,
                variants,
                ended: game_sheet.ended,
                totals,
            });
        }
        Ok(sheet)
    }

    /// The participants' order in the standings: highest season total first, then
    /// more wins, then fewer games played, then the sheet's column order.
    pub fn standings(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.participants.len()).collect();
        order.sort_by(|&a, &b| {
            self.totals[b]
                .cmp(&self.totals[a])
                .then(self.wins[b].cmp(&self.wins[a]))
                .then(self.played[a].cmp(&self.played[b]))
                .then(a.cmp(&b))
        });
        order
    }

    /// The sheet as CSV: a header, one row per game (its day, finished rounds,
    /// whether it was ended, each participant's total, empty where they did not
    /// play), then the rows `games`, `wins` and `total`.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let mut row = |cells: Vec<String>| {
            out.push_str(&cells.join(","));
            out.push('\n');
        };
        let mut header: Vec<String> = ["game", "date", "rounds", "variant", "status"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        header.extend(self.participants.iter().map(|p| csv_text(p)));
        row(header);
        for g in &self.games {
            let mut cells = vec![
                g.game.clone(),
                g.date.clone(),
                g.finished_rounds.to_string(),
                g.variants.join("+"),
                status(g.ended).to_string(),
            ];
            cells.extend(
                g.totals
                    .iter()
                    .map(|t| t.map(|v| v.to_string()).unwrap_or_default()),
            );
            row(cells);
        }
        for (label, values) in [
            ("games", self.played.iter().map(|v| i64::from(*v)).collect()),
            ("wins", self.wins.iter().map(|v| i64::from(*v)).collect()),
            ("total", self.totals.clone()),
        ] as [(&str, Vec<i64>); 3]
        {
            let mut cells = vec![label.to_string()];
            cells.resize(5, String::new());
            cells.extend(values.iter().map(i64::to_string));
            row(cells);
        }
        out
    }

    /// The sheet as one self-contained HTML page that prints on one page: the
    /// standings (rank, name, total, wins, games), then the games side by side.
    pub fn to_html(&self, span: &str) -> String {
        let mut standings = String::from(
            "<tr><th>#</th><th>Player</th><th>Total</th><th>Wins</th><th>Games</th></tr>\n",
        );
        let order = self.standings();
        let mut rank = 0;
        for (place, &i) in order.iter().enumerate() {
            // Equal totals share a rank.
            if place == 0 || self.totals[order[place - 1]] != self.totals[i] {
                rank = place + 1;
            }
            standings.push_str(&format!(
                "<tr><td class=\"n\">{rank}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
                html(&self.participants[i]),
                self.totals[i],
                self.wins[i],
                self.played[i]
            ));
        }
        let mut games =
            String::from("<tr><th>Game</th><th>Date</th><th>Rounds</th><th>Variant</th>");
        for p in &self.participants {
            games.push_str(&format!("<th>{}</th>", html(p)));
        }
        games.push_str("</tr>\n");
        for g in &self.games {
            games.push_str(&format!(
                "<tr><td>{}{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td>",
                html(&g.game),
                if g.ended { "" } else { " (not ended)" },
                html(&g.date),
                g.finished_rounds,
                html(&g.variants.join(" + "))
            ));
            for t in &g.totals {
                games.push_str(&format!(
                    "<td class=\"n\">{}</td>",
                    t.map(|v| v.to_string()).unwrap_or_else(|| "–".into())
                ));
            }
            games.push_str("</tr>\n");
        }
        let note = if self.unfinished.is_empty() {
            String::new()
        } else {
            format!(
                "<p>Not counted (no round finished): game {}.</p>\n",
                html(&self.unfinished.join(", "))
            )
        };
        format!(
            r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Eleusis — season {span}</title>
<style>
  body {{ font-family: Georgia, serif; margin: 2em; color: #111; }}
  h1 {{ font-size: 1.4em; margin: 0 0 .3em; }}
  h2 {{ font-size: 1.1em; margin: 1em 0 .3em; }}
  p {{ margin: .2em 0 1em; font-size: .9em; }}
  table {{ border-collapse: collapse; font-size: .95em; margin-bottom: 1em; }}
  th, td {{ border: 1px solid #444; padding: .25em .5em; text-align: left; }}
  th {{ background: #eee; }}
  td.n {{ text-align: right; font-variant-numeric: tabular-nums; }}
  @page {{ size: A4 landscape; margin: 12mm; }}
  @media print {{
    body {{ margin: 0; font-size: 10pt; }}
    table, tr {{ page-break-inside: avoid; break-inside: avoid; }}
    th {{ -webkit-print-color-adjust: exact; print-color-adjust: exact; }}
  }}
</style>
</head>
<body>
<h1>Eleusis — season {span}</h1>
<p>{count} game(s). A game's total includes the not-God bonus once the game was ended; a win is the highest total of a game (tied players each win). Variants score on different scales: compare games of one variant.</p>
<h2>Standings</h2>
<table>
{standings}</table>
<h2>Games</h2>
<table>
{games}</table>
{note}</body>
</html>
"#,
            span = html(span),
            count = self.games.len(),
        )
    }
}

fn status(ended: bool) -> &'static str {
    if ended {
        "ended"
    } else {
        "not ended"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet() -> SeasonSheet {
        SeasonSheet {
            participants: vec!["Ana".into(), "=Bo".into(), "Cy".into()],
            games: vec![
                SeasonGame {
                    game: "1".into(),
                    date: "2026-09-04".into(),
                    finished_rounds: 3,
                    variants: vec!["new-eleusis".into()],
                    ended: true,
                    totals: vec![Some(30), Some(12), None],
                },
                SeasonGame {
                    game: "2".into(),
                    date: "2026-09-11".into(),
                    finished_rounds: 1,
                    variants: vec!["gardner".into(), "basic".into()],
                    ended: false,
                    totals: vec![Some(5), None, Some(9)],
                },
            ],
            played: vec![2, 1, 1],
            wins: vec![1, 0, 1],
            totals: vec![35, 12, 9],
            unfinished: vec!["3".into()],
        }
    }

    #[test]
    fn days_are_checked() {
        assert_eq!(parse_day("2026-09-01"), Ok("2026-09-01".into()));
        for bad in [
            "2026-9-1",
            "2026-13-01",
            "01/09/2026",
            "2026-09-00",
            "2026-09-01x",
        ] {
            assert!(parse_day(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_span_holds_its_own_days_and_refuses_to_run_backwards() {
        let day = |d: &str| Some(d.to_string());
        let span = DaySpan::new(day("2026-09-01"), day("2026-09-30")).expect("in order");
        assert!(span.holds("2026-09-01") && span.holds("2026-09-30"));
        assert!(!span.holds("2026-08-31") && !span.holds("2026-10-01"));
        assert_eq!(span.words(), "2026-09-01 to 2026-09-30");
        let open = DaySpan::new(None, day("2026-09-30")).expect("open start");
        assert!(open.holds("1999-01-01") && !open.holds("2026-10-01"));
        assert_eq!(open.words(), "to 2026-09-30");
        assert_eq!(DaySpan::default().words(), "(every game)");
        assert_eq!(
            DaySpan::new(day("2026-10-01"), day("2026-09-01")),
            Err("since 2026-10-01 is after until 2026-09-01: no game can be in between".into())
        );
        assert!(DaySpan::new(day("2026-09-01"), day("2026-09-01")).is_ok());
    }

    #[test]
    fn csv_lays_out_games_then_games_wins_and_totals() {
        let csv = sheet().to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines,
            [
                "game,date,rounds,variant,status,Ana,'=Bo,Cy",
                "1,2026-09-04,3,new-eleusis,ended,30,12,",
                "2,2026-09-11,1,gardner+basic,not ended,5,,9",
                "games,,,,,2,1,1",
                "wins,,,,,1,0,1",
                "total,,,,,35,12,9",
            ]
        );
    }

    #[test]
    fn standings_rank_by_total_then_wins_and_share_ties() {
        let mut s = sheet();
        assert_eq!(s.standings(), vec![0, 1, 2]);
        s.totals = vec![12, 12, 9];
        s.wins = vec![0, 1, 1];
        assert_eq!(s.standings(), vec![1, 0, 2]);
        let page = s.to_html("2026");
        assert!(
            page.contains("<td class=\"n\">1</td><td>=Bo</td>"),
            "{page}"
        );
        assert!(
            page.contains("<td class=\"n\">1</td><td>Ana</td>"),
            "a tie shares the rank"
        );
        assert!(page.contains("<td class=\"n\">3</td><td>Cy</td>"));
        assert!(page.contains("2 (not ended)"));
        assert!(page.contains("Not counted (no round finished): game 3."));
        assert!(!page.contains("<script") && !page.contains("<link"));
    }
}
