import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { normalizeAgentAddress, type NormalizedAddress } from '../../shared/agents/address';
import { agentTitle, normalizeAgentLabel } from '../../shared/agents/label';
import { agentEntrySchema, type AgentEntry } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/ipc/errors';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import type { EventBus } from '../ipc/event-bus';
import type { NoticeSink } from './notices';
import { JsonFileStore } from './json-file-store';

const agentsFileSchema = z.strictObject({ schemaVersion: z.literal(2), agents: z.array(agentEntrySchema).max(500) });
/**
 * `agents.json`. Version 1: the first release. Version 2 adds an entry's `label` (the name the user gave it);
 * a version-1 file has none, so it reads unchanged (an older AgentDesk must not read a label as damage: the
 * version tells it the file is newer). A schema change adds a version and its migration here.
 */
export const agentsFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 2, migrations: { 1: (document) => document } };

/** The agents the user added, kept in `agents.json` in the user-data folder. */
export class AgentRegistry {
  private constructor(
    private readonly store: JsonFileStore<typeof agentsFileSchema>,
    private agents: AgentEntry[],
    private readonly events: EventBus,
  ) {}

  static async open(userDataDir: string, events: EventBus, notices: NoticeSink): Promise<AgentRegistry> {
    const store = new JsonFileStore(join(userDataDir, 'agents.json'), agentsFileSchema, () => ({ schemaVersion: 2 as const, agents: [] }), agentsFileFormat);
    const { value, notice } = await store.load();
    if (notice) notices.push(notice);
    return new AgentRegistry(store, value.agents, events);
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

  /** The address as `add` would take it (syntax, not listed yet), or add's refusal; nothing is saved. */
  vet(address: string, options: { allowLocalHttp: boolean }): NormalizedAddress {
    const normalized = normalizeAgentAddress(address, options);
    const existing = this.agents.find((agent) => agent.url === normalized.url);
    if (existing) throw new ServiceError('already_exists', alreadyListed(existing), '/address');
    return normalized;
  }

  /** `protocol: 'agui'`: a plain AG-UI endpoint (nothing to discover; the entry says what it is). */
  async add(address: string, options: { allowLocalHttp: boolean; protocol?: 'agui' }): Promise<AgentEntry> {
    const normalized = this.vet(address, options);
    const agent: AgentEntry = { id: randomUUID(), url: normalized.url, display: normalized.display, addedAt: new Date().toISOString(), ...(options.protocol ? { protocol: options.protocol } : {}) };
    await this.replace([...this.agents, agent]);
    return { ...agent };
  }

  /** The agent's own name (from its A2A card), shown in the list; nothing is saved when it is unchanged or the agent is gone. */
  async setName(id: string, name: string): Promise<void> {
    const shown = name.trim().slice(0, 200);
    const agent = this.agents.find((entry) => entry.id === id);
    if (!agent || shown === '' || agent.name === shown) return;
    await this.replace(this.agents.map((entry) => (entry.id === id ? { ...entry, name: shown } : entry)));
  }

  /** The user's name for the agent (`normalizeAgentLabel`: one line, trimmed, 1–100 characters); unchanged, nothing is saved. */
  async rename(id: string, name: string): Promise<AgentEntry> {
    const label = normalizeAgentLabel(name);
    const agent = this.agents.find((entry) => entry.id === id);
    if (!agent) throw new ServiceError('not_found', 'That agent is no longer in your list.', '/id');
    if (agent.label !== label) await this.replace(this.agents.map((entry) => (entry.id === id ? { ...entry, label } : entry)));
    return this.get(id);
  }

  async remove(id: string): Promise<AgentEntry[]> {
    if (!this.agents.some((agent) => agent.id === id)) throw new ServiceError('not_found', 'That agent is no longer in your list.', '/id');
    await this.replace(this.agents.filter((agent) => agent.id !== id));
    return this.list();
  }

  /** Undo of `remove`: the same entry back at `index` (or at the end when the list got shorter); refused when its id or address is listed again. */
  async restore(agent: AgentEntry, index: number): Promise<AgentEntry[]> {
    const clash = this.agents.find((entry) => entry.id === agent.id || entry.url === agent.url);
    if (clash) throw new ServiceError('already_exists', alreadyListed(clash), '/agent');
    const agents = [...this.agents];
    agents.splice(Math.min(index, agents.length), 0, { ...agent });
    await this.replace(agents);
    return this.list();
  }

  private async replace(agents: AgentEntry[]): Promise<void> {
    await this.store.save({ schemaVersion: 2, agents });
    this.agents = agents;
    this.events.emit('agents.changed', { agents: this.list() });
  }
}

/** "crm.example.com is already in your list", and under which name when it is listed by another. */
function alreadyListed(agent: AgentEntry): string {
  const title = agentTitle(agent);
  return title === agent.display ? `${agent.display} is already in your list.` : `${agent.display} is already in your list, as "${title}".`;
}
