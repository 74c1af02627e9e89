import { describe, expect, it, vi } from 'vitest';
import { createDispatcher, type Handlers } from '../../../src/main/ipc/dispatcher';
import { gestureMessage, methodNames, type MethodName } from '../../../src/shared/ipc/contract';
import { ServiceError } from '../../../src/shared/base/errors';
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
    for (const channel of [
      'agentdesk:shell.exec',
      'agentdesk:__proto__',
      'agentdesk:constructor',
      'settings.get',
      'other:settings.get',
      'agentdesk:x\nINFO forged',
    ]) {
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

describe('user gestures, checked once in the dispatcher', () => {
  it('marks exactly the methods that act for the user in the contract', () => {
    expect(methodNames.filter((method) => gestureMessage(method) !== undefined).sort()).toEqual(
      [
        'agentcall.answerProposal',
        'agentcall.callOffer',
        'agentcall.confirmRecipe',
        'agentcall.sendObservation',
        'diagnostics.save',
        'agui.resume',
        'external.open',
        'nfc.arm',
        'policy.unlockAdmin',
        'talkie.decide',
        'talkie.download',
        'talkie.openSignInLink',
        'talkie.voiceStart',
        'speech.importModel',
        'speech.removeModel',
      ].sort(),
    );
    // A decision spoken in a voice call has no click: main binds it to the live call instead (voice-service.ts).
    expect(gestureMessage('talkie.voiceDecide')).toBeUndefined();
  });

  it('refuses a gesture method without a gesture (the handler never runs) and lets it through with one', async () => {
    const open = vi.fn(() => ({ opened: true as const }));
    const dispatcher = createDispatcher(handlersWith({ 'external.open': open }), memoryLogger());
    const asked = vi.fn(() => false);
    expect(await dispatcher.dispatch('agentdesk:external.open', { url: 'https://example.com/' }, { hasRecentUserGesture: asked })).toEqual({
      ok: false,
      error: { code: 'no_user_gesture', message: 'Links open only when you click or press a key on them.' },
    });
    expect(asked).toHaveBeenCalledOnce();
    expect(open).not.toHaveBeenCalled();
    expect(await dispatcher.dispatch('agentdesk:external.open', { url: 'https://example.com/' }, { hasRecentUserGesture: () => true })).toEqual({
      ok: true,
      value: { opened: true },
    });
    expect(open).toHaveBeenCalledOnce();
  });

  it('refuses every gesture method with its own message, and never asks about the gesture for the others', async () => {
    const handlers = handlersWith({});
    const dispatcher = createDispatcher(handlers, memoryLogger());
    const payloads: Partial<Record<MethodName, unknown>> = {
      'external.open': { url: 'https://example.com/' },
      'nfc.arm': {},
      'agui.resume': { agentId: 'a', answers: {} },
      'agentcall.sendObservation': { sessionKey: 'k', photoId: 'A'.repeat(22) },
      'agentcall.answerProposal': { sessionKey: 'k', proposalId: 'p', answer: 'confirm' },
      'agentcall.confirmRecipe': { sessionKey: 'k', passportId: 'passport-1', recipeId: 'restart' },
      'talkie.download': { agentId: 'a', downloadId: 'd', url: '/f', name: 'f.txt' },
      'talkie.decide': { agentId: 'a', actionId: 'x', decision: 'confirm' },
      'talkie.openSignInLink': { agentId: 'a' },
      'talkie.voiceStart': { agentId: 'a' },
    };
    for (const [method, payload] of Object.entries(payloads) as [MethodName, unknown][]) {
      const result = await dispatcher.dispatch(`agentdesk:${method}`, payload, { hasRecentUserGesture: () => false });
      expect(result, method).toEqual({ ok: false, error: { code: 'no_user_gesture', message: gestureMessage(method) } });
    }
    for (const handler of Object.values(handlers)) expect(handler).not.toHaveBeenCalled();

    const asked = vi.fn(() => false);
    const plain = createDispatcher(handlersWith({ 'settings.get': () => defaultSettings }), memoryLogger());
    expect(await plain.dispatch('agentdesk:settings.get', {}, { hasRecentUserGesture: asked })).toMatchObject({ ok: true });
    expect(asked).not.toHaveBeenCalled();
  });
});
