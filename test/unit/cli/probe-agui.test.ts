import { describe, expect, it } from 'vitest';
import type { Io } from '../../../src/main/cli/output';
import { probe } from '../../../src/main/cli/probe';
import { json, startServer } from '../../support/http-server';

/**
 * `agentdesk probe` at a plain AG-UI endpoint: AG-UI has no discovery document, so there is no
 * manifest and no card to read; the endpoint's GET answers 405 (a POST-only server) or 404 (Express's
 * default). The probe says that a server answers there and how to try it as AG-UI.
 */
function capture(): Io & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => void lines.push(line), err: (line) => void lines.push(`stderr: ${line}`) };
}

/** GET /agui answers `status` (a POST-only AG-UI endpoint), everything else 404. */
async function aguiEndpoint(status: number) {
  const server = await startServer((request, response) => json(response, request.url === '/agui' ? status : 404, { error: 'no' }));
  return `${server.origin}/agui`;
}

describe('agentdesk probe at a plain AG-UI endpoint', () => {
  it.each([405, 404])('says a server answers there (GET %i) and suggests agentdesk chat --agui', async (status) => {
    const url = await aguiEndpoint(status);
    const io = capture();
    expect(await probe(url, { json: false, dev: true }, io)).toBe(1);
    expect(io.lines).toContain(
      `found: a server answers at ${url}, with no Talkie manifest and no agent card. A plain AG-UI endpoint looks like this (AG-UI has no discovery document); whether it speaks AG-UI shows on its first run.`,
    );
    expect(io.lines).toContain(`try: agentdesk chat --agui ${url} --dev`);
    // The endpoint was read where a Talkie manifest would be, and the lines say so, not that it is a manifest.
    expect(io.lines.filter((line) => line.startsWith('read: '))).toEqual([
      `read: ${url} (as a Talkie manifest)`,
      `read: agent card ${new URL(url).origin}/.well-known/agent-card.json`,
    ]);
    expect(io.lines.join('\n')).not.toContain('read: Talkie manifest');

    const jsonIo = capture();
    expect(await probe(url, { json: true, dev: true }, jsonIo)).toBe(1);
    expect(JSON.parse(jsonIo.lines[0] ?? '')).toMatchObject({ ok: false, kind: 'unknown', answered: url, try: `agentdesk chat --agui ${url} --dev` });
  });

  it('makes no such suggestion for a bare origin, or when nothing answers', async () => {
    const server = await startServer((_request, response) => json(response, 404, { error: 'no' }));
    const io = capture();
    expect(await probe(server.origin, { json: false, dev: true }, io)).toBe(1);
    expect(io.lines.join('\n')).not.toContain('--agui');

    const gone = await startServer(() => undefined);
    const url = `${gone.origin}/agui`;
    await gone.close();
    const offline = capture();
    expect(await probe(url, { json: false, dev: true }, offline)).toBe(2);
    expect(offline.lines.join('\n')).not.toContain('--agui');
  });
});
