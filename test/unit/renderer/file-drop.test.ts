import { createEvent, fireEvent } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { installFileDropGuard } from '../../../src/renderer/hooks/useWindowFileDrop';

let uninstall: (() => void) | undefined;
afterEach(() => {
  uninstall?.();
  uninstall = undefined;
});

function dragEvent(type: 'dragOver' | 'drop', types: string[], prevented = false) {
  const dataTransfer = { types, files: [], dropEffect: 'move' };
  const event = createEvent[type](document.body, { dataTransfer });
  if (prevented) event.preventDefault();
  return { event, dataTransfer };
}

describe('installFileDropGuard: a file dropped where nothing takes it does not replace the page', () => {
  it('a file drop anywhere is cancelled (Chromium would otherwise open the file in place of the app)', () => {
    uninstall = installFileDropGuard(window);
    const { event } = dragEvent('drop', ['Files']);
    fireEvent(document.body, event);
    expect(event.defaultPrevented).toBe(true);
  });

  it('a file dragged over a place that takes none shows "no drop"; a drop zone that took it keeps its own effect', () => {
    uninstall = installFileDropGuard(window);
    const nowhere = dragEvent('dragOver', ['Files']);
    fireEvent(document.body, nowhere.event);
    expect(nowhere.event.defaultPrevented).toBe(true);
    expect(nowhere.dataTransfer.dropEffect).toBe('none');
    const zone = dragEvent('dragOver', ['Files'], true);
    zone.dataTransfer.dropEffect = 'copy';
    fireEvent(document.body, zone.event);
    expect(zone.dataTransfer.dropEffect).toBe('copy');
  });

  it('text and links being dragged are left alone, and nothing is guarded before it is installed', () => {
    const before = dragEvent('drop', ['Files']);
    fireEvent(document.body, before.event);
    expect(before.event.defaultPrevented).toBe(false);
    uninstall = installFileDropGuard(window);
    const text = dragEvent('drop', ['text/plain', 'text/uri-list']);
    fireEvent(document.body, text.event);
    expect(text.event.defaultPrevented).toBe(false);
  });
});
