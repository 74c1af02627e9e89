import { agentCardUrlFor, maxCardBytes, validateAgentCard, type CardValidation } from '../../shared/agentcall/card';
import { parseUiLinks, type UiLinksResult } from '../../shared/agentmesh/ui-links';
import type { Problem } from '../../shared/talkie/problems';
import { guardedRequest, NetError, type NetPolicy, type Timeouts } from '../net/guarded-fetch';

/**
 * AgentCall discovery: what the user typed → the A2A Agent Card at /.well-known/agent-card.json
 * (or the typed URL when it already ends in agent-card.json), fetched through the guarded network
 * layer (HTTPS/DNS/IP/redirect/timeout rules), at most 256 KiB before parsing, JSON only, then
 * validated by src/shared/agentcall/card.ts.
 *
 * `ok: true` means a JSON document was fetched; whether it is a usable card is in `validation`, and
 * the web pages it lists (AgentMesh UI links, read from any card, usable or not) in `uiLinks`.
 * `ok: false` means no document: a network failure (`net_<NetErrorCode>`), an HTTP error, an
 * oversized or non-JSON body.
 */
export type AgentCardDiscovery = { ok: true; cardUrl: string; validation: CardValidation; uiLinks: UiLinksResult } | { ok: false; problems: Problem[] };

export async function discoverAgentCard(url: string, options: { allowLocalHttp: boolean; policy?: NetPolicy; timeouts?: Partial<Timeouts> }): Promise<AgentCardDiscovery> {
  const cardUrl = agentCardUrlFor(url);
  if (cardUrl === undefined) return failure('invalid_address', 'The address is not an http:// or https:// URL.');
  const policy = options.policy ?? { allowLocalHttp: options.allowLocalHttp };
  let json: unknown;
  try {
    const response = await guardedRequest(
      { url: cardUrl, maxBytes: maxCardBytes, redirect: 'same-origin', headers: { Accept: 'application/json' }, ...(options.timeouts ? { timeouts: options.timeouts } : {}) },
      policy,
    );
    if (response.status !== 200) {
      response.cancel();
      return failure('card_http_error', `${cardUrl} answered HTTP ${response.status}; there is no agent card there (or the address is wrong).`);
    }
    const mediaType = (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) {
      response.cancel();
      return failure('card_not_json', `${cardUrl} is served as ${mediaType === '' ? 'an unlabelled body' : `"${mediaType.slice(0, 80)}"`}, not application/json.`);
    }
    const bytes = await response.bytes();
    try {
      json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      return failure('card_not_json', `${cardUrl} is not valid UTF-8 JSON.`);
    }
  } catch (error) {
    if (error instanceof NetError) {
      if (error.code === 'too_large') return failure('card_too_large', `The agent card is larger than ${maxCardBytes / 1024} KiB, the most an AgentCall card may be.`);
      return failure(`net_${error.code}`, error.message);
    }
    throw error;
  }
  return { ok: true, cardUrl, validation: validateAgentCard(json, { allowLocalHttp: options.allowLocalHttp }), uiLinks: parseUiLinks(json, { cardUrl }) };
}

function failure(code: string, message: string): AgentCardDiscovery {
  return { ok: false, problems: [{ code, path: '', message }] };
}
