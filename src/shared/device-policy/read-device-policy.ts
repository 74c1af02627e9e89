import type { z } from 'zod';
import { devicePolicySchema, devicePolicyVersion, type DevicePolicy } from './device-policy';
import { findJsonSyntaxError } from './json-syntax';

/**
 * A device policy's text → the policy, or what is wrong with it in words that name the place:
 * malformed JSON with its line and column, an unknown version, every schema problem with its key
 * path. Never a partial policy: a policy with any problem is refused whole (fail closed).
 */
export type DevicePolicyRead =
  | { ok: true; policy: DevicePolicy }
  | {
      ok: false;
      kind: 'malformed' | 'unknown_version' | 'invalid';
      /** What is wrong, for people (one or more sentences). */
      problem: string;
      /** `kiosk` as far as the file could be read (a JSON object with `"kiosk": true`); decides how the app fails. */
      kiosk: boolean;
    };

/** Schema problems listed at most (the rest are counted). */
const maxListedProblems = 8;

export function readDevicePolicyText(text: string): DevicePolicyRead {
  const read = readPolicyDocument(text);
  if (!read.ok) return read;
  const { document } = read;
  const kiosk = document.kiosk === true;
  const versionProblem = policyVersionProblem(document, true);
  if (versionProblem !== undefined) return { ok: false, kind: 'unknown_version', problem: versionProblem, kiosk };
  const parsed = devicePolicySchema.safeParse(document);
  if (parsed.success) return { ok: true, policy: parsed.data };
  return { ok: false, kind: 'invalid', problem: describeIssues(parsed.error.issues), kiosk };
}

/** A policy file's text → its JSON object (any keys), or why it is not one: malformed JSON with its line and column. */
export function readPolicyDocument(
  text: string,
): { ok: true; document: Record<string, unknown> } | { ok: false; kind: 'malformed'; problem: string; kiosk: boolean } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') return { ok: false, kind: 'malformed', problem: 'the file is empty', kiosk: false };
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch (error) {
    const where = findJsonSyntaxError(body);
    const problem = where
      ? `it is not valid JSON: line ${where.line}, column ${where.column}: ${where.message}`
      : `it is not valid JSON (${error instanceof Error ? error.message : 'unreadable'})`;
    // Not JSON, so `kiosk` is read from the text as well as it can be: a kiosk whose policy has a typo still shows its error screen.
    return { ok: false, kind: 'malformed', problem, kiosk: /"kiosk"\s*:\s*true\b/.test(body) };
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    return { ok: false, kind: 'malformed', problem: 'it is not a JSON object ({ … })', kiosk: false };
  }
  return { ok: true, document: document as Record<string, unknown> };
}

/**
 * What is wrong with a document's `policyVersion`, if anything: a version this AgentDesk does not know
 * (always), or none at all where one is `required` (a policy file; a drop-in or an OS channel may
 * leave it out: it is then read as this version).
 */
export function policyVersionProblem(document: Record<string, unknown>, required: boolean): string | undefined {
  const version = document.policyVersion;
  if (version === undefined) return required ? `it has no policyVersion (this AgentDesk reads version ${devicePolicyVersion})` : undefined;
  if (version === devicePolicyVersion) return undefined;
  const stated = typeof version === 'number' ? `policyVersion ${version}` : `policyVersion ${JSON.stringify(version).slice(0, 40)}`;
  return `${stated} is not a version this AgentDesk knows (it reads version ${devicePolicyVersion}); update AgentDesk or write a version ${devicePolicyVersion} policy`;
}

/** zod's issues as `agents.list[0].address: …`, unknown keys named with where they are. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return listProblems(issueLines(issues));
}

/** One line per problem: `agents.list[0].address: …`, `appearance: unknown key "fontSize"`. */
export function issueLines(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    const at = keyPath(issue.path);
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => unknownKeyLine(at, key));
    const message = issue.code === 'invalid_type' && issue.message.endsWith('received undefined') ? 'is required' : issue.message;
    return [`${at === '' ? '(the policy)' : at}: ${message}`];
  });
}

/** `appearance: unknown key "fontSize"`, or `unknown key "kiosks" at the top level`. */
export function unknownKeyLine(at: string, key: string): string {
  return `${at === '' ? '' : `${at}: `}unknown key "${clip(key)}"${at === '' ? ' at the top level' : ''}`;
}

/** Problems for people: `one problem: …` or `3 problems: …; …; …`, the first few listed and the rest counted. */
export function listProblems(lines: readonly string[]): string {
  const listed = lines.slice(0, maxListedProblems);
  const more = lines.length - listed.length;
  return `${lines.length === 1 ? 'one problem' : `${lines.length} problems`}: ${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

/** `agents.list[0].address` from zod's path. */
export function keyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text === '' ? String(part) : `${text}.${String(part)}`), '');
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * The one sentence the app shows (error screen) or prints (refusing to start) for a policy it cannot use.
 * `merged`: the policy came from several places (`file` names them), checked together by `agentdesk policy effective`.
 */
export function devicePolicyFailureMessage(file: string, problem: string, merged = false): string {
  // Bounded (the error screen and app.info carry it): a path of at most 300 characters, the problem of at most 1200.
  const shown = file.length > 300 ? `…${file.slice(-299)}` : file;
  const fix = merged
    ? 'AgentDesk runs nothing until an administrator fixes or removes what is wrong (check it with: agentdesk policy effective)'
    : `AgentDesk runs nothing until an administrator fixes or removes that file (check it with: agentdesk policy check ${shown})`;
  return `AgentDesk's device policy ${shown} cannot be used: ${problem.length > 1200 ? `${problem.slice(0, 1199)}…` : problem}. ${fix}.`;
}
