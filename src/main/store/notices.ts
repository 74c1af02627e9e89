import { boundedNotice, noticeLimits, type Notice } from '../../shared/ipc/notices';
import type { EventBus } from '../ipc/event-bus';
import type { Logger } from '../platform/logger';

export type { Notice } from '../../shared/ipc/notices';
export { noticeLimits } from '../../shared/ipc/notices';

/** Where a service reports something the user must know that is not the answer to their call. */
export interface NoticeSink {
  push(notice: Notice): void;
}

/**
 * The user's notices: what happened to their saved files (moved aside, from a newer AgentDesk,
 * not saved) and what start-up found (no keychain). Each is a code with parameters (the renderer
 * says it in the user's language) and main's English text. Each is logged, kept for `app.info`
 * (the renderer shows those it finds at start) and sent as an `app.notice` event (for those that
 * come later, such as a background save that failed). The same text is kept and sent once while it
 * is listed, so a save failing again and again does not flood the user; the newest 20 are kept.
 */
export class Notices implements NoticeSink {
  private readonly kept: Notice[] = [];

  constructor(
    private readonly log?: Logger,
    private readonly events?: EventBus,
  ) {}

  push(notice: Notice): void {
    const bounded = boundedNotice(notice);
    if (this.kept.some((kept) => kept.message === bounded.message)) return;
    this.kept.push(bounded);
    if (this.kept.length > noticeLimits.kept) this.kept.splice(0, this.kept.length - noticeLimits.kept);
    this.log?.warn('notice', bounded.message);
    this.events?.emit('app.notice', bounded);
  }

  list(): Notice[] {
    return [...this.kept];
  }
}
