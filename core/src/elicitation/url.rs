//! The URL rules of URL-mode elicitation.

use crate::error::{Error, ErrorCode};

/// Longest URL accepted. Browsers and proxies start truncating or refusing
/// around here, and a user must be able to read the whole URL before
/// consenting.
pub(crate) const MAX_URL_BYTES: usize = 8192;

/// Checks a URL for URL-mode elicitation ([`ErrorCode::Url`] on failure).
///
/// Accepted: `http` or `https` (any case), `//` and a non-empty host (a
/// hostname, an IPv4 address, or a bracketed IPv6 address), an optional port
/// in 1..=65535, then a path, query and fragment made only of characters a
/// URI may contain (non-ASCII text is allowed; browsers percent-encode it).
/// Refused: other schemes (`javascript:`, `data:`, `file:`), userinfo
/// (`user:pass@`, which both leaks credentials and disguises the real host),
/// control characters, whitespace, backslashes (browsers read `\` as `/`,
/// which lets a URL look like it goes elsewhere), and more than 8192 bytes.
///
/// `http` is allowed because the spec only says HTTPS SHOULD be used outside
/// development; an application that wants HTTPS only checks the scheme itself.
pub fn validate_url(url: &str) -> crate::Result<()> {
    url_problem(url).map_or(Ok(()), |why| Err(Error::new(ErrorCode::Url, format!("url: {why}"))))
}

pub(crate) fn url_problem(url: &str) -> Option<&'static str> {
    if url.is_empty() {
        return Some("must not be empty");
    }
    if url.len() > MAX_URL_BYTES {
        return Some("longer than 8192 bytes");
    }
    if url.chars().any(char::is_control) {
        return Some("contains a control character");
    }
    if url.chars().any(char::is_whitespace) {
        return Some("contains whitespace");
    }
    if url.contains('\\') {
        return Some("contains a backslash");
    }
    let Some((scheme, rest)) = url.split_once(':') else {
        return Some("has no scheme");
    };
    if !(scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http")) {
        return Some("scheme must be http or https");
    }
    let Some(after) = rest.strip_prefix("//") else {
        return Some("must have an authority (scheme://host)");
    };
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, tail) = after.split_at(end);
    if authority.contains('@') {
        return Some("must not contain userinfo (user@ or user:password@)");
    }
    if let Some(why) = authority_problem(authority) {
        return Some(why);
    }
    tail_problem(tail)
}

pub(crate) fn authority_problem(authority: &str) -> Option<&'static str> {
    let (host_ok, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let Some((v6, after)) = bracketed.split_once(']') else {
            return Some("unclosed IPv6 host");
        };
        let port = match after {
            "" => None,
            _ => match after.strip_prefix(':') {
                Some(p) => Some(p),
                None => return Some("unexpected text after the IPv6 host"),
            },
        };
        (v6.parse::<std::net::Ipv6Addr>().is_ok(), port)
    } else {
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        };
        if host.is_empty() {
            return Some("has no host");
        }
        (is_host_name(host), port)
    };
    if !host_ok {
        return Some("host is not a valid host name or IP address");
    }
    match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
            let value =
                p.bytes().fold(0u64, |acc, b| acc.saturating_mul(10).saturating_add(u64::from(b - b'0')));
            (!(1..=65535).contains(&value)).then_some("port must be in 1..=65535")
        }
        Some(_) => Some("port must be digits in 1..=65535"),
    }
}

/// Dot-separated labels of letters (any script: IDN hosts are legitimate),
/// digits, `-` and `_`; an empty label is allowed only as a trailing dot.
pub(crate) fn is_host_name(host: &str) -> bool {
    let trimmed = host.strip_suffix('.').unwrap_or(host);
    !trimmed.is_empty()
        && trimmed.split('.').all(|label| {
            !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        })
}

/// Path, query and fragment: RFC 3986 characters, valid `%` escapes, at most
/// one `#`. Non-ASCII characters pass (the IRI form users actually see).
pub(crate) fn tail_problem(tail: &str) -> Option<&'static str> {
    if tail.matches('#').count() > 1 {
        return Some("more than one '#'");
    }
    let bytes = tail.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'%' {
            let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
            if !(hex(i + 1) && hex(i + 2)) {
                return Some("'%' not followed by two hex digits");
            }
        } else if b.is_ascii() && !(b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?#".contains(&b)) {
            return Some("contains a character not allowed in a URL");
        }
    }
    None
}
