import { afterEach, describe, expect, it } from 'vitest';
import type { MainToReader, ReaderToMain } from '../../../src/shared/nfc/reader-protocol';
import { ReaderSupervisor, type ReaderLauncher, type ReaderLaunchHandlers } from '../../../src/main/nfc/reader-supervisor';
import { memoryLogger } from '../../support/logger';

/** Fake reader processes: each launch is recorded; the test makes them talk, crash or hang. */
function fakeLauncher(options: { exitOnShutdown?: boolean } = {}) {
  const processes: { handlers: ReaderLaunchHandlers; received: MainToReader[]; killed: boolean; pid: number }[] = [];
  const launcher: ReaderLauncher = (handlers) => {
    const child = { handlers, received: [] as MainToReader[], killed: false, pid: 1000 + processes.length };
    processes.push(child);
    return {
      pid: child.pid,
      send: (message) => {
        child.received.push(message);
        if (message.type === 'shutdown' && (options.exitOnShutdown ?? true)) setTimeout(() => handlers.onExit(0, null), 1);
      },
      kill: () => {
        child.killed = true;
        setTimeout(() => handlers.onExit(null, 'SIGKILL'), 1);
      },
    };
  };
  return { launcher, processes, latest: () => processes[processes.length - 1]! };
}

const hello: ReaderToMain = { type: 'hello', version: 1, pid: 1 };
const until = async (test: () => boolean, timeoutMs = 3_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const supervisors: ReaderSupervisor[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((supervisor) => supervisor.stop(10)));
});

function supervise(options: Partial<ConstructorParameters<typeof ReaderSupervisor>[0]> = {}, launcherOptions = {}) {
  const fake = fakeLauncher(launcherOptions);
  const log = memoryLogger();
  const supervisor = new ReaderSupervisor({ log, launcher: fake.launcher, backoffMs: [20, 40, 80], silenceLimitMs: 10_000, ...options });
  supervisors.push(supervisor);
  const states: string[] = [];
  supervisor.onState((state) => void states.push(state));
  return { ...fake, log, supervisor, states };
}

describe('ReaderSupervisor', () => {
  it('starts the reader process and replays the standing orders after its hello', () => {
    const { supervisor, latest, states } = supervise();
    supervisor.send({ type: 'arm', armed: true });
    supervisor.send({ type: 'configure', readerFeedback: true });
    supervisor.start();
    expect(states).toEqual(['starting']);
    expect(latest().received).toEqual([]);
    latest().handlers.onMessage(hello);
    expect(states).toEqual(['starting', 'running']);
    expect(latest().received).toEqual([
      { type: 'arm', armed: true },
      { type: 'configure', readerFeedback: true },
    ]);
    supervisor.send({ type: 'feedback', reader: 'r', outcome: 'success' });
    expect(latest().received).toHaveLength(3);
  });

  it('restarts a crashed reader process after a growing pause, and the new one gets the orders again', async () => {
    const { supervisor, processes, latest, states, log } = supervise();
    supervisor.send({ type: 'arm', armed: true });
    supervisor.start();
    latest().handlers.onMessage(hello);
    latest().handlers.onExit(null, 'SIGSEGV');
    expect(supervisor.processState).toBe('restarting');
    expect(supervisor.processDetail).toMatch(/SIGSEGV/);
    await until(() => processes.length === 2);
    latest().handlers.onExit(1, null);
    const crashedAt = Date.now();
    await until(() => processes.length === 3);
    expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(35);
    latest().handlers.onMessage(hello);
    expect(latest().received).toEqual([{ type: 'arm', armed: true }]);
    expect(supervisor.restarts).toBe(2);
    expect(states).toEqual(['starting', 'running', 'restarting', 'restarting', 'running']); // each crash says how it ended
    expect(log.lines.filter((line) => line.includes('restarting in'))).toHaveLength(2);
  });

  it('kills and restarts a reader process that stops answering', async () => {
    const { supervisor, processes, latest } = supervise({ silenceLimitMs: 100 });
    supervisor.start();
    latest().handlers.onMessage(hello);
    await until(() => processes.length === 2);
    expect(processes[0]!.killed).toBe(true);
  });

  it('does not restart a reader process that reported it cannot run here', async () => {
    const { supervisor, processes, latest } = supervise();
    supervisor.start();
    latest().handlers.onMessage(hello);
    latest().handlers.onMessage({ type: 'fatal', reason: 'module', detail: 'The NFC module (nfc-pcsc) could not be loaded: not installed' });
    latest().handlers.onExit(78, null);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processes).toHaveLength(1);
    expect(supervisor.processState).toBe('failed');
    expect(supervisor.processDetail).toMatch(/nfc-pcsc/);
  });

  it('drops messages outside the protocol without logging their content', () => {
    const { supervisor, latest, log } = supervise();
    const received: ReaderToMain[] = [];
    supervisor.onMessage((message) => void received.push(message));
    supervisor.start();
    latest().handlers.onMessage(hello);
    latest().handlers.onMessage({ type: 'tap', uid: '04a1b2c3d4e5f6', reader: 'x' });
    latest().handlers.onMessage({ type: 'readers', readers: [{ name: 'r', cardPresent: false, extra: 'no' }] });
    latest().handlers.onMessage('garbage');
    expect(received).toEqual([hello]);
    expect(log.lines.join('\n')).not.toMatch(/04a1b2c3d4e5f6/);
    expect(log.lines[0]).toMatch(/does not match the protocol/);
  });

  it('stops by asking, and kills a reader process that does not exit', async () => {
    const polite = supervise();
    polite.supervisor.start();
    polite.latest().handlers.onMessage(hello);
    await polite.supervisor.stop();
    expect(polite.latest().received.at(-1)).toEqual({ type: 'shutdown' });
    expect(polite.latest().killed).toBe(false);
    expect(polite.supervisor.processState).toBe('stopped');

    const stubborn = supervise({}, { exitOnShutdown: false });
    stubborn.supervisor.start();
    await stubborn.supervisor.stop(30);
    expect(stubborn.latest().killed).toBe(true);
    expect(stubborn.processes).toHaveLength(1);
  });
});
