import { useEffect, useRef, useState } from 'react';

/** True when a drag carries files (not text, a link or a part of the page). */
export function dragHasFiles(event: DragEvent): boolean {
  return event.dataTransfer !== null && Array.from(event.dataTransfer.types).includes('Files');
}

/**
 * Keeps the page when a file is dropped where nothing takes it. Chromium's default for a dropped
 * file is to open it in place of the page: in the web shell that would leave AgentDesk (Electron's
 * windows refuse that navigation already, see electron/security.ts). A drop zone that takes files
 * calls preventDefault in its own dragover; everywhere else the drag shows "no drop".
 * Installed once, before the first render; returns the uninstaller (for tests).
 */
export function installFileDropGuard(target: Window = window): () => void {
  const onDragOver = (event: DragEvent) => {
    if (!dragHasFiles(event) || event.defaultPrevented) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'none';
  };
  const onDrop = (event: DragEvent) => {
    if (dragHasFiles(event)) event.preventDefault();
  };
  target.addEventListener('dragover', onDragOver);
  target.addEventListener('drop', onDrop);
  return () => {
    target.removeEventListener('dragover', onDragOver);
    target.removeEventListener('drop', onDrop);
  };
}

/**
 * Files dragged anywhere onto the page: returns true while such a drag is over it, and hands the
 * first dropped file to `onFile`. Listens on the document, so a drop zone inside the page (the
 * photo dialog's) that stops the event keeps it; `enabled: false` listens to nothing.
 */
export function useWindowFileDrop(enabled: boolean, onFile: (file: File) => void): boolean {
  const [dragging, setDragging] = useState(false);
  const latest = useRef(onFile);
  useEffect(() => {
    latest.current = onFile;
  });

  useEffect(() => {
    if (!enabled) return undefined;
    // dragenter/dragleave fire for every element crossed: count them to know when the drag left.
    let depth = 0;
    const onEnter = (event: DragEvent) => {
      if (!dragHasFiles(event)) return;
      depth++;
      setDragging(true);
    };
    const onLeave = (event: DragEvent) => {
      if (!dragHasFiles(event)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const onOver = (event: DragEvent) => {
      if (!dragHasFiles(event) || event.defaultPrevented) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    };
    const onDrop = (event: DragEvent) => {
      depth = 0;
      setDragging(false);
      if (!dragHasFiles(event) || event.defaultPrevented) return;
      event.preventDefault();
      const file = event.dataTransfer?.files[0];
      if (file) latest.current(file);
    };
    document.addEventListener('dragenter', onEnter);
    document.addEventListener('dragleave', onLeave);
    document.addEventListener('dragover', onOver);
    document.addEventListener('drop', onDrop);
    return () => {
      document.removeEventListener('dragenter', onEnter);
      document.removeEventListener('dragleave', onLeave);
      document.removeEventListener('dragover', onOver);
      document.removeEventListener('drop', onDrop);
      setDragging(false);
    };
  }, [enabled]);

  return enabled && dragging;
}
