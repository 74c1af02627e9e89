import { z } from 'zod';

/**
 * Talkie 1 §3 errors, §6 cards, §7 links and §8 actions, as the client accepts them.
 * Everything here is untrusted server data: bounded, never HTML, links only https: or same-origin.
 */

export const talkieErrorBodySchema = z.looseObject({
  error: z.looseObject({ code: z.string().max(64), message: z.string().max(2000), retryable: z.boolean().optional() }),
});

/** A link the UI may offer: `external` opens in the system browser without a token; `same-origin` may carry it (files). */
export interface SafeLink {
  href: string;
  kind: 'same-origin' | 'external';
}

/** Talkie 1 §6/§7: same-origin paths (resolved against the issuer) and https: URLs; anything else is no link. */
export function safeLink(url: string | undefined, issuer: string): SafeLink | undefined {
  if (url === undefined || url.length > 4096) return undefined;
  if (url.startsWith('/') && !url.startsWith('//')) {
    if (!URL.canParse(url, `${issuer}/`)) return undefined;
    const resolved = new URL(url, `${issuer}/`);
    return resolved.origin === issuer ? { href: resolved.href, kind: 'same-origin' } : undefined;
  }
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') return undefined;
  if (parsed.origin === issuer) return { href: parsed.href, kind: 'same-origin' };
  return parsed.protocol === 'https:' ? { href: parsed.href, kind: 'external' } : undefined;
}

const short = z.string().max(500);
const long = z.string().max(20_000);
const url = z.string().max(4096);

export const cardBlockSchemas = {
  heading: z.looseObject({ type: z.literal('heading'), text: short }),
  text: z.looseObject({ type: z.literal('text'), text: long }),
  fields: z.looseObject({ type: z.literal('fields'), fields: z.array(z.looseObject({ label: short, value: z.string().max(2000) })).max(100) }),
  list: z.looseObject({
    type: z.literal('list'),
    items: z.array(z.looseObject({ title: short, subtitle: short.optional(), url: url.optional() })).max(100),
    more: z.number().int().nonnegative().optional(),
  }),
  link: z.looseObject({ type: z.literal('link'), label: short, url }),
  file: z.looseObject({ type: z.literal('file'), name: short, mime: z.string().max(200).optional(), size: z.number().int().nonnegative().optional(), url }),
  badge: z.looseObject({ type: z.literal('badge'), text: short, tone: z.enum(['neutral', 'positive', 'warning', 'negative']).optional() }),
} as const;

export type CardBlock = { [K in keyof typeof cardBlockSchemas]: z.output<(typeof cardBlockSchemas)[K]> }[keyof typeof cardBlockSchemas];

const cardSchema = z.looseObject({
  id: z.string().min(1).max(200),
  version: z.number().int().optional(),
  title: short.optional(),
  subtitle: short.optional(),
  url: url.optional(),
  blocks: z.array(z.unknown()).max(50).optional(),
  fallbackText: z.string().min(1).max(5000),
  a11yLabel: short.optional(),
});

export interface Card {
  id: string;
  title?: string;
  subtitle?: string;
  url?: string;
  /** Every block, when all are known and valid; otherwise undefined and the UI shows fallbackText. */
  blocks?: CardBlock[];
  fallbackText: string;
  a11yLabel?: string;
}

/** Parses a `talkie.card` value; undefined when even the card frame is unusable (no id or fallbackText). */
export function parseCard(value: unknown): Card | undefined {
  const parsed = cardSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const raw = parsed.data;
  const blocks: CardBlock[] = [];
  let renderable = true;
  for (const block of raw.blocks ?? []) {
    const type = (block as { type?: unknown } | null)?.type;
    const schema = typeof type === 'string' && Object.hasOwn(cardBlockSchemas, type) ? cardBlockSchemas[type as keyof typeof cardBlockSchemas] : undefined;
    const checked = schema?.safeParse(block);
    if (!checked?.success) {
      renderable = false;
      break;
    }
    blocks.push(checked.data as CardBlock);
  }
  const card: Card = { id: raw.id, fallbackText: raw.fallbackText };
  if (raw.title !== undefined) card.title = raw.title;
  if (raw.subtitle !== undefined) card.subtitle = raw.subtitle;
  if (raw.url !== undefined) card.url = raw.url;
  if (raw.a11yLabel !== undefined) card.a11yLabel = raw.a11yLabel;
  if (renderable) card.blocks = blocks;
  return card;
}

export const actionStatuses = ['pending', 'running', 'done', 'failed', 'cancelled', 'expired'] as const;
export type ActionStatus = (typeof actionStatuses)[number];

const actionSchema = z.looseObject({
  id: z.string().min(1).max(200),
  version: z.number().int().optional(),
  threadId: z.string().max(200).optional(),
  toolCallId: z.string().max(200).optional(),
  summary: z.string().min(1).max(2000),
  riskLevel: z.string().max(40).optional(),
  status: z.enum(actionStatuses),
  paramsHash: z.string().min(1).max(200),
  createdAt: z.string().max(40).optional(),
  expiresAt: z.string().max(40).optional(),
  undoUntil: z.string().max(40).optional(),
  confirm: z
    .looseObject({ methods: z.array(z.string().max(40)).max(10).optional(), voice: z.looseObject({ keyword: z.string().max(100).optional() }).optional() })
    .optional(),
});

export interface Action {
  id: string;
  threadId?: string;
  summary: string;
  riskLevel: 'low' | 'medium' | 'high' | 'unknown';
  status: ActionStatus;
  paramsHash: string;
  createdAt?: string;
  expiresAt?: string;
  undoUntil?: string;
  /** The UI may show Confirm/Cancel buttons only when the server's policy lists `button`. */
  buttons: boolean;
  /** The server's policy lists `voice` (Talkie 1 §10.4, C1): a voice call may decide it (when the server allows voice confirmation at all). */
  voice: boolean;
  voiceKeyword?: string;
}

export function parseAction(value: unknown): Action | undefined {
  const parsed = actionSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const raw = parsed.data;
  const risk = raw.riskLevel === 'low' || raw.riskLevel === 'medium' || raw.riskLevel === 'high' ? raw.riskLevel : 'unknown';
  const action: Action = {
    id: raw.id,
    summary: raw.summary,
    riskLevel: risk,
    status: raw.status,
    paramsHash: raw.paramsHash,
    buttons: raw.confirm?.methods?.includes('button') ?? true,
    voice: raw.confirm?.methods?.includes('voice') ?? false,
  };
  if (raw.threadId !== undefined) action.threadId = raw.threadId;
  if (raw.createdAt !== undefined) action.createdAt = raw.createdAt;
  if (raw.expiresAt !== undefined) action.expiresAt = raw.expiresAt;
  if (raw.undoUntil !== undefined) action.undoUntil = raw.undoUntil;
  if (raw.confirm?.voice?.keyword !== undefined) action.voiceKeyword = raw.confirm.voice.keyword;
  return action;
}

export interface UsageMeter {
  label: string;
  used: number;
  limit?: number;
  unit?: string;
}

const usageSchema = z
  .array(
    z.looseObject({ label: z.string().max(200), used: z.number().nonnegative(), limit: z.number().positive().optional(), unit: z.string().max(40).optional() }),
  )
  .max(20);

export function parseUsage(value: unknown): UsageMeter[] | undefined {
  const parsed = usageSchema.safeParse(value);
  if (!parsed.success) return undefined;
  return parsed.data.map((meter) => ({
    label: meter.label,
    used: meter.used,
    ...(meter.limit === undefined ? {} : { limit: meter.limit }),
    ...(meter.unit === undefined ? {} : { unit: meter.unit }),
  }));
}
