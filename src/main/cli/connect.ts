import { normalizeAgentAddress } from '../../shared/agents/address';
import { discoverTalkie } from '../talkie/discovery';
import { TalkieClient } from '../talkie/talkie-client';
import { UsageError } from './output';

/** Discovery + a client with a fixed development token (`--token`), for chat and conformance. */
export async function connectTalkie(address: string, options: { dev: boolean; token?: string | undefined }): Promise<TalkieClient> {
  let url: string;
  try {
    url = normalizeAgentAddress(address, { allowLocalHttp: options.dev }).url;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const policy = { allowLocalHttp: options.dev };
  const result = await discoverTalkie(url, policy);
  if (!result.ok) throw new UsageError(`${url} cannot be used: ${result.problems.map((problem) => problem.message).join(' ')}`);
  const token = options.token;
  return new TalkieClient(result.server.manifest, policy, { get: async () => token, refresh: async () => undefined });
}
