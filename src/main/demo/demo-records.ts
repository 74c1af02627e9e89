import { newId, type ActionProposal } from './demo-store';
import type { TalkieCard } from './talkie-types';

/**
 * The demo's pretend CRM: five contacts and one prepared offer. The chat agent (demo-agent.ts) and
 * the voice tools (voice/voice-tools.ts) both read them, so "search contacts" and "send the offer"
 * show the same cards and propose the same action whether typed or spoken.
 */

export interface Contact {
  name: string;
  company: string;
  city: string;
  url?: string;
}

export const contacts: readonly Contact[] = [
  { name: 'Jana Nováková', company: 'Alfa s.r.o.', city: 'Brno', url: 'https://example.com/contacts/jana' },
  { name: 'Petr Svoboda', company: 'Beta a.s.', city: 'Praha', url: 'https://example.com/contacts/petr' },
  { name: 'Eva Dvořáková', company: 'Gama s.r.o.', city: 'Ostrava' },
  { name: 'Martin Král', company: 'Delta s.r.o.', city: 'Plzeň' },
  { name: 'Lucie Horáková', company: 'Epsilon a.s.', city: 'Olomouc' },
];

/** How many contacts a card lists; the rest are counted in the list's `more`. */
export const contactsShown = 3;

/** Before timeScale: how long a proposed action waits for a decision. */
export const actionLifetimeMs = 10 * 60_000;

/** Lower case without diacritics, words only: "Nováková, Brno" → "novakova brno". */
const fold = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** The words of a query that name something: three letters or more, folded. */
const queryWords = (query: string): string[] =>
  fold(query)
    .split(' ')
    .filter((word) => [...word].length >= 3);

/**
 * The contacts a query names: those with a word (name, company or city) that starts with one of the
 * query's words of three letters or more. A query with no such word ("", "hi") lists everyone.
 */
export function findContacts(query: string): Contact[] {
  const words = queryWords(query);
  if (words.length === 0) return [...contacts];
  return contacts.filter((contact) => {
    const haystack = fold(`${contact.name} ${contact.company} ${contact.city}`).split(' ');
    return words.some((word) => haystack.some((candidate) => candidate.startsWith(word)));
  });
}

/** The search result card: the first three matches and how many more. */
export function contactsCard(matches: readonly Contact[], query = ''): TalkieCard {
  if (matches.length === 0) {
    const text = `No contact matches “${query.trim().slice(0, 80)}”.`;
    return {
      id: newId('card'),
      version: 1,
      title: 'Contacts',
      subtitle: 'No matches',
      blocks: [{ type: 'text', text }],
      fallbackText: text,
      a11yLabel: 'Contact search results',
    };
  }
  const shown = matches.slice(0, contactsShown);
  const more = matches.length - shown.length;
  return {
    id: newId('card'),
    version: 1,
    title: 'Contacts',
    subtitle:
      matches.length === shown.length ? `${matches.length} ${matches.length === 1 ? 'match' : 'matches'}` : `${shown.length} of ${matches.length} matches`,
    blocks: [
      {
        type: 'list',
        items: shown.map((contact) => ({
          title: contact.name,
          subtitle: `${contact.company} · ${contact.city}`,
          ...(contact.url ? { url: contact.url } : {}),
        })),
        ...(more > 0 ? { more } : {}),
      },
    ],
    fallbackText: `Contacts: ${shown.map((contact) => contact.name).join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
    a11yLabel: 'Contact search results',
  };
}

/** The one prepared offer, and who it is for. */
export const offer = {
  id: 'N-2026-014',
  contact: contacts[0]!,
  email: 'jana.novakova@alfa.example',
  subject: 'Your offer N-2026-014',
} as const;

/**
 * "Send the offer": an outbound e-mail, so a medium-risk action a person confirms (button or voice,
 * with `keyword` in the spoken confirmation) and can still undo for a while (action-decisions.ts).
 */
export function sendOfferProposal(keyword: string): ActionProposal {
  return {
    kind: 'send-offer',
    summary: `Send offer ${offer.id} to ${offer.email}`,
    riskLevel: 'medium',
    params: { offerId: offer.id, to: offer.email, subject: offer.subject },
    confirm: { methods: ['button', 'voice'], voice: { keyword } },
    expiresInMs: actionLifetimeMs,
  };
}

/** Whether `client` (a name or a company, as spoken) is the one the prepared offer is for. */
export function isOfferClient(client: string): boolean {
  return queryWords(client).length > 0 && findContacts(client).includes(offer.contact);
}
