// ESM entry of snodo-mrtr/mcp: the same objects as the CommonJS mcp.js.
import cjs from './mcp.js';

export const { Snodo, SnodoProtocolError, wireParams, MRTR_METHODS } = cjs;
export default cjs;
