// ESM entry of snodo-mrtr/tasks: the same objects as the CommonJS tasks.js.
import cjs from './tasks.js';

export const { Tasks, MemoryTaskStore } = cjs;
export default cjs;
