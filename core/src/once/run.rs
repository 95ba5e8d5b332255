//! The Rust driver of the machine: [`run_once`], [`try_run_once`] and
//! [`check_once`] run [`OnceRun`]'s commands on any [`OnceStore`] and
//! sleep where it says. The Python, Node, C and Go drivers do the same
//! with their own clients.

use super::OnceStore;
use super::machine::{OnceOptions, OnceRun, OnceStep, OnceTicket};
use crate::call::Call;
use crate::error::{Error, ErrorCode, Result};

/// What the effect is handed: its fencing number and an owner-checked
/// lease extension on the store that runs it.
pub struct OnceLease<'a, S: OnceStore + ?Sized> {
    store: &'a S,
    ticket: OnceTicket,
}

impl<S: OnceStore + ?Sized> std::fmt::Debug for OnceLease<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnceLease").field("fence", &self.ticket.fence()).finish_non_exhaustive()
    }
}

impl<S: OnceStore + ?Sized> OnceLease<'_, S> {
    /// The claim's fencing number (see [`OnceTicket::fence`]).
    pub fn fence(&self) -> u64 {
        self.ticket.fence()
    }
    /// Extends the lease to a full lease from now. `Ok(false)`: the claim
    /// is no longer this run's (it lapsed and was taken over): stop, and do
    /// not write.
    pub fn extend(&self) -> Result<bool> {
        let reply = self.store.execute(self.ticket.extend_command())?;
        self.ticket.extended(&reply)
    }
}

/// Runs `effect` at most once for `call`'s flow and returns the final
/// result text: the effect's own if this run won the claim, the remembered
/// one if the flow already completed with the same answers. `call` is the
/// final round (a retry). Errors: [`ErrorCode::Token`] with
/// [`ONCE_REPLAYED_MESSAGE`](super::ONCE_REPLAYED_MESSAGE) (the flow
/// completed with other answers), [`ErrorCode::Store`] (the store failed,
/// or the flow's effect is still running elsewhere after `options.wait`),
/// [`ErrorCode::Argument`] (`call` is not a retry). On every error the
/// effect did not run here, except the one `Store` error that says the
/// claim was taken over before completing.
///
/// `effect` returns the final result text, an error result included: an
/// effect that did something, even half, must be remembered as it ended.
/// A panic in it leaves the claim pending until its lease lapses (safe:
/// nothing runs again inside the lease).
pub fn run_once<S, F>(store: &S, call: &Call, options: &OnceOptions, effect: F) -> Result<String>
where
    S: OnceStore + ?Sized,
    F: FnOnce(&OnceLease<'_, S>) -> String,
{
    match try_run_once(store, call, options, |lease| Ok::<String, std::convert::Infallible>(effect(lease)))? {
        Ok(text) => Ok(text),
        Err(never) => match never {},
    }
}

/// [`run_once`] for an effect that may fail **before doing anything** (a
/// ledger briefly unavailable): `Ok(Err(e))` is the effect's own error, and
/// its claim was released, so the client's retry of the same final round
/// runs the effect. The contract is the caller's: `Err` only if nothing
/// happened.
pub fn try_run_once<S, F, E>(
    store: &S,
    call: &Call,
    options: &OnceOptions,
    effect: F,
) -> Result<std::result::Result<String, E>>
where
    S: OnceStore + ?Sized,
    F: FnOnce(&OnceLease<'_, S>) -> std::result::Result<String, E>,
{
    let mut run = OnceRun::new(call, store.settings(), options)?;
    let mut effect = Some(effect);
    let mut failure = None;
    let mut step = run.start()?;
    loop {
        step = match step {
            OnceStep::Command(command) => run.feed(&store.execute(&command)?)?,
            OnceStep::Sleep(pause) => {
                std::thread::sleep(pause);
                run.resume()?
            }
            OnceStep::Effect(ticket) => {
                let Some(effect) = effect.take() else {
                    return Err(Error::new(ErrorCode::Argument, "once run: a second effect"));
                };
                match effect(&OnceLease { store, ticket }) {
                    Ok(text) => run.effect_done(text)?,
                    Err(e) => {
                        failure = Some(e);
                        run.effect_failed()?
                    }
                }
            }
            OnceStep::Done(text) => return Ok(Ok(text)),
            OnceStep::Released | OnceStep::Open => {
                return failure
                    .map(Err)
                    .ok_or_else(|| Error::new(ErrorCode::Argument, "once run: released without a failure"));
            }
        };
    }
}

/// Looks before asking: on a retry of an effectful tool, `Ok(Some(text))`
/// is the result remembered for exactly these answers (answer it),
/// `Ok(None)` means nothing is remembered for the flow yet (go on), and the
/// `replayed` error means the flow completed with other answers. A token of
/// a completed flow then cannot be used to ask again.
pub fn check_once<S: OnceStore + ?Sized>(store: &S, call: &Call) -> Result<Option<String>> {
    let mut run = OnceRun::lookup(call, store.settings())?;
    let OnceStep::Command(command) = run.start()? else {
        return Err(Error::new(ErrorCode::Argument, "once run: lookup"));
    };
    match run.feed(&store.execute(&command)?)? {
        OnceStep::Done(text) => Ok(Some(text)),
        _ => Ok(None),
    }
}
