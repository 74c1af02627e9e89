import { z } from 'zod';
import { aguiThreadWindowSchema } from './thread-window';

/**
 * What crosses IPC about plain AG-UI servers (an endpoint URL that takes a POST of RunAgentInput
 * and answers with an SSE stream of AG-UI events). Main holds the thread (and saves it, so open
 * interrupts survive a restart), the bearer token (keychain) and the per-server forwardedProps.
 * Main folds, the renderer shows: main folds every raw AG-UI event into its thread, and the page
 * follows the thread as its conversation (`conversation.*`: the thread projected into conversation
 * items, src/shared/conversation/project-agui.ts); no raw event crosses IPC, so what main drops or
 * folds differently can never reach the screen. The page never gets a whole thread: `agui.open`
 * answers with a window of main's (thread-window.ts), and the conversation is windowed by its service.
 */

const agentId = z.string().min(1).max(64);
const runId = z.string().min(1).max(300);
/**
 * The page's window of main's thread (strictly validated: every bound of the run model), less its
 * encrypted values: those never leave main (thread-window.ts windows `shownThread`), and a window that
 * carried them would be refused here.
 */
export const aguiThreadSchema = aguiThreadWindowSchema;

/** The server's settings as the screen shows them. */
export const aguiServerSettingsSchema = z.strictObject({
  /** The POST endpoint. */
  endpoint: z.string().max(2048),
  /** A bearer token is saved for this server (the token itself stays in main). */
  hasToken: z.boolean(),
  /** forwardedProps as the user last saved them, JSON text ("{}" when none). */
  forwardedProps: z.string().max(65_536),
});
export type AguiServerSettings = z.infer<typeof aguiServerSettingsSchema>;

export const aguiServerViewSchema = aguiServerSettingsSchema.extend({ thread: aguiThreadSchema });
export type AguiServerView = z.infer<typeof aguiServerViewSchema>;

/** The agent's threads: the open one first (once it has anything in it), then the earlier ones main keeps, newest first. */
export const aguiThreadListSchema = z.strictObject({
  currentThreadId: z.string().min(1).max(300),
  threads: z
    .array(
      z.strictObject({
        threadId: z.string().min(1).max(300),
        /** The first message of the user's (one line, at most 60 characters); '' when there is none. */
        title: z.string().max(200),
        /** The newest item's time (ms since the epoch), when known. */
        updatedAt: z.number().int().min(0).max(8_640_000_000_000_000).optional(),
      }),
    )
    .max(51),
});
export type AguiThreadList = z.infer<typeof aguiThreadListSchema>;

const threadId = z.string().min(1).max(300);

const answerSchema = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('resolved'), payload: z.unknown().optional() }),
  z.strictObject({ status: z.literal('cancelled') }),
]);

export const aguiMethods = {
  /** The server's thread (restored from disk; its newest window), token state and forwardedProps. */
  'agui.open': { request: z.strictObject({ agentId }), response: aguiServerViewSchema },
  /**
   * Sends user text as a new run on the same thread (new runId; the whole history goes along, as
   * AG-UI expects). Returns at once; the run's changes reach the page through its conversation (`conversation.update`).
   * Refused (`rejected`) while interrupts are open: answer them with `agui.resume`.
   */
  'agui.send': {
    request: z.strictObject({ agentId, messageId: z.string().min(1).max(200), text: z.string().min(1).max(100_000) }),
    response: z.strictObject({ runId }),
  },
  /** Answers every open interrupt (expired ones are cancelled) and runs again with `resume[]`. */
  'agui.resume': {
    request: z.strictObject({ agentId, answers: z.record(z.string().max(300), answerSchema) }),
    response: z.strictObject({ runId }),
    /** An answer (an approval above all) reaches the agent only from the user's own click. */
    gesture: 'Answers are sent only when you click to send them.',
  },
  /** After a dropped stream or a failed request: the same turn again, as a new run. */
  'agui.retry': { request: z.strictObject({ agentId }), response: z.strictObject({ runId }) },
  /** Stops the run's stream (the server sees the client go away). */
  'agui.cancel': { request: z.strictObject({ agentId }), response: z.strictObject({ cancelled: z.boolean() }) },
  /** A fresh thread; the one open is kept among the earlier threads (with its open interrupts), unless it is empty. */
  'agui.newThread': { request: z.strictObject({ agentId }), response: aguiServerViewSchema },
  /** The agent's threads: the open one, then up to 50 earlier ones kept in main, newest first. */
  'agui.threads': { request: z.strictObject({ agentId }), response: aguiThreadListSchema },
  /** Opens an earlier thread: runs continue it from now on; the one open joins the earlier ones. */
  'agui.openThread': { request: z.strictObject({ agentId, threadId }), response: aguiServerViewSchema },
  /** Deletes an earlier thread for good, or empties the open one (a fresh thread takes its place). */
  'agui.deleteThread': { request: z.strictObject({ agentId, threadId }), response: aguiThreadListSchema },
  /** Saves forwardedProps (a JSON object as text); refused with the JSON problem and its path. */
  'agui.setForwardedProps': { request: z.strictObject({ agentId, json: z.string().max(65_536) }), response: aguiServerSettingsSchema },
  /** Saves (or with an empty string, removes) the server's bearer token in the keychain. */
  'agui.useToken': { request: z.strictObject({ agentId, token: z.string().max(8192) }), response: aguiServerSettingsSchema },
} as const;
