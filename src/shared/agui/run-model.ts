/**
 * The plain AG-UI 1.0 run model: a thread's view, folded from the server's events with
 * `applyAguiEvent`. Pure and plain JSON (no Dates, Maps or class instances), so it crosses IPC as
 * is and is persisted with `serializeThread` (thread-persistence.ts) — open interrupts survive a
 * restart.
 *
 * Every event is validated with @ag-ui/core's own zod schemas. An invalid, unknown or out-of-place
 * event never throws: it becomes a protocol note (`view.notes`, stable `code`) and the view is
 * otherwise unchanged. Everything is bounded (`aguiLimits`): a hostile stream cannot grow the
 * view, its text, its state or its patches without end.
 *
 * Unlike Talkie (a stateful server), a plain AG-UI server is stateless: the client keeps the
 * history. `historyMessages(view)` is the `messages` of the next RunAgentInput.
 *
 * The model lives in `run-model/`, one file per concern: `types.ts` (the view and its bounds),
 * `draft.ts` (the copy-on-write working copy every handler changes), `dispatch.ts` (validation and
 * the table from event type to handler), `lifecycle.ts`, `messages-and-chunks.ts`, `tools.ts`,
 * `reasoning.ts`, `encrypted.ts`, `activity-and-state.ts`, `subagents.ts`, `interrupts.ts`, `history.ts` and `budget.ts`
 * (the whole thread within the conversation bounds).
 */
export { applyAguiEvent } from './run-model/dispatch';
export { boundThread } from './run-model/budget';
export { shownThread } from './run-model/encrypted';
export { historyMessages } from './run-model/history';
export { openInterrupts } from './run-model/interrupts';
export { addUserMessage, beginRun, markRequestFailed, markStreamDropped } from './run-model/lifecycle';
export { groupBySubagent, type SubagentGroup } from './run-model/subagents';
export { finishArgs, toolCallArgs } from './run-model/tools';
export {
  aguiLimits,
  createThread,
  type AguiEncryptedValue,
  type AguiItem,
  type AguiNote,
  type AguiOpenChunk,
  type AguiRunState,
  type AguiStep,
  type AguiSubagent,
  type AguiThreadView,
  type ApplyOptions,
  type ArgsStatus,
  type PendingAnswer,
  type TextRole,
  type ToolCallState,
  type ToolResultView,
} from './run-model/types';
