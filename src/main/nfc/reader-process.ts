import { mainToReaderSchema, readerFatalExitCode, type MainToReader, type ReaderToMain } from '../../shared/nfc/reader-protocol';
import { ReaderWorker, type ParentLink } from './reader-worker';

/**
 * Entry point of the NFC reader process. The same file runs as an Electron utilityProcess in the
 * app (messages through process.parentPort) and as a Node child process under plain Node (messages
 * through process.send, started by child_process.fork). It exits when main goes away.
 *
 * Built as out/main/nfc-reader.js (an electron-vite main input); tests run the TypeScript source
 * with `node --import tsx`.
 */

interface UtilityParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
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
const exit = () => {
  worker.stop();
  // Leave time for the PC/SC context to close, then go.
  setTimeout(() => process.exit(0), 50).unref();
};
process.on('disconnect', exit);
process.on('SIGTERM', exit);
link.onMessage((message) => {
  if (message.type === 'shutdown') exit();
});
void worker.start().then((outcome) => {
  // The fatal message is on its way; exit with the code that tells the supervisor not to restart.
  if (outcome === 'fatal') setTimeout(() => process.exit(readerFatalExitCode), 50);
});
