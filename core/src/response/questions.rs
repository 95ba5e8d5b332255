//! An `input_required` response that keeps its questions as the values
//! they are: the wire text writes each question's canonical text as it is,
//! and the message's tree (which copies them) is built only if asked for.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::elicitation::Question;
use crate::json;

use super::envelope;

/// The parts of `{"jsonrpc":"2.0","id":…,"result":{"_meta"?,
/// "inputRequests"?,"requestState","resultType":"input_required"}}`.
#[derive(Clone)]
pub(super) struct Asked {
    pub(super) id: Value,
    /// Keys unique and in byte order.
    pub(super) requests: Vec<(String, Question)>,
    pub(super) token: String,
    /// An object when present.
    pub(super) meta: Option<Value>,
    pub(super) tree: OnceLock<Value>,
}

impl Asked {
    /// The message as a tree, the parts moved into it (a question still
    /// shared elsewhere is copied).
    pub(super) fn into_tree(self) -> Value {
        let mut result = Map::new();
        result.insert("resultType".into(), Value::from("input_required"));
        if !self.requests.is_empty() {
            let asked = self.requests.into_iter().map(|(k, q)| (k, Value::from(q))).collect();
            result.insert("inputRequests".into(), Value::Object(asked));
        }
        result.insert("requestState".into(), Value::String(self.token));
        if let Some(m) = self.meta {
            result.insert("_meta".into(), m);
        }
        envelope(self.id, "result", Value::Object(result))
    }

    /// The message as a tree, made once from copies of the parts.
    pub(super) fn tree(&self) -> &Value {
        self.tree.get_or_init(|| {
            let Asked { id, requests, token, meta, tree: _ } = self;
            let copy = Asked {
                id: id.clone(),
                requests: requests.clone(),
                token: token.clone(),
                meta: meta.clone(),
                tree: OnceLock::new(),
            };
            copy.into_tree()
        })
    }

    /// The message's compact text: serde_json's text of the tree, members
    /// in byte order of their keys (`id`, `jsonrpc`, `result`; `_meta`,
    /// `inputRequests`, `requestState`, `resultType`), each question as
    /// its canonical text, which is serde_json's text of it too.
    pub(super) fn text(&self) -> String {
        let room = self.requests.iter().map(|(k, q)| k.len() + q.to_json().len() + 4).sum::<usize>();
        let mut out = Vec::with_capacity(96 + self.token.len() + room);
        out.extend_from_slice(b"{\"id\":");
        out.extend_from_slice(json::to_wire(&self.id).as_bytes());
        out.extend_from_slice(b",\"jsonrpc\":\"2.0\",\"result\":{");
        if let Some(m) = &self.meta {
            out.extend_from_slice(b"\"_meta\":");
            out.extend_from_slice(json::to_wire(m).as_bytes());
            out.push(b',');
        }
        if !self.requests.is_empty() {
            out.extend_from_slice(b"\"inputRequests\":{");
            for (i, (key, question)) in self.requests.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                // The canonical escaping is serde_json's.
                json::write_string(key, &mut out);
                out.push(b':');
                out.extend_from_slice(question.to_json().as_bytes());
            }
            out.extend_from_slice(b"},");
        }
        out.extend_from_slice(b"\"requestState\":");
        json::write_string(&self.token, &mut out);
        out.extend_from_slice(b",\"resultType\":\"input_required\"}}");
        // Every piece is UTF-8 text: the fallback is never taken.
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::super::Response;
    use crate::elicitation::Question;

    fn arb_question() -> impl Strategy<Value = Question> {
        ("[a-z\"\\\\\u{1}\u{7f}\n é\u{2028}😀]{1,12}", prop::sample::select(vec!["1", "1.0", "-0", "1e5"])).prop_map(
            |(message, n)| {
                let default: Value = crate::json::parse(n.as_bytes(), 64).unwrap();
                let schema = json!({"type": "object", "properties": {"n": {"type": "number", "default": default}}});
                let q = json!({"method": "elicitation/create", "params": {"message": format!("{message}?"), "requestedSchema": schema}});
                Question::from_value(q).unwrap()
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// The text written from the parts is serde_json's text of the
        /// tree, for random ids, keys (escapes, non-ASCII, any order),
        /// questions, tokens and `_meta`; the tree is the one built from
        /// the parts whichever way it is asked for.
        #[test]
        fn the_text_is_the_trees(
            id in prop_oneof![any::<i64>().prop_map(Value::from), "[a-z\"\\\\\u{1}é]{0,8}".prop_map(Value::from)],
            requests in prop::collection::btree_map("[a-zA-Z0-9_\"\\\\\u{1}\t\u{7f}é/.-]{1,6}", arb_question(), 0..4),
            token in "[a-zA-Z0-9._\"\\\\\u{1}-]{0,40}",
            meta in prop::option::of(prop::collection::btree_map("[a-z/_.]{1,8}", "[a-z\"é]{0,6}", 0..3)),
        ) {
            let meta = meta.map(|m| json!(m));
            let mut shuffled: Vec<(String, Question)> = requests.into_iter().collect();
            shuffled.reverse();
            let r = Response::input_required(id, shuffled, token, meta);
            let text = r.to_json();
            prop_assert_eq!(&text, &serde_json::to_string(r.body()).unwrap());
            prop_assert_eq!(r.clone().into_body(), r.body().clone());
            let fresh = Response { body: super::super::Body::Tree(r.body().clone()), ..r.clone() };
            prop_assert_eq!(&fresh, &r);
            prop_assert_eq!(fresh.to_json(), text);
            prop_assert!(!r.is_error());
        }
    }
}
