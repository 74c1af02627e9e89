import { z } from 'zod';

/**
 * A notice main sends the user (start-up in `app.info`, later as `app.notice`): what happened as a
 * code with parameters, which the renderer says in the user's language, plus main's own English
 * text for the log and the command line. Parameters are names and numbers (a file, a folder, a
 * version), never words; the raw cause (an errno, a parse error) is `detail`, shown behind Details.
 */
export const noticeCodes = [
  /** `{file}` could not be read (`detail`); defaults for this session, the file is left as it is. */
  'file_unreadable',
  /** `{file}` could not be read (`detail`) and was moved to `{aside}`; defaults are in use. */
  'file_moved_aside',
  /** `{file}` could not be read nor moved aside (`detail`); defaults for this session, the file left. */
  'file_not_moved_aside',
  /** `{file}` comes from a newer AgentDesk (`{version}`); read as version `{current}`, never changed. */
  'file_newer_read',
  /** `{file}` comes from a newer AgentDesk (`{version}`); unreadable here, defaults, never changed. */
  'file_newer_defaults',
  /** The user-data folder `{folder}` cannot be created (`detail`): nothing can be saved this session. */
  'folder_unavailable',
  /** No keychain (`detail`): sign-ins last until AgentDesk closes. */
  'keychain_memory',
  /** An AG-UI conversation could not be saved (`detail`); it is kept in memory. */
  'conversation_not_saved',
  /** The demo agent's conversations could not be saved (`detail`); kept in memory. */
  'demo_not_saved',
  /** The demo's AG-UI key could not be saved (`detail`): its open questions end when AgentDesk closes. */
  'demo_questions_not_kept',
  /** `AGENTDESK_DEMO_VOICE_SECONDS` is not whole seconds from 10 to 3600 (`detail`): the demo's calls last 300 s. */
  'demo_voice_seconds_invalid',
  /** `AGENTDESK_SPEECH_RECOGNIZER` names no test recognizer (`detail`): recognition needs an imported model. */
  'speech_recognizer_invalid',
  /** The admin PIN's lockout could not be saved (`detail`): it holds until AgentDesk closes. */
  'admin_lockout_not_saved',
  /** The device policy `{file}` cannot be used (`detail`: why): in kiosk mode AgentDesk runs nothing else. */
  'policy_failed',
  /** No keychain: the NFC device key is kept in `{file}`, readable by this computer account alone (what that protects against and what not). */
  'nfc_key_file',
  /** No keychain and no file for the NFC device key (`detail`): tags get new aliases when AgentDesk restarts. */
  'nfc_key_memory',
] as const;

export type NoticeCode = (typeof noticeCodes)[number];

export const noticeParamNames = ['file', 'aside', 'folder', 'version', 'current'] as const;
export type NoticeParamName = (typeof noticeParamNames)[number];

export const noticeLimits = { kept: 20, chars: 1000, param: 500, detail: 500 } as const;

export const noticeSchema = z.strictObject({
  code: z.enum(noticeCodes),
  params: z.partialRecord(z.enum(noticeParamNames), z.string().max(noticeLimits.param)).optional(),
  detail: z.string().max(noticeLimits.detail).optional(),
  /** Main's English text: the log, the command line, and the notice's identity (a dismissal keeps it). */
  message: z.string().max(noticeLimits.chars),
});

export type Notice = z.infer<typeof noticeSchema>;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A notice within its limits: every part clipped, so a long path or parse error never breaks `app.info`. */
export function boundedNotice(notice: Notice): Notice {
  const params =
    notice.params === undefined ? undefined : Object.fromEntries(Object.entries(notice.params).map(([name, value]) => [name, clip(value, noticeLimits.param)]));
  return {
    code: notice.code,
    ...(params === undefined ? {} : { params }),
    ...(notice.detail === undefined ? {} : { detail: clip(notice.detail, noticeLimits.detail) }),
    message: clip(notice.message, noticeLimits.chars),
  };
}
