//! The token inspector and key generator behind the `snodo-mrtr` command
//! line: what a server author reaches for when a retry is refused with
//! `Invalid or expired requestState`.
//!
//! Everything the Python console script and the Node `bin` print is made
//! here, so both print the same bytes: [`inspect_token`] builds an
//! [`InspectReport`] and [`InspectReport::to_text`] renders it;
//! [`run_cli`] is the whole command line (arguments in, text and exit
//! status out). Decoding needs no key and is as strict as `open` about
//! shape and size; verification runs the real `open` path with the keys
//! of `SNODO_KEYS` ([`parse_keys`](crate::parse_keys)) and reports the first check that fails,
//! by the reason name the wire sends as `data.reason`. Key bytes are never
//! part of any output.

mod cli;
mod decode;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;
use zeroize::Zeroizing;

// Crate-root paths only: the modules behind them may move.
use crate::{Config, Engine, Error, ErrorCode, Key, Principal, Result, TokenReason};

pub use cli::{CliOutput, run_cli};
pub use decode::{TokenFields, decode_token};

/// Limits and optional binding inputs for [`inspect_token`]. The limits are
/// the engine's (defaults unless the server changed them); `principal` and
/// `request` are the retry's, when known.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct InspectOptions {
    /// The verified principal of the retry; `None` = not checked.
    pub principal: Option<Principal>,
    /// The retry's JSON-RPC request text; `None` = binding not checked.
    pub request: Option<String>,
    /// The engine's audience, if it has one (folded into the binding).
    pub audience: Option<String>,
    /// The engine's `max_rounds`.
    pub max_rounds: u32,
    /// The engine's `max_flow_age_secs`.
    pub max_flow_age_secs: u64,
    /// The engine's `max_token_bytes` (also bounds key-less decoding).
    pub max_token_bytes: usize,
    /// The engine's `clock_skew_secs`.
    pub clock_skew_secs: u64,
}

impl Default for InspectOptions {
    fn default() -> InspectOptions {
        InspectOptions {
            principal: None,
            request: None,
            audience: None,
            max_rounds: crate::DEFAULT_MAX_ROUNDS,
            max_flow_age_secs: crate::DEFAULT_MAX_FLOW_AGE_SECS,
            max_token_bytes: crate::DEFAULT_MAX_TOKEN_BYTES,
            clock_skew_secs: crate::DEFAULT_CLOCK_SKEW_SECS,
        }
    }
}

/// The outcome of verifying a token with keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No keys were given: the fields are unverified.
    Unverified,
    /// Every check that could run passed.
    Ok,
    /// The first failing check, as the wire names it.
    Refused(TokenReason),
}

/// How one binding check (principal or request) went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingCheck {
    /// The user gave nothing to compare with.
    NotChecked,
    /// No keys: nothing is checked.
    NoKeys,
    /// An earlier check failed first.
    NotReached,
    /// It matched.
    Ok,
    /// It did not match (the verdict names it).
    Mismatch,
}

/// What [`inspect_token`] found. Holds no key material.
#[derive(Debug, Clone)]
pub struct InspectReport {
    /// The time the checks ran at (Unix seconds).
    pub now: u64,
    /// The decoded fields, or why the token could not be decoded.
    pub fields: std::result::Result<TokenFields, TokenReason>,
    /// The verification outcome.
    pub verdict: Verdict,
    /// The principal check.
    pub principal: BindingCheck,
    /// The request binding check.
    pub request: BindingCheck,
}

impl InspectReport {
    /// The command's exit status: 0 when the token decoded and (with keys)
    /// verified, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match (&self.fields, self.verdict) {
            (Ok(_), Verdict::Unverified | Verdict::Ok) => 0,
            _ => 1,
        }
    }

    /// The text both command-line tools print, one `name: value` line each.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mut line = |name: &str, value: &str| {
            out.push_str(&format!("{:<12}{value}\n", format!("{name}:")));
        };
        match &self.fields {
            Ok(f) => {
                line("version", &f.version.to_string());
                line("key id", &f.key_id);
                line("token id", &f.token_id);
                line("flow id", &f.flow_id);
                line("issued at", &utc_time(f.issued_at));
                line("expires at", &utc_time(f.expires_at));
                line("flow start", &utc_time(f.flow_start));
                line("round", &f.round.to_string());
                line("questions", &crate::to_wire(&Value::from(f.question_keys.clone())));
                line("state", f.state_json.as_deref().unwrap_or("none"));
            }
            Err(reason) => line("decode", &format!("refused: {}", reason.name())),
        }
        line("now", &utc_time(self.now));
        let verdict = match self.verdict {
            Verdict::Unverified => {
                "not verified (SNODO_KEYS not set; the fields are unauthenticated)".to_owned()
            }
            Verdict::Ok => "ok, for the checks made here (the lines below say which were not)".to_owned(),
            Verdict::Refused(r) => {
                format!("refused: {} (the first failing check; data.reason on the wire)", r.name())
            }
        };
        line("verified", &verdict);
        let principal = ["no --principal NAME or --anonymous", "the retry's principal is the first call's"];
        line("principal", &check_text(self.principal, principal));
        let request = ["no --request FILE", "the retry's method and arguments are the first call's"];
        line("request", &check_text(self.request, request));
        line("replay", &replay_text(self.fields.as_ref().ok()));
        out
    }
}

/// One binding line: the input that was missing to check it, or what an
/// `ok` covers (a mismatch is named by the verdict).
fn check_text(check: BindingCheck, [missing, covers]: [&str; 2]) -> String {
    match check {
        BindingCheck::NotChecked => format!("not checked ({missing})"),
        BindingCheck::NoKeys => "not checked (SNODO_KEYS not set)".to_owned(),
        BindingCheck::NotReached => "not reached (an earlier check failed)".to_owned(),
        BindingCheck::Ok => format!("ok ({covers})"),
        BindingCheck::Mismatch => "mismatch (the verdict names it)".to_owned(),
    }
}

/// The replay line. A token that verifies may still be refused as
/// `replayed` by a once store: the core has no store (it is sans-IO), so
/// the line says who judges it and which record to look at.
fn replay_text(fields: Option<&TokenFields>) -> String {
    match fields {
        None => "not checked (no flow id: the token did not decode)".to_owned(),
        Some(f) => {
            let key = crate::once_flow_key(crate::DEFAULT_ONCE_PREFIX, &f.flow_id).unwrap_or_default();
            format!(
                "not checked here: a server with a once store judges it at check_once/run_once \
                 (data.reason replayed); its record is {key} (default prefix)"
            )
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ (secs)`: UTC, with the raw value for scripts.
fn utc_time(secs: u64) -> String {
    let (y, m, d) = civil_date(secs / 86_400);
    let s = secs % 86_400;
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z ({secs})", s / 3600, s / 60 % 60, s % 60)
}

/// The proleptic Gregorian date of a day count since 1970-01-01, by whole
/// 400-year eras (146 097 days each) so that it is exact for every `u64`.
fn civil_date(days: u64) -> (u64, u64, u64) {
    // Shift the epoch to 0000-03-01 so that leap days fall at a year's end.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = era * 400 + yoe + u64::from(m <= 2);
    (y, m, d)
}

/// Decodes `token` and, when `keys` are given, verifies it at `now` through
/// the same `open` every `begin` runs. Errors only on bad `keys` or
/// `options` (`CONFIG`) or an unreadable `options.request` (`JSON`,
/// `ARGUMENT`); a bad token is a report, never an error.
pub fn inspect_token(
    token: &str,
    keys: Option<&[Key]>,
    now: u64,
    options: &InspectOptions,
) -> Result<InspectReport> {
    let mut fields = decode_token(token, options.max_token_bytes);
    // A v2 token's fields are readable only with its key.
    if let Some(keys) = keys.filter(|_| token.len() <= options.max_token_bytes)
        && let Some(decrypted) = decode::decode_v2(token, keys)
    {
        fields = decrypted;
    }
    let request_binding = match &options.request {
        Some(text) => Some(request_binding(text, options.audience.as_deref())?),
        None => None,
    };
    let given = |b: bool| if b { BindingCheck::NoKeys } else { BindingCheck::NotChecked };
    let mut report = InspectReport {
        now,
        fields,
        verdict: Verdict::Unverified,
        principal: given(options.principal.is_some()),
        request: given(request_binding.is_some()),
    };
    let Some(keys) = keys else { return Ok(report) };
    let mut config = Config::new(keys.to_vec());
    // The inspector judges the token as of `now` (the user's --now).
    config.clock = Some(std::sync::Arc::new(move || now));
    config.max_rounds = options.max_rounds;
    config.max_flow_age_secs = options.max_flow_age_secs;
    config.max_token_bytes = options.max_token_bytes;
    config.clock_skew_secs = options.clock_skew_secs;
    // Validated like the server's; `open` itself never applies it (the
    // request binding above already has it folded in).
    config.audience = options.audience.clone();
    // Flow age must be at least the ttl; the ttl plays no part in opening.
    config.ttl_secs = options.max_flow_age_secs.clamp(1, crate::MAX_TTL_SECS);
    let engine = Engine::new(config)?;
    // Unknown inputs are stood in for so the real `open` runs every other
    // check: anonymous for the principal, and the token's own (MAC-covered)
    // binding for the request. A failure of a stood-in check means only
    // "not checked".
    let principal = options.principal.clone().unwrap_or_else(Principal::anonymous);
    let own_binding = report.fields.as_ref().map(|f| f.binding).unwrap_or([0; 32]);
    let binding = request_binding.unwrap_or(own_binding);
    report.verdict = match engine.open(token, &principal, &binding) {
        Ok(_) => Verdict::Ok,
        Err(e) if e.reason == TokenReason::Principal && options.principal.is_none() => {
            // Every check before the principal passed; the request binding
            // comes after it, so compare it here (the MAC already vouched
            // for the token's binding).
            match request_binding {
                Some(b) if b != own_binding => Verdict::Refused(TokenReason::Request),
                _ => Verdict::Ok,
            }
        }
        Err(e) if e.reason == TokenReason::Request && request_binding.is_none() => Verdict::Ok,
        Err(e) => Verdict::Refused(e.reason),
    };
    let settle = |given: bool, reason: TokenReason, verdict: Verdict| match verdict {
        _ if !given => BindingCheck::NotChecked,
        Verdict::Ok => BindingCheck::Ok,
        Verdict::Refused(r) if r == reason => BindingCheck::Mismatch,
        Verdict::Refused(TokenReason::Request) if reason == TokenReason::Principal => BindingCheck::Ok,
        _ => BindingCheck::NotReached,
    };
    report.principal = settle(options.principal.is_some(), TokenReason::Principal, report.verdict);
    report.request = settle(request_binding.is_some(), TokenReason::Request, report.verdict);
    Ok(report)
}

/// The request binding of a JSON-RPC request text, as `begin` computes it.
fn request_binding(text: &str, audience: Option<&str>) -> Result<[u8; 32]> {
    let request = crate::parse_json(text.as_bytes(), "request")?;
    let (Some(method), Some(params @ Value::Object(_))) =
        (request.get("method").and_then(Value::as_str), request.get("params"))
    else {
        return Err(Error::new(
            ErrorCode::Argument,
            "request: must be a JSON-RPC request object with a method and a params object",
        ));
    };
    let binding = crate::binding_digest(method, params)?;
    Ok(crate::audience_binding(&binding, audience))
}

/// A fresh key in the `SNODO_KEYS` form, `id:base64` (standard alphabet,
/// padded), of 32 random bytes from the operating system. The id is
/// checked like [`Key::new`]'s (`CONFIG`).
pub fn keygen(id: &str) -> Result<String> {
    let mut bytes = Zeroizing::new(vec![0u8; 32]);
    getrandom::fill(&mut bytes)
        .map_err(|_| Error::new(ErrorCode::Config, "the operating system gave no random bytes"))?;
    let key = Key::new(id, bytes.to_vec())?;
    Ok(format!("{}:{}", key.id(), STANDARD.encode(bytes.as_slice())))
}

/// The id `keygen` uses when none is given: the UTC date, `YYYY-MM-DD`,
/// so that a ring's keys sort by age.
pub fn default_key_id(now: u64) -> String {
    let (y, m, d) = civil_date(now / 86_400);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests;
