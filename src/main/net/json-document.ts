import { guardedRequest, mediaTypeOf, NetError, type NetPolicy, type Timeouts } from './guarded-fetch';

/** One JSON document fetched, or why not (each caller words its own problems). */
export type JsonDocument =
  | { ok: true; json: unknown; /** after same-origin redirects */ url: string; headers: Record<string, string> }
  | { ok: false; reason: 'http_status'; status: number }
  | { ok: false; reason: 'media_type'; /** '' when unlabelled */ mediaType: string }
  | { ok: false; reason: 'not_json' }
  | { ok: false; reason: 'net'; error: NetError };

/**
 * GETs one JSON document (an AgentCall card, a Talkie manifest) through the guarded network layer:
 * Accept: application/json, same-origin redirects, at most `maxBytes` (else `net` with too_large),
 * only a 200 answer. `strict` (the AgentCall card): the body must be labelled application/json or
 * application/…+json and be valid UTF-8; otherwise any label, decoded as text (bad bytes become U+FFFD).
 * A network failure is `net` (an aborted `signal` too: `aborted`); anything else thrown is a bug and is thrown on.
 */
export async function fetchJsonDocument(
  request: { url: string; maxBytes: number; strict?: boolean; timeouts?: Partial<Timeouts>; signal?: AbortSignal },
  policy: NetPolicy,
): Promise<JsonDocument> {
  try {
    const response = await guardedRequest(
      {
        url: request.url,
        maxBytes: request.maxBytes,
        redirect: 'same-origin',
        headers: { Accept: 'application/json' },
        ...(request.timeouts ? { timeouts: request.timeouts } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      },
      policy,
    );
    if (response.status !== 200) {
      response.cancel();
      return { ok: false, reason: 'http_status', status: response.status };
    }
    const mediaType = mediaTypeOf(response);
    if (request.strict && mediaType !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) {
      response.cancel();
      return { ok: false, reason: 'media_type', mediaType };
    }
    const text = request.strict ? await response.bytes() : await response.text();
    try {
      return {
        ok: true,
        json: JSON.parse(typeof text === 'string' ? text : new TextDecoder('utf-8', { fatal: true }).decode(text)),
        url: response.url,
        headers: response.headers,
      };
    } catch {
      return { ok: false, reason: 'not_json' };
    }
  } catch (error) {
    if (error instanceof NetError) return { ok: false, reason: 'net', error };
    throw error;
  }
}
