import { describe, expect, it, vi } from 'vitest';
import { createDispatcher, type Handlers } from '../../../src/main/ipc/dispatcher';
import { methodNames } from '../../../src/shared/ipc/contract';
import { ServiceError } from '../../../src/shared/ipc/errors';
import { defaultSettings } from '../../../src/shared/settings/settings';
import { memoryLogger } from '../../support/logger';

const context = { hasRecentUserGesture: () => true };

function handlersWith(overrides: Partial<Handlers>): Handlers {
  const unexpected = () => {
    throw new Error('not part of this test');
  };
  const all = Object.fromEntries(methodNames.map((method) => [method, vi.fn(unexpected)])) as unknown as Handlers;
  return { ...all, ...overrides };
}

describe('the main-side dispatcher', () => {
  it('refuses a malformed payload with a clear error and never calls the service', async () => {
    const add = vi.fn();
    const dispatcher = createDispatcher(handlersWith({ 'agents.add': add }), memoryLogger());
    for (const payload of [undefined, null, 'crm.example.com', { address: 42 }, { address: 'x', extra: 1 }, { address: 'x'.repeat(5000) }]) {
      const result = await dispatcher.dispatch('agentdesk:agents.add', payload, context);
      expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringMatching(/^agents\.add: /) } });
    }
    expect(add).not.toHaveBeenCalled();
  });

  it('names the offending field', async () => {
    const dispatcher = createDispatcher(handlersWith({}), memoryLogger());
    const result = await dispatcher.dispatch('agentdesk:settings.update', { patch: { appearance: { theme: 'neon' } } }, context);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request', path: '/patch/appearance/theme' } });
  });

  it('answers a call on a channel the contract does not declare with unknown_channel, and runs nothing', async () => {
    const handlers = handlersWith({});
    const log = memoryLogger();
    const dispatcher = createDispatcher(handlers, log);
    for (const channel of ['agentdesk:shell.exec', 'agentdesk:__proto__', 'agentdesk:constructor', 'settings.get', 'other:settings.get', 'agentdesk:x\nINFO forged']) {
      expect(await dispatcher.dispatch(channel, {}, context)).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    }
    for (const handler of Object.values(handlers)) expect(handler).not.toHaveBeenCalled();
    expect(log.lines.join('\n')).toContain('undeclared channel');
  });

  it('passes a valid request to the service and returns its answer', async () => {
    const dispatcher = createDispatcher(handlersWith({ 'settings.get': () => defaultSettings }), memoryLogger());
    expect(await dispatcher.dispatch('agentdesk:settings.get', {}, context)).toEqual({ ok: true, value: defaultSettings });
  });

  it('turns a ServiceError into its code and message, and any other failure into a generic one', async () => {
    const dispatcher = createDispatcher(
      handlersWith({
        'agents.remove': () => {
          throw new ServiceError('not_found', 'That agent is no longer in your list.', '/id');
        },
        'agents.list': () => {
          throw new Error('EACCES /home/user/secret-path');
        },
      }),
      memoryLogger(),
    );
    expect(await dispatcher.dispatch('agentdesk:agents.remove', { id: 'a' }, context)).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'That agent is no longer in your list.', path: '/id' },
    });
    const internal = await dispatcher.dispatch('agentdesk:agents.list', {}, context);
    expect(internal).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(JSON.stringify(internal)).not.toContain('secret-path');
  });

  it('refuses answers that carry fields the contract does not declare, so a secret cannot ride along', async () => {
    const leaky = { ...defaultSettings, accessToken: 'tok_secret' };
    const dispatcher = createDispatcher(handlersWith({ 'settings.get': () => leaky }), memoryLogger());
    const result = await dispatcher.dispatch('agentdesk:settings.get', {}, context);
    // Strict response schemas refuse the unknown key outright rather than forwarding it.
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_response' } });
    expect(JSON.stringify(result)).not.toContain('tok_secret');
  });
});
