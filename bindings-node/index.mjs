// ESM entry of snodo-mrtr: the same objects as the CommonJS entry (one
// native module, so no dual-package hazard: `instanceof Call` holds across
// both). scripts/test-node.sh checks this list against index.js's exports.
import binding from './index.js'

export const {
  Call,
  ERROR_CODES,
  Engine,
  PendingFlow,
  Session,
  SnodoErrorCode,
  TOKEN_REASONS,
  bindingDigest,
  checkHttpHeaders,
  checkTaskInputRequests,
  canonicalize,
  complete,
  declaresTasks,
  elicitForm,
  elicitFormWithoutLint,
  elicitUrl,
  elicitUrlWithoutLint,
  error,
  filterSupported,
  inputRequired,
  listRoots,
  missingCapabilities,
  raw,
  runCli,
  sampling,
  toolError,
  version,
} = binding
export default binding
