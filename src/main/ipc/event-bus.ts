import { contract, eventChannel, type EventName, type EventPayload } from '../../shared/ipc/contract';
import type { Logger } from '../platform/logger';

/** Something that delivers an event to one page: an Electron webContents or a web-shell socket. */
export type EventSink = (channel: string, payload: unknown) => void;

/** Fans events out to every connected page, after checking them against the contract. */
export class EventBus {
  private readonly sinks = new Set<EventSink>();

  constructor(private readonly log: Logger) {}

  connect(sink: EventSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    const checked = contract.events[event].safeParse(payload);
    if (!checked.success) {
      this.log.error('ipc', `event ${event} not sent: it does not match the contract`);
      return;
    }
    const channel = eventChannel(event);
    for (const sink of this.sinks) {
      try {
        sink(channel, checked.data);
      } catch (error) {
        this.log.warn('ipc', `event ${event} could not be delivered to one page`, error);
      }
    }
  }
}
