//! The task machine on real Redis (feature `redis`), a single server and a
//! 3-master Redis Cluster, as a fleet in miniature: every step of one task
//! goes through another `RedisStore` (another process's client) than the
//! one before, and the responses are exactly those the memory store gives
//! for the same steps, so the Lua scripts and the memory store mean the
//! same. Run by scripts/test-rust.sh with `SNODO_REDIS_URL` and
//! `SNODO_REDIS_CLUSTER_URLS` set; without them these tests FAIL.
#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use snodo::{
    Answer, Begin, Call, Config, Engine, Key, MemoryTaskStore, Outcome, Principal, Question, RedisStore,
    TaskStore,
};

fn env(name: &str) -> String {
    match std::env::var(name) {
        Ok(u) if !u.is_empty() => u,
        _ => panic!("{name} is not set: run scripts/test-rust.sh (it starts Redis via scripts/redis.sh)"),
    }
}

fn engine() -> Engine {
    Engine::new(Config::new(vec![Key::new("k1", vec![7; 32]).unwrap()])).unwrap()
}

fn begin(e: &Engine, who: &str, method: &str, mut params: Value, declared: bool) -> Box<Call> {
    let caps = if declared {
        json!({"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({"elicitation": {"form": {}}})
    };
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps});
    let req = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
    match e.begin_value(req, &Principal::user(who).unwrap()).unwrap() {
        Begin::Call(c) => c,
        Begin::Respond(r) => panic!("refused: {}", r.to_json()),
    }
}

fn pick() -> Question {
    snodo::elicit_form("Which?", &json!({"type": "object", "properties": {"pick": {"type": "string"}}}))
        .unwrap()
}

/// Asks `a` and `b` as a task, then ends with both picks (or a tool error
/// on a decline).
fn handler(call: &Call) -> Outcome {
    let Some(state) = call.state() else { return Outcome::Task { state: Some(json!({"asked": true})) } };
    assert_eq!(state["asked"], true);
    let q = pick();
    match (call.response("a", &q), call.response("b", &q)) {
        (Answer::Accepted(a), Answer::Accepted(b)) => Outcome::Complete(
            json!({"content": [{"type": "text", "text": format!("{} {}", a["pick"], b["pick"])}]}),
        ),
        (Answer::Declined, _) | (_, Answer::Declined) => Outcome::ToolError("declined".into()),
        _ => Outcome::InputRequired {
            requests: vec![("a".into(), q.clone()), ("b".into(), q)],
            state: Some(state.clone()),
        },
    }
}

/// Runs one step on `store`; runs any handed-back run to its end on `store` too.
fn step(e: &Engine, store: &dyn TaskStore, call: &Call, outcome: Option<Outcome>) -> Option<Value> {
    let s = e.task_step(call, outcome).unwrap();
    let reply = s.command().map(|c| store.execute(c).unwrap());
    let done = s.finish(reply.as_deref()).unwrap();
    let mut leg = done.leg;
    while let Some(run) = leg {
        let s = e.task_step(&run, Some(handler(&run))).unwrap();
        let reply = s.command().map(|c| store.execute(c).unwrap());
        leg = s.finish(reply.as_deref()).unwrap().leg;
    }
    done.response.map(|r| r.into_body())
}

/// One task's life, each step on the next store of `stores` in turn; the
/// responses with the task id and times masked.
fn life(stores: &[&dyn TaskStore], cancel_midway: bool) -> Vec<Value> {
    let e = engine();
    let mut turn = 0;
    let mut next = || {
        turn += 1;
        stores[turn % stores.len()]
    };
    let call = begin(&e, "alice", "tools/call", json!({"name": "r"}), true);
    let created = step(&e, next(), &call, Some(handler(&call))).unwrap();
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let mut seen = vec![created];
    let mut tasks = |who: &str, method: &str, extra: Value, declared: bool| {
        let mut params = json!({"taskId": id});
        params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let call = begin(&e, who, method, params, declared);
        seen.push(step(&e, next(), &call, None).unwrap());
    };
    let accept = |p: &str| json!({"action": "accept", "content": {"pick": p}});
    tasks("alice", "tasks/get", json!({}), true);
    tasks("mallory", "tasks/get", json!({}), true);
    tasks("alice", "tasks/get", json!({}), false);
    tasks(
        "alice",
        "tasks/update",
        json!({"inputResponses": {"a@1": accept("x"), "other": accept("q")}}),
        true,
    );
    tasks("alice", "tasks/get", json!({}), true);
    if cancel_midway {
        tasks("alice", "tasks/cancel", json!({}), true);
    }
    tasks("alice", "tasks/update", json!({"inputResponses": {"b@1": accept("y")}}), true);
    tasks("alice", "tasks/get", json!({}), true);
    tasks("alice", "tasks/cancel", json!({}), true);
    tasks("alice", "tasks/get", json!({}), true);
    let mask = |v: &mut Value| {
        if let Some(r) = v.get_mut("result").and_then(Value::as_object_mut) {
            for k in ["taskId", "createdAt", "lastUpdatedAt"] {
                if r.contains_key(k) {
                    r.insert(k.into(), json!("*"));
                }
            }
        }
    };
    seen.iter_mut().for_each(mask);
    seen
}

fn expect_life(seen: &[Value], cancelled: bool) {
    let status: Vec<&str> = seen.iter().filter_map(|v| v["result"]["status"].as_str()).collect();
    let end = if cancelled { "cancelled" } else { "completed" };
    let expected = vec!["working", "input_required", "input_required", end, end];
    assert_eq!(status, expected, "{seen:#?}");
    assert_eq!(seen[2]["error"]["code"], -32602, "another principal sees no task");
    assert_eq!(seen[3]["error"]["code"], -32021, "undeclared");
    if !cancelled {
        let done = seen.iter().rev().find(|v| v["result"]["status"] == "completed").unwrap();
        assert_eq!(done["result"]["result"]["content"][0]["text"], "\"x\" \"y\"");
    }
}

#[test]
fn a_task_across_clients_means_the_same_on_redis_and_in_memory() {
    let memory = MemoryTaskStore::default();
    let url = env("SNODO_REDIS_URL");
    let singles: Vec<RedisStore> = (0..3).map(|_| RedisStore::new(&url).unwrap()).collect();
    let urls = env("SNODO_REDIS_CLUSTER_URLS");
    let urls: Vec<&str> = urls.split(',').collect();
    let clusters: Vec<RedisStore> = (0..3).map(|_| RedisStore::cluster(&urls).unwrap()).collect();
    for cancel in [false, true] {
        let reference = life(&[&memory], cancel);
        expect_life(&reference, cancel);
        let fleet: Vec<&dyn TaskStore> = singles.iter().map(|s| s as &dyn TaskStore).collect();
        assert_eq!(life(&fleet, cancel), reference, "single Redis, cancel={cancel}");
        let fleet: Vec<&dyn TaskStore> = clusters.iter().map(|s| s as &dyn TaskStore).collect();
        assert_eq!(life(&fleet, cancel), reference, "Redis Cluster, cancel={cancel}");
    }
}

#[test]
fn concurrent_last_answers_resume_the_task_once() {
    // Two clients answer the last two keys at the same moment on two
    // stores: exactly one of them gets the next run.
    let url = env("SNODO_REDIS_URL");
    let e = engine();
    for _ in 0..20 {
        let (a, b) = (RedisStore::new(&url).unwrap(), RedisStore::new(&url).unwrap());
        let call = begin(&e, "alice", "tools/call", json!({"name": "r"}), true);
        let id = step(&e, &a, &call, Some(handler(&call))).unwrap()["result"]["taskId"]
            .as_str()
            .unwrap()
            .to_owned();
        let accept = json!({"action": "accept", "content": {"pick": "p"}});
        let run = |store: &RedisStore, key: &str| {
            let call = begin(
                &e,
                "alice",
                "tasks/update",
                json!({"taskId": id, "inputResponses": {key: accept}}),
                true,
            );
            let st = e.task_step(&call, None).unwrap();
            let reply = store.execute(st.command().unwrap()).unwrap();
            st.finish(Some(&reply)).unwrap().leg.is_some()
        };
        let run = &run;
        let legs = std::thread::scope(|s| {
            let h1 = s.spawn(move || run(&a, "a@1"));
            let h2 = s.spawn(move || run(&b, "b@1"));
            [h1.join().unwrap(), h2.join().unwrap()]
        });
        assert_eq!(legs.iter().filter(|l| **l).count(), 1, "{legs:?}");
    }
}

#[test]
fn redis_down_answers_32603() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let store = RedisStore::new(&format!("redis://127.0.0.1:{port}/")).unwrap();
    let e = engine();
    let call = begin(&e, "alice", "tasks/get", json!({"taskId": "t"}), true);
    let st = e.task_step(&call, None).unwrap();
    let err = store.execute(st.command().unwrap()).unwrap_err();
    assert_eq!(err.code(), snodo::ErrorCode::Store);
    let done = st.finish(None).unwrap();
    assert_eq!(done.response.unwrap().body()["error"]["code"], -32603);
}
