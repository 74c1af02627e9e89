import { contract, eventChannel, type EventName, type EventPayload } from '../../shared/ipc/contract';
import type { Logger } from '../platform/logger';

/** Something that delivers an event to one page: an Electron webContents or a web-shell socket. */
export type EventSink = (channel: string, payload: unknown) => void;

/** Fans events out to every connected page, after checking them against the contract. */
export class EventBus {
  private readonly sinks = new Set<EventSink>();
  private readonly observers = new Map<EventName, Set<(payload: never) => void>>();

  constructor(private readonly log: Logger) {}

  connect(sink: EventSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /**
   * Main's own listener of an event (the conversation service follows the protocols' events this
   * way): called with the checked payload before any page gets it.
   */
  observe<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    let set = this.observers.get(event);
    if (set === undefined) this.observers.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    const checked = contract.events[event].safeParse(payload);
    if (!checked.success) {
      this.log.error('ipc', `event ${event} not sent: it does not match the contract`);
      return;
    }
    for (const observer of this.observers.get(event) ?? []) {
      try {
        (observer as (payload: EventPayload<E>) => void)(checked.data as EventPayload<E>);
      } catch (error) {
        this.log.error('ipc', `a listener of ${event} in main failed`, error);
      }
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
