import { randomUUID } from 'node:crypto';
import { boundItems, earlierWindowOf, firstWindow, type EarlierItems, type HeldItems } from '../../shared/conversation/bounds';
import { builtInDemoAgentId } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';
import { safeLink, type Action } from '../../shared/talkie/content';
import { conversationLimits, type ConversationItem, type RunUpdate } from '../../shared/talkie/conversation';
import type { ServerView } from '../../shared/talkie/ipc-schemas';
import { interpretEvent } from '../../shared/talkie/run-events';
import { voiceAvailability } from '../../shared/talkie/voice/voice-session';
import { defaultSignInTimeoutMs } from '../auth/oauth-client';
import type { OAuthPort } from '../auth/oauth-port';
import type { TokenStore } from '../auth/token-store';
import type { EventBus } from '../ipc/event-bus';
import type { NetPolicy } from '../net/guarded-fetch';
import type { Logger } from '../platform/logger';
import type { AgentRegistry } from '../store/agent-registry';
import type { SettingsService } from '../store/settings-service';
import { fetchLogo, ManifestCache, type DiscoveredServer } from './discovery';
import { safeFileName, saveResponse, type ChooseDownloadPath } from './download';
import type { EndpointApprovals } from './endpoint-approvals';
import { describe, limits, TalkieClient, TalkieError, type RunOutcome, type TokenSource } from './talkie-client';
import { ThreadTexts } from './thread-texts';
import { FirstMessages, threadItems, threadList } from './thread-view';
import { threadTitleFromMessage } from '../../shared/talkie/thread-title';

/** The built-in demo agent, started on first use. */
export interface DemoPort {
  /** Starts the demo (callers memoize); `agentCallCardUrl` is its AgentCall side's agent card, `aguiUrl` its plain AG-UI endpoint. */
  start(): Promise<{ baseUrl: string; token: string; agentCallCardUrl?: string; aguiUrl?: string }>;
}

export interface TalkieServiceDeps {
  agents: AgentRegistry;
  settings: SettingsService;
  events: EventBus;
  tokens: TokenStore;
  tokenStorage: { kind: 'keychain' | 'memory'; reason?: string };
  demo: DemoPort;
  oauth?: OAuthPort;
  log: Logger;
  /** For tests: how long to keep trying to reload a thread after a dropped stream. */
  recovery?: { delaysMs: readonly number[] };
  /** Where to save a downloaded file; undefined when the user cancels. */
  chooseDownloadPath: ChooseDownloadPath;
  /** Which cross-origin endpoints the user accepted, per server (serverId at its origin). */
  approvals: EndpointApprovals;
  /**
   * What this screen may offer for signing in (default both): a kiosk offers no browser sign-in, and a
   * pasted token only while the administrator's PIN is entered (its handlers refuse them otherwise).
   */
  signInHere?: () => { browser: boolean; pastedToken: boolean };
}

interface Connection {
  agentId: string;
  address: string;
  server: DiscoveredServer;
  client: TalkieClient;
  logo?: string;
  demoToken?: string;
}

interface ActiveRun {
  agentId: string;
  runId: string;
  threadId: string;
  abort: AbortController;
  cancelled: boolean;
}

const pastedClientId = 'development-token';

/**
 * Talkie for the UI: one connection per agent (manifest, brand, tokens), runs streamed as
 * `talkie.update` events, threads, and decisions on actions. Tokens never leave main.
 */
/** How much a search reads of the threads main has not read yet (TalkieService.searchThreads). */
export const searchReadLimits = { threads: 50, parallel: 2, ms: 3000, retryMs: 60_000 } as const;

/** Agents whose last opened thread main keeps for "Show earlier" (each within the conversation bounds). */
const heldThreads = 4;

export class TalkieService {
  private readonly manifests = new ManifestCache();
  private readonly connections = new Map<string, Connection>();
  private readonly runs = new Map<string, ActiveRun>();
  private readonly actions = new Map<string, Action>();
  /** Titles for threads the server lists untitled: their first user message, as main saw it. */
  private firstMessages = new FirstMessages();
  /** What main saw of each agent's threads this session (titles, sent and streamed text), for search. */
  private texts = new ThreadTexts();
  /** Browser sign-ins waiting, by agent: Cancel aborts them. */
  private readonly signIns = new Map<string, AbortController>();
  /**
   * The thread the page last opened, per agent (at most `heldThreads` agents, the oldest forgotten
   * first), within the conversation bounds: the page gets its newest window, and "Show earlier"
   * (`threadEarlier`) the windows before it from here.
   */
  private readonly openThreads = new Map<string, { threadId: string } & HeldItems<ConversationItem>>();
  private demo?: { baseUrl: string; token: string };

  constructor(private readonly deps: TalkieServiceDeps) {}

  async openDemo(): Promise<{ agentId: string }> {
    this.demo ??= await this.deps.demo.start();
    return { agentId: builtInDemoAgentId };
  }

  async connect(agentId: string, options: { refresh?: boolean } = {}): Promise<ServerView> {
    const connection = await this.connection(agentId, options);
    return this.view(connection);
  }

  async acceptEndpoints(agentId: string): Promise<ServerView> {
    const connection = await this.connection(agentId);
    const { manifest } = connection.server;
    await this.deps.approvals.accept(
      manifest,
      manifest.crossOriginEndpoints.map((endpoint) => endpoint.url),
    );
    return this.view(connection);
  }

  async useToken(agentId: string, token: string): Promise<ServerView> {
    const connection = await this.connection(agentId);
    const { manifest } = connection.server;
    if (!manifest.auth.token) throw new ServiceError('not_allowed', 'This server does not accept pasted tokens.');
    if (!this.deps.settings.get().developer.allowPastedTokens) {
      throw new ServiceError('not_allowed', 'Turn on Settings → Developer → Allow pasting access tokens first.');
    }
    await this.deps.tokens.save(manifest, { accessToken: token.trim(), issuer: manifest.issuer, clientId: pastedClientId });
    return this.view(connection);
  }

  async signIn(agentId: string): Promise<ServerView> {
    const connection = await this.connection(agentId);
    if (!this.deps.oauth) throw new ServiceError('not_allowed', 'Signing in through the browser is not available in this build yet.');
    if (!connection.server.manifest.auth.oauth) throw new ServiceError('not_allowed', 'This server offers no browser sign-in.');
    this.signIns.get(agentId)?.abort();
    const controller = new AbortController();
    this.signIns.set(agentId, controller);
    try {
      await this.deps.oauth.signIn(connection.server, {
        signal: controller.signal,
        // The link goes to the screen (to copy or open again) with the time limit; it carries no secret (PKCE keeps the verifier here).
        onAuthorizationUrl: (url, { timeoutMs, openError }) =>
          this.deps.events.emit('talkie.signInLink', { agentId, url, timeoutMs, ...(openError === undefined ? {} : { openError: openError.slice(0, 500) }) }),
      });
    } catch (error) {
      throw signInError(error);
    } finally {
      if (this.signIns.get(agentId) === controller) this.signIns.delete(agentId);
    }
    return this.view(connection);
  }

  /** Cancels the agent's browser sign-in that is still waiting; false when none was. */
  cancelSignIn(agentId: string): { cancelled: boolean } {
    const controller = this.signIns.get(agentId);
    if (!controller) return { cancelled: false };
    controller.abort();
    this.signIns.delete(agentId);
    return { cancelled: true };
  }

  /** Opens the waiting sign-in's link in the browser again (main knows the link; the page only asks). */
  async openSignInLink(agentId: string): Promise<{ opened: boolean }> {
    const connection = await this.connection(agentId);
    if (!this.deps.oauth || !this.signIns.has(agentId)) return { opened: false };
    try {
      return { opened: await this.deps.oauth.openAgain(connection.server.manifest) };
    } catch {
      throw new ServiceError('no_browser', 'No web browser could be started to open the link.');
    }
  }

  async signOut(agentId: string): Promise<ServerView> {
    const connection = await this.connection(agentId);
    const { manifest } = connection.server;
    const tokens = await this.deps.tokens.load(manifest);
    if (tokens && tokens.clientId !== pastedClientId && this.deps.oauth) await this.deps.oauth.signOut(manifest);
    await this.deps.tokens.clear(manifest);
    return this.view(connection);
  }

  async status(agentId: string) {
    const { client } = await this.usable(agentId);
    const json = (await this.call(agentId, () => client.status())) as { user?: { name?: unknown; email?: unknown }; usage?: unknown; voice?: unknown };
    const usage = interpretEvent({ type: 'CUSTOM', name: 'talkie.usage', value: { usage: json.usage ?? [] } }, client.manifest.issuer);
    const user =
      typeof json.user?.name === 'string'
        ? { name: json.user.name.slice(0, 200), ...(typeof json.user.email === 'string' ? { email: json.user.email.slice(0, 320) } : {}) }
        : undefined;
    return {
      ...(user ? { user } : {}),
      usage: usage.kind === 'updates' && usage.updates[0]?.type === 'usage' ? usage.updates[0].usage : [],
      ...(typeof json.voice === 'boolean' ? { voice: json.voice } : {}),
    };
  }

  async send(agentId: string, request: { threadId?: string | undefined; messageId: string; text: string }): Promise<{ runKey: string; threadId: string }> {
    const { client, server } = await this.usable(agentId);
    const max = server.manifest.maxMessageChars;
    if (max !== undefined && request.text.length > max) {
      throw new ServiceError('invalid_request', `The message is ${request.text.length} characters; this server accepts at most ${max}.`, '/text', false);
    }
    const threadId = request.threadId ?? `t_${randomUUID()}`;
    if (request.threadId === undefined) {
      this.firstMessages.sent(agentId, threadId, request.text);
      this.texts.untitled(agentId, threadId, threadTitleFromMessage(request.text));
    }
    this.texts.message(agentId, threadId, request.messageId, request.text);
    const runId = `r_${randomUUID()}`;
    const run: ActiveRun = { agentId, runId, threadId, abort: new AbortController(), cancelled: false };
    this.runs.set(runId, run);
    void this.stream(client, run, request).finally(() => this.runs.delete(runId));
    return { runKey: runId, threadId };
  }

  /**
   * The kiosk's reset: every run is cancelled (asked of the server, then its stream closed), and what
   * main saw of the session's threads (titles, texts for search, proposed actions) is forgotten. The
   * threads themselves live on the server. Returns how many runs it cancelled.
   */
  async cancelAll(): Promise<number> {
    const open = [...this.runs.values()];
    // What is still on its way (a thread read for search) must not land in what the next user sees.
    this.generation += 1;
    for (const controller of this.signIns.values()) controller.abort();
    this.signIns.clear();
    this.searchFailures.clear();
    await Promise.all(open.map((run) => this.cancel(run.agentId, run.runId).catch(() => run.abort.abort())));
    this.actions.clear();
    this.openThreads.clear();
    this.firstMessages = new FirstMessages();
    this.texts = new ThreadTexts();
    return open.length;
  }

  async cancel(agentId: string, runKey: string): Promise<{ cancelled: boolean }> {
    const run = this.runs.get(runKey);
    if (!run || run.agentId !== agentId) return { cancelled: false };
    run.cancelled = true;
    const { client } = await this.usable(agentId);
    try {
      await client.cancelRun(run.runId);
    } catch (error) {
      this.deps.log.warn('talkie', 'cancelRun failed; closing the stream anyway', error);
    }
    run.abort.abort();
    return { cancelled: true };
  }

  async threads(agentId: string) {
    const { client } = await this.usable(agentId);
    const list = threadList(await this.call(agentId, () => client.threads()));
    if (!list) throw new ServiceError('protocol_error', 'The server sent a thread list the app cannot read.');
    const threads = this.firstMessages.fill(agentId, list);
    this.texts.listed(agentId, threads);
    return { threads };
  }

  /**
   * Titles and text of the agent's threads (thread-texts.ts). The matching is local; before it, main
   * reads the listed threads it has not read yet (Talkie threads live on the server), a few at a time,
   * at most `searchReadLimits.threads` per search and never longer than `searchReadLimits.ms`: a thread
   * not read by then is found by its title this time and by its text in a later search.
   */
  async searchThreads(agentId: string, query: string) {
    await this.readForSearch(agentId);
    return { results: this.texts.search(agentId, query) };
  }

  private readonly searchReads = new Map<string, Promise<void>>();
  /** Threads that could not be read for search, and when: not asked again for `searchReadLimits.retryMs`. */
  private readonly searchFailures = new Map<string, number>();
  /** Raised by cancelAll (a kiosk's reset): a thread read that started before is not recorded after. */
  private generation = 0;

  /** One reading per agent at a time: keystrokes that search meanwhile wait for the same one. */
  private readForSearch(agentId: string): Promise<void> {
    const now = Date.now();
    const unread = this.texts
      .unread(agentId)
      .filter((threadId) => now - (this.searchFailures.get(`${agentId}:${threadId}`) ?? -Infinity) >= searchReadLimits.retryMs)
      .slice(0, searchReadLimits.threads);
    if (unread.length === 0) return Promise.resolve();
    const running = this.searchReads.get(agentId);
    if (running) return running;
    const reading = (async () => {
      const deadline = Date.now() + searchReadLimits.ms;
      const queue = [...unread];
      const worker = async () => {
        for (let threadId = queue.shift(); threadId !== undefined && Date.now() < deadline; threadId = queue.shift()) {
          try {
            await this.readThread(agentId, threadId);
          } catch (error) {
            // Found by its title for a while; a search after `retryMs` tries again.
            this.searchFailures.set(`${agentId}:${threadId}`, Date.now());
            this.deps.log.warn('talkie', 'reading a thread for search failed', error);
          }
        }
      };
      let timer: ReturnType<typeof setTimeout> | undefined;
      const workers = Promise.all(Array.from({ length: searchReadLimits.parallel }, worker));
      await Promise.race([workers, new Promise((resolve) => (timer = setTimeout(resolve, searchReadLimits.ms)))]);
      clearTimeout(timer);
    })().finally(() => this.searchReads.delete(agentId));
    this.searchReads.set(agentId, reading);
    return reading;
  }

  /**
   * A thread the page opens: its newest window (src/shared/conversation/bounds.ts), how many items main
   * holds before it (`threadEarlier`) and how many the conversation bounds removed.
   */
  async thread(agentId: string, threadId: string): Promise<{ threadId: string; items: ConversationItem[]; earlierItems: number; removedItems: number }> {
    const generation = this.generation;
    const held = await this.readThread(agentId, threadId);
    if (generation === this.generation) {
      this.openThreads.delete(agentId);
      this.openThreads.set(agentId, { threadId, ...held });
      for (const gone of [...this.openThreads.keys()].slice(0, Math.max(0, this.openThreads.size - heldThreads))) this.openThreads.delete(gone);
    }
    return { threadId, ...firstWindow(held) };
  }

  /**
   * A thread whole, within the conversation bounds (the oldest items beyond them removed and counted):
   * for main's own conversation (src/main/conversation/talkie-source.ts), which sends the page its window.
   */
  async heldThread(agentId: string, threadId: string): Promise<{ threadId: string; items: ConversationItem[]; removedItems: number }> {
    const held = await this.readThread(agentId, threadId);
    return { threadId, items: [...held.items], removedItems: held.removed };
  }

  /** "Show earlier": the items before the page's first one (`before`, its absolute position) in the thread it opened last. */
  threadEarlier(agentId: string, threadId: string, before: number): EarlierItems<ConversationItem> {
    const held = this.openThreads.get(agentId);
    if (held?.threadId !== threadId) throw new ServiceError('not_found', 'That chat is no longer open here; open it again.', '/threadId');
    return earlierWindowOf(held, before).answer;
  }

  /** A thread as the server has it, within the conversation bounds (the oldest items beyond them removed and counted). */
  private async readThread(agentId: string, threadId: string): Promise<HeldItems<ConversationItem>> {
    const generation = this.generation;
    const { client } = await this.usable(agentId);
    const view = threadItems(await this.call(agentId, () => client.thread(threadId)));
    if (!view) throw new ServiceError('protocol_error', 'The server sent a thread the app cannot read.');
    // Read before a kiosk's reset: given to the caller (gone with its screen), kept nowhere.
    if (generation === this.generation) {
      for (const action of view.actions) this.actions.set(`${agentId}:${action.id}`, action);
      this.firstMessages.loaded(agentId, threadId, view.items);
      this.texts.loaded(agentId, threadId, view.items);
    }
    return boundItems(view.items, conversationLimits.items);
  }

  async deleteThread(agentId: string, threadId: string) {
    const { client } = await this.usable(agentId);
    await this.call(agentId, () => client.deleteThread(threadId));
    this.firstMessages.forget(agentId, threadId);
    this.texts.forget(agentId, threadId);
    if (this.openThreads.get(agentId)?.threadId === threadId) this.openThreads.delete(agentId);
    return this.threads(agentId);
  }

  async action(agentId: string, actionId: string): Promise<{ action: Action }> {
    const { client } = await this.usable(agentId);
    const action = await this.call(agentId, () => client.action(actionId));
    this.actions.set(`${agentId}:${actionId}`, action);
    return { action };
  }

  /**
   * Talkie 1 §8: POST decision with the paramsHash the user saw (or heard). Conflicts, stale proposals and expiry are
   * explained and followed by GET action, so the UI always shows the authoritative state.
   */
  async decide(
    agentId: string,
    actionId: string,
    decision: 'confirm' | 'cancel',
    /** A decision spoken in a voice call (voice-service.ts checked it): the paramsHash of the proposal that was read out. */
    voice?: { paramsHash: string },
  ): Promise<{ action: Action; updates: RunUpdate[]; note?: string }> {
    const { client } = await this.usable(agentId);
    const paramsHash = voice?.paramsHash ?? (this.actions.get(`${agentId}:${actionId}`) ?? (await this.action(agentId, actionId)).action).paramsHash;
    let response: { action?: unknown; events?: unknown };
    try {
      response = (await client.decide(actionId, { decision, paramsHash, method: voice ? 'voice' : 'button' })) as typeof response;
    } catch (error) {
      if (!(error instanceof TalkieError) || ![409, 410].includes(error.status)) throw toServiceError(error);
      // Talkie 1 §8: conflict, stale and expired are explained, then the authoritative state is shown.
      const fresh = (await this.action(agentId, actionId)).action;
      const note =
        error.code === 'stale'
          ? 'The proposal changed since you saw it; review it again.'
          : error.status === 410
            ? 'This proposal expired before your decision arrived.'
            : 'A different decision was already made on this proposal.';
      return { action: fresh, updates: [], note };
    }
    const updates: RunUpdate[] = [];
    for (const event of Array.isArray(response.events) ? response.events.slice(0, 200) : []) {
      const interpretation = interpretEvent(event, client.manifest.issuer);
      if (interpretation.kind === 'updates') updates.push(...interpretation.updates);
    }
    const fresh = (await this.action(agentId, actionId)).action;
    return { action: fresh, updates };
  }

  /** Talkie 1 §6: a same-origin file block, downloaded with the bearer token through main, with progress. */
  async download(agentId: string, request: { downloadId: string; url: string; name: string }): Promise<{ saved: boolean; path?: string; bytes?: number }> {
    const { client } = await this.usable(agentId);
    const link = safeLink(request.url, client.manifest.issuer);
    if (link?.kind !== 'same-origin')
      throw new ServiceError('unsafe_url', 'Only files on the server itself are downloaded; other links open in the browser.', '/url');
    const path = await this.deps.chooseDownloadPath(safeFileName(request.name));
    if (path === undefined) return { saved: false };
    try {
      const response = await client.download(link.href);
      const bytes = await saveResponse(response, path, limits.downloadBytes, (received, total) =>
        this.deps.events.emit('talkie.downloadProgress', { agentId, downloadId: request.downloadId, received, ...(total === undefined ? {} : { total }) }),
      );
      return { saved: true, path, bytes };
    } catch (error) {
      throw toServiceError(error);
    }
  }

  /**
   * For the voice service (voice-service.ts): the agent's signed-in client and the network policy its
   * addresses get (the development setting; the in-process demo is trusted on loopback).
   */
  async voiceClient(agentId: string): Promise<{ client: TalkieClient; policy: NetPolicy }> {
    const { client } = await this.usable(agentId);
    const { policy } = await this.locate(agentId);
    return { client, policy };
  }

  /** One voice request with the same Talkie 1 §3 error mapping (and manifest invalidation on 401/404) as every other call. */
  voiceCall<T>(agentId: string, request: () => Promise<T>): Promise<T> {
    return this.call(agentId, request);
  }

  private async stream(client: TalkieClient, run: ActiveRun, request: { messageId: string; text: string }): Promise<void> {
    const { agentId, runId } = run;
    let threadId = run.threadId;
    const onUpdate = (update: RunUpdate) => {
      if (update.type === 'run.started') threadId = update.threadId;
      if (update.type === 'action') this.actions.set(`${agentId}:${update.action.id}`, update.action);
      if (update.type === 'text.delta') this.texts.append(agentId, threadId, update.messageId, update.delta);
      this.deps.events.emit('talkie.update', { agentId, runKey: runId, update });
    };
    let outcome: RunOutcome = await client.run(
      { threadId, runId, messages: [{ id: request.messageId, role: 'user', content: request.text }] },
      onUpdate,
      run.abort.signal,
    );
    if (run.cancelled) outcome = { kind: 'cancelled' };
    if (outcome.kind === 'not_sent' && outcome.code === 'unauthorized') this.deps.log.info('talkie', 'run refused: sign-in needed');
    const ended = {
      agentId,
      runKey: runId,
      threadId,
      outcome: {
        kind: outcome.kind,
        ...('code' in outcome ? { code: outcome.code } : {}),
        ...('message' in outcome ? { message: outcome.message } : {}),
        ...('retryable' in outcome ? { retryable: outcome.retryable } : {}),
      },
    };
    if (outcome.kind !== 'interrupted') return this.deps.events.emit('talkie.runEnded', ended);
    // Talkie 1 §5: disconnect is not cancel. The server finishes the run and stores it; reload the thread (its newest window).
    const reloaded = await this.recover(agentId, threadId, request.messageId);
    this.deps.events.emit('talkie.runEnded', reloaded ? { ...ended, ...reloaded } : ended);
  }

  private async recover(agentId: string, threadId: string, messageId: string) {
    const delays = this.deps.recovery?.delaysMs ?? [1000, 2000, 4000, 8000, 15000, 30000];
    let last;
    for (const delay of delays) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        const { threadId: _threadId, ...window } = await this.thread(agentId, threadId);
        last = window;
        const at = last.items.findIndex((item) => item.kind === 'user' && item.id === messageId);
        if (at !== -1 && last.items.slice(at + 1).some((item) => item.kind === 'assistant')) return last;
      } catch (error) {
        this.deps.log.warn('talkie', 'reloading the thread after a dropped stream failed; trying again', error);
      }
    }
    return last;
  }

  /** Runs a request; maps Talkie 1 §3 errors to ServiceErrors and invalidates the manifest on 401/404. */
  private async call<T>(agentId: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      const connection = this.connections.get(agentId);
      if (connection && error instanceof TalkieError && (error.status === 401 || error.status === 404)) this.manifests.invalidate(connection.address);
      throw toServiceError(error);
    }
  }

  private endpointsAccepted(manifest: DiscoveredServer['manifest']): boolean {
    return this.deps.approvals.covers(
      manifest,
      manifest.crossOriginEndpoints.map((endpoint) => endpoint.url),
    );
  }

  private async usable(agentId: string): Promise<Connection> {
    const connection = await this.connection(agentId);
    const { manifest } = connection.server;
    if (!this.endpointsAccepted(manifest)) {
      throw new ServiceError('endpoints_not_accepted', 'Review and accept the addresses this server uses on other sites first.');
    }
    return connection;
  }

  private async connection(agentId: string, options: { refresh?: boolean } = {}): Promise<Connection> {
    const existing = this.connections.get(agentId);
    if (existing && !options.refresh) return existing;
    const { address, policy, demoToken } = await this.locate(agentId);
    if (options.refresh) this.manifests.invalidate(address);
    const discovery = await this.manifests.get(address, policy);
    if (!discovery.ok) {
      const first = discovery.problems[0];
      throw new ServiceError(
        first?.code.startsWith('net_') ? 'network_error' : 'invalid_address',
        first ? first.message : 'This address is not a Talkie server.',
        undefined,
        first?.code.startsWith('net_'),
      );
    }
    const { server } = discovery;
    // Tokens are this server's: its serverId at its own origin (Talkie 1 §2.1), never another's that claims the same serverId.
    const { manifest } = server;
    const tokens: TokenSource = demoToken
      ? { get: async () => demoToken, refresh: async () => undefined }
      : {
          get: async () => (await this.deps.tokens.load(manifest))?.accessToken,
          refresh: async () => {
            const stored = await this.deps.tokens.load(manifest);
            if (!stored || stored.clientId === pastedClientId || !this.deps.oauth) return undefined;
            return this.deps.oauth.refresh(manifest);
          },
        };
    const connection: Connection = { agentId, address, server, client: new TalkieClient(server.manifest, policy, tokens), ...(demoToken ? { demoToken } : {}) };
    const logo = await fetchLogo(server.manifest, policy);
    if (logo) connection.logo = logo;
    this.connections.set(agentId, connection);
    return connection;
  }

  private async locate(agentId: string): Promise<{ address: string; policy: NetPolicy; demoToken?: string }> {
    const allowLocalHttp = this.deps.settings.get().developer.allowLocalHttp;
    if (agentId === builtInDemoAgentId) {
      const demo = await this.openDemo().then(() => this.demo!);
      // The built-in demo runs inside this process on 127.0.0.1: trusted without the development setting.
      return { address: demo.baseUrl, policy: { allowLocalHttp: true }, demoToken: demo.token };
    }
    const agent = this.deps.agents.get(agentId);
    return { address: agent.url, policy: { allowLocalHttp: this.deps.agents.allowsLocalHttp(agentId, allowLocalHttp) } };
  }

  private async view(connection: Connection): Promise<ServerView> {
    const { manifest, problems } = connection.server;
    const signedIn = connection.demoToken !== undefined || (await this.deps.tokens.load(manifest)) !== undefined;
    const here = this.deps.signInHere?.() ?? { browser: true, pastedToken: true };
    const allowPasted = Boolean(manifest.auth.token) && this.deps.settings.get().developer.allowPastedTokens && here.pastedToken;
    return {
      agentId: connection.agentId,
      serverId: manifest.serverId,
      issuer: manifest.issuer,
      name: manifest.name,
      ...(manifest.description === undefined ? {} : { description: manifest.description }),
      accent: manifest.accent,
      ...(connection.logo === undefined ? {} : { logo: connection.logo }),
      ...(manifest.maxMessageChars === undefined ? {} : { maxMessageChars: manifest.maxMessageChars }),
      testMode: manifest.testMode,
      signedIn,
      signIn: {
        oauth: Boolean(manifest.auth.oauth) && this.deps.oauth !== undefined && here.browser,
        pastedToken: allowPasted,
        ...(allowPasted && manifest.auth.token?.hint ? { tokenHint: manifest.auth.token.hint } : {}),
      },
      crossOriginEndpoints: manifest.crossOriginEndpoints,
      endpointsAccepted: this.endpointsAccepted(manifest),
      problems: problems.slice(0, 50),
      tokenStorage: this.deps.tokenStorage,
      voice: voiceView(manifest),
    };
  }
}

/** Talkie 1 §10: whether the Call button shows, and where the audio would go (no secret: the manifest's own words). */
function voiceView(manifest: DiscoveredServer['manifest']): ServerView['voice'] {
  const availability = voiceAvailability(manifest);
  if (!availability.offered) return { offered: false, code: availability.code, message: availability.message.slice(0, 500) };
  return { offered: true, voiceConfirm: availability.voiceConfirm, signalingHosts: availability.signalingHosts.slice(0, 20) };
}

/** Talkie 1 §3 and network failures → what the UI shows: the server's own message, and whether Retry helps. */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const problem = describe(error);
  if (error instanceof TalkieError) {
    if (error.status === 401 || problem.code === 'unauthorized') return new ServiceError('sign_in_required', 'Sign in again to continue.', undefined, false);
    if (problem.code === 'protocol_error' || problem.code === 'too_large')
      return new ServiceError('protocol_error', problem.message, undefined, problem.retryable);
    return new ServiceError('server_error', problem.message, undefined, problem.retryable);
  }
  if (problem.code !== 'internal') return new ServiceError('network_error', problem.message, undefined, problem.retryable);
  return new ServiceError('internal', problem.message, undefined, true);
}

/** Sign-in failures in words a user can act on. */
function signInError(error: unknown): ServiceError {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : 'Sign-in failed.';
  switch (code) {
    case 'cancelled':
      return new ServiceError('not_allowed', 'Sign-in was cancelled.', undefined, true);
    case 'timeout':
      return new ServiceError(
        'network_error',
        `Sign-in was not finished within ${String(Math.round(defaultSignInTimeoutMs / 60_000))} minutes, so AgentDesk stopped waiting. Start it again.`,
        undefined,
        true,
      );
    case 'access_denied':
      return new ServiceError('not_allowed', `The server did not allow the sign-in: ${message}`, undefined, true);
    case 'state_mismatch':
    case 'iss_mismatch':
      return new ServiceError('protocol_error', `The sign-in answer could not be trusted (${String(code)}); nothing was saved.`, undefined, true);
    default:
      return new ServiceError('network_error', `Sign-in failed: ${message}`, undefined, true);
  }
}
