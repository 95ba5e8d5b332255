//! [`OnceCommand`]: one store step the machine asks its caller to run, and
//! the replies it reads back. A Redis client runs `command.script()` with
//! `KEYS[1] = command.key()` and `ARGV = command.args()` and feeds the
//! reply text back; the memory store runs the same command natively and
//! answers the same text, so one reader of replies serves every store.

use super::scripts::{
    ONCE_CLAIM_SCRIPT, ONCE_COMPLETE_SCRIPT, ONCE_EXTEND_SCRIPT, ONCE_LOOKUP_SCRIPT, ONCE_RELEASE_SCRIPT,
};
use crate::error::{Error, ErrorCode, Result};

/// Which store step a [`OnceCommand`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnceOp {
    /// Take the flow's claim (or learn it is pending or done).
    Claim,
    /// Remember the result of the owner's claim.
    Complete,
    /// Drop the owner's claim after an effect that did nothing.
    Release,
    /// Move the owner's lease a full lease from now.
    Extend,
    /// Read the flow's record without changing it.
    Lookup,
}

impl OnceOp {
    /// The lowercase name (`claim`, `complete`, `release`, `extend`, `lookup`).
    pub fn name(self) -> &'static str {
        match self {
            OnceOp::Claim => "claim",
            OnceOp::Complete => "complete",
            OnceOp::Release => "release",
            OnceOp::Extend => "extend",
            OnceOp::Lookup => "lookup",
        }
    }
}

/// One store step: what to run, on which key, with which arguments.
///
/// The fields a memory store needs are typed ([`OnceCommand::lease_ms`],
/// …); [`OnceCommand::args`] spells them as the script's `ARGV`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnceCommand {
    pub(crate) op: OnceOp,
    pub(crate) key: String,
    pub(crate) owner: String,
    pub(crate) digest: String,
    pub(crate) lease_ms: u64,
    pub(crate) keep_until_ms: u64,
    pub(crate) text: String,
    /// Who the flow belongs to, for a memory store's per-principal share;
    /// never sent to Redis.
    pub(crate) principal: String,
}

impl OnceCommand {
    /// The step.
    pub fn op(&self) -> OnceOp {
        self.op
    }
    /// The flow's key (`KEYS[1]`).
    pub fn key(&self) -> &str {
        &self.key
    }
    /// The Lua script to run, byte for byte.
    pub fn script(&self) -> &'static str {
        match self.op {
            OnceOp::Claim => ONCE_CLAIM_SCRIPT,
            OnceOp::Complete => ONCE_COMPLETE_SCRIPT,
            OnceOp::Release => ONCE_RELEASE_SCRIPT,
            OnceOp::Extend => ONCE_EXTEND_SCRIPT,
            OnceOp::Lookup => ONCE_LOOKUP_SCRIPT,
        }
    }
    /// The script's `ARGV`.
    pub fn args(&self) -> Vec<String> {
        let (lease, keep) = (self.lease_ms.to_string(), self.keep_until_ms.to_string());
        match self.op {
            OnceOp::Claim => vec![self.digest.clone(), self.owner.clone(), lease, keep],
            OnceOp::Complete => vec![self.owner.clone(), self.text.clone(), lease, keep],
            OnceOp::Release => vec![self.owner.clone()],
            OnceOp::Extend => vec![self.owner.clone(), lease, keep],
            OnceOp::Lookup => Vec::new(),
        }
    }
    /// The random owner id of the run that sent it (empty for `Lookup`).
    pub fn owner(&self) -> &str {
        &self.owner
    }
    /// The answers digest claimed (`Claim` only).
    pub fn digest(&self) -> &str {
        &self.digest
    }
    /// The lease, in milliseconds.
    pub fn lease_ms(&self) -> u64 {
        self.lease_ms
    }
    /// The Unix millisecond until which the record must be kept.
    pub fn keep_until_ms(&self) -> u64 {
        self.keep_until_ms
    }
    /// The result text to remember (`Complete` only).
    pub fn text(&self) -> &str {
        &self.text
    }
    /// The principal the flow belongs to (a memory store's share).
    pub fn principal(&self) -> &str {
        &self.principal
    }
}

/// A reply, read. Every store answers one of these shapes as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply<'a> {
    Won(u64),
    Pending(u64),
    Done { digest: &'a str, text: &'a str },
    Free,
    None,
    Completed,
    Released,
    Extended,
    Lost,
}

fn unexpected(op: OnceOp) -> Error {
    Error::new(
        ErrorCode::Store,
        format!(
            "once store: an unexpected reply to {} (is the key prefix shared with another application, or the script changed?)",
            op.name()
        ),
    )
}

fn fence(text: &str, op: OnceOp) -> Result<u64> {
    text.parse::<u64>().ok().filter(|f| *f > 0).ok_or_else(|| unexpected(op))
}

/// `<fence> <digest> <text>` of a `done` reply.
fn done(op: OnceOp, rest: &str) -> Result<Reply<'_>> {
    let mut parts = rest.splitn(3, ' ');
    let (Some(f), Some(digest), Some(text)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(unexpected(op));
    };
    fence(f, op)?;
    Ok(Reply::Done { digest, text })
}

/// Reads the reply to `op`: only the shapes that command can answer.
pub(crate) fn read_reply(op: OnceOp, reply: &str) -> Result<Reply<'_>> {
    if reply == "foreign" {
        return Err(Error::new(
            ErrorCode::Store,
            "once store: the flow's key holds a value snodo does not write (is the key prefix shared with another application?)",
        ));
    }
    let (word, rest) = reply.split_once(' ').unwrap_or((reply, ""));
    match (op, word) {
        (OnceOp::Claim, "won") => Ok(Reply::Won(fence(rest, op)?)),
        (OnceOp::Claim | OnceOp::Lookup, "pending") => Ok(Reply::Pending(fence(rest, op)?)),
        (OnceOp::Claim | OnceOp::Lookup, "done") => done(op, rest),
        (OnceOp::Lookup, "free") => rest.parse::<u64>().map(|_| Reply::Free).map_err(|_| unexpected(op)),
        (OnceOp::Lookup, "none") if rest.is_empty() => Ok(Reply::None),
        (OnceOp::Complete, "completed") if rest.is_empty() => Ok(Reply::Completed),
        (OnceOp::Release, "released") if rest.is_empty() => Ok(Reply::Released),
        (OnceOp::Extend, "extended") => fence(rest, op).map(|_| Reply::Extended),
        (OnceOp::Complete | OnceOp::Release | OnceOp::Extend, "lost") if rest.is_empty() => Ok(Reply::Lost),
        _ => Err(unexpected(op)),
    }
}
