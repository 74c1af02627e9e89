import { normalizeAgentAddress } from '../../shared/agents/address';
import { ServiceError } from '../../shared/base/errors';
import { identifyAgent, type IdentifiedAgent } from '../agents/identify-agent';
import type { NetPolicy } from '../net/guarded-fetch';
import { UsageError } from './output';

/**
 * Which protocol an address speaks, for `agentdesk chat` and `agentdesk conformance` (the app's
 * own rule, `identifyAgent`). A Talkie server goes on to the Talkie code unchanged. An address
 * that is not usable at all (bad address, nothing found, network) is a UsageError (exit 2); an
 * agent card AgentDesk cannot use comes back as `incompatible` so the caller can report it (exit 1).
 */
export type CliAgent =
  | { protocol: 'talkie' }
  | (Extract<IdentifiedAgent, { protocol: 'agentcall' }> & { url: string; policy: NetPolicy })
  | { protocol: 'incompatible'; url: string; message: string };

export async function identifyCliAgent(address: string, options: { dev: boolean }): Promise<CliAgent> {
  let url: string;
  try {
    url = normalizeAgentAddress(address, { allowLocalHttp: options.dev }).url;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const policy: NetPolicy = { allowLocalHttp: options.dev };
  try {
    const agent = await identifyAgent(url, policy);
    if (agent.protocol === 'a2a') {
      return {
        protocol: 'incompatible',
        url,
        message: `"${agent.a2a.name}" is an A2A agent without the AgentCall extension; AgentDesk talks to A2A agents only through AgentCall.`,
      };
    }
    return agent.protocol === 'talkie' ? agent : { ...agent, url, policy };
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'incompatible') return { protocol: 'incompatible', url, message: error.message };
    if (error instanceof ServiceError) throw new UsageError(`${url} cannot be used: ${error.message}`);
    throw error;
  }
}
