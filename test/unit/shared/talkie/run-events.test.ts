import { describe, expect, it } from 'vitest';
import { parseCard, safeLink } from '../../../../src/shared/talkie/content';
import { addUserMessage, applyUpdate, conversationLimits, emptyConversation, type RunUpdate } from '../../../../src/shared/talkie/conversation';
import { conversationBounds, itemsChars } from '../../../../src/shared/conversation/bounds';
import { interpretEvent } from '../../../../src/shared/talkie/run-events';

const issuer = 'https://crm.example.com';
const updatesOf = (event: unknown): RunUpdate[] => {
  const result = interpretEvent(event, issuer);
  return result.kind === 'updates' ? result.updates : [];
};

describe('safeLink (Talkie 1 §6/§7)', () => {
  it.each([
    ['/?record=abc', { href: 'https://crm.example.com/?record=abc', kind: 'same-origin' }],
    ['https://crm.example.com/files/1.pdf', { href: 'https://crm.example.com/files/1.pdf', kind: 'same-origin' }],
    ['https://docs.example.org/a', { href: 'https://docs.example.org/a', kind: 'external' }],
    ['javascript:alert(1)', undefined],
    ['data:text/html,<script>alert(1)</script>', undefined],
    ['http://docs.example.org/a', undefined],
    ['//evil.example/x', undefined],
    ['https://user:pw@docs.example.org/', undefined],
    ['file:///etc/passwd', undefined],
  ])('%s', (url, expected) => {
    expect(safeLink(url, issuer)).toEqual(expected);
  });
});

describe('parseCard', () => {
  it('keeps all seven block types', () => {
    const card = parseCard({
      id: 'c1',
      title: 'Alfa',
      fallbackText: 'Alfa s.r.o.',
      a11yLabel: 'Card',
      blocks: [
        { type: 'heading', text: 'H' },
        { type: 'text', text: '**b**' },
        { type: 'fields', fields: [{ label: 'IČO', value: '1' }] },
        { type: 'list', items: [{ title: 'x' }], more: 3 },
        { type: 'link', label: 'L', url: '/x' },
        { type: 'file', name: 'f.pdf', url: '/f.pdf', size: 10 },
        { type: 'badge', text: 'OK', tone: 'positive' },
      ],
    });
    expect(card?.blocks?.map((block) => block.type)).toEqual(['heading', 'text', 'fields', 'list', 'link', 'file', 'badge']);
  });

  it('falls back to fallbackText when any block is unknown or malformed', () => {
    expect(
      parseCard({
        id: 'c',
        fallbackText: 'plain',
        blocks: [
          { type: 'heading', text: 'H' },
          { type: 'chart', data: [] },
        ],
      })?.blocks,
    ).toBeUndefined();
    expect(parseCard({ id: 'c', fallbackText: 'plain', blocks: [{ type: 'fields', fields: 'nope' }] })).toMatchObject({ fallbackText: 'plain' });
    expect(parseCard({ id: 'c', blocks: [] })).toBeUndefined();
  });
});

describe('interpretEvent (Talkie 1 §5)', () => {
  it('maps the text, tool and run events', () => {
    expect(updatesOf({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })).toEqual([{ type: 'run.started', threadId: 't', runId: 'r' }]);
    expect(updatesOf({ type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'search', metadata: { label: 'Searching contacts…' } })).toEqual([
      { type: 'tool.start', toolCallId: 'c', label: 'Searching contacts…' },
    ]);
    expect(updatesOf({ type: 'TOOL_CALL_END', toolCallId: 'c', metadata: { ok: false, error: 'CRM down' } })).toEqual([
      { type: 'tool.end', toolCallId: 'c', ok: false, error: 'CRM down' },
    ]);
    expect(updatesOf({ type: 'RUN_ERROR', message: 'Down', code: 'upstream_unavailable', metadata: { retryable: true } })).toEqual([
      { type: 'run.error', code: 'upstream_unavailable', message: 'Down', retryable: true },
    ]);
  });

  it('treats RUN_FINISHED with a cancelled outcome as a cancelled run', () => {
    expect(updatesOf({ type: 'RUN_FINISHED', threadId: 't', runId: 'r', outcome: { type: 'cancelled' } })).toEqual([
      { type: 'run.error', code: 'cancelled', message: 'Cancelled', retryable: false },
    ]);
  });

  it('ignores unknown types, unknown CUSTOM names and tool results; flags malformed known events', () => {
    expect(interpretEvent({ type: 'SOMETHING_NEW', x: 1 }, issuer).kind).toBe('ignored');
    expect(interpretEvent({ type: 'CUSTOM', name: 'vendor.thing', value: {} }, issuer).kind).toBe('ignored');
    expect(interpretEvent({ type: 'TOOL_CALL_RESULT', messageId: 'm', toolCallId: 'c', content: 'raw secret output' }, issuer).kind).toBe('ignored');
    expect(interpretEvent({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm' }, issuer).kind).toBe('invalid');
    expect(interpretEvent({ type: 'CUSTOM', name: 'talkie.open', value: { url: 'javascript:alert(1)', label: 'x' } }, issuer).kind).toBe('invalid');
  });

  it('passes HTML and script through as plain text (the UI renders no HTML)', () => {
    expect(updatesOf({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: '<img src=x onerror=alert(1)><script>x</script>' })).toEqual([
      { type: 'text.delta', messageId: 'm', delta: '<img src=x onerror=alert(1)><script>x</script>' },
    ]);
  });
});

describe('the conversation reducer', () => {
  it('a hostile stream far over the conversation budget: the oldest items go, counted, the newest stay', () => {
    let c = applyUpdate(addUserMessage(emptyConversation, 'u1', 'hi'), { type: 'run.started', threadId: 't1', runId: 'r1' });
    const half = 'x'.repeat(100_000);
    for (let index = 0; index < 40; index++) {
      c = applyUpdate(c, { type: 'text.start', messageId: `a${index}` });
      c = applyUpdate(c, { type: 'text.delta', messageId: `a${index}`, delta: half });
      c = applyUpdate(c, { type: 'text.delta', messageId: `a${index}`, delta: half });
    }
    expect(itemsChars(c.items)).toBeLessThanOrEqual(conversationBounds.chars);
    expect(c.removedItems).toBeGreaterThan(0);
    expect(c.items.at(-1)).toMatchObject({ kind: 'assistant', id: 'a39', text: 'x'.repeat(200_000) });
    // A thread opened on its window (30 items before it in main, 2 removed): removing items the page holds removes those older ones too.
    const opened = applyUpdate(
      { ...emptyConversation, threadId: 't1', items: c.items.slice(-3), earlierItems: 30, removedItems: 2 },
      { type: 'run.started', threadId: 't1', runId: 'r2' },
    );
    let more = opened;
    for (let index = 0; index < 20; index++) {
      more = applyUpdate(more, { type: 'text.start', messageId: `b${index}` });
      more = applyUpdate(more, { type: 'text.delta', messageId: `b${index}`, delta: 'x'.repeat(199_000) });
    }
    expect(more.earlierItems).toBeUndefined();
    expect((more.removedItems ?? 0) + more.items.length).toBe(2 + 30 + 3 + 20);
    // Beyond the item bound too, the oldest go (a new item is never ignored).
    for (let index = 0; index < conversationLimits.items + 5; index++) c = applyUpdate(c, { type: 'tool.start', toolCallId: `t${index}`, label: 'x' });
    expect(c.items).toHaveLength(conversationLimits.items);
    expect(c.items.at(-1)).toMatchObject({ kind: 'tool', id: `t${conversationLimits.items + 4}` });
  });

  it('streams a run into user, tool, assistant, card and action items', () => {
    let c = addUserMessage(emptyConversation, 'm_user', 'hello');
    for (const event of [
      { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'search', metadata: { label: 'Searching…' } },
      { type: 'TOOL_CALL_END', toolCallId: 'c1', metadata: { ok: true } },
      { type: 'TEXT_MESSAGE_START', messageId: 'a1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'Hel' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'lo' },
      {
        type: 'CUSTOM',
        name: 'talkie.action',
        value: { id: 'a_1', summary: 'Send', status: 'pending', paramsHash: 'sha256:1', confirm: { methods: ['voice'] } },
      },
      { type: 'CUSTOM', name: 'talkie.action', value: { id: 'a_2', summary: 'Send again', status: 'pending', paramsHash: 'sha256:2' } },
      { type: 'TEXT_MESSAGE_END', messageId: 'a1' },
      { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
    ]) {
      for (const update of updatesOf(event)) c = applyUpdate(c, update);
    }
    expect(c.threadId).toBe('t1');
    expect(c.runState).toBe('finished');
    expect(c.items.map((item) => `${item.kind}:${item.id}`)).toEqual(['user:m_user', 'tool:c1', 'assistant:a1', 'action:a_1', 'action:a_2']);
    expect(c.items[0]).toMatchObject({ state: 'sent' });
    expect(c.items[1]).toMatchObject({ state: 'ok', label: 'Searching…' });
    expect(c.items[2]).toMatchObject({ text: 'Hello', streaming: false });
    expect(c.items[3]).toMatchObject({ action: { buttons: false, voice: true } });
    // No confirm.methods: buttons, not voice.
    expect(c.items[4]).toMatchObject({ action: { buttons: true, voice: false } });
  });

  it('retries a message in place, never duplicating it', () => {
    let c = addUserMessage(emptyConversation, 'm1', 'hi');
    c = addUserMessage(c, 'm1', 'hi');
    expect(c.items.filter((item) => item.kind === 'user')).toHaveLength(1);
  });
});
