import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, root } from '../support/built';

/**
 * The built-in demo (and oidc-provider, its Authorization Server) loads only when a demo starts:
 * over the BUILT main process (out/main), no entry reaches it through static imports, only
 * through a dynamic import() (app-services.ts on first use, `agentdesk demo`).
 */
ensureBuilt();
const outMain = join(root, 'out/main');

const staticImports = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^;'"]*?(?:\bfrom\s*)?["']([^"']+)["']/gm)].map((match) => match[1]!);

/** Every bare specifier the file loads at start: its own and its static chunks' (relative ones followed). */
function loadedAtStart(entry: string): { chunks: string[]; packages: Set<string> } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else packages.add(specifier);
    }
  };
  visit(join(outMain, entry));
  return { chunks: [...seen].map((file) => file.slice(outMain.length + 1)), packages };
}

describe('the built main process loads the demo only when a demo starts', () => {
  const demoChunks = readdirSync(join(outMain, 'chunks')).filter((name) =>
    readFileSync(join(outMain, 'chunks', name), 'utf8').includes('from "oidc-provider"'),
  );

  it('keeps oidc-provider in its own chunk', () => {
    expect(demoChunks).toHaveLength(1);
  });

  it.each(['index.js', 'webshell.js', 'cli.js'])('%s does not import oidc-provider or the demo statically', (entry) => {
    const { chunks, packages } = loadedAtStart(entry);
    expect(chunks.length).toBeGreaterThan(1); // the walk follows the entry's chunks at all
    expect(packages.has('zod')).toBe(true);
    expect([...packages].filter((name) => name.startsWith('oidc-provider'))).toEqual([]);
    expect(chunks.filter((chunk) => /start-demo|authorization-server/.test(chunk))).toEqual([]);
    expect(readFileSync(join(outMain, entry), 'utf8') + chunks.map((chunk) => readFileSync(join(outMain, chunk), 'utf8')).join('\n')).toMatch(
      /import\(["']\.\/(?:chunks\/)?start-demo-[\w-]+\.js["']\)/,
    );
  });
});
