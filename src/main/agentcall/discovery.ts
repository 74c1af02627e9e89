import { agentCardUrlFor, maxCardBytes, validateAgentCard, type CardValidation } from '../../shared/agentcall/card';
import { parseUiLinks, type UiLinksResult } from '../../shared/agentmesh/ui-links';
import type { Problem } from '../../shared/talkie/problems';
import type { NetPolicy, Timeouts } from '../net/guarded-fetch';
import { fetchJsonDocument } from '../net/json-document';

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

export async function discoverAgentCard(
  url: string,
  options: { allowLocalHttp: boolean; policy?: NetPolicy; timeouts?: Partial<Timeouts>; signal?: AbortSignal },
): Promise<AgentCardDiscovery> {
  const cardUrl = agentCardUrlFor(url);
  if (cardUrl === undefined) return failure('invalid_address', 'The address is not an http:// or https:// URL.');
  const policy = options.policy ?? { allowLocalHttp: options.allowLocalHttp };
  const document = await fetchJsonDocument(
    {
      url: cardUrl,
      maxBytes: maxCardBytes,
      strict: true,
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
    policy,
  );
  if (!document.ok) {
    switch (document.reason) {
      case 'http_status':
        return failure('card_http_error', `${cardUrl} answered HTTP ${document.status}; there is no agent card there (or the address is wrong).`);
      case 'media_type':
        return failure(
          'card_not_json',
          `${cardUrl} is served as ${document.mediaType === '' ? 'an unlabelled body' : `"${document.mediaType.slice(0, 80)}"`}, not application/json.`,
        );
      case 'not_json':
        return failure('card_not_json', `${cardUrl} is not valid UTF-8 JSON.`);
      case 'net':
        if (document.error.code === 'too_large')
          return failure('card_too_large', `The agent card is larger than ${maxCardBytes / 1024} KiB, the most an AgentCall card may be.`);
        return failure(`net_${document.error.code}`, document.error.message);
    }
  }
  const json = document.json;
  return { ok: true, cardUrl, validation: validateAgentCard(json, { allowLocalHttp: options.allowLocalHttp }), uiLinks: parseUiLinks(json, { cardUrl }) };
}

function failure(code: string, message: string): AgentCardDiscovery {
  return { ok: false, problems: [{ code, path: '', message }] };
}
