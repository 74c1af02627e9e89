import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/main/ipc/event-bus';
import { Notices, noticeLimits } from '../../../src/main/store/notices';
import { memoryLogger } from '../../support/logger';

describe('Notices', () => {
  it('logs, keeps and sends each notice once while it is kept, bounded in length and number', () => {
    const log = memoryLogger();
    const events = new EventBus(log);
    const sent: unknown[] = [];
    events.connect((channel, payload) => sent.push([channel, payload]));
    const notices = new Notices(log, events);
    notices.push('settings.json could not be saved: the disk is full (ENOSPC).');
    notices.push('settings.json could not be saved: the disk is full (ENOSPC).');
    expect(notices.list()).toEqual(['settings.json could not be saved: the disk is full (ENOSPC).']);
    expect(sent).toEqual([['agentdesk:event:app.notice', { message: 'settings.json could not be saved: the disk is full (ENOSPC).' }]]);
    expect(log.lines.filter((line) => line.includes('WARN [notice]'))).toHaveLength(1);

    const long = 'x'.repeat(5000);
    notices.push(long);
    expect(notices.list()[1]).toHaveLength(noticeLimits.chars);
    for (let index = 0; index < 30; index++) notices.push(`notice ${index.toString()}`);
    expect(notices.list()).toHaveLength(noticeLimits.kept);
    expect(notices.list().at(-1)).toBe('notice 29');
    // Every one sent matched the contract (the bus drops and logs any that does not).
    expect(sent).toHaveLength(32);
  });
});
