/**
 * Benchmark (not a test): SSE parse + validate throughput for TEXT_MESSAGE_CONTENT events,
 * AgentDesk's Talkie client next to @ag-ui/client's HttpAgent, on the same stream from the same
 * local server, in one run. Prints figures; asserts nothing.
 *
 *   npm run bench:sse            (EVENTS=50000 ROUNDS=5 to change the load)
 */
import { HttpAgent } from '@ag-ui/client';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { validateManifest } from '../src/shared/talkie/manifest';
import { TalkieClient } from '../src/main/talkie/talkie-client';

const events = Number(process.env.EVENTS ?? 50_000);
const rounds = Number(process.env.ROUNDS ?? 5);

function buildStream(): Buffer {
  const lines = [
    `data: ${JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })}\n\n`,
    `data: ${JSON.stringify({ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' })}\n\n`,
  ];
  for (let i = 0; i < events; i++) lines.push(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: `token ${i} ` })}\n\n`);
  lines.push(
    `data: ${JSON.stringify({ type: 'TEXT_MESSAGE_END', messageId: 'm' })}\n\n`,
    `data: ${JSON.stringify({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' })}\n\n`,
  );
  return Buffer.from(lines.join(''));
}

const stream = buildStream();
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'Content-Type': 'text/event-stream' });
    // 16 KiB writes, as a proxy-less server would flush them.
    for (let offset = 0; offset < stream.length; offset += 16 * 1024) response.write(stream.subarray(offset, offset + 16 * 1024));
    response.end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const manifest = validateManifest(
  {
    spec: 'talkie/1',
    issuer: origin,
    serverId: 'bench',
    name: 'bench',
    auth: { oauth: { issuer: origin } },
    endpoints: { run: '/run', threads: '/t', thread: '/t/{threadId}' },
  },
  `${origin}/.well-known/talkie.json`,
);
if (!manifest.ok) throw new Error('manifest');
const talkie = new TalkieClient(manifest.manifest, { allowLocalHttp: true }, { get: async () => 'token', refresh: async () => undefined });
const input = { threadId: 't', runId: 'r', messages: [{ id: 'u', role: 'user' as const, content: 'go' }] };

async function agentDesk(): Promise<number> {
  let deltas = 0;
  const outcome = await talkie.run(input, (update) => {
    if (update.type === 'text.delta') deltas++;
  });
  if (outcome.kind !== 'finished') throw new Error(`agentdesk: ${outcome.kind}`);
  return deltas;
}

async function httpAgent(): Promise<number> {
  const agent = new HttpAgent({ url: `${origin}/run` });
  let deltas = 0;
  await new Promise<void>((resolve, reject) => {
    agent.run({ ...input, tools: [], context: [], state: {}, forwardedProps: {} }).subscribe({
      next: (event) => {
        if (event.type === 'TEXT_MESSAGE_CONTENT') deltas++;
      },
      error: reject,
      complete: () => resolve(),
    });
  });
  return deltas;
}

async function measure(run: () => Promise<number>): Promise<{ ms: number; deltas: number }> {
  const start = performance.now();
  const deltas = await run();
  return { ms: performance.now() - start, deltas };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results = { agentdesk: [] as number[], httpAgent: [] as number[] };
await agentDesk();
await httpAgent(); // warm-up
for (let round = 0; round < rounds; round++) {
  // Alternate the order so neither side always runs on a warmer machine.
  const pair = round % 2 === 0 ? (['agentdesk', 'httpAgent'] as const) : (['httpAgent', 'agentdesk'] as const);
  for (const name of pair) {
    const { ms, deltas } = await measure(name === 'agentdesk' ? agentDesk : httpAgent);
    if (deltas !== events) throw new Error(`${name} saw ${deltas} of ${events} deltas`);
    results[name].push(ms);
  }
}
server.close();

const mb = stream.length / 1024 / 1024;
process.stdout.write(
  `SSE parse + validate, ${events} TEXT_MESSAGE_CONTENT events (${mb.toFixed(1)} MiB), median of ${rounds} rounds, node ${process.version}\n`,
);
for (const [name, times] of Object.entries(results)) {
  const ms = median(times);
  process.stdout.write(
    `  ${name.padEnd(10)} ${ms.toFixed(0).padStart(6)} ms  ${Math.round(events / (ms / 1000))
      .toLocaleString('en')
      .padStart(9)} events/s  ${(mb / (ms / 1000)).toFixed(1).padStart(6)} MiB/s\n`,
  );
}
process.stdout.write(`  ratio agentdesk/httpAgent throughput: ${(median(results.httpAgent) / median(results.agentdesk)).toFixed(2)}× (goal ≥ 1.00×)\n`);
