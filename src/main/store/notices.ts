import type { EventBus } from '../ipc/event-bus';
import type { Logger } from '../platform/logger';

/** Where a service reports something the user must know that is not the answer to their call. */
export interface NoticeSink {
  push(notice: string): void;
}

export const noticeLimits = { kept: 20, chars: 1000 } as const;

/**
 * The user's notices: what happened to their saved files (moved aside, from a newer AgentDesk,
 * not saved) and what start-up found (no keychain). Each is logged, kept for `app.info` (the
 * renderer shows those it finds at start) and sent as an `app.notice` event (for those that come
 * later, such as a background save that failed). The same text is kept and sent once while it is
 * listed, so a save failing again and again does not flood the user; the newest 20 are kept.
 */
export class Notices implements NoticeSink {
  private readonly kept: string[] = [];

  constructor(
    private readonly log?: Logger,
    private readonly events?: EventBus,
  ) {}

  push(notice: string): void {
    const text = notice.length > noticeLimits.chars ? `${notice.slice(0, noticeLimits.chars - 1)}…` : notice;
    if (this.kept.includes(text)) return;
    this.kept.push(text);
    if (this.kept.length > noticeLimits.kept) this.kept.splice(0, this.kept.length - noticeLimits.kept);
    this.log?.warn('notice', text);
    this.events?.emit('app.notice', { message: text });
  }

  list(): string[] {
    return [...this.kept];
  }
}
