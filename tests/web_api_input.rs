//! What the API does with input that does not say one plain thing: evidence given as
//! a list of its values, values a megabyte long echoed in errors, a query parameter
//! or the token given twice, an enum field given an object, a lone surrogate.

mod web_support;

use serde_json::{json, Value};
use web_support::{png_frame, request, Server};

const ROUND: &str = r#"{"god":"Pierre","players":["Alain","François","Jacques","Philippe"],"rule":"if last.odd then black else red","starter":"3H"}"#;

/// A service with a round started and one play (event 2) recorded.
fn a_round_with_a_play(dir: &tempfile::TempDir) -> Server {
    let server = Server::start(&dir.path().join("table.db"));
    server.post("/api/rounds", ROUND).expect(200);
    server.post("/api/plays", r#"{"cards":["2S"]}"#).expect(200);
    server
}

fn error_of(body: &Value) -> &str {
    body["error"].as_str().expect("an error message")
}

fn plays(server: &Server) -> usize {
    server.get("/api/state").expect(200)["plays"]
        .as_array()
        .expect("plays")
        .len()
}

#[test]
fn evidence_given_as_a_list_is_refused_and_nothing_is_stored() {
    let dir = tempfile::tempdir().expect("dir");
    let server = a_round_with_a_play(&dir);
    let before = plays(&server);
    let id = "02f3".repeat(16);
    for evidence in [
        json!([format!("{id}.jpg"), "cam/1", [{"read": "7H", "confidence": 0.9}]]),
        json!([]),
        json!([null]),
    ] {
        let body = json!({"cards": ["7H"], "evidence": evidence});
        let refused = server.post("/api/plays", &body.to_string()).expect(400);
        assert!(
            error_of(&refused).starts_with(r#"field "evidence": expected an object, got a list"#),
            "{evidence}: {refused}"
        );
    }
    // A read given as a list of its values is refused the same way.
    let body = json!({"cards": ["7H"], "evidence": {"reads": [["7H", 0.9]]}});
    let refused = server.post("/api/plays", &body.to_string()).expect(400);
    assert_eq!(
        error_of(&refused),
        r#"field "evidence.reads", item 1: expected an object, got a list of 2 items"#
    );
    // An empty list of reads for a card laid is a wrong count, as one read for two is.
    let body = json!({"cards": ["7H"], "evidence": {"reads": []}});
    let refused = server.post("/api/plays", &body.to_string()).expect(422);
    assert!(
        error_of(&refused).starts_with("evidence: 0 card reads for 1 card"),
        "{refused}"
    );
    assert_eq!(plays(&server), before, "nothing was stored");
    // The object form still works.
    let body = json!({"cards": ["7H"], "evidence": {"reads": [{"read": "7H", "confidence": 0.9}]}});
    server.post("/api/plays", &body.to_string()).expect(200);
}

#[test]
fn errors_quote_at_most_the_first_characters_of_a_value() {
    let dir = tempfile::tempdir().expect("dir");
    let server = a_round_with_a_play(&dir);
    let long = "A".repeat(200_000);
    let cut = format!("\"{}…\"", "A".repeat(60));
    let cases = [
        ("/api/corrections", json!({"seq": 2, "round": long}), 422),
        ("/api/corrections", json!({"seq": 2, "void": long}), 422),
        ("/api/corrections", json!({"seq": 2, "round": [long]}), 422),
        (
            "/api/rule/check",
            json!({"rule": "red", "analyse": long}),
            400,
        ),
        ("/api/camera", json!({"confirm_courts": long}), 400),
        ("/api/rounds", json!({"new_game": long}), 400),
        ("/api/plays", json!({"cards": ["7H"], "event": long}), 400),
        (
            "/api/plays",
            json!({"cards": ["7H"], "evidence": {"frame": long}}),
            400,
        ),
        ("/api/rule/check", json!({"rule": "red", &long: 1}), 400),
    ];
    for (path, body, status) in cases {
        let answer = server.post(path, &body.to_string());
        assert!(
            answer.body.len() < 1000,
            "{path}: {} bytes",
            answer.body.len()
        );
        let refused = answer.expect(status);
        // A list too long to write out whole is described instead.
        let said = if body.get("round").is_some_and(Value::is_array) {
            "got a list of 1 item".to_string()
        } else {
            cut.clone()
        };
        assert!(
            error_of(&refused).contains(&said),
            "{path}: {}",
            error_of(&refused)
        );
    }
    // A list too long to quote is described.
    let many = vec![1; 100_000];
    let refused = server
        .post("/api/rounds", &json!({"new_game": many}).to_string())
        .expect(400);
    assert_eq!(
        error_of(&refused),
        "\"new_game\" must be true or false, got a list of 100000 items"
    );
    // A huge number is said in a few characters.
    let body = r#"{"cards":["7H"],"evidence":{"reads":[{"read":"7H","confidence":1e308}]}}"#;
    let refused = server.post("/api/plays", body).expect(422);
    assert_eq!(
        error_of(&refused),
        "evidence: read 1 has confidence 1e308, expected a number from 0 to 1"
    );
    let frame = server.post_bytes("/api/frames", &png_frame()).expect(200);
    let id = frame["frame"].as_str().expect("frame id");
    let far = server.get(&format!(
        "/api/frames/{id}/card?corners=1e308,1,9,1,9,9,1,9"
    ));
    assert_eq!(
        error_of(&far.expect(400)),
        "corners: (1e308, 1) is far outside the 320 × 240 frame"
    );
    // As long as an address may be.
    let long = "A".repeat(5000);
    let garbled = server.get(&format!("/api/frames/{id}/card?corners={long}"));
    assert!(error_of(&garbled.expect(400)).contains(&cut));
    let format = server.get(&format!("/api/export/1/scores?format={long}"));
    assert!(error_of(&format.expect(400)).contains(&cut));
    let audit = server.get(&format!("/api/audit/{long}")).expect(400);
    assert!(error_of(&audit).contains(&cut), "{audit}");
    assert!(
        audit["where"].as_str().is_some_and(|w| w.len() < 100),
        "{audit}"
    );
}

#[test]
fn a_parameter_or_the_token_given_twice_is_refused_naming_it() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("table.db"));
    let god = format!("Bearer {}", server.token);

    let twice = server.post_bytes("/api/watch?restart=1&restart=2", b"");
    let refused = twice.expect(400);
    assert_eq!(
        error_of(&refused),
        r#"query parameter "restart" given twice: give each parameter once"#
    );
    assert_eq!(refused["where"], "POST /api/watch");

    // The token twice is nobody's, whichever comes first.
    for query in [
        format!("token={}&token=nope", server.token),
        format!("token=nope&token={}", server.token),
    ] {
        let refused = server.get(&format!("/api/camera?{query}")).expect(400);
        assert!(
            error_of(&refused).contains(r#""token" given twice"#),
            "{refused}"
        );
        let public = server.get(&format!("/api/state?{query}")).expect(400);
        assert!(error_of(&public).contains(r#""token""#), "{public}");
    }
    let pages = server.get(&format!("/god?token={}&token=nope", server.token));
    assert_eq!(pages.status, 401);
    for headers in [
        [
            ("Authorization", god.as_str()),
            ("Authorization", "Bearer nope"),
        ],
        [
            ("Authorization", "Bearer nope"),
            ("Authorization", god.as_str()),
        ],
    ] {
        let answer = request(server.addr, "GET", "/api/camera", &headers, b"");
        let refused = answer.expect(400);
        assert_eq!(
            error_of(&refused),
            r#"header "Authorization" given twice: give the token once"#
        );
    }
    // Once each is as before.
    server
        .get(&format!("/api/camera?token={}", server.token))
        .expect(200);
    server.get_god("/api/camera").expect(200);
}

#[test]
fn a_field_of_a_closed_list_and_a_broken_string_are_said_plainly() {
    let dir = tempfile::tempdir().expect("dir");
    let server = a_round_with_a_play(&dir);
    let refused = server
        .post("/api/plays", r#"{"cards":["7H"],"prophet_says":{}}"#)
        .expect(422);
    assert_eq!(
        error_of(&refused),
        r#"field "prophet_says": expected "right" or "wrong", got an object"#
    );
    let refused = server
        .post("/api/plays", r#"{"cards":["7H"],"player":"\ud800"}"#)
        .expect(400);
    assert!(
        error_of(&refused).contains("a lone UTF-16 surrogate"),
        "{refused}"
    );
}
