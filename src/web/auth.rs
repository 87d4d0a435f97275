//! The God token: a random secret printed when the service starts. God's console
//! and God's routes need it (`Authorization: Bearer TOKEN`, or `?token=TOKEN` for a
//! link or a WebSocket); everyone else gets the public views, which never carry the
//! rule or its explanations before the reveal.

use std::borrow::Cow;

use axum::http::HeaderMap;
use percent_encoding::{percent_decode_str, utf8_percent_encode, NON_ALPHANUMERIC};
use rand::RngCore;

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

/// Whether the request is God's: it carries the token as it is, or
/// percent-encoded. A browser cannot put a token such as `café ♠` in a header
/// (headers are ISO-8859-1), so the console sends such a token encoded; a token
/// that looks encoded (`%41`) is still taken as written first.
pub fn is_god(headers: &HeaderMap, query: Option<&str>, token: &str) -> bool {
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
