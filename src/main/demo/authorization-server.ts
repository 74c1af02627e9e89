import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../platform/logger';
import { ownHosts } from './http-util';
// @ts-expect-error -- oidc-provider ships no type declarations; the few members used are typed below.
import { Provider as UntypedProvider } from 'oidc-provider';

/**
 * The built-in demo's OAuth 2.1 Authorization Server (and the one the sign-in tests run against):
 * a real oidc-provider on its own port of 127.0.0.1, issuer `http://127.0.0.1:<port>` (no path), so
 * both `/.well-known/oauth-authorization-server` (RFC 8414) and `/.well-known/openid-configuration`
 * are served at the root.
 *
 * - One public client, pre-registered (nothing is fetched: the Client ID Metadata Document feature
 *   stays off): `client_id` = the Client ID Metadata Document URL, `token_endpoint_auth_method: none`,
 *   `application_type: native`, so `http://127.0.0.1/oauth/callback` matches any loopback port
 *   (RFC 8252 §7.3) and the private-use scheme `cz.firemnicrm.talkie:/oauth/callback` is allowed.
 * - PKCE `S256` is required (oidc-provider accepts no other method), `iss` is in every authorization
 *   response (RFC 9207, always on in oidc-provider 9), refresh tokens are issued for
 *   `offline_access` and rotated on every use (public client, not sender-constrained); a reused
 *   refresh token revokes its grant. Revocation (RFC 7009) is on.
 * - Scopes: `talkie`, `offline_access` (and `openid`, unused by AgentDesk). Access tokens are opaque.
 * - Sign-in and consent are automatic for the single demo user `demo`: the interaction URL
 *   answers with a redirect straight back, so plain HTTP requests that follow redirects (and keep
 *   cookies) complete the flow without a browser.
 */
export interface DemoAuthorizationServer {
  /** `http://127.0.0.1:<port>`: the value for the manifest's `auth.oauth.issuer`. */
  issuer: string;
  /** Check a bearer access token issued by this AS (opaque tokens via introspection of the provider's AccessToken model): the user, or undefined. */
  verifyAccessToken(token: string): Promise<{ id: string; name: string; email?: string } | undefined>;
  close(): Promise<void>;
}

export interface DemoAuthorizationServerOptions {
  /** Default 0: a free port. */
  port?: number;
  /** The client_id of AgentDesk, normally its Client ID Metadata Document URL. */
  clientId: string;
  /** Redirect URIs registered for the client; default the loopback and private-use callbacks below. */
  redirectUris?: string[];
  /** Access token lifetime in seconds (default 3600). */
  accessTokenTtlSeconds?: number;
  /** Where the provider's internal errors go (class and message only); default nowhere. */
  log?: Logger;
}

export const demoRedirectUris = ['http://127.0.0.1/oauth/callback', 'dev.agentdesk.app:/oauth/callback', 'cz.firemnicrm.talkie:/oauth/callback'];

export const demoUser = { id: 'demo', name: 'Demo User', email: 'demo@example.invalid' } as const;

/** The scope an access token must carry to be accepted by verifyAccessToken. */
const requiredScope = 'talkie';

// ---- the part of oidc-provider's API used here ---------------------------------------------------

interface OidcGrant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}
interface OidcInteraction {
  prompt: { name: string; details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> } };
  params: Record<string, unknown>;
  grantId?: string;
  session?: { accountId?: string };
}
interface OidcAccessToken {
  accountId?: string;
  clientId?: string;
  scope?: string;
  isExpired?: boolean;
}
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<OidcInteraction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  on(event: string, listener: (...args: unknown[]) => void): void;
  Grant: { new (properties: { accountId: string; clientId: string }): OidcGrant; find(id: string): Promise<OidcGrant | undefined> };
  AccessToken: { find(token: string): Promise<OidcAccessToken | undefined> };
}
const Provider = UntypedProvider as new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;

// ---------------------------------------------------------------------------------------------------

export async function startDemoAuthorizationServer(options: DemoAuthorizationServerOptions): Promise<DemoAuthorizationServer> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: options.port ?? 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, configuration(options));
  // oidc-provider reports its internal errors as events (without one, Koa prints them to stderr).
  provider.on('server_error', (_ctx, error) => options.log?.warn('demo-auth', 'the demo authorization server failed a request', error));
  const providerHandler = provider.callback();

  const allowedHosts = ownHosts('127.0.0.1', port);
  handle = (req, res) => {
    // DNS rebinding: a page on another site whose name now points at 127.0.0.1 sends its own Host.
    if (!allowedHosts.includes(req.headers.host ?? '')) {
      res.writeHead(421, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      return void res.end('Unknown host.');
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/auth' && req.method === 'GET') req.url = offlineAccessWithConsent(req.url ?? '/');
    if (path.startsWith('/interaction/')) {
      autoApprove(provider, req, res).catch(() => {
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
      return;
    }
    providerHandler(req, res);
  };

  return {
    issuer,
    async verifyAccessToken(token) {
      if (typeof token !== 'string' || token.length === 0 || token.length > 4096) return undefined;
      const found = await provider.AccessToken.find(token);
      if (!found || found.isExpired === true) return undefined;
      if (found.clientId !== options.clientId) return undefined;
      if (!(found.scope ?? '').split(' ').includes(requiredScope)) return undefined;
      if (found.accountId !== demoUser.id) return undefined;
      return { ...demoUser };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function configuration(options: DemoAuthorizationServerOptions): Record<string, unknown> {
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const storage = new DemoStorage();
  return {
    adapter: (model: string) => storage.adapter(model),
    clients: [
      {
        client_id: options.clientId,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: options.redirectUris ?? demoRedirectUris,
      },
    ],
    scopes: ['openid', 'offline_access', requiredScope],
    claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
    jwks: { keys: [{ ...signingKey, kid: randomUUID(), use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    pkce: { required: () => true },
    ttl: {
      AccessToken: options.accessTokenTtlSeconds ?? 3600,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 14 * 24 * 3600,
      RefreshToken: 14 * 24 * 3600,
    },
    features: {
      devInteractions: { enabled: false },
      revocation: {
        enabled: true,
        // A public client may revoke only its own tokens.
        allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) => token.clientId === client.clientId,
      },
      clientIdMetadataDocument: { enabled: false },
      registration: { enabled: false },
    },
    // No browser page ever calls this AS from script.
    clientBasedCORS: () => false,
    rotateRefreshToken: () => true,
    findAccount: async (_ctx: unknown, sub: string) =>
      sub === demoUser.id ? { accountId: demoUser.id, claims: async () => ({ sub: demoUser.id, name: demoUser.name, email: demoUser.email }) } : undefined,
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    renderError: (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `Sign-in error: ${out.error ?? 'unknown'}${out.error_description ? ` (${out.error_description})` : ''}\n`;
    },
  };
}

/**
 * oidc-provider follows OpenID Connect Core §11: it drops `offline_access` unless the request also
 * has `prompt=consent`. In Talkie (plain OAuth 2.1) the scope alone asks for a refresh token, so
 * the demo adds `prompt=consent` to such requests (consent is automatic here anyway).
 */
function offlineAccessWithConsent(url: string): string {
  const parsed = new URL(url, 'http://127.0.0.1');
  const scopes = (parsed.searchParams.get('scope') ?? '').split(' ');
  if (!scopes.includes('offline_access') || parsed.searchParams.has('prompt')) return url;
  parsed.searchParams.set('prompt', 'consent');
  return `${parsed.pathname}${parsed.search}`;
}

/** Logs the demo user in and grants whatever the client asked for, then sends the browser back. */
async function autoApprove(provider: OidcProvider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const interaction = await provider.interactionDetails(req, res);
  const { prompt, params } = interaction;
  if (prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: demoUser.id } }, { mergeWithLastSubmission: false });
    return;
  }
  if (prompt.name !== 'consent') {
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: `unsupported prompt ${prompt.name}` },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const accountId = interaction.session?.accountId ?? demoUser.id;
  const grant =
    (interaction.grantId === undefined ? undefined : await provider.Grant.find(interaction.grantId)) ??
    new provider.Grant({ accountId, clientId: String(params.client_id) });
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  if (missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(missingResourceScopes)) grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

// ---- storage ---------------------------------------------------------------------------------------

interface StoredPayload {
  grantId?: string;
  uid?: string;
  userCode?: string;
  jti?: string;
  consumed?: number;
  [key: string]: unknown;
}

/**
 * oidc-provider's adapter interface over one Map per demo server: everything is forgotten when
 * the demo stops, entries expire at their TTL, and revoking a grant removes all of its tokens.
 * (The built-in memory adapter is a shared LRU of 1000 entries that prints a warning.)
 */
class DemoStorage {
  private readonly entries = new Map<string, { payload: StoredPayload; expiresAt: number }>();
  private readonly grants = new Map<string, Set<string>>();
  private readonly index = new Map<string, string>();

  adapter(model: string) {
    const key = (id: string) => `${model}:${id}`;
    return {
      upsert: async (id: string, payload: StoredPayload, expiresIn?: number) => {
        const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity;
        this.entries.set(key(id), { payload, expiresAt });
        if (payload.grantId) {
          const members = this.grants.get(payload.grantId) ?? new Set<string>();
          members.add(key(id));
          this.grants.set(payload.grantId, members);
        }
        if (model === 'Session' && payload.uid) this.index.set(`sessionUid:${payload.uid}`, id);
        if (payload.userCode) this.index.set(`userCode:${payload.userCode}`, id);
      },
      find: async (id: string) => this.get(key(id)),
      findByUid: async (uid: string) => {
        const id = this.index.get(`sessionUid:${uid}`);
        return id === undefined ? undefined : this.get(key(id));
      },
      findByUserCode: async (userCode: string) => {
        const id = this.index.get(`userCode:${userCode}`);
        return id === undefined ? undefined : this.get(key(id));
      },
      consume: async (id: string) => {
        const payload = this.get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id: string) => void this.entries.delete(key(id)),
      revokeByGrantId: async (grantId: string) => {
        for (const member of this.grants.get(grantId) ?? []) this.entries.delete(member);
        this.grants.delete(grantId);
      },
    };
  }

  private get(key: string): StoredPayload | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }
}
