// npm run docs:screenshots: builds, then takes the user guide's pictures from the built-in demo in
// Chromium (test/e2e/docs-screenshots.test.ts) and writes them to docs/images/, to be committed.
// Needs Chromium, as the e2e tests do (npm test installs it when run as root).
import { join } from 'node:path';
import { ensureBuild, onAppNode, root, run, say } from './lib/setup.mjs';

onAppNode();
ensureBuild({ force: true });
const images = join(root, 'docs', 'images');
say(`taking the user guide's screenshots into ${images}`);
const code = run(join(root, 'node_modules', '.bin', 'vitest'), ['run', '--project', 'e2e', 'test/e2e/docs-screenshots.test.ts'], {
  env: { ...process.env, DOCS_SCREENSHOTS_DIR: images },
});
process.exit(code);
