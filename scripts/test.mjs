// npm test: installs what is missing, builds, then runs every check and prints one summary.
// Steps: unit (shared + main under Node, renderer in jsdom), lint, format, typecheck, e2e (Chromium).
// Exit code 0 only when every step that ran passed.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild, ensureNodeModules, ensureSystemFeatures, ensureTestPeers, onAppNode, root, run, say } from './lib/setup.mjs';

// System packages first: nfc-pcsc (an optional npm dependency) builds against libpcsclite.
const missing = ensureSystemFeatures(['chromium', 'keychain', 'nfc', 'speech']);
ensureNodeModules();
// Everything below runs on the app's Node (Electron's major), whatever Node started npm test.
onAppNode();
ensureTestPeers();
ensureBuild({ force: true });

const results = join(root, 'test-results');
mkdirSync(results, { recursive: true });
const bin = (name) => join(root, 'node_modules', '.bin', name);
const steps = [];

/**
 * Runs a command inside a private D-Bus session with gnome-keyring unlocked, under a throwaway HOME
 * (where the keyring file goes), so the real keychain test has a Secret Service. Without the
 * keychain feature the command runs as it is (the test then says why it skipped).
 */
function withSecretService(file, args) {
  if (missing.includes('keychain')) return run(file, args);
  const home = mkdtempSync(join(tmpdir(), 'agentdesk-keyring-'));
  try {
    const script = 'echo -n test | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$@"';
    return run('dbus-run-session', ['--', 'bash', '-c', script, 'bash', file, ...args], { env: { ...process.env, HOME: home } });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function vitest(name, projects, { secretService = false } = {}) {
  const report = join(results, `${name}.json`);
  rmSync(report, { force: true });
  const args = ['run', ...projects.flatMap((project) => ['--project', project]), '--reporter=default', '--reporter=json', `--outputFile.json=${report}`];
  const code = secretService ? withSecretService(bin('vitest'), args) : run(bin('vitest'), args);
  let counts = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    counts = { passed: json.numPassedTests, failed: json.numFailedTests, skipped: json.numPendingTests + json.numTodoTests };
  }
  // A runner that crashed before reporting, or ran nothing, is a failure, not a pass.
  const ok = code === 0 && counts.passed > 0;
  steps.push({ name, ok, counts, note: ok ? '' : code === 0 ? 'no test ran' : `exit code ${code}` });
}

function command(name, file, args) {
  const code = run(file, args);
  steps.push({ name, ok: code === 0, note: code === 0 ? '' : `exit code ${code}` });
}

say('unit tests (vitest: unit + renderer)');
vitest('unit', ['unit', 'renderer'], { secretService: true });
say('lint (eslint, runtime boundaries included; a file over 400 lines is a warning)');
command('lint', bin('eslint'), ['.']);
say('format (prettier --check; npm run format rewrites)');
command('format', bin('prettier'), ['--check', '.']);
say('typecheck (tsc: shared, node, web, e2e)');
for (const project of ['tsconfig.shared.json', 'tsconfig.node.json', 'tsconfig.web.json', 'tsconfig.e2e.json'])
  command(`typecheck ${project.split('.')[1]}`, bin('tsc'), ['-p', project]);
if (missing.includes('chromium')) {
  steps.push({ name: 'e2e', ok: true, skipped: true, note: 'skipped: Chromium is not installed (see the command above)' });
} else {
  say('end-to-end tests (Chromium through the web shell)');
  vitest('e2e', ['e2e']);
}

const total = { passed: 0, failed: 0, skipped: 0 };
process.stdout.write('\nSummary\n');
for (const step of steps) {
  const status = step.skipped ? 'SKIP' : step.ok ? 'PASS' : 'FAIL';
  const counts = step.counts
    ? ` ${step.counts.passed} passed, ${step.counts.failed} failed${step.counts.skipped ? `, ${step.counts.skipped} skipped` : ''}`
    : '';
  process.stdout.write(`  ${status} ${step.name.padEnd(16)}${counts}${step.note ? ` (${step.note})` : ''}\n`);
  if (step.counts) for (const key of Object.keys(total)) total[key] += step.counts[key];
}
const failedSteps = steps.filter((step) => !step.ok).length;
// A failed step with no failed test in it (lint, typecheck, a crashed runner) counts as one failure.
const stepFailures = steps.filter((step) => !step.ok && !(step.counts?.failed > 0)).length;
const skipped = total.skipped + steps.filter((step) => step.skipped).length;
process.stdout.write(`Tests: ${total.passed} passed, ${total.failed + stepFailures} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failedSteps === 0 ? 0 : 1);
