import { memorySecretStore } from '../../src/main/secrets/secret-store';
import { startAppServices, type AppServices, type AppServicesOptions } from '../../src/main/app/app-services';
import type { MethodName, MethodResponse } from '../../src/shared/ipc/contract';
import type { IpcResult } from '../../src/shared/base/errors';
import { memoryLogger } from './logger';

export interface TestServices extends AppServices {
  opened: string[];
  call<M extends MethodName>(method: M, payload?: unknown, gesture?: boolean): Promise<IpcResult<MethodResponse<M>>>;
}

/** The real main services on a temporary user-data folder, called through the real dispatcher. */
export async function startTestServices(userDataDir: string, overrides: Partial<AppServicesOptions> = {}): Promise<TestServices> {
  const opened: string[] = [];
  const services = await startAppServices({
    userDataDir,
    shell: 'web',
    version: '0.0.0-test',
    openExternal: async (url) => void opened.push(url),
    log: memoryLogger(),
    secrets: memorySecretStore(),
    // Tests that need NFC start it themselves (test/unit/nfc) with their own pcscd.
    nfc: 'off',
    ...overrides,
  });
  return {
    ...services,
    opened,
    call: async (method, payload = {}, gesture = true) => {
      return (await services.dispatcher.dispatch(`agentdesk:${method}`, payload, { hasRecentUserGesture: () => gesture })) as IpcResult<never>;
    },
  };
}
