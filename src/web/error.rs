//! The one error type of the web layer. Every refusal becomes a 4xx (or a 5xx when
//! the store itself failed) with a JSON body `{"error": WHAT, "where": WHERE,
//! "status": CODE}`, so a tablet or a tool always learns what was wrong and where.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use thiserror::Error;

use crate::json_input::{self, JsonInputError};
use crate::store::history::HistoryError;
use crate::store::StoreError;

/// Why a request was not served.
#[derive(Debug, Error)]
pub enum ApiError {
    /// The request itself is malformed (not JSON, wrong shape, bad id).
    #[error("{what}")]
    BadRequest { what: String, at: String },
    /// The referee (or the recorder's checks) refused the event; nothing was stored.
    #[error("{what}")]
    Rejected { what: String, at: String },
    /// A God-only route without the God token.
    #[error("this needs the God token (Authorization: Bearer TOKEN, or ?token=TOKEN), and the request carried none or another: the URL of the God console is printed by `eleusis serve` (or `eleusis demo`) when it starts, with a new token at every start unless serve was started with --god-token")]
    Unauthorized { at: String },
    /// Something public that is not there, or not yet public (a sealed rule).
    #[error("{what}")]
    NotFound { what: String, at: String },
    #[error("{what}")]
    Forbidden { what: String, at: String },
    #[error("{what}")]
    TooLarge { what: String, at: String },
    /// The store failed (disk full, locked, corrupt); the state is as it was.
    #[error("{what}")]
    Store { what: String, at: String },
    /// Recording is stopped: the database no longer holds what the service
    /// acknowledged (altered outside it). Reads go on; writes wait until it is
    /// restored.
    #[error("{what}")]
    Halted { what: String, at: String },
    /// The game's stored events or rule were altered after they were recorded
    /// (a broken hash chain, a rule that no longer matches its commitment): its
    /// exports are refused, which is no failure of the service.
    #[error("{what}")]
    Altered { what: String, at: String },
    /// The table's worker is gone (the service is shutting down).
    #[error("the service is shutting down")]
    Unavailable { at: String },
}

#[derive(Serialize)]
struct Body<'a> {
    error: String,
    #[serde(rename = "where")]
    at: &'a str,
    status: u16,
}

impl ApiError {
    pub fn bad(what: impl Into<String>, at: impl Into<String>) -> ApiError {
        ApiError::BadRequest {
            what: what.into(),
            at: at.into(),
        }
    }

    pub fn rejected(what: impl Into<String>, at: impl Into<String>) -> ApiError {
        ApiError::Rejected {
            what: what.into(),
            at: at.into(),
        }
    }

    pub fn not_found(what: impl Into<String>, at: impl Into<String>) -> ApiError {
        ApiError::NotFound {
            what: what.into(),
            at: at.into(),
        }
    }

    /// A store error, classified: unknown ids are 404, a sealed rule is 403. Every
    /// other store failure is a 500 carrying the store's own message, which names
    /// the file and what to do: a database moved, deleted, replaced or
    /// write-protected under the running service ([`StoreError::Detached`]) is one
    /// of them, since no retry helps until the operator restarts it on the right
    /// file.
    pub fn store(error: StoreError, at: impl Into<String>) -> ApiError {
        let at = at.into();
        let what = error.to_string();
        match error {
            StoreError::UnknownGame(_) | StoreError::UnknownRound(_) => {
                ApiError::NotFound { what, at }
            }
            StoreError::Sealed(_) => ApiError::Forbidden { what, at },
            _ => ApiError::Store { what, at },
        }
    }

    pub fn history(error: HistoryError, at: impl Into<String>) -> ApiError {
        match error {
            HistoryError::Store(e) => ApiError::store(e, at),
            other if other.is_tampering() => ApiError::Altered {
                what: other.to_string(),
                at: at.into(),
            },
            other => ApiError::Store {
                what: other.to_string(),
                at: at.into(),
            },
        }
    }

    /// The HTTP status this error is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Rejected { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Store { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Halted { .. } | ApiError::Altered { .. } => StatusCode::CONFLICT,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn at(&self) -> &str {
        match self {
            ApiError::BadRequest { at, .. }
            | ApiError::Rejected { at, .. }
            | ApiError::Unauthorized { at }
            | ApiError::NotFound { at, .. }
            | ApiError::Forbidden { at, .. }
            | ApiError::TooLarge { at, .. }
            | ApiError::Store { at, .. }
            | ApiError::Halted { at, .. }
            | ApiError::Altered { at, .. }
            | ApiError::Unavailable { at } => at,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!(error = %self, at = self.at(), "request failed");
        }
        let body = Body {
            error: self.to_string(),
            at: self.at(),
            status: status.as_u16(),
        };
        (status, Json(body)).into_response()
    }
}

/// Gives the API's own refusals (unknown route, wrong method, body over the limit)
/// the same JSON error shape as every other error; pages keep their HTML.
pub async fn json_errors(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let at = format!(
        "{} {}",
        request.method(),
        json_input::shortened(request.uri().path())
    );
    let api = request.uri().path().starts_with("/api/");
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !api || is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let body = axum::body::to_bytes(response.into_body(), 64 * 1024)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&body).trim().to_string();
    let what = if status == StatusCode::PAYLOAD_TOO_LARGE {
        // axum says only "length limit exceeded": say which limit, and what to do.
        format!(
            "the request is larger than the {} MiB limit; send a camera frame as a JPEG, \
             which is far smaller",
            super::MAX_BODY >> 20
        )
    } else if text.is_empty() {
        match status {
            StatusCode::NOT_FOUND => {
                "no such API route (see the README, section \"The service\")".to_string()
            }
            other => other.canonical_reason().unwrap_or("refused").to_string(),
        }
    } else {
        text
    };
    let body = Body {
        error: what,
        at: &at,
        status: status.as_u16(),
    };
    (status, Json(body)).into_response()
}

/// Parses a JSON request body, naming the line and column of a syntax error. A key
/// given twice is refused (400) rather than resolved by keeping the last: the
/// referee would otherwise record a play nobody can see in the request as sent.
pub fn parse_json(bytes: &[u8], at: &str) -> Result<serde_json::Value, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad(
            "the request body is empty: send a JSON object",
            at,
        ));
    }
    json_input::parse_slice(bytes).map_err(|e| match e {
        JsonInputError::Syntax {
            message,
            line,
            column,
        } => ApiError::bad(
            format!("the request body is not valid JSON: {message}"),
            format!("{at}: body line {line}, column {column}"),
        ),
        duplicate @ JsonInputError::Duplicate { .. } => ApiError::bad(duplicate.to_string(), at),
    })
}

/// Parses a JSON request body that must be an object.
pub fn parse_object(
    bytes: &[u8],
    at: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, ApiError> {
    match parse_json(bytes, at)? {
        serde_json::Value::Object(map) => Ok(map),
        other => Err(ApiError::bad(
            format!(
                "the request body must be a JSON object, got {}",
                kind_of(&other)
            ),
            at,
        )),
    }
}

fn kind_of(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_say_where() {
        let err = parse_json(b"{\"cards\": [\"8H\",]}", "POST /api/plays").unwrap_err();
        assert_eq!(err.status(), StatusCode::BAD_REQUEST);
        assert!(err.at().contains("column"), "{}", err.at());
        let err = parse_object(b"[1]", "x").unwrap_err();
        assert!(err.to_string().contains("an array"), "{err}");
        let err = parse_object(b"  ", "x").unwrap_err();
        assert!(err.to_string().contains("empty"), "{err}");
    }

    #[test]
    fn a_key_given_twice_is_refused() {
        let err =
            parse_object(br#"{"cards":["2S"],"cards":["9H"]}"#, "POST /api/plays").unwrap_err();
        assert_eq!(err.status(), StatusCode::BAD_REQUEST);
        assert_eq!(err.to_string(), r#"duplicate field "cards""#);
        assert_eq!(err.at(), "POST /api/plays");
        let err = parse_object(
            br#"{"cards":["2S"],"evidence":{"frame":"a","frame":"b"}}"#,
            "x",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"field "evidence": duplicate field "frame""#
        );
        let ok = parse_object(br#"{"cards":["2S"],"evidence":{"frame":"a"}}"#, "x");
        assert_eq!(ok.expect("no duplicate").len(), 2);
    }

    #[test]
    fn store_errors_are_classified() {
        let round = "3.1".parse().expect("round");
        assert_eq!(
            ApiError::store(StoreError::UnknownRound(round), "x").status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            ApiError::store(StoreError::Sealed(round), "x").status(),
            StatusCode::FORBIDDEN
        );
        let gone = ApiError::store(
            StoreError::Detached {
                path: "t.db".into(),
                what: crate::store::Detachment::Gone,
            },
            "POST /api/plays",
        );
        assert_eq!(gone.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(
            gone.to_string()
                .starts_with("database t.db was moved or deleted while open; nothing was written"),
            "{gone}"
        );
    }
}
