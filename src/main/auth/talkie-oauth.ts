import clientDocument from '../../../resources/oauth/client.json';
import { guardedFetch } from '../net/guarded-fetch';
import type { Logger } from '../platform/logger';
import type { OAuthPort } from './oauth-port';
import { accessToken, AuthError, pendingSignInUrl, signIn, signOut, type OAuthConfig } from './oauth-client';
import type { TokenStore } from './token-store';

/**
 * Talkie 1 §2 sign-in for the app: oauth-client over the guarded network layer, with the client_id
 * from the Client ID Metadata Document we publish (resources/oauth/client.json), overridable with
 * AGENTDESK_OAUTH_CLIENT_ID for forks and test deployments.
 */
export const defaultOAuthClientId: string = clientDocument.client_id;

/** AgentDesk's private-use URI scheme (RFC 8252 §7.1): the reverse domain of its app id. */
export const privateUseScheme = 'dev.agentdesk.app';

export interface TalkieOAuthOptions {
  tokens: TokenStore;
  /** Opens the authorization URL in the system browser. */
  openBrowser(url: string): Promise<void>;
  /** The development setting, read at each call. */
  allowLocalHttp(): boolean;
  log: Logger;
  clientId?: string;
  /** The redirect to use for the next sign-in (loopback unless the user chose the app's scheme and the host can receive it). */
  redirect?: () => OAuthConfig['redirect'];
}

export function createTalkieOAuth(options: TalkieOAuthOptions): OAuthPort {
  const clientId = options.clientId ?? process.env.AGENTDESK_OAUTH_CLIENT_ID ?? defaultOAuthClientId;
  const config = (): OAuthConfig => ({ clientId, redirect: options.redirect?.() ?? 'loopback' });
  const deps = () => {
    const allowLocalHttp = options.allowLocalHttp();
    return { fetch: guardedFetch({ allowLocalHttp }), tokens: options.tokens, allowLocalHttp, log: options.log };
  };
  return {
    async signIn(server, signInOptions = {}) {
      const oauth = server.manifest.auth.oauth;
      if (!oauth) throw new AuthError('discovery_failed', 'This server offers no browser sign-in.');
      await signIn(
        { serverId: server.manifest.serverId, issuer: server.manifest.issuer, authIssuer: oauth.issuer, scopes: oauth.scopes },
        {
          ...deps(),
          openBrowser: options.openBrowser,
          config: config(),
          ...(signInOptions.signal ? { signal: signInOptions.signal } : {}),
          ...(signInOptions.onAuthorizationUrl ? { onAuthorizationUrl: signInOptions.onAuthorizationUrl } : {}),
        },
      );
    },
    async openAgain(server) {
      const url = pendingSignInUrl(server);
      if (url === undefined) return false;
      await options.openBrowser(url);
      return true;
    },
    async refresh(server) {
      try {
        return await accessToken(server, deps(), { forceRefresh: true });
      } catch (error) {
        if (error instanceof AuthError && error.code === 'sign_in_required') return undefined;
        throw error;
      }
    },
    signOut: (server) => signOut(server, deps()),
  };
}
