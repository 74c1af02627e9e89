import { EventSchemas, EventTypeSchema } from '@ag-ui/core/schemas';
import { parseAction, parseCard, parseUsage, safeLink } from './content';
import type { RunUpdate } from './conversation';

/**
 * Talkie 1 §5: one AG-UI event (already JSON-parsed) → what it means for the UI.
 * - Every event is validated with @ag-ui/core's schemas (loose: unknown fields pass).
 * - Unknown event types, unknown CUSTOM names, and TOOL_CALL_RESULT (never displayed) yield nothing.
 * - A known event that fails validation is reported as `invalid`, so the caller can count or log it.
 */
export type Interpretation = { kind: 'updates'; updates: RunUpdate[] } | { kind: 'ignored'; reason: string } | { kind: 'invalid'; reason: string };

const ignore = (reason: string): Interpretation => ({ kind: 'ignored', reason });
const updates = (...list: RunUpdate[]): Interpretation => ({ kind: 'updates', updates: list });

export function interpretEvent(json: unknown, issuer: string): Interpretation {
  const type = (json as { type?: unknown } | null)?.type;
  if (!EventTypeSchema.safeParse(type).success) return ignore(`unknown event type ${String(type).slice(0, 60)}`);
  const parsed = EventSchemas.safeParse(json);
  if (!parsed.success) return { kind: 'invalid', reason: `${String(type)}: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const event = parsed.data;
  switch (event.type) {
    case 'RUN_STARTED':
      return updates({ type: 'run.started', threadId: event.threadId, runId: event.runId });
    case 'TEXT_MESSAGE_START':
      return updates({ type: 'text.start', messageId: event.messageId });
    case 'TEXT_MESSAGE_CONTENT':
      return updates({ type: 'text.delta', messageId: event.messageId, delta: event.delta });
    case 'TEXT_MESSAGE_END':
      return updates({ type: 'text.end', messageId: event.messageId });
    case 'TEXT_MESSAGE_CHUNK':
      return event.messageId && event.delta
        ? updates({ type: 'text.delta', messageId: event.messageId, delta: event.delta })
        : ignore('chunk without message id or text');
    case 'TOOL_CALL_START': {
      const label = stringField(metadataOf(event), 'label') ?? event.toolCallName;
      return updates({ type: 'tool.start', toolCallId: event.toolCallId, label: label.slice(0, 200) });
    }
    case 'TOOL_CALL_END': {
      const metadata = metadataOf(event);
      const ok = metadata?.ok !== false;
      const error = stringField(metadata, 'error');
      return updates(
        ok
          ? { type: 'tool.end', toolCallId: event.toolCallId, ok }
          : { type: 'tool.end', toolCallId: event.toolCallId, ok, ...(error ? { error: error.slice(0, 500) } : {}) },
      );
    }
    case 'TOOL_CALL_RESULT':
      return ignore('tool results are not displayed (Talkie §5)');
    case 'RUN_FINISHED':
      // AG-UI 1.0 may report a cancelled run as RUN_FINISHED with outcome {type: "cancelled"}.
      if ((event as { outcome?: { type?: unknown } }).outcome?.type === 'cancelled') {
        return updates({ type: 'run.error', code: 'cancelled', message: 'Cancelled', retryable: false });
      }
      return updates({ type: 'run.finished' });
    case 'RUN_ERROR': {
      const retryable = metadataOf(event)?.retryable === true;
      return updates({ type: 'run.error', code: (event.code ?? 'internal').slice(0, 64), message: event.message.slice(0, 2000), retryable });
    }
    case 'CUSTOM':
      return interpretCustom(event.name, event.value, issuer);
    default:
      return ignore(`${event.type} is not used by Talkie`);
  }
}

function interpretCustom(name: string, value: unknown, issuer: string): Interpretation {
  switch (name) {
    case 'talkie.card': {
      const card = parseCard(value);
      return card ? updates({ type: 'card', card }) : { kind: 'invalid', reason: 'talkie.card without id or fallbackText' };
    }
    case 'talkie.action': {
      const action = parseAction(value);
      return action ? updates({ type: 'action', action }) : { kind: 'invalid', reason: 'talkie.action is malformed' };
    }
    case 'talkie.open': {
      const raw = value as { url?: unknown; label?: unknown } | null;
      const link = typeof raw?.url === 'string' ? safeLink(raw.url, issuer) : undefined;
      if (!link) return { kind: 'invalid', reason: 'talkie.open without a safe url' };
      const label = typeof raw?.label === 'string' && raw.label.trim() !== '' ? raw.label.slice(0, 200) : link.href;
      return updates({ type: 'open', url: link.href, label });
    }
    case 'talkie.usage': {
      const usage = parseUsage((value as { usage?: unknown } | null)?.usage);
      return usage ? updates({ type: 'usage', usage }) : { kind: 'invalid', reason: 'talkie.usage is malformed' };
    }
    default:
      return ignore(`unknown CUSTOM event ${name.slice(0, 60)}`);
  }
}

function metadataOf(event: object): Record<string, unknown> | undefined {
  const metadata = (event as { metadata?: unknown }).metadata;
  return metadata !== null && typeof metadata === 'object' ? (metadata as Record<string, unknown>) : undefined;
}

function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' ? value : undefined;
}
