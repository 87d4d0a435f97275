//! The pages and their scripts, embedded from `static/` at build time (see
//! `build.rs`), so the binary is self-contained. Files named `variant-*.js` are
//! the variant renderers; the tablet loads every one listed by `/api/variants`.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::{auth, AppState};

include!(concat!(env!("OUT_DIR"), "/static_assets.rs"));

/// An embedded file by name.
pub fn asset(name: &str) -> Option<&'static [u8]> {
    ASSETS.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}

/// The variant renderer scripts present in this build.
pub fn variant_scripts() -> Vec<&'static str> {
    ASSETS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| n.starts_with("variant-") && n.ends_with(".js"))
        .collect()
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

fn page(name: &str) -> Response {
    match asset(name) {
        Some(bytes) => (
            [
                (header::CONTENT_TYPE, content_type(name)),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            bytes,
        )
            .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            format!("{name} is not in this build"),
        )
            .into_response(),
    }
}

async fn static_file(Path(name): Path<String>) -> Response {
    page(&name)
}

async fn tablet() -> Response {
    page("tablet.html")
}

async fn audit() -> Response {
    page("audit.html")
}

async fn audit_round(Path(_round): Path<String>) -> Response {
    page("audit.html")
}

/// The God console; without the token, a 401 page that says where the link is.
async fn god(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    if auth::is_god(&headers, query.as_deref(), &state.god_token) {
        return page("god.html");
    }
    // A link with a token that is not this service's (an old link after a restart
    // that made a new token) is told so, not asked for a token it carries.
    let why = if auth::presented(&headers, query.as_deref()).is_some() {
        "The God token in this address is not this service's: <code>eleusis serve</code> \
         makes a new one at every start unless it is started with <code>--god-token</code>, \
         and <code>eleusis demo</code> at every run. Open the God console link it printed \
         when it last started"
    } else {
        "This page needs the God token. Open the God console link printed by \
         <code>eleusis serve</code> (or <code>eleusis demo</code>) when it started"
    };
    (
        StatusCode::UNAUTHORIZED,
        Html(format!(
            "<!doctype html><meta charset=utf-8><title>God console: token needed</title>\
             <body style=\"font:1.3rem system-ui;margin:3rem\"><h1>God console</h1>\
             <p>{why} (it ends in <code>?token=…</code>).</p>\
             <p><a href=\"/\">Table view</a> · <a href=\"/audit\">Audit</a></p>"
        )),
    )
        .into_response()
}

/// Routes of the pages and of `/static/NAME`.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(tablet))
        .route("/god", get(god))
        .route("/audit", get(audit))
        .route("/audit/:round", get(audit_round))
        .route("/static/:name", get(static_file))
        .fallback(no_such_page)
}

/// Any other address: 404 with the pages there are, rather than an empty page (API
/// addresses get their JSON error from `error::json_errors`).
async fn no_such_page(uri: axum::http::Uri) -> Response {
    let path = uri.path();
    if path.starts_with("/api/") {
        return StatusCode::NOT_FOUND.into_response();
    }
    (
        StatusCode::NOT_FOUND,
        Html(format!(
            "<!doctype html><meta charset=utf-8><title>No such page</title>\
             <p>There is no page at <code>{}</code>. The pages are \
             <a href=\"/\">the table</a> (<code>/</code>), the God console \
             (<code>/god</code>, with the God token) and <a href=\"/audit\">the audit</a> \
             (<code>/audit</code>).",
            html_escape(path)
        )),
    )
        .into_response()
}

/// `text` safe inside HTML.
fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
