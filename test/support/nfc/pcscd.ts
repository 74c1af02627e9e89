import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { vpcdPorts } from './virtual-card';

/**
 * A private pcscd for tests and scripts: `pcscd --foreground` with vsmartcard's vpcd driver, which
 * gives two virtual readers ("Virtual PCD 00 00" on TCP 35963, "Virtual PCD 00 01" on 35964).
 *
 * pcscd's socket path is compiled in (/run/pcscd/pcscd.comm), so there is one pcscd per mount
 * namespace: a running system pcscd must be stopped first (on systemd hosts pcscd.socket too, or
 * it starts pcscd again on the next client). As root, startPcscd stops the systemd units itself and
 * stopPcscd starts pcscd.socket again. Linux only.
 */

export const pcscdSocketPath = '/run/pcscd/pcscd.comm';
const pcscdPidFile = '/run/pcscd/pcscd.pid';
const pcscdCandidates = ['/usr/sbin/pcscd', '/usr/bin/pcscd', '/usr/local/sbin/pcscd'];
const vpcdConfig = '/etc/reader.conf.d/vpcd';
/** The driver itself: `apt-get remove` leaves the config file behind without it. */
const vpcdDriver = '/usr/lib/pcsc/drivers/serial/libifdvpcd.so';
const installHint = 'apt-get install -y pcscd libpcsclite-dev vsmartcard-vpcd';

export function pcscdBinary(): string | undefined {
  return pcscdCandidates.find((path) => existsSync(path));
}

/** Why a private pcscd cannot run here, or undefined when it can. */
export function pcscdUnavailableReason(): string | undefined {
  if (process.platform !== 'linux') return 'pcscd with the virtual reader runs on Linux only';
  if (!pcscdBinary()) return `pcscd is not installed (${installHint})`;
  if (!existsSync(vpcdConfig) || !existsSync(vpcdDriver)) return `the virtual reader driver is not installed (${installHint})`;
  try {
    accessSync('/run', constants.W_OK);
  } catch {
    if (!existsSync('/run/pcscd')) return 'pcscd needs to create /run/pcscd: run the tests as root';
    try {
      accessSync('/run/pcscd', constants.W_OK);
    } catch {
      return 'pcscd needs write access to /run/pcscd: run the tests as root';
    }
  }
  const running = runningPcscd();
  if (running !== undefined && !systemdUnitsActive().length) return `another pcscd is running (pid ${running}); stop it first`;
  if (systemdUnitsActive().length > 0 && process.getuid?.() !== 0) {
    return 'the system pcscd (systemd pcscd.socket) is active; run `sudo systemctl stop pcscd.socket pcscd.service` first';
  }
  return undefined;
}

function runningPcscd(): number | undefined {
  if (!existsSync(pcscdPidFile)) return undefined;
  // pcscd writes "<pid>\n\0".
  const pid = Number.parseInt(readFileSync(pcscdPidFile, 'utf8'), 10);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  // A zombie or an unrelated process that reused the pid is not a pcscd.
  try {
    const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return comm === 'pcscd' && state !== 'Z' ? pid : undefined;
  } catch {
    return undefined;
  }
}

function systemdUnitsActive(): string[] {
  if (!existsSync('/run/systemd/system')) return [];
  const result = spawnSync('systemctl', ['is-active', 'pcscd.socket', 'pcscd.service'], { encoding: 'utf8' });
  if (result.error) return [];
  const states = result.stdout.trim().split('\n');
  return ['pcscd.socket', 'pcscd.service'].filter((_, index) => states[index] === 'active');
}

/** True when pcscd accepts a connection on its socket (a stale socket file refuses). */
export function pcscdAnswers(timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(pcscdSocketPath);
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** True when something listens on the TCP port (read from /proc/net/tcp: connecting would insert a card into vpcd). */
export function tcpListening(port: number): boolean {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A') return true;
    }
  }
  return false;
}

export interface Pcscd {
  readonly pid: number;
  /** How long pcscd took to open its socket and vpcd's port (ms). */
  readonly startMs: number;
  /** What pcscd printed (bounded), for failure messages. */
  output(): string;
  /** SIGTERM and wait (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<void>;
  /** SIGKILL: the service dies without cleaning up (its socket file stays behind). */
  kill(): Promise<void>;
  readonly exited: Promise<void>;
}

let stoppedSystemdUnits: string[] = [];

/** Starts `pcscd --foreground`; resolves when its socket answers and vpcd listens on 35963 and 35964. */
export async function startPcscd(options: { timeoutMs?: number; debug?: boolean; detached?: boolean } = {}): Promise<Pcscd> {
  const binary = pcscdBinary();
  if (!binary) throw new Error(`pcscd is not installed (${installHint})`);
  const active = systemdUnitsActive();
  if (active.length > 0) {
    // pcscd.socket would start the system pcscd again for the next client: stop both, restore the socket in stop().
    const stopped = spawnSync('systemctl', ['stop', 'pcscd.socket', 'pcscd.service'], { encoding: 'utf8' });
    if (stopped.status !== 0) throw new Error(`could not stop the system pcscd: ${stopped.stderr.trim()}`);
    stoppedSystemdUnits = active;
  }
  const other = runningPcscd();
  if (other !== undefined) throw new Error(`another pcscd is running (pid ${other})`);

  const started = performance.now();
  // Detached: pcscd outlives this process (scripts/nfc/pcscd.ts start); stop it later with stopPcscdByPidFile().
  const child: ChildProcess = spawn(binary, ['--foreground', ...(options.debug ? ['--debug'] : [])], {
    stdio: options.detached ? 'ignore' : ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  if (options.detached) child.unref();
  let output = '';
  const collect = (chunk: Buffer) => void (output = (output + chunk.toString('utf8')).slice(-8192));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let dead = false;
  void exited.then(() => (dead = true));

  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    if (dead) throw new Error(`pcscd exited at start:\n${output}`);
    if (tcpListening(vpcdPorts.reader0) && tcpListening(vpcdPorts.reader1) && (await pcscdAnswers())) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pcscd did not open ${pcscdSocketPath} and port ${vpcdPorts.reader0} in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const startMs = performance.now() - started;

  const stop = async (timeoutMs = 5_000) => {
    if (!dead) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    }
    restoreSystemdUnits();
  };
  return {
    pid: child.pid!,
    startMs,
    output: () => output,
    stop,
    kill: async () => {
      if (!dead) child.kill('SIGKILL');
      await exited;
    },
    exited,
  };
}

function restoreSystemdUnits(): void {
  if (stoppedSystemdUnits.includes('pcscd.socket')) spawnSync('systemctl', ['start', 'pcscd.socket']);
  stoppedSystemdUnits = [];
}

/** Stops the pcscd named in /run/pcscd/pcscd.pid (SIGTERM, then SIGKILL after `timeoutMs`); false when none runs. */
export async function stopPcscdByPidFile(timeoutMs = 5_000): Promise<boolean> {
  const pid = runningPcscd();
  if (pid === undefined) return false;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (runningPcscd() === pid) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** The pid of a live pcscd (from its pid file), if any. */
export function pcscdPid(): number | undefined {
  return runningPcscd();
}
