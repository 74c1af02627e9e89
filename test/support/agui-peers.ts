import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The independent AG-UI servers of test/peers (its own npm package, installed by `npm test` with
 * `npm ci` there): each script listens on 127.0.0.1 and a free port and says on stdout, one JSON
 * object a line, where it listens (`{ listening }`) and every request it received (`{ received }`).
 */
export const peersFolder = join(import.meta.dirname, '..', 'peers');

/** Each peer's script and the packages it is built from (what must be installed for it to run). */
export const peerScripts = {
  bare: { script: 'bare.mjs', packages: ['@ag-ui/encoder', '@ag-ui/core'] },
  a2a: { script: 'a2a.mjs', packages: ['@a2a-js/sdk', '@ag-ui/a2a', '@ag-ui/encoder', 'express'] },
  mastra: { script: 'mastra.mjs', packages: ['@mastra/core', '@ag-ui/mastra', '@ag-ui/encoder', 'ai'] },
  copilotkit: { script: 'copilotkit.mjs', packages: ['@copilotkit/runtime', 'ai', 'express'] },
} as const;
export type PeerName = keyof typeof peerScripts;

/** Why a peer cannot run here (its packages are not installed), or undefined when it can. */
export function peerMissing(name: PeerName): string | undefined {
  const missing = peerScripts[name].packages.filter((name) => !existsSync(join(peersFolder, 'node_modules', name, 'package.json')));
  if (missing.length === 0) return undefined;
  return `the ${name} peer needs ${missing.join(', ')} in test/peers/node_modules, which are not installed (npm test installs them with npm ci in test/peers; that needs the npm registry)`;
}

export interface RunningPeer {
  /** The AG-UI endpoint. */
  url: string;
  /** What else it said when it started (the A2A peer: its A2A server's origin). */
  said: Record<string, unknown>;
  /** Every POST body it received, in order. */
  bodies: unknown[];
  /** The `count` first bodies, once it has said it received them. */
  received(count: number): Promise<unknown[]>;
  stop(): Promise<void>;
}

/** Starts a peer and waits until it listens (at most `timeoutMs`). */
export function startPeer(name: PeerName, timeoutMs = 60_000): Promise<RunningPeer> {
  const child = spawn(process.execPath, [peerScripts[name].script], {
    cwd: peersFolder,
    // Telemetry stays off (each peer also sets it): nothing may leave loopback.
    env: { ...process.env, MASTRA_TELEMETRY_DISABLED: '1', COPILOTKIT_TELEMETRY_DISABLED: 'true', DO_NOT_TRACK: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const bodies: unknown[] = [];
  const waiting: { count: number; resolve: (bodies: unknown[]) => void }[] = [];
  return new Promise<RunningPeer>((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not say where it listens within ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`the ${name} peer ${why}; its stderr ends with:\n${stderr}`));
    };
    const early = (code: number | null) => fail(`exited (code ${String(code)}) before it listened`);
    child.once('exit', early);
    createInterface({ input: child.stdout }).on('line', (line) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (message.received !== undefined) {
        bodies.push((message.received as { body: unknown }).body);
        for (const waiter of waiting.filter((entry) => bodies.length >= entry.count)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(bodies.slice(0, waiter.count));
        }
      }
      if (typeof message.listening === 'string') {
        clearTimeout(timer);
        child.off('exit', early);
        const { listening, ...said } = message;
        resolve({
          url: listening,
          said,
          bodies,
          received: (count) =>
            bodies.length >= count ? Promise.resolve(bodies.slice(0, count)) : new Promise((done) => waiting.push({ count, resolve: done })),
          stop: async () => {
            child.stdin.end();
            child.kill();
            await exited;
          },
        });
      }
    });
  });
}
