/**
 * A set of listeners: `subscribe` returns the unsubscribe function, `emit` calls each one with the
 * same arguments. During an emit the listeners are those subscribed when it began, less any an
 * earlier one unsubscribed (as DOM events do). Subscribing the same function twice keeps one.
 *
 * With `onError`, a listener that throws is reported there and the others still run; without it,
 * the throw reaches the emitter (and the listeners after it are not called).
 */
export class Listeners<T extends unknown[] = []> {
  private readonly listeners = new Set<(...args: T) => void>();

  constructor(private readonly onError?: (error: unknown) => void) {}

  subscribe(listener: (...args: T) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  emit(...args: T): void {
    for (const listener of [...this.listeners]) {
      if (!this.listeners.has(listener)) continue;
      if (!this.onError) {
        listener(...args);
        continue;
      }
      try {
        listener(...args);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  /** Unsubscribes every listener. */
  clear(): void {
    this.listeners.clear();
  }

  get size(): number {
    return this.listeners.size;
  }
}
