//! The model-based test of the once machine, shared by the memory and
//! Redis suites: virtual workers drive `OnceRun`s through a random
//! interleaving of steps (claim, effect, complete, release, extend, lookup),
//! crashes and lease lapses, on a real store; every reply is compared with
//! a sequential model of a flow's record, and the guarantee is checked as
//! the run goes:
//!
//! - per flow, effects that ran ≤ 1 + takeovers of a pending claim whose
//!   lease lapsed (the one documented way to a second run: an owner that
//!   was slow, or died mid-effect, past its lease);
//! - fencing numbers of a flow's wins strictly grow, and a fenced ledger
//!   (insert if absent, refuse a smaller fence than seen) holds one entry
//!   per flow;
//! - a run that ends with a result gets the flow's remembered result for
//!   its own answers; one with other answers gets `replayed`.

use snodo::{
    Call, ErrorCode, ONCE_REPLAYED_MESSAGE, OnceCommand, OnceOp, OnceOptions, OnceRun, OnceStep, OnceTicket,
};
use std::collections::HashMap;
use std::time::Duration;

/// Where the commands run: a store (or several stores on one backend, the
/// processes of a fleet) and a clock that can be moved past a lease.
pub trait Backend {
    /// The settings every run uses.
    fn settings(&self) -> snodo::OnceSettings;
    /// Runs `command` on process `process`'s store.
    fn execute(&self, process: usize, command: &OnceCommand) -> snodo::Result<String>;
    /// Moves time past every live lease (and not past a flow's expiry).
    fn lapse(&mut self);
}

#[derive(Debug, Clone)]
pub enum Op {
    /// A new caller on the final round `calls[flow][token][answer]`, on
    /// process `process`; `fails`: its effect fails before doing anything.
    Spawn { flow: usize, token: usize, answer: usize, process: usize, fails: bool },
    /// Worker `w % live` takes one step.
    Step(usize),
    /// Worker `w % live` dies wherever it is (its claim, if any, stays).
    Crash(usize),
    /// Worker `w % live` extends its lease, if it is running the effect.
    Extend(usize),
    /// A lookup of `calls[flow][token][answer]`.
    Lookup { flow: usize, token: usize, answer: usize },
    /// Every live lease lapses.
    Lapse,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Pending { owner: String, epoch: u64 },
    Done { text: String },
    Free,
}

#[derive(Debug, Clone)]
struct Record {
    state: State,
    fence: u64,
    digest: String,
}

/// The sequential model: what a store must answer, command by command.
#[derive(Default)]
struct Model {
    records: HashMap<String, Record>,
    epoch: u64,
}

impl Model {
    fn live(&self, r: &Record) -> bool {
        matches!(&r.state, State::Pending { epoch, .. } if *epoch == self.epoch)
    }

    fn execute(&mut self, c: &OnceCommand) -> String {
        let epoch = self.epoch;
        let live = self.records.get(c.key()).map(|r| self.live(r));
        let r = self.records.get_mut(c.key());
        match c.op() {
            OnceOp::Claim => match r {
                Some(r) if matches!(r.state, State::Done { .. }) => done(r),
                Some(r) if live == Some(true) => format!("pending {}", r.fence),
                other => {
                    let fence = other.map_or(0, |r| r.fence) + 1;
                    let owner = c.owner().to_owned();
                    let state = State::Pending { owner, epoch };
                    self.records
                        .insert(c.key().to_owned(), Record { state, fence, digest: c.digest().to_owned() });
                    format!("won {fence}")
                }
            },
            OnceOp::Complete => match r {
                Some(r) if owned(r, c) => {
                    r.state = State::Done { text: c.text().to_owned() };
                    "completed".into()
                }
                _ => "lost".into(),
            },
            OnceOp::Release => match r {
                Some(r) if owned(r, c) => {
                    r.state = State::Free;
                    r.digest.clear();
                    "released".into()
                }
                _ => "lost".into(),
            },
            OnceOp::Extend => match r {
                Some(r) if owned(r, c) => {
                    r.state = State::Pending { owner: c.owner().to_owned(), epoch };
                    format!("extended {}", r.fence)
                }
                _ => "lost".into(),
            },
            OnceOp::Lookup => match r {
                None => "none".into(),
                Some(r) if matches!(r.state, State::Done { .. }) => done(r),
                Some(r) if live == Some(true) => format!("pending {}", r.fence),
                Some(r) => format!("free {}", r.fence),
            },
        }
    }
}

fn done(r: &Record) -> String {
    match &r.state {
        State::Done { text } => format!("done {} {} {text}", r.fence, r.digest),
        _ => unreachable!(),
    }
}

fn owned(r: &Record, c: &OnceCommand) -> bool {
    matches!(&r.state, State::Pending { owner, .. } if owner == c.owner())
}

#[derive(Debug)]
enum Status {
    Active,
    Finished(Result<String, (ErrorCode, String)>),
}

struct Worker {
    run: OnceRun,
    step: OnceStep,
    ticket: Option<OnceTicket>,
    flow: usize,
    digest: String,
    process: usize,
    fails: bool,
    status: Status,
}

/// Runs `ops` on `backend` against the model; panics on the first breach.
pub fn run(backend: &mut dyn Backend, calls: &[Vec<Vec<Call>>], processes: usize, ops: &[Op]) {
    let settings = backend.settings();
    let options = OnceOptions { wait: Duration::from_secs(3600), ..OnceOptions::default() };
    let mut model = Model::default();
    let mut workers: Vec<Worker> = Vec::new();
    let flows = calls.len();
    // Per flow: effects that ran; takeovers of a lapsed pending claim; the
    // greatest fence won; the fenced ledger's entry.
    let mut effects = vec![0usize; flows];
    let mut takeovers = vec![0usize; flows];
    let mut max_fence = vec![0u64; flows];
    let mut ledger: Vec<Option<u64>> = vec![None; flows];
    let mut ledger_seen = vec![0u64; flows];

    let exec = |backend: &mut dyn Backend, model: &mut Model, process: usize, c: &OnceCommand| -> String {
        let got =
            backend.execute(process % processes, c).unwrap_or_else(|e| panic!("store error on {c:?}: {e}"));
        let want = model.execute(c);
        assert_eq!(got, want, "the store and the model disagree on {:?} {}", c.op(), c.key());
        got
    };

    for op in ops {
        let live: Vec<usize> =
            (0..workers.len()).filter(|&i| matches!(workers[i].status, Status::Active)).collect();
        match op.clone() {
            Op::Spawn { flow, token, answer, process, fails } => {
                let call = &calls[flow % flows][token % calls[0].len()][answer % calls[0][0].len()];
                let mut run = OnceRun::new(call, &settings, &options).unwrap();
                let step = run.start().unwrap();
                workers.push(Worker {
                    run,
                    step,
                    ticket: None,
                    flow: flow % flows,
                    digest: call.answers_digest(),
                    process,
                    fails,
                    status: Status::Active,
                });
            }
            Op::Lookup { flow, token, answer } => {
                let call = &calls[flow % flows][token % calls[0].len()][answer % calls[0][0].len()];
                let mut run = OnceRun::lookup(call, &settings).unwrap();
                let OnceStep::Command(c) = run.start().unwrap() else { panic!("lookup: no command") };
                let reply = exec(backend, &mut model, 0, &c);
                let key = c.key().to_owned();
                match run.feed(&reply) {
                    Ok(OnceStep::Open) => assert!(!matches!(
                        model.records.get(&key).map(|r| &r.state),
                        Some(State::Done { .. })
                    )),
                    Ok(OnceStep::Done(text)) => {
                        let r = &model.records[&key];
                        assert_eq!(r.digest, call.answers_digest());
                        assert_eq!(r.state, State::Done { text });
                    }
                    Err(e) => {
                        assert_eq!((e.code(), e.message()), (ErrorCode::Token, ONCE_REPLAYED_MESSAGE));
                        assert_ne!(model.records[&key].digest, call.answers_digest());
                    }
                    Ok(other) => panic!("lookup gave {other:?}"),
                }
            }
            Op::Lapse => {
                backend.lapse();
                model.epoch += 1;
            }
            Op::Crash(w) if !live.is_empty() => {
                workers[live[w % live.len()]].status =
                    Status::Finished(Err((ErrorCode::Store, "crashed".into())));
            }
            Op::Extend(w) if !live.is_empty() => {
                let worker = &mut workers[live[w % live.len()]];
                if let Some(ticket) = worker.ticket.clone() {
                    let reply = exec(backend, &mut model, worker.process, ticket.extend_command());
                    ticket.extended(&reply).unwrap();
                }
            }
            Op::Step(w) if !live.is_empty() => {
                let i = live[w % live.len()];
                let step = workers[i].step.clone();
                let worker = &mut workers[i];
                let next = match step {
                    OnceStep::Command(c) => {
                        let before = model.records.get(c.key()).cloned();
                        let reply = exec(backend, &mut model, worker.process, &c);
                        match worker.run.feed(&reply) {
                            Ok(OnceStep::Effect(ticket)) => {
                                let fence = ticket.fence();
                                assert!(fence > max_fence[worker.flow], "fences of a flow must grow");
                                max_fence[worker.flow] = fence;
                                if before.is_some_and(|b| matches!(b.state, State::Pending { .. })) {
                                    takeovers[worker.flow] += 1;
                                }
                                worker.ticket = Some(ticket.clone());
                                OnceStep::Effect(ticket)
                            }
                            Ok(s) => s,
                            Err(e) => {
                                worker.status = Status::Finished(Err((e.code(), e.message().to_owned())));
                                continue;
                            }
                        }
                    }
                    OnceStep::Sleep(_) => worker.run.resume().unwrap(),
                    OnceStep::Effect(ticket) => {
                        if worker.fails {
                            worker.run.effect_failed().unwrap()
                        } else {
                            let fence = ticket.fence();
                            effects[worker.flow] += 1;
                            // The fenced ledger: refuse a smaller fence than
                            // seen, and keep the first entry of a flow.
                            if fence >= ledger_seen[worker.flow] {
                                ledger_seen[worker.flow] = fence;
                                if ledger[worker.flow].is_none() {
                                    ledger[worker.flow] = Some(fence);
                                }
                            }
                            worker
                                .run
                                .effect_done(format!("booked flow {} fence {fence}", worker.flow))
                                .unwrap()
                        }
                    }
                    OnceStep::Done(text) => {
                        worker.status = Status::Finished(Ok(text));
                        continue;
                    }
                    OnceStep::Released => {
                        worker.status = Status::Finished(Err((ErrorCode::Argument, "released".into())));
                        continue;
                    }
                    OnceStep::Open => panic!("a run gave Open"),
                };
                worker.step = next;
            }
            _ => {}
        }
        for f in 0..flows {
            assert!(
                effects[f] <= 1 + takeovers[f],
                "flow {f}: {} effects with {} takeovers of a lapsed claim",
                effects[f],
                takeovers[f]
            );
        }
    }
    // Every finished run's answer agrees with the flow's record.
    for w in &workers {
        let part = format!("{{{}}}", calls[w.flow][0][0].flow_id().unwrap());
        let record = model.records.iter().find(|(k, _)| k.ends_with(&part)).map(|(_, r)| r);
        match &w.status {
            Status::Finished(Ok(text)) => {
                let r = record.expect("a result without a record");
                assert_eq!(r.digest, w.digest, "a result for other answers");
                assert_eq!(r.state, State::Done { text: text.clone() }, "not the remembered result");
            }
            Status::Finished(Err((ErrorCode::Token, m))) => {
                assert_eq!(m, ONCE_REPLAYED_MESSAGE);
                let r = record.expect("replayed without a record");
                assert!(matches!(r.state, State::Done { .. }));
                assert_ne!(r.digest, w.digest, "replayed with the completing answers");
            }
            _ => {}
        }
    }
}

/// Random schedules: spawns, steps (most often), crashes, extensions,
/// lookups and, with weight `lapses`, lease lapses.
pub fn schedule(len: usize, lapses: u32) -> impl proptest::strategy::Strategy<Value = Vec<Op>> {
    use proptest::prelude::*;
    let op = prop_oneof![
        3 => (0..2usize, 0..2usize, 0..2usize, 0..2usize, proptest::bool::weighted(0.2))
            .prop_map(|(flow, token, answer, process, fails)| Op::Spawn { flow, token, answer, process, fails }),
        12 => (0..8usize).prop_map(Op::Step),
        1 => (0..8usize).prop_map(Op::Crash),
        1 => (0..8usize).prop_map(Op::Extend),
        1 => (0..2usize, 0..2usize, 0..2usize).prop_map(|(flow, token, answer)| Op::Lookup { flow, token, answer }),
        lapses => Just(Op::Lapse),
    ];
    proptest::collection::vec(op, 1..len)
}
