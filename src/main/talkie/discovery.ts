import sharp from 'sharp';
import { manifestMaxBytes, manifestUrlFor, validateManifest, type TalkieManifest } from '../../shared/talkie/manifest';
import type { Problem } from '../../shared/talkie/problems';
import { guardedRequest, type NetPolicy, type Timeouts } from '../net/guarded-fetch';
import { fetchJsonDocument } from '../net/json-document';

/** Talkie 1 §1 discovery: what the user typed → a validated manifest, cached per Cache-Control. */
export interface DiscoveredServer {
  manifest: TalkieManifest;
  manifestUrl: string;
  /** Notes that did not prevent use (bad accent, cross-origin endpoints to accept, …). */
  problems: Problem[];
}

export type Discovery = { ok: true; server: DiscoveredServer } | { ok: false; problems: Problem[] };

export const defaultManifestMaxAgeMs = 60 * 60 * 1000;
export const logoMaxBytes = 256 * 1024;

/** `timeouts` overrides the network layer's defaults (tests, a bounded check); `signal` stops the read (`net_aborted`). */
export async function discoverTalkie(
  address: string,
  policy: NetPolicy,
  options: { timeouts?: Partial<Timeouts>; signal?: AbortSignal } = {},
): Promise<Discovery & { maxAgeMs?: number }> {
  const manifestUrl = manifestUrlFor(address);
  const document = await fetchJsonDocument(
    {
      url: manifestUrl,
      maxBytes: manifestMaxBytes,
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
    policy,
  );
  if (!document.ok) {
    switch (document.reason) {
      case 'http_status':
        return failure('manifest_http_error', '', `${manifestUrl} answered HTTP ${document.status}; it is not a Talkie server (or the address is wrong).`);
      case 'media_type':
      case 'not_json':
        return failure('manifest_not_json', '', `${manifestUrl} is not JSON.`);
      case 'net':
        if (document.error.code === 'too_large') return failure('manifest_too_large', '', `The manifest is larger than ${manifestMaxBytes / 1024} kB.`);
        return failure(`net_${document.error.code}`, '', document.error.message);
    }
  }
  const maxAgeMs = cacheMaxAge(document.headers['cache-control']);
  const validation = validateManifest(document.json, document.url);
  if (!validation.ok) return { ok: false, problems: validation.problems };
  return { ok: true, server: { manifest: validation.manifest, manifestUrl, problems: validation.problems }, maxAgeMs };
}

function failure(code: string, path: string, message: string): Discovery {
  return { ok: false, problems: [{ code, path, message }] };
}

export function cacheMaxAge(header: string | undefined): number {
  if (!header) return defaultManifestMaxAgeMs;
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(header)) return 0;
  const match = /(^|,)\s*max-age\s*=\s*(\d{1,9})\s*(,|$)/i.exec(header);
  return match ? Number(match[2]) * 1000 : defaultManifestMaxAgeMs;
}

/** Caches discoveries per address; `invalidate` after a 401/404 from the server (Talkie 1 §1). */
export class ManifestCache {
  private readonly entries = new Map<string, { server: DiscoveredServer; expiresAt: number }>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  async get(address: string, policy: NetPolicy): Promise<Discovery> {
    const cached = this.entries.get(address);
    if (cached && cached.expiresAt > this.now()) return { ok: true, server: cached.server };
    const result = await discoverTalkie(address, policy);
    if (result.ok) this.entries.set(address, { server: result.server, expiresAt: this.now() + (result.maxAgeMs ?? defaultManifestMaxAgeMs) });
    return result.ok ? { ok: true, server: result.server } : { ok: false, problems: result.problems };
  }

  invalidate(address: string): void {
    this.entries.delete(address);
  }
}

/**
 * Talkie 1 §1 brand logo: same-origin or https, PNG/JPEG only, ≤ 256 kB, decoded with sharp before it is
 * shown (never SVG), re-encoded as a small PNG data URL so the page never fetches it itself.
 */
export async function fetchLogo(manifest: TalkieManifest, policy: NetPolicy): Promise<string | undefined> {
  if (!manifest.logo) return undefined;
  try {
    const response = await guardedRequest({ url: manifest.logo, maxBytes: logoMaxBytes, redirect: 'same-origin', timeouts: { firstByteMs: 10_000 } }, policy);
    if (response.status !== 200) return void response.cancel();
    const bytes = await response.bytes();
    const image = sharp(bytes, { limitInputPixels: 4096 * 4096, failOn: 'error' });
    const { format } = await image.metadata();
    if (format !== 'png' && format !== 'jpeg') return undefined;
    const png = await image.resize(128, 128, { fit: 'inside', withoutEnlargement: true }).png().toBuffer();
    return `data:image/png;base64,${png.toString('base64')}`;
  } catch {
    return undefined;
  }
}
