import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { aguiChat } from '../../../src/main/cli/agui-chat';
import { UsageError, type Io } from '../../../src/main/cli/output';
import { startAguiDemoServer, type AguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';
import { startServer } from '../../support/http-server';

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

type Body = {
  threadId: string;
  runId: string;
  resume?: { interruptId: string; status: string; payload?: unknown }[];
  forwardedProps?: unknown;
  messages: { role: string }[];
};

async function demo(options: { token?: string } = {}): Promise<{ server: AguiDemoServer; bodies: Body[] }> {
  const bodies: Body[] = [];
  const server = await startAguiDemoServer({ timeScale: 0, onRunInput: (body) => bodies.push(body as Body), ...options });
  servers.push(server);
  return { server, bodies };
}

/** A plain AG-UI server that answers its n-th run with the events `script` gives for it. */
function scripted(script: (run: number, body: Body & { messages: unknown[] }) => object[]) {
  let runs = 0;
  return startServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body & { messages: unknown[] };
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const events = [{ type: 'RUN_STARTED', threadId: body.threadId, runId: body.runId }, ...script(runs++, body)];
      response.end(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''));
    });
  });
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
    expect(out).toMatch(
      /\[question 1\/1\] Permission for a tool call \(tool call delete_file, expires [^)]+\): Approve delete_file\(\{"path": "notes\/old-plan.md"\}\)\?/,
    );
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
    expect(io.lines.filter((line) => line.startsWith('[question '))).toEqual([
      expect.stringContaining('[question 1/1]'),
      expect.stringContaining('[question 1/2]'),
      expect.stringContaining('[question 2/2]'),
    ]);
    expect(bodies).toHaveLength(3);
  });

  it('exit codes: 2 for a bad endpoint, bad forwardedProps or a network error; 1 when the server refuses', async () => {
    await expect(aguiChat('not a url', { dev: true }, capture(), input(), quiet)).rejects.toThrow(UsageError);
    await expect(aguiChat('http://127.0.0.1:1/agui', { dev: true, forwardedProps: '[1]' }, capture(), input(), quiet)).rejects.toThrow(
      /forwardedProps must be a JSON object/,
    );
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

  it('an answer typed after its request expired is not shown as sent: the chat says it was not sent, and the server gets a cancel', async () => {
    const { server, bodies } = await demo();
    const lines: string[] = [];
    let skew = 0;
    const io: Io = {
      out: (line) => {
        lines.push(line);
        // "deploy" asks two questions; the clock jumps a day while the second is being answered.
        if (line.startsWith('? Approve') && lines.filter((entry) => entry.startsWith('? Approve')).length === 2) skew = 24 * 3600_000;
      },
      err: (line) => void lines.push(`stderr: ${line}`),
    };
    const code = await aguiChat(server.url, { dev: true }, io, input('deploy', 'y', '', 'y', ''), { ...quiet, now: () => Date.now() + skew });
    expect(code).toBe(0);
    // The first answer was in time when it was typed; the second was not.
    expect(lines).toContain('  → {"approve":true}');
    expect(lines.filter((line) => line.startsWith('  → '))).toEqual([
      '  → {"approve":true}',
      expect.stringMatching(/^ {2}→ not sent: the request expired \(.+\) while you answered; it is cancelled instead\.$/),
    ]);
    // By the time the answers went out, the first had expired too.
    expect(lines).toContain('[question 1/2] It expired before the answers were sent: that answer was not sent; it is cancelled instead.');
    expect(bodies.filter((body) => body.resume !== undefined).map((body) => body.resume?.map(({ status, payload }) => ({ status, payload })))).toEqual([
      [{ status: 'cancelled' }, { status: 'cancelled' }],
    ]);
  });

  it('a MESSAGES_SNAPSHOT that rewrites a message prints the new text whole, marked [replaced]; an unchanged one is not printed again', async () => {
    const server = await scripted((_run, body) => [
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'The plan has 3 steps' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm2', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'Done: all of them.' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm2' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm3', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm3', delta: 'Unchanged.' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm3' },
      {
        type: 'MESSAGES_SNAPSHOT',
        messages: [
          ...body.messages,
          { id: 'm1', role: 'assistant', content: 'The plan has 2 steps, not 3: one was a duplicate.' },
          { id: 'm2', role: 'assistant', content: 'Done' },
          { id: 'm3', role: 'assistant', content: 'Unchanged.' },
        ],
      },
      { type: 'RUN_FINISHED', threadId: body.threadId, runId: body.runId },
    ]);
    const io = capture();
    expect(await aguiChat(server.url, { dev: true }, io, input('plan it'), quiet)).toBe(0);
    expect(io.lines.slice(1)).toEqual([
      'The plan has 3 steps',
      'Done: all of them.',
      'Unchanged.',
      '[replaced] The plan has 2 steps, not 3: one was a duplicate.',
      '[replaced] Done',
    ]);
  });

  it('marks what each subagent says and does with its name (parallel invocations of one name told apart), its start and end, and its questions', async () => {
    const server = await scripted((run, body) => {
      const finished = { type: 'RUN_FINISHED', threadId: body.threadId, runId: body.runId };
      if (run > 0) return [finished];
      const sa1 = { subagentRunId: 'sa-1' };
      const sa2 = { subagentRunId: 'sa-2' };
      return [
        { type: 'TEXT_MESSAGE_START', messageId: 'p1', role: 'assistant' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'p1', delta: 'I ask two researchers.' },
        { type: 'TEXT_MESSAGE_END', messageId: 'p1' },
        { type: 'SUBAGENT_STARTED', ...sa1, name: 'researcher', description: 'Looks up prices' },
        { type: 'SUBAGENT_STARTED', ...sa2, name: 'researcher' },
        { type: 'TEXT_MESSAGE_START', messageId: 's1', role: 'assistant', ...sa1 },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 's1', delta: 'Prices rose', ...sa1 },
        { type: 'TEXT_MESSAGE_START', messageId: 's2', role: 'assistant', ...sa2 },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 's2', delta: 'Prices fell.', ...sa2 },
        { type: 'TEXT_MESSAGE_END', messageId: 's2', ...sa2 },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 's1', delta: ' 2%.', ...sa1 },
        { type: 'TEXT_MESSAGE_END', messageId: 's1', ...sa1 },
        { type: 'STEP_STARTED', stepName: 'compare', ...sa2 },
        { type: 'TOOL_CALL_START', toolCallId: 't1', toolCallName: 'lookup', ...sa1 },
        { type: 'TOOL_CALL_ARGS', toolCallId: 't1', delta: '{"q":"copper"}', ...sa1 },
        { type: 'TOOL_CALL_END', toolCallId: 't1', ...sa1 },
        { type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 't1', content: '42', ...sa1 },
        { type: 'SUBAGENT_ERROR', ...sa2, message: 'Timed out' },
        { type: 'SUBAGENT_FINISHED', ...sa1, outcome: { type: 'suspended', interruptIds: ['i1'] } },
        { ...finished, outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'confirmation', message: 'Buy copper?', ...sa1 }] } },
      ];
    });
    const io = capture();
    expect(await aguiChat(server.url, { dev: true }, io, input('prices?', ''), quiet)).toBe(0);
    expect(io.lines.slice(1)).toEqual([
      'I ask two researchers.',
      '[subagent researcher] started: Looks up prices',
      '[subagent researcher #2] started',
      '[subagent researcher] Prices rose',
      '[subagent researcher #2] Prices fell.',
      '[subagent researcher]  2%.',
      '[subagent researcher #2] [step] compare',
      '[subagent researcher] [tool] lookup {"q":"copper"}',
      '  [subagent researcher] ✓ lookup: 42',
      '[subagent researcher #2] failed: Timed out',
      '[subagent researcher] waiting for an answer',
      '[question 1/1] Please confirm (from subagent researcher): Buy copper?',
      '  No details are needed. Enter accepts it, /cancel cancels it.',
    ]);
  });
});
