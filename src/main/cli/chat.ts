import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import type { Action } from '../../shared/talkie/content';
import type { RunUpdate } from '../../shared/talkie/conversation';
import { describe } from '../talkie/talkie-client';
import { agentCallChat, type AgentCallChatDeps } from './agentcall-chat';
import { identifyCliAgent } from './agentcall-connect';
import { connectTalkie } from './connect';
import { exitCodes, type Io } from './output';

/**
 * `agentdesk chat <address> [--token T] [--dev]`: a terminal chat. Text streams as it arrives,
 * tool status and cards print as text, and proposed actions are decided by typing
 * `confirm <id>` or `cancel <id>`. `/quit` (or end of input) leaves.
 */
export async function chat(
  address: string,
  options: { dev: boolean; token?: string | undefined; keyFile?: string | undefined },
  io: Io,
  input: NodeJS.ReadableStream = process.stdin,
  agentCallDeps?: AgentCallChatDeps,
): Promise<number> {
  // An AgentCall agent gets a terminal AgentCall session (agentcall-chat.ts); a Talkie server this chat.
  const agent = await identifyCliAgent(address, options);
  if (agent.protocol === 'agentcall') return agentCallChat(agent, options, io, input, agentCallDeps);
  if (agent.protocol === 'incompatible') {
    io.err(agent.message);
    return exitCodes.rejected;
  }
  const client = await connectTalkie(address, options);
  const { manifest } = client;
  io.out(`Connected to ${manifest.name} (${manifest.issuer}). Type a message; "confirm <id>" or "cancel <id>" decides an action; /quit leaves.`);
  const actions = new Map<string, Action>();
  let threadId = `t_${randomUUID()}`;
  const lines = createInterface({ input, terminal: false });
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    if (line === '/quit') break;
    const decision = /^(confirm|cancel)\s+(\S+)$/.exec(line);
    if (decision) {
      const action = actions.get(decision[2]!);
      if (!action) {
        io.out(`No action ${decision[2]} in this chat.`);
        continue;
      }
      try {
        const answer = (await client.decide(action.id, { decision: decision[1] as 'confirm' | 'cancel', paramsHash: action.paramsHash, method: 'button' })) as {
          action?: { status?: string };
        };
        io.out(`[action ${action.id}] ${answer.action?.status ?? 'decided'}`);
      } catch (error) {
        io.out(`[action ${action.id}] ${describe(error).message}`);
      }
      continue;
    }
    let streaming = false;
    const outcome = await client.run(
      { threadId, runId: `r_${randomUUID()}`, messages: [{ id: `m_${randomUUID()}`, role: 'user', content: line }] },
      (update) => {
        if (update.type === 'run.started') threadId = update.threadId;
        if (update.type === 'action') actions.set(update.action.id, update.action);
        streaming = printUpdate(update, io, streaming);
      },
    );
    if (streaming) io.out('');
    if (outcome.kind === 'not_sent' || outcome.kind === 'interrupted')
      io.out(`[${outcome.kind === 'not_sent' ? 'not sent' : 'connection dropped'}] ${outcome.message}`);
  }
  return exitCodes.ok;
}

function printUpdate(update: RunUpdate, io: Io, streaming: boolean): boolean {
  const line = (text: string) => {
    if (streaming) process.stdout.write('\n');
    io.out(text);
    return false;
  };
  switch (update.type) {
    case 'text.delta':
      process.stdout.write(update.delta);
      return true;
    case 'tool.start':
      return line(`… ${update.label}`);
    case 'tool.end':
      return line(update.ok ? '  ✓ done' : `  ✗ ${update.error ?? 'failed'}`);
    case 'card':
      return line(`[card] ${update.card.title ?? ''}\n${update.card.fallbackText}`);
    case 'action':
      return line(
        `[action ${update.action.id}] ${update.action.summary} (risk ${update.action.riskLevel}, ${update.action.status}${update.action.expiresAt ? `, expires ${update.action.expiresAt}` : ''}) — type "confirm ${update.action.id}" or "cancel ${update.action.id}"`,
      );
    case 'open':
      return line(`[link] ${update.label}: ${update.url}`);
    case 'usage':
      return line(
        `[usage] ${update.usage.map((meter) => `${meter.label} ${meter.used}${meter.limit ? `/${meter.limit}` : ''} ${meter.unit ?? ''}`).join(', ')}`,
      );
    case 'run.error':
      return line(`[error ${update.code}] ${update.message}${update.retryable ? ' (you can try again)' : ''}`);
    default:
      return streaming;
  }
}
