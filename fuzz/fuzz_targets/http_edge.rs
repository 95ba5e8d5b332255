//! The HTTP edge checks on attacker headers and request text: the
//! request-metadata header rules (`check_http_headers_text`) and the
//! Origin/Host policy (`check_http_origin`). The input is header lines
//! (`Name: value`), a blank line, then the request text. Neither check may
//! panic; a refusal is a ready JSON-RPC error with a 4xx status.
#![no_main]

use libfuzzer_sys::fuzz_target;
use snodo::OriginPolicy;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (head, request) = text.split_once("\n\n").unwrap_or((text, ""));
    let headers: Vec<(&str, &str)> =
        head.lines().filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim(), v.trim())).collect();
    let refusals = [
        snodo::check_http_headers_text(&headers, request),
        snodo::check_http_origin(&OriginPolicy::default(), &headers),
    ];
    for r in refusals.into_iter().flatten() {
        if !(400..500).contains(&r.http_status()) || !r.is_error() {
            std::process::abort();
        }
    }
});
