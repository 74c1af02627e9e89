import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { defaultReaderEntry, nodeReaderLauncher, ReaderSupervisor } from '../../../src/main/nfc/reader-supervisor';
import { utilityProcessLauncher, type UtilityProcessLike } from '../../../src/main/nfc/utility-process-launcher';
import { memoryLogger } from '../logger';

/**
 * A main process that is killed (SIGKILL) by the test: it starts the real NFC reader process through
 * the real supervisor and launcher and prints `reader <pid>` as soon as it is forked, then `running <pid>`
 * once the reader said hello (and any other state the supervisor goes through). `node`: a Node child with an IPC channel (nodeReaderLauncher). `utility`:
 * utilityProcessLauncher as Electron's glue uses it, with utilityProcess.fork played by a Node child
 * that has no IPC channel but a `process.parentPort` over stdio (fake-parent-port.ts): nothing tells
 * it that main is gone, as in a utility process.
 */
const mode = process.argv[2] === 'utility' ? 'utility' : 'node';
const fakeParentPort = fileURLToPath(new URL('./fake-parent-port.ts', import.meta.url));

const launcher =
  mode === 'node'
    ? nodeReaderLauncher()
    : utilityProcessLauncher((path, args, options): UtilityProcessLike => {
        const entry = defaultReaderEntry();
        const child = spawn(process.execPath, [...entry.execArgv, '--import', fakeParentPort, path, ...args], {
          ...(entry.cwd ? { cwd: entry.cwd } : {}),
          ...(options.env ? { env: options.env } : {}),
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        const onMessage: ((message: unknown) => void)[] = [];
        createInterface({ input: child.stdout }).on('line', (line) => {
          for (const listener of onMessage) listener(JSON.parse(line) as unknown);
        });
        child.stdin.on('error', () => undefined);
        const like = {
          pid: child.pid,
          stderr: child.stderr,
          postMessage: (message: unknown) => void child.stdin.write(`${JSON.stringify(message)}\n`),
          kill: () => child.kill('SIGKILL'),
          on(event: 'message' | 'exit', listener: (value: never) => void) {
            if (event === 'message') onMessage.push(listener as (message: unknown) => void);
            else child.on('exit', (code) => listener((code ?? 1) as never));
            return like;
          },
        } as UtilityProcessLike;
        return like;
      }, defaultReaderEntry().path);

// No restart for a reader slow to start on a loaded machine: the one forked is the one the test watches.
const supervisor = new ReaderSupervisor({ log: memoryLogger(), launcher, silenceLimitMs: 120_000 });
supervisor.onState((state) => {
  if (state !== 'starting') process.stdout.write(`${state} ${supervisor.pid ?? ''}\n`);
});
supervisor.start();
process.stdout.write(`reader ${supervisor.pid}\n`);
setInterval(() => undefined, 60_000);
