import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { normalizeAgentAddress, type NormalizedAddress } from '../../shared/agents/address';
import { agentTitle, normalizeAgentLabel } from '../../shared/agents/label';
import { agentEntrySchema, maxAgents, type AgentEntry } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import type { PolicyAgent } from '../../shared/device-policy/device-policy';
import type { EventBus } from '../ipc/event-bus';
import type { NoticeSink } from './notices';
import { JsonFileStore } from './json-file-store';

const agentsFileSchema = z.strictObject({ schemaVersion: z.literal(2), agents: z.array(agentEntrySchema).max(maxAgents) });
/**
 * `agents.json`. Version 1: the first release. Version 2 adds an entry's `label` (the name the user gave it);
 * a version-1 file has none, so it reads unchanged (an older AgentDesk must not read a label as damage: the
 * version tells it the file is newer). A schema change adds a version and its migration here.
 */
export const agentsFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 2, migrations: { 1: (document) => document } };

/** A locked list (device policy): its file, for the refusal's words. */
export interface LockedAgentList {
  agents: readonly PolicyAgent[];
  /** The policy file. */
  file: string;
}

/**
 * The agents the user added, kept in `agents.json` in the user-data folder; or, under a device
 * policy with `agents`, the policy's list: locked (no add, remove, restore or rename, and `vet`
 * refuses every other address), never saved, each agent's id derived from its address so its
 * threads (kept by id) survive a restart.
 */
export class AgentRegistry {
  /** The entries removed in this session, by id (the last `rememberedRemovals`): what `restore` may put back. */
  private readonly removed = new Map<string, AgentEntry>();

  private constructor(
    private readonly store: JsonFileStore<typeof agentsFileSchema>,
    private agents: AgentEntry[],
    private readonly events: EventBus,
    private readonly lockedBy: string | undefined,
    /** A locked list's policy entries by agent id (what the policy sets per agent). */
    private readonly policyAgents: ReadonlyMap<string, PolicyAgent> = new Map(),
  ) {}

  static async open(userDataDir: string, events: EventBus, notices: NoticeSink, locked?: LockedAgentList): Promise<AgentRegistry> {
    const store = new JsonFileStore(join(userDataDir, 'agents.json'), agentsFileSchema, () => ({ schemaVersion: 2 as const, agents: [] }), agentsFileFormat);
    if (locked) {
      const entries = lockedEntries(locked.agents);
      return new AgentRegistry(store, entries, events, locked.file, new Map(entries.map((entry, index) => [entry.id, locked.agents[index]!])));
    }
    const { value, notice } = await store.load();
    if (notice) notices.push(notice);
    return new AgentRegistry(store, value.agents, events, undefined);
  }

  /**
   * The address rule for one agent's traffic: http:// to this computer and the local network under
   * the development setting (`developmentSetting`, the user's or the policy's), or, whatever it says,
   * for a listed agent whose policy entry says `allowInsecureHttp` (for that agent alone; the policy
   * accepts it only for a loopback or private-network address).
   */
  allowsLocalHttp(id: string, developmentSetting: boolean): boolean {
    return developmentSetting || this.policyAgents.get(id)?.allowInsecureHttp === true;
  }

  /** The forwardedProps (JSON object text) the device policy sets for this agent, if it does. */
  policyForwardedProps(id: string): string | undefined {
    return this.policyAgents.get(id)?.forwardedProps;
  }

  /** True when the list is the device policy's. */
  get locked(): boolean {
    return this.lockedBy !== undefined;
  }

  /** Refuses a change of a locked list, saying whose it is. */
  private refuseWhenLocked(what: string): void {
    if (this.lockedBy !== undefined)
      throw new ServiceError('not_allowed', `The agent list is set by the administrator's device policy (${this.lockedBy}): agents cannot be ${what} here.`);
  }

  list(): AgentEntry[] {
    return this.agents.map((agent) => ({ ...agent }));
  }

  /** One listed agent; `not_found` when it was removed (or never added). */
  get(id: string): AgentEntry {
    const agent = this.agents.find((entry) => entry.id === id);
    if (!agent) throw new ServiceError('not_found', 'That agent is no longer in your list.');
    return { ...agent };
  }

  /**
   * The address as `add` would take it, or add's refusal; nothing is saved. The one check of an agent
   * coming into the list (add, restore, and agents.check before an add): the list is not locked and not
   * full, and the address is one the address rules in force take (normalizeAgentAddress) and not listed yet.
   */
  vet(address: string, options: { allowLocalHttp: boolean }): NormalizedAddress {
    this.refuseWhenLocked('added');
    if (this.agents.length >= maxAgents) {
      throw new ServiceError('limit_reached', `Your list has ${maxAgents} agents, the most AgentDesk keeps: remove one you no longer use, then add this one.`);
    }
    const normalized = normalizeAgentAddress(address, options);
    const existing = this.agents.find((agent) => agent.url === normalized.url);
    if (existing) throw new ServiceError('already_exists', alreadyListed(existing), '/address');
    return normalized;
  }

  /** `protocol: 'agui'`: a plain AG-UI endpoint (nothing to discover; the entry says what it is). */
  async add(address: string, options: { allowLocalHttp: boolean; protocol?: 'agui' }): Promise<AgentEntry> {
    const normalized = this.vet(address, options);
    const agent: AgentEntry = {
      id: randomUUID(),
      url: normalized.url,
      display: normalized.display,
      addedAt: new Date().toISOString(),
      ...(options.protocol ? { protocol: options.protocol } : {}),
    };
    await this.replace([...this.agents, agent]);
    return { ...agent };
  }

  /** The agent's own name (from its A2A card), shown in the list; nothing is saved when it is unchanged or the agent is gone. */
  async setName(id: string, name: string): Promise<void> {
    const shown = name.trim().slice(0, 200);
    const agent = this.agents.find((entry) => entry.id === id);
    if (!agent || shown === '' || agent.name === shown) return;
    if (this.locked) {
      // Learned from the agent's card: shown this session, nothing saved (the policy's list is not a file of ours).
      this.agents = this.agents.map((entry) => (entry.id === id ? { ...entry, name: shown } : entry));
      return void this.events.emit('agents.changed', { agents: this.list() });
    }
    await this.replace(this.agents.map((entry) => (entry.id === id ? { ...entry, name: shown } : entry)));
  }

  /** The user's name for the agent (`normalizeAgentLabel`: one line, trimmed, 1–100 characters); unchanged, nothing is saved. */
  async rename(id: string, name: string): Promise<AgentEntry> {
    this.refuseWhenLocked('renamed');
    const label = normalizeAgentLabel(name);
    const agent = this.agents.find((entry) => entry.id === id);
    if (!agent) throw new ServiceError('not_found', 'That agent is no longer in your list.', '/id');
    if (agent.label !== label) await this.replace(this.agents.map((entry) => (entry.id === id ? { ...entry, label } : entry)));
    return this.get(id);
  }

  async remove(id: string): Promise<AgentEntry[]> {
    this.refuseWhenLocked('removed');
    if (!this.agents.some((agent) => agent.id === id)) throw new ServiceError('not_found', 'That agent is no longer in your list.', '/id');
    const gone = this.agents.find((agent) => agent.id === id)!;
    await this.replace(this.agents.filter((agent) => agent.id !== id));
    this.removed.delete(id);
    this.removed.set(id, gone);
    if (this.removed.size > rememberedRemovals) this.removed.delete(this.removed.keys().next().value!);
    return this.list();
  }

  /**
   * Undo of `remove`: the entry removed in this session (main's own copy: the page names it, it does not
   * make it) back at `index` (or at the end when the list got shorter), through add's checks (`vet`: not
   * full, the address rules in force now). Refused when its id or address is listed again, and when no
   * such agent was removed (an entry the page made up: another address, id or name).
   */
  async restore(agent: AgentEntry, index: number, options: { allowLocalHttp: boolean }): Promise<AgentEntry[]> {
    this.refuseWhenLocked('added');
    const clash = this.agents.find((entry) => entry.id === agent.id || entry.url === agent.url);
    if (clash) throw new ServiceError('already_exists', alreadyListed(clash), '/agent');
    const normalized = this.vet(agent.url, options);
    const removed = this.removed.get(agent.id);
    if (!removed || removed.url !== agent.url) throw new ServiceError('not_found', 'There is no removed agent to put back: add it again.', '/agent');
    const agents = [...this.agents];
    agents.splice(Math.min(index, agents.length), 0, { ...removed, url: normalized.url, display: normalized.display });
    await this.replace(agents);
    this.removed.delete(agent.id);
    return this.list();
  }

  private async replace(agents: AgentEntry[]): Promise<void> {
    await this.store.save({ schemaVersion: 2, agents });
    this.agents = agents;
    this.events.emit('agents.changed', { agents: this.list() });
  }
}

/** Removed agents `restore` can put back (the page offers Undo for the last one, for 10 s). */
const rememberedRemovals = 20;

/** "crm.example.com is already in your list", and under which name when it is listed by another. */
function alreadyListed(agent: AgentEntry): string {
  const title = agentTitle(agent);
  return title === agent.display ? `${agent.display} is already in your list.` : `${agent.display} is already in your list, as "${title}".`;
}

/** The id of a policy-listed agent: derived from its normalized address, so it is the same at every start. */
export function lockedAgentId(url: string): string {
  return `policy-${createHash('sha256').update(url).digest('hex').slice(0, 32)}`;
}

/** The policy's agents as list entries (the policy was validated: every address normalizes). */
function lockedEntries(agents: readonly PolicyAgent[]): AgentEntry[] {
  const addedAt = new Date().toISOString();
  return agents.map((agent) => {
    const normalized = normalizeAgentAddress(agent.address, { allowLocalHttp: true });
    return {
      id: lockedAgentId(normalized.url),
      url: normalized.url,
      display: normalized.display,
      addedAt,
      ...(agent.kind === 'agui' ? { protocol: 'agui' as const } : {}),
      ...(agent.name ? { label: agent.name } : {}),
    };
  });
}
