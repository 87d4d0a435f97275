//! The God token: a random secret printed when the service starts. God's console
//! and God's routes need it (`Authorization: Bearer TOKEN`, or `?token=TOKEN` for a
//! link or a WebSocket); everyone else gets the public views, which never carry the
//! rule or its explanations before the reveal.

use axum::http::HeaderMap;
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

/// The value of `name` in a query string (`a=1&name=value`), as given (not
/// percent-decoded).
pub fn query_param<'a>(query: Option<&'a str>, name: &str) -> Option<&'a str> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
}

/// The token a request carries, from the header or the query string.
pub fn presented<'a>(headers: &'a HeaderMap, query: Option<&'a str>) -> Option<&'a str> {
    let header = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    header.or_else(|| query_param(query, "token"))
}

/// Whether the request is God's.
pub fn is_god(headers: &HeaderMap, query: Option<&str>, token: &str) -> bool {
    presented(headers, query).is_some_and(|t| same(t, token))
}

#[cfg(test)]
mod tests {
    use super::*;

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
