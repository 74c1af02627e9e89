import { readFile, stat } from 'node:fs/promises';
import { join, resolve, win32 } from 'node:path';
import type { DevicePolicy } from '../../shared/device-policy/device-policy';
import { devicePolicyFailureMessage, readDevicePolicyText } from '../../shared/device-policy/read-device-policy';
import { reasonInWords } from '../store/json-file-store';

/**
 * Finding and reading the device policy (issue #18; the format is src/shared/device-policy).
 * The file is the system location of this OS, or the one `--policy FILE` names. No file at the
 * system location means no policy (an unmanaged machine). Anything else that is not a valid policy
 * (a file that cannot be read, malformed JSON, an unknown version, a schema problem, a `--policy`
 * file that does not exist) fails closed: the result says so with the file and the problem, and the
 * entries refuse to start (or, in kiosk mode, show only the error screen). Never silently ignored.
 */
export type DevicePolicyLoad =
  | { state: 'none'; file: string }
  | { state: 'active'; file: string; policy: DevicePolicy }
  | {
      state: 'failed';
      file: string;
      /** `missing`: a --policy file that is not there; `unreadable`: not a readable file of a policy's size; then as readDevicePolicyText says. */
      kind: 'missing' | 'unreadable' | 'malformed' | 'unknown_version' | 'invalid' | 'overridden';
      /** What is wrong, in words (without the file name). */
      problem: string;
      /** The whole sentence for people, naming the file and the problem. */
      message: string;
      /** True when the app must show the error screen rather than refuse to start: `--kiosk`, or the file said `"kiosk": true` as far as it could be read. */
      kiosk: boolean;
    };

type FailureKind = Extract<DevicePolicyLoad, { state: 'failed' }>['kind'];

/** Policy files larger than this are refused unread (a policy is a few KiB). */
export const maxDevicePolicyBytes = 1024 * 1024;

/** The system location: Linux /etc/agentdesk/policy.json, Windows %ProgramData%\AgentDesk\policy.json, macOS /Library/Application Support/AgentDesk/policy.json. */
export function systemDevicePolicyPath(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  if (platform === 'win32') return win32.join(env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData', 'AgentDesk', 'policy.json');
  if (platform === 'darwin') return join('/Library', 'Application Support', 'AgentDesk', 'policy.json');
  return '/etc/agentdesk/policy.json';
}

export interface LoadDevicePolicyOptions {
  /** `--policy FILE`: this file instead of the system location; it must exist. */
  file?: string | undefined;
  /** The system location (tests pass a temporary folder's file); default: this OS's. */
  systemPath?: string;
  /** `--kiosk` on the command line: a policy that cannot be read is shown as the error screen. */
  kiosk?: boolean;
  /**
   * `agentdesk policy check FILE` reads any file; the app does not: where the system location holds a
   * policy, a `--policy` naming another file fails closed (a user could otherwise start the app with
   * a looser policy of their own). Default true.
   */
  systemPolicyWins?: boolean;
}

export async function loadDevicePolicy(options: LoadDevicePolicyOptions = {}): Promise<DevicePolicyLoad> {
  const explicit = options.file !== undefined;
  const systemPath = options.systemPath ?? systemDevicePolicyPath();
  const file = explicit ? resolve(options.file!) : systemPath;
  const failed = (kind: FailureKind, problem: string, kiosk = false): DevicePolicyLoad => ({
    state: 'failed',
    file,
    kind,
    problem,
    message: devicePolicyFailureMessage(file, problem),
    kiosk: kiosk || options.kiosk === true,
  });
  if (explicit && options.systemPolicyWins !== false && resolve(systemPath) !== file) {
    const installed = await stat(systemPath).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
    );
    if (installed) return failed('overridden', `a device policy is installed at ${systemPath}, and --policy cannot replace it (remove --policy, or have an administrator change that file)`);
  }
  let text: string;
  try {
    const info = await stat(file);
    if (!info.isFile()) return failed('unreadable', 'it is not a file');
    if (info.size > maxDevicePolicyBytes) return failed('unreadable', `it is ${info.size} bytes, more than a policy may be (${maxDevicePolicyBytes})`);
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No file at the system location: an unmanaged machine. A --policy file must be there.
    if (!explicit && code === 'ENOENT') return { state: 'none', file };
    return code === 'ENOENT' ? failed('missing', 'the file does not exist') : failed('unreadable', `it cannot be read: ${reasonInWords(error)}`);
  }
  const read = readDevicePolicyText(text);
  if (!read.ok) return failed(read.kind, read.problem, read.kiosk);
  return { state: 'active', file, policy: read.policy };
}
