//! The JSON API (`/api/...`) and the WebSocket (`/ws`). Every route is listed, with
//! its body and answers, in the README section "The service".
//!
//! God's routes (starting a round, plays, corrections, frames, the rule checker)
//! need the God token; the rest is public and never shows the rule or its
//! explanations before the reveal. A refused event is answered 422 with the
//! referee's reason, and nothing is stored.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use indicatif::ProgressBar;
use serde_json::{json, Map, Value};
use tokio::sync::watch;

use crate::cards::Card;
use crate::json_input;
use crate::rule::analyse::{self, CheckOptions};
use crate::rule::{Context, Rule};
use crate::store::audit::audit;
use crate::store::evidence::EvidenceInput;
use crate::store::history::export_log;
use crate::store::scoresheet::ScoreSheet;
use crate::store::season::{parse_day, DaySpan, SeasonSheet};
use crate::store::{format_utc, GameId, Target};

use super::desk::Desk;
use super::error::{parse_object, ApiError};
use super::views::Views;
use super::{assets, auth, frames, play_zone, AppState};

type Shared = State<Arc<AppState>>;

/// The longest rule `POST /api/rule/check` analyses (parsing has no such limit
/// below the body's): a secret rule is a few lines, and the analysis of one takes
/// about a second per 10 000 bytes.
pub const MAX_ANALYSED_RULE_BYTES: usize = 16 * 1024;

/// Events the table's own screen may post without the God token (a Delphos
/// prediction is made by a player, on the tablet).
pub const TABLE_EVENTS: [&str; 1] = ["predict"];

/// Every API route and the WebSocket.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/api/state", get(state))
        .route("/api/rounds", get(rounds).post(start_round))
        .route("/api/plays", post(play))
        .route("/api/no-plays", post(no_play))
        .route("/api/prophet", post(prophet))
        .route("/api/corrections", post(correction))
        .route("/api/end-game", post(end_game))
        .route("/api/events", post(event))
        .route("/api/table/events", post(table_event))
        .route("/api/rule/check", post(rule_check))
        .route("/api/camera", get(camera).post(set_camera))
        .route("/api/frames", post(upload_frame))
        .route("/api/watch", post(watch_frame))
        .route("/api/frames/:id", get(frame))
        .route("/api/frames/:id/card", get(frame_card))
        .route("/api/audit/:id", get(audit_report))
        .route("/api/export/:id/log", get(export))
        .route("/api/export/:id/scores", get(scores))
        .route("/api/export/season", get(season))
        .route("/api/variants", get(variants))
        .route("/ws", get(ws))
}

fn require_god(
    state: &AppState,
    headers: &HeaderMap,
    query: Option<&str>,
    at: &str,
) -> Result<(), ApiError> {
    if auth::is_god(headers, query, &state.god_token) {
        Ok(())
    } else {
        Err(ApiError::Unauthorized { at: at.into() })
    }
}

/// Runs blocking work (the model, image codecs, the rule checker) off the async
/// workers; `worker` names it in the error when it panics.
async fn off_workers<T: Send + 'static>(
    worker: &str,
    at: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::Store {
            what: format!("the {worker} stopped: {e}"),
            at: at.into(),
        })
}

fn current(state: &AppState) -> Arc<Views> {
    Arc::clone(&state.table.views().borrow())
}

/// `GET /api/state`: the public view, or God's with the token.
async fn state(State(state): Shared, headers: HeaderMap, RawQuery(query): RawQuery) -> Response {
    let views = current(&state);
    // The views' text keeps the state's players in seating order (a `Value` would
    // sort them by name).
    let body = if auth::is_god(&headers, query.as_deref(), &state.god_token) {
        views.god_body.clone()
    } else {
        views.public_body.clone()
    };
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Turns an API `evidence.frame` (a frame id) into the spool file name the
/// recorder reads, checking the id. The evidence's shape is checked here first, as
/// the recorder checks it, so that a wrong one is answered with the field it is in
/// (e.g. `field "evidence.reads", item 1, field "confidence"` for a read's
/// confidence), and so that evidence given as a list of its values (which serde
/// would read as the object) never reaches the recorder with a frame this check
/// did not see.
fn spool_evidence(object: &mut Map<String, Value>, at: &str) -> Result<Option<String>, ApiError> {
    let Some(value) = object.get_mut("evidence") else {
        return Ok(None);
    };
    EvidenceInput::parse(value).map_err(|e| ApiError::bad(e.to_string(), at))?;
    let Value::Object(evidence) = value else {
        return Err(ApiError::bad(
            format!(
                "field \"evidence\": expected an object, got {}",
                json_input::describe(value)
            ),
            at,
        ));
    };
    match evidence.get("frame") {
        None => Ok(None),
        Some(Value::String(id)) if frames::valid_id(id) => {
            let id = id.clone();
            evidence.insert("frame".into(), Value::String(format!("{id}.jpg")));
            Ok(Some(id))
        }
        Some(other) => Err(ApiError::bad(
            format!(
                "evidence.frame must be a frame id returned by POST /api/frames (64 hex digits), got {}",
                json_input::shown(other)
            ),
            at,
        )),
    }
}

/// Records `object` on the desk and answers with the acknowledgement and God's
/// view of the play just decided.
async fn record(
    state: &AppState,
    mut object: Map<String, Value>,
    at: &'static str,
) -> Result<Response, ApiError> {
    let new_game = match object.remove("new_game") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(other) => {
            return Err(ApiError::bad(
                format!(
                    "\"new_game\" must be true or false, got {}",
                    json_input::shown(&other)
                ),
                at,
            ))
        }
    };
    let frame = spool_evidence(&mut object, at)?;
    let is_correction = object.get("event").and_then(Value::as_str) == Some("correct");
    let answer = state
        .table
        .run(move |desk: &mut Desk<'_>| {
            if let Some(id) = &frame {
                restore_spooled(desk, id, at)?;
            }
            let ack = desk.record(object, at, new_game)?;
            // The views this event produced: read after the job, another
            // request's could have replaced them.
            let views = desk.latest();
            if let Some(id) = &frame {
                // Stored in the database with the play: the spool copy is done.
                if desk.store().frame(id).ok().flatten().is_some() {
                    let _ = std::fs::remove_file(desk.spool().join(format!("{id}.jpg")));
                }
            }
            Ok::<_, ApiError>((ack, views))
        })
        .await??;
    let (answer, views) = answer;
    let mut reply = json!({
        "ok": true,
        "ack": answer,
        "last": views.god.get("last"),
        "version": views.version,
    });
    // A correction's news is the event it corrected, not the newest play.
    if is_correction {
        reply["correction"] = views.god.get("correction").cloned().unwrap_or(Value::Null);
    }
    Ok(Json(reply).into_response())
}

/// A frame already stored (an earlier play used it) is put back in the spool so
/// the recorder can take it again.
fn restore_spooled(desk: &Desk<'_>, id: &str, at: &str) -> Result<(), ApiError> {
    let path = desk.spool().join(format!("{id}.jpg"));
    if path.exists() {
        return Ok(());
    }
    match desk.store().frame(id).map_err(|e| ApiError::store(e, at))? {
        Some(jpeg) => std::fs::write(&path, jpeg).map_err(|e| ApiError::Store {
            what: format!("cannot spool frame {id}: {e}"),
            at: at.into(),
        }),
        None => Err(ApiError::rejected(
            format!("evidence.frame {id}: no such frame (upload it with POST /api/frames first)"),
            at,
        )),
    }
}

/// Parses a God route's body and sets its `event`.
fn god_event(
    state: &AppState,
    headers: &HeaderMap,
    query: Option<&str>,
    body: &[u8],
    event: &str,
    at: &str,
) -> Result<Map<String, Value>, ApiError> {
    require_god(state, headers, query, at)?;
    let mut object = parse_object(body, at)?;
    if let Some(given) = object.get("event") {
        if given.as_str() != Some(event) {
            return Err(ApiError::bad(
                format!(
                    "this route records {event:?} events; got \"event\": {}",
                    json_input::shown(given)
                ),
                at,
            ));
        }
    }
    object.insert("event".into(), Value::String(event.into()));
    Ok(object)
}

macro_rules! event_route {
    ($name:ident, $event:literal, $at:literal) => {
        async fn $name(
            State(state): Shared,
            headers: HeaderMap,
            RawQuery(query): RawQuery,
            body: Bytes,
        ) -> Result<Response, ApiError> {
            let object = god_event(&state, &headers, query.as_deref(), &body, $event, $at)?;
            record(&state, object, $at).await
        }
    };
}

event_route!(start_round, "round", "POST /api/rounds");
event_route!(play, "play", "POST /api/plays");
event_route!(no_play, "no_play", "POST /api/no-plays");
event_route!(prophet, "prophet", "POST /api/prophet");
event_route!(correction, "correct", "POST /api/corrections");

/// `POST /api/end-game`: the game stops; the rule of an unfinished round is revealed.
async fn end_game(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let at = "POST /api/end-game";
    let body: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        &body
    };
    let object = god_event(&state, &headers, query.as_deref(), body, "end_game", at)?;
    record(&state, object, at).await
}

/// `POST /api/events`: any table-log line (God).
async fn event(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let at = "POST /api/events";
    require_god(&state, &headers, query.as_deref(), at)?;
    let object = parse_object(&body, at)?;
    if !object.get("event").is_some_and(Value::is_string) {
        return Err(ApiError::bad(
            "a table-log line needs \"event\" (e.g. \"play\")",
            at,
        ));
    }
    record(&state, object, at).await
}

/// `POST /api/table/events`: the events players make on the table's own screen.
async fn table_event(State(state): Shared, body: Bytes) -> Result<Response, ApiError> {
    let at = "POST /api/table/events";
    let object = parse_object(&body, at)?;
    match object.get("event").and_then(Value::as_str) {
        Some(name) if TABLE_EVENTS.contains(&name) => record(&state, object, at).await,
        other => Err(ApiError::Unauthorized {
            at: format!(
                "{at}: event {} needs God (the table may post only {})",
                other.map_or("(none)".to_string(), json_input::shown_text),
                TABLE_EVENTS.join(", ")
            ),
        }),
    }
}

/// `POST /api/rule/check`: parses a rule (errors with line and column) and runs
/// the rule checker on it.
async fn rule_check(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let at = "POST /api/rule/check";
    require_god(&state, &headers, query.as_deref(), at)?;
    let object = parse_object(&body, at)?;
    only_fields(&object, &["rule", "analyse", "starter"], at)?;
    let Some(text) = object
        .get("rule")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return Err(ApiError::bad(
            "give the rule as {\"rule\": \"…\"}",
            format!("{at}: field \"rule\""),
        ));
    };
    let analyse_it = bool_field(&object, "analyse", at)?.unwrap_or(true);
    let starter = match object.get("starter") {
        None | Some(Value::Null) => None,
        Some(value) => Some(
            json_input::from_field_value::<Card>(value, "starter")
                .map_err(|e| ApiError::bad(e.reason, format!("{at}: field \"starter\"")))?,
        ),
    };
    // The console checks as God types: an analysis, whose time grows with the
    // rule's length, must not pile up on each keystroke of a pasted page.
    if analyse_it && text.len() > MAX_ANALYSED_RULE_BYTES {
        return Err(ApiError::TooLarge {
            what: format!(
                "at {} bytes the rule is too long to analyse here (the limit is \
                 {MAX_ANALYSED_RULE_BYTES}; a secret rule is a few lines): give \
                 \"analyse\": false to parse it only, or run `eleusis rule check FILE`",
                text.len()
            ),
            at: format!("{at}: field \"rule\""),
        });
    }
    let answer = off_workers("rule checker", at, move || match Rule::parse(&text) {
        Err(e) => json!({
            "ok": false,
            "error": {"line": e.line, "column": e.column, "message": e.message, "text": e.to_string()},
        }),
        Ok(rule) => {
            let mut answer = json!({"ok": true});
            if analyse_it {
                let reads = rule.footprint();
                let report = analyse::check(
                    &rule,
                    reads,
                    &CheckOptions::default(),
                    &ProgressBar::hidden(),
                );
                answer["report"] = json!(report);
            }
            if let Some(card) = starter {
                answer["starter"] = starter_verdict(&rule, card);
            }
            answer
        }
    })
    .await?;
    Ok(Json(answer).into_response())
}

/// Whether `card` is accepted by `rule` as the starter, judged as the referee
/// judges it when a round starts (the first card of the main line, nothing before
/// it), with the rule's explanation: God learns before sealing a rule that the
/// starter turned up would be refused (or, in variants that need it, stop the
/// round from starting).
fn starter_verdict(rule: &Rule, card: Card) -> Value {
    let judgment = rule.judge(&Context::default(), card);
    json!({
        "card": card.to_string(),
        "fits": judgment.accepted,
        "explanation": judgment.explanation,
    })
}

/// Refuses a body holding a field other than `known` (a misspelt one would
/// otherwise be taken for its default), naming it.
fn only_fields(object: &Map<String, Value>, known: &[&str], at: &str) -> Result<(), ApiError> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(other) => {
            let name = json_input::shown_text(other);
            Err(ApiError::bad(
                format!("unknown field {name}: the fields are {known:?}"),
                format!("{at}: field {name}"),
            ))
        }
        None => Ok(()),
    }
}

/// A body's boolean `field`, `None` when absent; anything but `true` or `false`
/// is refused, naming the field.
fn bool_field(
    object: &Map<String, Value>,
    field: &str,
    at: &str,
) -> Result<Option<bool>, ApiError> {
    match object.get(field) {
        None => Ok(None),
        Some(Value::Bool(on)) => Ok(Some(*on)),
        Some(other) => Err(ApiError::bad(
            format!("give true or false, not {}", json_input::shown(other)),
            format!("{at}: field {field:?}"),
        )),
    }
}

/// `GET /api/camera` (God): the recognizer and the settings its reads are held
/// to. God's only: the model's path or load error is no business of the table.
async fn camera(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    require_god(&state, &headers, query.as_deref(), "GET /api/camera")?;
    Ok(Json(state.camera.settings()).into_response())
}

/// `POST /api/camera` (God): `{"confirm_courts": true|false}` switches whether
/// every court card asks God, for the frames read after; answers the settings as
/// `GET /api/camera` does. Any other field, or a field that is not a boolean, is
/// refused with what is wrong, and nothing changes.
async fn set_camera(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let at = "POST /api/camera";
    require_god(&state, &headers, query.as_deref(), at)?;
    let object = parse_object(&body, at)?;
    only_fields(&object, &["confirm_courts"], at)?;
    let Some(confirm) = bool_field(&object, "confirm_courts", at)? else {
        return Err(ApiError::bad(
            "give the setting as {\"confirm_courts\": true} or false",
            at,
        ));
    };
    state.camera.set_confirm_courts(confirm, at)?;
    Ok(Json(state.camera.settings()).into_response())
}

/// `POST /api/frames`: a JPEG or PNG frame as the body; answers the reads.
async fn upload_frame(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let at = "POST /api/frames";
    require_god(&state, &headers, query.as_deref(), at)?;
    let worker = Arc::clone(&state);
    let reply = off_workers("frame reader", at, move || {
        frames::process(&body, worker.table.spool(), &worker.camera)
    })
    .await??;
    Ok(Json(reply).into_response())
}

/// `POST /api/watch?zone=x0,y0,x1,y1[&restart=1]`: one webcam frame over the play
/// zone (God). Answers what the zone holds, and once per play the play's reads
/// with its frame kept as evidence ([`play_zone::WatchReply`]).
async fn watch_frame(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let at = "POST /api/watch";
    require_god(&state, &headers, query.as_deref(), at)?;
    let zone = play_zone::parse_zone(auth::query_param(query.as_deref(), "zone").as_deref(), at)?;
    let restart = play_zone::parse_restart(
        auth::query_param(query.as_deref(), "restart").as_deref(),
        at,
    )?;
    let worker = Arc::clone(&state);
    let reply = off_workers("frame reader", at, move || {
        play_zone::watch_frame(
            body,
            zone,
            restart,
            worker.table.spool(),
            &worker.camera,
            &worker.watch,
        )
    })
    .await??;
    Ok(Json(reply).into_response())
}

/// `GET /api/frames/ID`: a frame as JPEG (stored evidence, or still in the spool).
async fn frame(State(state): Shared, Path(id): Path<String>) -> Result<Response, ApiError> {
    let at = format!("GET /api/frames/{}", json_input::shortened(&id));
    let bytes = frame_jpeg(&state, &id, &at).await?;
    Ok(([(header::CONTENT_TYPE, "image/jpeg")], bytes).into_response())
}

/// `GET /api/frames/ID/card?corners=x,y,x,y,x,y,x,y`: the upright 160 × 224 card cut
/// from a frame along a read's corners, as PNG (the God console shows it beside
/// each read).
async fn frame_card(
    State(state): Shared,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let at = format!("GET /api/frames/{}/card", json_input::shortened(&id));
    let jpeg = frame_jpeg(&state, &id, &at).await?;
    let worker_at = at.clone();
    let png = off_workers("card cutter", &at, move || {
        frames::card_png(
            &jpeg,
            auth::query_param(query.as_deref(), "corners").as_deref(),
            &worker_at,
        )
    })
    .await??;
    Ok(([(header::CONTENT_TYPE, "image/png")], png).into_response())
}

/// A frame's JPEG bytes: stored evidence, or still in the spool.
async fn frame_jpeg(state: &Arc<AppState>, id: &str, at: &str) -> Result<Vec<u8>, ApiError> {
    let (id, at) = (id.to_string(), at.to_string());
    if !frames::valid_id(&id) {
        return Err(ApiError::bad(
            "a frame id is 64 lowercase hex digits (the SHA-256 of the JPEG)",
            at,
        ));
    }
    let lookup = id.clone();
    let stored = state
        .table
        .run(move |desk: &mut Desk<'_>| desk.store().frame(&lookup))
        .await?
        .map_err(|e| ApiError::store(e, at.clone()))?;
    stored
        .or_else(|| frames::spooled(state.table.spool(), &id))
        .ok_or_else(|| ApiError::not_found(format!("no frame {id}"), at))
}

/// `GET /api/rounds`: every round of every game, newest first.
async fn rounds(State(state): Shared) -> Result<Response, ApiError> {
    let at = "GET /api/rounds";
    let list = state
        .table
        .run(move |desk: &mut Desk<'_>| {
            let store = desk.store();
            let mut out = Vec::new();
            for game in store.games().map_err(|e| ApiError::store(e, at))? {
                for info in store.rounds(game).map_err(|e| ApiError::store(e, at))? {
                    out.push(json!({
                        "round": info.round.to_string(),
                        "game": game.to_string(),
                        "variant": info.variant,
                        "god": info.god,
                        "players": info.players,
                        "commitment": info.commitment,
                        "started": info.started,
                        "revealed": info.revealed_ms.map(format_utc),
                    }));
                }
            }
            out.reverse();
            Ok::<_, ApiError>(out)
        })
        .await??;
    Ok(Json(json!({ "rounds": list })).into_response())
}

fn target(id: &str, at: &str) -> Result<Target, ApiError> {
    id.parse::<Target>()
        .map_err(|e| ApiError::bad(json_input::cut_echo(&e.to_string(), id), at))
}

/// `GET /api/audit/ID`: the audit of a round (`GAME.ROUND`) or game (`GAME`).
async fn audit_report(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let at = format!("GET /api/audit/{}", json_input::shortened(&id));
    let target = target(&id, &at)?;
    let for_god = auth::is_god(&headers, query.as_deref(), &state.god_token);
    let report = state
        .table
        .run(move |desk: &mut Desk<'_>| {
            audit(desk.store(), desk.factory(), target, for_god).map_err(|e| ApiError::store(e, at))
        })
        .await??;
    let mut value = serde_json::to_value(&report).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert("clean".into(), json!(report.clean()));
        map.insert("god_view".into(), json!(for_god));
    }
    Ok(Json(value).into_response())
}

/// `GET /api/export/ID/log`: the table log (JSONL) that `eleusis replay` re-referees.
async fn export(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let at = format!("GET /api/export/{}/log", json_input::shortened(&id));
    let target = target(&id, &at)?;
    let for_god = auth::is_god(&headers, query.as_deref(), &state.god_token);
    let lines = state
        .table
        .run(move |desk: &mut Desk<'_>| {
            export_log(desk.store(), target, for_god).map_err(|e| ApiError::history(e, at))
        })
        .await??;
    let mut text = lines.join("\n");
    text.push('\n');
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/x-ndjson; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"eleusis-{id}.jsonl\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// `GET /api/export/GAME/scores?format=csv|html`: the game's score sheet.
async fn scores(
    State(state): Shared,
    RawQuery(query): RawQuery,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let at = format!("GET /api/export/{}/scores", json_input::shortened(&id));
    let game: GameId = id.parse().map_err(|e: crate::store::ids::IdError| {
        ApiError::bad(
            format!(
                "{} (a score sheet is for a whole game)",
                json_input::cut_echo(&e.to_string(), &id)
            ),
            at.clone(),
        )
    })?;
    let csv = sheet_is_csv(query.as_deref(), &at)?;
    let sheet = state
        .table
        .run(move |desk: &mut Desk<'_>| {
            ScoreSheet::build(desk.store(), desk.factory(), game)
                .map_err(|e| ApiError::history(e, at))
        })
        .await??;
    Ok(sheet_response(csv, || sheet.to_csv(), || sheet.to_html()))
}

/// A sheet's `format` query parameter: `csv`, or `html` (also when absent); any
/// other is 400. True for CSV.
fn sheet_is_csv(query: Option<&str>, at: &str) -> Result<bool, ApiError> {
    match auth::query_param(query, "format").as_deref() {
        None | Some("html") => Ok(false),
        Some("csv") => Ok(true),
        Some(other) => Err(ApiError::bad(
            format!(
                "format must be csv or html, got {}",
                json_input::shown_text(other)
            ),
            at,
        )),
    }
}

/// A sheet as CSV or as an HTML page, with its content type.
fn sheet_response(
    csv: bool,
    to_csv: impl FnOnce() -> String,
    to_html: impl FnOnce() -> String,
) -> Response {
    if csv {
        (
            [(header::CONTENT_TYPE, "text/csv; charset=utf-8")],
            to_csv(),
        )
            .into_response()
    } else {
        (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            to_html(),
        )
            .into_response()
    }
}

/// `GET /api/export/season?format=csv|html&since=DAY&until=DAY`: the season sheet
/// of every game in the database (`eleusis season`).
async fn season(State(state): Shared, RawQuery(query): RawQuery) -> Result<Response, ApiError> {
    let at = "GET /api/export/season".to_string();
    let query = query.as_deref();
    let csv = sheet_is_csv(query, &at)?;
    let day = |name: &str| -> Result<Option<String>, ApiError> {
        auth::query_param(query, name)
            .map(|text| {
                parse_day(&text).map_err(|e| {
                    ApiError::bad(json_input::cut_echo(&e, &text), format!("{at}: {name}"))
                })
            })
            .transpose()
    };
    let span = DaySpan::new(day("since")?, day("until")?)
        .map_err(|reason| ApiError::bad(reason, at.clone()))?;
    let title = span.words();
    let sheet = state
        .table
        .run(move |desk: &mut Desk<'_>| {
            SeasonSheet::build(desk.store(), desk.factory(), &span)
                .map_err(|e| ApiError::history(e, at))
        })
        .await??;
    Ok(sheet_response(
        csv,
        || sheet.to_csv(),
        || sheet.to_html(&title),
    ))
}

/// `GET /api/variants`: the variant renderer scripts the pages load.
async fn variants() -> Response {
    let scripts: Vec<String> = assets::variant_scripts()
        .into_iter()
        .map(|n| format!("/static/{n}"))
        .collect();
    Json(json!({ "scripts": scripts })).into_response()
}

/// `GET /ws`: pushes `{"type":"view","view":…}` now and after every change (God's
/// view with `?token=`), and `{"type":"beat"}` after 5 s of silence, so that a page
/// can tell a quiet table from a service that cannot be reached.
async fn ws(
    State(state): Shared,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    upgrade: WebSocketUpgrade,
) -> Response {
    let god = auth::is_god(&headers, query.as_deref(), &state.god_token);
    let views = state.table.views();
    upgrade.on_upgrade(move |socket| push(socket, views, god))
}

async fn push(mut socket: WebSocket, mut views: watch::Receiver<Arc<Views>>, god: bool) {
    let text = |views: &mut watch::Receiver<Arc<Views>>| {
        let v = views.borrow_and_update();
        if god {
            v.god_text.clone()
        } else {
            v.public_text.clone()
        }
    };
    if socket.send(Message::Text(text(&mut views))).await.is_err() {
        return;
    }
    // A heartbeat, `{"type":"beat"}`, every 5 s in which nothing else was sent:
    // the pages take 15 s of silence for a service that cannot be reached (frozen,
    // or a laptop asleep), which a socket left open would never tell them.
    const BEAT: std::time::Duration = std::time::Duration::from_secs(5);
    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + BEAT, BEAT);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            changed = views.changed() => {
                if changed.is_err() {
                    break;
                }
                if socket.send(Message::Text(text(&mut views))).await.is_err() {
                    break;
                }
                beat.reset();
            }
            _ = beat.tick() => {
                let beat_text = r#"{"type":"beat"}"#.to_string();
                if socket.send(Message::Text(beat_text)).await.is_err() {
                    break;
                }
            }
            message = socket.recv() => match message {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                Some(Ok(_)) => {}
            },
        }
    }
}
