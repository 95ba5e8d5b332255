// Flows for the once tests: a booking tool that asks two questions in two
// rounds, so a flow has an intermediate and a final retry, and a flow can
// hand out more than one token.
import { createHash } from 'node:crypto';
import { Call, Engine, ONCE_REPLAYED_MESSAGE, OnceRun, canonicalize, elicitForm, inputRequired } from '../index.js';
import { checkOnce, runOnce } from '../once.mjs';

export const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

export const SECRET = Buffer.alloc(32, 7);

export const engine = (extra = {}) => new Engine({ keys: [{ id: 'k1', secret: SECRET }], ...extra });

export const DATE = elicitForm('Which date?', {
  type: 'object', properties: { date: { type: 'string' } }, required: ['date'],
});
export const SEATS = elicitForm('How many seats?', {
  type: 'object', properties: { seats: { type: 'integer' } }, required: ['seats'],
});

export const request = (id, extra = {}) => ({
  jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'book', arguments: { show: 'x' }, _meta: META, ...extra },
});

export const accept = (content) => ({ action: 'accept', content });

function begin(e, req) {
  const call = e.begin(req, 'alice');
  if (!(call instanceof Call)) throw new Error(`not a call: ${call.json}`);
  return call;
}

/**
 * Runs rounds 1 and 2 of a flow and returns the round-2 token `t2` plus:
 * `final(seats)`, which begins a final round (round 3) with `t2` and that
 * seat count (each a fresh Call, as another request or process sees it);
 * `again(token)`, a retry of `token` without answers that asks the seats
 * again and returns the new token of the same flow; `finalWith(token,
 * seats)`, a final round with any token of the flow; `bare(token)`, the
 * Call of a retry of `token` without answers.
 */
export function finalRound(e) {
  const first = begin(e, request(1));
  const t1 = e.decide(first, inputRequired({ date: DATE })).body.result.requestState;
  const second = begin(e, request(2, { requestState: t1, inputResponses: { date: accept({ date: '2026-08-01' }) } }));
  const t2 = e.decide(second, inputRequired({ seats: SEATS }, { date: '2026-08-01' })).body.result.requestState;
  let id = 3;
  const finalWith = (token, seats = 2) =>
    begin(e, request(id++, { requestState: token, inputResponses: { seats: accept({ seats }) } }));
  const final = (seats = 2) => finalWith(t2, seats);
  const bare = (token) => begin(e, request(id++, { requestState: token }));
  const again = (token) =>
    e.decide(bare(token), inputRequired({ seats: SEATS }, { date: '2026-08-01' })).body.result.requestState;
  return { first, second, t1, t2, final, finalWith, bare, again };
}

/** base64url (no padding) SHA-256 of canonical JSON: the answers digest. */
export const digestText = (text) => createHash('sha256').update(text, 'utf8').digest('base64url');
export const digestOf = (value) => digestText(canonicalize(JSON.stringify(value)));

/** A promise's error as `[code, message]`, or null when it resolved. */
export const code = async (promise) => {
  try {
    await promise;
  } catch (e) {
    return [e.code, e.message];
  }
  return null;
};

export const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `replayed` refusal: TOKEN, the core's message, `reason` replayed. */
export const replayed = (err) => err?.code === 'TOKEN' && err.reason === 'replayed' && err.message === ONCE_REPLAYED_MESSAGE;

/**
 * The scenarios every store runs (memory, one Redis, a Redis Cluster).
 * `fleet(leaseSecs?)` gives a function that hands out the stores of one
 * fleet: on Redis each on a new client (as another process would have),
 * in memory always the same store. Returns `[name, async (assert) => …]`
 * pairs.
 */
export function sharedScenarios(fleet) {
  return [
    ['two tokens of one flow, two answers each, all at once: one effect; the winner\'s answers get its text, the others replayed', async (assert) => {
      const e = engine();
      for (let flow = 0; flow < 5; flow++) {
        const { t2, again, finalWith } = finalRound(e);
        const t2b = again(t2); // a second token of the same flow
        const store = fleet();
        const stores = await Promise.all([1, 2, 3, 4].map(() => store()));
        let runs = 0;
        const effect = async () => {
          runs++;
          await pause(15);
          return { booked: runs };
        };
        const rounds = [[t2, 2], [t2b, 3], [t2, 2], [t2b, 3], [t2, 4], [t2b, 2]];
        const settled = await Promise.allSettled(rounds.map(([t, seats], i) => runOnce(stores[i % 4], finalWith(t, seats), effect)));
        assert.equal(runs, 1, `flow ${flow}: ${runs} effects`);
        const won = settled.filter((s) => s.status === 'fulfilled');
        assert.ok(won.length >= 1, JSON.stringify(settled.map((s) => s.reason?.message)));
        for (const s of won) assert.deepEqual(s.value, { booked: 1 });
        // Every fulfilled one carried the winner's answers (the same seats);
        // every other one was refused as replayed.
        const seatsOf = settled.map((s, i) => [s, rounds[i][1]]);
        const winners = new Set(seatsOf.filter(([s]) => s.status === 'fulfilled').map(([, n]) => n));
        assert.equal(winners.size, 1, 'one answers digest won');
        for (const [s, n] of seatsOf) {
          if (winners.has(n)) assert.equal(s.status, 'fulfilled', `the winner's answers (${n} seats) get the text`);
          else assert.ok(replayed(s.reason), `${n} seats: ${s.reason?.stack}`);
        }
      }
    }],
    ['a completed flow driven on through a new token with new answers: replayed; its own answers: the text', async (assert) => {
      const e = engine();
      const { t2, again, bare, finalWith, final } = finalRound(e);
      const store = fleet();
      const s = await store();
      const t2b = again(t2); // issued before the final round
      let runs = 0;
      assert.deepEqual(await runOnce(s, final(2), () => ({ n: ++runs })), { n: 1 });
      // The booked token, and the second one, again without answers: the
      // lookup refuses them before anything is asked.
      for (const t of [t2, t2b]) assert.ok(replayed(await checkOnce(await store(), bare(t)).catch((x) => x)));
      for (const seats of [5, 6, 7]) {
        const err = await runOnce(await store(), finalWith(t2b, seats), () => ({ n: ++runs })).catch((x) => x);
        assert.ok(replayed(err), err?.stack);
      }
      assert.deepEqual(await runOnce(await store(), finalWith(t2b, 2), () => ({ n: ++runs })), { n: 1 });
      assert.equal(runs, 1);
    }],
    ['checkOnce: nothing yet (null), then the remembered result for the same answers, replayed for others', async (assert) => {
      const e = engine();
      const { final, t2, again, finalWith } = finalRound(e);
      const store = fleet();
      const s = await store();
      const t2b = again(t2);
      assert.equal(await checkOnce(s, final(2)), null);
      assert.equal(await checkOnce(s, finalWith(t2b, 9)), null);
      assert.deepEqual(await runOnce(s, final(2), () => ({ z: 1, a: [2.5] })), { a: [2.5], z: 1 });
      assert.deepEqual(await checkOnce(await store(), final(2)), { a: [2.5], z: 1 });
      assert.deepEqual(await checkOnce(await store(), finalWith(t2b, 2)), { a: [2.5], z: 1 });
      assert.ok(replayed(await checkOnce(s, final(9)).catch((x) => x)));
      assert.ok(replayed(await checkOnce(s, finalWith(t2b, 9)).catch((x) => x)));
      assert.equal((await code(checkOnce(s, finalRound(e).first)))[0], 'ARGUMENT');
    }],
    ['a failed effect releases its claim; the retry runs it with a greater fence', async (assert) => {
      const e = engine();
      const { final } = finalRound(e);
      const store = fleet();
      const fences = [];
      const boom = new Error('ledger briefly unavailable, nothing written');
      const err = await runOnce(await store(), final(2), (lease) => {
        fences.push(lease.fence);
        throw boom;
      }).catch((x) => x);
      assert.equal(err, boom, 'the effect\'s own error');
      // The same final round again (another process): it runs at once (no
      // wait for a lease to lapse), fence 2.
      const result = await runOnce(await store(), final(2), async (lease) => {
        fences.push(lease.fence);
        return { fence: lease.fence };
      }, { wait: 1 });
      assert.deepEqual(result, { fence: 2 });
      assert.deepEqual(fences, [1, 2]);
      // Another answer could have won after the release; now the flow is done.
      assert.ok(replayed(await runOnce(await store(), final(3), () => 0).catch((x) => x)));
    }],
    ['a lease extension keeps the claim: a concurrent retry waits for the result instead of taking over', async (assert) => {
      const e = engine();
      const { final } = finalRound(e);
      const store = fleet(0.3);
      const s = await store();
      let runs = 0;
      const verdicts = [];
      const slow = runOnce(s, final(), async (lease) => {
        runs++;
        for (let i = 0; i < 5; i++) {
          await pause(150);
          verdicts.push(await lease.extend());
        }
        return { n: runs };
      });
      await pause(50);
      const other = await runOnce(await store(), final(), () => ({ n: ++runs }), { wait: 5 });
      assert.deepEqual(other, { n: 1 });
      assert.deepEqual(await slow, { n: 1 });
      assert.deepEqual(verdicts, [true, true, true, true, true]);
      assert.equal(runs, 1);
    }],
    ['a late release after a takeover changes nothing; the former owner\'s extension and completion are lost', async (assert) => {
      const e = engine();
      const { final } = finalRound(e);
      const store = fleet(0.2);
      const s = await store();
      // A former owner: won the claim (fence 1), then stalled past its lease.
      const late = new OnceRun(final(), { prefix: s.prefix, leaseMs: s.leaseMs });
      let step = late.feed(await s.execute(late.start().command));
      assert.equal(step.kind, 'effect');
      assert.equal(step.fence, 1);
      const extend = step.extend;
      await pause(300);
      // Taken over: a greater fence, and the booking.
      assert.deepEqual(await runOnce(await store(), final(), (lease) => ({ fence: lease.fence })), { fence: 2 });
      assert.equal(late.extended(await s.execute(extend)), false, 'the lapsed owner cannot extend');
      step = late.effectFailed();
      assert.equal(step.command.op, 'release');
      assert.equal(await s.execute(step.command), 'lost');
      assert.equal(late.feed('lost').kind, 'released');
      // A second former owner whose completion comes late: STORE, not remembered.
      const { final: final2 } = finalRound(e);
      const slow = new OnceRun(final2(), { prefix: s.prefix, leaseMs: s.leaseMs });
      step = slow.feed(await s.execute(slow.start().command));
      await pause(300);
      assert.deepEqual(await runOnce(await store(), final2(), () => ({ winner: 'takeover' })), { winner: 'takeover' });
      step = slow.effectDone('{"winner":"late"}');
      const reply = await s.execute(step.command);
      assert.equal(reply, 'lost');
      const lost = (() => {
        try {
          return slow.feed(reply);
        } catch (x) {
          return x;
        }
      })();
      assert.equal(lost.code, 'STORE');
      assert.match(lost.message, /taken over/);
      // Every process still answers the booking.
      assert.deepEqual(await runOnce(await store(), final(), () => ({ fence: 99 })), { fence: 2 });
      assert.deepEqual(await checkOnce(await store(), final2()), { winner: 'takeover' });
    }],
  ];
}
