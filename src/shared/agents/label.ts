import { ServiceError } from '../base/errors';

/** The longest name a user may give an agent (Rename), in characters. */
export const agentLabelMaxLength = 100;

/** Control characters and bidi overrides/isolates: nothing a name needs, and a name must not reorder the text around it. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const unwanted = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The user's name for an agent as it is saved: one line (any run of white space, line breaks too,
 * becomes one space), trimmed, without control or bidi characters, 1 to 100 characters. An empty
 * name, or a longer one, is refused with a sentence for people (`invalid_request` at `/name`).
 */
export function normalizeAgentLabel(input: string): string {
  const name = input.replace(/\s+/gu, ' ').replace(unwanted, '').trim();
  if (name === '') throw new ServiceError('invalid_request', 'Type a name for the agent.', '/name');
  if (name.length > agentLabelMaxLength) throw new ServiceError('invalid_request', `A name can be at most ${agentLabelMaxLength} characters long.`, '/name');
  return name;
}

/** What the lists call an agent: the name the user gave it, else its card's name, else its address. */
export function agentTitle(agent: { label?: string | undefined; name?: string | undefined; display: string }): string {
  return agent.label ?? agent.name ?? agent.display;
}
