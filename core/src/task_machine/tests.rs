//! The task machine end to end on the memory store: one handler run
//! inline and as a task, its input phase, partial answers, keys never
//! reused, cancellation, the gates, and a store that fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};

use crate::{
    Answer, Begin, Call, Config, Engine, Key, MemoryTaskStore, Outcome, Principal, Question, TaskStore,
};

const NOW: u64 = 1_800_000_000;

fn engine() -> Engine {
    Engine::new(Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(NOW)).unwrap()
}

fn caps(tasks: bool) -> Value {
    if tasks {
        json!({"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({"elicitation": {"form": {}}})
    }
}

fn begin(e: &Engine, who: &str, method: &str, params: Value, caps: Value) -> Result<Box<Call>, Value> {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps});
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    match e.begin_value(req, &Principal::user(who).unwrap()).unwrap() {
        Begin::Call(c) => Ok(c),
        Begin::Respond(r) => Err(r.into_body()),
    }
}

fn question(what: &str) -> Question {
    crate::elicit_form(what, &json!({"type": "object", "properties": {"pick": {"type": "string"}}})).unwrap()
}

fn accepted(a: Answer) -> Option<Value> {
    if let Answer::Accepted(v) = a { Some(v) } else { None }
}

/// The report: hands on to a task, asks `a` and `b` together, then `c`.
fn report(call: &Call) -> Outcome {
    let (a, b, c) = (question("A?"), question("B?"), question("C?"));
    let step = call.state().and_then(|s| s.get("step")).and_then(Value::as_u64);
    match step {
        None => Outcome::Task { state: Some(json!({"step": 1})) },
        Some(1) => {
            let (ra, rb) = (call.response("a", &a), call.response("b", &b));
            match (accepted(ra), accepted(rb)) {
                (Some(x), Some(y)) => Outcome::InputRequired {
                    requests: vec![("c".into(), c)],
                    state: Some(json!({"step": 2, "got": [x["pick"], y["pick"]]})),
                },
                _ => Outcome::InputRequired {
                    requests: vec![("a".into(), a), ("b".into(), b)],
                    state: Some(json!({"step": 1})),
                },
            }
        }
        Some(_) => match accepted(call.response("c", &c)) {
            Some(z) => {
                let got = call.state().unwrap()["got"].clone();
                Outcome::Complete(
                    json!({"content": [{"type": "text", "text": format!("{got} {}", z["pick"])}]}),
                )
            }
            None => Outcome::ToolError("no c".into()),
        },
    }
}

fn run(e: &Engine, store: &dyn TaskStore, call: &Call, outcome: Option<Outcome>) -> crate::TaskDone {
    e.run_task_step(store, call, outcome).unwrap()
}

/// Runs a leg and its continuations to the end (as a runner's background loop).
fn run_legs(e: &Engine, store: &dyn TaskStore, mut leg: Option<Box<Call>>) {
    while let Some(call) = leg {
        let outcome = report(&call);
        leg = run(e, store, &call, Some(outcome)).leg;
    }
}

fn tasks(
    e: &Engine,
    store: &dyn TaskStore,
    who: &str,
    method: &str,
    params: Value,
) -> (Value, Option<Box<Call>>) {
    let call = match begin(e, who, method, params, caps(true)) {
        Ok(c) => c,
        Err(body) => return (body, None),
    };
    let done = run(e, store, &call, None);
    (done.response.unwrap().into_body(), done.leg)
}

fn answer(pick: &str) -> Value {
    json!({"action": "accept", "content": {"pick": pick}})
}

#[test]
fn one_handler_as_a_task_with_an_input_phase() {
    let (e, store) = (engine(), MemoryTaskStore::default());
    let call = begin(&e, "alice", "tools/call", json!({"name": "report"}), caps(true)).unwrap();
    let done = run(&e, &store, &call, Some(report(&call)));
    let created = done.response.unwrap().into_body()["result"].clone();
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert!(created.get("requestState").is_none() && created.get("inputRequests").is_none());
    let id = created["taskId"].as_str().unwrap().to_owned();
    assert!(id.len() >= 22, "{id}");
    // Durable before the answer: the task is readable at once.
    let (got, _) = tasks(&e, &store, "alice", "tasks/get", json!({"taskId": id}));
    assert_eq!(got["result"]["status"], "working");
    run_legs(&e, &store, done.leg);
    let (got, _) = tasks(&e, &store, "alice", "tasks/get", json!({"taskId": id}));
    let r = &got["result"];
    assert_eq!((r["status"].as_str(), r["resultType"].as_str()), (Some("input_required"), Some("complete")));
    let keys: Vec<String> = r["inputRequests"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["a@1", "b@1"]);
    // Another user sees nothing, exactly as for an unknown id.
    let (other, _) = tasks(&e, &store, "mallory", "tasks/get", json!({"taskId": id}));
    let (unknown, _) = tasks(&e, &store, "alice", "tasks/get", json!({"taskId": "nope"}));
    assert_eq!(other["error"], unknown["error"]);
    assert_eq!(other["error"]["code"], -32602);
    let (upd, _) = tasks(
        &e,
        &store,
        "mallory",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"a@1": answer("x")}}),
    );
    assert_eq!(upd["error"]["code"], -32602);
    // Partial: a@1 answered (and an unknown key ignored); b@1 stays.
    let (ack, leg) = tasks(
        &e,
        &store,
        "alice",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"a@1": answer("x"), "zz": answer("q")}}),
    );
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    assert!(leg.is_none());
    let (got, _) = tasks(&e, &store, "alice", "tasks/get", json!({"taskId": id}));
    assert_eq!(got["result"]["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["b@1"]);
    // A second answer to a@1 is ignored: the first one stands.
    let (_, leg) = tasks(
        &e,
        &store,
        "alice",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"a@1": answer("LATE"), "b@1": answer("y")}}),
    );
    let leg = leg.expect("the last answer hands back the next run");
    assert_eq!(leg.task_id(), Some(id.as_str()));
    run_legs(&e, &store, Some(leg));
    let (got, _) = tasks(&e, &store, "alice", "tasks/get", json!({"taskId": id}));
    // The next question went out under a new key: never a@1/b@1 again.
    assert_eq!(got["result"]["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["c@2"]);
    let (_, leg) = tasks(
        &e,
        &store,
        "alice",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"c@2": answer("z")}}),
    );
    run_legs(&e, &store, leg);
    let (got, _) = tasks(&e, &store, "alice", "tasks/get", json!({"taskId": id}));
    assert_eq!(got["result"]["status"], "completed");
    assert_eq!(got["result"]["result"]["content"][0]["text"], "[\"x\",\"y\"] \"z\"");
    assert!(got["result"].get("inputRequests").is_none());
    // Cancel of a terminal task: the same ack, the task unchanged.
    let (ack, _) = tasks(&e, &store, "alice", "tasks/cancel", json!({"taskId": id}));
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    let (got, _) = tasks(&e, &store, "alice", "tasks/get", json!({"taskId": id}));
    assert_eq!(got["result"]["status"], "completed");
}

#[test]
fn the_same_handler_inline_for_a_client_without_the_extension() {
    let (e, store) = (engine(), MemoryTaskStore::default());
    let call = begin(&e, "alice", "tools/call", json!({"name": "report"}), caps(false)).unwrap();
    let step = e.task_step(&call, Some(report(&call))).unwrap();
    assert!(step.command().is_none());
    let done = step.finish(None).unwrap();
    assert!(done.response.is_none());
    let next = done.leg.unwrap();
    assert_eq!(next.task_id(), None);
    let done = run(&e, &store, &next, Some(report(&next)));
    let body = done.response.unwrap().into_body();
    // An MRTR round: the questions under the handler's own keys, with a token.
    assert_eq!(body["result"]["resultType"], "input_required");
    assert!(body["result"]["inputRequests"].get("a").is_some());
    assert!(body["result"]["requestState"].is_string());
    assert!(store.is_empty());
    // The request was decided once, by its continuation.
    assert!(e.decide(&call, Outcome::Complete(json!({"content": []}))).is_err());
}

#[test]
fn gates_and_cancellation() {
    let (e, store) = (engine(), MemoryTaskStore::default());
    // Undeclared on this request: -32021 before anything, even for an unknown id.
    let call = begin(&e, "alice", "tasks/get", json!({"taskId": "x"}), caps(false)).unwrap();
    let body = run(&e, &store, &call, None).response.unwrap();
    assert_eq!(body.http_status(), 400);
    assert_eq!(body.body()["error"]["code"], -32021);
    assert_eq!(
        body.body()["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    for (method, code) in [("tasks/result", -32601), ("tasks/list", -32601)] {
        let (b, _) = tasks(&e, &store, "alice", method, json!({"taskId": "x"}));
        assert_eq!(b["error"]["code"], code, "{method}");
    }
    let (b, _) = tasks(&e, &store, "alice", "tasks/cancel", json!({}));
    assert_eq!(b["error"]["code"], -32602);
    // A task cancelled while a run works: the run's end is refused (stale).
    let call = begin(&e, "alice", "tools/call", json!({"name": "report"}), caps(true)).unwrap();
    let done = run(&e, &store, &call, Some(report(&call)));
    let id = done.response.unwrap().into_body()["result"]["taskId"].as_str().unwrap().to_owned();
    let leg = done.leg.unwrap();
    let status =
        |leg: &Call| run(&e, &store, leg, None).response.unwrap().into_body()["result"]["status"].clone();
    assert_eq!(status(&leg), "working", "a run reads its own task");
    let (ack, _) = tasks(&e, &store, "alice", "tasks/cancel", json!({"taskId": id}));
    assert_eq!(ack["result"], json!({"resultType": "complete"}));
    assert_eq!(status(&leg), "cancelled", "and learns it was cancelled");
    run_legs(&e, &store, Some(leg));
    let (got, _) = tasks(&e, &store, "alice", "tasks/get", json!({"taskId": id}));
    assert_eq!(got["result"]["status"], "cancelled");
    assert!(got["result"].get("inputRequests").is_none());
}

struct Down;
impl TaskStore for Down {
    fn execute(&self, _: &crate::TaskCommand) -> crate::Result<String> {
        Err(crate::Error::new(crate::ErrorCode::Store, "down"))
    }
}

#[test]
fn a_failed_store_answers_32603_and_runs_nothing() {
    let e = engine();
    let call = begin(&e, "alice", "tools/call", json!({"name": "report"}), caps(true)).unwrap();
    let step = e.task_step(&call, Some(report(&call))).unwrap();
    assert!(Down.execute(step.command().unwrap()).is_err());
    let done = step.finish(None).unwrap();
    assert!(done.leg.is_none(), "no run without a stored task");
    assert_eq!(done.response.unwrap().body()["error"]["message"], "task store unavailable");
    // The Rust driver says why in the diagnostic, never to the client.
    let call = begin(&e, "alice", "tools/call", json!({"name": "report"}), caps(true)).unwrap();
    let done = e.run_task_step(&Down, &call, Some(report(&call))).unwrap();
    let response = done.response.unwrap();
    assert_eq!(response.body()["error"]["code"], -32603);
    assert_eq!(response.diagnostic(), Some("task store unavailable: down"));
    assert!(done.leg.is_none());
    // A reply no script gives is a STORE error, never a guess.
    let step = e.task_step(&call.clone(), Some(Outcome::Task { state: None }));
    assert!(step.is_err(), "decided already");
    let get = begin(&e, "alice", "tasks/get", json!({"taskId": "x"}), caps(true)).unwrap();
    let step = e.task_step(&get, None).unwrap();
    assert_eq!(step.finish(Some("task 3:abc")).unwrap_err().code(), crate::ErrorCode::Store);
}

#[test]
fn iso_dates() {
    assert_eq!(super::iso(0), "1970-01-01T00:00:00Z");
    assert_eq!(super::iso(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(super::iso(1_796_994_000), "2026-12-11T13:00:00Z");
}

#[test]
fn the_memory_store_is_bounded_per_principal() {
    let (e, store) = (engine(), MemoryTaskStore::new(8));
    let start = |who: &str| {
        let call = begin(&e, who, "tools/call", json!({"name": "report"}), caps(true)).unwrap();
        run(&e, &store, &call, Some(Outcome::Task { state: None })).response.unwrap().into_body()
    };
    for _ in 0..2 {
        assert_eq!(start("alice")["result"]["resultType"], "task");
    }
    // A third task of alice's is refused; bob still has his share.
    assert_eq!(start("alice")["error"]["code"], -32603);
    assert_eq!(start("bob")["result"]["resultType"], "task");
    assert_eq!(store.len(), 3);
}
