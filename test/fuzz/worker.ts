import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { preview } from './kit';
import { fuzzTargets } from './targets';

/**
 * Runs one target's budget inside a worker thread (see run.ts). Each input's index and a running
 * flag go to shared memory, so the parent's watchdog sees an input that never finishes (an endless
 * loop blocks this thread for good) and stops the worker. A failing input is counted and the run
 * goes on; the first one is then replayed and shrunk to a small counterexample.
 */
export interface WorkerJob {
  name: string;
  runs: number;
  seed: number;
  /** Replay exactly this input (fast-check's counterexample path). */
  path?: string;
  shared: SharedArrayBuffer;
}

export interface Failure {
  index: number;
  error: string;
  preview: string;
}

export interface WorkerResult {
  name: string;
  inputs: number;
  crashes: number;
  slowestMs: number;
  slowestIndex: number;
  slowestPreview: string;
  failure?: Failure;
  /** The shrunk counterexample of the first failure. */
  shrunk?: { preview: string; error: string; path: string };
}

const job = workerData as WorkerJob;
const state = new Int32Array(job.shared);
const target = fuzzTargets.find((candidate) => candidate.name === job.name);
if (!target) throw new Error(`no fuzz target named ${job.name}`);

const describe = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 2000) : `thrown ${preview(error, 300)}`);

let index = -1;
let crashes = 0;
let failure: Failure | undefined;
let slowest = { ms: -1, index: -1, preview: '' };

const begin = (at: number) => {
  Atomics.store(state, 0, at);
  Atomics.store(state, 1, 1);
};
const finish = () => Atomics.store(state, 1, 0);

async function runAll(): Promise<void> {
  const property = fc.asyncProperty(target!.arbitrary, async (input) => {
    index += 1;
    begin(index);
    const start = performance.now();
    try {
      await target!.property(input);
    } catch (error) {
      crashes += 1;
      failure ??= { index, error: describe(error), preview: preview(input, 600) };
    } finally {
      const ms = performance.now() - start;
      finish();
      if (ms > slowest.ms) slowest = { ms, index, preview: preview(input, 120) };
    }
    return true;
  });
  await fc.check(property, { numRuns: job.runs, seed: job.seed });
}

async function shrink(path: string): Promise<WorkerResult['shrunk']> {
  let shrinkIndex = 0;
  const property = fc.asyncProperty(target!.arbitrary, async (input) => {
    begin(job.runs + ++shrinkIndex);
    try {
      await target!.property(input);
    } finally {
      finish();
    }
  });
  const details = await fc.check(property, { seed: job.seed, path, numRuns: 1 });
  if (!details.failed || !details.counterexample) return undefined;
  return { preview: preview(details.counterexample[0], 2000), error: describe(details.errorInstance), path: details.counterexamplePath ?? path };
}

if (job.path !== undefined) {
  const shrunk = await shrink(job.path);
  parentPort!.postMessage({
    name: job.name,
    inputs: 1,
    crashes: shrunk ? 1 : 0,
    slowestMs: 0,
    slowestIndex: 0,
    slowestPreview: '',
    ...(shrunk ? { shrunk } : {}),
  } satisfies WorkerResult);
} else {
  await runAll();
  const shrunk = failure ? await shrink(String(failure.index)) : undefined;
  parentPort!.postMessage({
    name: job.name,
    inputs: index + 1,
    crashes,
    slowestMs: slowest.ms,
    slowestIndex: slowest.index,
    slowestPreview: slowest.preview,
    ...(failure ? { failure } : {}),
    ...(shrunk ? { shrunk } : {}),
  } satisfies WorkerResult);
}
