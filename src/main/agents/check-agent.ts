import type { AgentCheck } from '../../shared/ipc/contract';
import { guardedRequest, NetError, type NetPolicy, type Timeouts } from '../net/guarded-fetch';
import { formatDuration } from '../net/net-error';
import { identifyAgentOrWhy } from './identify-agent';

/**
 * `agents.check`: what an address is, before it is added. The same identification the app does when
 * the agent is opened (`identifyAgentOrWhy`: the Talkie manifest and the A2A card, read at once),
 * bounded in time: each document within the network layer's rules (no token is ever sent: nothing is
 * signed in yet), and the whole check within `checkDeadlineMs`, after which it stops and says so.
 *
 * A plain AG-UI endpoint has no document to read, and a run would start work on the server, so its
 * check is one GET, which an AG-UI server refuses: 405, or 404 (Express's default for a POST-only
 * route, as with `@ag-ui/a2a` in front of an A2A agent). So any HTTP answer says a server is there;
 * whether it speaks AG-UI shows on the first run. 502–504 mean a gateway answered for an agent that
 * is not answering: that is "could not be reached".
 *
 * Failures are answers, not errors: `unreachable` (network, time limit, gateway), `blocked` (an
 * address the network policy refuses), `not_found` (a server answered without an agent there),
 * `incompatible` (an agent AgentDesk cannot talk to), each with main's sentence and a stable code.
 */
export const checkDeadlineMs = 15_000;

/** Per request: short enough that both documents fit the check's deadline. */
const checkTimeouts: Partial<Timeouts> = { connectMs: 8_000, firstByteMs: 12_000, idleMs: 12_000 };

export async function checkAgent(
  target: { url: string; display: string; kind: 'auto' | 'agui' },
  policy: NetPolicy,
  options: { deadlineMs?: number; timeouts?: Partial<Timeouts> } = {},
): Promise<AgentCheck> {
  const deadlineMs = options.deadlineMs ?? checkDeadlineMs;
  const deadline = AbortSignal.timeout(deadlineMs);
  const bounds = { timeouts: { ...checkTimeouts, ...options.timeouts }, signal: deadline };
  const { display } = target;
  const late = (): AgentCheck => ({
    found: false,
    reason: 'unreachable',
    display,
    code: 'check_timeout',
    message: `${new URL(target.url).host} did not answer within ${formatDuration(deadlineMs)}.`,
  });

  if (target.kind === 'agui') {
    try {
      const response = await guardedRequest(
        { url: target.url, method: 'GET', maxBytes: 1024, headers: { Accept: 'text/event-stream, application/json' }, ...bounds },
        policy,
      );
      response.cancel();
      const { status } = response;
      if (status >= 502 && status <= 504)
        return {
          found: false,
          reason: 'unreachable',
          display,
          code: `http_${status}`,
          message: `${target.url} answered HTTP ${status}: the server in front of the agent cannot reach it.`,
        };
      return { found: true, kind: 'agui', display };
    } catch (error) {
      if (!(error instanceof NetError)) throw error;
      if (deadline.aborted) return late();
      return {
        found: false,
        reason: error.code === 'blocked_address' ? 'blocked' : 'unreachable',
        display,
        code: `net_${error.code}`,
        message: error.message.slice(0, 1000),
      };
    }
  }

  const identification = await identifyAgentOrWhy(target.url, policy, bounds);
  if (identification.ok) {
    const { agent } = identification;
    switch (agent.protocol) {
      case 'talkie':
        // A manifest that answered but cannot be used: the server is a Talkie server AgentDesk cannot talk to as it is.
        if (agent.name === undefined) {
          const first = agent.problems[0];
          return {
            found: false,
            reason: 'incompatible',
            display,
            code: first?.code ?? 'manifest_invalid',
            message: (first?.message ?? 'The Talkie manifest is not valid.').slice(0, 1000),
          };
        }
        return { found: true, kind: 'talkie', display, name: agent.name.slice(0, 200) };
      case 'agentcall':
        return { found: true, kind: 'agentcall', display, name: agent.card.name.slice(0, 200), webPages: Math.min(agent.webPages, 100) };
      case 'a2a':
        return { found: true, kind: 'a2a', display, name: agent.a2a.name.slice(0, 200), webPages: Math.min(agent.webPages, 100) };
    }
  }
  const { error, detail } = identification;
  if (deadline.aborted) return late();
  const reason =
    error.code === 'network_error'
      ? detail === 'net_blocked_address'
        ? 'blocked'
        : 'unreachable'
      : error.code === 'incompatible'
        ? 'incompatible'
        : 'not_found';
  return { found: false, reason, display, code: detail.slice(0, 64), message: error.message.slice(0, 1000) };
}
