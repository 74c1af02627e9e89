import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/main/ipc/event-bus';
import { Notices, noticeLimits, type Notice } from '../../../src/main/store/notices';
import { memoryLogger } from '../../support/logger';

const diskFull: Notice = {
  code: 'conversation_not_saved',
  detail: 'settings.json could not be saved: the disk is full (ENOSPC).',
  message: 'The conversation is kept until AgentDesk closes, but not on disk: settings.json could not be saved: the disk is full (ENOSPC).',
};

describe('Notices', () => {
  it('logs, keeps and sends each notice once while it is kept (code, parameters and text), bounded in length and number', () => {
    const log = memoryLogger();
    const events = new EventBus(log);
    const sent: unknown[] = [];
    events.connect((channel, payload) => sent.push([channel, payload]));
    const notices = new Notices(log, events);
    notices.push(diskFull);
    notices.push(diskFull);
    expect(notices.list()).toEqual([diskFull]);
    expect(sent).toEqual([['agentdesk:event:app.notice', diskFull]]);
    expect(log.lines.filter((line) => line.includes('WARN [notice]'))).toHaveLength(1);

    const long = 'x'.repeat(5000);
    notices.push({ code: 'file_moved_aside', params: { file: 'settings.json', aside: `/tmp/${long}` }, detail: long, message: long });
    const kept = notices.list()[1]!;
    expect(kept.message).toHaveLength(noticeLimits.chars);
    expect(kept.detail).toHaveLength(noticeLimits.detail);
    expect(kept.params?.aside).toHaveLength(noticeLimits.param);
    expect(kept.params?.file).toBe('settings.json');
    for (let index = 0; index < 30; index++) notices.push({ code: 'keychain_memory', message: `notice ${index.toString()}` });
    expect(notices.list()).toHaveLength(noticeLimits.kept);
    expect(notices.list().at(-1)?.message).toBe('notice 29');
    // Every one sent matched the contract (the bus drops and logs any that does not).
    expect(sent).toHaveLength(32);
  });
});
