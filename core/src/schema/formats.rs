//! Syntactic checks for the four string formats the form subset allows.
//!
//! JSON Schema 2020-12 treats `format` as an annotation, but a server that
//! asked for an email should not be handed "not-an-email", so snodo asserts
//! the formats. The checks are deliberately syntactic: no DNS, no calendar
//! beyond the Gregorian rules, no IDN mapping.

use std::net::{Ipv4Addr, Ipv6Addr};

/// A string format of the form subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

impl Format {
    pub(super) fn from_name(name: &str) -> Option<Format> {
        match name {
            "email" => Some(Format::Email),
            "uri" => Some(Format::Uri),
            "date" => Some(Format::Date),
            "date-time" => Some(Format::DateTime),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Date => "date",
            Format::DateTime => "date-time",
        }
    }

    pub(super) fn accepts(self, s: &str) -> bool {
        match self {
            Format::Email => is_email(s),
            Format::Uri => is_uri(s),
            Format::Date => is_date(s),
            Format::DateTime => is_date_time(s),
        }
    }
}

/// RFC 5321 mailbox, ASCII only: a dot-atom local part (quoted local parts are
/// legal but nobody types them into a form, and they invite confusion) and a
/// domain of hostname labels or an address literal.
fn is_email(s: &str) -> bool {
    // RFC 5321 caps a forward path at 256 octets including the angle brackets.
    if s.len() > 254 {
        return false;
    }
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    is_dot_atom(local) && local.len() <= 64 && (is_hostname(domain) || is_address_literal(domain))
}

fn is_dot_atom(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(|atom| !atom.is_empty() && atom.bytes().all(is_atext))
}

fn is_atext(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&b)
}

/// Hostname labels (LDH, 1..=63 octets, no hyphen at either end), at most 253
/// octets in all. A single label ("localhost") is accepted.
fn is_hostname(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

fn is_address_literal(s: &str) -> bool {
    let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) else {
        return false;
    };
    match inner.strip_prefix("IPv6:") {
        Some(v6) => v6.parse::<Ipv6Addr>().is_ok(),
        None => inner.parse::<Ipv4Addr>().is_ok(),
    }
}

/// RFC 3986 URI (absolute, fragment allowed, as JSON Schema's `uri` means):
/// a scheme, ":", then only characters a URI may contain, with every "%"
/// starting a valid escape. Non-ASCII text is an IRI, not a URI, so it fails.
fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    if !is_scheme(scheme) {
        return false;
    }
    let (before_fragment, fragment) = match rest.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (rest, None),
    };
    // Brackets are only legal around an IP literal in the authority.
    let (authority, tail) = match before_fragment.strip_prefix("//") {
        Some(after) => {
            let end = after.find(['/', '?']).unwrap_or(after.len());
            after.split_at(end)
        }
        None => ("", before_fragment),
    };
    uri_chars_ok(authority, true)
        && uri_chars_ok(tail, false)
        && fragment.is_none_or(|f| uri_chars_ok(f, false))
}

pub(super) fn is_scheme(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
}

fn uri_chars_ok(s: &str, brackets: bool) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = |j: usize| bytes.get(j).is_some_and(|h| h.is_ascii_hexdigit());
            if !(hex(i + 1) && hex(i + 2)) {
                return false;
            }
            i += 3;
            continue;
        }
        let ok = b.is_ascii_alphanumeric()
            || b"-._~!$&'()*+,;=:@/?".contains(&b)
            || (brackets && (b == b'[' || b == b']'));
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

/// RFC 3339 full-date with real calendar validity.
fn is_date(s: &str) -> bool {
    parse_date(s.as_bytes()).is_some()
}

fn parse_date(b: &[u8]) -> Option<()> {
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let year = digits(b, 0, 4)?;
    let month = digits(b, 5, 2)?;
    let day = digits(b, 8, 2)?;
    (day >= 1 && day <= days_in_month(year, month)?).then_some(())
}

fn days_in_month(year: u32, month: u32) -> Option<u32> {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
        4 | 6 | 9 | 11 => Some(30),
        2 => Some(if leap { 29 } else { 28 }),
        _ => None,
    }
}

/// `len` ASCII digits starting at `at`, as a number.
fn digits(b: &[u8], at: usize, len: usize) -> Option<u32> {
    let slice = b.get(at..at.checked_add(len)?)?;
    slice.iter().try_fold(0u32, |acc, &d| d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0')))
}

/// RFC 3339 date-time: full-date, "T" (or "t"), HH:MM:SS, optional fraction,
/// then "Z"/"z" or a numeric offset. A leap second (":60") is accepted only
/// where it can occur: at 23:59 UTC once the offset is applied.
fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(date), Some(sep)) = (b.get(..10), b.get(10)) else {
        return false;
    };
    if parse_date(date).is_none() || !(*sep == b'T' || *sep == b't') {
        return false;
    }
    let Some(time) = b.get(11..) else {
        return false;
    };
    parse_time(time).is_some()
}

fn parse_time(b: &[u8]) -> Option<()> {
    if b.len() < 8 || b.get(2) != Some(&b':') || b.get(5) != Some(&b':') {
        return None;
    }
    let hour = digits(b, 0, 2)?;
    let minute = digits(b, 3, 2)?;
    let second = digits(b, 6, 2)?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = b.get(8..)?;
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|d| d.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        rest = frac.get(n..)?;
    }
    // Offset in minutes east of UTC.
    let offset: i64 = match rest {
        b"Z" | b"z" => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let oh = digits(rest, 1, 2)?;
            let om = digits(rest, 4, 2)?;
            if oh > 23 || om > 59 {
                return None;
            }
            let magnitude = i64::from(oh * 60 + om);
            if *sign == b'-' { -magnitude } else { magnitude }
        }
        _ => return None,
    };
    if second == 60 {
        let utc_minute = (i64::from(hour * 60 + minute) - offset).rem_euclid(24 * 60);
        if utc_minute != 23 * 60 + 59 {
            return None;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email() {
        for ok in [
            "octocat@github.com",
            "a.b+c@x.example",
            "u@localhost",
            "x@[127.0.0.1]",
            "x@[IPv6:::1]",
            "o'neil@e.io",
        ] {
            assert!(is_email(ok), "{ok}");
        }
        let long_local = format!("{}@a.b", "a".repeat(65));
        for bad in [
            "not-an-email",
            "@a.b",
            "a@",
            "a b@c.d",
            "a@b c.d",
            "a..b@c.d",
            ".a@c.d",
            "a.@c.d",
            "a@-b.c",
            "a@b-.c",
            "a@b..c",
            "a@[1.2.3]",
            "a@[IPv6:zz]",
            "jos\u{e9}@e.com",
            &long_local,
            "a@b.c\n",
        ] {
            assert!(!is_email(bad), "{bad:?}");
        }
    }

    #[test]
    fn uri() {
        for ok in [
            "https://a.b/c",
            "urn:isbn:0451450523",
            "mailto:x@y.z",
            "http://[::1]:80/p?q=1#f",
            "a+b.c-d:x",
            "f:%41",
        ] {
            assert!(is_uri(ok), "{ok}");
        }
        for bad in [
            "a b",
            "no-scheme",
            "/relative",
            "1http://x",
            ":x",
            "https://a.b/c d",
            "https://a/%zz",
            "h://x#a#b",
            "https://a/\u{e9}",
            "h://a/[x]",
            "h://a/\\x",
            "h://a/\u{7}",
        ] {
            assert!(!is_uri(bad), "{bad:?}");
        }
    }

    #[test]
    fn date() {
        for ok in ["2024-02-29", "2000-02-29", "2023-12-31", "0001-01-01"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-1-01",
            "24-01-01",
            "2024-01-01T00:00:00Z",
            "2024/01/01",
            "２０２４-01-01",
            "",
        ] {
            assert!(!is_date(bad), "{bad:?}");
        }
    }

    #[test]
    fn date_time() {
        for ok in [
            "2024-01-01T00:00:00Z",
            "2024-01-01t00:00:00z",
            "2024-01-01T23:59:59.123456+05:30",
            "1998-12-31T23:59:60Z",
            "1998-12-31T15:59:60-08:00",
            "2024-02-29T12:00:00-00:00",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2024-01-01",
            "2024-01-01T00:00Z",
            "2024-01-01 00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T00:60:00Z",
            "2024-01-01T00:00:00",
            "2024-01-01T00:00:00.Z",
            "2024-01-01T00:00:00+0530",
            "2024-01-01T00:00:00+24:00",
            "1998-12-31T23:58:60Z",
            "2023-02-29T00:00:00Z",
            "2024-01-01T00:00:61Z",
        ] {
            assert!(!is_date_time(bad), "{bad:?}");
        }
    }
}
