import { parentPidEnv, type MainToReader } from '../../shared/nfc/reader-protocol';
import { stderrLines, type ReaderLauncher } from './reader-supervisor';
import { builtReaderEntryPath } from './built-entry';

/**
 * The Electron launcher for the NFC reader process: utilityProcess.fork, passed in by the Electron
 * glue (this file does not import Electron, so it stays testable under plain Node).
 *
 *   import { utilityProcess } from 'electron';
 *   new ReaderSupervisor({ log, launcher: utilityProcessLauncher((path, args, options) => utilityProcess.fork(path, args, options)) });
 */

/** The part of Electron's UtilityProcess this launcher uses. */
export interface UtilityProcessLike {
  readonly pid: number | undefined;
  readonly stderr: NodeJS.ReadableStream | null;
  postMessage(message: unknown): void;
  kill(): boolean;
  on(event: 'message', listener: (message: unknown) => void): this;
  on(event: 'exit', listener: (code: number) => void): this;
}

export type UtilityFork = (
  modulePath: string,
  args: string[],
  options: { serviceName: string; stdio: 'pipe' | ['ignore', 'ignore', 'pipe']; env: NodeJS.ProcessEnv },
) => UtilityProcessLike;

export function utilityProcessLauncher<Out = MainToReader>(
  forkUtility: UtilityFork,
  modulePath: string = builtReaderEntryPath(import.meta.url),
  serviceName = 'AgentDesk NFC reader',
): ReaderLauncher<Out> {
  return (handlers) => {
    // Main's pid (with main's environment, which is the default this replaces): the process ends when
    // main is gone; a utility process hears nothing when main is killed.
    const env = { ...process.env, [parentPidEnv]: String(process.pid) };
    const child = forkUtility(modulePath, [], { serviceName, stdio: ['ignore', 'ignore', 'pipe'], env });
    child.stderr?.on(
      'data',
      stderrLines((line) => handlers.onStderr?.(line)),
    );
    child.on('message', (message) => handlers.onMessage(message));
    // Electron reports a crash as a non-zero exit code (there is no signal on this API).
    child.on('exit', (code) => handlers.onExit(code, null));
    return {
      get pid() {
        return child.pid;
      },
      send: (message) => child.postMessage(message),
      kill: () => void child.kill(),
    };
  };
}
