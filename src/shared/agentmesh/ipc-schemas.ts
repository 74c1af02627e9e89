import { z } from 'zod';

/** An agent's web pages (AgentMesh UI links) as the "Web pages" panel shows them. */
export const uiLinkSchema = z.strictObject({
  url: z.string().max(2048),
  label: z.string().max(200),
  purpose: z.string().max(400).optional(),
  audience: z.enum(['public', 'client', 'operator', 'unstated']),
  access: z.enum(['open', 'authenticated']).optional(),
  kind: z.string().max(100).optional(),
  skill: z.string().max(300).optional(),
  crossOrigin: z.boolean(),
  shownByDefault: z.boolean(),
  notes: z.array(z.string().max(500)).max(20),
  path: z.string().max(200),
});

export const webPagesSchema = z.strictObject({
  /** Where the card was read (its origin is what crossOrigin compares against); absent when the agent has no card. */
  cardUrl: z.string().max(2048).optional(),
  links: z.array(uiLinkSchema).max(100),
  problems: z.array(z.strictObject({ code: z.string().max(64), path: z.string().max(300), message: z.string().max(500) })).max(101),
});
export type WebPages = z.infer<typeof webPagesSchema>;
