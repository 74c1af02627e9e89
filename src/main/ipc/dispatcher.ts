import type { z } from 'zod';
import { contract, gestureMessage, methodForChannel, type MethodName, type MethodResponse } from '../../shared/ipc/contract';
import { fail, ok, ServiceError, type IpcResult } from '../../shared/base/errors';
import type { Logger } from '../platform/logger';

/** What the shell (Electron or web) knows about the caller of one method. */
export interface CallContext {
  /**
   * True when this call comes from the user's own click or key press: Electron, an input event
   * main saw in the window within the last few seconds; the web shell, the page's transient user
   * activation when it made this call. Asked only for methods the contract marks `gesture`.
   */
  hasRecentUserGesture(): boolean;
}

/** One handler per method; the dispatcher has already validated the request and, where the contract asks, the user's gesture. */
export type Handlers = {
  [M in MethodName]: (request: z.output<(typeof contract.methods)[M]['request']>) => Promise<MethodResponse<M>> | MethodResponse<M>;
};

export interface Dispatcher {
  /**
   * Runs the handler for `channel` with `payload`. Always an IpcResult, never a throw; a channel the
   * contract does not declare gets `unknown_channel` and nothing runs.
   */
  dispatch(channel: string, payload: unknown, context: CallContext): Promise<IpcResult<unknown>>;
}

export function createDispatcher(handlers: Handlers, log: Logger): Dispatcher {
  return {
    dispatch(channel, payload, context) {
      const method = methodForChannel(channel);
      if (method === undefined) {
        log.warn('ipc', `refused a call on an undeclared channel (${describeChannel(channel)})`);
        return Promise.resolve(fail('unknown_channel', `There is no method on channel "${describeChannel(channel)}".`));
      }
      return run(method, payload, context);
    },
  };

  async function run(method: MethodName, payload: unknown, context: CallContext): Promise<IpcResult<unknown>> {
    const spec = contract.methods[method];
    const parsed = spec.request.safeParse(payload);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue ? `/${issue.path.map(String).join('/')}` : '';
      return fail('invalid_request', `${method}: ${issue ? `${path === '/' ? 'request' : path}: ${issue.message}` : 'invalid request'}`, path);
    }
    const gesture = gestureMessage(method);
    if (gesture !== undefined && !context.hasRecentUserGesture()) return fail('no_user_gesture', gesture);
    let value: unknown;
    try {
      const handler = handlers[method] as (request: unknown) => unknown;
      value = await handler(parsed.data);
    } catch (error) {
      if (error instanceof ServiceError) return fail(error.code, error.message, error.path, error.retryable);
      log.error('ipc', `${method} failed`, error);
      return fail('internal', `${method} failed unexpectedly. Details are in the app log.`);
    }
    const checked = spec.response.safeParse(value);
    if (!checked.success) {
      log.error('ipc', `${method} answered outside the contract: ${checked.error.issues[0]?.message ?? ''}`);
      return fail('invalid_response', `${method} answered with data the app does not accept.`);
    }
    return ok(checked.data);
  }
}

function describeChannel(channel: string): string {
  return channel.length > 80 ? `${channel.slice(0, 77)}…` : channel;
}
