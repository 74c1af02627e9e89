import type { Interrupt, ResumeEntry } from '@ag-ui/core';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The plain AG-UI demo agent's interrupts, without storing open ones: each id is a token `agi1.<payload>.<mac>` (HMAC-SHA256
 * with the server's secret) that a resume is checked against; only a bounded set of answered groups is kept, against replay.
 * Decision: docs/architecture.md#ag-ui-demo-interrupts-signed-not-stored
 */

/** Stable RUN_ERROR codes for a resume the demo cannot accept. */
export const resumeErrorCodes = {
  /** Not an id this server issued for this thread (bad format, bad signature, other thread). */
  unknown: 'unknown_interrupt',
  /** The same interruptId twice in one resume list. */
  duplicate: 'duplicate_resume_entry',
  /** Entries from more than one interrupted run. */
  mixed: 'resume_mixed_runs',
  /** Not every interrupt of the interrupted run is answered (omission is not abandonment). */
  incomplete: 'resume_incomplete',
  /** A `resolved` entry for an interrupt past its expiresAt (a `cancelled` one is accepted). */
  expired: 'interrupt_expired',
  /** These interrupts were already answered by an earlier resume. */
  answered: 'interrupt_already_answered',
  /** A `resolved` payload that does not match the interrupt's responseSchema. */
  payload: 'invalid_resume_payload',
} as const;

export type ResumeErrorCode = (typeof resumeErrorCodes)[keyof typeof resumeErrorCodes];

/** What one interrupt of a group asks about (the demo: one stack or environment to change, or a tool call to allow). */
export interface InterruptSubject {
  /** Short machine name, e.g. "demo-network" or "production"; ≤ 40 characters. */
  subject: string;
  message: string;
  /**
   * A tool approval as pydantic-ai's AG-UI adapter raises it (reason "tool_call", the call's id,
   * toolApprovalResponseSchema) instead of a confirmation. The call's path is signed into the id.
   */
  tool?: { toolCallId: string; path: string };
}

export interface ConfirmationAnswer {
  subject: string;
  /** True only for `resolved` with `approve: true` (a tool approval: `approved: true`). */
  approved: boolean;
  status: ResumeEntry['status'];
  note?: string;
  /** A tool approval's call and the arguments it runs with: `editedArgs` when sent (a full replacement, as pydantic-ai treats it), else the call's own. */
  tool?: { toolCallId: string; args: Record<string, unknown> };
}

export type ResumeCheck = { ok: true; answers: ConfirmationAnswer[] } | { ok: false; code: ResumeErrorCode; message: string };

export const maxNoteChars = 200;

/** The responseSchema of every confirmation interrupt (JSON Schema, as Interrupt.responseSchema carries it). */
export const confirmationResponseSchema = {
  type: 'object',
  properties: {
    approve: { type: 'boolean', title: 'Approve the change' },
    note: { type: 'string', maxLength: maxNoteChars, title: 'Note (optional)' },
  },
  required: ['approve'],
} as const;

/** The responseSchema of a tool approval (pydantic-ai's shape, with the arguments described): `editedArgs` replaces the call's arguments. */
export const toolApprovalResponseSchema = {
  type: 'object',
  properties: {
    approved: { type: 'boolean', title: 'Approve' },
    editedArgs: {
      type: 'object',
      title: 'Edited arguments',
      description: 'Replaces the arguments of the call.',
      properties: { path: { type: 'string', title: 'path' } },
    },
  },
  required: ['approved'],
} as const;

export const maxToolPathChars = 200;

interface Claims {
  t: string;
  g: string;
  i: number;
  n: number;
  s: string;
  e: number;
  /** A tool approval: the call's id (c) and path argument (a). */
  c?: string;
  a?: string;
}

const prefix = 'agi1';
const macBytes = 16;
const maxGroup = 8;
const maxIdChars = 512;

export interface InterruptLedgerOptions {
  /** HMAC key, ≥ 32 bytes. */
  secret: Uint8Array;
  /** How long an interrupt stays answerable (ms). */
  ttlMs: number;
  now: () => number;
  /** How many answered groups to remember (oldest forgotten first). Default 10 000. */
  maxAnswered?: number;
}

export class InterruptLedger {
  private readonly secret: Buffer;
  private readonly maxAnswered: number;
  /** Answered group id → its expiry (after which remembering it is pointless: it would be refused as expired). */
  private readonly answered = new Map<string, number>();

  constructor(private readonly options: InterruptLedgerOptions) {
    if (options.secret.byteLength < 32) throw new RangeError('The interrupt secret must be at least 32 bytes.');
    if (!(options.ttlMs > 0)) throw new RangeError('The interrupt lifetime must be a positive number of milliseconds.');
    this.secret = Buffer.from(options.secret);
    this.maxAnswered = options.maxAnswered ?? 10_000;
  }

  /** The interrupts of one interrupted run: reason "confirmation", the shared responseSchema, signed ids. */
  issue(threadId: string, subjects: readonly InterruptSubject[]): Interrupt[] {
    if (subjects.length < 1 || subjects.length > maxGroup) throw new RangeError(`An interrupted run has 1–${maxGroup} interrupts.`);
    const group = randomBytes(12).toString('base64url');
    const expires = Math.floor(this.options.now() + this.options.ttlMs);
    const expiresAt = new Date(expires).toISOString();
    return subjects.map(({ subject, message, tool }, index): Interrupt => {
      const claims: Claims = { t: threadDigest(threadId), g: group, i: index, n: subjects.length, s: subject.slice(0, 40), e: expires };
      if (tool !== undefined) {
        return {
          id: this.sign({ ...claims, c: tool.toolCallId, a: tool.path.slice(0, maxToolPathChars) }),
          reason: 'tool_call',
          toolCallId: tool.toolCallId,
          message,
          responseSchema: structuredClone(toolApprovalResponseSchema) as unknown as Record<string, unknown>,
          expiresAt,
          metadata: { subject },
        };
      }
      return {
        id: this.sign(claims),
        reason: 'confirmation',
        message,
        responseSchema: structuredClone(confirmationResponseSchema) as unknown as Record<string, unknown>,
        expiresAt,
        metadata: { subject },
      };
    });
  }

  /**
   * Checks a resume list against the ids alone and, when it is accepted, remembers the group as
   * answered. The checks run in this order: each id (unknown), duplicates, one group, coverage,
   * already answered, expiry of resolved entries, payloads.
   */
  accept(threadId: string, entries: readonly ResumeEntry[]): ResumeCheck {
    const thread = threadDigest(threadId);
    const seen = new Set<string>();
    const claimed: { entry: ResumeEntry; claims: Claims }[] = [];
    for (const entry of entries) {
      const claims = this.verify(entry.interruptId);
      if (!claims || claims.t !== thread) {
        return fail(resumeErrorCodes.unknown, `The resume answers an interrupt this agent did not raise on this thread (${describeId(entry.interruptId)}).`);
      }
      if (seen.has(entry.interruptId)) return fail(resumeErrorCodes.duplicate, `The resume answers the interrupt ${describeId(entry.interruptId)} twice.`);
      seen.add(entry.interruptId);
      claimed.push({ entry, claims });
    }
    const first = claimed[0];
    if (!first) return fail(resumeErrorCodes.incomplete, 'The resume list is empty: answer every interrupt of the interrupted run.');
    if (claimed.some(({ claims }) => claims.g !== first.claims.g)) {
      return fail(resumeErrorCodes.mixed, 'The resume answers interrupts of more than one run; answer only those of the most recent interrupted run.');
    }
    const covered = new Set(claimed.map(({ claims }) => claims.i));
    if (covered.size !== first.claims.n) {
      const missing = first.claims.n - covered.size;
      return fail(
        resumeErrorCodes.incomplete,
        `The resume leaves ${missing} of ${first.claims.n} interrupts unanswered; answer each one (resolved or cancelled). Nothing was changed.`,
      );
    }
    const now = this.options.now();
    this.forgetExpired(now);
    if (this.answered.has(first.claims.g)) return fail(resumeErrorCodes.answered, 'These interrupts were already answered; nothing was changed again.');
    const late = claimed.find(({ entry, claims }) => entry.status === 'resolved' && now >= claims.e);
    if (late) {
      return fail(
        resumeErrorCodes.expired,
        `The interrupt about ${late.claims.s} expired at ${new Date(late.claims.e).toISOString()}; it can only be cancelled now. Nothing was changed.`,
      );
    }
    const answers: ConfirmationAnswer[] = [];
    for (const { entry, claims } of [...claimed].sort((a, b) => a.claims.i - b.claims.i)) {
      const tool = claims.c === undefined ? undefined : { toolCallId: claims.c, args: { path: claims.a ?? '' } };
      if (entry.status === 'cancelled') {
        answers.push({ subject: claims.s, approved: false, status: 'cancelled', ...(tool === undefined ? {} : { tool }) });
        continue;
      }
      if (tool !== undefined) {
        const approval = readToolApproval(entry.payload);
        if (typeof approval === 'string') return fail(resumeErrorCodes.payload, `The answer about ${claims.s} ${approval}. Nothing was changed.`);
        answers.push({
          subject: claims.s,
          approved: approval.approved,
          status: 'resolved',
          tool: { ...tool, ...(approval.editedArgs === undefined ? {} : { args: approval.editedArgs }) },
        });
        continue;
      }
      const payload = readConfirmation(entry.payload);
      if (typeof payload === 'string') return fail(resumeErrorCodes.payload, `The answer about ${claims.s} ${payload}. Nothing was changed.`);
      answers.push({ subject: claims.s, approved: payload.approve, status: 'resolved', ...(payload.note === undefined ? {} : { note: payload.note }) });
    }
    this.remember(first.claims.g, first.claims.e);
    return { ok: true, answers };
  }

  private sign(claims: Claims): string {
    const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
    return `${prefix}.${payload}.${this.mac(payload).toString('base64url')}`;
  }

  private verify(id: string): Claims | undefined {
    if (id.length > maxIdChars) return undefined;
    const parts = id.split('.');
    if (parts.length !== 3 || parts[0] !== prefix) return undefined;
    const [, payload = '', mac = ''] = parts;
    const presented = Buffer.from(mac, 'base64url');
    if (presented.length !== macBytes || !timingSafeEqual(presented, this.mac(payload))) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Claims>;
      const { t, g, i, n, s, e, c, a } = claims;
      if (typeof t !== 'string' || typeof g !== 'string' || typeof s !== 'string') return undefined;
      if (!Number.isInteger(n) || !Number.isInteger(i) || !Number.isInteger(e)) return undefined;
      if ((n as number) < 1 || (n as number) > maxGroup || (i as number) < 0 || (i as number) >= (n as number)) return undefined;
      if ((c !== undefined && typeof c !== 'string') || (a !== undefined && typeof a !== 'string')) return undefined;
      return { t, g, i: i as number, n: n as number, s, e: e as number, ...(c === undefined ? {} : { c }), ...(a === undefined ? {} : { a }) };
    } catch {
      return undefined;
    }
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(`${prefix}.${payload}`, 'utf8').digest().subarray(0, macBytes);
  }

  private remember(group: string, expires: number): void {
    this.answered.set(group, expires);
    while (this.answered.size > this.maxAnswered) {
      const oldest = this.answered.keys().next().value;
      if (oldest === undefined) break;
      this.answered.delete(oldest);
    }
  }

  private forgetExpired(now: number): void {
    for (const [group, expires] of this.answered) if (now >= expires) this.answered.delete(group);
  }
}

function fail(code: ResumeErrorCode, message: string): ResumeCheck {
  return { ok: false, code, message };
}

/** The payload checked against confirmationResponseSchema, or what is wrong with it (a sentence tail). */
function readConfirmation(payload: unknown): { approve: boolean; note?: string } | string {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'needs a payload object { approve: boolean, note?: string }';
  const { approve, note } = payload as { approve?: unknown; note?: unknown };
  if (typeof approve !== 'boolean') return 'needs approve: true or false';
  if (note === undefined) return { approve };
  if (typeof note !== 'string') return 'has a note that is not text';
  if ([...note].length > maxNoteChars) return `has a note longer than ${maxNoteChars} characters`;
  return { approve, note };
}

/** A tool approval's payload checked against toolApprovalResponseSchema (`editedArgs` taken as sent: it replaces the arguments). */
function readToolApproval(payload: unknown): { approved: boolean; editedArgs?: Record<string, unknown> } | string {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    return 'needs a payload object { approved: boolean, editedArgs?: { path?: string } }';
  const { approved, editedArgs } = payload as { approved?: unknown; editedArgs?: unknown };
  if (typeof approved !== 'boolean') return 'needs approved: true or false';
  if (editedArgs === undefined) return { approved };
  if (typeof editedArgs !== 'object' || editedArgs === null || Array.isArray(editedArgs)) return 'has editedArgs that is not an object';
  const path = (editedArgs as { path?: unknown }).path;
  if (path !== undefined && (typeof path !== 'string' || [...path].length > maxToolPathChars))
    return `has an edited path that is not text of at most ${maxToolPathChars} characters`;
  return { approved, editedArgs: { ...(editedArgs as Record<string, unknown>) } };
}

function threadDigest(threadId: string): string {
  return createHash('sha256').update(threadId, 'utf8').digest().subarray(0, 12).toString('base64url');
}

/** Enough of an id to recognise it in a message, never the whole (possibly huge) value. */
function describeId(id: string): string {
  return JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);
}
