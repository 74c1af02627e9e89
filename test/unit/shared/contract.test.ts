import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { contract, eventChannel, eventNames, methodChannel, methodForChannel, methodNames } from '../../../src/shared/ipc/contract';

describe('the IPC contract', () => {
  it('names every method and event namespace.member, so the API shape can be derived from it', () => {
    for (const name of [...methodNames, ...eventNames]) expect(name).toMatch(/^[a-z]+\.[a-z][a-zA-Z]*$/);
  });

  it('prefixes every channel with agentdesk:', () => {
    for (const method of methodNames) expect(methodChannel(method)).toBe(`agentdesk:${method}`);
    for (const event of eventNames) expect(eventChannel(event)).toBe(`agentdesk:event:${event}`);
  });

  it('finds methods only for declared channels, never for inherited or foreign names', () => {
    expect(methodForChannel('agentdesk:settings.get')).toBe('settings.get');
    for (const channel of [
      'agentdesk:constructor',
      'agentdesk:__proto__',
      'agentdesk:toString',
      'settings.get',
      'agentdesk:settings.nope',
      'agentdesk:event:settings.changed',
      '',
    ]) {
      expect(methodForChannel(channel)).toBeUndefined();
    }
  });

  it('declares strict request schemas: unknown keys are refused, not ignored', () => {
    for (const method of methodNames) {
      const request = contract.methods[method].request as z.ZodType;
      expect(request.safeParse({ unexpected: true }).success, method).toBe(false);
    }
  });
});
