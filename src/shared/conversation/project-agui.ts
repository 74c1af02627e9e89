import { isPlainObject, prettyJson } from '../agui/json-values';
import { openInterrupts, type AguiItem, type AguiSubagent, type AguiThreadView, type ToolCallState } from '../agui/run-model';
import { itemId, itemLimits, type ConversationItem, type ItemOfKind } from './items';
import type { ConversationStatus } from './view';

/**
 * A plain AG-UI thread (main's fold, src/shared/agui/run-model) as conversation items. Pure; a
 * projector keeps each projected item while its source item is the same object, so an unchanged
 * item keeps its identity and costs nothing in the diff.
 */
export interface AguiProjection {
  items: ConversationItem[];
  status: Omit<ConversationStatus, 'earlier' | 'dropped'> & { dropped: number };
}

export function createAguiProjector(): (thread: AguiThreadView) => AguiProjection {
  const cache = new WeakMap<AguiItem, { subagent: string | undefined; projected: ConversationItem | undefined }>();
  const failures = new WeakMap<AguiSubagent, ConversationItem>();
  return (thread) => {
    const subagentNames = new Map(thread.subagents.map((subagent) => [subagent.id, subagent.name]));
    const items: ConversationItem[] = [];
    for (const item of thread.items) {
      const lane = 'subagentRunId' in item ? item.subagentRunId : undefined;
      const subagent = lane === undefined ? undefined : (subagentNames.get(lane) ?? '');
      let entry = cache.get(item);
      if (entry === undefined || entry.subagent !== subagent) {
        entry = { subagent, projected: projectItem(item, subagent) };
        cache.set(item, entry);
      }
      if (entry.projected !== undefined) items.push(entry.projected);
    }
    // A subagent that failed says why, in its lane: after what it said (at the end when it said nothing).
    for (const subagent of thread.subagents) {
      if (subagent.state !== 'failed' || subagent.error === undefined) continue;
      let failure = failures.get(subagent);
      if (failure === undefined) {
        failure = {
          kind: 'notice',
          id: itemId('subagentError', subagent.id),
          tone: 'error',
          code: clip(subagent.error.code ?? 'subagent_error', itemLimits.codeChars),
          message: clip(subagent.error.message, itemLimits.messageChars),
          subagent: { id: subagent.id, name: subagent.name },
        };
        failures.set(subagent, failure);
      }
      const last = items.findLastIndex((item) => item.subagent?.id === subagent.id);
      items.splice(last === -1 ? items.length : last + 1, 0, failure);
    }
    // The agent's open questions come last, as one item: they are what the conversation waits for, answered together.
    const open = thread.pendingResume === undefined ? openInterrupts(thread) : [];
    if (open.length > 0) {
      const tools: ItemOfKind<'interrupt'>['tools'] = {};
      for (const interrupt of open) {
        if (interrupt.toolCallId === undefined) continue;
        const tool = thread.items.find((item) => item.kind === 'toolCall' && item.id === interrupt.toolCallId);
        if (tool?.kind === 'toolCall')
          tools[interrupt.toolCallId] = { name: tool.name, ...(tool.argsText === '' ? {} : { args: clip(tool.argsPretty ?? tool.argsText) }) };
      }
      const first = open[0] as (typeof open)[number];
      const subagent = first.subagentRunId === undefined ? undefined : subagentNames.get(first.subagentRunId);
      items.push({
        kind: 'interrupt',
        id: itemId('interrupts', open.map((interrupt) => interrupt.id).join('\n')).slice(0, itemLimits.idChars),
        interrupts: open.slice(0, 100),
        tools,
        ...(subagent === undefined || first.subagentRunId === undefined ? {} : { subagent: { id: first.subagentRunId, name: subagent } }),
      });
    }
    return { items, status: statusOf(thread) };
  };
}

function statusOf(thread: AguiThreadView): AguiProjection['status'] {
  const run = thread.runState === 'starting' ? 'starting' : thread.runState === 'running' ? 'running' : 'idle';
  const outcome = ({ finished: 'done', awaitingInput: 'waiting', cancelled: 'stopped', error: 'failed', dropped: 'interrupted' } as const)[
    thread.runState as 'finished' | 'awaitingInput' | 'cancelled' | 'error' | 'dropped'
  ];
  return { phase: 'ready', run, ...(outcome === undefined ? {} : { outcome }), threadId: thread.threadId, dropped: thread.droppedItems };
}

const toolStates: Record<ToolCallState, ItemOfKind<'tool'>['state']> = {
  streaming: 'running',
  called: 'running',
  completed: 'done',
  failed: 'failed',
  incomplete: 'cancelled',
};

function projectItem(item: AguiItem, subagentName: string | undefined): ConversationItem | undefined {
  const common = {
    id: itemId(item.kind, item.id),
    ...(item.at === undefined ? {} : { at: item.at }),
    ...(subagentName === undefined || !('subagentRunId' in item) || item.subagentRunId === undefined
      ? {}
      : { subagent: { id: item.subagentRunId, name: subagentName } }),
  };
  switch (item.kind) {
    case 'user':
      return { kind: 'message', ...common, role: 'user', text: item.text, format: 'plain', state: 'sent' };
    case 'text':
      return {
        kind: 'message',
        ...common,
        role: item.role === 'assistant' ? 'agent' : item.role === 'user' ? 'user' : 'system',
        text: item.text,
        format: item.role === 'user' ? 'plain' : 'markdown',
        state: item.streaming ? 'streaming' : item.role === 'user' ? 'sent' : 'done',
        ...(item.name === undefined ? {} : { author: item.name }),
        ...(item.truncated ? { truncated: true as const } : {}),
      };
    case 'reasoning':
      // Reasoning the agent kept encrypted only is not shown at all (nothing to read).
      if (item.text === '' && !item.streaming) return undefined;
      return {
        kind: 'reasoning',
        ...common,
        text: item.text,
        streaming: item.streaming,
        ...(item.truncated ? { truncated: true as const } : {}),
        ...(item.encryptedHidden ? { hiddenPart: true as const } : {}),
      };
    case 'toolCall': {
      const args = item.started && item.argsStatus !== 'empty' ? (item.argsPretty ?? item.argsText) : undefined;
      const argsNote = item.argsStatus === 'empty' || item.argsStatus === 'invalid' || item.argsStatus === 'truncated' ? item.argsStatus : undefined;
      const result = item.result;
      return {
        kind: 'tool',
        ...common,
        name: item.name,
        state: result?.error !== undefined ? 'failed' : toolStates[item.state],
        ...(args === undefined || args === '' ? {} : { args: clip(args) }),
        ...(item.started && argsNote !== undefined ? { argsNote } : {}),
        ...(result === undefined || result.text === '' ? {} : { result: clip(result.text) }),
        ...(result?.truncated ? { resultTruncated: true as const } : {}),
        ...(result?.media === undefined || result.media.length === 0 ? {} : { media: result.media }),
        ...(result?.error === undefined ? {} : { error: clip(result.error, itemLimits.messageChars) }),
      };
    }
    case 'activity':
      return {
        kind: 'activity',
        ...common,
        ...readableActivity(item.activityType, item.content),
        json: clip(prettyJson(item.content, itemLimits.jsonChars) ?? ''),
      };
    case 'custom':
      return {
        kind: 'activity',
        ...common,
        source: item.label,
        title: item.title !== '' ? item.title : item.name,
        ...(item.text === undefined ? {} : { text: clip(item.text, itemLimits.messageChars) }),
        ...(item.json === undefined ? {} : { json: clip(item.json) }),
      };
    case 'error':
      return { kind: 'notice', ...common, tone: 'error', code: item.code ?? 'run_error', message: clip(item.message, itemLimits.messageChars) };
    case 'answer':
      return { kind: 'answer', ...common, question: clip(item.question, itemLimits.messageChars), status: item.status, fields: item.fields };
  }
}

/**
 * An activity in words: its own title (or its type made readable) and one line per fact it carries
 * (`name: value`; a list of named entries as `name — status`). The JSON itself goes behind Details.
 */
export function readableActivity(activityType: string, content: Readonly<Record<string, unknown>>): { title: string; text?: string } {
  const title = typeof content.title === 'string' && content.title.trim() !== '' ? content.title.trim() : humanize(activityType);
  const lines: string[] = [];
  for (const [key, value] of Object.entries(content)) {
    if (key === 'title') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      lines.push(`${humanize(key)}: ${String(value)}`);
    } else if (Array.isArray(value)) {
      for (const entry of value) {
        if (typeof entry === 'string' || typeof entry === 'number') lines.push(`• ${String(entry)}`);
        else if (isPlainObject(entry)) {
          const name = firstString(entry, ['name', 'label', 'title', 'id']);
          const state = firstString(entry, ['status', 'state', 'result', 'value']);
          if (name !== undefined) lines.push(state === undefined ? `• ${name}` : `• ${name} — ${state}`);
        }
      }
    }
    if (lines.length >= 20) break;
  }
  const text = lines.join('\n').slice(0, itemLimits.messageChars);
  return text === '' ? { title } : { title, text };
}

function firstString(object: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = object[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  }
  return undefined;
}

/** `iac-code.checks` → "Checks", `lastRun` → "Last run". */
export function humanize(name: string): string {
  const last =
    name
      .split(/[.:/]/)
      .filter((part) => part !== '')
      .at(-1) ?? name;
  const words = last
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words === '' ? name : `${words[0]?.toUpperCase() ?? ''}${words.slice(1)}`;
}

function clip(text: string, max: number = itemLimits.jsonChars): string {
  return text.length > max ? text.slice(0, max) : text;
}
