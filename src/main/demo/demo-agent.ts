import { actionLifetimeMs, contactsCard, findContacts, sendOfferProposal } from './demo-records';
import { AgentFailure, type AgentContext, type DemoAgent } from './demo-run';
import type { TalkieCard } from './talkie-types';
import { newId } from './demo-store';

/**
 * The demo's assistant: fixed rules, no model. It answers the Talkie 1 §11 test-mode messages exactly and a
 * handful of phrases that show every part of Talkie (text, tool calls, cards, actions with undo,
 * links, usage). All delays go through `context.sleep`, which applies the server's timeScale.
 */

/** The one file the demo serves (same-origin, downloaded with the bearer token). */
export const demoFile = {
  path: '/api/files/demo.txt',
  name: 'demo.txt',
  mime: 'text/plain',
  body: Buffer.from('This file comes from the AgentDesk demo agent.\nClients download same-origin files with the bearer token.\n', 'utf8'),
};

export const testCardLabel = 'Looking up the record…';
export const searchLabel = 'Searching contacts…';
export const offerLabel = 'Preparing the offer…';
/** The word a spoken confirmation of "send the offer" must contain (Talkie 1 §10.4); Czech voice sessions use their own. */
export const sendKeyword = 'send';
export const slowDeltaCount = 20;
/** Before timeScale: 20 × 250 ms ≈ 5 s. */
export const slowDeltaMs = 250;

export const demoAgent: DemoAgent = async (text, context) => {
  const trimmed = text.trim();
  if (context.testMode && trimmed.startsWith('talkie-test:')) return testMode(text, trimmed, context);
  const lower = trimmed.toLowerCase();
  if (/\bsend (?:the |an? )?offer\b/.test(lower)) return sendOffer(context);
  if (/\b(?:contacts?|search)\b/.test(lower)) return searchContacts(context);
  if (/\busage\b/.test(lower)) return usage(context);
  if (/\bopen\b/.test(lower)) return openLink(context);
  if (/\bhelp\b/.test(lower) || lower === '?') return help(context);
  if (/^(?:hi|hello|hey|hiya|howdy|ahoj|good (?:morning|afternoon|evening))\b/.test(lower)) return greet(context);
  return fallback(trimmed, context);
};

async function testMode(raw: string, trimmed: string, context: AgentContext): Promise<void> {
  // The echo keeps the raw text after "talkie-test:echo " untouched: its content must match exactly.
  const echo = /^\s*talkie-test:echo(?: ([\s\S]*))?$/.exec(raw);
  if (echo) return context.say(echo[1] ?? '');
  switch (trimmed) {
    case 'talkie-test:card': {
      const card = await context.tool('lookup_record', testCardLabel, () => recordCard());
      await context.card(card);
      return context.say('Here is the record.');
    }
    case 'talkie-test:action': {
      await context.propose({
        kind: 'test-note',
        summary: 'Save the test note "talkie-test"',
        riskLevel: 'low',
        params: { note: 'talkie-test', target: 'conformance' },
        confirm: { methods: ['button', 'voice'], voice: { keyword: 'send' } },
        expiresInMs: actionLifetimeMs,
      });
      return context.say('Please confirm the test action.');
    }
    case 'talkie-test:error':
      throw new AgentFailure('upstream_unavailable', 'The model provider is unavailable (test).', true);
    case 'talkie-test:error-once':
      // Not in Talkie 1 §11: the demo's own, for trying a client's Retry. The first run of the message fails
      // (retryable); the same message sent again (same id, Talkie 1 §5) is answered.
      if (!context.retry) throw new AgentFailure('upstream_unavailable', 'The model provider is unavailable (test, this once: Retry gets an answer).', true);
      return context.say('Answered on the second try.');
    case 'talkie-test:slow': {
      const deltas = Array.from({ length: slowDeltaCount }, (_, i) => `Part ${i + 1} of ${slowDeltaCount}.${i + 1 < slowDeltaCount ? ' ' : ''}`);
      return context.say(deltas.join(''), { deltas, delayMs: slowDeltaMs });
    }
    default:
      return context.say(
        'Unknown test message. Test mode understands `talkie-test:echo <text>`, `talkie-test:card`, `talkie-test:action`, `talkie-test:error`, `talkie-test:error-once` (fails, then a retry is answered) and `talkie-test:slow`.',
      );
  }
}

/** The test-mode card: uses all seven block types. */
function recordCard(): TalkieCard {
  return {
    id: newId('card'),
    version: 1,
    title: 'Alfa s.r.o.',
    subtitle: 'Client · Brno',
    url: 'https://example.com/clients/alfa',
    blocks: [
      { type: 'heading', text: 'Alfa s.r.o.' },
      { type: 'badge', text: 'Active', tone: 'positive' },
      { type: 'text', text: 'A client since **2019**. Next step: *send the renewal offer*.' },
      {
        type: 'fields',
        fields: [
          { label: 'Company ID', value: '12345678' },
          { label: 'Turnover', value: 'CZK 1.2 million' },
        ],
      },
      { type: 'list', items: [{ title: 'Meeting 10:00', subtitle: 'Jana Nováková', url: 'https://example.com/meetings/1' }], more: 3 },
      { type: 'link', label: 'Open in the CRM', url: 'https://example.com/clients/alfa' },
      { type: 'file', name: demoFile.name, mime: demoFile.mime, size: demoFile.body.length, url: demoFile.path },
    ],
    fallbackText: 'Alfa s.r.o. – active client in Brno, company ID 12345678',
    a11yLabel: 'Client card: Alfa s.r.o.',
  };
}

async function searchContacts(context: AgentContext): Promise<void> {
  const card = await context.tool('search_contacts', searchLabel, () => contactsCard(findContacts('')), 600);
  await context.card(card);
  await context.say('I found **5 contacts**; here are the first three. Say *send the offer* to propose an e-mail to Jana.');
}

async function sendOffer(context: AgentContext): Promise<void> {
  const toolCallId = await context.tool('prepare_offer', offerLabel, (id) => id, 500);
  await context.propose(sendOfferProposal(sendKeyword), toolCallId);
  await context.say('The offer is ready. **Confirm** to send it – you will have 10 seconds to undo.');
}

async function usage(context: AgentContext): Promise<void> {
  const entries = context.usage();
  await context.custom('talkie.usage', { usage: entries });
  const first = entries[0];
  await context.say(first ? `You have used **${first.used} of ${first.limit}** ${first.unit} today.` : 'No usage yet today.');
}

async function openLink(context: AgentContext): Promise<void> {
  await context.custom('talkie.open', { url: 'https://example.com/', label: 'Example' });
  await context.say('Here is a link you can open: it opens only when you tap it.');
}

async function help(context: AgentContext): Promise<void> {
  const testLine = context.testMode ? '\n- `talkie-test:echo hello` – the test-mode messages (also `card`, `action`, `error`, `error-once`, `slow`)' : '';
  await context.say(
    'Here is what you can try in this demo:\n\n' +
      '- **hello** – a greeting\n' +
      '- **search contacts** – a tool call and a card with a list\n' +
      '- **send the offer** – an action you confirm or cancel, with a 10-second undo\n' +
      '- **usage** – how much you used today\n' +
      '- **open** – a suggested link' +
      testLine +
      '\n\nThe demo speaks the Talkie protocol over [AG-UI](https://docs.ag-ui.com/).',
  );
}

async function greet(context: AgentContext): Promise<void> {
  await context.say("Hello! I'm the **AgentDesk demo** agent. Type `help` to see what I can do.");
}

async function fallback(text: string, context: AgentContext): Promise<void> {
  const chars = [...text.replace(/\s+/g, ' ')];
  const topic = escapeMarkdown(chars.length > 80 ? `${chars.slice(0, 79).join('')}…` : chars.join(''));
  await context.say(
    `You asked about **${topic || 'nothing in particular'}**.\n\n` +
      "I'm a demo without a language model, so I can't really answer that. A real agent would:\n\n" +
      '1. look it up with its tools,\n' +
      '2. show you a *card* with the result,\n' +
      '3. ask before it changes anything.\n\n' +
      'Type `help` to see what I can do.',
  );
}

/** The user's words are data: escape them so they cannot turn into links or formatting. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+\-.!|~]/g, (char) => `\\${char}`);
}
