import { createInterface } from 'node:readline';

/**
 * Electron's `process.parentPort` in a utility process, played over stdio (see short-lived-parent.ts):
 * messages to main are JSON lines on stdout, messages from main JSON lines on stdin. As with Electron's
 * port, nothing is said when main goes away: the end of stdin and a failed write are ignored.
 */
process.stdout.on('error', () => undefined);
const listeners: ((event: { data: unknown }) => void)[] = [];
createInterface({ input: process.stdin }).on('line', (line) => {
  for (const listener of listeners) listener({ data: JSON.parse(line) as unknown });
});
(process as unknown as { parentPort: unknown }).parentPort = {
  postMessage: (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`),
  on: (_event: 'message', listener: (event: { data: unknown }) => void) => listeners.push(listener),
};
