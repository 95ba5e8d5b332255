//! The Streamable HTTP edge check against web pages: `Origin` and `Host`
//! against allowed lists ([`OriginPolicy`], [`check_http_origin`]).
//!
//! The transport says a server MUST validate `Origin` on every incoming
//! connection and MUST answer 403 when it is present and invalid, and that
//! a local server should bind to loopback and guard against DNS rebinding.
//! A hostile page can make a browser POST to `http://127.0.0.1:PORT/mcp`
//! (the browser sends the page's `Origin`), or resolve a name of its own to
//! 127.0.0.1 (the browser then sends that name as `Host`, and the page's
//! origin, which looks same-origin to the browser). So, in this order:
//!
//! 1. `Host` must be present once and name an allowed host, else **421
//!    Misdirected Request** (the request was meant for another server).
//! 2. `Origin`, when present, must be present once, not `null`, an `http`
//!    or `https` origin, and either listed or the request's own origin
//!    (its host and port equal to `Host`), else **403 Forbidden**.
//!
//! A request without `Origin` (curl, an SDK client, another server) passes
//! step 2: browsers send `Origin` on every cross-origin POST, so only a
//! page is held to it. The refusal is a JSON-RPC error without an id
//! (`-32600`), as the transport allows. Names compare case-insensitively.

use crate::error::{Error, ErrorCode, Result};
use crate::response::Response;
use serde_json::{Value, json};

/// Which `Host` and `Origin` values a server accepts.
///
/// [`OriginPolicy::loopback`] is the default for a server bound to
/// loopback: the hosts `localhost`, `127.0.0.1` and `[::1]` on any port,
/// and no origin but the request's own. Behind a proxy, list the public
/// host name(s) the proxy forwards and the origins of the web apps that may
/// call the server (docs/operations.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginPolicy {
    hosts: Vec<HostEntry>,
    origins: Vec<String>,
    any_origin: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HostEntry {
    Any,
    Name(String),
    NamePort(String, String),
}

/// The hosts a loopback server answers to.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

impl Default for OriginPolicy {
    fn default() -> Self {
        OriginPolicy::loopback()
    }
}

fn config(what: &str, entry: &str) -> Error {
    Error::new(ErrorCode::Config, format!("origin policy: {what} entry {entry:?} is not valid"))
}

/// `(host, port)` of `host[:port]`, lowercased; an IPv6 host keeps its
/// brackets. `None` if it is not that shape.
fn split_authority(value: &str) -> Option<(String, Option<String>)> {
    let value = value.to_ascii_lowercase();
    let (host, port) = if value.starts_with('[') {
        let end = value.find(']')?;
        let (host, rest) = value.split_at(end + 1);
        match rest {
            "" => (host.to_owned(), None),
            _ => (host.to_owned(), Some(rest.strip_prefix(':')?.to_owned())),
        }
    } else {
        match value.split_once(':') {
            Some((h, p)) => (h.to_owned(), Some(p.to_owned())),
            None => (value, None),
        }
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'[' | b']' | b':'));
    let port_ok = port
        .as_deref()
        .is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    (host_ok && port_ok).then_some((host, port))
}

/// An origin's `scheme://authority`, lowercased, if it is an http(s) origin.
fn parse_origin(value: &str) -> Option<(String, String)> {
    let lower = value.to_ascii_lowercase();
    let (scheme, authority) = lower.split_once("://")?;
    if !matches!(scheme, "http" | "https") || authority.contains(['/', '?', '#', '@']) {
        return None;
    }
    split_authority(authority)?;
    Some((format!("{scheme}://{authority}"), authority.to_owned()))
}

impl OriginPolicy {
    /// The loopback default: [`LOOPBACK_HOSTS`] on any port, and only
    /// same-origin requests from a browser.
    pub fn loopback() -> OriginPolicy {
        OriginPolicy {
            hosts: LOOPBACK_HOSTS.iter().map(|h| HostEntry::Name((*h).to_owned())).collect(),
            origins: Vec::new(),
            any_origin: false,
        }
    }

    /// A policy from lists: `hosts` entries are `name` (any port),
    /// `name:port`, or `*` (any host: only behind a proxy that checks
    /// `Host` itself); `origins` entries are `scheme://host[:port]` (http or
    /// https) or `*` (any page: never for a server that acts for a user).
    /// `null` is never an allowed origin. A bad entry is
    /// [`ErrorCode::Config`].
    pub fn new(hosts: &[&str], origins: &[&str]) -> Result<OriginPolicy> {
        let mut policy = OriginPolicy { hosts: Vec::new(), origins: Vec::new(), any_origin: false };
        for entry in hosts {
            if *entry == "*" {
                policy.hosts.push(HostEntry::Any);
                continue;
            }
            match split_authority(entry).ok_or_else(|| config("host", entry))? {
                (name, None) => policy.hosts.push(HostEntry::Name(name)),
                (name, Some(port)) => policy.hosts.push(HostEntry::NamePort(name, port)),
            }
        }
        for entry in origins {
            if *entry == "*" {
                policy.any_origin = true;
                continue;
            }
            let (origin, _) = parse_origin(entry).ok_or_else(|| config("origin", entry))?;
            policy.origins.push(origin);
        }
        Ok(policy)
    }

    fn host_allowed(&self, host: &str, port: Option<&str>) -> bool {
        self.hosts.iter().any(|e| match e {
            HostEntry::Any => true,
            HostEntry::Name(n) => n == host,
            HostEntry::NamePort(n, p) => n == host && Some(p.as_str()) == port,
        })
    }
}

/// The one value of header `name`: `Ok(None)` if absent, `Err(())` if sent
/// more than once.
fn single<'a>(headers: &[(&str, &'a str)], name: &str) -> std::result::Result<Option<&'a str>, ()> {
    let mut found = headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim());
    let first = found.next();
    if found.next().is_some() {
        return Err(());
    }
    Ok(first)
}

fn refuse(status: u16, message: &str, reason: &str) -> Response {
    Response::error(Value::Null, -32600, message, Some(json!({ "reason": reason })), status)
}

/// Checks `Origin` and `Host` of one HTTP request (`headers`: its `(name,
/// value)` pairs in any case) against `policy`. `None`: go on. Otherwise the
/// ready refusal to send: HTTP 421 with `data.reason` `host` (a missing,
/// repeated or unlisted `Host`), or HTTP 403 with `data.reason` `origin` (a
/// repeated, `null`, malformed, foreign or unlisted `Origin`). Run it on
/// every request, before reading the body.
pub fn check_http_origin(policy: &OriginPolicy, headers: &[(&str, &str)]) -> Option<Response> {
    let host = match single(headers, "host") {
        Ok(Some(h)) => split_authority(h).filter(|(n, p)| policy.host_allowed(n, p.as_deref())).map(|_| h),
        _ => None,
    };
    let Some(host) = host else {
        return Some(refuse(421, "Misdirected request: Host not allowed", "host"));
    };
    let origin = match single(headers, "origin") {
        Ok(None) => return None,
        Ok(Some(o)) => parse_origin(o),
        Err(()) => None,
    };
    let allowed = origin.is_some_and(|(origin, authority)| {
        policy.any_origin || policy.origins.contains(&origin) || authority == host.to_ascii_lowercase()
    });
    if allowed { None } else { Some(refuse(403, "Forbidden: Origin not allowed", "origin")) }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn check(policy: &OriginPolicy, headers: &[(&str, &str)]) -> Option<(u16, String)> {
        check_http_origin(policy, headers).map(|r| {
            let reason = r.body().pointer("/error/data/reason").and_then(Value::as_str).unwrap().to_owned();
            assert_eq!(r.body().get("id"), Some(&Value::Null));
            (r.http_status(), reason)
        })
    }

    #[test]
    fn loopback_accepts_plain_and_same_origin_requests_only() {
        let p = OriginPolicy::loopback();
        assert_eq!(check(&p, &[("Host", "127.0.0.1:8080")]), None);
        assert_eq!(check(&p, &[("host", "LOCALHOST:1"), ("Origin", "http://localhost:1")]), None);
        assert_eq!(check(&p, &[("Host", "[::1]:9"), ("Origin", "https://[::1]:9")]), None);
        let origin = Some((403, "origin".to_owned()));
        let host = Some((421, "host".to_owned()));
        assert_eq!(check(&p, &[("Host", "127.0.0.1:8080"), ("Origin", "http://evil.example")]), origin);
        assert_eq!(check(&p, &[("Host", "127.0.0.1:8080"), ("Origin", "null")]), origin);
        assert_eq!(check(&p, &[("Host", "localhost:8080"), ("Origin", "http://localhost:3000")]), origin);
        assert_eq!(check(&p, &[("Host", "localhost:8080"), ("Origin", "file://localhost:8080")]), origin);
        assert_eq!(
            check(
                &p,
                &[
                    ("Host", "localhost:1"),
                    ("Origin", "http://localhost:1"),
                    ("origin", "http://localhost:1")
                ]
            ),
            origin
        );
        // DNS rebinding: the page's own name, resolved to loopback.
        assert_eq!(check(&p, &[("Host", "evil.example:8080"), ("Origin", "http://evil.example:8080")]), host);
        assert_eq!(check(&p, &[("Host", "evil.example:8080")]), host);
        assert_eq!(check(&p, &[]), host);
        assert_eq!(check(&p, &[("Host", "localhost"), ("Host", "localhost")]), host);
        assert_eq!(check(&p, &[("Host", "local host")]), host);
    }

    #[test]
    fn lists_for_a_proxy() {
        let p =
            OriginPolicy::new(&["mcp.example.com", "10.0.0.5:8443"], &["https://app.example.com"]).unwrap();
        assert_eq!(check(&p, &[("Host", "MCP.example.com"), ("Origin", "https://app.example.com")]), None);
        assert_eq!(check(&p, &[("Host", "10.0.0.5:8443")]), None);
        assert!(check(&p, &[("Host", "10.0.0.5:8444")]).is_some());
        assert!(check(&p, &[("Host", "localhost")]).is_some(), "loopback is not implied");
        assert!(check(&p, &[("Host", "mcp.example.com"), ("Origin", "https://evil.example")]).is_some());
        let any = OriginPolicy::new(&["*"], &["*"]).unwrap();
        assert_eq!(check(&any, &[("Host", "whatever:1"), ("Origin", "http://x")]), None);
        assert!(
            check(&any, &[("Host", "whatever:1"), ("Origin", "null")]).is_some(),
            "null is never allowed"
        );
        for (hosts, origins) in [
            (&["a b"][..], &[][..]),
            (&[][..], &["null"][..]),
            (&[][..], &["ftp://x"][..]),
            (&[][..], &["http://x/path"][..]),
            (&["x:port"][..], &[][..]),
        ] {
            assert_eq!(OriginPolicy::new(hosts, origins).unwrap_err().code(), ErrorCode::Config);
        }
    }
}
