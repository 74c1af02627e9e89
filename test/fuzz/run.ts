import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { preview, type FuzzTarget } from './kit';
import { fuzzTargets } from './targets';
import type { WorkerJob, WorkerResult } from './worker';

/**
 * `npm run fuzz`: every target of targets.ts with its share of FUZZ_RUNS generated inputs (default
 * 100,000 in all), each target in its own worker thread under a watchdog: an input still running
 * after the target's hang limit (default 2 s) is a hang, reported with the input, and that target
 * stops there. Prints per target the inputs, crashes, hangs, the slowest input and the seed; exits 1
 * on any crash or hang, with the shrunk counterexample and the command that replays it.
 *
 *   FUZZ_RUNS=200000 npm run fuzz                  more inputs
 *   FUZZ_TARGETS=agui.runModel,nfc.ndef npm run fuzz   some targets only
 *   FUZZ_SEED=123 FUZZ_TARGETS=x FUZZ_PATH=42 npm run fuzz   replay one input (and shrink it)
 */

const totalRuns = Number(process.env.FUZZ_RUNS ?? 100_000);
const baseSeed = process.env.FUZZ_SEED === undefined ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(process.env.FUZZ_SEED);
const only = process.env.FUZZ_TARGETS?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const replayPath = process.env.FUZZ_PATH;
const minimumRuns = 20;

const selected = fuzzTargets.filter((target) => !only || only.includes(target.name));
if (selected.length === 0) {
  process.stderr.write(
    `No fuzz target matches FUZZ_TARGETS=${process.env.FUZZ_TARGETS ?? ''}. Targets: ${fuzzTargets.map((target) => target.name).join(', ')}\n`,
  );
  process.exit(2);
}
if (!Number.isFinite(totalRuns) || totalRuns < 1) {
  process.stderr.write('FUZZ_RUNS must be a positive number.\n');
  process.exit(2);
}

const weights = selected.reduce((sum, target) => sum + target.weight, 0);
const budget = (target: FuzzTarget) => Math.max(minimumRuns, Math.ceil((totalRuns * target.weight) / weights));
/** One seed per target, derived from the run's seed, so each target can be replayed on its own. */
const seedFor = (index: number) => (only || replayPath !== undefined ? baseSeed : (baseSeed + Math.imul(index + 1, 0x9e3779b1)) | 0);

interface Row {
  target: FuzzTarget;
  seed: number;
  runs: number;
  result?: WorkerResult;
  hang?: { index: number; preview: string; ms: number };
  error?: string;
  seconds: number;
}

const scratch = mkdtempSync(join(tmpdir(), 'agentdesk-fuzz-'));
process.env.AGENTDESK_FUZZ_TMP = scratch;

function runTarget(target: FuzzTarget, seed: number, runs: number): Promise<Row> {
  const hangMs = Number(process.env.FUZZ_HANG_MS ?? target.hangMs ?? 2_000);
  const shared = new SharedArrayBuffer(8);
  const state = new Int32Array(shared);
  Atomics.store(state, 0, -1);
  const job: WorkerJob = { name: target.name, runs, seed, shared, ...(replayPath === undefined ? {} : { path: replayPath }) };
  const started = performance.now();
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), { workerData: job, resourceLimits: { maxOldGenerationSizeMb: 2048 } });
    let done = false;
    let seen = { index: -2, running: 0, since: performance.now() };
    const finish = (row: Omit<Row, 'target' | 'seed' | 'runs' | 'seconds'>) => {
      if (done) return;
      done = true;
      clearInterval(watchdog);
      resolve({ target, seed, runs, seconds: (performance.now() - started) / 1000, ...row });
    };
    const watchdog = setInterval(() => {
      const index = Atomics.load(state, 0);
      const running = Atomics.load(state, 1);
      const now = performance.now();
      if (index !== seen.index || running !== seen.running) seen = { index, running, since: now };
      else if (running === 1 && now - seen.since > hangMs) {
        const ms = now - seen.since;
        void worker.terminate();
        // The worker is stuck, so the input is made again from the seed (the generator is deterministic).
        let input = '(beyond the budget: a shrink step)';
        if (index < runs) {
          try {
            input = preview(fc.sample(target.arbitrary, { seed, numRuns: index + 1 })[index], 600);
          } catch (error) {
            input = `(could not be regenerated: ${String(error)})`;
          }
        }
        finish({ hang: { index, preview: input, ms } });
      }
    }, 50);
    worker.once('message', (result: WorkerResult) => {
      finish({ result });
      void worker.terminate();
    });
    worker.once('error', (error) => finish({ error: `${error.name}: ${error.message}` }));
    worker.once('exit', (code) => finish({ error: `the worker exited (code ${code}) without a result` }));
  });
}

const pad = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));
const padStart = (text: string, width: number) => text.padStart(width);

process.stdout.write(
  `Fuzzing ${selected.length} targets, ${replayPath === undefined ? `${selected.reduce((sum, target) => sum + budget(target), 0).toLocaleString('en')} inputs` : `replaying input ${replayPath}`}, seed ${baseSeed}\n\n`,
);
const wall = performance.now();
const rows: Row[] = [];
for (const [index, target] of selected.entries()) {
  const row = await runTarget(
    target,
    seedFor(fuzzTargets.indexOf(target) === -1 ? index : fuzzTargets.indexOf(target)),
    replayPath === undefined ? budget(target) : 1,
  );
  rows.push(row);
  const inputs = row.result?.inputs ?? (row.hang ? row.hang.index + 1 : 0);
  const crashes = (row.result?.crashes ?? 0) + (row.error ? 1 : 0);
  process.stdout.write(
    `  ${pad(target.name, 20)} ${padStart(inputs.toLocaleString('en'), 8)} inputs  ${crashes} crashes  ${row.hang ? 1 : 0} hangs  ${row.seconds.toFixed(1)} s\n`,
  );
}
rmSync(scratch, { recursive: true, force: true });

const header = `${pad('target', 20)} ${padStart('inputs', 8)} ${padStart('crashes', 7)} ${padStart('hangs', 5)} ${padStart('slowest', 9)}  ${pad('slowest input', 48)} ${padStart('seed', 11)} ${padStart('time', 7)}`;
process.stdout.write(`\n${header}\n${'-'.repeat(header.length)}\n`);
let total = 0;
let crashes = 0;
let hangs = 0;
for (const row of rows) {
  const inputs = row.result?.inputs ?? (row.hang ? row.hang.index + 1 : 0);
  const rowCrashes = (row.result?.crashes ?? 0) + (row.error ? 1 : 0);
  total += inputs;
  crashes += rowCrashes;
  hangs += row.hang ? 1 : 0;
  const slowest = row.hang ? `>${(row.hang.ms / 1000).toFixed(1)} s` : row.result ? `${row.result.slowestMs.toFixed(1)} ms` : '-';
  const input = row.hang ? row.hang.preview : (row.result?.slowestPreview ?? '');
  process.stdout.write(
    `${pad(row.target.name, 20)} ${padStart(inputs.toLocaleString('en'), 8)} ${padStart(String(rowCrashes), 7)} ${padStart(String(row.hang ? 1 : 0), 5)} ${padStart(slowest, 9)}  ${pad(input, 48)} ${padStart(String(row.seed), 11)} ${padStart(`${row.seconds.toFixed(1)} s`, 7)}\n`,
  );
}
const seconds = (performance.now() - wall) / 1000;
process.stdout.write(
  `${'-'.repeat(header.length)}\nTotal: ${total.toLocaleString('en')} inputs, ${crashes} crashes, ${hangs} hangs in ${seconds.toFixed(1)} s (seed ${baseSeed})\n`,
);

for (const row of rows) {
  const replay = (path: string) => `FUZZ_SEED=${row.seed} FUZZ_TARGETS=${row.target.name} FUZZ_PATH=${path} npm run fuzz`;
  if (row.error) process.stdout.write(`\n${row.target.name}: the worker failed: ${row.error}\n`);
  if (row.hang)
    process.stdout.write(
      `\n${row.target.name}: HANG on input #${row.hang.index} (still running after ${(row.hang.ms / 1000).toFixed(1)} s):\n  ${row.hang.preview}\n  replay: ${replay(String(row.hang.index))}\n`,
    );
  const result = row.result;
  if (result && result.crashes > 0) {
    process.stdout.write(
      `\n${row.target.name}: ${result.crashes} failing inputs; the first was #${result.failure?.index}:\n  ${result.failure?.error}\n  input: ${result.failure?.preview}\n`,
    );
    if (result.shrunk) process.stdout.write(`  shrunk: ${result.shrunk.preview}\n  error:  ${result.shrunk.error}\n  replay: ${replay(result.shrunk.path)}\n`);
    else process.stdout.write(`  replay: ${replay(String(result.failure?.index))}\n`);
  }
}
process.exit(crashes > 0 || hangs > 0 ? 1 : 0);
