/** The longest title made from a thread's first message, in characters (code points), its ellipsis included. */
export const threadTitleMaxChars = 60;

/**
 * A thread's title made from its first user message: one line (every run of white space, line
 * breaks too, becomes one space), trimmed, at most 60 characters with "…" when it was cut (never in
 * the middle of a surrogate pair). '' when the message has no text. Applying it again changes nothing.
 */
export function threadTitleFromMessage(text: string): string {
  const line = text.replace(/\s+/gu, ' ').trim();
  const chars = [...line];
  if (chars.length <= threadTitleMaxChars) return line;
  return `${chars
    .slice(0, threadTitleMaxChars - 1)
    .join('')
    .trimEnd()}…`;
}
