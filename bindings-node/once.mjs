// ESM entry of snodo-mrtr/once: the same objects as the CommonJS once.js.
import cjs from './once.js';

export const { runOnce, checkOnce, RedisStore, MemoryStore, OnceRun, DEFAULT_REDIS_TIMEOUT_MS } = cjs;
export default cjs;
