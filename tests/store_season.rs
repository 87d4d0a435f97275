//! The season sheet through the CLI: every game of a club's database side by side,
//! each game's totals exactly its own score sheet's, and the season's sums.

mod store_support;

use std::path::Path;

use store_support::{eleusis, record, replay, SHORT_GAME};

/// Cy joins; Bo empties his hand; the game is not ended.
const GAME_B: &str = r#"{"event":"round","variant":"basic","god":"Ana","players":["Bo","Cy"],"rule":"red","starter":"AH","hand_size":1}
{"event":"play","player":"Bo","cards":["2H"]}"#;

/// A round that never finished.
const GAME_C: &str = r#"{"event":"round","variant":"basic","god":"Bo","players":["Ana","Cy"],"rule":"red","starter":"AH","hand_size":3}"#;

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

fn run(db: &Path, extra: &[&str]) -> (String, String, Option<i32>) {
    let mut args = vec!["season", "--db", db.to_str().expect("p")];
    args.extend_from_slice(extra);
    let output = eleusis(&args, "");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code(),
    )
}

#[test]
fn a_season_sheet_sums_each_games_own_totals() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("club.db");
    for game in [SHORT_GAME, GAME_B, GAME_C] {
        let (_, output) = record(&db, &lines(game), &[]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // Each game's totals, as the referee gives them (standings once a round ended).
    let a = replay(&lines(SHORT_GAME));
    let b = replay(&lines(GAME_B));
    let total = |state: &serde_json::Value, name: &str| {
        let game = &state["game"];
        let value = if game["totals"].is_null() {
            &game["standings"][name]
        } else {
            &game["totals"][name]
        };
        value.as_i64().unwrap_or_else(|| panic!("{name}: {state}"))
    };

    let (csv, stderr, code) = run(&db, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0],
        ["game", "date", "rounds", "variant", "status", "Ana", "Bo", "Gil", "Cy"]
    );
    assert_eq!(
        rows.len(),
        6,
        "games 1 and 2, then games, wins, total: {csv}"
    );
    assert_eq!(rows[1][..5], ["1", rows[1][1], "1", "basic", "ended"]);
    assert_eq!(rows[2][..5], ["2", rows[2][1], "1", "basic", "not ended"]);
    let (ana, bo, gil) = (total(&a, "Ana"), total(&a, "Bo"), total(&a, "Gil"));
    let (ana_b, bo_b, cy_b) = (total(&b, "Ana"), total(&b, "Bo"), total(&b, "Cy"));
    let cell = |v: i64| v.to_string();
    assert_eq!(
        rows[1][5..],
        [cell(ana), cell(bo), cell(gil), String::new()]
    );
    assert_eq!(
        rows[2][5..],
        [cell(ana_b), cell(bo_b), String::new(), cell(cy_b)]
    );
    assert_eq!(rows[3], ["games", "", "", "", "", "2", "2", "1", "1"]);
    assert_eq!(
        rows[5][5..],
        [cell(ana + ana_b), cell(bo + bo_b), cell(gil), cell(cy_b)]
    );
    // A win is the highest total of a game.
    let wins = |values: &[(usize, i64)]| {
        let best = values.iter().map(|v| v.1).max().expect("values");
        values
            .iter()
            .filter(|v| v.1 == best)
            .map(|v| v.0)
            .collect::<Vec<_>>()
    };
    let mut expected = [0u32; 4];
    for i in wins(&[(0, ana), (1, bo), (2, gil)]) {
        expected[i] += 1;
    }
    for i in wins(&[(0, ana_b), (1, bo_b), (3, cy_b)]) {
        expected[i] += 1;
    }
    let expected: Vec<String> = expected.iter().map(u32::to_string).collect();
    assert_eq!(rows[4][5..], expected[..]);

    // The page lists the unfinished game as not counted.
    let (page, _, code) = run(&db, &["--format", "html"]);
    assert_eq!(code, Some(0));
    assert!(
        page.contains("Not counted (no round finished): game 3."),
        "{page}"
    );

    // Days bound the games by their first round's day.
    let (csv, _, _) = run(&db, &["--until", "2000-01-01"]);
    assert_eq!(csv.lines().count(), 4, "no game before 2000: {csv}");
    let (csv, _, _) = run(&db, &["--since", "2000-01-01"]);
    assert_eq!(csv.lines().count(), 6);
    let (_, stderr, code) = run(&db, &["--since", "1/9/2026"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("\"1/9/2026\" is not a day: write it as YYYY-MM-DD"),
        "{stderr}"
    );
    let (_, stderr, code) = run(&db, &["--since", "2026-10-01", "--until", "2026-09-01"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("--since 2026-10-01 is after --until 2026-09-01"),
        "{stderr}"
    );

    // An altered game stops the sheet, naming it.
    let conn = rusqlite::Connection::open(&db).expect("raw");
    conn.execute_batch(
        "DROP TRIGGER events_append_only_update;
         UPDATE events SET payload = replace(payload, '\"2H\"', '\"9H\"')
         WHERE seq = 2 AND round_id = (SELECT id FROM rounds WHERE game_id = 2);",
    )
    .expect("tamper");
    drop(conn);
    let (csv, stderr, code) = run(&db, &[]);
    assert_eq!(code, Some(2), "{csv}");
    assert!(csv.is_empty());
    assert!(stderr.contains("game 2's hash chain is broken"), "{stderr}");
}
