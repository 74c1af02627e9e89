import * as oauth from 'oauth4webapi';
import { isLocalDevelopmentHost } from '../../shared/agents/address';
import type { Logger } from '../platform/logger';
import { startLoopbackReceiver, type CallbackReceiver } from './loopback-callback';
import { sameTalkieServer, type TalkieServerKey } from '../../shared/talkie/manifest';
import { tokenAccount, type TokenKey, type TokenSet, type TokenStore } from './token-store';

/**
 * Talkie 1 §2 sign-in: OAuth 2.1 Authorization Code + PKCE S256 for a public native client
 * (RFC 8252), with RFC 8414 discovery, RFC 9207 `iss` checking, refresh and RFC 7009 revocation,
 * all through oauth4webapi. Tokens go to a TokenStore (the OS keychain) and never leave main;
 * no function here logs or puts a token in an error message.
 */

export interface OAuthConfig {
  /** The Client ID Metadata Document URL (the client_id of a public client). */
  clientId: string;
  /** `loopback`: `http://127.0.0.1:<random port>/oauth/callback` (RFC 8252 §7.3), the default. A private-use scheme: `<scheme>:/oauth/callback` (RFC 8252 §7.1), delivered by the OS to `completePrivateUseRedirect`. */
  redirect: 'loopback' | { privateUseScheme: string };
}

/** Fetch used for every AS request (the guarded network layer plugs in here; default globalThis.fetch). */
export type FetchLike = typeof fetch;

export interface SignInRequest extends TalkieServerKey {
  /** serverId: the manifest's; issuer: the Talkie server's origin (manifest `issuer`). The tokens are saved for both together. */
  /** Manifest `auth.oauth.issuer`. */
  authIssuer: string;
  /** Default `talkie offline_access`. */
  scopes?: string[];
}

/** What refresh, sign-out and sign-in share. */
export interface OAuthDeps {
  /** Default globalThis.fetch. */
  fetch?: FetchLike;
  tokens: TokenStore;
  /**
   * The development setting "Allow http:// to this computer and the local network": lets the AS be
   * `http://` on localhost, loopback or private addresses (the built-in demo). Off: https only.
   */
  allowLocalHttp?: boolean;
  signal?: AbortSignal;
  /** Notices without secrets (a failed revocation, an ignored callback). */
  log?: Logger;
  /** Clock, epoch ms (tests). */
  now?: () => number;
}

export interface SignInDeps extends OAuthDeps {
  openBrowser(url: string): Promise<void>;
  config: OAuthConfig;
  /** Default 5 minutes (defaultSignInTimeoutMs). */
  timeoutMs?: number;
  /**
   * The authorization URL the flow waits on, for the user to copy or open again; called once it is
   * built, and again with `openError` when the browser could not be opened (the flow keeps waiting
   * then, until its time limit or a cancel). Without it a browser that does not open fails the sign-in.
   */
  onAuthorizationUrl?: (url: string, info: { timeoutMs: number; openError?: string }) => void;
}

export type AuthErrorCode =
  'sign_in_required' | 'state_mismatch' | 'iss_mismatch' | 'access_denied' | 'discovery_failed' | 'timeout' | 'cancelled' | 'token_request_failed';

/** A sign-in failure with a stable code and a human message. Never carries a token. */
export class AuthError extends Error {
  constructor(
    readonly code: AuthErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AuthError';
  }
}

export const defaultScopes: readonly string[] = ['talkie', 'offline_access'];
export const defaultSignInTimeoutMs = 5 * 60_000;
export const callbackPath = '/oauth/callback';
/** Refresh this long before the access token's stated expiry. */
const expirySkewMs = 30_000;
/** Each request to the AS. */
const requestTimeoutMs = 30_000;

/**
 * The development token (Talkie 1 §2.2) is offered only when the manifest has `auth.token` (an object) and
 * the developer switch is on.
 */
export function acceptsPastedToken(manifestAuth: { token?: unknown } | undefined, developerSwitchOn: boolean): boolean {
  if (developerSwitchOn !== true || manifestAuth === undefined || manifestAuth === null) return false;
  const token = manifestAuth.token;
  return typeof token === 'object' && token !== null && !Array.isArray(token);
}

// ---- sign-in -------------------------------------------------------------------------------------

interface PendingFlow {
  server: TalkieServerKey;
  authIssuer: string;
  state: string;
  /** The private-use scheme this flow waits on (undefined: loopback). */
  scheme?: string;
  /** The authorization URL, once built (to open it again). */
  url?: string;
  deliver(params: URLSearchParams): void;
  cancel(error: AuthError): void;
}

/** Flows waiting for their redirect, by `state`: the state is bound to the serverId + issuer that started the flow. */
const pendingFlows = new Map<string, PendingFlow>();

/** Discovery → PKCE → browser → loopback callback (the one with this flow's state; then the listener closes) → code exchange → tokens saved. */
export async function signIn(request: SignInRequest, deps: SignInDeps): Promise<TokenSet> {
  const server: TalkieServerKey = { serverId: request.serverId, issuer: request.issuer };
  tokenAccount(server); // throws TypeError for an empty serverId or an issuer that is not an origin
  const scopes = [...(request.scopes ?? defaultScopes)];
  if (scopes.some((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))) throw new TypeError('A scope contains characters OAuth does not allow.');
  throwIfAborted(deps.signal);

  // Only one sign-in per server at a time: a new one replaces the earlier (the user clicked again).
  for (const flow of pendingFlows.values()) {
    if (sameTalkieServer(flow.server, server)) flow.cancel(new AuthError('cancelled', 'A newer sign-in to this server replaced this one.'));
  }

  const as = await discover(request.authIssuer, deps);
  const client = clientFor(deps.config.clientId);
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
  const state = oauth.generateRandomState();

  let deliver!: (params: URLSearchParams) => void;
  let fail!: (error: AuthError) => void;
  const callback = new Promise<URLSearchParams>((resolve, reject) => {
    deliver = resolve;
    fail = reject;
  });
  callback.catch(() => undefined); // consumed below; a failure before then is not "unhandled"
  const flow: PendingFlow = {
    server,
    authIssuer: as.issuer,
    state,
    deliver: (params) => deliver(params),
    cancel: (error) => fail(error),
  };

  let receiver: CallbackReceiver | undefined;
  let redirectUri: string;
  const redirect = deps.config.redirect;
  if (redirect === 'loopback') {
    let ignored = false;
    receiver = await startLoopbackReceiver({
      path: callbackPath,
      onCallback: (params) => {
        // Only this flow's state is its answer. Anything else (another local user who saw the port
        // open, a stale tab) is ignored and the flow keeps waiting: failing on it would let anyone
        // on this computer break every sign-in.
        if (params.get('state') === state) {
          deliver(params);
          return true;
        }
        if (!ignored) deps.log?.warn('auth', 'a sign-in answer with a state of no waiting sign-in reached the loopback address; it was ignored');
        ignored = true;
        return false;
      },
    });
    redirectUri = receiver.redirectUri;
  } else {
    const scheme = checkScheme(redirect.privateUseScheme);
    flow.scheme = scheme;
    redirectUri = `${scheme}:${callbackPath}`;
  }
  pendingFlows.set(state, flow);

  const timeoutMs = deps.timeoutMs ?? defaultSignInTimeoutMs;
  const timer = setTimeout(() => fail(new AuthError('timeout', 'Sign-in took too long. Please try again.')), timeoutMs);
  const onAbort = () => fail(new AuthError('cancelled', 'Sign-in was cancelled.'));
  deps.signal?.addEventListener('abort', onAbort, { once: true });
  if (deps.signal?.aborted) onAbort();
  try {
    const url = new URL(as.authorization_endpoint as string);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    flow.url = url.href;
    deps.onAuthorizationUrl?.(url.href, { timeoutMs });
    const opening = deps.openBrowser(url.href).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    const openError = await Promise.race([opening, callback.then(() => undefined)]);
    if (openError) {
      if (!deps.onAuthorizationUrl) throw openError;
      deps.onAuthorizationUrl(url.href, { timeoutMs, openError: openError.message });
    }
    const params = await callback;
    receiver?.close();
    pendingFlows.delete(state);
    const validated = checkAuthorizationResponse(as, client, params, flow);
    const tokens = await exchangeCode(as, client, validated, redirectUri, codeVerifier, scopes, deps);
    await deps.tokens.save(server, tokens);
    return tokens;
  } finally {
    clearTimeout(timer);
    deps.signal?.removeEventListener('abort', onAbort);
    receiver?.close();
    if (pendingFlows.get(state) === flow) pendingFlows.delete(state);
  }
}

/**
 * The OS delivered `<scheme>:/oauth/callback?...` (Electron `open-url` / second-instance argv).
 * Returns true when it completed a pending flow; an unknown or reused state completes nothing.
 */
export function completePrivateUseRedirect(url: string): boolean {
  if (typeof url !== 'string' || !URL.canParse(url)) return false;
  const parsed = new URL(url);
  const state = parsed.searchParams.get('state');
  const flow = state === null ? undefined : pendingFlows.get(state);
  if (!flow || flow.scheme === undefined) return false;
  if (parsed.protocol !== `${flow.scheme}:` || parsed.pathname !== callbackPath) return false;
  pendingFlows.delete(flow.state);
  flow.deliver(parsed.searchParams);
  return true;
}

/** The authorization URL of the sign-in to `server` still waiting for the browser, if any. */
export function pendingSignInUrl(server: TalkieServerKey): string | undefined {
  for (const flow of pendingFlows.values()) if (sameTalkieServer(flow.server, server) && flow.url !== undefined) return flow.url;
  return undefined;
}

/** Cancels every sign-in waiting for the browser (app quit, window closed). */
export function cancelPendingSignIns(): void {
  for (const flow of [...pendingFlows.values()]) flow.cancel(new AuthError('cancelled', 'Sign-in was cancelled.'));
  pendingFlows.clear();
}

function checkAuthorizationResponse(as: oauth.AuthorizationServer, client: oauth.Client, params: URLSearchParams, flow: PendingFlow): URLSearchParams {
  // state: the flow was found by it, but check again before anything uses the code.
  if (params.get('state') !== flow.state) {
    throw new AuthError('state_mismatch', 'The sign-in answer did not belong to this sign-in (state mismatch). Please try again.');
  }
  // RFC 9207: when present (or promised by the metadata) `iss` must be the AS this flow started with.
  const iss = params.get('iss');
  if ((iss !== null && iss !== flow.authIssuer) || (iss === null && as.authorization_response_iss_parameter_supported === true)) {
    throw new AuthError('iss_mismatch', 'The sign-in answer came from a different sign-in server than expected (iss mismatch).');
  }
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    throw new AuthError('access_denied', `The sign-in server did not grant access (${printable(error)}${description ? `: ${printable(description)}` : ''}).`);
  }
  let validated: URLSearchParams;
  try {
    validated = oauth.validateAuthResponse(as, client, params, flow.state);
  } catch {
    throw new AuthError('token_request_failed', 'The sign-in server sent an answer AgentDesk cannot use.');
  }
  if (!validated.get('code')) throw new AuthError('token_request_failed', 'The sign-in server sent no authorization code.');
  return validated;
}

async function exchangeCode(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  params: URLSearchParams,
  redirectUri: string,
  codeVerifier: string,
  scopes: string[],
  deps: OAuthDeps,
): Promise<TokenSet> {
  let result: oauth.TokenEndpointResponse;
  try {
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, codeVerifier, httpOptions(deps));
    result = await oauth.processAuthorizationCodeResponse(as, client, response);
  } catch (error) {
    throwIfAborted(deps.signal);
    throw new AuthError('token_request_failed', `The sign-in server did not issue tokens (${oauthProblem(error)}).`);
  }
  return tokenSetFrom(result, as, client, undefined, scopes.join(' '), deps);
}

// ---- access tokens, refresh, sign-out ------------------------------------------------------------

/** In-flight refreshes per TokenStore and server: concurrent callers share one (a rotated refresh token is single-use). */
const refreshing = new WeakMap<TokenStore, Map<string, Promise<string>>>();

/**
 * Returns a valid access token, refreshing once when expired or when `forceRefresh` (after a 401);
 * throws AuthError('sign_in_required') when it cannot (no tokens, no refresh token, or the AS
 * refused the refresh token; the stored tokens are then forgotten). When the AS cannot be reached
 * it throws AuthError('discovery_failed' | 'token_request_failed') and keeps the tokens.
 */
export async function accessToken(key: TokenKey, deps: OAuthDeps, options: { forceRefresh?: boolean } = {}): Promise<string> {
  const account = tokenAccount(key);
  let byServer = refreshing.get(deps.tokens);
  const inFlight = byServer?.get(account);
  if (inFlight) return inFlight;
  const tokens = await deps.tokens.load(key);
  if (!tokens) throw signInRequired();
  const now = (deps.now ?? Date.now)();
  const fresh = tokens.expiresAt === undefined || tokens.expiresAt - expirySkewMs > now;
  if (fresh && options.forceRefresh !== true) return tokens.accessToken;
  // Another caller may have started a refresh while we were reading.
  const started = refreshing.get(deps.tokens)?.get(account);
  if (started) return started;
  if (!byServer) {
    byServer = new Map();
    refreshing.set(deps.tokens, byServer);
  }
  const refresh = refreshTokens(key, tokens, deps).finally(() => byServer.delete(account));
  byServer.set(account, refresh);
  return refresh;
}

async function refreshTokens(key: TokenKey, tokens: TokenSet, deps: OAuthDeps): Promise<string> {
  if (tokens.refreshToken === undefined) {
    await deps.tokens.clear(key);
    throw signInRequired();
  }
  const as = await discover(tokens.issuer, deps);
  const client = clientFor(tokens.clientId);
  let result: oauth.TokenEndpointResponse;
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refreshToken, httpOptions(deps));
    result = await oauth.processRefreshTokenResponse(as, client, response);
  } catch (error) {
    throwIfAborted(deps.signal);
    if (error instanceof oauth.ResponseBodyError && error.status >= 400 && error.status < 500) {
      // invalid_grant (expired, revoked, reused), invalid_client, …: this sign-in is over.
      await deps.tokens.clear(key);
      throw signInRequired();
    }
    throw new AuthError('token_request_failed', `The sign-in could not be renewed right now (${oauthProblem(error)}).`);
  }
  const next = tokenSetFrom(result, as, client, tokens.refreshToken, tokens.scope, deps);
  await deps.tokens.save(key, next);
  return next.accessToken;
}

/** Revokes the refresh and access tokens when the AS has a revocation_endpoint (best effort), then forgets them. */
export async function signOut(key: TokenKey, deps: OAuthDeps): Promise<void> {
  const tokens = await deps.tokens.load(key);
  if (!tokens) return;
  try {
    const as = await discover(tokens.issuer, deps);
    if (as.revocation_endpoint !== undefined) {
      const client = clientFor(tokens.clientId);
      const revoke = async (token: string, hint: 'refresh_token' | 'access_token') => {
        const response = await oauth.revocationRequest(as, client, oauth.None(), token, {
          ...httpOptions(deps),
          additionalParameters: { token_type_hint: hint },
        });
        await oauth.processRevocationResponse(response);
      };
      // The refresh token first: revoking it ends the whole grant on most servers.
      if (tokens.refreshToken !== undefined) await revoke(tokens.refreshToken, 'refresh_token');
      await revoke(tokens.accessToken, 'access_token');
    }
  } catch (error) {
    const whose = typeof key === 'string' ? key : `${key.serverId} at ${key.issuer}`;
    deps.log?.warn('auth', `could not revoke the sign-in of ${whose} at its server; it is forgotten here anyway`, new Error(oauthProblem(error)));
  } finally {
    await deps.tokens.clear(key);
  }
}

// ---- helpers ---------------------------------------------------------------------------------------

function signInRequired(): AuthError {
  return new AuthError('sign_in_required', 'Please sign in again.');
}

function clientFor(clientId: string): oauth.Client {
  if (typeof clientId !== 'string' || clientId.length === 0) throw new TypeError('The OAuth client_id is not configured.');
  return { client_id: clientId, token_endpoint_auth_method: 'none' };
}

/** RFC 8414 metadata: `/.well-known/oauth-authorization-server` for the issuer, then OpenID's `/.well-known/openid-configuration`. */
async function discover(authIssuer: string, deps: OAuthDeps): Promise<oauth.AuthorizationServer> {
  if (typeof authIssuer !== 'string' || !URL.canParse(authIssuer)) throw new AuthError('discovery_failed', 'The sign-in server address is not valid.');
  const issuerUrl = new URL(authIssuer);
  const problem = urlProblem(issuerUrl, deps);
  if (problem) throw new AuthError('discovery_failed', problem);
  let lastError: unknown;
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    try {
      const response = await oauth.discoveryRequest(issuerUrl, { ...httpOptions(deps), algorithm });
      const as = await oauth.processDiscoveryResponse(issuerUrl, response);
      checkMetadata(as, deps);
      return as;
    } catch (error) {
      throwIfAborted(deps.signal);
      if (error instanceof AuthError) throw error;
      lastError = error;
    }
  }
  throw new AuthError('discovery_failed', `The sign-in server's settings could not be read (${oauthProblem(lastError)}).`);
}

function checkMetadata(as: oauth.AuthorizationServer, deps: OAuthDeps): void {
  for (const name of ['authorization_endpoint', 'token_endpoint'] as const) {
    if (typeof as[name] !== 'string') throw new AuthError('discovery_failed', `The sign-in server does not name its ${name}.`);
  }
  for (const name of ['authorization_endpoint', 'token_endpoint', 'revocation_endpoint'] as const) {
    const value = as[name];
    if (value === undefined) continue;
    const problem = typeof value === 'string' && URL.canParse(value) ? urlProblem(new URL(value), deps) : 'it is not a URL';
    if (problem) throw new AuthError('discovery_failed', `The sign-in server's ${name} cannot be used: ${problem}`);
  }
  const methods = as.code_challenge_methods_supported;
  if (Array.isArray(methods) && !methods.includes('S256')) {
    throw new AuthError('discovery_failed', 'The sign-in server does not support PKCE S256, which Talkie requires.');
  }
}

function urlProblem(url: URL, deps: OAuthDeps): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `only https:// is supported, not ${url.protocol}//.`;
  if (deps.allowLocalHttp !== true) return 'http:// needs the development setting that allows http:// to this computer and the local network.';
  if (!isLocalDevelopmentHost(url.hostname)) return `http:// is only allowed to localhost, 127.0.0.1 and private network addresses, not ${url.hostname}.`;
  return undefined;
}

function httpOptions(deps: OAuthDeps) {
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  return {
    [oauth.customFetch]: (url: string, init: RequestInit) => fetchImpl(url, init),
    // http:// only ever reaches here for hosts urlProblem() accepted (the development setting).
    [oauth.allowInsecureRequests]: deps.allowLocalHttp === true,
    signal: () => (deps.signal ? AbortSignal.any([deps.signal, AbortSignal.timeout(requestTimeoutMs)]) : AbortSignal.timeout(requestTimeoutMs)),
  };
}

function tokenSetFrom(
  result: oauth.TokenEndpointResponse,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  previousRefreshToken: string | undefined,
  previousScope: string | undefined,
  deps: OAuthDeps,
): TokenSet {
  if (result.token_type !== 'bearer') {
    throw new AuthError('token_request_failed', `The sign-in server issued a ${printable(String(result.token_type))} token; Talkie uses bearer tokens.`);
  }
  const now = (deps.now ?? Date.now)();
  const tokens: TokenSet = { accessToken: result.access_token, issuer: as.issuer, clientId: client.client_id };
  // Servers that do not rotate refresh tokens answer a refresh without a new one: keep the old one.
  const refreshToken = result.refresh_token ?? previousRefreshToken;
  if (refreshToken !== undefined) tokens.refreshToken = refreshToken;
  if (typeof result.expires_in === 'number') tokens.expiresAt = now + Math.floor(result.expires_in * 1000);
  const scope = result.scope ?? previousScope;
  if (scope !== undefined) tokens.scope = scope;
  return tokens;
}

function checkScheme(scheme: string): string {
  // RFC 8252 §7.1: a reverse domain name the app controls, e.g. cz.firemnicrm.talkie.
  if (typeof scheme !== 'string' || !/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/i.test(scheme)) {
    throw new TypeError('The private-use redirect scheme must be a reverse domain name such as cz.firemnicrm.talkie.');
  }
  return scheme.toLowerCase();
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AuthError('cancelled', 'Sign-in was cancelled.');
}

/** What went wrong, without response bodies (which may hold tokens). */
function oauthProblem(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) return `${error.status} ${printable(error.error)}`;
  if (error instanceof oauth.OperationProcessingError) return printable(error.message);
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'no answer in time';
  // The guarded network layer's errors are written for people and carry no query strings or bodies.
  if (error instanceof Error && error.name === 'NetError') return printable(error.message);
  if (error instanceof TypeError) return 'the server could not be reached';
  return 'unexpected answer';
}

/** Server-supplied text for a message: printable ASCII only, bounded. */
function printable(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 197)}...` : clean;
}
