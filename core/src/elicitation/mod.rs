//! Builders for input requests, their validation, and reading the answers.
//!
//! An input request is the `{method, params}` object a server puts under a
//! key of `inputRequests` in an `input_required` result; a [`Question`] is
//! one, validated, as an immutable value. Builders refuse anything a
//! conforming client could not act on, and [`validate_input_request`]
//! applies exactly the same checks to a request a handler built by hand.
//! [`read_answer`] reads the client's answer to one request and checks it
//! against the question that was asked.
//!
//! Sampling and roots are deprecated in 2026-07-28 but still part of the
//! protocol, so they are built and validated like the rest.

mod build;
mod lint;
mod question;
mod read;
mod sampling;
#[cfg(test)]
mod tests;
mod url;
mod validate;

pub use build::*;
pub use question::Question;
pub use read::*;
pub(crate) use sampling::*;
pub use url::*;
pub use validate::*;
