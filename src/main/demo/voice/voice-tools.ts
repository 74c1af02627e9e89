import type { Event } from '@ag-ui/core';
import { offerLabel, searchLabel, sendKeyword } from '../demo-agent';
import { contactsCard, contactsShown, findContacts, isOfferClient, offer, sendOfferProposal, type Contact } from '../demo-records';
import { actionEvent, cardEvent } from '../demo-run';
import type { ThreadRecord, UserSpace } from '../demo-store';
import { httpErrors } from '../http-util';

/**
 * The demo's voice tools (Talkie 1 §10.2): what the speech provider may ask for during a call, run by the
 * server for the session's user. They read the same records as the chat agent (demo-records.ts) and
 * propose the same action; like the agent they have no path to a decision (Talkie 1 §8: action-decisions.ts
 * is imported by the decision endpoint only).
 */

export type VoiceLocale = 'en' | 'cs';
export const voiceToolNames = ['search_contacts', 'send_offer'] as const;
export type VoiceToolName = (typeof voiceToolNames)[number];

/** Name and description of each tool, as a provider session would be configured with them. */
export const voiceTools: readonly { name: VoiceToolName; description: string }[] = [
  { name: 'search_contacts', description: 'Searches the CRM contacts by name, company or city. Arguments: {"query": string}.' },
  { name: 'send_offer', description: `Prepares sending offer ${offer.id} by e-mail; a person must confirm it. Arguments: {"client"?: string}.` },
];

/** Talkie 1 §10.1 `labels`: the status line while each tool runs. */
export const voiceLabels: Record<VoiceLocale, Record<VoiceToolName, string>> = {
  en: { search_contacts: searchLabel, send_offer: offerLabel },
  cs: { search_contacts: 'Hledám kontakty…', send_offer: 'Připravuji nabídku…' },
};

/** Talkie 1 §10.1 `consent`: words added to the client's built-in confirm and refuse vocabularies. */
export const voiceConsent: Record<VoiceLocale, { confirm: string[]; refuse: string[] }> = {
  en: { confirm: ['confirm', 'yes'], refuse: ['no', 'cancel'] },
  cs: { confirm: ['ano', 'potvrzuji'], refuse: ['ne', 'zrušit'] },
};

/** The word a spoken confirmation of the offer must contain (Talkie 1 §10.4), in the session's language. */
export const voiceSendKeyword: Record<VoiceLocale, string> = { en: sendKeyword, cs: 'odeslat' };

export interface VoiceToolContext {
  space: UserSpace;
  thread: ThreadRecord;
  /** The provider's call id: the proposed action's toolCallId. */
  callId: string;
  locale: VoiceLocale;
  timeScale: number;
}

export interface VoiceToolResult {
  /** What the model reads (function_call_output), in the session's language. */
  output: string;
  /** AG-UI events for the client: cards, actions. */
  events: Event[];
}

export const isVoiceToolName = (name: string): name is VoiceToolName => (voiceToolNames as readonly string[]).includes(name);

/** Runs one tool; a bad name or bad arguments throw a Talkie 1 §3 error (the client tells the model "The tool failed: …"). */
export function runVoiceTool(name: string, rawArguments: string, context: VoiceToolContext): VoiceToolResult {
  if (!isVoiceToolName(name)) {
    throw httpErrors.notFound(`The demo has no voice tool named "${name.slice(0, 64)}"; it has ${voiceToolNames.join(' and ')}.`);
  }
  const args = parseArguments(name, rawArguments);
  return name === 'search_contacts' ? searchContacts(args, context) : sendOffer(args, context);
}

function parseArguments(name: VoiceToolName, raw: string): Record<string, unknown> {
  const usage = name === 'search_contacts' ? '{"query": "…"}' : '{} or {"client": "…"}';
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    throw httpErrors.invalid(`The arguments of ${name} are not JSON; it takes ${usage}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw httpErrors.invalid(`The arguments of ${name} must be a JSON object: ${usage}.`);
  const field = name === 'search_contacts' ? 'query' : 'client';
  const value = (parsed as Record<string, unknown>)[field];
  if (value !== undefined && (typeof value !== 'string' || value.length > 200))
    throw httpErrors.invalid(`The ${field} of ${name} must be a text of at most 200 characters.`);
  return parsed as Record<string, unknown>;
}

const czechCount = (n: number, one: string, few: string, many: string): string => `${n} ${n === 1 ? one : n >= 2 && n <= 4 ? few : many}`;

function searchContacts(args: Record<string, unknown>, context: VoiceToolContext): VoiceToolResult {
  const query = typeof args.query === 'string' ? args.query : '';
  const matches = findContacts(query);
  const card = contactsCard(matches, query);
  context.space.addCardMessage(context.thread.id, card, 'voice');
  return { output: searchOutput(matches, query, context.locale), events: [cardEvent(card)] };
}

function searchOutput(matches: readonly Contact[], query: string, locale: VoiceLocale): string {
  const quoted = query.trim().slice(0, 80);
  const shown = matches.slice(0, contactsShown);
  const more = matches.length - shown.length;
  const list = shown.map((contact) => `${contact.name} (${contact.company}, ${contact.city})`).join(', ');
  const hasOffer = matches.includes(offer.contact);
  if (locale === 'cs') {
    if (matches.length === 0) return `Žádný kontakt neodpovídá „${quoted}“.`;
    return (
      `Našla jsem ${czechCount(matches.length, 'kontakt', 'kontakty', 'kontaktů')}: ${list}${more > 0 ? ` a ${more} další` : ''}.` +
      (hasOffer ? ` Pro Janu Novákovou je připravená nabídka ${offer.id}.` : '')
    );
  }
  if (matches.length === 0) return `No contact matches "${quoted}".`;
  return (
    `Found ${matches.length} ${matches.length === 1 ? 'contact' : 'contacts'}: ${list}${more > 0 ? ` and ${more} more` : ''}.` +
    (hasOffer ? ` Offer ${offer.id} for ${offer.contact.name} is ready to send.` : '')
  );
}

function sendOffer(args: Record<string, unknown>, context: VoiceToolContext): VoiceToolResult {
  const client = typeof args.client === 'string' ? args.client.trim() : '';
  const { locale } = context;
  if (client !== '' && !isOfferClient(client)) {
    const name = client.slice(0, 80);
    return {
      output:
        locale === 'cs'
          ? `Pro „${name}“ nemám připravenou nabídku. Demo má jedinou, ${offer.id} pro Janu Novákovou (${offer.contact.company}).`
          : `There is no prepared offer for "${name}". The demo has one offer, ${offer.id} for ${offer.contact.name} (${offer.contact.company}).`,
      events: [],
    };
  }
  const action = context.space.createAction(context.thread, sendOfferProposal(voiceSendKeyword[locale]), context.callId, context.timeScale);
  return {
    output:
      locale === 'cs'
        ? `Připravila jsem nabídku ${offer.id} pro Janu Novákovou (${offer.email}). Pro odeslání řekněte „ano, odeslat“, nebo stiskněte Potvrdit.`
        : `I have prepared offer ${offer.id} for ${offer.contact.name} (${offer.email}). Say "yes, send it" to confirm or press Confirm.`,
    events: [actionEvent(action)],
  };
}
