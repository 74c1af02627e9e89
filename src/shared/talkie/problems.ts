/**
 * A validation problem with a stable code and a JSON-pointer path, as `agentdesk probe --json`
 * prints them and the UI lists them. Codes never change meaning; messages are for people.
 */
export interface Problem {
  code: string;
  /** JSON pointer into the validated document ("" is the whole document). */
  path: string;
  message: string;
}

export function pointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
