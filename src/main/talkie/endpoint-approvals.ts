import { join } from 'node:path';
import { z } from 'zod';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import { sameTalkieServer, type TalkieServerKey } from '../../shared/talkie/manifest';
import type { NoticeSink } from '../store/notices';
import { JsonFileStore } from '../store/json-file-store';

/** Servers whose accepted endpoints are kept at most (the one accepted longest ago goes first). */
export const maxApprovedServers = 500;

const approvalSchema = z.strictObject({
  serverId: z.string().min(1).max(256),
  /** The server's origin (manifest `issuer`). */
  issuer: z.string().min(1).max(2048),
  acceptedEndpoints: z.array(z.string().max(2048)).max(20),
});
const approvalsSchema = z.strictObject({ schemaVersion: z.literal(2), servers: z.array(approvalSchema).max(maxApprovedServers) });
type Approval = z.output<typeof approvalSchema>;

/**
 * `talkie-servers.json`. Version 2 keys each approval by serverId and origin (a list of entries);
 * version 1 keyed them by serverId alone and did not record the origin whose manifest listed the
 * endpoints, so 1 → 2 drops its entries: any server could claim a serverId, and an approval bound to
 * a guessed origin could go to the wrong server. The user accepts the addresses again, once per server.
 */
export const approvalsFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 2, migrations: { 1: () => ({ servers: [] }) } };

/**
 * Talkie 1 §1: endpoints on another origin are used only after the user accepts them, and the
 * acceptance is remembered per server, its serverId at its origin (`talkie-servers.json` in the
 * user-data folder): a server elsewhere that claims the same serverId has accepted nothing. What is
 * remembered is the exact URLs: a manifest that later points somewhere else must be accepted again.
 */
export class EndpointApprovals {
  private constructor(
    private readonly store: JsonFileStore<typeof approvalsSchema>,
    private servers: Approval[],
  ) {}

  static async open(userDataDir: string, notices: NoticeSink): Promise<EndpointApprovals> {
    const store = new JsonFileStore(
      join(userDataDir, 'talkie-servers.json'),
      approvalsSchema,
      () => ({ schemaVersion: 2 as const, servers: [] }),
      approvalsFileFormat,
    );
    const { value, notice } = await store.load();
    if (notice) notices.push(notice);
    return new EndpointApprovals(store, value.servers);
  }

  covers(server: TalkieServerKey, urls: readonly string[]): boolean {
    const accepted = this.servers.find((entry) => sameTalkieServer(entry, server))?.acceptedEndpoints ?? [];
    return urls.every((url) => accepted.includes(url));
  }

  /** The accepted endpoints as they are now (the kiosk keeps them to put back at its reset). */
  snapshot(): readonly Approval[] {
    return structuredClone(this.servers);
  }

  /** The kiosk's reset: the accepted endpoints back to a snapshot; nothing is saved when unchanged. */
  async restore(snapshot: readonly Approval[]): Promise<void> {
    if (JSON.stringify(snapshot) === JSON.stringify(this.servers)) return;
    this.servers = structuredClone([...snapshot]);
    await this.store.save({ schemaVersion: 2, servers: this.servers });
  }

  async accept(server: TalkieServerKey, urls: readonly string[]): Promise<void> {
    const entry: Approval = { serverId: server.serverId, issuer: server.issuer, acceptedEndpoints: [...urls].slice(0, 20) };
    this.servers = [...this.servers.filter((other) => !sameTalkieServer(other, server)), entry].slice(-maxApprovedServers);
    await this.store.save({ schemaVersion: 2, servers: this.servers });
  }
}
