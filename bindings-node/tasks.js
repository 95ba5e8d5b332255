'use strict';
// snodo-mrtr/tasks: handlers that may run as MCP tasks (the Tasks
// extension, io.modelcontextprotocol/tasks; docs/tasks.md). Every rule is
// the core's task machine (`engine.taskStep`): this runner only runs the
// store command of each step, hands the reply to `finish`, and runs the
// handler again for the run it hands back. A run of a task goes on in the
// background, never awaited by the request that started it; an inline
// continuation (no task: the client did not declare the extension) runs in
// the request. Stores only run commands: the native `MemoryTaskStore` in
// process, or the once store's `RedisStore` (snodo-mrtr/once) for a fleet.

const native = require('./index.js');

const { Call, Engine, MemoryTaskStore, declaresTasks, error, taskRequiredCapabilities } = native;

function argumentError(message) {
  const e = new Error(`Tasks: ${message}`);
  e.code = 'ARGUMENT';
  return e;
}

const messageOf = (e) => (e instanceof Error ? e.message : String(e));

class Tasks {
  #engine;
  #route;
  #store;
  #required;
  #running = new Set();

  /**
   * `route(call)` is the server's router: it returns (or resolves with) the
   * handler's outcome for a call, a request or a run. `store`: where tasks
   * live (default a new MemoryTaskStore). `required`: the names of tools
   * that only run as tasks.
   */
  constructor(engine, route, { store = new MemoryTaskStore(), required = [] } = {}) {
    if (!(engine instanceof Engine)) throw argumentError('engine must be an Engine');
    if (typeof route !== 'function') throw argumentError('route must be a function (call) => outcome');
    if (store === null || typeof store !== 'object' || typeof store.execute !== 'function') {
      throw argumentError('store must be a MemoryTaskStore or a RedisStore (snodo-mrtr/once)');
    }
    const names = typeof required === 'string' || typeof required?.[Symbol.iterator] !== 'function' ? [null] : [...required];
    if (names.some((n) => typeof n !== 'string')) throw argumentError('required must list tool names');
    [this.#engine, this.#route, this.#store, this.#required] = [engine, route, store, new Set(names)];
  }

  /** The task store in use. */
  get store() {
    return this.#store;
  }

  /**
   * The response to `call` (from `engine.begin`): a tools/call (or any
   * routed method) through the router, or tasks/get|update|cancel. A run it
   * starts goes on in the background.
   */
  async answer(call) {
    if (!(call instanceof Call)) throw argumentError('answer: call must be a Call (engine.begin)');
    let step;
    if (call.method.startsWith('tasks/')) {
      step = this.#engine.taskStep(call);
    } else if (call.method === 'tools/call' && this.#required.has(call.name)
        && !declaresTasks(call.clientCapabilities)) {
      // Refused before the handler runs: it would only run as a task.
      const data = { requiredCapabilities: taskRequiredCapabilities() };
      return this.#engine.decide(call, error(-32021, `${call.name} runs only as a task: declare the Tasks extension`, data));
    } else {
      step = this.#engine.taskStep(call, await this.#route(call));
    }
    for (;;) {
      const { response, leg } = await this.#finish(step);
      if (leg !== null && leg.taskId !== null) this.#background(leg);
      if (response !== null) return response;
      if (leg === null) throw argumentError('the task machine gave no response to a request');
      // An inline continuation: the same request goes on.
      step = this.#engine.taskStep(leg, await this.#route(leg));
    }
  }

  /**
   * The status of the task `leg` runs for, read from the store now:
   * `working` until someone cancels it (cancellation is cooperative: a long
   * run asks now and then and stops early, as its end would be dropped
   * anyway); `null` when the store failed.
   */
  async status(leg) {
    if (!(leg instanceof Call) || leg.taskId === null) throw argumentError('status: leg must be a run of a task (call.taskId set)');
    const { response } = await this.#finish(this.#engine.taskStep(leg));
    return response === null ? null : (JSON.parse(response.json).result?.status ?? null);
  }

  /** Resolves once no run started here is in flight (tests, shutdown). */
  async idle() {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /** Runs `step`'s command (a failed store gives `null`) and finishes it. */
  async #finish(step) {
    const { command } = step;
    let reply = null;
    if (command !== null) {
      try {
        reply = await this.#store.execute(command);
        if (typeof reply !== 'string') throw new Error(`answered ${typeof reply}, not the reply text`);
      } catch (e) {
        console.error(`snodo-mrtr/tasks: task store ${command.op} failed: ${messageOf(e)}`);
        reply = null;
      }
    }
    return step.finish(reply);
  }

  #background(leg) {
    const run = this.#run(leg).catch((e) => {
      console.error(`snodo-mrtr/tasks: task ${leg.taskId}: ${messageOf(e)}`);
    });
    this.#running.add(run);
    run.finally(() => this.#running.delete(run));
  }

  /** The runs of one task, one after another, until one parks or ends it. */
  async #run(leg) {
    while (leg !== null) {
      let outcome;
      try {
        outcome = await this.#route(leg);
      } catch (e) {
        // A handler that throws ends its task failed rather than leaving it working forever.
        console.error(`snodo-mrtr/tasks: task ${leg.taskId}: the handler threw: ${messageOf(e)}`);
        outcome = error(-32603, 'Internal error');
      }
      const done = await this.#finish(this.#engine.taskStep(leg, outcome));
      // Nobody waits for a run's response: it says why its end was not stored.
      if (done.response !== null) {
        console.error(`snodo-mrtr/tasks: task ${leg.taskId}: ${done.response.diagnostic ?? done.response.json}`);
      }
      leg = done.leg;
    }
  }
}

module.exports = { Tasks, MemoryTaskStore };
