import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { aguiChat } from '../../../src/main/cli/agui-chat';
import { UsageError, type Io } from '../../../src/main/cli/output';
import { startAguiDemoServer, type AguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';

/**
 * `agentdesk chat --agui <endpoint>` against the demo's plain AG-UI side on 127.0.0.1, with piped
 * input: what it prints, how it answers interrupts from their schemas, and the exact resume
 * payloads that reach the server over HTTP.
 */

function capture(): Io & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => void lines.push(line), err: (line) => void lines.push(`stderr: ${line}`) };
}

const input = (...lines: string[]) => Readable.from(lines.map((line) => `${line}\n`));
const quiet = { handleSigint: false };

const servers: AguiDemoServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

type Body = { threadId: string; runId: string; resume?: { interruptId: string; status: string; payload?: unknown }[]; forwardedProps?: unknown; messages: { role: string }[] };

async function demo(options: { token?: string } = {}): Promise<{ server: AguiDemoServer; bodies: Body[] }> {
  const bodies: Body[] = [];
  const server = await startAguiDemoServer({ timeScale: 0, onRunInput: (body) => bodies.push(body as Body), ...options });
  servers.push(server);
  return { server, bodies };
}

describe('agentdesk chat --agui', () => {
  it('streams text, reasoning and tool lines, answers a tool approval from the terminal, and resumes with exactly what was set', async () => {
    const { server, bodies } = await demo();
    const io = capture();
    const code = await aguiChat(
      server.url,
      { dev: true, forwardedProps: '{"iacCode":{"cwd":"/work/stacks/demo"}}' },
      io,
      input(
        'What would change?',
        'Please delete the old plan',
        'y', // approved
        '', // editedArgs › path: keep notes/old-plan.md
        'delete it once more',
        'yes', // approved
        'new', // editedArgs › path
        'apply',
        'n', // approve
        '', // note: untouched
      ),
      quiet,
    );
    const out = io.lines.join('\n');
    expect(code).toBe(0);
    // A plain run: reasoning, the plan tool with its result, steps, the streamed answer.
    expect(io.lines).toContain('[thinking] The user wants to know what would change, so I plan and check without applying.');
    expect(io.lines).toContain('[thinking] The user wants a file deleted, so I ask before deleting it.');
    expect(io.lines).toContain('[step] plan');
    expect(io.lines.find((line) => line.startsWith('[tool] iac_plan '))).toContain('"cwd":"/work/stacks/demo"');
    expect(io.lines.find((line) => line.startsWith('  ✓ iac_plan: '))).toContain('"destroy":0');
    expect(out).toContain('The plan for **demo-network** adds 1 resource and changes 1');
    expect(out).not.toContain('demo-encrypted:');

    // The tool approval: its question, the call's arguments shown as where editedArgs starts.
    expect(io.lines).toContain('[tool] delete_file {"path":"notes/old-plan.md"}');
    expect(out).toMatch(/\[question 1\/1\] Permission for a tool call \(tool call delete_file, expires [^)]+\): Approve delete_file\(\{"path": "notes\/old-plan.md"\}\)\?/);
    expect(io.lines).toContain('? Approve (y/n) [false]');
    expect(io.lines).toContain('  Edited arguments: Replaces the arguments of the call.');
    expect(io.lines).toContain('? Edited arguments › path (text) [notes/old-plan.md]');

    // What reached the server: approving alone sends {"approved": true} — no editedArgs: {} that would replace the arguments.
    const resumes = bodies.filter((body) => body.resume !== undefined);
    expect(resumes.map((body) => body.resume?.map(({ status, payload }) => ({ status, payload })))).toEqual([
      [{ status: 'resolved', payload: { approved: true } }],
      [{ status: 'resolved', payload: { approved: true, editedArgs: { path: 'new' } } }],
      [{ status: 'resolved', payload: { approve: false } }],
    ]);
    expect(io.lines).toContain('  ✓ delete_file: {"deleted":"notes/old-plan.md"}');
    expect(io.lines).toContain('Deleted notes/old-plan.md.');
    expect(io.lines).toContain('Deleted new.');
    expect(io.lines).toContain('Cancelled, nothing changed.');
    // One thread, a new run each time, the whole history, forwardedProps on every run.
    expect(new Set(bodies.map((body) => body.threadId)).size).toBe(1);
    expect(new Set(bodies.map((body) => body.runId)).size).toBe(bodies.length);
    expect(bodies.every((body) => JSON.stringify(body.forwardedProps) === '{"iacCode":{"cwd":"/work/stacks/demo"}}')).toBe(true);
    expect(bodies.at(-1)?.messages.filter((message) => message.role === 'user')).toHaveLength(4);
  });

  it('asks again for a value it cannot read, /cancel cancels the request, and end of input leaves', async () => {
    const { server, bodies } = await demo();
    const io = capture();
    const code = await aguiChat(server.url, { dev: true }, io, input('delete', 'maybe', '/cancel', 'deploy', 'y', '/clear'), quiet);
    expect(code).toBe(0);
    expect(io.lines).toContain('  ✗ Type y or n.');
    expect(bodies.filter((body) => body.resume !== undefined).map((body) => body.resume?.map(({ status }) => status))).toEqual([['cancelled']]);
    expect(io.lines).toContain('Kept notes/old-plan.md: nothing was deleted.');
    // "deploy" asks twice; the input ends in the middle: nothing more is sent.
    expect(io.lines.filter((line) => line.startsWith('[question '))).toEqual([expect.stringContaining('[question 1/1]'), expect.stringContaining('[question 1/2]'), expect.stringContaining('[question 2/2]')]);
    expect(bodies).toHaveLength(3);
  });

  it('exit codes: 2 for a bad endpoint, bad forwardedProps or a network error; 1 when the server refuses', async () => {
    await expect(aguiChat('not a url', { dev: true }, capture(), input(), quiet)).rejects.toThrow(UsageError);
    await expect(aguiChat('http://127.0.0.1:1/agui', { dev: true, forwardedProps: '[1]' }, capture(), input(), quiet)).rejects.toThrow(/forwardedProps must be a JSON object/);
    const offline = capture();
    expect(await aguiChat('http://127.0.0.1:1/agui', { dev: true }, offline, input('hello'), quiet)).toBe(2);
    expect(offline.lines.some((line) => line.startsWith('stderr: [network_error]'))).toBe(true);
    const plain = capture();
    expect(await aguiChat('http://127.0.0.1:1/agui', { dev: false }, plain, input('hello'), quiet)).toBe(2);
    expect(plain.lines.some((line) => line.startsWith('stderr: [insecure_scheme]'))).toBe(true);
    const { server } = await demo({ token: 'demo-token-0123456789abcdef' });
    const refused = capture();
    expect(await aguiChat(server.url, { dev: true, token: 'wrong-token-0123456789' }, refused, input('hello'), quiet)).toBe(1);
    expect(refused.lines.some((line) => line.startsWith('stderr: [sign_in_required]'))).toBe(true);
    const allowed = capture();
    expect(await aguiChat(server.url, { dev: true, token: 'demo-token-0123456789abcdef' }, allowed, input('hello'), quiet)).toBe(0);
  });

  it('Ctrl+C stops the run that is going on, and the chat goes on', async () => {
    const slow = await startAguiDemoServer({ timeScale: 1 });
    servers.push(slow);
    const lines: string[] = [];
    const io: Io = {
      out: (line) => {
        lines.push(line);
        // SIGINT as the process gets it, while the "slow" run streams its slow second message.
        if (line.startsWith('The plan for') && lines.filter((entry) => entry.startsWith('The plan for')).length === 1) process.emit('SIGINT');
      },
      err: (line) => void lines.push(`stderr: ${line}`),
    };
    const before = process.listenerCount('SIGINT');
    expect(await aguiChat(slow.url, { dev: true }, io, input('slow please', 'and now?'))).toBe(0);
    expect(process.listenerCount('SIGINT')).toBe(before);
    expect(lines).toContain('[stopped] You stopped this run.');
    expect(lines.some((line) => line.includes('Slowly:') && line.includes('done.'))).toBe(false);
    expect(lines.filter((line) => line.startsWith('The plan for'))).toHaveLength(2);
  });

  it('a run that fails (RUN_ERROR) prints the error and exits 1', async () => {
    const { server } = await demo();
    const io = capture();
    expect(await aguiChat(server.url, { dev: true }, io, input('fail please'), quiet)).toBe(1);
    expect(io.lines.find((line) => line.startsWith('[error demo_failure]'))).toBeTruthy();
  });
});
