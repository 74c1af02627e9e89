import { z } from 'zod';

/**
 * What the renderer keeps in main's memory so that a reload of the page or a crash of the renderer
 * process loses nothing the user was doing: the open screen (which agent, which Talkie thread) and
 * the text typed in each composer. Main holds it in memory only (never on disk: drafts are private)
 * for as long as it runs; a restart of the app starts from Home with empty composers.
 */

/** A draft longer than this keeps its first 64 Ki characters (the composer itself still holds the whole text). */
export const maxDraftChars = 65_536;
/** Drafts main keeps at most; the one written longest ago goes first. */
export const maxDrafts = 32;

const agentId = z.string().min(1).max(64);
/** One composer: `talkie:<agentId>`, `agentcall:<agentId>`, `agui:<agentId>`. */
export const draftKeySchema = z.string().min(1).max(100);

export const uiScreenSchema = z.discriminatedUnion('name', [
  z.strictObject({ name: z.literal('home') }),
  z.strictObject({ name: z.literal('settings') }),
  z.strictObject({
    name: z.literal('chat'),
    agentId,
    label: z.string().max(2100),
    protocol: z.enum(['talkie', 'agentcall', 'agui']).optional(),
    /** The Talkie thread that was open (none: a new chat). */
    threadId: z.string().min(1).max(200).optional(),
  }),
]);
export type UiScreen = z.infer<typeof uiScreenSchema>;

const saved = z.strictObject({ saved: z.literal(true) });

export const uiMemoryMethods = {
  /** What the renderer left in main before it was reloaded or crashed (nothing after an app start). */
  'ui.restore': {
    request: z.strictObject({}),
    response: z.strictObject({
      screen: uiScreenSchema.optional(),
      drafts: z.array(z.strictObject({ key: draftKeySchema, text: z.string().min(1).max(maxDraftChars) })).max(maxDrafts),
    }),
  },
  'ui.saveScreen': { request: z.strictObject({ screen: uiScreenSchema }), response: saved },
  /** The composer's text (debounced by the renderer); empty text forgets the draft. */
  'ui.saveDraft': { request: z.strictObject({ key: draftKeySchema, text: z.string().max(maxDraftChars) }), response: saved },
} as const;
