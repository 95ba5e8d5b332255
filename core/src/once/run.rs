//! [`run_once`] / [`try_run_once`]: claim, run, complete (or undo a failed
//! effect); or return the remembered response; or wait for the winner.
//! This is what a server calls on a final round.

use super::{Claim, OnceStore};
use crate::error::{Error, ErrorCode, Result};
use std::time::{Duration, Instant};

/// How [`run_once`] waits for another caller's pending claim, and whether it
/// also consumes the token id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnceOptions {
    /// The longest time to wait for a pending claim to complete before
    /// failing with [`ErrorCode::Store`]. Default: 35 s (the default lease
    /// plus a margin, so a crashed winner's lease lapses within it).
    pub wait: Duration,
    /// The first pause between polls; it doubles up to `poll_max`.
    /// Default: 5 ms.
    pub poll_initial: Duration,
    /// The longest pause between polls. Default: 250 ms.
    pub poll_max: Duration,
    /// A token id to consume (with the last second to remember it) when the
    /// claim is won, before the effect runs: see [`run_once`].
    pub consume_token: Option<(String, u64)>,
}

impl Default for OnceOptions {
    fn default() -> Self {
        OnceOptions {
            wait: Duration::from_secs(35),
            poll_initial: Duration::from_millis(5),
            poll_max: Duration::from_millis(250),
            consume_token: None,
        }
    }
}

/// The message of the error [`run_once`] returns when the token id was
/// already consumed: the server answers the usual `-32602` "Invalid or
/// expired requestState" (reason `replayed`).
pub const ONCE_REPLAYED_MESSAGE: &str = "once store: requestState already used (replayed)";

/// Runs `effect` at most once for the final round (`flow_id`, `digest`) and
/// returns the final response text: the effect's own if this caller won the
/// claim, otherwise the remembered one, byte for byte.
///
/// - [`Claim::Won`]: if `options.consume_token` is set, the token id is
///   consumed first; if it was already used (another final round of the
///   same token, with different answers), the claim is released (the token
///   id stays consumed: it is the other attempt's) and the result is an
///   [`ErrorCode::Token`] error with [`ONCE_REPLAYED_MESSAGE`].
///   Then `effect` runs and its response is completed.
/// - [`Claim::Done`]: the remembered text, without running anything.
/// - [`Claim::Pending`]: polls with doubling pauses (`options.poll_initial`
///   up to `options.poll_max`) until the result is done, or the lease lapses
///   and this caller wins (then it runs the effect), or `options.wait` has
///   passed ([`ErrorCode::Store`]: still pending).
///
/// Fail closed: any store error is returned as is and the effect does not
/// run. If completing fails after the effect ran, the error is returned
/// (the response is lost to retries; the claim stays pending until its
/// lease lapses). `now` is the caller's clock in Unix seconds; each poll
/// uses `now` plus the time waited so far. `effect` returns the full final
/// response text, error responses included (it did something: remember it).
/// An effect that can fail before doing anything uses [`try_run_once`].
pub fn run_once<S, F>(
    store: &S,
    flow_id: &str,
    digest: &str,
    expires_at: u64,
    now: u64,
    options: &OnceOptions,
    effect: F,
) -> Result<String>
where
    S: OnceStore + ?Sized,
    F: FnOnce() -> String,
{
    match try_run_once(store, flow_id, digest, expires_at, now, options, || {
        Ok::<String, std::convert::Infallible>(effect())
    })? {
        Ok(text) => Ok(text),
        Err(never) => match never {},
    }
}

/// [`run_once`] for an effect that may fail **before doing anything** (a
/// ledger or payment API briefly unavailable): `Ok(Err(e))` is the effect's
/// own error, and the attempt was undone so that the client's retry of the
/// same final round runs the effect again instead of being refused as a
/// replay: the claim is released and the token id consumed by this attempt
/// (`options.consume_token`) is given back, in one atomic
/// [`OnceStore::release`]. The outer `Err` is a store (or replay) error as
/// in [`run_once`].
///
/// Fail closed: if that release fails (store down), the store error is
/// returned (the effect's error is dropped; nothing happened either way),
/// the claim stays pending until its lease lapses and the token id stays
/// consumed, so a retry may get the replay error and the user may have to
/// start the flow over. That is the safe side: a token id is never given
/// back unless the claim was still this attempt's.
///
/// The contract is the caller's: `effect` returns `Err` only if nothing
/// happened. An effect that did something, even half, returns `Ok` with
/// its error response, which is remembered.
pub fn try_run_once<S, F, E>(
    store: &S,
    flow_id: &str,
    digest: &str,
    expires_at: u64,
    now: u64,
    options: &OnceOptions,
    effect: F,
) -> Result<std::result::Result<String, E>>
where
    S: OnceStore + ?Sized,
    F: FnOnce() -> std::result::Result<String, E>,
{
    let started = Instant::now();
    let mut pause = options.poll_initial.max(Duration::from_millis(1));
    loop {
        let now_here = now.saturating_add(started.elapsed().as_secs());
        match store.claim(flow_id, digest, expires_at, now_here)? {
            Claim::Done(text) => return Ok(Ok(text)),
            Claim::Won => {
                let mut consumed = None;
                if let Some((token_id, token_expires)) = &options.consume_token {
                    let first = match store.consume(token_id, *token_expires, now_here) {
                        Ok(first) => first,
                        Err(e) => {
                            // Nothing happened yet: let another caller try.
                            // The token id is not given back: whether this
                            // attempt set it is unknown, and deleting a key
                            // another attempt set would allow a second use.
                            let _ = store.release(flow_id, digest, None);
                            return Err(e);
                        }
                    };
                    if !first {
                        // The token id is the other attempt's: keep it.
                        store.release(flow_id, digest, None)?;
                        return Err(Error::new(ErrorCode::Token, ONCE_REPLAYED_MESSAGE));
                    }
                    consumed = Some(token_id.as_str());
                }
                let text = match effect() {
                    Ok(text) => text,
                    Err(e) => {
                        store.release(flow_id, digest, consumed)?;
                        return Ok(Err(e));
                    }
                };
                let done_at = now.saturating_add(started.elapsed().as_secs());
                store.complete(flow_id, digest, &text, expires_at, done_at)?;
                return Ok(Ok(text));
            }
            Claim::Pending => {
                let waited = started.elapsed();
                if waited >= options.wait {
                    return Err(Error::new(
                        ErrorCode::Store,
                        format!(
                            "once store: the result is still pending after {} ms (another caller is running the effect)",
                            waited.as_millis()
                        ),
                    ));
                }
                std::thread::sleep(pause.min(options.wait - waited));
                pause = (pause * 2).min(options.poll_max.max(Duration::from_millis(1)));
            }
        }
    }
}
