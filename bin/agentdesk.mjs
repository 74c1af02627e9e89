#!/usr/bin/env node
// The agentdesk command (npx agentdesk …). The build (npm install runs it via "prepare") puts the
// CLI in out/main/cli.js; from a checkout without a build, say how to make one.
import { existsSync } from 'node:fs';

const cli = new URL('../out/main/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('agentdesk is not built yet: run `npm run build` in the AgentDesk folder (npm install does it too).\n');
  process.exit(2);
}
await import(cli.href);
