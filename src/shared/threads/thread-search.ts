import { z } from 'zod';

/**
 * Searching an agent's threads (issue #15): titles and message text that main already holds, never a
 * server call. Pure, so that main's indexes (Talkie: what it saw this session; AG-UI: the thread it
 * keeps) share one matcher and one bound on what crosses IPC.
 */
export const threadSearchLimits = {
  /** Characters of a query (after trimming). */
  queryChars: 200,
  /** Results per answer. */
  results: 20,
  /** Characters of a result's title. */
  titleChars: 200,
  /** Characters of a result's snippet, its ellipses included. */
  snippetChars: 160,
} as const;

export const threadSearchRequestSchema = z.strictObject({
  agentId: z.string().min(1).max(64),
  query: z.string().max(threadSearchLimits.queryChars),
});

export const threadSearchResultSchema = z.strictObject({
  threadId: z.string().min(1).max(300),
  title: z.string().max(threadSearchLimits.titleChars),
  /** A short line of the text around the first match ('' when only the title matched). */
  snippet: z.string().max(threadSearchLimits.snippetChars),
});
export type ThreadSearchResult = z.infer<typeof threadSearchResultSchema>;

export const threadSearchResponseSchema = z.strictObject({ results: z.array(threadSearchResultSchema).max(threadSearchLimits.results) });

/** One thread as a search sees it: its title and its messages' text, in order. */
export interface SearchableThread {
  threadId: string;
  title: string;
  texts: readonly string[];
}

/** One character folded for matching: lower case, accents gone ("Č" → "c"), so "cesky" finds "Česky". */
function foldChar(char: string): string {
  return char.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The folded text and, for each folded UTF-16 unit, the index of the original character it came from. */
function fold(text: string): { folded: string; from: number[] } {
  let folded = '';
  const from: number[] = [];
  let index = 0;
  for (const char of text) {
    const part = foldChar(char);
    folded += part;
    for (let i = 0; i < part.length; i += 1) from.push(index);
    index += char.length;
  }
  return { folded, from };
}

/** The query's words, folded; [] when it has none. */
export function queryWords(query: string): string[] {
  const words = fold(query.trim().slice(0, threadSearchLimits.queryChars)).folded.split(/\s+/u);
  return [...new Set(words.filter((word) => word !== ''))];
}

/**
 * A message as the words it shows: an agent's Markdown without its marks (`**web**` → "web",
 * `[the runbook](https://…)` → "the runbook", no heading, list or quote marks, no code fences), so a
 * snippet quotes what the user read. Text that only looks like Markdown (a lone `*`, `snake_case`,
 * `2 * 3`) stays as typed.
 */
export function markdownWords(text: string): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    // A code fence or a thematic break shows no words.
    if (/^ {0,3}(?:`{3,}|~{3,})/.test(line) || /^ {0,3}([-*_])(?: *\1){2,} *$/.test(line)) continue;
    const body = line
      .replace(/^ {0,3}#{1,6}(?=\s|$)\s*/, '')
      .replace(/^ {0,3}(?:> ?)+/, '')
      .replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, '');
    // Code spans keep their text as it is; the marks around the rest go.
    lines.push(
      body
        .split(/(`+)(.*?[^`])\1(?!`)/)
        .map((part, index) => (index % 3 === 2 ? part : index % 3 === 1 ? '' : inlineWords(part)))
        .join(''),
    );
  }
  return lines.join('\n');
}

function inlineWords(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, '$1')
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
    .replace(/(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])/g, '$1$2')
    .replace(/(^|[^\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])/g, '$1$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!~|>])/g, '$1');
}

function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/** At most `max` characters (code points) of `text` around [start, end), with "…" where it was cut. */
export function snippetAround(text: string, start: number, end: number, max: number = threadSearchLimits.snippetChars): string {
  const before = [...text.slice(0, start)];
  const match = [...text.slice(start, end)];
  const after = [...text.slice(end)];
  const room = Math.max(0, max - 2 - match.length);
  // About a third of the room before the match, the rest after it.
  let lead = Math.min(before.length, Math.floor(room / 3));
  const tail = Math.min(after.length, room - lead);
  lead = Math.min(before.length, room - tail);
  const head = before.slice(before.length - lead).join('');
  const rest = after.slice(0, tail).join('');
  const cut = `${lead < before.length ? '…' : ''}${head}${match.slice(0, max - 2).join('')}${rest}${tail < after.length ? '…' : ''}`;
  return oneLine(cut);
}

/**
 * The threads that contain every word of the query (in the title or anywhere in their text as it
 * shows, `markdownWords`; case and accents ignored), titles that match first, then in the given order (newest first); at most
 * `limit`, each with a snippet around the first message that matches (or '' when only its title
 * does). An empty query finds nothing.
 */
export function searchThreads(threads: readonly SearchableThread[], query: string, limit: number = threadSearchLimits.results): ThreadSearchResult[] {
  const words = queryWords(query);
  if (words.length === 0) return [];
  const byTitle: ThreadSearchResult[] = [];
  const byText: ThreadSearchResult[] = [];
  for (const thread of threads) {
    if (byTitle.length >= limit) break;
    const title = [...oneLine(thread.title)].slice(0, threadSearchLimits.titleChars).join('');
    const foldedTitle = fold(title).folded;
    const shown = thread.texts.map((text) => markdownWords(text));
    const folded = shown.map((text) => fold(text));
    const found = words.every((word) => foldedTitle.includes(word) || folded.some((text) => text.folded.includes(word)));
    if (!found) continue;
    let snippet = '';
    // The first message that holds a word, cut around that word.
    search: for (let i = 0; i < folded.length; i += 1) {
      const text = folded[i]!;
      for (const word of words) {
        const at = text.folded.indexOf(word);
        if (at === -1) continue;
        const original = shown[i]!;
        const start = text.from[at]!;
        const last = text.from[at + word.length - 1]!;
        const end = last + (original.codePointAt(last)! > 0xffff ? 2 : 1);
        snippet = snippetAround(original, start, end);
        break search;
      }
    }
    const result = { threadId: thread.threadId, title, snippet };
    if (words.every((word) => foldedTitle.includes(word))) byTitle.push(result);
    else byText.push(result);
  }
  return [...byTitle, ...byText].slice(0, limit);
}
