//! `begin` on a request's text against `begin_value` on the strict
//! reader's tree of the same text, on thousands of requests made by editing valid
//! ones (repeated, dropped and reserved keys, wrong types, escapes, deep
//! nesting, odd numbers, cuts, stray characters): the same `Begin`, the
//! same response JSON, binding and opened token, or the same error, for
//! every one.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::{Config, Engine, Key, Outcome};

const NOW: u64 = 1_800_000_000;

fn config() -> Config {
    let mut config = Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(NOW);
    config.max_request_bytes = 4096;
    config
}

fn request(method: &str, version: &str, retry: Option<&str>) -> String {
    let extra = match retry {
        Some(token) => format!(
            r#","inputResponses":{{"seat":{{"action":"accept","content":{{"seat":"12A"}}}}}},"requestState":"{token}""#
        ),
        None => String::new(),
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{"name":"book","arguments":{{"q":"LIS","n":[1,2.50,-0]}}{extra},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{"form":{{}}}}}},"io.modelcontextprotocol/clientInfo":{{"name":"c"}},"x":1}}}}}}"#
    )
}

/// Valid requests of every kind `begin` tells apart, the retry with a
/// token that opens.
fn bases() -> Vec<String> {
    let engine = Engine::new(config()).unwrap();
    let who = Principal::user("alice").unwrap();
    let first = request("tools/call", "2026-07-28", None);
    let Begin::Call(call) = engine.begin(first.as_bytes(), &who).unwrap() else {
        panic!("first call refused")
    };
    let question =
        crate::elicit_form("Seat?", &json!({"type": "object", "properties": {"seat": {"type": "string"}}}))
            .unwrap();
    let asked = engine
        .decide(
            &call,
            Outcome::InputRequired {
                requests: vec![("seat".into(), question)],
                state: Some(json!({"s": 1})),
            },
        )
        .unwrap();
    let token = asked.body().pointer("/result/requestState").unwrap().as_str().unwrap().to_owned();
    let retry = request("tools/call", "2026-07-28", Some(&token));
    let escaped = retry.replacen(&format!("\"{token}\""), &format!("\"\\u0076{}\"", &token[1..]), 1);
    assert_ne!(escaped, retry);
    // The retry as other clients space it (pretty printed; Python's
    // default `", "` and `": "`).
    let tree: serde_json::Value = crate::json::parse(retry.as_bytes(), 1 << 20).unwrap();
    let pretty = serde_json::to_string_pretty(&tree).unwrap();
    let spaced = retry.replace("\",\"", "\", \"").replace("\":", "\": ");
    vec![
        first,
        retry.clone(),
        pretty,
        spaced,
        escaped,
        request("tools/call", "2025-06-18", Some(&token)),
        request(crate::tasks::TASKS_UPDATE, "2026-07-28", Some(&token)),
        request("tools/call", "1999-01-01", None),
        retry.replacen("\"id\":7", "\"id\":\"a\",\"result\":{}", 1),
        retry.replacen("\"id\":7,", "", 1),
        retry.replacen("\"requestState\":\"", "\"requestState\":[\"", 1).replacen("\",\"_meta\"", "\"],\"_meta\"", 1),
        r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1.5e400,"method":"m","params":7}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":12345678901234567890123,"method":"m","params":{"_meta":[]}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":-0,"method":"m","params":{"arguments":{"b":1,"$serde_json::private::Number":"1"}}}"#
            .to_owned(),
    ]
}

/// `begin` through the tree: the strict reader's tree of the text (or
/// its refusal), then `begin_value`.
fn tree(
    policy: &Policy,
    sealer: &Sealer,
    now: &dyn Fn() -> u64,
    bytes: &[u8],
    who: &Principal,
) -> crate::Result<Begin> {
    match parse_text(bytes, policy.max_request_bytes) {
        Ok(value) => begin_value(policy, sealer, now, value, who),
        Err(respond) => Ok(respond),
    }
}

/// Both paths' results, as text: `Call`, `Response` and `Error` all print
/// every field (the opened token, the binding, the arguments).
fn both(bytes: &[u8]) -> (String, String) {
    let parts = crate::policy::from_config(config()).unwrap();
    let who = Principal::user("alice").unwrap();
    let now = || NOW;
    let text = begin(&parts.policy, &parts.sealer, &now, bytes, &who);
    let tree = tree(&parts.policy, &parts.sealer, &now, bytes, &who);
    (format!("{text:?}"), format!("{tree:?}"))
}

const KEYS: [&str; 14] = [
    "id",
    "jsonrpc",
    "method",
    "params",
    "result",
    "error",
    "_meta",
    "inputResponses",
    "requestState",
    "arguments",
    "name",
    "x",
    "$serde_json::private::Number",
    "io.modelcontextprotocol/protocolVersion",
];
const VALUES: [&str; 10] =
    ["1", "\"s\"", "{}", "[]", "null", "\"\\u0041\"", "\"\"", "-0.0", "1e999", "{\"a\":{}}"];

fn edit(base: &str, how: u8, at: usize, len: usize, key: usize, value: usize, stray: char) -> String {
    let mut s = base.to_owned();
    let at = at % (s.len() + 1);
    let at = (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
    let opens: Vec<usize> = s.match_indices('{').map(|(i, _)| i).collect();
    let open = opens.get(at % opens.len().max(1)).copied();
    match how {
        // A member (often a repeated one) first in some object.
        0 | 1 => {
            if let Some(i) = open {
                let sep = if s[i + 1..].starts_with('}') { "" } else { "," };
                s.insert_str(
                    i + 1,
                    &format!("\"{}\":{}{sep}", KEYS[key % KEYS.len()], VALUES[value % VALUES.len()]),
                );
            }
        }
        // A member last in some object.
        2 => {
            if let Some(i) = open {
                // The matching close is hard to find textually; the last
                // close of the text is the message's own.
                let _ = i;
                if let Some(j) = s.rfind('}') {
                    s.insert_str(
                        j,
                        &format!(",\"{}\":{}", KEYS[key % KEYS.len()], VALUES[value % VALUES.len()]),
                    );
                }
            }
        }
        // A value replaced by another (type changes), after some key.
        3 => {
            let colons: Vec<usize> = s.match_indices("\":").map(|(i, _)| i + 2).collect();
            if let Some(&i) = colons.get(at % colons.len().max(1)) {
                let end = s[i..].find([',', '}']).map_or(s.len(), |e| i + e);
                s.replace_range(i..end, VALUES[value % VALUES.len()]);
            }
        }
        // A letter spelled as an escape (keys, versions, the token).
        4 => {
            if let Some((j, c)) = s[at..].char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
                s.replace_range(at + j..at + j + 1, &format!("\\u{:04x}", c as u32));
            }
        }
        // A cut, or a stray character.
        5 => {
            let end = (at + len % 12).min(s.len());
            let end = (end..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
            s.replace_range(at..end, "");
        }
        6 => s.insert(at, stray),
        7 => s.truncate(at),
        // Deep nesting somewhere.
        8 => {
            let depth = 60 + len % 10;
            let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            if let Some(i) = open {
                s.insert_str(i + 1, &format!("\"{}\":{deep},", KEYS[key % KEYS.len()]));
            }
        }
        // Large and odd numbers as the id.
        _ => {
            s = s.replacen(
                "\"id\":7",
                &format!("\"id\":{}", ["1e400", "7.0", "-0", "99999999999999999999", "7e0"][value % 5]),
                1,
            )
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn the_text_path_is_the_tree_path(
        base in any::<prop::sample::Index>(),
        edits in prop::collection::vec((0u8..10, any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>(), prop::sample::select(vec!['{', '}', '[', ']', '"', ',', ':', '\\', '0', 'a', ' ', 'é'])), 0..3),
    ) {
        let bases = BASES.get_or_init(bases);
        let mut text = bases[base.index(bases.len())].clone();
        for (how, at, len, key, value, stray) in edits {
            text = edit(&text, how, at, len, key, value, stray);
        }
        let (fast, slow) = both(text.as_bytes());
        prop_assert_eq!(fast, slow, "{}", text);
    }
}

static BASES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

#[test]
fn every_base_agrees_and_the_retry_opens() {
    let bases = bases();
    for text in &bases {
        let (fast, slow) = both(text.as_bytes());
        assert_eq!(fast, slow, "{text}");
    }
    // The fixture is what it says: the retry opens its token (round 2),
    // and the escaped token opens the same way.
    for text in &bases[1..5] {
        let (fast, _) = both(text.as_bytes());
        assert!(fast.contains("round: 2"), "{fast}");
    }
    // Oversized, empty, and not JSON.
    // Messages that are not objects, serde_json's number marker as a key,
    // and a params object that is a number in disguise.
    let odd = [
        "7",
        "-0.0",
        "\"s\"",
        "true",
        "null",
        "[1]",
        "{}",
        r#"{"$serde_json::private::Number":"1"}"#,
        r#"{"id":1,"$serde_json::private::Number":"1"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"$serde_json::private::Number":"1"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"requestState":{"$serde_json::private::Number":"1"}}}"#,
    ];
    for text in odd.iter().copied().chain(["", " ", "{", "nul", &"x".repeat(5000)]) {
        let (fast, slow) = both(text.as_bytes());
        assert_eq!(fast, slow, "{text}");
    }
}

/// Arguments of every kind (escapes, exponents, nesting at and past the
/// depth bound), each as
/// a first call and as a retry whose token was sealed for those arguments
/// (so a retry whose edited arguments keep their canonical form opens).
fn args_bases() -> Vec<(String, String)> {
    let deep = |k: usize| format!("{}1{}", "[".repeat(k), "]".repeat(k));
    let args = [
        r#"{"q":"LIS","n":[1,2.50,-0]}"#.to_owned(),
        r#"{"z":{"b":[true,false,null],"a":"é"},"a":-0.5,"m":[{"y":1,"x":2}]}"#.to_owned(),
        r#" { "q" : "LIS" ,	"n" : [ 1 , 2 ] } "#.to_owned(),
        r#"{"s":"$serde_json::private::Number","t":["$x"]}"#.to_owned(),
        r#""$just a string""#.to_owned(),
        "12.5".to_owned(),
        "[]".to_owned(),
        deep(61),
        deep(62),
        deep(63),
        format!("{{\"d\":{}}}", deep(60)),
        format!("{{\"d\":{}}}", deep(61)),
        format!("{{\"d\":{}}}", deep(62)),
    ];
    let engine = Engine::new(config()).unwrap();
    let who = Principal::user("alice").unwrap();
    let question =
        crate::elicit_form("Seat?", &json!({"type": "object", "properties": {"seat": {"type": "string"}}}))
            .unwrap();
    let with = |message: &str, args: &str| message.replacen(r#"{"q":"LIS","n":[1,2.50,-0]}"#, args, 1);
    args.iter()
        .map(|args| {
            let first = with(&request("tools/call", "2026-07-28", None), args);
            // Past the nesting bound there is no call to retry.
            let Ok(Begin::Call(call)) = engine.begin(first.as_bytes(), &who) else {
                return (first.clone(), first);
            };
            let outcome = Outcome::InputRequired {
                requests: vec![("seat".into(), question.clone())],
                state: Some(json!({"s": 1})),
            };
            let asked = engine.decide(&call, outcome).unwrap();
            let token = asked.body().pointer("/result/requestState").unwrap().as_str().unwrap().to_owned();
            (first, with(&request("tools/call", "2026-07-28", Some(&token)), args))
        })
        .collect()
}

const ARG_BITS: [&str; 18] = [
    "\\u0041",
    "\\\"",
    "1e5",
    "-2.5E-3",
    "\"$serde_json::private::Number\":",
    "\"$x\"",
    "\"q\":1,",
    "\"a\":{},",
    " ",
    "\r\n\t",
    ",",
    "}",
    "]",
    "{",
    "[",
    "01",
    "\"",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// `begin` with arguments edited and
    /// broken at random (escapes, exponents, nesting at and past the
    /// bound, cuts, trailing garbage, `$` keys and strings, whitespace,
    /// repeated and unsorted keys) in a first call and in a retry: the
    /// same `Begin` (binding digest, arguments, opened token),
    /// response or error as the tree path.
    #[test]
    fn edited_arguments_take_either_path_to_the_same_result(
        base in any::<prop::sample::Index>(),
        retry in any::<bool>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(ARG_BITS.to_vec()), 0u8..4), 0..3),
    ) {
        let bases = ARGS_BASES.get_or_init(args_bases);
        let (first, again) = &bases[base.index(bases.len())];
        let message = if retry { again } else { first };
        // The arguments sit between `"arguments":` and the next member.
        let from = message.find("\"arguments\":").unwrap() + "\"arguments\":".len();
        let to = message.find(",\"inputResponses\"").or_else(|| message.find(",\"_meta\"")).unwrap();
        let mut args = message[from..to].to_owned();
        for (at, bit, how) in edits {
            let i = at.index(args.len() + 1);
            let i = (0..=i).rev().find(|&j| args.is_char_boundary(j)).unwrap_or(0);
            match how {
                0 => args.insert_str(i, bit),
                // A cut: what follows in the message is then glued on.
                1 => args.truncate(i),
                // Trailing garbage.
                2 => args.push_str(bit),
                _ => {
                    let end = (i + bit.len()).min(args.len());
                    let end = (end..=args.len()).find(|&j| args.is_char_boundary(j)).unwrap_or(args.len());
                    args.replace_range(i..end, bit);
                }
            }
        }
        let text = format!("{}{args}{}", &message[..from], &message[to..]);
        let (fast, slow) = both(text.as_bytes());
        prop_assert_eq!(fast, slow, "{}", text);
    }
}

static ARGS_BASES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();

/// Every arguments base, unedited, agrees, and its retry opens; the
/// bases past the nesting bound are refused.
#[test]
fn every_arguments_base_agrees_and_its_retry_opens() {
    let bases = args_bases();
    for (i, (first, retry)) in bases.iter().enumerate() {
        for text in [first, retry] {
            let (fast, slow) = both(text.as_bytes());
            assert_eq!(fast, slow, "{text}");
        }
        let (fast, _) = both(retry.as_bytes());
        let refused = [9, 12].contains(&i);
        assert_eq!(fast.contains("round: 2"), !refused, "{fast}");
        assert_eq!(fast.contains("nested too deeply"), refused, "{fast}");
    }
}

/// What an `inputResponses` member may be, valid
/// and not (nesting near the bound, repeated and `$` keys, escapes, odd
/// numbers, values that are not objects, broken syntax).
const ANSWER_VALUES: [&str; 16] = [
    r#"{"action":"accept","content":{"seat":"12A"}}"#,
    r#"{"action":"decline"}"#,
    "{}",
    r#"{"a":1,"a":2}"#,
    r#"{"$serde_json::private::Number":"1"}"#,
    r#"{"s":"\u0041","n":[1,2.50,-0,1e5,-2.5E-3]}"#,
    r#"{"n":01}"#,
    r#"{"t":[true,false,null,{"x":{}}]}"#,
    "[]",
    "\"text\"",
    "7",
    "null",
    r#"{"a":"b""#,
    r#"{"k":{"k":{"k":{"k":"deep"}}}}"#,
    r#"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}"#,
    r#" { "action" : "accept" , "content" : { } } "#,
];
const ANSWER_KEYS: [&str; 7] = ["seat", "meal", "a", "seat", "$x", "s\\u0065at", "é"];

/// The retry base (a token that opens) with `answers` as its
/// `inputResponses` text.
fn with_answers(answers: &str) -> String {
    let bases = BASES.get_or_init(bases);
    let retry = &bases[1];
    let from = retry.find("\"inputResponses\":").unwrap() + "\"inputResponses\":".len();
    let to = retry.find(",\"requestState\"").unwrap();
    format!("{}{answers}{}", &retry[..from], &retry[to..])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// `inputResponses` of random members (some repeated, some not
    /// objects, some broken), as an object, a deep value, or any value,
    /// with the entry limit at 3 or the default: the same `Begin` as the
    /// tree path (the same answers, or the same error).
    #[test]
    fn answers_read_from_text_are_the_answers_of_the_tree(
        members in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..20),
        shape in 0u8..4,
        low_limit in any::<bool>(),
    ) {
        let body: Vec<String> = members
            .iter()
            .map(|(k, v)| format!("\"{}\":{}", k.get(&ANSWER_KEYS), v.get(&ANSWER_VALUES)))
            .collect();
        let answers = match shape {
            0 | 1 => format!("{{{}}}", body.join(",")),
            2 => format!("{{\"d\":{}1{}}}", "[".repeat(58 + body.len() % 6), "]".repeat(58 + body.len() % 6)),
            _ => members.first().map_or("{}".to_owned(), |(_, v)| v.get(&ANSWER_VALUES).to_string()),
        };
        let text = with_answers(&answers);
        let mut config = config();
        if low_limit {
            config.max_input_responses = 3;
        }
        let parts = crate::policy::from_config(config).unwrap();
        let who = Principal::user("alice").unwrap();
        let now = || NOW;
        let fast = begin(&parts.policy, &parts.sealer, &now, text.as_bytes(), &who);
        let slow = tree(&parts.policy, &parts.sealer, &now, text.as_bytes(), &who);
        prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{}", text);
        // What a handler reads of them, too.
        if let (Ok(Begin::Call(f)), Ok(Begin::Call(s))) = (&fast, &slow) {
            prop_assert_eq!(f.input_responses(), s.input_responses());
            prop_assert_eq!(f.answers_digest(), s.answers_digest());
            prop_assert_eq!(f.raw_response("seat"), s.raw_response("seat"));
        }
    }
}

/// The fixture reaches a retry whose answers a handler reads.
#[test]
fn plain_answers_are_read() {
    let text = with_answers(r#"{"seat":{"action":"accept","content":{"seat":"12A"}},"meal":{}}"#);
    let (fast, slow) = both(text.as_bytes());
    assert_eq!(fast, slow);
    assert!(fast.contains("round: 2") && fast.contains("12A"), "{fast}");
}

/// Bytes that are not UTF-8 (in a key, a value, the token, the answers,
/// the arguments, between members) get the tree path's result.
#[test]
fn bytes_that_are_not_utf8_get_the_tree_paths_result() {
    let bases = BASES.get_or_init(bases);
    let retry = bases[1].as_bytes();
    let marks: [&[u8]; 6] =
        [b"\"name\"", b"\"book\"", b"\"requestState\":\"", b"\"seat\":\"", b"\"q\":\"", b","];
    for mark in marks {
        for bad in [&b"\xff"[..], b"\xc3", b"\xe2\x82", b"\xed\xa0\x80"] {
            let at = retry.windows(mark.len()).position(|w| w == mark).unwrap() + mark.len() - 1;
            for at in [at, at + 1] {
                let mut text = retry.to_vec();
                text.splice(at..at, bad.iter().copied());
                let (fast, slow) = both(&text);
                assert_eq!(fast, slow, "{}", String::from_utf8_lossy(&text));
            }
        }
    }
}
