//! [`OnceRun`]: the once protocol as a sans-IO state machine. It says which
//! store command to run next ([`OnceStep::Command`]), when to pause, when
//! to run the effect and what the final answer is; the caller runs each
//! command on its store (memory, redis-py, node-redis, hiredis, …) and
//! feeds the reply back. Every language drives this one machine, so the
//! rules below exist once.
//!
//! The rules, per flow id:
//!
//! - the first claim wins and gets the next **fencing number**; a claim
//!   whose owner's lease is live makes later callers wait, and one whose
//!   lease lapsed is taken over (with a greater fence);
//! - only the **owner** (a random id drawn per run) completes, releases or
//!   extends a claim: a former owner whose claim was taken over changes
//!   nothing;
//! - a completed flow answers every later final round: the remembered
//!   result when the answers digest is the one that completed, the
//!   `replayed` refusal for any other answers, whatever token of the flow
//!   carried them;
//! - an effect that failed before doing anything releases the claim; any
//!   other end of the effect (a cancellation, a panic, a crash) leaves it
//!   pending until its lease lapses.

use std::time::Duration;

use base64::Engine as _;

use super::command::{OnceCommand, OnceOp, Reply, read_reply};
use super::keys::{check_once_prefix, once_flow_key};
use crate::call::Call;
use crate::error::{Error, ErrorCode, Result};

/// The default lease of a won claim, seconds: a claim whose owner has not
/// completed, released or extended it after this long may be taken over.
pub const DEFAULT_ONCE_LEASE_SECS: u64 = 30;

/// The message of the error a final round gets when its flow completed with
/// other answers: the server answers the usual `-32602` "Invalid or expired
/// requestState" with `data.reason` `replayed`.
pub const ONCE_REPLAYED_MESSAGE: &str =
    "once store: this flow already completed with other answers (replayed)";

/// What every run on one store shares: the key prefix and the lease.
/// A store hands out its own ([`OnceStore::settings`](super::OnceStore::settings)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnceSettings {
    pub(crate) prefix: String,
    pub(crate) lease_ms: u64,
}

impl OnceSettings {
    /// `prefix` (printable ASCII without spaces or braces, ≤ 128 bytes) and
    /// the lease of a won claim (≥ 1 ms).
    pub fn new(prefix: &str, lease: Duration) -> Result<OnceSettings> {
        check_once_prefix(prefix)?;
        let lease_ms = u64::try_from(lease.as_millis()).unwrap_or(u64::MAX);
        if lease_ms == 0 {
            return Err(Error::new(ErrorCode::Config, "once store: the lease must be at least 1 ms"));
        }
        Ok(OnceSettings { prefix: prefix.to_owned(), lease_ms })
    }
    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
    /// The lease, in milliseconds.
    pub fn lease_ms(&self) -> u64 {
        self.lease_ms
    }
}

/// How a run waits for another caller's pending claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnceOptions {
    /// The longest total pause before a pending claim is reported as still
    /// running ([`ErrorCode::Store`]). Default: 35 s (the default lease plus
    /// a margin, so a crashed owner's lease lapses within it).
    pub wait: Duration,
    /// The first pause; it doubles up to `poll_max`. Default: 5 ms.
    pub poll_initial: Duration,
    /// The longest pause. Default: 250 ms.
    pub poll_max: Duration,
}

impl Default for OnceOptions {
    fn default() -> Self {
        OnceOptions {
            wait: Duration::from_secs(35),
            poll_initial: Duration::from_millis(5),
            poll_max: Duration::from_millis(250),
        }
    }
}

/// What the caller does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnceStep {
    /// Run this command on the store and [`OnceRun::feed`] its reply.
    Command(OnceCommand),
    /// Another owner's claim is live: pause this long, then
    /// [`OnceRun::resume`].
    Sleep(Duration),
    /// This run holds the claim: run the effect, then
    /// [`OnceRun::effect_done`] with its result text, or
    /// [`OnceRun::effect_failed`] if it failed **before doing anything**.
    /// Anything else (a cancellation, a panic) feeds nothing: the claim
    /// stays pending until its lease lapses.
    Effect(OnceTicket),
    /// The final result text: this run's effect's, or the one remembered
    /// for these answers.
    Done(String),
    /// The effect failed before doing anything and its claim is released:
    /// report the effect's own error.
    Released,
    /// (Lookup only) nothing is remembered for this flow yet: go on.
    Open,
}

/// What the effect is handed: its fencing number, and the command that
/// extends its lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnceTicket {
    fence: u64,
    extend: OnceCommand,
}

impl OnceTicket {
    /// The claim's fencing number: greater than every earlier claim's of
    /// this flow. A ledger that refuses a write carrying a smaller number
    /// than it has seen for the flow shuts out a former owner.
    pub fn fence(&self) -> u64 {
        self.fence
    }
    /// The owner-checked lease extension: run it on the store (from
    /// inside the effect, as often as needed) and read the reply with
    /// [`OnceTicket::extended`].
    pub fn extend_command(&self) -> &OnceCommand {
        &self.extend
    }
    /// Whether the extension held: `true` (a full lease from now), `false`
    /// (the claim is no longer this run's: stop, and do not write).
    pub fn extended(&self, reply: &str) -> Result<bool> {
        match read_reply(OnceOp::Extend, reply)? {
            Reply::Extended => Ok(true),
            _ => Ok(false),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    New,
    Claiming,
    Sleeping,
    Running,
    Completing,
    Releasing,
    Looking,
    Ended,
}

/// One run of the once protocol for one final round (or one lookup).
#[derive(Debug)]
pub struct OnceRun {
    template: OnceCommand,
    lookup_only: bool,
    phase: Phase,
    fence: u64,
    text: Option<String>,
    budget_ms: u64,
    waited_ms: u64,
    pause_ms: u64,
    poll_max_ms: u64,
}

fn out_of_order(what: &str) -> Error {
    Error::new(ErrorCode::Argument, format!("once run: {what} out of order"))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A fresh owner id: 16 random bytes, base64url.
fn new_owner() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|_| Error::new(ErrorCode::Store, "once run: no randomness for the owner id"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

impl OnceRun {
    /// A run for the final round `call` (a retry: it opened a token) on a
    /// store with `settings`. The key is the call's flow id; the answers
    /// digest, principal and the flow's last possible use
    /// ([`Call::flow_expires_at`], plus the clock skew once more for the
    /// store's own clock) come from the call.
    pub fn new(call: &Call, settings: &OnceSettings, options: &OnceOptions) -> Result<OnceRun> {
        let mut run = OnceRun::with(call, settings, false)?;
        run.budget_ms = millis(options.wait);
        run.pause_ms = millis(options.poll_initial).max(1);
        run.poll_max_ms = millis(options.poll_max).max(1);
        run.template.owner = new_owner()?;
        Ok(run)
    }

    /// A run that only looks: is a result remembered for this flow? Use it
    /// on any retry of an effectful tool before asking anything
    /// ([`OnceStep::Done`]: answer it; [`OnceStep::Open`]: go on; the
    /// `replayed` error: the flow completed with other answers).
    pub fn lookup(call: &Call, settings: &OnceSettings) -> Result<OnceRun> {
        OnceRun::with(call, settings, true)
    }

    fn with(call: &Call, settings: &OnceSettings, lookup_only: bool) -> Result<OnceRun> {
        let (Some(flow_id), Some(flow_expires_at), Some(skew)) =
            (call.flow_id(), call.flow_expires_at(), call.opened.as_ref().map(|o| o.clock_skew()))
        else {
            return Err(Error::new(
                ErrorCode::Argument,
                "once run: the call is not a retry (it opened no token): an effect on a first round has no flow to key on; run it on the final round of a flow",
            ));
        };
        let keep_until_ms = flow_expires_at.saturating_add(skew).saturating_mul(1000);
        let template = OnceCommand {
            op: OnceOp::Lookup,
            key: once_flow_key(settings.prefix(), flow_id)?,
            owner: String::new(),
            digest: call.answers_digest(),
            lease_ms: settings.lease_ms(),
            keep_until_ms,
            text: String::new(),
            principal: call.principal().name().unwrap_or_default().to_owned(),
        };
        Ok(OnceRun {
            template,
            lookup_only,
            phase: Phase::New,
            fence: 0,
            text: None,
            budget_ms: 0,
            waited_ms: 0,
            pause_ms: 1,
            poll_max_ms: 1,
        })
    }

    fn command(&self, op: OnceOp) -> OnceCommand {
        OnceCommand { op, ..self.template.clone() }
    }

    /// The first step: the claim (or the lookup).
    pub fn start(&mut self) -> Result<OnceStep> {
        if self.phase != Phase::New {
            return Err(out_of_order("start"));
        }
        if self.lookup_only {
            self.phase = Phase::Looking;
            return Ok(OnceStep::Command(self.command(OnceOp::Lookup)));
        }
        self.phase = Phase::Claiming;
        Ok(OnceStep::Command(self.command(OnceOp::Claim)))
    }

    /// After a [`OnceStep::Sleep`]: claim again.
    pub fn resume(&mut self) -> Result<OnceStep> {
        if self.phase != Phase::Sleeping {
            return Err(out_of_order("resume"));
        }
        self.phase = Phase::Claiming;
        Ok(OnceStep::Command(self.command(OnceOp::Claim)))
    }

    /// After [`OnceStep::Effect`]: the effect's result text, to remember.
    pub fn effect_done(&mut self, text: String) -> Result<OnceStep> {
        if self.phase != Phase::Running {
            return Err(out_of_order("effect_done"));
        }
        self.phase = Phase::Completing;
        let mut command = self.command(OnceOp::Complete);
        command.text.clone_from(&text);
        self.text = Some(text);
        Ok(OnceStep::Command(command))
    }

    /// After [`OnceStep::Effect`]: the effect failed before doing anything;
    /// its claim is released so that a retry of the same final round runs it.
    pub fn effect_failed(&mut self) -> Result<OnceStep> {
        if self.phase != Phase::Running {
            return Err(out_of_order("effect_failed"));
        }
        self.phase = Phase::Releasing;
        Ok(OnceStep::Command(self.command(OnceOp::Release)))
    }

    /// The fencing number this run won (0 before it won).
    pub fn fence(&self) -> u64 {
        self.fence
    }

    /// The reply to the last [`OnceStep::Command`]. An `Err` ends the run:
    /// [`ErrorCode::Token`] with [`ONCE_REPLAYED_MESSAGE`] (the flow
    /// completed with other answers), or [`ErrorCode::Store`] (still
    /// running after the wait, the claim lost before completing, a reply
    /// snodo does not write). A store the caller could not reach is the
    /// caller's own error: report it, never run the effect.
    pub fn feed(&mut self, reply: &str) -> Result<OnceStep> {
        let op = match self.phase {
            Phase::Claiming => OnceOp::Claim,
            Phase::Completing => OnceOp::Complete,
            Phase::Releasing => OnceOp::Release,
            Phase::Looking => OnceOp::Lookup,
            _ => return Err(out_of_order("feed")),
        };
        // Whatever the reply, this command is answered; a step below sets
        // the next phase, and an error leaves the run ended.
        self.phase = Phase::Ended;
        match (op, read_reply(op, reply)?) {
            (OnceOp::Claim, Reply::Won(fence)) => {
                self.fence = fence;
                self.phase = Phase::Running;
                Ok(OnceStep::Effect(OnceTicket { fence, extend: self.command(OnceOp::Extend) }))
            }
            (_, Reply::Done { digest, text }) => {
                if digest == self.template.digest {
                    Ok(OnceStep::Done(text.to_owned()))
                } else {
                    Err(Error::new(ErrorCode::Token, ONCE_REPLAYED_MESSAGE))
                }
            }
            (OnceOp::Claim, Reply::Pending(_)) => self.sleep(),
            (OnceOp::Lookup, Reply::Pending(_) | Reply::Free | Reply::None) => Ok(OnceStep::Open),
            (OnceOp::Complete, Reply::Completed) => Ok(OnceStep::Done(self.text.take().unwrap_or_default())),
            (OnceOp::Complete, _) => Err(Error::new(
                ErrorCode::Store,
                "once store: this run's claim was taken over (its lease lapsed) before the effect completed; its result was not remembered",
            )),
            // Released, or lost (the claim was already taken over): either
            // way the effect's own error is what to report.
            (OnceOp::Release, _) => Ok(OnceStep::Released),
            _ => Err(out_of_order("feed")),
        }
    }

    fn sleep(&mut self) -> Result<OnceStep> {
        if self.waited_ms >= self.budget_ms {
            return Err(Error::new(
                ErrorCode::Store,
                format!(
                    "once store: this flow's effect is still running (claimed by another caller) after {} ms; retry later",
                    self.waited_ms
                ),
            ));
        }
        let pause = self.pause_ms.min(self.budget_ms - self.waited_ms);
        self.waited_ms = self.waited_ms.saturating_add(pause);
        self.pause_ms = self.pause_ms.saturating_mul(2).min(self.poll_max_ms);
        self.phase = Phase::Sleeping;
        Ok(OnceStep::Sleep(Duration::from_millis(pause)))
    }
}
