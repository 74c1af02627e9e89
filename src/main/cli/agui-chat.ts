import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { buildResume, buildRunInput, isInterruptExpired, parseForwardedProps, type AguiInterrupt, type InterruptAnswer } from '../../shared/agui/interrupts';
import { getOwn, isPlainObject, setOwn, type JsonObject, type JsonValue } from '../../shared/agui/json-values';
import {
  answerSuggestions,
  describeResponseSchema,
  initialAnswer,
  settleAnswer,
  validateAnswer,
  type AnswerSuggestions,
  type FormField,
  type ResponseForm,
} from '../../shared/agui/response-form';
import {
  addUserMessage,
  applyAguiEvent,
  beginRun,
  createThread,
  historyMessages,
  markRequestFailed,
  markStreamDropped,
  openInterrupts,
  toolCallArgs,
  type AguiItem,
  type AguiSubagent,
  type AguiThreadView,
} from '../../shared/agui/run-model';
import { runAgui } from '../agui/agui-client';
import type { NetPolicy } from '../net/guarded-fetch';
import { exitCodes, processIo, terminalText, UsageError, type Io } from './output';

/**
 * `agentdesk chat --agui <endpoint>`: a terminal chat with a plain AG-UI server (POST
 * RunAgentInput, SSE answer), through the app's own code: the run is `runAgui`
 * (src/main/agui/agui-client.ts), every event is folded with the shared run model, and what the
 * model shows is printed — text and reasoning as they stream, tool calls and their results, steps,
 * errors; protocol notes go to stderr. What a subagent says or does is marked with its name
 * (`[subagent researcher] …`; a second invocation of the same name `#2`), and its start and end are
 * lines of their own. A message that a MESSAGES_SNAPSHOT rewrites is printed again whole, marked
 * `[replaced]` (the terminal cannot take back what it printed). The thread is kept here for the
 * session (same threadId, a new runId and the whole history per run, as AG-UI expects).
 *
 * When a run ends with interrupts, each is answered in the terminal from its responseSchema, one
 * prompt line per field (Enter keeps what is shown, /clear empties it, /cancel cancels the
 * request); the answer is built with the same shared rules as the app's forms (settleAnswer: only
 * what was set, plus what is required or has a default; a tool approval's editedArgs starts from
 * the call's arguments and is sent only when changed), then the next run resumes them. An answer
 * to an interrupt that expired meanwhile is not sent (AG-UI: an expired interrupt is cancelled), and
 * the chat says so instead of showing it as sent.
 *
 * Scriptable: it reads lines from stdin (piped input works); end of input leaves; Ctrl+C stops a
 * run, or leaves when none is going on. Exit codes: 0,
 * 1 when a run failed or the server refused a request, 2 for usage or network errors.
 */

export interface AguiChatOptions {
  dev: boolean;
  token?: string | undefined;
  /** forwardedProps as JSON text (a JSON object). */
  forwardedProps?: string | undefined;
}

export interface AguiChatDeps {
  /** How long a stream may stay silent (default: the client's 45 s). */
  idleMs?: number;
  now?: () => number;
  /** Ctrl+C stops the run, or leaves when none is going on (default true; tests turn it off). */
  handleSigint?: boolean;
}

type ChatIo = Io & { write?: (text: string) => void };

const help = [
  'Type a message and press Enter. Commands:',
  '  /quit     leave',
  '  //text    send text that begins with /',
  'When the agent asks (an interrupt), answer each field on its own line:',
  '  Enter keeps what is shown in [ ], /clear empties it, /cancel cancels the request.',
].join('\n');

const terminal = new Set<AguiThreadView['runState']>(['finished', 'awaitingInput', 'cancelled', 'error']);

export async function aguiChat(
  endpoint: string,
  options: AguiChatOptions,
  io: ChatIo,
  input: NodeJS.ReadableStream = process.stdin,
  deps: AguiChatDeps = {},
): Promise<number> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new UsageError(`--agui needs the AG-UI endpoint's URL (http(s)://…), not "${endpoint.slice(0, 200)}".`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`--agui needs an http(s):// URL, not ${url.protocol}`);
  let forwardedProps: JsonObject | undefined;
  if (options.forwardedProps !== undefined) {
    const parsed = parseForwardedProps(options.forwardedProps);
    if (!parsed.ok) throw new UsageError(`--forwarded-props: ${parsed.problems.map((problem) => problem.message).join(' ')}`);
    forwardedProps = parsed.value;
  }
  const now = deps.now ?? Date.now;
  const policy: NetPolicy = { allowLocalHttp: options.dev };
  const write = io.write ?? (io === processIo ? (text: string) => void process.stdout.write(text) : undefined);
  const printer = new Printer(io, write);
  const lines = createInterface({ input, terminal: false });
  const iterator = lines[Symbol.asyncIterator]();
  const nextLine = async (): Promise<string | undefined> => {
    const next = await iterator.next();
    return next.done ? undefined : next.value;
  };

  let thread = createThread(`thread_${randomUUID()}`);
  let status: number = exitCodes.ok;
  let running: AbortController | undefined;
  const onSigint = () => {
    if (running !== undefined) running.abort();
    else lines.close();
  };
  if (deps.handleSigint ?? true) process.on('SIGINT', onSigint);

  /** One run; false when the chat must stop (the request could not be made). */
  const run = async (resume?: Parameters<typeof buildRunInput>[0]['resume']): Promise<boolean> => {
    const runId = `run_${randomUUID()}`;
    const built = buildRunInput({
      threadId: thread.threadId,
      runId,
      messages: historyMessages(thread),
      ...(thread.state === undefined ? {} : { state: thread.state }),
      ...(forwardedProps === undefined ? {} : { forwardedProps }),
      ...(resume === undefined ? {} : { resume }),
    });
    if (!built.ok) {
      io.err(
        `The run could not be built: ${built.problems.map((problem) => `${problem.message}${problem.path === '' ? '' : ` (${problem.path})`}`).join(' ')}`,
      );
      status = exitCodes.rejected;
      return false;
    }
    thread = beginRun(thread, { runId, ...(resume === undefined ? {} : { resume }) });
    printer.show(thread);
    running = new AbortController();
    const end = await runAgui(
      {
        endpoint: url.href,
        input: built.input,
        ...(options.token === undefined ? {} : { token: options.token }),
        policy,
        signal: running.signal,
        ...(deps.idleMs === undefined ? {} : { idleMs: deps.idleMs }),
      },
      {
        onEvent: (event) => {
          thread = applyAguiEvent(thread, event);
          printer.show(thread);
          return terminal.has(thread.runState) ? 'stop' : undefined;
        },
      },
    ).finally(() => {
      running = undefined;
    });
    const live = thread.runState === 'starting' || thread.runState === 'running';
    switch (end.kind) {
      case 'stopped':
        break;
      case 'dropped':
      case 'too_large':
        if (live) thread = markStreamDropped(thread, end.message);
        break;
      case 'cancelled':
        if (live) thread = markStreamDropped(thread, 'You stopped this run.');
        break;
      case 'failed':
        thread = markRequestFailed(thread, { code: end.code, message: end.message });
        printer.endLine();
        io.err(`[${end.code}] ${end.message}`);
        status = end.code === 'network_error' || end.code === 'insecure_scheme' ? exitCodes.usage : exitCodes.rejected;
        return false;
    }
    printer.show(thread);
    printer.endLine();
    if (end.kind === 'cancelled') io.out('[stopped] You stopped this run.');
    else if (thread.runState === 'dropped') {
      io.out(`[connection dropped] ${thread.error?.message ?? ''}`);
      status = exitCodes.rejected;
    } else if (thread.runState === 'error') status = exitCodes.rejected;
    return true;
  };

  io.out(`Connected to ${url.host} (plain AG-UI). Type a message; /help lists commands; /quit leaves.`);
  try {
    chat: for (;;) {
      // Open interrupts are answered first: their answers start the next run.
      while (thread.runState === 'awaitingInput' && openInterrupts(thread).length > 0) {
        const answers = await answerInterrupts(thread, io, nextLine, now);
        if (answers === undefined) break chat;
        const built = buildResume(openInterrupts(thread), answers, now());
        if (!built.ok) {
          io.err(`The answers were not sent: ${built.problems.map((problem) => problem.message).join(' ')}`);
          status = exitCodes.rejected;
          break chat;
        }
        // Answered in time, expired before the answers went out (while the next question was answered).
        const open = openInterrupts(thread);
        for (const id of built.expired) {
          if (answers[id]?.status !== 'resolved') continue;
          io.out(
            `[question ${open.findIndex((interrupt) => interrupt.id === id) + 1}/${open.length}] It expired before the answers were sent: that answer was not sent; it is cancelled instead.`,
          );
        }
        if (!(await run(built.resume))) break chat;
      }
      const raw = await nextLine();
      if (raw === undefined) break;
      const line = raw.trim();
      if (line === '') continue;
      if (line === '/quit') break;
      if (line === '/help') {
        io.out(help);
        continue;
      }
      if (line.startsWith('/') && !line.startsWith('//')) {
        io.out(`Unknown command ${line.split(/\s+/)[0]}; /help lists them.`);
        continue;
      }
      thread = addUserMessage(thread, { id: `user_${randomUUID()}`, text: line.startsWith('//') ? line.slice(1) : line });
      if (!(await run())) break;
    }
  } finally {
    if (deps.handleSigint ?? true) process.removeListener('SIGINT', onSigint);
    lines.close();
    printer.endLine();
  }
  return status;
}

/* interrupts ------------------------------------------------------------------------------------ */

const kindTitles: Record<AguiInterrupt['kind'], string> = {
  tool_call: 'Permission for a tool call',
  input_required: 'The agent needs input',
  confirmation: 'Please confirm',
  generic: 'A request from the agent',
};

/** Every open interrupt's answer, asked in the terminal; undefined at end of input. */
async function answerInterrupts(
  thread: AguiThreadView,
  io: Io,
  nextLine: () => Promise<string | undefined>,
  now: () => number,
): Promise<Record<string, InterruptAnswer> | undefined> {
  const answers: Record<string, InterruptAnswer> = {};
  const open = openInterrupts(thread);
  for (const [index, interrupt] of open.entries()) {
    const tool = interrupt.toolCallId === undefined ? undefined : thread.items.find((item) => item.kind === 'toolCall' && item.id === interrupt.toolCallId);
    const facts = [
      interrupt.kind === 'generic' ? `reason ${interrupt.reason}` : undefined,
      tool?.kind === 'toolCall' ? `tool call ${tool.name}` : undefined,
      interrupt.subagentRunId === undefined ? undefined : `from ${subagentName(thread, interrupt.subagentRunId)}`,
      interrupt.expiresAt === undefined ? undefined : `expires ${interrupt.expiresAt}`,
    ].filter((fact) => fact !== undefined);
    io.out(
      `[question ${index + 1}/${open.length}] ${kindTitles[interrupt.kind]}${facts.length > 0 ? ` (${clean(facts.join(', '))})` : ''}${interrupt.message === undefined ? '' : `: ${clean(interrupt.message)}`}`,
    );
    if (isInterruptExpired(interrupt, now())) {
      io.out('  It has expired: it will be cancelled.');
      answers[interrupt.id] = { status: 'cancelled' };
      continue;
    }
    if (interrupt.schemaProblem !== undefined) {
      io.out(`  This request cannot be answered here, only cancelled (${interrupt.schemaProblem}); it will be cancelled.`);
      answers[interrupt.id] = { status: 'cancelled' };
      continue;
    }
    if (interrupt.responseSchema === undefined) {
      io.out('  No details are needed. Enter accepts it, /cancel cancels it.');
      const line = await nextLine();
      if (line === undefined) return undefined;
      if (line.trim() === '/cancel') answers[interrupt.id] = { status: 'cancelled' };
      else if (!expiredMeanwhile(interrupt, io, now)) answers[interrupt.id] = { status: 'resolved' };
      else answers[interrupt.id] = { status: 'cancelled' };
      continue;
    }
    const described = describeResponseSchema(interrupt.responseSchema);
    if (!described.ok) {
      const problem = described.problems[0];
      io.out(`  This request cannot be answered here, only cancelled (${problem?.message ?? 'unsupported schema'}); it will be cancelled.`);
      answers[interrupt.id] = { status: 'cancelled' };
      continue;
    }
    const answer = await askForm(
      described.form,
      answerSuggestions(described.form, interrupt.toolCallId === undefined ? undefined : toolCallArgs(thread, interrupt.toolCallId)),
      io,
      nextLine,
    );
    if (answer === 'eof') return undefined;
    if (answer === 'cancel') {
      answers[interrupt.id] = { status: 'cancelled' };
      io.out('  → cancelled');
    } else if (expiredMeanwhile(interrupt, io, now)) {
      answers[interrupt.id] = { status: 'cancelled' };
    } else {
      answers[interrupt.id] = { status: 'resolved', ...(answer.payload === undefined ? {} : { payload: answer.payload }) };
      io.out(`  → ${answer.payload === undefined ? 'accepted' : JSON.stringify(answer.payload)}`);
    }
  }
  return answers;
}

/** An interrupt that expired while its answer was typed: says the answer is not sent (it is cancelled, as AG-UI wants). */
function expiredMeanwhile(interrupt: AguiInterrupt, io: Io, now: () => number): boolean {
  if (!isInterruptExpired(interrupt, now())) return false;
  io.out(`  → not sent: the request expired (${clean(interrupt.expiresAt ?? '')}) while you answered; it is cancelled instead.`);
  return true;
}

type Asked = { payload: JsonValue | undefined } | 'cancel' | 'eof';
class Stop {
  constructor(readonly why: 'cancel' | 'eof') {}
}

/** Asks every field of the form (again, from what was typed, until the answer is valid); the answer as settleAnswer builds it. */
async function askForm(form: ResponseForm, suggestions: AnswerSuggestions, io: Io, nextLine: () => Promise<string | undefined>): Promise<Asked> {
  if (form.description !== undefined) io.out(`  ${clean(form.description)}`);
  let values = initialAnswer(form, suggestions);
  for (;;) {
    try {
      values = await askField(form.root, values, [], io, nextLine);
    } catch (error) {
      if (error instanceof Stop) return error.why;
      throw error;
    }
    const payload = settleAnswer(form, values, suggestions);
    const problems = validateAnswer(form, payload);
    if (problems.length === 0) return { payload };
    for (const problem of problems) io.out(`  ✗ ${problem.message}`);
    io.out('  Answer again (Enter keeps what you typed):');
  }
}

async function askField(
  field: FormField,
  current: JsonValue | undefined,
  parents: readonly string[],
  io: Io,
  nextLine: () => Promise<string | undefined>,
): Promise<JsonValue | undefined> {
  if (field.kind === 'object') {
    const labels = field.path === '' ? parents : [...parents, field.label];
    if (field.path !== '')
      io.out(`  ${labels.join(' › ')}${field.required ? ' (required)' : ''}:${field.description === undefined ? '' : ` ${clean(field.description)}`}`);
    const out: JsonObject = {};
    const base = isPlainObject(current) ? current : {};
    // Keys the form does not show (a suggestion's) stay as they were.
    for (const key of Object.keys(base)) if (!field.fields.some((child) => child.key === key)) setOwn(out, key, base[key] as JsonValue);
    for (const child of field.fields) {
      const value = await askField(child, getOwn(base, child.key) as JsonValue | undefined, labels, io, nextLine);
      if (value !== undefined) setOwn(out, child.key, value);
    }
    return out;
  }
  const label = [...parents, field.label].join(' › ');
  for (;;) {
    io.out(
      `? ${label}${field.required && field.kind !== 'boolean' ? ' (required)' : ''} ${hintOf(field)}${current === undefined ? '' : ` [${shown(current)}]`}${field.description === undefined ? '' : ` — ${clean(field.description)}`}`,
    );
    const line = await nextLine();
    if (line === undefined) throw new Stop('eof');
    const text = line.trim();
    if (text === '/cancel') throw new Stop('cancel');
    if (text === '') return current;
    if (text === '/clear')
      return field.kind === 'boolean' ? false : field.kind === 'choices' ? [] : field.path === '' && field.kind === 'string' ? '' : undefined;
    const parsed = parseValue(field, line);
    if (parsed.ok) return parsed.value;
    io.out(`  ✗ ${parsed.message}`);
  }
}

function hintOf(field: Exclude<FormField, { kind: 'object' }>): string {
  switch (field.kind) {
    case 'boolean':
      return '(y/n)';
    case 'string':
      return field.enum !== undefined ? `(one of: ${field.enum.join(', ')})` : field.format !== undefined ? `(${field.format})` : '(text)';
    case 'number': {
      const low = field.minimum ?? field.exclusiveMinimum;
      const high = field.maximum ?? field.exclusiveMaximum;
      return `(${field.integer ? 'whole number' : 'number'}${low === undefined && high === undefined ? '' : ` ${low ?? '…'}–${high ?? '…'}`})`;
    }
    case 'choices':
      return `(comma-separated, from: ${field.options.join(', ')})`;
    case 'json':
      return '(a JSON object on one line)';
  }
}

function parseValue(field: Exclude<FormField, { kind: 'object' }>, line: string): { ok: true; value: JsonValue } | { ok: false; message: string } {
  const text = line.trim();
  switch (field.kind) {
    case 'boolean':
      if (/^(y|yes|true|1)$/i.test(text)) return { ok: true, value: true };
      if (/^(n|no|false|0)$/i.test(text)) return { ok: true, value: false };
      return { ok: false, message: 'Type y or n.' };
    case 'string':
      if (field.enum !== undefined && !field.enum.includes(text)) return { ok: false, message: `Type one of: ${field.enum.join(', ')}.` };
      return { ok: true, value: field.enum !== undefined ? text : line.replace(/^\s+|\s+$/g, '') };
    case 'number': {
      const value = Number(text);
      return Number.isFinite(value) ? { ok: true, value } : { ok: false, message: 'Type a number.' };
    }
    case 'choices': {
      const picked = text
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      const unknown = picked.find((entry) => !field.options.includes(entry));
      return unknown === undefined
        ? { ok: true, value: picked }
        : { ok: false, message: `"${unknown.slice(0, 80)}" is not one of: ${field.options.join(', ')}.` };
    }
    case 'json':
      try {
        const value = JSON.parse(text) as unknown;
        return isPlainObject(value) ? { ok: true, value: value as JsonObject } : { ok: false, message: 'Type a JSON object ({…}).' };
      } catch {
        return { ok: false, message: 'That is not JSON; type a JSON object ({…}).' };
      }
  }
}

function shown(value: JsonValue): string {
  const text =
    typeof value === 'string' ? value : Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? value.join(', ') : JSON.stringify(value);
  return oneLine(text, 200);
}

/* printing -------------------------------------------------------------------------------------- */

const clean = terminalText;

function oneLine(text: string, max: number): string {
  const flat = clean(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Who said it: "" for the parent agent, `[subagent <name>] ` for a subagent invocation (`#2`, `#3` …
 * for later invocations of the same name, so parallel ones are told apart; its id when no
 * SUBAGENT_STARTED named it).
 */
function laneOf(view: AguiThreadView, subagentRunId: string | undefined): string {
  return subagentRunId === undefined ? '' : `[${subagentName(view, subagentRunId)}] `;
}

function subagentName(view: AguiThreadView, subagentRunId: string): string {
  const subagent = view.subagents.find((entry) => entry.id === subagentRunId);
  if (subagent === undefined) return `subagent ${oneLine(subagentRunId, 80)}`;
  const nth = view.subagents.filter((entry) => entry.name === subagent.name).findIndex((entry) => entry.id === subagentRunId) + 1;
  return `subagent ${oneLine(subagent.name, 100)}${nth > 1 ? ` #${nth}` : ''}`;
}

const subagentEnds: Record<Exclude<AguiSubagent['state'], 'running'>, string> = { finished: 'finished', suspended: 'waiting for an answer', failed: 'failed' };

/** Prints what the run model shows as it changes: streamed text and reasoning, tool lines, steps, subagents, errors; notes on stderr. */
class Printer {
  private readonly seen = new WeakSet<object>();
  /** Each streamed item's text as far as it was printed (streaming only appends: a text that does not continue it was replaced). */
  private readonly printed = new Map<string, string>();
  private readonly toolsShown = new Map<string, 'call' | 'result'>();
  private readonly activitiesShown = new Set<string>();
  private readonly subagentsShown = new Map<string, AguiSubagent['state']>();
  private open: string | undefined;
  private column = 0;
  private buffered = '';
  private notesShown = 0;

  constructor(
    private readonly io: Io,
    private readonly write: ((text: string) => void) | undefined,
  ) {}

  show(view: AguiThreadView): void {
    for (const subagent of view.subagents) {
      if (subagent.state === 'running' && !this.subagentsShown.has(subagent.id)) {
        this.subagentsShown.set(subagent.id, 'running');
        this.line(`${laneOf(view, subagent.id)}started${subagent.description === undefined ? '' : `: ${oneLine(subagent.description, 300)}`}`);
      }
    }
    for (const item of view.items) {
      if (this.seen.has(item)) continue;
      this.seen.add(item);
      this.item(view, item);
    }
    for (const step of view.steps) {
      if (this.seen.has(step)) continue;
      this.seen.add(step);
      if (step.state === 'running') this.line(`${laneOf(view, step.subagentRunId)}[step] ${oneLine(step.name, 200)}`);
    }
    // Ends after the items: a subagent's last words close before it is said to be done.
    for (const subagent of view.subagents) {
      if (subagent.state === 'running' || this.subagentsShown.get(subagent.id) === subagent.state) continue;
      this.subagentsShown.set(subagent.id, subagent.state);
      this.line(
        `${laneOf(view, subagent.id)}${subagentEnds[subagent.state]}${subagent.error === undefined ? '' : `: ${oneLine(subagent.error.message, 1000)}`}`,
      );
    }
    if (view.noteCount > this.notesShown) {
      const fresh = view.notes.slice(Math.max(0, view.notes.length - (view.noteCount - this.notesShown)));
      this.notesShown = view.noteCount;
      for (const note of fresh) {
        this.endLine();
        this.io.err(`[protocol note ${note.code}] ${oneLine(note.message, 500)}`);
      }
    }
  }

  private item(view: AguiThreadView, item: AguiItem): void {
    const lane = 'subagentRunId' in item ? laneOf(view, item.subagentRunId) : '';
    switch (item.kind) {
      case 'text':
        return this.stream(`text:${item.id}`, `${lane}${item.role === 'assistant' ? '' : `[${item.role}] `}`, item.text, item.streaming);
      case 'reasoning':
        return this.stream(`reasoning:${item.id}`, `${lane}[thinking] `, item.text, item.streaming);
      case 'toolCall': {
        const shown = this.toolsShown.get(item.id);
        if (item.started && shown === undefined && item.state !== 'streaming') {
          this.toolsShown.set(item.id, 'call');
          this.line(
            `${lane}[tool] ${oneLine(item.name, 200)} ${item.argsText.trim() === '' ? '()' : oneLine(item.argsText, 300)}${item.state === 'incomplete' ? ' (incomplete)' : ''}`,
          );
        }
        if (item.result !== undefined && this.toolsShown.get(item.id) !== 'result') {
          this.toolsShown.set(item.id, 'result');
          const mark = item.result.error === undefined ? '✓' : '✗';
          this.line(`  ${lane}${mark} ${oneLine(item.name, 200)}: ${oneLine(item.result.error ?? item.result.text, 300)}`);
        }
        return;
      }
      case 'activity':
        if (!this.activitiesShown.has(item.id)) {
          this.activitiesShown.add(item.id);
          this.line(`${lane}[activity] ${oneLine(item.activityType, 200)}`);
        }
        return;
      case 'custom':
        return this.line(`${lane}[${oneLine(item.label, 100)}] ${oneLine(item.title, 200)}${item.text === undefined ? '' : `: ${oneLine(item.text, 500)}`}`);
      case 'error':
        return this.line(`[error${item.code === undefined ? '' : ` ${item.code}`}] ${oneLine(item.message, 1000)}`);
      default:
        return;
    }
  }

  /**
   * The new part of a streamed item's text; its end closes the line. A text that no longer begins
   * with what was printed (a MESSAGES_SNAPSHOT replaced the message) is printed again whole, on a
   * line of its own marked `[replaced]`.
   */
  private stream(key: string, prefix: string, text: string, streaming: boolean): void {
    const before = this.printed.get(key) ?? '';
    this.printed.set(key, text);
    // Streaming only appends; a replacement (MESSAGES_SNAPSHOT) is never streaming, so only then is the text compared.
    if (!streaming && before !== '' && text !== before && !text.startsWith(before)) {
      this.endLine();
      this.open = key;
      this.emit(`[replaced] ${prefix}${clean(text)}`);
      this.endLine();
      return;
    }
    const delta = clean(text.slice(before.length));
    if (delta !== '') {
      if (this.open !== key) {
        this.endLine();
        this.open = key;
        this.emit(prefix);
      }
      this.emit(delta);
    }
    if (!streaming && this.open === key) this.endLine();
  }

  private emit(text: string): void {
    if (this.write) {
      this.write(text);
      const lastBreak = text.lastIndexOf('\n');
      this.column = lastBreak === -1 ? this.column + text.length : text.length - lastBreak - 1;
      return;
    }
    this.buffered += text;
    const parts = this.buffered.split('\n');
    this.buffered = parts.pop() ?? '';
    for (const part of parts) this.io.out(part);
  }

  endLine(): void {
    this.open = undefined;
    if (this.write) {
      if (this.column > 0) this.write('\n');
      this.column = 0;
    } else if (this.buffered !== '') {
      this.io.out(this.buffered);
      this.buffered = '';
    }
  }

  private line(text: string): void {
    this.endLine();
    this.io.out(text);
  }
}
