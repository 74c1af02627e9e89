import { normalizeAgentAddress } from '../../shared/agents/address';
import { ServiceError } from '../../shared/ipc/errors';
import { discoverTalkie } from '../talkie/discovery';
import { exitCodes, type Io } from './output';

/**
 * `agentdesk probe <address> [--json] [--dev]`: discovery and validation, as the app does it.
 * Exit 0 usable, 1 rejected (the server answered but breaks the protocol), 2 usage or network error.
 */
export async function probe(address: string, options: { json: boolean; dev: boolean }, io: Io): Promise<number> {
  let url: string;
  try {
    url = normalizeAgentAddress(address, { allowLocalHttp: options.dev }).url;
  } catch (error) {
    const message = error instanceof ServiceError && error.code === 'insecure_scheme' && !options.dev
      ? `${error.message.split('.')[0]}. Add --dev to allow http:// to this computer and the local network.`
      : error instanceof ServiceError ? error.message : String(error);
    return report(io, options.json, { ok: false, kind: 'unknown', problems: [{ code: 'invalid_address', path: '', message }] }, exitCodes.usage);
  }
  const result = await discoverTalkie(url, { allowLocalHttp: options.dev });
  if (!result.ok) {
    const network = result.problems.some((problem) => problem.code.startsWith('net_'));
    const found = !network && !result.problems.some((problem) => problem.code === 'manifest_http_error');
    return report(io, options.json, { ok: false, kind: found ? 'talkie' : 'unknown', problems: result.problems }, network ? exitCodes.usage : exitCodes.rejected);
  }
  const { manifest, problems, manifestUrl } = result.server;
  return report(
    io,
    options.json,
    {
      ok: true,
      kind: 'talkie',
      problems,
      manifestUrl,
      talkie: {
        serverId: manifest.serverId,
        name: manifest.name,
        issuer: manifest.issuer,
        accent: manifest.accent,
        auth: { oauth: manifest.auth.oauth?.issuer ?? null, token: manifest.auth.token !== undefined },
        endpoints: manifest.endpoints,
        crossOriginEndpoints: manifest.crossOriginEndpoints,
        maxMessageChars: manifest.maxMessageChars ?? null,
        testMode: manifest.testMode,
      },
    },
    exitCodes.ok,
  );
}

interface ProbeReport {
  ok: boolean;
  kind: 'talkie' | 'unknown';
  problems: { code: string; path: string; message: string }[];
  [key: string]: unknown;
}

function report(io: Io, json: boolean, result: ProbeReport, code: number): number {
  if (json) {
    io.out(JSON.stringify(result));
    return code;
  }
  const talkie = result.talkie as { name: string; issuer: string; serverId: string; testMode: boolean } | undefined;
  if (result.ok && talkie) io.out(`usable: Talkie server "${talkie.name}" (${talkie.serverId}) at ${talkie.issuer}${talkie.testMode ? ', test mode' : ''}`);
  else io.out(`not usable${result.kind === 'talkie' ? ' Talkie server' : ''}:`);
  for (const problem of result.problems) io.out(`  ${problem.code}${problem.path ? ` at ${problem.path}` : ''}: ${problem.message}`);
  return code;
}
