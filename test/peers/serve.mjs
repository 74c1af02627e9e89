// What every peer shares: how it tells the test where it listens and what it received.
// stdout carries one JSON object per line:
//   { "listening": "<AG-UI endpoint URL>", ... }   once, when the server is ready
//   { "received": { "path", "accept", "contentType", "body" } }   for every POST to an AG-UI endpoint
// Anything else a library prints goes to stderr (console.log is redirected there), so stdout stays parseable.
import { createServer } from 'node:http';

const stdout = process.stdout.write.bind(process.stdout);
console.log = (...args) => console.error(...args);
console.info = (...args) => console.error(...args);
console.debug = () => undefined;

export function say(message) {
  stdout(`${JSON.stringify(message)}\n`);
}

export function received(request, body) {
  say({ received: { path: request.url, accept: request.headers.accept ?? null, contentType: request.headers['content-type'] ?? null, body } });
}

/** The JSON body of a request (undefined when it is not JSON). */
export async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A plain node:http server on 127.0.0.1 and a free port; resolves with its origin. */
export function listen(handler) {
  return listenOn(
    createServer((request, response) => {
      Promise.resolve(handler(request, response)).catch((error) => {
        console.error(error);
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: String(error?.message ?? error) }));
      });
    }),
  );
}

/** Listens on 127.0.0.1 and a free port (a node:http server, or an Express app); resolves with the origin. */
export function listenOn(target) {
  return new Promise((resolve, reject) => {
    const server = target.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`));
    server.once('error', reject);
  });
}

// A peer ends when its parent (the test) goes away.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
