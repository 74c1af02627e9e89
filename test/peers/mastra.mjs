// A Mastra agent behind @ag-ui/mastra's MastraAgent: @mastra/core's Agent with one tool that
// suspends for the user's approval (Mastra's human-in-the-loop), on an `ai/test` mock model that
// scripts the LLM (no network). POST /agui runs `MastraAgent.run(input)` and writes its events with
// @ag-ui/encoder, as an AG-UI endpoint built from these packages does.
// The script: the first model call asks for the `transfer_money` tool; the tool suspends (the run
// ends with an interrupt); after the resume, the tool returns and the model says it is done.
// Mastra reports feature usage to its telemetry unless told not to (nothing leaves loopback here).
process.env.MASTRA_TELEMETRY_DISABLED = '1';
const { MastraAgent } = await import('@ag-ui/mastra');
const { RunAgentInputSchema } = await import('@ag-ui/core/schemas');
const { EventEncoder } = await import('@ag-ui/encoder');
const { Mastra } = await import('@mastra/core');
const { Agent } = await import('@mastra/core/agent');
const { InMemoryStore } = await import('@mastra/core/storage');
const { createTool } = await import('@mastra/core/tools');
const { MockLanguageModelV3, simulateReadableStream } = await import('ai/test');
const { z } = await import('zod');
const { listen, readJson, received, say } = await import('./serve.mjs');

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
    const answered = options.prompt.some((message) => message.role === 'tool');
    const chunks = answered
      ? [
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: `t${calls}` },
          { type: 'text-delta', id: `t${calls}`, delta: 'The transfer is done.' },
          { type: 'text-end', id: `t${calls}` },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
        ]
      : [
          { type: 'stream-start', warnings: [] },
          { type: 'tool-call', toolCallId: `transfer-${calls}`, toolName: 'transfer_money', input: JSON.stringify({ amount: 100, to: 'Alice' }) },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
        ];
    return { stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }) };
  },
});

const transferMoney = createTool({
  id: 'transfer_money',
  description: 'Sends money to someone; a person must approve it first.',
  inputSchema: z.object({ amount: z.number(), to: z.string() }),
  suspendSchema: z.object({ reason: z.string() }),
  resumeSchema: z.object({ approved: z.boolean() }),
  execute: async (input, context) => {
    if (context?.agent?.resumeData === undefined) {
      await context?.agent?.suspend({ reason: `Approve sending ${input.amount} EUR to ${input.to}?` });
      return undefined;
    }
    return { sent: context.agent.resumeData.approved === true, amount: input.amount };
  },
});

const mastra = new Mastra({
  agents: { banker: new Agent({ id: 'banker', name: 'Banker', instructions: 'You move money when asked.', model, tools: { transfer_money: transferMoney } }) },
  storage: new InMemoryStore(),
  logger: false,
});

const origin = await listen(async (request, response) => {
  if (request.method !== 'POST' || request.url !== '/agui') {
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('Not Found');
    return;
  }
  const body = await readJson(request);
  received(request, body);
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: parsed.error.issues[0]?.message ?? 'invalid input' }));
    return;
  }
  const agent = new MastraAgent({ agentId: 'banker', agent: mastra.getAgent('banker'), resourceId: 'agentdesk-test' });
  const encoder = new EventEncoder({ accept: request.headers.accept });
  response.writeHead(200, { 'content-type': encoder.getContentType(), 'cache-control': 'no-cache' });
  await new Promise((resolve) => {
    agent.run(parsed.data).subscribe({
      next: (event) => response.write(encoder.encode(event)),
      error: (error) => {
        response.write(encoder.encode({ type: 'RUN_ERROR', message: String(error?.message ?? error) }));
        resolve();
      },
      complete: resolve,
    });
  });
  response.end();
});
say({ listening: `${origin}/agui` });
