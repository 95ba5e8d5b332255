//! One engine shared by 16 threads, 100 000 operations in all: no error and
//! identical results everywhere.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::json;
use snodo::{Answer, Begin, Config, Engine, Key, Outcome, Principal};

#[test]
fn sixteen_threads_one_engine_identical_results() {
    let engine = Arc::new(
        // Ids are random; the tests-only seed makes them a function
        // of each seal's inputs, so equal inputs still give equal tokens.
        Engine::new({
            let mut c = Config::new(vec![Key::new("k1", vec![3; 32]).unwrap()]).fixed_time(1_800_000_000);
            c.test_random_seed = 1;
            c
        })
        .unwrap(),
    );
    let question = snodo::elicit_form(
        "Pick",
        &json!({"type":"object","properties":{"c":{"type":"string","enum":["a","b"]}},"required":["c"]}),
    )
    .unwrap();
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}});
    // One round trip = begin + decide twice: 4 operations. 16 × 1563 × 4 ≥ 100 000.
    let per_thread = 1563;
    let run = {
        let engine = engine.clone();
        move |thread: usize| -> Vec<String> {
            let user = Principal::user(format!("user{}", thread % 4)).unwrap();
            let mut out = Vec::new();
            for i in 0..per_thread {
                let r1 = json!({"jsonrpc":"2.0","id":i,"method":"tools/call",
                                "params":{"name":"t","arguments":{"i": i % 7},"_meta":meta}});
                let Begin::Call(call) = engine.begin(r1.to_string().as_bytes(), &user).unwrap() else {
                    panic!()
                };
                let resp = engine
                    .decide(
                        &call,
                        Outcome::InputRequired {
                            requests: vec![("c".into(), question.clone())],
                            state: Some(json!(i % 7)),
                        },
                    )
                    .unwrap();
                let token = resp.body()["result"]["requestState"].as_str().unwrap().to_owned();
                let r2 = json!({"jsonrpc":"2.0","id":i,"method":"tools/call",
                                "params":{"name":"t","arguments":{"i": i % 7},"_meta":meta,
                                          "inputResponses":{"c":{"action":"accept","content":{"c":"b"}}},
                                          "requestState": token}});
                let Begin::Call(call) = engine.begin(r2.to_string().as_bytes(), &user).unwrap() else {
                    panic!()
                };
                assert_eq!(call.response("c", &question), Answer::Accepted(json!({"c":"b"})));
                let done = engine
                    .decide(&call, Outcome::Complete(json!({"content":[], "n": call.state()})))
                    .unwrap();
                out.push(format!("{token}|{}", done.to_json()));
            }
            out
        }
    };
    let handles: Vec<_> = (0..16)
        .map(|t| {
            std::thread::spawn({
                let run = run.clone();
                move || run(t)
            })
        })
        .collect();
    let results: Vec<Vec<String>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    // Threads with the same principal produced byte-identical tokens and results.
    for t in 4..16 {
        assert_eq!(results[t], results[t % 4], "thread {t}");
    }
    // And a single-threaded run agrees.
    assert_eq!(run(0), results[0]);
}
