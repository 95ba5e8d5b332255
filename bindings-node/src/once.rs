//! At most once per flow: the core's once machine (`OnceRun`) and its in-memory store
//! (`MemoryStore`) as JS classes, the Lua scripts and constants as exports. `runOnce`, `checkOnce`
//! and the node-redis `RedisStore` are JavaScript (`once.js`): JS awaits the effect and the Redis
//! client, runs each command the machine hands out and feeds the reply back. Every rule (owners,
//! fences, leases, replays, waiting) is the core's. A command reaches JS as a plain object (`{op,
//! key, script, args, owner}`) with the core's command wrapped inside it (`napi_wrap`), which is
//! what `MemoryStore.execute` runs: the core builds commands, nothing else does.

use std::time::Duration;

use napi::bindgen_prelude::*;
use snodo::{ErrorCode, OnceStore};

use crate::call::Call;
use crate::error::{Code, Coded, Result, argument, config, core, error};

// The core's constants themselves (a test below and the Node tests compare them anyway).

/// The default Redis key prefix (`snodo:once:`).
#[napi]
pub const DEFAULT_ONCE_PREFIX: &str = snodo::DEFAULT_ONCE_PREFIX;
/// The default lease of a won claim, in seconds.
#[napi]
pub const DEFAULT_ONCE_LEASE_SECS: u32 = snodo::DEFAULT_ONCE_LEASE_SECS as u32;
/// The default byte budget of a `MemoryStore`.
#[napi]
pub const DEFAULT_ONCE_MAX_BYTES: u32 = snodo::DEFAULT_ONCE_MAX_BYTES as u32;
/// The default share of one principal in a `MemoryStore`, in bytes.
#[napi]
pub const DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL: u32 = snodo::DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL as u32;
/// The engine's default clock skew, in seconds (a flow's record is kept until the flow's last
/// possible use, skew included).
#[napi]
pub const DEFAULT_CLOCK_SKEW_SECS: u32 = snodo::DEFAULT_CLOCK_SKEW_SECS as u32;
/// The claim Lua script, byte for byte the core's.
#[napi]
pub const ONCE_CLAIM_SCRIPT: &str = snodo::ONCE_CLAIM_SCRIPT;
/// The complete Lua script, byte for byte the core's.
#[napi]
pub const ONCE_COMPLETE_SCRIPT: &str = snodo::ONCE_COMPLETE_SCRIPT;
/// The release Lua script, byte for byte the core's.
#[napi]
pub const ONCE_RELEASE_SCRIPT: &str = snodo::ONCE_RELEASE_SCRIPT;
/// The lease extension Lua script, byte for byte the core's.
#[napi]
pub const ONCE_EXTEND_SCRIPT: &str = snodo::ONCE_EXTEND_SCRIPT;
/// The lookup Lua script, byte for byte the core's.
#[napi]
pub const ONCE_LOOKUP_SCRIPT: &str = snodo::ONCE_LOOKUP_SCRIPT;
/// The only Redis `maxmemory-policy` that never evicts a live record.
#[napi]
pub const ONCE_SAFE_EVICTION_POLICY: &str = snodo::ONCE_SAFE_EVICTION_POLICY;
/// The message of the `TOKEN` error (`err.reason === 'replayed'`) for a final round whose flow
/// completed with other answers.
#[napi]
pub const ONCE_REPLAYED_MESSAGE: &str = snodo::ONCE_REPLAYED_MESSAGE;

/// Checks a Redis `maxmemory-policy` (as `CONFIG GET` answers it): throws `STORE` saying why for
/// anything but `ONCE_SAFE_EVICTION_POLICY`.
#[napi(catch_unwind)]
pub fn check_once_eviction_policy(policy: String) -> Result<()> {
    snodo::check_once_eviction_policy(&policy).map_err(core)
}

/// Checks a key prefix (printable ASCII without spaces or braces, at most 128 bytes): throws
/// `CONFIG` otherwise.
#[napi(catch_unwind)]
pub fn check_once_prefix(prefix: String) -> Result<()> {
    snodo::check_once_prefix(&prefix).map_err(core)
}

/// One store command of a `OnceRun`: run `script` with `KEYS[1] = key` and `ARGV = args` (Redis),
/// or hand the object to `MemoryStore.execute`, and feed the reply text back to the run.
// The TypeScript shape only: `command_object` builds them.
#[napi(object, object_from_js = false)]
#[derive(Debug)]
#[allow(dead_code)]
pub struct OnceCommand {
    /// The step.
    #[napi(ts_type = "'claim' | 'complete' | 'release' | 'extend' | 'lookup'")]
    pub op: &'static str,
    /// The flow's key (`KEYS[1]`): `<prefix>flow:{<flowId>}`.
    pub key: String,
    /// The Lua script, byte for byte (one of the `ONCE_*_SCRIPT`s).
    pub script: &'static str,
    /// The script's `ARGV`.
    pub args: Vec<String>,
    /// The random owner id of the run (empty for `lookup`).
    pub owner: String,
}

/// What a `OnceRun` says to do next: a tagged object, so a TypeScript `switch (step.kind)` narrows
/// it.
// The TypeScript shape only: steps are built by `OnceRun::step` (a command carries the core's
// command, wrapped), never from this enum.
#[napi(discriminant = "kind", discriminant_case = "lowercase", object_from_js = false)]
#[derive(Debug)]
#[allow(dead_code)]
pub enum OnceStep {
    /// Run `command` on the store and `feed` its reply.
    Command { command: OnceCommand },
    /// Another owner's claim is live: wait `ms`, then `resume`.
    Sleep { ms: f64 },
    /// This run holds the claim: run the effect (`fence` is its fencing number; `extend` renews the
    /// lease, read its reply with `run.extended`), then `effectDone(text)` or, if it failed before
    /// doing anything, `effectFailed()`.
    Effect { fence: f64, extend: OnceCommand },
    /// The final result text (this run's effect's, or the remembered one).
    Done { text: String },
    /// The failed effect's claim is released: report the effect's error.
    Released,
    /// (lookup) nothing is remembered for this flow yet.
    Open,
}

/// The JS object of a core command (`OnceCommand`'s shape), with the command itself wrapped in it.
fn command_object<'e>(env: &'e Env, command: snodo::OnceCommand) -> Result<Object<'e>> {
    let mut o = Object::new(env).coded()?;
    o.set("op", command.op().name()).coded()?;
    o.set("key", command.key()).coded()?;
    o.set("script", command.script()).coded()?;
    o.set("args", command.args()).coded()?;
    o.set("owner", command.owner()).coded()?;
    o.wrap(command, None).coded()?;
    Ok(o)
}

/// A core error of a run: `TOKEN` for a replay also carries `err.reason = 'replayed'`, as every
/// binding's replay error does.
fn run_error(env: &Env, e: snodo::Error) -> Error<Code> {
    match e.code() {
        ErrorCode::Token => crate::error::with_reason(env, e.message().to_owned(), "replayed"),
        _ => core(e),
    }
}

/// Milliseconds given as a JS number: whole, from `min` to 2^53 - 1.
fn millis(code: ErrorCode, what: &str, v: f64, min: f64) -> Result<u64> {
    if !v.is_finite() || v.fract() != 0.0 || !(min..=9_007_199_254_740_991.0).contains(&v) {
        return Err(error(
            code,
            format!("once run: {what} must be a whole number of milliseconds, at least {min}"),
        ));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(v as u64)
}

/// A u64 of the core as a JS number (fences and times stay far below 2^53).
#[allow(clippy::cast_precision_loss)]
fn number(v: u64) -> f64 {
    v as f64
}

/// `new OnceRun(call, options)`: the store's settings and the wait.
#[napi(object)]
#[derive(Debug)]
pub struct OnceRunOptions {
    /// The store's key prefix (`store.prefix`).
    pub prefix: String,
    /// The store's lease of a won claim, in milliseconds (`store.leaseMs`).
    pub lease_ms: f64,
    /// How long to wait in total for another caller's pending claim before the run fails with
    /// `STORE` "still running" (default 35 000).
    pub wait_ms: Option<f64>,
    /// `true`: a run that only looks (`checkOnce`): `done` or `open`.
    pub lookup: Option<bool>,
}

/// One run of the core's once machine for one final round (or one lookup), sans IO: each method
/// returns the next `OnceStep`. `runOnce` and `checkOnce` (`snodo-mrtr/once`) drive it; drive it
/// yourself only to use a store of your own. Errors: `TOKEN` with `reason 'replayed'` (the flow
/// completed with other answers), `STORE` (still running after the wait, the claim lost before
/// completing, a reply snodo does not write), `ARGUMENT` (the call is not a retry, a step out of
/// order).
#[napi]
#[derive(Debug)]
pub struct OnceRun {
    inner: snodo::OnceRun,
    /// The won claim's ticket (from the `effect` step), for `extended`.
    ticket: Option<snodo::OnceTicket>,
}

impl OnceRun {
    /// The step as its JS object (or the run's error, thrown).
    fn step<'e>(&mut self, env: &'e Env, step: snodo::Result<snodo::OnceStep>) -> Result<Object<'e>> {
        use snodo::OnceStep::{Command, Done, Effect, Open, Released, Sleep};
        let mut o = Object::new(env).coded()?;
        let step = step.map_err(|e| run_error(env, e))?;
        let kind = |o: &mut Object, kind: &str| o.set("kind", kind).coded();
        match step {
            Command(command) => {
                kind(&mut o, "command")?;
                o.set("command", command_object(env, command)?).coded()?;
            }
            Sleep(pause) => {
                kind(&mut o, "sleep")?;
                o.set("ms", number(u64::try_from(pause.as_millis()).unwrap_or(u64::MAX))).coded()?;
            }
            Effect(ticket) => {
                kind(&mut o, "effect")?;
                o.set("fence", number(ticket.fence())).coded()?;
                o.set("extend", command_object(env, ticket.extend_command().clone())?).coded()?;
                self.ticket = Some(ticket);
            }
            Done(text) => {
                kind(&mut o, "done")?;
                o.set("text", text).coded()?;
            }
            Released => kind(&mut o, "released")?,
            Open => kind(&mut o, "open")?,
        }
        Ok(o)
    }
}

#[napi]
impl OnceRun {
    /// A run for the final round `call` (a retry: it opened a token) on a store with `prefix` and
    /// `leaseMs`; with `lookup: true`, a run that only looks. Throws `ARGUMENT` for a first round
    /// (no flow to key on), `CONFIG` for a bad prefix or lease.
    #[napi(constructor, catch_unwind)]
    pub fn new(call: &Call, options: OnceRunOptions) -> Result<OnceRun> {
        let call = &call.inner;
        let lease = millis(ErrorCode::Config, "leaseMs", options.lease_ms, 1.0)?;
        let settings =
            snodo::OnceSettings::new(&options.prefix, Duration::from_millis(lease)).map_err(core)?;
        let inner = if options.lookup == Some(true) {
            snodo::OnceRun::lookup(call, &settings)
        } else {
            let mut wait = snodo::OnceOptions::default();
            if let Some(ms) = options.wait_ms {
                wait.wait = Duration::from_millis(millis(ErrorCode::Argument, "waitMs", ms, 0.0)?);
            }
            snodo::OnceRun::new(call, &settings, &wait)
        }
        .map_err(core)?;
        Ok(OnceRun { inner, ticket: None })
    }

    /// The first step: the claim (or the lookup) command.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn start<'e>(&mut self, env: &'e Env) -> Result<Object<'e>> {
        let step = self.inner.start();
        self.step(env, step)
    }

    /// The reply text of the last command.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn feed<'e>(&mut self, env: &'e Env, reply: String) -> Result<Object<'e>> {
        let step = self.inner.feed(&reply);
        self.step(env, step)
    }

    /// After a `sleep` step: claim again.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn resume<'e>(&mut self, env: &'e Env) -> Result<Object<'e>> {
        let step = self.inner.resume();
        self.step(env, step)
    }

    /// After the `effect` step: the effect's result text (canonical JSON), to remember; the next
    /// step is the completion command.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn effect_done<'e>(&mut self, env: &'e Env, text: String) -> Result<Object<'e>> {
        let step = self.inner.effect_done(text);
        self.step(env, step)
    }

    /// After the `effect` step: the effect failed before doing anything; the next step is the
    /// release command.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn effect_failed<'e>(&mut self, env: &'e Env) -> Result<Object<'e>> {
        let step = self.inner.effect_failed();
        self.step(env, step)
    }

    /// Whether a lease extension held, from the reply to the `effect` step's `extend` command:
    /// `true` (a full lease from now), `false` (the claim is no longer this run's: stop, and do not
    /// write).
    #[napi(catch_unwind)]
    pub fn extended(&self, reply: String) -> Result<bool> {
        let Some(ticket) = &self.ticket else {
            return Err(argument("once run: extended before the effect step"));
        };
        ticket.extended(&reply).map_err(core)
    }

    /// The fencing number this run won (0 before it won).
    #[napi(getter, catch_unwind)]
    pub fn fence(&self) -> f64 {
        number(self.inner.fence())
    }
}

/// `new MemoryStore(options)`: the bounds and the lease of the in-memory store.
#[napi(object)]
#[derive(Debug, Default)]
pub struct MemoryStoreOptions {
    /// The bytes of records held at most (default `DEFAULT_ONCE_MAX_BYTES`, 64 MiB; at least 1024).
    /// A claim past it fails with `STORE` rather than forget a live record.
    pub max_bytes: Option<f64>,
    /// The bytes one principal's records may take (default a quarter of the default budget; 1024 to
    /// `maxBytes`).
    pub max_bytes_per_principal: Option<f64>,
    /// How long a won claim is held before another caller may take it over, in seconds (default 30;
    /// at least 0.001).
    pub lease_secs: Option<f64>,
}

/// A byte bound: a whole number from 1024 to 2^53 - 1, or a `CONFIG` error.
fn bytes_bound(what: &str, v: f64) -> Result<usize> {
    if !v.is_finite() || v.fract() != 0.0 || !(0.0..=9_007_199_254_740_991.0).contains(&v) {
        return Err(config(format!("MemoryStore: {what} must be a whole number of bytes")));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    usize::try_from(v as u64).map_err(|_| config(format!("MemoryStore: {what} is too large")))
}

/// Unix milliseconds: `now` if given (a whole, non-negative number), else the system clock.
fn clock_ms(now: Option<f64>) -> Result<u64> {
    match now {
        Some(v) => millis(ErrorCode::Argument, "nowMs", v, 0.0),
        None => Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)),
    }
}

/// The in-memory once store of one process (the core's `MemoryStore`): bounded in bytes with a
/// share per principal, expiring, synchronous. It runs the commands a `OnceRun` hands out, with the
/// same meaning and replies as the Redis scripts.
#[napi]
#[derive(Debug)]
pub struct MemoryStore {
    inner: snodo::MemoryStore,
}

#[napi]
impl MemoryStore {
    /// A store with at most `maxBytes` of records, `maxBytesPerPrincipal` of them for one
    /// principal, and a claim lease of `leaseSecs`.
    #[napi(constructor, catch_unwind)]
    pub fn new(options: Option<MemoryStoreOptions>) -> Result<Self> {
        let options = options.unwrap_or_default();
        let max_bytes = match options.max_bytes {
            Some(v) => bytes_bound("maxBytes", v)?,
            None => snodo::DEFAULT_ONCE_MAX_BYTES,
        };
        let per_principal = match options.max_bytes_per_principal {
            Some(v) => bytes_bound("maxBytesPerPrincipal", v)?,
            None => snodo::DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL.min(max_bytes),
        };
        let lease = match options.lease_secs {
            Some(v) if v.is_finite() && (v * 1000.0).round() >= 1.0 && v <= 9_007_199_254_740.0 =>
            {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                Duration::from_millis((v * 1000.0).round() as u64)
            }
            Some(_) => {
                return Err(config("MemoryStore: leaseSecs must be a number of seconds, at least 0.001"));
            }
            None => Duration::from_secs(snodo::DEFAULT_ONCE_LEASE_SECS),
        };
        let inner = snodo::MemoryStore::with_limits(max_bytes, per_principal, lease).map_err(core)?;
        Ok(MemoryStore { inner })
    }

    /// The key prefix (the default one: a memory store is not shared).
    #[napi(getter, catch_unwind)]
    pub fn prefix(&self) -> String {
        self.inner.settings().prefix().to_owned()
    }

    /// The lease of a won claim, in milliseconds.
    #[napi(getter, catch_unwind)]
    pub fn lease_ms(&self) -> f64 {
        number(self.inner.settings().lease_ms())
    }

    /// The number of records held (expired ones not yet dropped included).
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> f64 {
        number(u64::try_from(self.inner.len()).unwrap_or(u64::MAX))
    }

    /// The bytes the records take, as the budget counts them.
    #[napi(getter, catch_unwind)]
    pub fn bytes(&self) -> f64 {
        number(u64::try_from(self.inner.bytes()).unwrap_or(u64::MAX))
    }

    /// Runs a command a `OnceRun` handed out and returns the reply text to feed back. `nowMs` (Unix
    /// milliseconds) defaults to the system clock (pass the engine's time when its clock is fixed).
    /// Throws `STORE` when full, `ARGUMENT` for anything but a `OnceRun`'s command.
    #[napi(catch_unwind)]
    pub fn execute(
        &self,
        #[napi(ts_arg_type = "OnceCommand")] command: Unknown,
        now_ms: Option<f64>,
    ) -> Result<String> {
        let not_a_command =
            || argument("MemoryStore.execute: command must be a command a OnceRun handed out");
        if command.get_type().coded()? != ValueType::Object {
            return Err(not_a_command());
        }
        let object = Object::from_unknown(command).coded()?;
        let command = object.unwrap::<snodo::OnceCommand>().map_err(|_| not_a_command())?;
        self.inner.execute_at(command, clock_ms(now_ms)?).map_err(core)
    }

    /// A short description (for logs).
    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> String {
        "MemoryStore".to_owned()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    #[test]
    fn constants_are_the_cores() {
        assert_eq!(u64::from(super::DEFAULT_ONCE_LEASE_SECS), snodo::DEFAULT_ONCE_LEASE_SECS);
        assert_eq!(super::DEFAULT_ONCE_MAX_BYTES as usize, snodo::DEFAULT_ONCE_MAX_BYTES);
        assert_eq!(
            super::DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL as usize,
            snodo::DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL
        );
        assert_eq!(u64::from(super::DEFAULT_CLOCK_SKEW_SECS), snodo::DEFAULT_CLOCK_SKEW_SECS);
        assert_eq!(super::ONCE_EXTEND_SCRIPT, snodo::ONCE_EXTEND_SCRIPT);
    }
}
