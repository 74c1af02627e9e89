// Installs (as root) or names (otherwise) every system package AgentDesk's features and tests use.
// Exit 1 when something is still missing. Used by .ci/run; npm start/test install what they need themselves.
import { ensureSystemFeatures, say, systemFeatures } from './lib/setup.mjs';

const missing = ensureSystemFeatures(Object.keys(systemFeatures));
if (missing.length > 0) {
  say(`still missing: ${missing.join(', ')}`);
  process.exit(1);
}
say(`system packages present for: ${Object.keys(systemFeatures).join(', ')}`);
