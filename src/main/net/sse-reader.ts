import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { GuardedResponse } from './guarded-fetch';

/**
 * Reads a Server-Sent Events body (a GuardedResponse's stream) with the full SSE grammar
 * (eventsource-parser: "\n", "\r\n" and "\r" line ends, so both "\n\n" and "\r\n\r\n" framing;
 * comments such as heartbeats and unknown fields are ignored) and hands each complete event to
 * `onEvent`, in order. Used by Talkie runs and plain AG-UI runs.
 *
 * Bounded: what the parser holds for the event being read (its data so far and the unfinished line)
 * is capped at `maxEventBytes` (eventsource-parser's maxBufferSize, counted in decoded characters,
 * which are bytes for ASCII JSON); past it the response is cancelled and the read ends with
 * `too_large` (an endless or huge event is an error, not a hang or a memory spike). Comments such as
 * heartbeats and blank lines are never held, so a long stream kept alive by them is fine. The body
 * is fed in slices, so one event handed on is at most a slice (64 KiB) past the cap. The idle
 * timeout is the response's own (set on the request). Never throws: every way the read ends is an
 * SseEnd.
 */
export type SseEnd =
  /** `onEvent` returned 'stop' (the caller has what it needs); the response was cancelled. */
  | { kind: 'stopped' }
  /** The server closed the stream. */
  | { kind: 'ended' }
  /** One event was larger than `maxEventBytes`; the response was cancelled. */
  | { kind: 'too_large'; maxEventBytes: number }
  /** Reading failed (connection lost, idle timeout, the request's signal aborted). */
  | { kind: 'failed'; error: unknown };

export interface SseReadOptions {
  maxEventBytes: number;
  /** Called for each line the SSE grammar does not know (a field name other than data/event/id/retry); bounded by the caller. */
  onUnknownLine?: () => void;
}

const feedSliceBytes = 64 * 1024;

export async function readSse(response: GuardedResponse, onEvent: (message: EventSourceMessage) => 'stop' | void, options: SseReadOptions): Promise<SseEnd> {
  let stop = false;
  let tooLarge = false;
  const parser = createParser({
    maxBufferSize: options.maxEventBytes,
    onEvent: (message) => {
      if (stop || tooLarge) return;
      if (onEvent(message) === 'stop') stop = true;
    },
    onError: (error) => {
      if (error.type === 'unknown-field') options.onUnknownLine?.();
      if (error.type === 'max-buffer-size-exceeded') tooLarge = true;
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.stream()) {
      // Feed in slices: a line that spans slices is held by the parser, which checks the cap as it grows.
      for (let offset = 0; offset < chunk.byteLength; offset += feedSliceBytes) {
        const slice = chunk.subarray(offset, offset + feedSliceBytes);
        parser.feed(decoder.decode(slice, { stream: true }));
        // Stop first: the parser hands on nothing after an overflow, so a stop came before it.
        if (stop) {
          response.cancel();
          return { kind: 'stopped' };
        }
        if (tooLarge) {
          response.cancel();
          return { kind: 'too_large', maxEventBytes: options.maxEventBytes };
        }
      }
    }
  } catch (error) {
    return { kind: 'failed', error };
  }
  return { kind: 'ended' };
}
