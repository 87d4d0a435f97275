//! The God token: a random secret printed when the service starts. God's console
//! and God's routes need it (`Authorization: Bearer TOKEN`, or `?token=TOKEN` for a
//! link or a WebSocket); everyone else gets the public views, which never carry the
//! rule or its explanations before the reveal.

use std::borrow::Cow;

use axum::extract::Request;
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use percent_encoding::{percent_decode_str, utf8_percent_encode, NON_ALPHANUMERIC};
use rand::RngCore;

use super::error::ApiError;
use crate::json_input;

/// A fresh token: 128 bits from the operating system, in hex.
pub fn fresh_token() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Compares without stopping at the first difference, so timing does not tell
/// how much of a guess was right.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The value of `name` in a query string (`a=1&name=value`), percent-decoded
/// (`%20` is a space, `%2B` a plus; a `+` stays a plus): browsers encode a token
/// or a zone that way. A value whose escapes do not decode to UTF-8 is given as
/// written.
pub fn query_param<'a>(query: Option<&'a str>, name: &str) -> Option<Cow<'a, str>> {
    let raw = query?
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))?;
    Some(
        percent_decode_str(raw)
            .decode_utf8()
            .unwrap_or(Cow::Borrowed(raw)),
    )
}

/// A token as it goes in a link's query string (`?token=…`): every character but
/// letters and digits percent-encoded, so that a token chosen with spaces, `+` or
/// `&` in it still works when the link is followed.
pub fn in_query(token: &str) -> String {
    utf8_percent_encode(token, NON_ALPHANUMERIC).to_string()
}

/// The token a request carries, from the header or the query string.
pub fn presented<'a>(headers: &'a HeaderMap, query: Option<&'a str>) -> Option<Cow<'a, str>> {
    let header = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            // The scheme's name is case-insensitive (RFC 9110 11.1): `bearer` too.
            let (scheme, token) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(token)
        })
        .map(|t| Cow::Borrowed(t.trim()));
    header.or_else(|| query_param(query, "token"))
}

/// The first query parameter given more than once, by its decoded name
/// (`restart` in `restart=1&restart=2`).
pub fn repeated_param(query: Option<&str>) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    param_names(query).find(|name| !seen.insert(name.clone()))
}

/// The decoded names of a query string's parameters, in order.
fn param_names(query: Option<&str>) -> impl Iterator<Item = String> + '_ {
    query
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name);
            percent_decode_str(name).decode_utf8_lossy().into_owned()
        })
}

/// Whether the request carries the `Authorization` header more than once.
pub fn repeated_authorization(headers: &HeaderMap) -> bool {
    headers
        .get_all(axum::http::header::AUTHORIZATION)
        .iter()
        .nth(1)
        .is_some()
}

/// Refuses (400, naming it) an API request or WebSocket that gives a query
/// parameter or the `Authorization` header twice. Reading either would otherwise
/// take the first and drop the other unseen: `?restart=1&restart=2` would restart
/// though the request also says something else, and of two tokens one may be
/// God's while a proxy or a log judged the request by the other. Pages are left
/// to [`is_god`], which refuses God's view to such a request.
pub async fn refuse_repeats(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if path.starts_with("/api/") || path == "/ws" {
        let at = format!("{} {}", request.method(), json_input::shortened(path));
        if let Some(name) = repeated_param(request.uri().query()) {
            return ApiError::bad(
                format!(
                    "query parameter {} given twice: give each parameter once",
                    json_input::shown_text(&name)
                ),
                at,
            )
            .into_response();
        }
        if repeated_authorization(request.headers()) {
            return ApiError::bad(
                "header \"Authorization\" given twice: give the token once",
                at,
            )
            .into_response();
        }
    }
    next.run(request).await
}

/// Whether the request is God's: it carries the token as it is, or
/// percent-encoded. A browser cannot put a token such as `café ♠` in a header
/// (headers are ISO-8859-1), so the console sends such a token encoded; a token
/// that looks encoded (`%41`) is still taken as written first. A request that
/// gives the token twice (two `Authorization` headers, or `token` twice in the
/// query) is not God's, whichever of them is right.
pub fn is_god(headers: &HeaderMap, query: Option<&str>, token: &str) -> bool {
    if repeated_authorization(headers) || param_names(query).filter(|n| n == "token").count() > 1 {
        return false;
    }
    presented(headers, query).is_some_and(|t| {
        same(&t, token)
            || percent_decode_str(&t)
                .decode_utf8()
                .is_ok_and(|decoded| same(&decoded, token))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_a_header_cannot_carry_is_taken_percent_encoded() {
        let bearer = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(
                axum::http::header::AUTHORIZATION,
                format!("Bearer {value}").parse().expect("header"),
            );
            headers
        };
        assert!(is_god(&bearer("caf%C3%A9%20%E2%99%A0"), None, "café ♠"));
        let mut lower = HeaderMap::new();
        lower.insert(
            axum::http::header::AUTHORIZATION,
            "bearer tok".parse().expect("header"),
        );
        assert!(is_god(&lower, None, "tok"));
        let mut basic = HeaderMap::new();
        basic.insert(
            axum::http::header::AUTHORIZATION,
            "Basic tok".parse().expect("header"),
        );
        assert!(!is_god(&basic, None, "tok"));
        assert!(is_god(
            &bearer("table%207%2BPierre"),
            None,
            "table 7+Pierre"
        ));
        assert!(is_god(&bearer("table 7+Pierre"), None, "table 7+Pierre"));
        // A token that looks encoded is still itself.
        assert!(is_god(&bearer("%41b"), None, "%41b"));
        assert!(!is_god(&bearer("caf%C3%A9"), None, "café ♠"));
        assert!(!is_god(&bearer("%E2%99"), None, "café ♠"));
    }

    #[test]
    fn a_token_with_spaces_and_plus_signs_works_in_a_link() {
        let token = "table 7+Pierre&co";
        let link = format!("token={}", in_query(token));
        assert_eq!(link, "token=table%207%2BPierre%26co");
        assert!(is_god(&HeaderMap::new(), Some(&link), token));
        // As a browser's encodeURIComponent writes it.
        assert!(is_god(
            &HeaderMap::new(),
            Some("token=table%207%2BPierre%26co&x=1"),
            token
        ));
        assert!(!is_god(&HeaderMap::new(), Some("token=table 7"), token));
        // Escapes that are not UTF-8 are taken as written, and match nothing else.
        assert_eq!(
            query_param(Some("zone=%FF%FE"), "zone").as_deref(),
            Some("%FF%FE")
        );
    }

    #[test]
    fn a_token_given_twice_is_nobodys() {
        let token = "tok";
        assert!(!is_god(
            &HeaderMap::new(),
            Some("token=tok&token=nope"),
            token
        ));
        assert!(!is_god(
            &HeaderMap::new(),
            Some("token=nope&token=tok"),
            token
        ));
        assert!(!is_god(
            &HeaderMap::new(),
            Some("token=tok&%74oken=tok"),
            token
        ));
        assert!(is_god(&HeaderMap::new(), Some("x=1&token=tok&y=2"), token));
        let mut two = HeaderMap::new();
        two.append(
            axum::http::header::AUTHORIZATION,
            "Bearer tok".parse().expect("header"),
        );
        assert!(is_god(&two, None, token));
        two.append(
            axum::http::header::AUTHORIZATION,
            "Bearer nope".parse().expect("header"),
        );
        assert!(repeated_authorization(&two));
        assert!(!is_god(&two, None, token));
    }

    #[test]
    fn a_parameter_given_twice_is_found_by_its_decoded_name() {
        assert_eq!(
            repeated_param(Some("restart=1&restart=2")).as_deref(),
            Some("restart")
        );
        assert_eq!(
            repeated_param(Some("zone=1&re%73tart=1&restart")).as_deref(),
            Some("restart")
        );
        assert_eq!(repeated_param(Some("zone=1,2,3,4&restart=1")), None);
        assert_eq!(repeated_param(Some("a=1&&b=2&")), None);
        assert_eq!(repeated_param(None), None);
    }

    #[test]
    fn tokens_are_read_from_header_or_query() {
        let token = fresh_token();
        assert_eq!(token.len(), 32);
        let mut headers = HeaderMap::new();
        assert!(!is_god(&headers, None, &token));
        assert!(is_god(
            &headers,
            Some(&format!("a=1&token={token}")),
            &token
        ));
        assert!(!is_god(&headers, Some("token=wrong"), &token));
        headers.insert(
            axum::http::header::AUTHORIZATION,
            format!("Bearer {token}").parse().expect("header"),
        );
        assert!(is_god(&headers, None, &token));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
    }
}
