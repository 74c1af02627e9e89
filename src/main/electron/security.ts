import type { MediaKind } from '../../shared/ipc/contract';
import type { MediaPermissions } from '../app/media-permissions';

/**
 * Electron security policies as plain functions and constants, so each checklist item has one
 * place that enforces it and one test that checks it (test/unit/main/electron-app.test.ts).
 */

/** The app page is served over this privileged custom scheme, never file:// (checklist 18). */
export const appScheme = 'app';
export const appHost = 'agentdesk';
export const appOrigin = `${appScheme}://${appHost}`;
export const appEntryUrl = `${appOrigin}/index.html`;

/** Checklist 2, 3, 4, 6, 8, 9, 10, 11: the window's webPreferences, minus the preload path. */
export const secureWebPreferences = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
  spellcheck: false,
} as const;

/** Is this URL on the app's own origin (and not, say, app://agentdesk.evil)? */
export function isAppUrl(url: string | undefined | null): boolean {
  if (!url || !URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.protocol === `${appScheme}:` && parsed.host === appHost;
}

/** Electron's names for requested media, mapped to the kinds the UI arms. */
const mediaKindOf: Readonly<Record<string, MediaKind>> = { video: 'camera', audio: 'microphone' };

/**
 * Checklist 5: permission requests. Only `media` (camera/microphone), only from the app's own
 * origin, and only for kinds the UI has armed right now. Everything else is refused.
 */
export function decidePermissionRequest(
  permission: string,
  requestingUrl: string | undefined,
  mediaTypes: readonly string[] | undefined,
  media: MediaPermissions,
): boolean {
  if (permission !== 'media' || !isAppUrl(requestingUrl)) return false;
  const kinds = (mediaTypes ?? []).map((type) => mediaKindOf[type]);
  if (kinds.length === 0 || kinds.some((kind) => kind === undefined)) return false;
  return media.allows(kinds as MediaKind[]);
}

/** The synchronous permission check Chromium makes before enumerating devices or requesting. */
export function decidePermissionCheck(permission: string, requestingOrigin: string, mediaType: string | undefined, media: MediaPermissions): boolean {
  if (permission !== 'media' || !isAppUrl(requestingOrigin)) return false;
  const kind = mediaType === undefined ? undefined : mediaKindOf[mediaType];
  return kind !== undefined && media.allows([kind]);
}

/** Input events that count as the user acting in the window (for opening links, checklist 15). */
const gestureInputTypes = new Set(['mouseDown', 'mouseUp', 'keyDown', 'rawKeyDown', 'keyUp', 'touchStart', 'touchEnd', 'gestureTap']);
export const userGestureWindowMs = 5000;

export class UserGestureTracker {
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = () => Date.now()) {}

  observe(inputType: string): void {
    if (gestureInputTypes.has(inputType)) this.last = this.now();
  }

  hasRecentGesture(): boolean {
    return this.now() - this.last <= userGestureWindowMs;
  }
}
