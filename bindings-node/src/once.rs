//! At most once per flow: the core's once machine (`OnceRun`), its `MemoryStore`, scripts and
//! constants; `once.js` drives them (every rule is the core's). A command reaches JS as a plain
//! object with the core's command wrapped in it (`napi_wrap`): the core builds commands, JS can't.

use std::time::Duration;

use napi::bindgen_prelude::*;
use snodo::{ErrorCode, OnceStore};

use crate::call::Call;
use crate::error::{Code, Coded, Result, argument, core, error};

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

/// One store command of a `OnceRun`: run `script` on `KEYS[1] = key`, `ARGV = args` (Redis), or
/// hand it to `MemoryStore.execute`; feed the reply text back.
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

/// What a `OnceRun` says to do next: a tagged object, so a TypeScript `switch (step.kind)` narrows.
// The TypeScript shape only: `step` builds the steps (a command wraps the core's).
#[napi(discriminant = "kind", discriminant_case = "lowercase", object_from_js = false)]
#[derive(Debug)]
#[allow(dead_code)]
pub enum OnceStep {
    /// Run `command` on the store and `feed` its reply.
    Command { command: OnceCommand },
    /// Another owner's claim is live: wait `ms`, then `resume`.
    Sleep { ms: f64 },
    /// This run holds the claim (`fence`; `extend` renews it, see `run.extended`): run the effect,
    /// then `effectDone(text)`, or `effectFailed()` if it failed before doing anything.
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

/// A whole JS number from `min` to 2^53 - 1 (`what` names it and its unit), else a `code` error.
pub(crate) fn whole(code: ErrorCode, what: &str, v: f64, min: f64) -> Result<u64> {
    if !v.is_finite() || v.fract() != 0.0 || !(min..=9_007_199_254_740_991.0).contains(&v) {
        return Err(error(code, format!("{what} must be a whole number, at least {min}")));
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
    /// How long to wait for another caller's pending claim before `STORE` "still running" (35 000).
    pub wait_ms: Option<f64>,
    /// `true`: a run that only looks (`checkOnce`): `done` or `open`.
    pub lookup: Option<bool>,
}

/// One run of the core's once machine for one final round (or lookup), sans IO: each method returns
/// the next `OnceStep` (`runOnce`/`checkOnce` drive it). Errors: `TOKEN` `reason 'replayed'`,
/// `STORE` (still running, claim lost, a reply snodo does not write), `ARGUMENT` (not a retry, out
/// of order).
#[napi]
#[derive(Debug)]
pub struct OnceRun {
    inner: snodo::OnceRun,
    /// The won claim's ticket (from the `effect` step), for `extended`.
    ticket: Option<snodo::OnceTicket>,
}

/// The step as its JS object (or the run's error, thrown); an `effect` step's ticket goes to `ticket`.
fn step<'e>(
    env: &'e Env,
    ticket: &mut Option<snodo::OnceTicket>,
    step: snodo::Result<snodo::OnceStep>,
) -> Result<Object<'e>> {
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
        Effect(t) => {
            kind(&mut o, "effect")?;
            o.set("fence", number(t.fence())).coded()?;
            o.set("extend", command_object(env, t.extend_command().clone())?).coded()?;
            *ticket = Some(t);
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

#[napi]
impl OnceRun {
    /// A run for the final round `call` (a retry) on a store's `prefix` and `leaseMs` (`lookup`:
    /// only looks). Throws `ARGUMENT` for a first round, `CONFIG` for a bad prefix or lease.
    #[napi(constructor, catch_unwind)]
    pub fn new(call: &Call, options: OnceRunOptions) -> Result<OnceRun> {
        let call = &call.inner;
        let lease = whole(ErrorCode::Config, "once run: leaseMs (milliseconds)", options.lease_ms, 1.0)?;
        let settings =
            snodo::OnceSettings::new(&options.prefix, Duration::from_millis(lease)).map_err(core)?;
        let inner = if options.lookup == Some(true) {
            snodo::OnceRun::lookup(call, &settings)
        } else {
            let mut wait = snodo::OnceOptions::default();
            if let Some(ms) = options.wait_ms {
                wait.wait = Duration::from_millis(whole(
                    ErrorCode::Argument,
                    "once run: waitMs (milliseconds)",
                    ms,
                    0.0,
                )?);
            }
            snodo::OnceRun::new(call, &settings, &wait)
        }
        .map_err(core)?;
        Ok(OnceRun { inner, ticket: None })
    }
    /// The first step: the claim (or the lookup) command.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn start<'e>(&mut self, env: &'e Env) -> Result<Object<'e>> {
        step(env, &mut self.ticket, self.inner.start())
    }
    /// The reply text of the last command.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn feed<'e>(&mut self, env: &'e Env, reply: String) -> Result<Object<'e>> {
        step(env, &mut self.ticket, self.inner.feed(&reply))
    }
    /// After a `sleep` step: claim again.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn resume<'e>(&mut self, env: &'e Env) -> Result<Object<'e>> {
        step(env, &mut self.ticket, self.inner.resume())
    }
    /// After the `effect` step: the effect's result text (canonical JSON), to remember; the next
    /// step is the completion command.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn effect_done<'e>(&mut self, env: &'e Env, text: String) -> Result<Object<'e>> {
        step(env, &mut self.ticket, self.inner.effect_done(text))
    }
    /// After the `effect` step: the effect failed before doing anything; the next step is the
    /// release command.
    #[napi(catch_unwind, ts_return_type = "OnceStep")]
    pub fn effect_failed<'e>(&mut self, env: &'e Env) -> Result<Object<'e>> {
        step(env, &mut self.ticket, self.inner.effect_failed())
    }
    /// Whether the `extend` command's reply says the lease held: `true` (a full lease from now),
    /// `false` (the claim is no longer this run's: stop, and do not write).
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
    /// The bytes one principal's records may take (default a quarter of 64 MiB; 1024 to `maxBytes`).
    pub max_bytes_per_principal: Option<f64>,
    /// How long a won claim holds before another caller may take it over (s; default 30, ≥ 0.001).
    pub lease_secs: Option<f64>,
}

/// Unix milliseconds: `now` if given (a whole, non-negative number), else the system clock.
fn clock_ms(now: Option<f64>) -> Result<u64> {
    match now {
        Some(v) => whole(ErrorCode::Argument, "nowMs (Unix milliseconds)", v, 0.0),
        None => Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)),
    }
}

/// The in-memory once store of one process (the core's `MemoryStore`): bounded in bytes, a share
/// per principal, expiring; it runs a `OnceRun`'s commands as the Redis scripts do.
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
        let bytes = |what, v: Option<f64>| -> Result<Option<usize>> {
            let n = v.map(|v| whole(ErrorCode::Config, what, v, 0.0)).transpose()?;
            Ok(n.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
        };
        let max_bytes =
            bytes("MemoryStore: maxBytes", options.max_bytes)?.unwrap_or(snodo::DEFAULT_ONCE_MAX_BYTES);
        let per_principal = bytes("MemoryStore: maxBytesPerPrincipal", options.max_bytes_per_principal)?
            .unwrap_or(snodo::DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL.min(max_bytes));
        let lease = match options.lease_secs {
            Some(v) => Duration::from_millis(whole(
                ErrorCode::Config,
                "MemoryStore: leaseSecs × 1000",
                (v * 1000.0).round(),
                1.0,
            )?),
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
    /// Runs a `OnceRun`'s command; returns the reply text. `nowMs` (Unix ms) defaults to the system
    /// clock. Throws `STORE` when full, `ARGUMENT` for anything but a `OnceRun`'s command.
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
