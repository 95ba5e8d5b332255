//! `snodo_config`: the engine configuration under construction.
//!
//! Every numeric limit goes through the core's one schema (`snodo::LIMITS`, `Config::set_limit`):
//! `snodo_config_set_limit` takes any limit by its snake_case name, and each typed setter is that call with
//! the name spelled once. Ranges are the core's, checked by `snodo_engine_new` (CONFIG, naming the field).
//!
//! The test-only settings (`snodo_config_set_fixed_time` and the limit `test_random_seed`) take effect only
//! in a build with the cargo feature `test-knobs` (the test suites'); any other build refuses them with
//! CONFIG, so an installed libsnodo never stops its clock or predicts its token ids and v2 nonces.

use snodo::{Config, Key};

use crate::error::{Fail, snodo_status};
use crate::ffi::{bytes, free_handle, guard, handle_mut, json_opt, make, string_list, text, text_opt};

/// An engine configuration under construction: `snodo_config_new`, the setters, then `snodo_engine_new`
/// (which does not consume it). Not shareable across threads.
#[derive(Debug)]
pub struct snodo_config {
    pub(crate) inner: Config,
    versions_set: bool,
}

/// A configuration with no keys and every default (ttl 300 s, 16 rounds, flow age 3600 s, 16 KiB tokens, 4
/// MiB requests, 64 input responses, versions `["2026-07-28"]`, skew 60 s, lenient answers, no audience,
/// system clock).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_new(out: *mut *mut snodo_config) -> snodo_status {
    unsafe { make(out, || Ok(snodo_config { inner: Config::new(Vec::new()), versions_set: false })) }
}

/// Frees a configuration. Engines built from it stay valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_free(config: *mut snodo_config) {
    unsafe { free_handle(config) }
}

/// Runs `f` on the config behind `config` inside the panic boundary.
unsafe fn with(
    config: *mut snodo_config,
    f: impl FnOnce(&mut snodo_config) -> Result<(), Fail>,
) -> snodo_status {
    guard(|| f(unsafe { handle_mut(config, "config") }?))
}

/// Adds a key to the ring: `id` (1 to 32 bytes of `A-Z a-z 0-9 _ -`) and `secret` (32 to 1024 random bytes,
/// copied, zeroized when the engine is freed). The first key added signs; all verify; at most 8 keys (a ninth
/// is CONFIG from `snodo_engine_new`). Statuses: OK, CONFIG.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_add_key(
    config: *mut snodo_config,
    id: *const u8,
    id_len: usize,
    secret: *const u8,
    secret_len: usize,
) -> snodo_status {
    unsafe {
        with(config, |c| {
            let key = Key::new(text(id, id_len, "id")?, bytes(secret, secret_len, "secret")?.to_vec())?;
            c.inner.keys.push(key);
            Ok(())
        })
    }
}

/// Replaces the config's keys with the ring in the environment variable `name` (NULL: `SNODO_KEYS`): `id:hex`
/// or `id:base64` entries, comma-separated, the first signs. On failure the config is unchanged and the last
/// error names the bad entry by position and id (never key bytes), or says the variable is not set. Call it
/// at start-up (a concurrent `setenv` is unsafe). Statuses: OK, CONFIG, INVALID_UTF8.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_keys_from_env(
    config: *mut snodo_config,
    name: *const u8,
    name_len: usize,
) -> snodo_status {
    unsafe {
        with(config, |c| {
            let name = text_opt(name, name_len, "name")?.unwrap_or(snodo::KEYS_ENV);
            c.inner.keys = Config::from_env_var(name)?.keys;
            Ok(())
        })
    }
}

/// Sets the limit `name` (snake_case, from the core's `LIMITS`: `ttl_secs`, `max_rounds`,
/// `max_flow_age_secs`, `max_token_bytes`, `max_request_bytes`, `max_input_responses`, `clock_skew_secs`,
/// `token_version` (1 or 2, default 1), `min_token_version` (1 or 2, default 1: 2 refuses v1 tokens, reason
/// `version`)); each typed setter below is this call. `snodo_engine_new` checks the range. `test_random_seed`
/// (tests: token ids and v2 nonces from the seed) is refused as `snodo_config_set_fixed_time` is. Statuses:
/// OK, CONFIG (unknown name, a test-only name, a value too large for the field).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_limit(
    config: *mut snodo_config,
    name: *const u8,
    name_len: usize,
    value: u64,
) -> snodo_status {
    unsafe { with(config, |c| limit(&mut c.inner, text(name, name_len, "name")?, value)) }
}

/// `Config::set_limit`, but for the test-only seed in a build without the test knobs, where the core would
/// only say "unknown configuration limit".
fn limit(config: &mut Config, name: &str, value: u64) -> Result<(), Fail> {
    #[cfg(not(feature = "test-knobs"))]
    if ["test_random_seed", "testRandomSeed"].contains(&name) {
        return Err(test_only(name));
    }
    Ok(config.set_limit(name, value)?)
}

/// The refusal of a test-only setting by a build without the test knobs.
#[cfg(not(feature = "test-knobs"))]
fn test_only(name: &str) -> Fail {
    let why = "a test-only setting, absent from this build (libsnodo was built without the cargo feature \
               test-knobs)";
    Fail::new(snodo_status::Config, format!("{name}: {why}"))
}

/// Bytes only a library built with the test knobs holds: scripts/install.sh looks for them and refuses to
/// install such a library (kept in the binary by `snodo_config_set_fixed_time`).
#[cfg(feature = "test-knobs")]
static TEST_BUILD_MARKER: &[u8] = b"libsnodo built with test-knobs: for test suites only";

/// One typed setter: `Config::set_limit` with the name spelled once.
unsafe fn set_limit(config: *mut snodo_config, name: &str, value: u64) -> snodo_status {
    unsafe { with(config, |c| limit(&mut c.inner, name, value)) }
}

/// Sets the token lifetime in seconds (`ttl_secs`: 1 to 900, default 300).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_ttl_secs(config: *mut snodo_config, value: u64) -> snodo_status {
    unsafe { set_limit(config, "ttl_secs", value) }
}

/// Sets the most rounds per flow (`max_rounds`: 1 to 1000, default 16).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_rounds(config: *mut snodo_config, value: u32) -> snodo_status {
    unsafe { set_limit(config, "max_rounds", u64::from(value)) }
}

/// Sets the oldest a flow may get in seconds (`max_flow_age_secs`: at least the ttl, at most 604800; default
/// 3600).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_flow_age_secs(
    config: *mut snodo_config,
    value: u64,
) -> snodo_status {
    unsafe { set_limit(config, "max_flow_age_secs", value) }
}

/// Sets the largest token issued or accepted (`max_token_bytes`: 256 to 1048576, default 16384).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_token_bytes(
    config: *mut snodo_config,
    value: usize,
) -> snodo_status {
    unsafe { set_limit(config, "max_token_bytes", value as u64) }
}

/// Sets the largest request `snodo_engine_begin` reads (`max_request_bytes`: 1024 to 67108864, default
/// 4194304).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_request_bytes(
    config: *mut snodo_config,
    value: usize,
) -> snodo_status {
    unsafe { set_limit(config, "max_request_bytes", value as u64) }
}

/// Sets the most `inputResponses` entries accepted (`max_input_responses`: 1 to 4096, default 64).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_max_input_responses(
    config: *mut snodo_config,
    value: usize,
) -> snodo_status {
    unsafe { set_limit(config, "max_input_responses", value as u64) }
}

/// Sets the tolerated clock skew for tokens issued in the future (`clock_skew_secs`: 0 to 300, default 60).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_clock_skew_secs(
    config: *mut snodo_config,
    value: u64,
) -> snodo_status {
    unsafe { set_limit(config, "clock_skew_secs", value) }
}

/// Adds a supported protocol version (`YYYY-MM-DD`, checked by `snodo_engine_new`). The first call replaces
/// the default list `["2026-07-28"]`; later calls append. MRTR is on for versions from 2026-07-28 on and off
/// for earlier ones.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_add_supported_version(
    config: *mut snodo_config,
    version: *const u8,
    version_len: usize,
) -> snodo_status {
    unsafe {
        with(config, |c| {
            let version = text(version, version_len, "version")?;
            // C builds the list one call at a time, so the first call has to drop the default rather than
            // append to it.
            if !std::mem::replace(&mut c.versions_set, true) {
                c.inner.supported_versions.clear();
            }
            c.inner.supported_versions.push(version.to_owned());
            Ok(())
        })
    }
}

/// Sets `io.modelcontextprotocol/serverInfo`, a JSON object stamped on every result's `_meta` (not an object:
/// CONFIG from `snodo_engine_new`). NULL removes it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_server_info(
    config: *mut snodo_config,
    info: *const u8,
    info_len: usize,
) -> snodo_status {
    unsafe { with(config, |c| json_opt(info, info_len, "info").map(|v| c.inner.server_info = v)) }
}

/// `strict_answers` (default false). False: an answer sent without a `requestState` counts for the question
/// the handler passes to `snodo_call_response`, validated against it. True: only questions pinned by a
/// verified token count.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_strict_answers(
    config: *mut snodo_config,
    value: bool,
) -> snodo_status {
    unsafe {
        with(config, |c| {
            c.inner.strict_answers = value;
            Ok(())
        })
    }
}

/// `audience`: this service's name, bound into every token so that a token never opens at another service
/// sharing a key by mistake; NULL (the default) binds none. Checked by `snodo_engine_new` (1 to 256 bytes, no
/// control characters: CONFIG).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_audience(
    config: *mut snodo_config,
    audience: *const u8,
    audience_len: usize,
) -> snodo_status {
    unsafe {
        with(config, |c| {
            text_opt(audience, audience_len, "audience").map(|a| c.inner.audience = a.map(Into::into))
        })
    }
}

/// **Tests only**: fixes the engine clock at `now` Unix seconds (tokens then never expire), for the shared
/// vectors. Takes effect only in a libsnodo built with the cargo feature `test-knobs` (the test suites'); any
/// other build, `make install`'s included, answers CONFIG ("a test-only setting, absent from this build") and
/// leaves the config unchanged. Statuses: OK (`test-knobs` builds only), CONFIG.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_fixed_time(config: *mut snodo_config, now: u64) -> snodo_status {
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

/// The 2025-era revisions accepted on a legacy session (`legacy_versions`), as JSON text of an array of
/// strings, e.g. `["2025-11-25","2025-06-18"]`; `[]` disables legacy serving. Default: the three 2025
/// revisions. Each date is checked by `snodo_engine_new`. Statuses: OK, CONFIG (not an array of strings).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_config_set_legacy_versions(
    config: *mut snodo_config,
    versions: *const u8,
    versions_len: usize,
) -> snodo_status {
    unsafe {
        with(config, |c| {
            string_list(versions, versions_len, "legacy_versions").map(|v| c.inner.legacy_versions = v)
        })
    }
}
