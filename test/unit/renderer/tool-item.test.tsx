import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ItemOfKind } from '../../../src/shared/conversation/items';
import type { DevicePolicyStatus } from '../../../src/shared/device-policy/ipc-schemas';
import { ToolItem } from '../../../src/renderer/conversation/items/ToolItem';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { PolicyContext } from '../../../src/renderer/kiosk/policy-context';

/**
 * A tool line: in words, with its name where the agent gave no label. On a kiosk (issue #27) a visitor
 * sees no identifier ("iac_plan"), no raw error and no Details: only what the agent did, in words.
 */
const kiosk: DevicePolicyStatus = {
  state: 'active',
  file: '/etc/agentdesk/policy.json',
  kiosk: true,
  agentsLocked: true,
  forced: [],
  camera: true,
  voice: true,
  adminPin: true,
};

function tool(state: ItemOfKind<'tool'>['state'], extra: Partial<ItemOfKind<'tool'>> = {}): ItemOfKind<'tool'> {
  return { kind: 'tool', id: `t-${state}`, name: 'iac_plan', state, args: '{\n  "cwd": "/srv"\n}', ...extra } as ItemOfKind<'tool'>;
}

function renderTool(item: ItemOfKind<'tool'>, policy: DevicePolicyStatus, language: 'en' | 'cs' = 'en') {
  return render(
    <PolicyContext.Provider value={policy}>
      <I18nProvider setting={language}>
        <ToolItem item={item} />
      </I18nProvider>
    </PolicyContext.Provider>,
  );
}

describe('a tool line', () => {
  it('names the tool on a workstation, with what it was given behind Details', () => {
    const { container } = renderTool(tool('done'), { state: 'none' });
    expect(container.textContent).toContain('Used iac_plan');
    expect(container.querySelector('details')).not.toBeNull();
  });

  it.each([
    ['en', 'running', 'Using a tool…'],
    ['en', 'done', 'Used a tool'],
    ['en', 'cancelled', 'Stopped a tool'],
    ['en', 'failed', 'A tool failed'],
    ['cs', 'done', 'Použil nástroj'],
    ['cs', 'cancelled', 'Nástroj zastaven'],
  ] as const)('on a kiosk (%s) says "%s" as "%s": no identifier, no error text, no Details', (language, state, words) => {
    const { container, unmount } = renderTool(tool(state, state === 'failed' ? { error: 'ENOENT: /srv/plan.tf' } : {}), kiosk, language);
    expect(screen.getByText(words)).toBeTruthy();
    expect(container.textContent).not.toMatch(/iac_plan|ENOENT|cwd/);
    expect(container.querySelector('details')).toBeNull();
    unmount();
  });

  it('on a kiosk keeps the label the agent wrote for people', () => {
    const { container } = renderTool(tool('done', { label: 'Planning the change…' }), kiosk);
    expect(container.textContent).toContain('Finished planning the change');
  });
});
