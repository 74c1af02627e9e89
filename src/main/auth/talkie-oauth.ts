import clientDocument from '../../../resources/oauth/client.json';
import { guardedFetch } from '../net/guarded-fetch';
import type { Logger } from '../platform/logger';
import type { OAuthPort } from '../talkie/talkie-service';
import { accessToken, AuthError, signIn, signOut, type OAuthConfig } from './oauth-client';
import type { TokenStore } from './token-store';

/**
 * Talkie §2 sign-in for the app: oauth-client over the guarded network layer, with the client_id
 * from the Client ID Metadata Document we publish (resources/oauth/client.json), overridable with
 * AGENTDESK_OAUTH_CLIENT_ID for forks and test deployments.
 */
export const defaultOAuthClientId: string = clientDocument.client_id;

export interface TalkieOAuthOptions {
  tokens: TokenStore;
  /** Opens the authorization URL in the system browser. */
  openBrowser(url: string): Promise<void>;
  /** The development setting, read at each call. */
  allowLocalHttp(): boolean;
  log: Logger;
  clientId?: string;
}

export function createTalkieOAuth(options: TalkieOAuthOptions): OAuthPort {
  const config: OAuthConfig = { clientId: options.clientId ?? process.env.AGENTDESK_OAUTH_CLIENT_ID ?? defaultOAuthClientId, redirect: 'loopback' };
  const deps = () => {
    const allowLocalHttp = options.allowLocalHttp();
    return { fetch: guardedFetch({ allowLocalHttp }), tokens: options.tokens, allowLocalHttp, log: options.log };
  };
  return {
    async signIn(server) {
      const oauth = server.manifest.auth.oauth;
      if (!oauth) throw new AuthError('discovery_failed', 'This server offers no browser sign-in.');
      await signIn(
        { serverId: server.manifest.serverId, issuer: server.manifest.issuer, authIssuer: oauth.issuer, scopes: oauth.scopes },
        { ...deps(), openBrowser: options.openBrowser, config },
      );
    },
    async refresh(serverId) {
      try {
        return await accessToken(serverId, deps(), { forceRefresh: true });
      } catch (error) {
        if (error instanceof AuthError && error.code === 'sign_in_required') return undefined;
        throw error;
      }
    },
    signOut: (serverId) => signOut(serverId, deps()),
  };
}
