// @copilotkit/runtime's own AG-UI endpoint: a CopilotRuntime with its BuiltInAgent on an `ai/test`
// mock model (no network, telemetry off), mounted with createCopilotExpressHandler. The agent's
// AG-UI endpoint is POST <base>/agent/default/run. The script: the model thinks (reasoning), then
// answers with text that says how many messages it was sent (ids are unique per call, as a provider's are).
process.env.COPILOTKIT_TELEMETRY_DISABLED = 'true';
process.env.DO_NOT_TRACK = '1';
const { BuiltInAgent, CopilotRuntime, createCopilotExpressHandler } = await import('@copilotkit/runtime/v2');
const { MockLanguageModelV3, simulateReadableStream } = await import('ai/test');
const { default: express } = await import('express');
const { listenOn, received, say } = await import('./serve.mjs');

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
let calls = 0;
const model = new MockLanguageModelV3({
  provider: 'mock',
  modelId: 'scripted',
  doStream: async (options) => {
    calls += 1;
    const sent = options.prompt.filter((message) => message.role === 'user' || message.role === 'assistant').length;
    return {
      stream: simulateReadableStream({
        chunks: [
          { type: 'stream-start', warnings: [] },
          { type: 'reasoning-start', id: `reasoning-${calls}` },
          { type: 'reasoning-delta', id: `reasoning-${calls}`, delta: 'The user said something.' },
          { type: 'reasoning-end', id: `reasoning-${calls}` },
          { type: 'text-start', id: `text-${calls}` },
          { type: 'text-delta', id: `text-${calls}`, delta: `CopilotKit heard ${sent} message(s).` },
          { type: 'text-end', id: `text-${calls}` },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
        ],
        initialDelayInMs: null,
        chunkDelayInMs: null,
      }),
    };
  },
});

const runtime = new CopilotRuntime({ agents: { default: new BuiltInAgent({ model }) } });
const app = express();
// Every request the runtime is sent, as it arrived (the runtime reads the body itself).
app.use((request, _response, next) => {
  if (request.method !== 'POST') return next();
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    try {
      received(request, JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch {
      received(request, null);
    }
  });
  next();
});
app.use(createCopilotExpressHandler({ runtime, basePath: '/api/copilotkit', cors: false }));
const origin = await listenOn(app);
say({ listening: `${origin}/api/copilotkit/agent/default/run` });
