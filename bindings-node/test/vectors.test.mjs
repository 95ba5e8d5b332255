// Runs every vector file in tests/vectors/ (tests/vectors/README.md). A vector
// that does not reproduce byte for byte FAILS; an unknown file or op fails too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import * as snodo from '../index.js';
import { parseLossless } from './lossless.mjs';

const { Engine, Call, Session, OriginPolicy, canonicalize, bindingDigest } = snodo;
const DIR = process.env.SNODO_VECTORS_DIR ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tests', 'vectors');

// Vector configs are spelled in camelCase, as Node's (strictAnswers,
// audience and every limit pass straight through, and so does the vectors'
// testRandomSeed, a setting of the test build only, as fixedTime is).
function engine(config, fixedTime) {
  const { keys, ...rest } = config;
  return new Engine({
    ...rest,
    keys: keys.map((k) => ({ id: k.id, secret: Buffer.from(k.hex, 'hex') })),
    fixedTime,
  });
}

// Exact comparison: both sides canonicalized by the core from JSON text.
function sameJson(gotText, wantText, ctx) {
  assert.equal(canonicalize(gotText), canonicalize(wantText), ctx);
}

function errorName(fn) {
  try {
    return { ok: fn() };
  } catch (e) {
    assert.equal(typeof e.code, 'string', `thrown error without err.code: ${e}`);
    return { error: e.code };
  }
}

function pointer(doc, ptr) {
  let cur = doc;
  for (const part of ptr.split('/').slice(1)) {
    const k = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

// The call's ids and answers digest (null ids and expiry on a first round;
// the Rust runner makes every call block carry all four).
function sameIds(call, want, ctx) {
  for (const f of ['flowId', 'tokenId', 'tokenExpiresAt', 'answersDigest']) {
    assert.ok(Object.hasOwn(want, f), `${ctx}: the call block has no ${f}`);
    assert.equal(call[f], want[f], `${ctx}: ${f}`);
  }
}

function runFlows(doc, raw) {
  let n = 0;
  for (const t of doc.tests) {
    const testConfig = t.config ?? doc.config;
    const states = [];
    let sawError = false;
    t.steps.forEach((s, si) => {
      const ctx = `flows tc${t.tcId} step${si + 1} (${t.comment})`;
      const e = engine(s.config ?? testConfig, s.now ?? t.now);
      const who = Object.hasOwn(s, 'principal') ? s.principal : t.principal;
      let text = s.request;
      states.forEach((st, i) => { if (st) text = text.replaceAll(`{{state:${i + 1}}}`, st); });
      const begun = errorName(() => e.begin(text, who ?? null));
      if (begun.error) {
        sawError = true;
        assert.deepEqual(s.expected, { error: begun.error }, ctx);
        states.push(null);
        return;
      }
      let resp = begun.ok;
      if (resp instanceof Call) {
        const call = resp;
        for (const a of s.answers ?? []) {
          const got = call.response(a.key, raw(a.request));
          assert.equal(got.kind, a.expected.kind, `${ctx}: answer ${a.key}`);
          if (a.expected.kind === 'accepted') {
            sameJson(JSON.stringify(got.value ?? null), raw(a.expected.value), `${ctx}: answer ${a.key} value`);
          }
        }
        for (const a of s.rawAnswers ?? []) {
          sameJson(JSON.stringify(call.rawResponse(a.key)), raw(a.expected), `${ctx}: raw answer ${a.key}`);
        }
        if (s.call) {
          assert.equal(call.round, s.call.round, `${ctx}: round`);
          sameJson(JSON.stringify(call.state), raw(s.call.state), `${ctx}: state`);
          assert.deepEqual(call.askedKeys, s.call.askedKeys, `${ctx}: askedKeys`);
          sameIds(call, s.call, ctx);
        }
        // The outcome's exact text: number spellings reach the core intact.
        resp = e.decide(call, raw(s.outcome));
      }
      const body = JSON.parse(resp.json);
      for (const [ptr, want] of Object.entries(s.check ?? {})) {
        const got = ptr.startsWith('#') ? resp[ptr.slice(1)] : pointer(body, ptr);
        assert.deepEqual(got, want, `${ctx}: check ${ptr}`);
      }
      assert.equal(resp.httpStatus, s.expected.httpStatus, `${ctx}: httpStatus`);
      sameJson(resp.json, raw(s.expected.body), `${ctx}: body`);
      if (body.error) sawError = true;
      states.push(body.result?.requestState ?? null);
      n++;
    });
    assert.equal(sawError, t.result === 'invalid', `flows tc${t.tcId}: result ${t.result}`);
  }
  return n;
}

function runTokens(doc, raw) {
  const sealed = new Map();
  for (const t of doc.tests) {
    const ctx = `tokens tc${t.tcId} (${t.comment})`;
    const e = engine(t.config ?? doc.config, t.now);
    const who = t.principal ?? null;
    let out;
    if (t.op === 'seal') {
      const input = `{"principal":${JSON.stringify(who)},"method":${JSON.stringify(t.method)},`
        + `"params":${t.params},"round":${t.round},"flowStart":${t.flowStart},`
        + `"questions":${raw(t.questions)}${t.state === undefined ? '' : `,"state":${raw(t.state)}`}}`;
      const r = errorName(() => e.seal(input));
      out = r.error ? { error: r.error } : { token: r.ok };
      sealed.set(t.tcId, out.token);
      assert.deepEqual(out, t.expected, ctx);
    } else if (t.op === 'open') {
      if (t.tokenFrom && !t.tokenFrom.edit) assert.equal(t.token, sealed.get(t.tokenFrom.tcId), `${ctx}: token`);
      const binding = bindingDigest(t.method, t.params);
      try {
        const o = e.open(t.token, who, binding);
        out = {
          round: o.round, flowStart: o.flowStart, issuedAt: o.issuedAt, expiresAt: o.expiresAt,
          questionKeys: o.questionKeys, tokenId: o.tokenId, flowId: o.flowId,
        };
        const { state, ...rest } = t.expected;
        assert.deepEqual(out, rest, ctx);
        sameJson(JSON.stringify(o.state), raw(state), `${ctx}: state`);
        out.state = o.state;
      } catch (err) {
        assert.equal(err.code, 'TOKEN', `${ctx}: ${err}`);
        out = { reason: err.reason };
        assert.deepEqual(out, t.expected, ctx);
      }
    } else {
      assert.fail(`${ctx}: unknown op ${t.op}`);
    }
    for (const [k, v] of Object.entries(t.check ?? {})) assert.deepEqual(out[k], v, `${ctx}: check ${k}`);
    assert.equal(Boolean(out.error || out.reason), t.result === 'invalid', `${ctx}: result`);
  }
  return doc.tests.length;
}

function runBuilders(doc, raw) {
  for (const t of doc.tests) {
    const ctx = `builders tc${t.tcId} (${t.comment})`;
    const ops = {
      elicit_form: () => ({ request: snodo.elicitForm(t.message ?? '', raw(t.schema)) }),
      elicit_url: () => ({ request: snodo.elicitUrl(t.message ?? '', t.url ?? '') }),
      sampling: () => ({ request: snodo.sampling(raw(t.params)) }),
      list_roots: () => ({ request: snodo.listRoots() }),
      missing_capabilities: () => ({ missing: snodo.missingCapabilities(raw(t.requests), raw(t.capabilities)) }),
      filter_supported: () => ({ keys: Object.keys(snodo.filterSupported(raw(t.requests), raw(t.capabilities))) }),
      elicit_form_without_lint: () => ({ request: snodo.elicitFormWithoutLint(t.message ?? '', raw(t.schema)) }),
      elicit_url_without_lint: () => ({ request: snodo.elicitUrlWithoutLint(t.message ?? '', t.url ?? '') }),
      // INPUT_REQUEST is Node's spelling of the core's TaskInputCheck::Invalid.
      task_input_requests: () => {
        try {
          return { missing: snodo.checkTaskInputRequests(raw(t.task), raw(t.capabilities)) };
        } catch (err) {
          if (err.code !== 'INPUT_REQUEST') throw err;
          throw Object.assign(new Error(err.message), { code: 'INVALID_TASK' });
        }
      },
    };
    assert.ok(ops[t.op], `${ctx}: unknown op ${t.op}`);
    const r = errorName(ops[t.op]);
    if (r.error) {
      assert.deepEqual({ error: r.error }, t.expected, ctx);
    } else {
      const [[field, got]] = Object.entries(r.ok);
      assert.ok(Object.hasOwn(t.expected, field), `${ctx}: expected ${JSON.stringify(t.expected)}, got ${field}`);
      // A builder's Question carries its exact canonical text.
      if (field === 'request') assert.ok(got instanceof snodo.Question, `${ctx}: a Question`);
      sameJson(got instanceof snodo.Question ? got.json : JSON.stringify(got), raw(t.expected[field]), ctx);
    }
    assert.equal(Boolean(r.error), t.result === 'invalid', `${ctx}: result`);
  }
  return doc.tests.length;
}

function runCanonical(doc) {
  for (const t of doc.tests) {
    const ctx = `canonical tc${t.tcId} (${t.comment})`;
    let out;
    if (t.op === 'canonical') {
      const r = errorName(() => canonicalize(t.input));
      out = r.error ? { error: r.error } : { canonical: r.ok };
    } else if (t.op === 'binding') {
      out = { digestHex: bindingDigest(t.method, t.params).toString('hex') };
    } else {
      assert.fail(`${ctx}: unknown op ${t.op}`);
    }
    assert.deepEqual(out, t.expected, ctx);
    assert.equal(Boolean(out.error), t.result === 'invalid', `${ctx}: result`);
  }
  return doc.tests.length;
}

// consistency.json: one core call per case; errors compared with their exact
// message. Node passes JSON arguments as text, so values are stringified.
function consistencyOut(doc, t, raw) {
  const inp = t.input;
  const e = engine(doc.config, t.now);
  const caught = (fn) => {
    try {
      return fn();
    } catch (err) {
      assert.equal(typeof err.code, 'string', `thrown error without err.code: ${err}`);
      return err.reason ? { error: err.code, reason: err.reason, message: err.message } : { error: err.code, message: err.message };
    }
  };
  switch (t.op) {
    case 'decide_twice': {
      const call = e.begin(inp.request, inp.principal);
      assert.ok(call instanceof Call, 'begin gave a call');
      e.decide(call, raw(inp.outcome));
      return caught(() => ({ second: e.decide(call, raw(inp.outcome)).body }));
    }
    case 'principal': {
      if (!Object.hasOwn(inp, 'principal')) {
        assert.throws(() => e.begin(inp.request), (err) => err.code === 'ARGUMENT');
        return { error: 'OMITTED' };
      }
      return caught(() => ({ principal: e.begin(inp.request, inp.principal).principal }));
    }
    case 'missing_capabilities':
      return caught(() => ({ result: snodo.missingCapabilities(raw(inp.requests), raw(inp.capabilities)) }));
    case 'filter_supported':
      return caught(() => ({ result: snodo.filterSupported(raw(inp.requests), raw(inp.capabilities)) }));
    case 'binding_digest':
      return caught(() => ({ digestHex: bindingDigest(inp.method, inp.params).toString('hex') }));
    case 'canonicalize': {
      const bytes = Object.hasOwn(inp, 'hex')
        ? Buffer.from(inp.hex, 'hex')
        : Buffer.concat([Buffer.alloc(Number(inp.padSpaces ?? 0), 0x20), Buffer.from(inp.text, 'utf8')]);
      return caught(() => ({ canonical: canonicalize(bytes) }));
    }
    case 'opened': {
      const binding = bindingDigest(inp.method, inp.params).toString('hex');
      const input = { principal: inp.principal, binding };
      for (const k of ['round', 'flowStart', 'questions', 'state']) {
        if (Object.hasOwn(inp, k)) input[k] = JSON.parse(raw(inp[k]));
      }
      const token = e.seal(input);
      const who = Object.hasOwn(inp, 'openAs') ? inp.openAs : inp.principal;
      return caught(() => ({ opened: e.open(token, who, Buffer.from(binding, 'hex')) }));
    }
    case 'config': {
      if (inp.spelling !== 'camel') return null; // Node spells limits in camelCase only.
      const keys = [{ id: 'k1', secret: Buffer.alloc(32, 7) }];
      return caught(() => (new Engine({ keys, [inp.name]: Number(inp.value) }), { ok: true }));
    }
    default:
      assert.fail(`consistency tc${t.tcId}: unknown op ${t.op}`);
  }
}

function runConsistency(doc, raw) {
  for (const t of doc.tests) {
    const ctx = `consistency tc${t.tcId} (${t.comment})`;
    const out = consistencyOut(doc, t, raw);
    if (out === null) {
      assert.ok(t.op === 'config' && t.input.spelling === 'snake', ctx);
      continue;
    }
    sameJson(JSON.stringify(out), raw(t.expected), ctx);
    assert.equal(Boolean(out.error), t.result === 'invalid', `${ctx}: result`);
  }
  return doc.tests.length;
}

// headers.json: the pairs as given, and the same pairs in every other shape
// checkHttpHeaders accepts (req.rawHeaders flat list, Map; and the
// headersDistinct-style object when no name repeats modulo case), each with
// the request as text, Buffer and object: all must give the same answer.
function runHeaders(doc, raw) {
  let n = 0;
  for (const t of doc.tests) {
    const ctx = `headers tc${t.tcId} (${t.comment})`;
    assert.equal(t.op, 'check_http_headers', `${ctx}: unknown op ${t.op}`);
    const shapes = [t.headers, t.headers.flat()];
    const lower = t.headers.map(([k]) => k.toLowerCase());
    if (new Set(lower).size === lower.length) {
      // A Map or an object keeps one entry per name: only when none repeats.
      shapes.push(new Map(t.headers), Object.fromEntries(t.headers.map(([k, v]) => [k.toLowerCase(), [v]])));
    }
    const requests = [t.request, Buffer.from(t.request, 'utf8')];
    try { requests.push(JSON.parse(t.request)); } catch { /* not JSON: text and Buffer only */ }
    for (const [si, headers] of shapes.entries()) {
      for (const [ri, request] of requests.entries()) {
        const r = snodo.checkHttpHeaders(headers, request);
        const out = r === null ? null : { httpStatus: r.httpStatus, body: JSON.parse(r.json) };
        if (out === null || t.expected === null) {
          assert.deepEqual(out, t.expected, `${ctx} shape ${si} request ${ri}`);
        } else {
          assert.equal(out.httpStatus, t.expected.httpStatus, `${ctx}: httpStatus`);
          sameJson(r.json, raw(t.expected.body), `${ctx} shape ${si} request ${ri}: body`);
        }
        assert.equal(out === null, t.result === 'valid', `${ctx}: result`);
      }
    }
    n++;
  }
  return n;
}

// origin.json: the Origin/Host check, with the headers in every shape
// checkHttpOrigin accepts (as headers.json), and the loopback policy both
// as `new OriginPolicy()` and `OriginPolicy.loopback()`.
function runOrigin(doc, raw) {
  for (const t of doc.tests) {
    const ctx = `origin tc${t.tcId} (${t.comment})`;
    assert.equal(t.op, 'check_http_origin', `${ctx}: unknown op ${t.op}`);
    const policies = t.policy === null
      ? [new OriginPolicy(), OriginPolicy.loopback()]
      : [new OriginPolicy({ hosts: t.policy.hosts, origins: t.policy.origins })];
    const shapes = [t.headers, t.headers.flat()];
    const lower = t.headers.map(([k]) => k.toLowerCase());
    if (new Set(lower).size === lower.length) {
      shapes.push(new Map(t.headers), Object.fromEntries(t.headers.map(([k, v]) => [k.toLowerCase(), [v]])));
      shapes.push(new Headers(t.headers.filter(([, v]) => /^[\x20-\x7e]*$/.test(v))));
    }
    for (const [pi, policy] of policies.entries()) {
      for (const [si, headers] of shapes.entries()) {
        // A Headers object drops what fetch would refuse to send; only compare it when it kept everything.
        if (headers instanceof Headers && [...headers].length !== t.headers.length) continue;
        const r = snodo.checkHttpOrigin(policy, headers);
        const where = `${ctx} policy ${pi} shape ${si}`;
        if (r === null || t.expected === null) {
          assert.deepEqual(r === null ? null : { httpStatus: r.httpStatus, body: r.body }, t.expected, where);
        } else {
          assert.equal(r.httpStatus, t.expected.httpStatus, `${where}: httpStatus`);
          sameJson(r.json, raw(t.expected.body), `${where}: body`);
        }
        for (const [ptr, want] of Object.entries(t.check ?? {})) {
          const got = ptr.startsWith('#') ? r?.[ptr.slice(1)] : pointer(r === null ? null : r.body, ptr);
          assert.deepEqual(got, want, `${where}: check ${ptr}`);
        }
        assert.equal(r === null, t.result === 'valid', `${where}: result`);
      }
    }
  }
  return doc.tests.length;
}

// begin on the text and beginParts on plain JS values (what the
// SDK hands a handler, JSON.parse output) give the same response.
function runParts(doc, raw) {
  let n = 0;
  for (const t of doc.tests) {
    const e = engine(doc.config, t.now);
    const states = [];
    let sawError = false;
    t.steps.forEach((s, si) => {
      const ctx = `parts tc${t.tcId} step${si + 1} (${t.comment})`;
      let text = s.request;
      let partsText = JSON.stringify(s.parts);
      states.forEach((st, i) => {
        if (!st) return;
        text = text.replaceAll(`{{state:${i + 1}}}`, st);
        partsText = partsText.replaceAll(`{{state:${i + 1}}}`, st);
      });
      const parts = JSON.parse(partsText);
      const bodies = [];
      for (const begun of [e.begin(text, t.principal), e.beginParts(parts.id, parts.method, parts.params, t.principal)]) {
        let resp = begun;
        if (resp instanceof Call) {
          for (const a of s.answers ?? []) {
            assert.equal(resp.response(a.key, raw(a.request)).kind, a.expected.kind, `${ctx}: answer ${a.key}`);
          }
          if (s.call) {
            assert.equal(resp.round, s.call.round, `${ctx}: round`);
            sameIds(resp, s.call, ctx); // the parts give the bytes' ids and digest
          }
          resp = e.decide(resp, raw(s.outcome));
        }
        assert.equal(resp.httpStatus, s.expected.httpStatus, `${ctx}: httpStatus`);
        sameJson(resp.json, raw(s.expected.body), `${ctx}: body`);
        bodies.push(resp.json);
      }
      assert.equal(bodies[0], bodies[1], `${ctx}: parts and bytes differ`);
      const body = JSON.parse(bodies[0]);
      if (body.error) sawError = true;
      states.push(body.result?.requestState ?? null);
      n++;
    });
    assert.equal(sawError, t.result === 'invalid', `parts tc${t.tcId}: result ${t.result}`);
  }
  return n;
}

// tests/vectors/cli/cli.json (the snodo-mrtr command line) is run by cli.test.mjs.
// The legacy bridge (legacy.json; format in tests/vectors/README.md).
// Every output is rebuilt in the Rust runner's shape and compared exactly.
function legacyCall(c) {
  return {
    id: c.id, method: c.method, round: c.round, protocolVersion: c.protocolVersion,
    capabilities: c.clientCapabilities, mrtrAllowed: c.mrtrAllowed, legacy: c.isLegacy,
    state: c.state, askedKeys: c.askedKeys,
  };
}

function responseOut(r) {
  return `{"httpStatus":${r.httpStatus},"body":${r.json}}`;
}

function runLegacy(doc, raw) {
  let n = 0;
  for (const t of doc.tests) {
    const cfg = t.config ?? doc.config;
    const ctx0 = `legacy tc${t.tcId} (${t.comment})`;
    const s = t.session;
    // Who opened the session: its own principal, else the test's.
    const opener = Object.hasOwn(s, 'principal') ? s.principal : (t.principal ?? null);
    const session = new Session(s.protocolVersion, raw(s.capabilities), s.clientInfo == null ? null : raw(s.clientInfo), opener).withId(s.id);
    assert.equal(session.principal, opener, `${ctx0}: session principal`);
    let sawError = false;
    let call = null;
    let pending = null;
    const begun = engine(cfg, t.now).beginLegacy(t.request, session, t.principal ?? null);
    let out;
    if (begun instanceof Call) {
      assert.equal(session.protocolVersion, begun.protocolVersion, `${ctx0}: session version`);
      call = begun;
      out = JSON.stringify({ call: legacyCall(begun) });
    } else {
      sawError = true;
      out = `{"respond":${responseOut(begun)}}`;
    }
    sameJson(out, raw(t.begin), `${ctx0}: begin`);
    t.steps.forEach((st, si) => {
      const ctx = `legacy tc${t.tcId} step${si + 1} (${t.comment})`;
      const e = engine(cfg, st.now ?? t.now);
      const feedOut = (f) => {
        if (f.kind === 'waiting') return '{"waiting":true}';
        if (f.kind === 'resume') {
          call = f.call;
          return JSON.stringify({ resume: legacyCall(f.call) });
        }
        assert.equal(f.kind, 'respond', `${ctx}: feed kind`);
        return `{"respond":${responseOut(f.response)},"cancellations":${JSON.stringify(f.cancellations)}}`;
      };
      const thrown = (fn) => {
        try {
          return feedOut(fn());
        } catch (err) {
          assert.equal(typeof err.code, 'string', `${ctx}: thrown error without err.code: ${err}`);
          return JSON.stringify({ error: err.code, message: err.message });
        }
      };
      let got;
      if (st.op === 'decide') {
        assert.ok(call, `${ctx}: a call to decide`);
        for (const a of st.answers ?? []) {
          const ans = call.response(a.key, raw(a.request));
          assert.equal(ans.kind, a.expected.kind, `${ctx}: answer ${a.key}`);
          if (a.expected.kind === 'accepted') {
            sameJson(JSON.stringify(ans.value ?? null), raw(a.expected.value), `${ctx}: answer ${a.key} value`);
          }
        }
        const c = call;
        call = null;
        const r = e.decideLegacy(c, raw(st.outcome));
        if (r.kind === 'respond') {
          got = `{"respond":${responseOut(r.response)}}`;
        } else if (r.kind === 'send') {
          pending = r.pending;
          assert.equal(pending.isEnded, false, `${ctx}: fresh flow ended`);
          assert.deepEqual(pending.outstanding, pending.requestIds, `${ctx}: all outstanding`);
          for (const id of pending.requestIds) assert.ok(pending.awaits(id), `${ctx}: awaits ${id}`);
          got = JSON.stringify({ send: pending.requests, deadline: pending.deadline, round: pending.round, elicitationIds: pending.elicitationIds });
        } else {
          assert.equal(r.kind, 'resume', `${ctx}: decide kind`);
          call = r.call;
          got = JSON.stringify({ resume: legacyCall(r.call) });
        }
      } else if (st.op === 'feed') {
        assert.ok(pending, `${ctx}: a pending flow`);
        let text = st.response;
        pending.requestIds.forEach((id, i) => { text = text.replaceAll(`{{leg:${i + 1}}}`, id); });
        // Who sends it: the step's own principal, else the test's.
        const by = Object.hasOwn(st, 'principal') ? st.principal : (t.principal ?? null);
        got = thrown(() => e.feed(pending, text, by));
      } else if (st.op === 'timeout') {
        assert.ok(pending, `${ctx}: a pending flow`);
        got = thrown(() => e.timeout(pending));
      } else if (st.op === 'cancel') {
        assert.ok(pending, `${ctx}: a pending flow`);
        got = JSON.stringify({ cancellations: pending.cancel(st.reason ?? null) });
        assert.equal(pending.isEnded, true, `${ctx}: cancelled flow ended`);
      } else {
        assert.fail(`${ctx}: unknown op ${st.op}`);
      }
      const parsed = JSON.parse(got);
      if (parsed.error !== undefined || parsed.respond?.body?.error !== undefined) sawError = true;
      sameJson(got, raw(st.expected), `${ctx}: expected output`);
      n++;
    });
    if (t.steps.length === 0) n++;
    assert.equal(sawError, t.result === 'invalid', `legacy tc${t.tcId}: result ${t.result}`);
  }
  return n;
}

const RUNNERS = {
  legacy: runLegacy,
  parts: runParts,
  flows: runFlows,
  tokens: runTokens,
  builders: runBuilders,
  canonical: runCanonical,
  consistency: runConsistency,
  // Same formats as flows.json / builders.json (the wire rules).
  wire: runFlows,
  'wire-builders': runBuilders,
  headers: runHeaders,
  origin: runOrigin,
};
const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();

test('the vector directory has files', () => {
  assert.ok(files.length >= 4, `only ${files.length} vector files in ${DIR}`);
});

for (const file of files) {
  test(`vectors: ${file}`, () => {
    const { root, raw } = parseLossless(readFileSync(path.join(DIR, file), 'utf8'));
    assert.equal(root.schema, 'snodo-vectors-v1', `${file}: schema`);
    const run = RUNNERS[path.basename(file, '.json')];
    assert.ok(run, `${file}: no runner for this file; add one`);
    const n = run(root, raw);
    assert.ok(n > 0, `${file}: no vectors ran`);
  });
}
