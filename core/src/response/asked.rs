//! An `input_required` response kept as its parts (issue 16, seventh
//! pass), and the questions in it owned or shared (thirteenth pass).

use std::borrow::Borrow;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::json;

use super::envelope;

/// How `decide` may hold the questions it asks: owned (`Value`, the
/// handler's own outcome) or shared (`Arc<Value>`, a binding's kept
/// tree), and what the response keeps of them. Both are read as `&Value`
/// everywhere; only the response's storage differs.
pub(crate) trait Question: Borrow<Value> + Sized {
    /// The questions as the response keeps them.
    fn kept(requests: Vec<(String, Self)>) -> Questions;
}

impl Question for Value {
    fn kept(requests: Vec<(String, Value)>) -> Questions {
        Questions::Owned(requests)
    }
}

impl Question for Arc<Value> {
    fn kept(requests: Vec<(String, Arc<Value>)>) -> Questions {
        Questions::Shared(requests)
    }
}

/// The questions of a response, by key, keys unique and in byte order.
#[derive(Clone)]
pub(crate) enum Questions {
    Owned(Vec<(String, Value)>),
    Shared(Vec<(String, Arc<Value>)>),
}

impl Questions {
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn len(&self) -> usize {
        match self {
            Questions::Owned(q) => q.len(),
            Questions::Shared(q) => q.len(),
        }
    }

    /// Each key and question, in order.
    fn each(&self, mut f: impl FnMut(&str, &Value)) {
        match self {
            Questions::Owned(q) => q.iter().for_each(|(k, v)| f(k, v)),
            Questions::Shared(q) => q.iter().for_each(|(k, v)| f(k, v)),
        }
    }

    /// The questions as a map (a shared one copied unless this was its
    /// last count).
    fn into_map(self) -> Map<String, Value> {
        match self {
            Questions::Owned(q) => q.into_iter().collect(),
            Questions::Shared(q) => q.into_iter().map(|(k, v)| (k, Arc::unwrap_or_clone(v))).collect(),
        }
    }
}

/// The parts of `{"jsonrpc":"2.0","id":…,"result":{"_meta"?,
/// "inputRequests"?,"requestState","resultType":"input_required"}}`.
/// `decide` used to build this as a tree: three maps, seven key strings
/// and two value strings, each its own allocation (about an eighth of a
/// 256 B `decide`), which `to_json` then walked and the caller freed.
/// Every binding sends the text, so the text is written straight from the
/// parts; the tree is built only if someone asks for it (`body`), from
/// clones of the parts, and kept.
#[derive(Clone)]
pub(super) struct Asked {
    pub(super) id: Value,
    /// Keys unique (checked before sealing) and in byte order.
    pub(super) requests: Questions,
    pub(super) token: String,
    /// An object when present, server info stamped already.
    pub(super) meta: Option<Value>,
    pub(super) tree: OnceLock<Value>,
}

impl Asked {
    /// The tree `decide` used to build, as it built it.
    pub(super) fn into_tree(self) -> Value {
        let mut result = Map::new();
        result.insert("resultType".into(), Value::String("input_required".to_owned()));
        if !self.requests.is_empty() {
            result.insert("inputRequests".into(), Value::Object(self.requests.into_map()));
        }
        result.insert("requestState".into(), Value::String(self.token));
        if let Some(m) = self.meta {
            result.insert("_meta".into(), m);
        }
        envelope(self.id, "result", Value::Object(result))
    }

    /// [`Asked::into_tree`] of a copy of the parts.
    pub(super) fn tree(&self) -> Value {
        let Asked { id, requests, token, meta, tree: _ } = self;
        let parts = Asked {
            id: id.clone(),
            requests: requests.clone(),
            token: token.clone(),
            meta: meta.clone(),
            tree: OnceLock::new(),
        };
        parts.into_tree()
    }

    /// The tree's compact text, byte for byte what `serde_json` writes
    /// for it: members in the map's order (byte order of the keys: `id`,
    /// `jsonrpc`, `result`; `_meta`, `inputRequests`, `requestState`,
    /// `resultType`). Keys and the token go through the canonical string
    /// writer, which escapes exactly the characters `serde_json` does, the
    /// same way (`"`, `\`, the short escapes, other controls as lowercase
    /// `\u00xx`), and finds a plain string eight bytes at a time: the token
    /// is most of the text. Every value (id, questions, `_meta`) through
    /// the canonical writer too (eighth pass; it was serde's): where maps
    /// iterate sorted, that is serde's compact text byte for byte, as
    /// `to_wire` relies on. `None` when the map would iterate in another
    /// order (the `preserve_order` feature): then the tree is written.
    pub(super) fn text(&self) -> Option<String> {
        if !json::map_iterates_sorted() {
            return None;
        }
        let mut out = Vec::with_capacity(96 + self.token.len() + 192 * self.requests.len());
        out.extend_from_slice(b"{\"id\":");
        json::write_canonical(&self.id, &mut out);
        out.extend_from_slice(b",\"jsonrpc\":\"2.0\",\"result\":{");
        if let Some(m) = &self.meta {
            out.extend_from_slice(b"\"_meta\":");
            json::write_canonical(m, &mut out);
            out.push(b',');
        }
        if !self.requests.is_empty() {
            out.extend_from_slice(b"\"inputRequests\":{");
            let mut first = true;
            self.requests.each(|key, request| {
                if !first {
                    out.push(b',');
                }
                first = false;
                json::write_string(key, &mut out);
                out.push(b':');
                json::write_canonical(request, &mut out);
            });
            out.extend_from_slice(b"},");
        }
        out.extend_from_slice(b"\"requestState\":");
        json::write_string(&self.token, &mut out);
        out.extend_from_slice(b",\"resultType\":\"input_required\"}}");
        String::from_utf8(out).ok()
    }
}
