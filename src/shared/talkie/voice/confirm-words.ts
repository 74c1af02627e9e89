/**
 * Talkie 1 §10.4 step 3 (C7, C8): what one final user transcript means while a proposal waits.
 * Built-in English and Czech vocabularies; the session's `consent` words add to them (Talkie 1 §10.1).
 * Every doubt falls to `conversation`, so only a short, plain, unhedged "yes" confirms.
 */
export type Utterance =
  | { kind: 'confirm' }
  | { kind: 'refuse' }
  | { kind: 'conversation'; reason: 'empty' | 'too_long' | 'question' | 'negation' | 'hesitation' | 'keyword_missing' | 'no_consent_word' | 'mixed' };

export const maxConsentWords = 6;

/** Lower case, no diacritics, apostrophes dropped ("don't" → "dont"), other punctuation → spaces. */
export function normalize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’ʼ`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function words(text: string): string[] {
  const normalized = normalize(text);
  return normalized === '' ? [] : normalized.split(' ');
}

// Entries are normalized; a multi-word entry matches as a sequence.
const builtIn = {
  confirm: [
    'yes',
    'yeah',
    'yep',
    'yup',
    'confirm',
    'confirmed',
    'i confirm',
    'ok',
    'okay',
    'sure',
    'correct',
    'agreed',
    'approve',
    'approved',
    'proceed',
    'go ahead',
    'do it',
    'affirmative',
    'ano',
    'jo',
    'jasne',
    'potvrzuji',
    'potvrzuju',
    'potvrzeno',
    'potvrdit',
    'potvrd',
    'souhlasim',
    'souhlas',
    'dobre',
    'okej',
    'provest',
    'proved',
    'udelej to',
  ],
  refuse: [
    'no',
    'nope',
    'cancel',
    'stop',
    'abort',
    'reject',
    'decline',
    'dont',
    'do not',
    'ne',
    'nein',
    'zrus',
    'zrusit',
    'zrusit to',
    'storno',
    'nechci',
    'odmitam',
    'nepotvrzuji',
    'nepotvrzuju',
    'nedelej',
    'nedelej to',
  ],
  negation: [
    'not',
    'no',
    'never',
    'dont',
    'doesnt',
    'didnt',
    'isnt',
    'arent',
    'wasnt',
    'cannot',
    'cant',
    'wont',
    'shouldnt',
    'nothing',
    'neither',
    'nor',
    'ne',
    'nikdy',
    'nic',
    'ani',
  ],
  question: [
    'what',
    'why',
    'how',
    'who',
    'whom',
    'whose',
    'when',
    'where',
    'which',
    'whether',
    'co',
    'proc',
    'jak',
    'kdo',
    'koho',
    'komu',
    'kdy',
    'kde',
    'kam',
    'ktery',
    'ktera',
    'ktere',
    'kolik',
    'jestli',
    'zda',
    'opravdu',
  ],
  /** Auxiliaries that make a question when they open the sentence ("is it sent"). */
  questionOpeners: ['is', 'are', 'was', 'can', 'could', 'would', 'should', 'will', 'shall', 'does', 'did', 'have', 'has'],
  hesitation: [
    'maybe',
    'perhaps',
    'probably',
    'possibly',
    'guess',
    'think',
    'unsure',
    'not sure',
    'wait',
    'hold on',
    'um',
    'umm',
    'uh',
    'uhm',
    'hmm',
    'er',
    'erm',
    'well',
    'kind of',
    'sort of',
    'mozna',
    'asi',
    'snad',
    'nevim',
    'nejsem si jisty',
    'nejsem si jista',
    'pockej',
    'pockat',
    'vlastne',
    'treba',
    'spis',
    'jakoby',
    'hm',
    'ehm',
    'ee',
    'mm',
  ],
} as const;

/** Czech words that start with "ne" without being negated verbs ("nebo", "něco", …). */
const czechNeWords = new Set(['ne', 'nebo', 'neco', 'nekdo', 'nekde', 'nekdy', 'nejak', 'nektery', 'nektera', 'nektere', 'nejdriv', 'nejprve', 'necht', 'nez']);
/** Czech negates verbs with the prefix "ne-": "neposílej", "nepotvrzuji". Doubt falls to conversation. */
const isCzechNegatedWord = (word: string): boolean => word.length > 4 && word.startsWith('ne') && !czechNeWords.has(word);

export interface ConsentVocabulary {
  /** The session's `consent.confirm` (added to the built-in words). */
  confirm?: readonly string[];
  /** The session's `consent.refuse` (added to the built-in words). */
  refuse?: readonly string[];
  /** The session locale: in Czech "no" is a filler ("no jo"), a hesitation, not a refusal. */
  locale?: string;
}

function contains(tokens: readonly string[], entries: Iterable<string>): boolean {
  for (const entry of entries) {
    const phrase = words(entry);
    if (phrase.length === 0) continue;
    for (let start = 0; start + phrase.length <= tokens.length; start += 1) {
      if (phrase.every((token, offset) => tokens[start + offset] === token)) return true;
    }
  }
  return false;
}

/** C7/C8: confirm, refuse, or normal conversation. `keyword` is the action's `confirm.voice.keyword`. */
export function classifyUtterance(text: string, vocabulary: ConsentVocabulary = {}, keyword?: string): Utterance {
  const tokens = words(text);
  if (tokens.length === 0) return { kind: 'conversation', reason: 'empty' };
  const czech = /^cs\b/i.test(vocabulary.locale ?? '');
  const drop = (list: readonly string[]): string[] => (czech ? list.filter((entry) => entry !== 'no') : [...list]);
  const confirmWords = [...builtIn.confirm, ...(vocabulary.confirm ?? [])];
  const refuseWords = [...drop(builtIn.refuse), ...(vocabulary.refuse ?? [])];
  const hesitationWords = czech ? [...builtIn.hesitation, 'no'] : builtIn.hesitation;

  if (tokens.length > maxConsentWords) return { kind: 'conversation', reason: 'too_long' };
  if (
    text.includes('?') ||
    text.includes('¿') ||
    contains(tokens, builtIn.question) ||
    (builtIn.questionOpeners as readonly string[]).includes(tokens[0] ?? '')
  ) {
    return { kind: 'conversation', reason: 'question' };
  }
  if (contains(tokens, hesitationWords)) return { kind: 'conversation', reason: 'hesitation' };
  const refusal = contains(tokens, refuseWords);
  const consent = contains(tokens, confirmWords);
  const negated = contains(tokens, drop(builtIn.negation)) || tokens.some(isCzechNegatedWord);
  if (refusal && consent) return { kind: 'conversation', reason: 'mixed' };
  if (refusal) return { kind: 'refuse' };
  if (negated) return { kind: 'conversation', reason: 'negation' };
  if (!consent) return { kind: 'conversation', reason: 'no_consent_word' };
  if (keyword !== undefined && words(keyword).length > 0 && !contains(tokens, [keyword])) return { kind: 'conversation', reason: 'keyword_missing' };
  return { kind: 'confirm' };
}
