import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, pageSecurityHeaders } from '../../../src/main/platform/content-security-policy';

/**
 * The page's CSP, directive by directive (security review of 'wasm-unsafe-eval' for vad-web's
 * onnxruntime-web): WebAssembly may be compiled, JavaScript may not be evaluated, and scripts, workers,
 * fetches (the model and the .wasm) and sockets reach only the app's own origin — no CDN, no other host.
 * test/e2e/home.test.ts checks the same in Chromium (eval and new Function throw, WebAssembly compiles).
 */
function directives(policy: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (!name) continue;
    expect(map.has(name), `${name} given twice`).toBe(false);
    map.set(name, sources);
  }
  return map;
}

describe("the page's Content Security Policy", () => {
  const policy = directives(contentSecurityPolicy);

  it('allows compiling WebAssembly and no JavaScript eval or inline script anywhere', () => {
    expect(policy.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(contentSecurityPolicy).not.toMatch(/'unsafe-eval'|'unsafe-inline'|'unsafe-hashes'|'strict-dynamic'|'nonce-|'sha(256|384|512)-/);
    // 'wasm-unsafe-eval' is given to scripts only.
    for (const [name, sources] of policy) if (name !== 'script-src') expect(sources, name).not.toContain("'wasm-unsafe-eval'");
  });

  it("lets scripts, workers and fetches reach the app's own origin only (the model and the .wasm come from 'self', no CDN)", () => {
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('worker-src')).toEqual(["'self'"]);
    for (const name of ['object-src', 'frame-src', 'base-uri', 'form-action', 'frame-ancestors']) expect(policy.get(name), name).toEqual(["'none'"]);
    // No host or scheme source anywhere but the local data:/blob:/mediastream: of images and media.
    for (const [name, sources] of policy) {
      for (const source of sources) {
        if (source.startsWith("'")) continue;
        expect(['img-src', 'media-src'], `${name} ${source}`).toContain(name);
        expect(['data:', 'blob:', 'mediastream:'], `${name} ${source}`).toContain(source);
      }
    }
  });

  it('is the header both hosts send', () => {
    expect(pageSecurityHeaders['Content-Security-Policy']).toBe(contentSecurityPolicy);
  });
});
