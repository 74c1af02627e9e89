import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * The NFC reader process ends when main goes away, however early: a main process killed (SIGKILL) just
 * after it forked the reader, before the reader has loaded, used to leave it running under PID 1
 * (~60 MB each; a kiosk unit restarting in a loop piled them up). Main here is
 * test/support/nfc/short-lived-parent.ts (the real supervisor, launcher and reader process), in both
 * launch modes: a Node child with an IPC channel, and utilityProcessLauncher with a child that, like an
 * Electron utility process, hears nothing when main goes.
 */
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const parentScript = join(repo, 'test/support/nfc/short-lived-parent.ts');
const unavailable =
  process.platform !== 'linux'
    ? 'the test reads process states from /proc (Linux)'
    : (() => {
        try {
          createRequire(import.meta.url).resolve('nfc-pcsc');
          return undefined;
        } catch {
          return 'nfc-pcsc is not installed (the reader process would end at once for that reason)';
        }
      })();
if (unavailable) console.log(`NFC reader orphan tests skipped: ${unavailable}`);

/** How long a reader may take to notice its main is gone (its start under `node --import tsx` on a loaded machine included). */
const exitBoundMs = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Running, not a zombie left for PID 1 to reap. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

interface Parent {
  child: ChildProcess;
  lines: string[];
  next(test: (line: string) => boolean): Promise<string>;
  /** The reader it forked, once it said so. */
  reader(): Promise<number>;
}

const started: Parent[] = [];
const readers: number[] = [];
afterEach(() => {
  // Whatever a failing test left: the parents, and readers that outlived them (only these pids).
  for (const parent of started.splice(0)) parent.child.kill('SIGKILL');
  for (const reader of readers.splice(0)) if (alive(reader)) process.kill(reader, 'SIGKILL');
});

function startParent(mode: 'node' | 'utility'): Parent {
  const child = spawn(process.execPath, ['--import', 'tsx', parentScript, mode], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiting: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const wait of [...waiting]) {
      if (wait.test(line)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve(line);
      }
    }
  });
  const next = (test: (line: string) => boolean) => {
    const seen = lines.find(test);
    return seen !== undefined ? Promise.resolve(seen) : new Promise<string>((resolve) => waiting.push({ test, resolve }));
  };
  const reader = async () => {
    const pid = Number((await next((line) => line.startsWith('reader '))).slice('reader '.length));
    readers.push(pid);
    return pid;
  };
  const parent: Parent = { child, lines, next, reader };
  started.push(parent);
  return parent;
}

/** Starts a main, kills it at `moment`, and says how the reader fared. */
async function killMain(mode: 'node' | 'utility', moment: number | 'running'): Promise<{ reader: number; aliveAtKill: boolean; exited: boolean }> {
  const parent = startParent(mode);
  const reader = await parent.reader();
  if (moment === 'running') expect(await parent.next((line) => line.startsWith('running '))).toBe(`running ${reader}`);
  else await sleep(moment);
  const aliveAtKill = alive(reader);
  parent.child.kill('SIGKILL');
  for (let waited = 0; waited < exitBoundMs && alive(reader); waited += 100) await sleep(100);
  return { reader, aliveAtKill, exited: !alive(reader) };
}

describe.skipIf(unavailable !== undefined)('the NFC reader process when main is killed', { timeout: 120_000 }, () => {
  for (const mode of ['node', 'utility'] as const) {
    it(`${mode === 'node' ? 'a Node child (IPC channel)' : 'a utility process (no channel to hear from)'}: the reader exits after main is killed at its fork, 100 ms and 300 ms after it, and once it runs`, async () => {
      const moments = [0, 100, 300, 'running'] as const;
      const outcomes = await Promise.all(moments.map((moment) => killMain(mode, moment)));
      expect(outcomes.map((outcome, index) => ({ moment: moments[index], exited: outcome.exited }))).toEqual(
        moments.map((moment) => ({ moment, exited: true })),
      );
      // The reader that ran was alive until its main was killed (it did not end for a reason of its own).
      expect(outcomes[3]!.aliveAtKill).toBe(true);
    });
  }

  it('a reader whose main lives keeps running (the watch takes no live main for a dead one), in both modes', async () => {
    for (const mode of ['node', 'utility'] as const) {
      const parent = startParent(mode);
      const reader = await parent.reader();
      await parent.next((line) => line.startsWith('running '));
      // Several rounds of the reader's parent check.
      await sleep(2_000);
      expect({ mode, alive: alive(reader), lines: parent.lines }).toEqual({ mode, alive: true, lines: [`reader ${reader}`, `running ${reader}`] });
    }
  });
});
