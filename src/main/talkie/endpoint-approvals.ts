import { join } from 'node:path';
import { z } from 'zod';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import type { NoticeSink } from '../store/notices';
import { JsonFileStore } from '../store/json-file-store';

const approvalsSchema = z.strictObject({
  schemaVersion: z.literal(1),
  servers: z.record(z.string().max(256), z.strictObject({ acceptedEndpoints: z.array(z.string().max(2048)).max(20) })),
});
/** `talkie-servers.json`: version 1 since it exists; a schema change adds a version and its migration here. */
export const approvalsFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 1, migrations: {} };

/**
 * Talkie §1: endpoints on another origin are used only after the user accepts them, and the
 * acceptance is remembered per serverId (`talkie-servers.json` in the user-data folder). What is
 * remembered is the exact URLs: a manifest that later points somewhere else must be accepted again.
 */
export class EndpointApprovals {
  private constructor(
    private readonly store: JsonFileStore<typeof approvalsSchema>,
    private servers: z.output<typeof approvalsSchema>['servers'],
  ) {}

  static async open(userDataDir: string, notices: NoticeSink): Promise<EndpointApprovals> {
    const store = new JsonFileStore(join(userDataDir, 'talkie-servers.json'), approvalsSchema, () => ({ schemaVersion: 1 as const, servers: {} }), approvalsFileFormat);
    const { value, notice } = await store.load();
    if (notice) notices.push(notice);
    return new EndpointApprovals(store, value.servers);
  }

  covers(serverId: string, urls: readonly string[]): boolean {
    const accepted = Object.hasOwn(this.servers, serverId) ? this.servers[serverId]!.acceptedEndpoints : [];
    return urls.every((url) => accepted.includes(url));
  }

  async accept(serverId: string, urls: readonly string[]): Promise<void> {
    this.servers = { ...this.servers, [serverId]: { acceptedEndpoints: [...urls].slice(0, 20) } };
    await this.store.save({ schemaVersion: 1, servers: this.servers });
  }
}
