import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { normalizeAgentAddress } from '../../shared/agents/address';
import { agentEntrySchema, type AgentEntry } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/ipc/errors';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import type { EventBus } from '../ipc/event-bus';
import type { NoticeSink } from './notices';
import { JsonFileStore } from './json-file-store';

const agentsFileSchema = z.strictObject({ schemaVersion: z.literal(1), agents: z.array(agentEntrySchema).max(500) });
/** `agents.json`: version 1 since the first release; a schema change adds a version and its migration here. */
export const agentsFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 1, migrations: {} };

/** The agents the user added, kept in `agents.json` in the user-data folder. */
export class AgentRegistry {
  private constructor(
    private readonly store: JsonFileStore<typeof agentsFileSchema>,
    private agents: AgentEntry[],
    private readonly events: EventBus,
  ) {}

  static async open(userDataDir: string, events: EventBus, notices: NoticeSink): Promise<AgentRegistry> {
    const store = new JsonFileStore(join(userDataDir, 'agents.json'), agentsFileSchema, () => ({ schemaVersion: 1 as const, agents: [] }), agentsFileFormat);
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

  /** `protocol: 'agui'`: a plain AG-UI endpoint (nothing to discover; the entry says what it is). */
  async add(address: string, options: { allowLocalHttp: boolean; protocol?: 'agui' }): Promise<AgentEntry> {
    const normalized = normalizeAgentAddress(address, options);
    const existing = this.agents.find((agent) => agent.url === normalized.url);
    if (existing) throw new ServiceError('already_exists', `${existing.display} is already in your list.`, '/address');
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

  async remove(id: string): Promise<AgentEntry[]> {
    if (!this.agents.some((agent) => agent.id === id)) throw new ServiceError('not_found', 'That agent is no longer in your list.', '/id');
    await this.replace(this.agents.filter((agent) => agent.id !== id));
    return this.list();
  }

  /** Undo of `remove`: the same entry back at `index` (or at the end when the list got shorter); refused when its id or address is listed again. */
  async restore(agent: AgentEntry, index: number): Promise<AgentEntry[]> {
    const clash = this.agents.find((entry) => entry.id === agent.id || entry.url === agent.url);
    if (clash) throw new ServiceError('already_exists', `${clash.display} is already in your list.`, '/agent');
    const agents = [...this.agents];
    agents.splice(Math.min(index, agents.length), 0, { ...agent });
    await this.replace(agents);
    return this.list();
  }

  private async replace(agents: AgentEntry[]): Promise<void> {
    await this.store.save({ schemaVersion: 1, agents });
    this.agents = agents;
    this.events.emit('agents.changed', { agents: this.list() });
  }
}
