//! `Question`: an input request as an immutable value (the core's `snodo::Question`), what the
//! builders return and what `call.response`, `inputRequired` and `engine.seal` take.

use napi::ValueType;
use napi::bindgen_prelude::*;

use crate::error::{Result, core};
use crate::json;

/// An input request, validated once, with its canonical text and pinned digest. Build it once and
/// pass it every round (`inputRequired`, `call.response`). Immutable; `JSON.stringify` gives it.
#[napi]
#[derive(Debug, Clone)]
pub struct Question {
    pub(crate) inner: snodo::Question,
}

#[napi]
impl Question {
    /// A question from a request written by hand: an object, or JSON text (read exactly), validated
    /// as the builders validate theirs (`INPUT_REQUEST`, `SCHEMA`, `URL`, `SAMPLING`, `JSON`).
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        #[napi(ts_arg_type = "object | string | Buffer")] request: Unknown,
    ) -> Result<Question> {
        Ok(Question { inner: question_arg(&env, request)? })
    }
    /// The request as a plain object (a new one on every read).
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn value<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        json::parse_to_js(env, self.inner.to_json())
    }
    /// Its canonical JSON text, which is also compact JSON for the wire.
    #[napi(getter, catch_unwind)]
    pub fn json(&self) -> String {
        self.inner.to_json().to_owned()
    }
    /// `form` or `url` (elicitation), `sampling` or `roots`.
    #[napi(getter, catch_unwind, ts_return_type = "'form' | 'url' | 'sampling' | 'roots'")]
    pub fn kind(&self) -> &'static str {
        self.inner.kind().name()
    }
    /// SHA-256 of the canonical text: what a token pins for it.
    #[napi(getter, catch_unwind)]
    pub fn digest(&self) -> Buffer {
        self.inner.digest().to_vec().into()
    }
    /// The request as a plain object: what `JSON.stringify` writes.
    #[napi(js_name = "toJSON", catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn to_json<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        self.value(env)
    }
}

/// The core's question held by `value`, if `value` is a `Question`.
pub(crate) fn instance(value: Unknown<'_>) -> Option<snodo::Question> {
    if value.get_type().ok()? != ValueType::Object {
        return None;
    }
    // Fails for any object napi-rs did not wrap as a `Question` (it checks the class it recorded
    // when wrapping).
    ClassInstance::<Question>::from_unknown(value).ok().map(|q| q.inner.clone())
}

/// A question argument: a `Question` as it is; an object or JSON text made one by the core, which
/// refuses an invalid request as the builders do.
pub(crate) fn question_arg(env: &Env, value: Unknown) -> Result<snodo::Question> {
    if let Some(q) = instance(value) {
        return Ok(q);
    }
    snodo::Question::from_json(json::text_of(env, value, "question")?).map_err(core)
}

/// A builder's question as the JS object it returns.
pub(crate) fn made(built: snodo::Result<snodo::Question>) -> Result<Question> {
    built.map(|inner| Question { inner }).map_err(core)
}
