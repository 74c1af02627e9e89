import type { TalkieManifest, TalkieServerKey } from '../../shared/talkie/manifest';

/**
 * Sign-in through OAuth as the Talkie service asks for it (implemented by `createTalkieOAuth`);
 * absent until it is wired, then `signIn` reports why. It lives here, not in src/main/talkie, so
 * auth never imports a protocol folder (talkie imports auth, not the other way round).
 */
export interface OAuthPort {
  /** `server` is the discovered Talkie server (its validated manifest is all sign-in reads). */
  signIn(server: { manifest: TalkieManifest }, options?: SignInOptions): Promise<void>;
  /** Opens the waiting sign-in's link in the browser again; false when none waits. */
  openAgain(server: TalkieServerKey): Promise<boolean>;
  /** A fresh access token after a 401, or undefined when the user must sign in again. */
  refresh(server: TalkieServerKey): Promise<string | undefined>;
  signOut(server: TalkieServerKey): Promise<void>;
}

/** What the caller of a sign-in can do while it waits: cancel it, and learn its link (to copy or open again). */
export interface SignInOptions {
  signal?: AbortSignal;
  onAuthorizationUrl?: (url: string, info: { timeoutMs: number; openError?: string }) => void;
}
