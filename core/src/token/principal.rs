//! [`Principal`]: who makes a request, and the keyed tag a token carries
//! instead of the name.

use std::fmt;
use std::sync::Arc;

use hmac::Mac;

use crate::error::{Error, ErrorCode, Result};

use super::*;

/// Bytes of the principal tag kept in the token.
pub(crate) const PRINCIPAL_TAG_BYTES: usize = 16;

/// The message of every empty-principal refusal, in every language.
pub const EMPTY_PRINCIPAL_MESSAGE: &str = "principal: empty name; use the anonymous principal";

/// Who is making a request, as the application verified it.
///
/// Opaque and validated: built only by [`Principal::anonymous`],
/// [`Principal::user`] or [`Principal::from_option`], so an empty name can
/// never reach a token.
#[derive(Clone, PartialEq, Eq)]
pub struct Principal {
    /// `None` is the explicit anonymous principal. Shared, not copied:
    /// every `Call` keeps a clone of the principal it was begun with, and
    /// a clone is then a count, not an allocation per request.
    name: Option<Arc<str>>,
}

impl Principal {
    /// No authenticated user (for example a local stdio server). Explicit, and
    /// distinct from every named principal.
    pub fn anonymous() -> Principal {
        Principal { name: None }
    }

    /// An authenticated principal, such as an OAuth `sub` (optionally with the
    /// issuer or client id folded in by the application). An empty name is
    /// `ARGUMENT` (use [`Principal::anonymous`]).
    pub fn user(name: impl Into<String>) -> Result<Principal> {
        let name = name.into();
        if name.is_empty() {
            return Err(Error::new(ErrorCode::Argument, EMPTY_PRINCIPAL_MESSAGE));
        }
        Ok(Principal { name: Some(name.into()) })
    }

    /// The one conversion every binding uses for its principal argument:
    /// `None` (C `NULL`, Python `None`, JS `null`) is anonymous, a non-empty
    /// string a user, an empty string `ARGUMENT`. The argument itself is
    /// required in every language; only its value may be "anonymous".
    pub fn from_option(name: Option<&str>) -> Result<Principal> {
        match name {
            None => Ok(Principal::anonymous()),
            Some(n) => Principal::user(n),
        }
    }

    /// The user's name, or `None` for the anonymous principal.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Whether this is the anonymous principal.
    pub fn is_anonymous(&self) -> bool {
        self.name.is_none()
    }
}

// The principal is personal data: keep it out of logs by default.
impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name {
            None => f.write_str("Principal::Anonymous"),
            Some(_) => f.write_str("Principal::User(..)"),
        }
    }
}

pub(crate) fn principal_tag(mac: &HmacSha256, principal: &Principal) -> [u8; PRINCIPAL_TAG_BYTES] {
    let mut m = mac.clone();
    match principal.name() {
        None => m.update(b"snodo/v1/principal\0anonymous"),
        Some(name) => {
            m.update(b"snodo/v1/principal\0user\0");
            m.update(name.as_bytes());
        }
    }
    let full = m.finalize().into_bytes();
    let mut out = [0u8; PRINCIPAL_TAG_BYTES];
    // The tag is the first PRINCIPAL_TAG_BYTES of the 32-byte MAC.
    const _: () = assert!(PRINCIPAL_TAG_BYTES <= 32);
    for (o, f) in out.iter_mut().zip(full) {
        *o = f;
    }
    out
}
