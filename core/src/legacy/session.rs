//! What a 2025-era session negotiated at `initialize`: the [`Session`]
//! descriptor the application records once per session and hands to every
//! `begin_legacy`.

use serde_json::{Map, Value, json};

use crate::error::{Error, ErrorCode, Result};
use crate::response::Response;
use crate::token::Principal;

/// Longest session id accepted, bytes.
pub const MAX_SESSION_ID_BYTES: usize = 128;

/// A 2025-era session: the protocol revision it negotiated, the client's
/// capabilities and client info from its `initialize`, the principal that
/// opened it, and an id that makes the bridge's request ids and
/// `elicitationId`s unique across sessions. Immutable; cheap to clone;
/// `Send + Sync`.
///
/// A session belongs to its principal: a call on it from another
/// principal is refused as if the session did not exist
/// ([`Session::check_principal`]), so that whoever learns a session id
/// cannot answer, cancel or call on another user's session.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    id: String,
    protocol_version: String,
    capabilities: Value,
    client_info: Option<Value>,
    principal: Principal,
}

fn arg(message: String) -> Error {
    Error::new(ErrorCode::Argument, message)
}

fn random_id() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|_| arg("session: no system randomness for the session id".into()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Session {
    /// A session that negotiated `protocol_version` (the version the server
    /// answered in its `initialize` result), with the client's
    /// `capabilities` (an object) and optional `client_info` (an object),
    /// opened by `principal` (the verified user of the `initialize`
    /// request, or the explicit anonymous principal). Its id is random;
    /// set the transport's own with [`Session::with_id`]. Whether the
    /// version is accepted is the engine's decision, at `begin_legacy`.
    /// Errors (`ARGUMENT`) name the offending field.
    pub fn new(
        protocol_version: &str,
        capabilities: Value,
        client_info: Option<Value>,
        principal: &Principal,
    ) -> Result<Session> {
        if protocol_version.is_empty() || protocol_version.len() > 32 {
            return Err(arg("session: protocolVersion must be 1 to 32 bytes".into()));
        }
        if !capabilities.is_object() {
            return Err(arg("session: capabilities must be an object".into()));
        }
        for cap in ["elicitation", "sampling", "roots"] {
            if capabilities.get(cap).is_some_and(|c| !c.is_object()) {
                return Err(arg(format!("session: capabilities.{cap} must be an object")));
            }
        }
        if client_info.as_ref().is_some_and(|i| !i.is_object()) {
            return Err(arg("session: clientInfo must be an object".into()));
        }
        Ok(Session {
            id: random_id()?,
            protocol_version: protocol_version.to_owned(),
            capabilities,
            client_info,
            principal: principal.clone(),
        })
    }

    /// A session from the client's `initialize` request (the whole message
    /// or its `params`), with `negotiated` the version the server answered
    /// (see [`Engine::legacy_version_for`](crate::Engine::legacy_version_for)),
    /// opened by `principal`.
    pub fn from_initialize(initialize: &Value, negotiated: &str, principal: &Principal) -> Result<Session> {
        let params = match initialize.get("method") {
            Some(m) if m == "initialize" => initialize.get("params").unwrap_or(&Value::Null),
            Some(_) => return Err(arg("session: not an initialize request".into())),
            None => initialize,
        };
        let Value::Object(p) = params else {
            return Err(arg("session: initialize params must be an object".into()));
        };
        let capabilities = p.get("capabilities").cloned().unwrap_or_else(|| Value::Object(Map::new()));
        Session::new(negotiated, capabilities, p.get("clientInfo").cloned(), principal)
    }

    /// The same session with the transport's id (the `Mcp-Session-Id` the
    /// server issued, or any unique string for a stdio connection): 1 to
    /// 128 printable ASCII bytes.
    pub fn with_id(mut self, id: &str) -> Result<Session> {
        if id.is_empty() || id.len() > MAX_SESSION_ID_BYTES || !id.bytes().all(|b| (0x21..=0x7e).contains(&b))
        {
            return Err(arg(format!(
                "session: id must be 1 to {MAX_SESSION_ID_BYTES} printable ASCII bytes"
            )));
        }
        id.clone_into(&mut self.id);
        Ok(self)
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }
    /// The capabilities the client declared at `initialize`, as given.
    pub fn client_capabilities(&self) -> &Value {
        &self.capabilities
    }
    /// The client info from `initialize`, if any. Informational only.
    pub fn client_info(&self) -> Option<&Value> {
        self.client_info.as_ref()
    }
    /// The principal that opened the session.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// Checks that a message on this session (a call, an answer, a
    /// cancellation, a GET or DELETE of the session) comes from the
    /// principal that opened it: `None` to go on, else the refusal to send,
    /// HTTP 404 with `-32001` "Session not found" and no id, as for a
    /// session that does not exist (so a session id learned by someone else
    /// neither works nor confirms that it exists). `begin_legacy` applies
    /// it to calls itself; a server applies it to every message it routes
    /// to the session.
    pub fn check_principal(&self, principal: &Principal) -> Option<Response> {
        (self.principal != *principal).then(|| session_not_found(Value::Null))
    }

    /// The capabilities this session can actually use: the declared ones
    /// minus what its revision lacks (see [`usable_capabilities`]). This is
    /// what a legacy [`Call`](crate::Call) reports and what admission checks.
    pub fn usable_capabilities(&self) -> Value {
        usable_capabilities(&self.capabilities, &self.protocol_version)
    }

    /// The 2025-11-25 `notifications/elicitation/complete` for
    /// `elicitation_id` (from [`PendingFlow::elicitation_ids`](crate::PendingFlow::elicitation_ids)),
    /// to send when the out-of-band interaction of a URL elicitation
    /// completes. `ARGUMENT` when the session cannot receive it (revision
    /// before 2025-11-25 or no `elicitation.url` capability) or the id is
    /// empty.
    pub fn elicitation_complete(&self, elicitation_id: &str) -> Result<Value> {
        if elicitation_id.is_empty() {
            return Err(arg("elicitation_complete: elicitationId must not be empty".into()));
        }
        let caps = self.usable_capabilities();
        if caps.get("elicitation").and_then(|e| e.get("url")).is_none() {
            return Err(arg(
                "elicitation_complete: this session cannot receive URL elicitation (needs 2025-11-25 and elicitation.url)"
                    .into(),
            ));
        }
        Ok(json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
            "params": {"elicitationId": elicitation_id}}))
    }
}

/// The answer to a message on a session that is not the sender's.
pub(crate) fn session_not_found(id: Value) -> Response {
    Response::error(id, -32001, "Session not found", None, 404)
}

/// The answer to a message naming a session id the server does not know:
/// HTTP 404, `-32001` "Session not found", no id. The same bytes as
/// [`Session::check_principal`]'s refusal, so that an unknown session and
/// another user's cannot be told apart.
pub fn unknown_session() -> Response {
    session_not_found(Value::Null)
}

/// `capabilities` minus what `revision` cannot carry: elicitation needs
/// 2025-06-18 (URL mode 2025-11-25), and sampling `tools` needs 2025-11-25
/// (legacy-era facts: the revisions' schemas). Revisions compare as dates.
pub fn usable_capabilities(capabilities: &Value, revision: &str) -> Value {
    let mut caps = capabilities.clone();
    let Value::Object(map) = &mut caps else { return caps };
    if revision < "2025-06-18" {
        map.remove("elicitation");
    } else if revision < "2025-11-25"
        && let Some(Value::Object(e)) = map.get_mut("elicitation")
    {
        {
            // A url-only declaration must not turn into the bare `{}` that
            // means form.
            let url_only = e.contains_key("url") && !e.contains_key("form");
            e.remove("url");
            if url_only {
                map.remove("elicitation");
            }
        }
    }
    if revision < "2025-11-25"
        && let Some(Value::Object(s)) = map.get_mut("sampling")
    {
        s.remove("tools");
    }
    caps
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn anon() -> Principal {
        Principal::anonymous()
    }

    #[test]
    fn a_session_admits_only_its_principal() {
        let alice = Principal::user("alice").unwrap();
        let s = Session::new("2025-11-25", json!({}), None, &alice).unwrap();
        assert_eq!(s.principal(), &alice);
        assert!(s.check_principal(&alice).is_none());
        for other in [Principal::user("mallory").unwrap(), anon()] {
            let r = s.check_principal(&other).unwrap();
            assert_eq!(r.http_status(), 404);
            assert_eq!(r.body()["error"]["code"], -32001);
            assert_eq!(r.body()["id"], Value::Null);
            assert_eq!(r.to_json(), unknown_session().to_json(), "indistinguishable from an unknown session");
        }
    }

    #[test]
    fn revisions_narrow_capabilities() {
        let all = json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {}});
        assert_eq!(usable_capabilities(&all, "2025-11-25"), all);
        assert_eq!(
            usable_capabilities(&all, "2025-06-18"),
            json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}})
        );
        assert_eq!(usable_capabilities(&all, "2025-03-26"), json!({"sampling": {}, "roots": {}}));
        let url_only = json!({"elicitation": {"url": {}}});
        assert_eq!(usable_capabilities(&url_only, "2025-06-18"), json!({}));
        assert_eq!(
            usable_capabilities(&json!({"elicitation": {}}), "2025-06-18"),
            json!({"elicitation": {}})
        );
    }

    #[test]
    fn bad_sessions_are_refused() {
        assert!(Session::new("", json!({}), None, &anon()).is_err());
        assert!(Session::new("2025-11-25", json!([]), None, &anon()).is_err());
        assert!(Session::new("2025-11-25", json!({"roots": true}), None, &anon()).is_err());
        assert!(Session::new("2025-11-25", json!({}), Some(json!("x")), &anon()).is_err());
        let s = Session::new("2025-11-25", json!({}), None, &anon()).unwrap();
        assert_eq!(s.id().len(), 32);
        assert!(s.clone().with_id("").is_err());
        assert!(s.clone().with_id("a b").is_err());
        assert_eq!(s.with_id("abc").unwrap().id(), "abc");
    }

    #[test]
    fn from_initialize_reads_params() {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "c", "version": "1"}}});
        let s = Session::from_initialize(&init, "2025-06-18", &anon()).unwrap();
        assert_eq!(s.protocol_version(), "2025-06-18");
        assert_eq!(s.client_capabilities(), &json!({"elicitation": {}}));
        assert_eq!(s.client_info(), Some(&json!({"name": "c", "version": "1"})));
        assert!(Session::from_initialize(&json!({"method": "tools/call"}), "2025-11-25", &anon()).is_err());
    }

    #[test]
    fn completion_needs_url_mode() {
        let url = Session::new("2025-11-25", json!({"elicitation": {"url": {}}}), None, &anon()).unwrap();
        assert_eq!(
            url.elicitation_complete("e1").unwrap(),
            json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                "params": {"elicitationId": "e1"}})
        );
        assert!(url.elicitation_complete("").is_err());
        let old = Session::new("2025-06-18", json!({"elicitation": {"url": {}}}), None, &anon()).unwrap();
        assert!(old.elicitation_complete("e1").is_err());
        let form = Session::new("2025-11-25", json!({"elicitation": {}}), None, &anon()).unwrap();
        assert!(form.elicitation_complete("e1").is_err());
    }
}
