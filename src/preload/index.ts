import { contextBridge, ipcRenderer } from 'electron';
import { buildApi, type ApiTransport } from '../shared/ipc/api';

/**
 * The sandboxed preload (built as CommonJS): `window.agentdesk`, generated from the IPC contract,
 * one function per method and one subscribe function per event. ipcRenderer itself and any
 * generic invoke/send/on are never exposed (checklist 20).
 */
const transport: ApiTransport = {
  invoke: (channel, request) => ipcRenderer.invoke(channel, request),
  subscribe: (channel, listener) => {
    const wrapped = (_event: Electron.IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(channel, wrapped);
    return () => void ipcRenderer.removeListener(channel, wrapped);
  },
};

contextBridge.exposeInMainWorld('agentdesk', buildApi(transport));
