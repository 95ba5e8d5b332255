// snodo-mrtr/tasks: handlers that may run as MCP tasks (the Tasks
// extension, io.modelcontextprotocol/tasks; docs/tasks.md).
import type { Call, Engine, Outcome, Response, TaskCommand } from './index';

export { MemoryTaskStore } from './index';

/** A task store: `MemoryTaskStore` (one process) or `RedisStore` of `snodo-mrtr/once` (a fleet). */
export interface TaskStoreLike {
  /** Runs one command (its Lua script on its key) and gives the reply text. */
  execute(command: TaskCommand): string | Promise<string>;
}

export interface TasksOptions {
  /** Where tasks live (default a new `MemoryTaskStore`). */
  store?: TaskStoreLike;
  /**
   * Tools that only run as tasks: a client that did not declare the
   * extension gets -32021 (`requiredCapabilities` naming it) before the
   * handler runs.
   */
  required?: Iterable<string>;
}

/**
 * Runs the core's task machine (`engine.taskStep`) for a server: each
 * step's store command, then `finish`, then the handler again for the run
 * handed back. A run of a task goes on in the background (its errors are
 * logged with `console.error`, never an unhandled rejection); an inline
 * continuation runs in the request.
 */
export declare class Tasks {
  /**
   * `route(call)` is the server's router: the handler's outcome (or a
   * promise of it) for a request or a run (`call.taskId` set). A handler
   * returns `runAsTask(state)` to say the rest may run as a task.
   */
  constructor(engine: Engine, route: (call: Call) => Outcome | Promise<Outcome>, options?: TasksOptions);
  /** The task store in use. */
  get store(): TaskStoreLike;
  /**
   * The response to `call` (from `engine.begin`): a tools/call (or any
   * routed method), or tasks/get, tasks/update, tasks/cancel. A failed
   * store answers -32603 "task store unavailable" and starts nothing.
   */
  answer(call: Call): Promise<Response>;
  /**
   * The status of the task `leg` (a run: `leg.taskId` set) runs for, read
   * from the store now: `working` until someone cancels it. Cancellation is
   * cooperative: a long run asks now and then and stops early (its end
   * would be dropped anyway). `null` when the store failed.
   */
  status(leg: Call): Promise<string | null>;
  /** Resolves once no run started by this runner is in flight. */
  idle(): Promise<void>;
}
