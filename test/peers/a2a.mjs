// AG-UI in front of an A2A agent: an @a2a-js/sdk 1.3 server (JSON-RPC, with its v0.3 compatibility
// on, since @ag-ui/a2a's client speaks A2A 0.3) whose agent answers with a task and an artifact,
// and an Express app whose POST /agui runs @ag-ui/a2a's A2AAgent against it and writes the events
// with @ag-ui/encoder. Express answers anything else with its default 404 (a GET of /agui too).
import { A2AAgent } from '@ag-ui/a2a';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { createRequire } from 'node:module';
import { listenOn, received, say } from './serve.mjs';

// @ag-ui/a2a brings its own @a2a-js/sdk (0.2, an A2A 0.3 client): its A2AClient, not 1.3's.
const { A2AClient } = createRequire(import.meta.resolve('@ag-ui/a2a'))('@a2a-js/sdk/client');

// The agent answers each message with a message (A2A's simplest reply; @ag-ui/a2a turns it into text).
const executor = {
  async execute(context, bus) {
    const { contextId, userMessage } = context;
    const said = userMessage.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(' ');
    bus.publish(
      AgentEvent.message({
        role: Role.ROLE_AGENT,
        messageId: `reply-${userMessage.messageId}`,
        parts: [{ content: { $case: 'text', value: `The A2A agent heard: ${said}` }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
        contextId,
        taskId: '',
        extensions: [],
        metadata: {},
        referenceTaskIds: [],
      }),
    );
    bus.finished?.();
  },
  async cancelTask() {},
};

// The A2A server, on its own port.
const a2aApp = express();
const a2aOrigin = await listenOn(a2aApp);
const card = {
  name: 'Echo over A2A',
  description: 'An A2A agent that repeats what it hears.',
  supportedInterfaces: [
    { url: `${a2aOrigin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    // What the compatibility layer needs to answer @ag-ui/a2a's 0.3 client.
    { url: `${a2aOrigin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
  ],
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text'],
  defaultOutputModes: ['text'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Repeats what it hears.',
      tags: ['echo'],
      examples: ['hello'],
      inputModes: ['text'],
      outputModes: ['text'],
      securityRequirements: [],
    },
  ],
  documentationUrl: '',
  signatures: [],
};
const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
a2aApp.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
a2aApp.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));

// The AG-UI side: Express, POST /agui only.
const app = express();
app.use(express.json({ limit: '5mb' }));
app.post('/agui', async (request, response) => {
  received(request, request.body);
  const parsed = RunAgentInputSchema.safeParse(request.body);
  if (!parsed.success) {
    response.status(400).json({ error: parsed.error.issues[0]?.message ?? 'invalid input' });
    return;
  }
  const agent = new A2AAgent({ a2aClient: new A2AClient(a2aOrigin, AGENT_CARD_PATH) });
  const encoder = new EventEncoder({ accept: request.get('accept') });
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
const origin = await listenOn(app);
say({ listening: `${origin}/agui`, a2a: a2aOrigin });
