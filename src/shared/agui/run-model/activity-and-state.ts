import type { EventType } from '@ag-ui/core';
import { customLimits, findCustomNamespace, type CustomNamespace } from '../custom-events';
import { applyJsonPatch, type PatchOperation } from '../json-patch';
import { isPlainObject, measureJson, truncate, type JsonObject, type JsonValue } from '../json-values';
import { laneConflict, withLane, type Draft } from './draft';
import { aguiLimits, type EventOf } from './types';

/* agent state (STATE_SNAPSHOT/STATE_DELTA) ----------------------------------------------------------- */

export function stateSnapshot(draft: Draft, snapshot: unknown): void {
  const measure = measureJson(snapshot, { maxDepth: aguiLimits.jsonDepth, maxChars: aguiLimits.stateChars });
  if (!measure.ok) {
    draft.note('state_too_large', `A state snapshot that is ${measure.message} was ignored; the state is unchanged.`);
    return;
  }
  draft.view.state = snapshot as JsonValue;
}

export function stateDelta(draft: Draft, patch: PatchOperation[]): void {
  const result = applyJsonPatch(draft.view.state ?? {}, patch, {
    maxOperations: aguiLimits.patchOperations,
    maxDepth: aguiLimits.jsonDepth,
    maxChars: aguiLimits.stateChars,
  });
  if (!result.ok) {
    draft.note(result.code, `A state patch was refused (operation ${result.operationIndex}: ${result.message}); the state is unchanged.`);
    return;
  }
  draft.view.state = result.document;
}

/* activity messages ------------------------------------------------------------------------------ */

export function activitySnapshot(draft: Draft, event: EventOf<EventType.ACTIVITY_SNAPSHOT>): void {
  const measure = measureJson(event.content, { maxDepth: aguiLimits.jsonDepth, maxChars: aguiLimits.activityChars });
  if (!measure.ok) {
    draft.note('activity_too_large', `An activity snapshot that is ${measure.message} was ignored.`);
    return;
  }
  const content = event.content as JsonObject;
  const activityType = truncate(event.activityType, aguiLimits.nameChars);
  const found = draft.find('activity', event.messageId);
  if (found) {
    if (laneConflict(found.item.subagentRunId, event.subagentRunId)) {
      draft.note('subagent_mismatch', `Activity "${event.messageId}" belongs to another subagent; the snapshot was ignored.`);
      return;
    }
    // `replace: false` asks to keep what is there (AG-UI 1.0: absent means replace).
    if (event.replace === false) return;
    draft.replace(found.index, { ...found.item, activityType, content });
    return;
  }
  draft.put(withLane({ kind: 'activity' as const, id: event.messageId, activityType, content }, event.subagentRunId));
}

export function activityDelta(draft: Draft, event: EventOf<EventType.ACTIVITY_DELTA>): void {
  const found = draft.claim('activity', event.messageId, event.subagentRunId, {
    unknown: ['activity_unknown_message', `A patch for unknown activity "${event.messageId}" was ignored.`],
    mismatch: `A patch for activity "${event.messageId}" from another subagent was ignored.`,
  });
  if (!found) return;
  const result = applyJsonPatch(found.item.content, event.patch as PatchOperation[], {
    maxOperations: aguiLimits.patchOperations,
    maxDepth: aguiLimits.jsonDepth,
    maxChars: aguiLimits.activityChars,
  });
  if (!result.ok) {
    draft.note(result.code, `A patch for activity "${event.messageId}" was refused (operation ${result.operationIndex}: ${result.message}); it is unchanged.`);
    return;
  }
  if (!isPlainObject(result.document)) {
    draft.note('activity_not_object', `A patch would make activity "${event.messageId}" something other than an object; refused.`);
    return;
  }
  draft.replace(found.index, { ...found.item, activityType: truncate(event.activityType, aguiLimits.nameChars), content: result.document as JsonObject });
}

/* CUSTOM events of a known namespace ---------------------------------------------------------------- */

export function custom(draft: Draft, event: EventOf<EventType.CUSTOM>, namespaces: readonly CustomNamespace[]): void {
  const namespace = findCustomNamespace(event.name, namespaces);
  if (!namespace) return; // Unknown namespaces are ignored (AG-UI: anything done with CUSTOM is outside the protocol).
  let rendering;
  try {
    rendering = namespace.render(event.name, event.value);
  } catch {
    rendering = undefined;
  }
  if (!rendering) {
    draft.note('custom_invalid', `A "${truncate(event.name, 80)}" event with an unexpected value was ignored.`);
    return;
  }
  const id =
    typeof rendering.key === 'string'
      ? `${truncate(namespace.namespace, 100)}:${truncate(rendering.key, customLimits.keyChars)}`
      : `${truncate(event.name, aguiLimits.nameChars)}#${draft.eventCount}`;
  draft.put(
    withLane(
      {
        kind: 'custom' as const,
        id,
        namespace: truncate(namespace.namespace, 100),
        label: truncate(namespace.label, 100),
        name: truncate(event.name, aguiLimits.nameChars),
        title: truncate(String(rendering.title), customLimits.titleChars),
        ...(typeof rendering.text === 'string' ? { text: truncate(rendering.text, customLimits.textChars) } : {}),
        ...(typeof rendering.json === 'string' ? { json: truncate(rendering.json, customLimits.jsonChars) } : {}),
      },
      event.subagentRunId,
    ),
  );
}
