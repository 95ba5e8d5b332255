//! `snodo_config`: the engine configuration under construction.
//!
//! Every numeric limit goes through the core's one schema
//! (`snodo::LIMITS`, `Config::set_limit`): `snodo_config_set_limit` takes
//! any limit by its snake_case name, and each typed setter is that call
//! with the name spelled once. Ranges are the core's, checked by
//! `snodo_engine_new` (CONFIG, naming the field in snake_case). Adding a
//! limit to the core needs no change here (`snodo_config_set_limit`), or
//! one typed setter at most.
//!
//! The test-only settings (`snodo_config_set_fixed_time` and the limit
//! `test_random_seed`) take effect only in a build with the cargo feature
//! `test-knobs` (the test suites'); any other build refuses them with
//! CONFIG, so an installed libsnodo never stops its clock or predicts its
//! token ids and v2 nonces.

use snodo::{Config, Key};

use crate::error::{Fail, snodo_status};
use crate::ffi::{Out, bytes, guard, guard_void, into_handle, json_opt, text};

/// An engine configuration under construction. Create with
/// `snodo_config_new`, adjust with the setters, build engines with
/// `snodo_engine_new` (the config is not consumed), free with
/// `snodo_config_free`. Not thread-safe: use one config from one thread at a time.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct snodo_config {
    pub(crate) inner: Config,
    versions_set: bool,
}

/// Creates a configuration with no keys and every default (ttl 300 s, 16
/// rounds, flow age 3600 s, 16 KiB tokens, 4 MiB requests, 64 input
/// responses, versions `["2026-07-28"]`, skew 60 s, lenient answers, no
/// audience, system clock).
///
/// On OK `*out` owns a new config: free it with `snodo_config_free`.
/// Statuses: OK, NULL_ARGUMENT (`out` NULL), PANIC. Thread-safe.
///
/// # Safety
///
/// `out` must be NULL or valid for one pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_new(out: *mut *mut snodo_config) -> snodo_status {
    guard(|| {
        let out = Out::new(out, "out")?;
        let config = snodo_config { inner: Config::new(Vec::new()), versions_set: false };
        // SAFETY: caller contract.
        unsafe { out.write(into_handle(config)) };
        Ok(())
    })
}

/// Frees a configuration. NULL is a no-op. Engines built from it stay valid.
///
/// # Safety
///
/// `config` must be NULL or a config from `snodo_config_new`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_free(config: *mut snodo_config) {
    // SAFETY: caller contract.
    guard_void(|| unsafe { crate::ffi::free_handle(config) });
}

/// Mutably borrows a config handle.
///
/// # Safety
///
/// `ptr` must be NULL or a live config not used by another thread.
unsafe fn config_mut<'a>(ptr: *mut snodo_config) -> Result<&'a mut snodo_config, Fail> {
    // SAFETY: per the contract, non-NULL is a live, exclusively used config.
    unsafe { ptr.as_mut() }.ok_or_else(|| Fail::null("config"))
}

/// Runs `f` on the config behind `config` inside the panic boundary.
///
/// # Safety
///
/// `config` must be NULL or a live config.
unsafe fn with(
    config: *mut snodo_config,
    f: impl FnOnce(&mut snodo_config) -> Result<(), Fail>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        f(unsafe { config_mut(config) }?)
    })
}

/// Adds a key to the ring: `id` (1 to 32 bytes of `A-Z a-z 0-9 _ -`) and
/// `secret` (32 to 1024 random bytes). The first key added signs; all
/// verify; at most 8 keys (a ninth is CONFIG from `snodo_engine_new`). The
/// bytes are copied (and zeroized when the engine is freed).
///
/// Statuses: OK, CONFIG (bad id or secret length), NULL_ARGUMENT,
/// INVALID_UTF8 (`id`), PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` a live config; `id` valid for `id_len` bytes; `secret` valid
/// for `secret_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_add_key(
    config: *mut snodo_config,
    id: *const u8,
    id_len: usize,
    secret: *const u8,
    secret_len: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        with(config, |c| {
            let id = text(id, id_len, "id")?;
            let secret = bytes(secret, secret_len, "secret")?;
            c.inner.keys.push(Key::new(id, secret.to_vec())?);
            Ok(())
        })
    }
}

/// Sets the numeric limit `name` (its snake_case name in the core's
/// `LIMITS` table: `ttl_secs`, `max_rounds`, `max_flow_age_secs`,
/// `max_token_bytes`, `max_request_bytes`, `max_input_responses`,
/// `clock_skew_secs`, `token_version` (1 or 2, default 1),
/// `min_token_version` (1 or 2, default 1: 2 refuses v1 tokens, reason
/// `version`; at most `token_version`)) to `value`. The typed setters
/// below are this call. The range is checked by `snodo_engine_new`
/// (CONFIG naming the field).
///
/// `test_random_seed` (tests only: non-zero derives token ids and v2
/// nonces from the seed) is accepted only by a libsnodo built with the
/// cargo feature `test-knobs`; any other build answers CONFIG, "a
/// test-only setting, absent from this build".
///
/// Statuses: OK, CONFIG (unknown name, a test-only name in a build without
/// `test-knobs`, or a value too large for the field), INVALID_UTF8,
/// NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` a live config; `name` valid for `name_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_limit(
    config: *mut snodo_config,
    name: *const u8,
    name_len: usize,
    value: u64,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        with(config, |c| {
            let name = text(name, name_len, "name")?;
            limit(&mut c.inner, name, value)
        })
    }
}

/// `Config::set_limit`, but for the test-only seed in a build without the
/// test knobs, where the core would only say "unknown configuration limit".
fn limit(config: &mut Config, name: &str, value: u64) -> Result<(), Fail> {
    #[cfg(not(feature = "test-knobs"))]
    if TEST_RANDOM_SEED.contains(&name) {
        return Err(test_only(name));
    }
    Ok(config.set_limit(name, value)?)
}

/// The seed's two spellings (the core's `set_limit` reads either).
#[cfg(not(feature = "test-knobs"))]
const TEST_RANDOM_SEED: [&str; 2] = ["test_random_seed", "testRandomSeed"];

/// The refusal of a test-only setting by a build without the test knobs.
#[cfg(not(feature = "test-knobs"))]
fn test_only(name: &str) -> Fail {
    Fail::new(
        snodo_status::Config,
        format!(
            "{name}: a test-only setting, absent from this build (libsnodo was built without the cargo \
             feature test-knobs)"
        ),
    )
}

/// Bytes only a library built with the test knobs holds:
/// scripts/install.sh looks for them and refuses to install such a
/// library (kept in the binary by `snodo_config_set_fixed_time`).
#[cfg(feature = "test-knobs")]
static TEST_BUILD_MARKER: &[u8] = b"libsnodo built with test-knobs: for test suites only";

/// One typed setter: `Config::set_limit` with the name spelled once.
///
/// # Safety
///
/// `config` must be NULL or a live config.
unsafe fn set_limit(config: *mut snodo_config, name: &str, value: u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { with(config, |c| limit(&mut c.inner, name, value)) }
}

/// Sets the token lifetime in seconds (`ttl_secs`: 1 to 900, default 300).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_ttl_secs(config: *mut snodo_config, value: u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set_limit(config, "ttl_secs", value) }
}

/// Sets the most rounds per flow (`max_rounds`: 1 to 1000, default 16).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_rounds(config: *mut snodo_config, value: u32) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set_limit(config, "max_rounds", u64::from(value)) }
}

/// Sets the oldest a flow may get in seconds (`max_flow_age_secs`: at
/// least the ttl, at most 604800; default 3600).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_flow_age_secs(
    config: *mut snodo_config,
    value: u64,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set_limit(config, "max_flow_age_secs", value) }
}

/// Sets the largest token issued or accepted (`max_token_bytes`: 256 to
/// 1048576 bytes, default 16384).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_token_bytes(
    config: *mut snodo_config,
    value: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set_limit(config, "max_token_bytes", value as u64) }
}

/// Sets the largest request `snodo_engine_begin` reads
/// (`max_request_bytes`: 1024 to 67108864 bytes, default 4194304).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_request_bytes(
    config: *mut snodo_config,
    value: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set_limit(config, "max_request_bytes", value as u64) }
}

/// Sets the most `inputResponses` entries accepted
/// (`max_input_responses`: 1 to 4096, default 64).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_input_responses(
    config: *mut snodo_config,
    value: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set_limit(config, "max_input_responses", value as u64) }
}

/// Sets the tolerated clock skew for tokens issued in the future
/// (`clock_skew_secs`: 0 to 300 s, default 60).
/// Checked by `snodo_engine_new` (CONFIG when out of range).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_clock_skew_secs(
    config: *mut snodo_config,
    value: u64,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe { set_limit(config, "clock_skew_secs", value) }
}

/// Adds a supported protocol version (`YYYY-MM-DD`). The first call replaces
/// the default list `["2026-07-28"]`; later calls append. MRTR is on for
/// versions from 2026-07-28 on and off for earlier ones.
///
/// Statuses: OK, NULL_ARGUMENT, INVALID_UTF8, PANIC (the format is checked
/// by `snodo_engine_new`: CONFIG). Not thread-safe for one config.
///
/// # Safety
///
/// `config` a live config; `version` valid for `version_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_add_supported_version(
    config: *mut snodo_config,
    version: *const u8,
    version_len: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        with(config, |c| {
            let version = text(version, version_len, "version")?;
            // C builds the list one call at a time, so the first call has to
            // drop the default rather than append to it.
            if !c.versions_set {
                c.inner.supported_versions.clear();
                c.versions_set = true;
            }
            c.inner.supported_versions.push(version.to_owned());
            Ok(())
        })
    }
}

/// Sets `io.modelcontextprotocol/serverInfo`, a JSON object stamped on every
/// result's `_meta`. NULL removes it.
///
/// Statuses: OK, NULL_ARGUMENT (`config` NULL), INVALID_UTF8, JSON, PANIC
/// (not an object: CONFIG from `snodo_engine_new`). Not thread-safe for one config.
///
/// # Safety
///
/// `config` a live config; `info` NULL or valid for `info_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_server_info(
    config: *mut snodo_config,
    info: *const u8,
    info_len: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        with(config, |c| {
            c.inner.server_info = json_opt(info, info_len, "info")?;
            Ok(())
        })
    }
}

/// `strict_answers` (issue 13; default false). False: an answer sent
/// without a `requestState` counts for the question the handler passes to
/// `snodo_call_response`, validated against it. True: only questions pinned
/// by a verified token count (the behaviour before issue 13).
///
/// Statuses: OK, NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_strict_answers(
    config: *mut snodo_config,
    value: bool,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        with(config, |c| {
            c.inner.strict_answers = value;
            Ok(())
        })
    }
}

/// `audience` (issue 13): this service's name, bound into every token so
/// that a token never opens at another service sharing a key by mistake.
/// NULL removes it (the default: tokens as before). Checked by
/// `snodo_engine_new` (1 to 256 bytes, no control characters: CONFIG).
///
/// Statuses: OK, NULL_ARGUMENT (`config` NULL), INVALID_UTF8, PANIC. Not
/// thread-safe for one config.
///
/// # Safety
///
/// `config` a live config; `audience` NULL or valid for `audience_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_audience(
    config: *mut snodo_config,
    audience: *const u8,
    audience_len: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        with(config, |c| {
            c.inner.audience = if audience.is_null() {
                None
            } else {
                Some(text(audience, audience_len, "audience")?.to_owned())
            };
            Ok(())
        })
    }
}

/// **Tests only**: fixes the engine clock at `now` Unix seconds (tokens
/// then never expire), for the shared vectors. Takes effect only in a
/// libsnodo built with the cargo feature `test-knobs` (the test suites');
/// any other build, `make install`'s included, answers CONFIG ("a
/// test-only setting, absent from this build") and leaves the config
/// unchanged. A server never needs it.
///
/// Statuses: OK (`test-knobs` builds only), CONFIG, NULL_ARGUMENT, PANIC.
/// Not thread-safe for one config.
///
/// # Safety
///
/// `config` must be NULL or a live config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_fixed_time(config: *mut snodo_config, now: u64) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        with(config, |c| {
            #[cfg(feature = "test-knobs")]
            {
                std::hint::black_box(TEST_BUILD_MARKER);
                c.inner = c.inner.clone().fixed_time(now);
                Ok(())
            }
            #[cfg(not(feature = "test-knobs"))]
            {
                let _ = (c, now);
                Err(test_only("fixed_time"))
            }
        })
    }
}

/// Issue 14: the 2025-era revisions accepted on a legacy session
/// (`legacy_versions`), as JSON text of an array of strings, e.g.
/// `["2025-11-25","2025-06-18"]`; `[]` disables legacy serving. Default:
/// the three 2025 revisions. A JSON array rather than one call per version
/// (as `snodo_config_add_supported_version`) so that the empty list is
/// expressible. Each date is checked by `snodo_engine_new` (CONFIG).
///
/// Statuses: OK, CONFIG (not an array of strings), JSON, INVALID_UTF8,
/// NULL_ARGUMENT, PANIC. Not thread-safe for one config.
///
/// # Safety
///
/// `config` a live config; `versions` valid for `versions_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_legacy_versions(
    config: *mut snodo_config,
    versions: *const u8,
    versions_len: usize,
) -> snodo_status {
    // SAFETY: caller contract.
    unsafe {
        with(config, |c| {
            let list = crate::ffi::json(versions, versions_len, "versions")?;
            let bad = || Fail::new(snodo_status::Config, "legacy_versions: must be a JSON array of strings");
            let items = list.as_array().ok_or_else(bad)?;
            let names = items.iter().map(|v| v.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>();
            c.inner.legacy_versions = names.ok_or_else(bad)?;
            Ok(())
        })
    }
}
