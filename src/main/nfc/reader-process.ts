import { mainToReaderSchema, parentPidEnv, readerFatalExitCode, type MainToReader, type ReaderToMain } from '../../shared/nfc/reader-protocol';
import { ReaderWorker, type ParentLink } from './reader-worker';

/**
 * Entry point of the NFC reader process. The same file runs as an Electron utilityProcess in the
 * app (messages through process.parentPort) and as a Node child process under plain Node (messages
 * through process.send, started by child_process.fork). It exits when main goes away, whenever that
 * happens (watchMain below).
 *
 * Built as out/main/nfc-reader.js (an electron-vite main input); tests run the TypeScript source
 * with `node --import tsx`.
 */

interface UtilityParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
}

/** Whether a process `pid` exists (EPERM: it does, as another user's). */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Calls `onGone` once main is gone, checked now and every 500 ms. The channel's own news is not
 * enough: an Electron utility process hears nothing when main is killed, and a Node child whose main
 * was killed while it was still loading heard it before it listened; either way the process went on
 * under PID 1 (~60 MB each), and a kiosk unit restarting in a loop piled them up. Main's pid comes from
 * the launcher (`parentPidEnv`), so a main killed before this process started is seen as gone at once.
 * This process is main's own child in both launch modes (Electron starts utility processes itself, not
 * through its zygote): on Linux and macOS a child whose parent dies is handed to another parent, which
 * `process.ppid` shows; on Windows, where it is not, main's pid no longer exists. (Linux's
 * PR_SET_PDEATHSIG would say it at once, but Node has no way to set it.)
 */
function watchMain(onGone: () => void): void {
  const main = Number(process.env[parentPidEnv]) || process.ppid;
  const mainsChild = process.ppid === main;
  const gone = () => (mainsChild && process.ppid !== main) || !exists(main);
  if (gone()) return onGone();
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    onGone();
  }, 500);
  timer.unref();
}

function parentLink(): ParentLink | undefined {
  const port = (process as unknown as { parentPort?: UtilityParentPort }).parentPort;
  const accept = (listener: (message: MainToReader) => void) => (raw: unknown) => {
    const checked = mainToReaderSchema.safeParse(raw);
    if (checked.success) listener(checked.data);
  };
  if (port) {
    return {
      send: (message: ReaderToMain) => port.postMessage(message),
      onMessage: (listener) => port.on('message', (event) => accept(listener)(event.data)),
    };
  }
  if (typeof process.send === 'function') {
    return {
      send: (message: ReaderToMain) => {
        if (process.connected) process.send!(message);
      },
      onMessage: (listener) => process.on('message', accept(listener)),
    };
  }
  return undefined;
}

const link = parentLink();
if (!link) {
  process.stderr.write('The NFC reader process is started by AgentDesk (it needs a message channel to main).\n');
  process.exit(2);
}
const worker = new ReaderWorker({ link });
let exiting = false;
const exit = () => {
  if (exiting) return;
  exiting = true;
  worker.stop();
  // Leave time for the PC/SC context to close, then go.
  setTimeout(() => process.exit(0), 50).unref();
};
process.on('disconnect', exit);
process.on('SIGTERM', exit);
// A Node child whose main died while this module was loading has missed 'disconnect' (it was emitted
// before the listener above existed): the channel is already closed.
if (typeof process.send === 'function' && !process.connected) exit();
watchMain(exit);
link.onMessage((message) => {
  if (message.type === 'shutdown') exit();
});
if (!exiting) {
  void worker.start().then((outcome) => {
    // The fatal message is on its way; exit with the code that tells the supervisor not to restart.
    if (outcome === 'fatal') setTimeout(() => process.exit(readerFatalExitCode), 50);
  });
}
