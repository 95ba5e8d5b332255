// ESM entry of snodo-mrtr/once: the same objects as the CommonJS once.js.
import cjs from './once.js';

export const { runOnce, RedisStore, MemoryStore, DEFAULT_REDIS_TIMEOUT_MS } = cjs;
export default cjs;
