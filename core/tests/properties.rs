//! Property tests: the request binding is exactly as sensitive as it should
//! be, and no input makes `begin`, `decide` or a builder panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use snodo::{Begin, Config, Engine, Key, Outcome, Principal, binding_digest, internal::json as sjson};

/// A JSON value with numbers in varied lexical forms.
fn arb_json() -> impl Strategy<Value = Value> {
    let number = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| format!("{n}0")),
        (any::<i32>(), 0u32..1000).prop_map(|(a, b)| format!("{a}.{b}")),
        (1u32..9, -50i32..50).prop_map(|(a, e)| format!("{a}e{e}")),
    ]
    .prop_map(|s| Value::Number(s.parse().unwrap()));
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number,
        "[a-zA-Z0-9 é😀\"\\\\\u{1}]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_é]{1,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Serialises with object keys in an order chosen by `seed`, and spaces.
fn shuffled_text(v: &Value, seed: &mut u64) -> String {
    let mut next = || {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *seed >> 33
    };
    fn go(v: &Value, next: &mut dyn FnMut() -> u64, out: &mut String) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                for i in (1..keys.len()).rev() {
                    keys.swap(i, (next() as usize) % (i + 1));
                }
                out.push_str("{ ");
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" , ");
                    }
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push_str(" : ");
                    go(&m[*k], next, out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    go(x, next, out);
                }
                out.push(']');
            }
            other => out.push_str(&serde_json::to_string(other).unwrap()),
        }
    }
    let mut out = String::new();
    go(v, &mut next, &mut out);
    out
}

fn params(args: &Value) -> Value {
    json!({"name": "t", "arguments": args})
}

/// Every leaf path of a value.
fn leaves(v: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(json!(k));
                leaves(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(json!(i));
                leaves(x, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |cur, p| match p {
        Value::String(k) => &mut cur[k.as_str()],
        Value::Number(i) => &mut cur[i.as_u64().unwrap() as usize],
        _ => unreachable!(),
    })
}

/// A different value of the same or another kind; numbers change spelling only.
fn mutate(v: &Value) -> Value {
    match v {
        Value::Null => json!(false),
        Value::Bool(b) => json!(!b),
        Value::String(s) => json!(format!("{s}x")),
        Value::Number(n) => {
            let s = n.to_string();
            // Same numeric value, different lexical form: must still differ.
            let t = if s.contains(['.', 'e']) { format!("{s}0") } else { format!("{s}.0") };
            Value::Number(t.parse().unwrap())
        }
        _ => json!(null),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn reordering_keys_never_changes_the_binding(v in arb_json(), seed in any::<u64>()) {
        let mut seed = seed;
        let text = shuffled_text(&params(&v), &mut seed);
        let reparsed = sjson::parse(text.as_bytes(), 1 << 20).unwrap();
        prop_assert_eq!(binding_digest("tools/call", &params(&v)).unwrap(), binding_digest("tools/call", &reparsed).unwrap());
    }

    #[test]
    fn changing_any_leaf_changes_the_binding(v in arb_json(), pick in any::<prop::sample::Index>()) {
        let p = params(&v);
        let mut all = Vec::new();
        leaves(&p, &mut Vec::new(), &mut all);
        let path = pick.get(&all).clone();
        let mut changed = p.clone();
        let slot = at(&mut changed, &path);
        *slot = mutate(slot);
        prop_assert_ne!(binding_digest("tools/call", &p).unwrap(), binding_digest("tools/call", &changed).unwrap());
    }

    #[test]
    fn swapping_distinct_array_items_changes_the_binding(a in arb_json(), b in arb_json()) {
        prop_assume!(sjson::canonical(&a) != sjson::canonical(&b));
        let one = params(&json!([a.clone(), b.clone()]));
        let two = params(&json!([b, a]));
        prop_assert_ne!(binding_digest("tools/call", &one).unwrap(), binding_digest("tools/call", &two).unwrap());
    }

    #[test]
    fn canonical_form_is_a_fixed_point(v in arb_json()) {
        let c = sjson::canonical(&v).unwrap();
        let again = sjson::canonical(&sjson::parse(&c, 1 << 20).unwrap()).unwrap();
        prop_assert_eq!(c, again);
    }

    #[test]
    fn begin_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = engine().begin(&bytes, &Principal::anonymous());
    }

    #[test]
    fn begin_and_decide_never_panic_on_json(params in arb_json(), outcome in arb_json(), method_pick in 0usize..5) {
        let e = engine();
        let methods = ["tools/call", "resources/read", "prompts/get", "tools/list", "x"];
        let mut p = params;
        if let Value::Object(m) = &mut p {
            m.insert("_meta".into(), json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
            }));
        }
        let req = json!({"jsonrpc": "2.0", "id": 1, "method": methods[method_pick], "params": p});
        // A call is decided once, so each outcome gets its own call.
        let question = snodo::Question::from_value(outcome.clone()).ok();
        let mut outcomes = vec![Outcome::Raw(outcome.clone())];
        if let Some(q) = &question {
            outcomes.push(Outcome::InputRequired { requests: vec![("k".into(), q.clone())], state: None });
        }
        if let Ok(o) = Outcome::from_value(outcome.clone()) {
            outcomes.push(o);
        }
        for o in outcomes {
            if let Ok(Begin::Call(call)) = e.begin(req.to_string().as_bytes(), &Principal::anonymous()) {
                if let Some(q) = &question {
                    let _ = call.response("k", q);
                }
                let first = e.decide(&call, o).is_ok();
                let second = e.decide(&call, Outcome::Raw(json!({}))).map_err(|err| err.code());
                prop_assert!(first);
                prop_assert_eq!(second.err(), Some(snodo::ErrorCode::AlreadyDecided));
            }
        }
    }

    #[test]
    fn builders_never_panic(v in arb_json(), s in ".{0,40}") {
        let _ = snodo::elicit_form(&s, &v);
        let _ = snodo::elicit_url(&s, &s);
        #[allow(deprecated)]
        let _ = snodo::sampling(&v);
        let _ = snodo::missing_capabilities(&json!({"k": v}), &v);
        let _ = snodo::filter_supported(&v, &v);
        let _ = snodo::canonicalize(&s);
        let _ = snodo::Question::from_value(v);
    }
}

fn engine() -> Engine {
    Engine::new(Config::new(vec![Key::new("k1", vec![1; 32]).unwrap()]).fixed_time(1_800_000_000)).unwrap()
}

#[test]
fn begin_survives_hostile_shapes() {
    let e = engine();
    let deep = "[".repeat(100_000);
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"a\":\"{}\"}}}}",
        "x".repeat(5 << 20)
    );
    let many: String = (0..100_000).map(|i| format!("\"k{i}\":{{}}")).collect::<Vec<_>>().join(",");
    let wide = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"t\",\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}},\"inputResponses\":{{{many}}}}}}}"
    );
    for input in [deep.as_bytes(), big.as_bytes(), wide.as_bytes(), b"\xff\xfe", b"{\"a\":\"\\ud800\"}"] {
        match e.begin(input, &Principal::anonymous()) {
            Ok(Begin::Respond(r)) => assert!(r.is_error()),
            other => panic!("expected an error response, got {other:?}"),
        }
    }
}
