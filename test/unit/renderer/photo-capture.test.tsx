import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fail, ok, type IpcResult } from '../../../src/shared/base/errors';
import { cameraStorageKey } from '../../../src/renderer/hooks/useCamera';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { type PhotoCaptureApi, type PhotoStageRequest, type StagedPhotoView } from '../../../src/renderer/screens/photo/photo-api';
import { PhotoCapture } from '../../../src/renderer/screens/photo/PhotoCapture';
import { PhotoDialog } from '../../../src/renderer/screens/photo/PhotoDialog';
import { PolicyContext } from '../../../src/renderer/kiosk/policy-context';
import type { DevicePolicyStatus } from '../../../src/shared/device-policy/ipc-schemas';
import { cs as photoCs, en as photoEn } from '../../../src/renderer/i18n/strings';

/** A camera track that records whether it was stopped. */
class FakeTrack {
  stopped = false;
  readonly stop = vi.fn(() => {
    this.stopped = true;
  });
  constructor(readonly deviceId: string) {}
  getSettings() {
    return { deviceId: this.deviceId };
  }
}

interface FakeStream {
  track: FakeTrack;
  getTracks(): FakeTrack[];
  getVideoTracks(): FakeTrack[];
}

const devices = [
  { kind: 'videoinput', deviceId: 'cam-front', label: 'Front camera', groupId: 'a' },
  { kind: 'videoinput', deviceId: 'cam-usb', label: 'USB camera', groupId: 'b' },
  { kind: 'audioinput', deviceId: 'mic', label: 'Microphone', groupId: 'c' },
];

let streams: FakeStream[];
let getUserMedia: ReturnType<typeof vi.fn>;
let order: string[];
let created: string[];
let revoked: string[];

function installCamera(options: { fail?: (constraints: MediaStreamConstraints) => Error | undefined } = {}) {
  getUserMedia = vi.fn(async (constraints: MediaStreamConstraints) => {
    order.push('getUserMedia');
    const error = options.fail?.(constraints);
    if (error) throw error;
    const video = constraints.video as boolean | { deviceId?: { exact: string } };
    const track = new FakeTrack(typeof video === 'object' && video.deviceId ? video.deviceId.exact : 'cam-front');
    const stream: FakeStream = { track, getTracks: () => [track], getVideoTracks: () => [track] };
    streams.push(stream);
    return stream;
  });
  Object.defineProperty(navigator, 'mediaDevices', {
    configurable: true,
    value: { getUserMedia, enumerateDevices: vi.fn(async () => devices), addEventListener: vi.fn(), removeEventListener: vi.fn() },
  });
}

const preview = 'data:image/jpeg;base64,/9j/2Q==';

function fakeApi(stage?: (request: PhotoStageRequest) => IpcResult<StagedPhotoView>) {
  let next = 1;
  const api = {
    media: {
      arm: vi.fn(async ({ kinds }: { kinds: ('camera' | 'microphone')[] }) => {
        order.push('arm');
        return ok({ armed: kinds });
      }),
      disarm: vi.fn(async () => {
        order.push('disarm');
        return ok({ armed: [] as ('camera' | 'microphone')[] });
      }),
    },
    photo: {
      stage: vi.fn(async (request: PhotoStageRequest) =>
        stage
          ? stage(request)
          : ok({
              photoId: `photo-${next++}`,
              preview,
              byteCount: 1229,
              pixelWidth: request.kind === 'frame' ? request.width : 800,
              pixelHeight: request.kind === 'frame' ? request.height : 600,
            }),
      ),
      discard: vi.fn(async (_request: { photoId: string }) => ok({ discarded: true })),
    },
  };
  return api satisfies PhotoCaptureApi;
}

function renderCapture(api = fakeApi(), language: 'en' | 'cs' = 'en') {
  const onSend = vi.fn();
  const view = render(
    <I18nProvider setting={language}>
      <PhotoCapture api={api} onSend={onSend} />
    </I18nProvider>,
  );
  return { api, onSend, user: userEvent.setup(), ...view };
}

beforeEach(() => {
  streams = [];
  order = [];
  created = [];
  revoked = [];
  localStorage.clear();
  installCamera();
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockResolvedValue(undefined);
  Object.defineProperty(HTMLVideoElement.prototype, 'videoWidth', { configurable: true, get: () => 640 });
  Object.defineProperty(HTMLVideoElement.prototype, 'videoHeight', { configurable: true, get: () => 480 });
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(
    () =>
      ({
        drawImage: vi.fn(),
        getImageData: (_x: number, _y: number, width: number, height: number) => ({ data: new Uint8ClampedArray(width * height * 4).fill(200) }),
      }) as never,
  );
  let urls = 0;
  URL.createObjectURL = vi.fn((blob: Blob) => {
    expect(blob.type).toBe('image/jpeg');
    const url = `blob:photo-${++urls}`;
    created.push(url);
    return url;
  });
  URL.revokeObjectURL = vi.fn((url: string) => void revoked.push(url));
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  localStorage.clear();
});

const button = (name: string | RegExp) => screen.getByRole('button', { name });

describe('PhotoCapture: camera', () => {
  it('asks for nothing until the user opens the camera', async () => {
    const { api } = renderCapture();
    expect(button('Open camera')).toBeTruthy();
    await act(async () => undefined);
    expect(getUserMedia).not.toHaveBeenCalled();
    expect(api.media.arm).not.toHaveBeenCalled();
  });

  it('open → arm then getUserMedia; capture → the frame goes to main, the camera goes off; Send hands over the id', async () => {
    const { api, onSend, user } = renderCapture();
    await user.click(button('Open camera'));
    await screen.findByLabelText('Camera preview');
    expect(order).toEqual(['arm', 'getUserMedia']);
    expect(api.media.arm).toHaveBeenCalledWith({ kinds: ['camera'] });

    await user.click(await screen.findByRole('button', { name: 'Take photo' }));
    await screen.findByRole('button', { name: 'Send' });
    const [request] = api.photo.stage.mock.calls[0]!;
    expect(request).toMatchObject({ kind: 'frame', width: 640, height: 480 });
    // The pixels as bytes, not text.
    const { rgba } = request as { rgba: Uint8Array };
    expect(rgba).toBeInstanceOf(Uint8Array);
    expect(rgba.byteLength).toBe(640 * 480 * 4);
    expect([rgba[0], rgba.at(-1)]).toEqual([200, 200]);
    // The camera is off as soon as the frame is read.
    expect(streams[0]!.track.stop).toHaveBeenCalled();
    expect(api.media.disarm).toHaveBeenCalledWith({ kinds: ['camera'] });
    expect(screen.queryByLabelText('Camera preview')).toBeNull();

    const image = screen.getByRole<HTMLImageElement>('img', { name: 'The photo as it will be sent, 640 × 480 pixels' });
    expect(image.getAttribute('src')).toBe('blob:photo-1');
    expect(screen.getByText('640 × 480 pixels, 1.2 KB')).toBeTruthy();

    await user.click(button('Send'));
    expect(onSend).toHaveBeenCalledWith('photo-1');
    expect(revoked).toEqual(['blob:photo-1']);
    // Sent photos stay in main for the session to take: not discarded.
    expect(api.photo.discard).not.toHaveBeenCalled();
    expect(screen.queryByRole('img')).toBeNull();
  });

  it('Retake discards the photo in main, revokes its preview and opens the camera again', async () => {
    const { api, user } = renderCapture();
    await user.click(button('Open camera'));
    await user.click(await screen.findByRole('button', { name: 'Take photo' }));
    await user.click(await screen.findByRole('button', { name: 'Retake' }));
    expect(api.photo.discard).toHaveBeenCalledWith({ photoId: 'photo-1' });
    expect(revoked).toEqual(['blob:photo-1']);
    await screen.findByLabelText('Camera preview');
    expect(getUserMedia).toHaveBeenCalledTimes(2);
    expect(api.media.arm).toHaveBeenCalledTimes(2);
  });

  it('Discard releases the photo and says so', async () => {
    const { api, user } = renderCapture();
    await user.click(button('Open camera'));
    await user.click(await screen.findByRole('button', { name: 'Take photo' }));
    await user.click(await screen.findByRole('button', { name: 'Discard' }));
    expect(api.photo.discard).toHaveBeenCalledWith({ photoId: 'photo-1' });
    expect(revoked).toEqual(['blob:photo-1']);
    expect(screen.getByText('Photo discarded.')).toBeTruthy();
    expect(button('Open camera')).toBeTruthy();
  });

  it('Close camera stops every track and disarms', async () => {
    const { api, user } = renderCapture();
    await user.click(button('Open camera'));
    await user.click(await screen.findByRole('button', { name: 'Close camera' }));
    expect(streams[0]!.track.stopped).toBe(true);
    expect(api.media.disarm).toHaveBeenCalledTimes(1);
    expect(button('Open camera')).toBeTruthy();
  });

  it('unmounting while the preview is live stops the tracks and disarms', async () => {
    const { api, user, unmount } = renderCapture();
    await user.click(button('Open camera'));
    await screen.findByRole('button', { name: 'Take photo' });
    unmount();
    expect(streams[0]!.track.stopped).toBe(true);
    expect(api.media.disarm).toHaveBeenCalledWith({ kinds: ['camera'] });
  });

  it('unmounting with a photo under review discards it in main and revokes its preview', async () => {
    const { api, user, unmount } = renderCapture();
    await user.click(button('Open camera'));
    await user.click(await screen.findByRole('button', { name: 'Take photo' }));
    await screen.findByRole('button', { name: 'Send' });
    unmount();
    expect(api.photo.discard).toHaveBeenCalledWith({ photoId: 'photo-1' });
    expect(revoked).toEqual(created);
  });

  it('a close during start-up wins: the late stream is stopped at once', async () => {
    let resolve!: (stream: FakeStream) => void;
    const track = new FakeTrack('cam-front');
    getUserMedia.mockImplementationOnce(() => new Promise((done) => (resolve = done)));
    const { api, unmount } = renderCapture();
    fireEvent.click(button('Open camera'));
    await waitFor(() => expect(getUserMedia).toHaveBeenCalled());
    unmount();
    await act(async () => resolve({ track, getTracks: () => [track], getVideoTracks: () => [track] }));
    expect(track.stopped).toBe(true);
    expect(api.media.disarm).toHaveBeenCalled();
  });

  it('remembers the chosen camera and opens it next time', async () => {
    const first = renderCapture();
    await first.user.click(button('Open camera'));
    const picker = await screen.findByRole<HTMLSelectElement>('combobox', { name: 'Camera' });
    expect([...picker.options].map((option) => option.textContent)).toEqual(['Front camera', 'USB camera']);
    await first.user.selectOptions(picker, 'cam-usb');
    await waitFor(() => expect(getUserMedia).toHaveBeenLastCalledWith({ video: { deviceId: { exact: 'cam-usb' } }, audio: false }));
    // Switching stopped the first camera.
    expect(streams[0]!.track.stopped).toBe(true);
    expect(localStorage.getItem(cameraStorageKey)).toBe('cam-usb');
    first.unmount();

    const second = renderCapture();
    await second.user.click(button('Open camera'));
    await screen.findByLabelText('Camera preview');
    expect(getUserMedia).toHaveBeenLastCalledWith({ video: { deviceId: { exact: 'cam-usb' } }, audio: false });
  });

  it('a remembered camera that is gone falls back to the default one and is forgotten', async () => {
    localStorage.setItem(cameraStorageKey, 'cam-gone');
    installCamera({
      fail: (constraints) => {
        const video = constraints.video as { deviceId?: { exact: string } } | true;
        return video !== true && video.deviceId?.exact === 'cam-gone' ? Object.assign(new Error('gone'), { name: 'OverconstrainedError' }) : undefined;
      },
    });
    const { user } = renderCapture();
    await user.click(button('Open camera'));
    await screen.findByRole('button', { name: 'Take photo' });
    expect(getUserMedia).toHaveBeenLastCalledWith({ video: true, audio: false });
    expect(localStorage.getItem(cameraStorageKey)).toBeNull();
  });

  it('a refused permission is explained, and the camera is disarmed again', async () => {
    installCamera({ fail: () => Object.assign(new Error('denied'), { name: 'NotAllowedError' }) });
    const { api, user } = renderCapture();
    await user.click(button('Open camera'));
    expect((await screen.findByRole('alert')).textContent).toBe(photoEn['photo.error.denied']);
    expect(api.media.disarm).toHaveBeenCalledWith({ kinds: ['camera'] });
    expect(button('Open camera')).toBeTruthy();
  });
});

describe('PhotoCapture: files', () => {
  it('a chosen file goes to main as its bytes and comes back for review', async () => {
    const { api, user } = renderCapture();
    const file = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])], 'holiday.png', { type: 'image/png' });
    await user.upload(screen.getByTestId('photo-file-input'), file);
    await screen.findByRole('button', { name: 'Send' });
    expect(api.photo.stage).toHaveBeenCalledWith({ kind: 'file', bytes: Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 1, 2, 3) });
    // No camera for files.
    expect(getUserMedia).not.toHaveBeenCalled();
    expect(button('Choose another')).toBeTruthy();
  });

  it('a dropped file is used the same way', async () => {
    const { api } = renderCapture();
    const file = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'photo.jpg', { type: 'image/jpeg' });
    const zone = screen.getByTestId('photo-drop-zone');
    fireEvent.dragOver(zone, { dataTransfer: { types: ['Files'], files: [file], dropEffect: 'none' } });
    expect(screen.getByText('Drop the picture to use it')).toBeTruthy();
    fireEvent.drop(zone, { dataTransfer: { types: ['Files'], files: [file] } });
    await screen.findByRole('button', { name: 'Send' });
    expect(api.photo.stage).toHaveBeenCalledWith({ kind: 'file', bytes: Uint8Array.of(0xff, 0xd8, 0xff, 0xe0) });
  });

  it('a file over 24 MB is refused before it is read', async () => {
    const { api, user } = renderCapture();
    const file = new File([new Uint8Array(4)], 'huge.jpg', { type: 'image/jpeg' });
    Object.defineProperty(file, 'size', { value: 24 * 1024 * 1024 + 1 });
    const read = vi.spyOn(file, 'arrayBuffer');
    await user.upload(screen.getByTestId('photo-file-input'), file);
    expect((await screen.findByRole('alert')).textContent).toBe(photoEn['photo.error.tooLarge']);
    expect(read).not.toHaveBeenCalled();
    expect(api.photo.stage).not.toHaveBeenCalled();
  });

  it('main’s refusal is shown as it says it', async () => {
    const api = fakeApi(() => fail('invalid_image' as never, 'GIF pictures cannot be used. Choose a JPEG, PNG or WebP picture.'));
    const { user } = renderCapture(api);
    await user.upload(screen.getByTestId('photo-file-input'), new File([new Uint8Array([0x47, 0x49, 0x46])], 'renamed.png', { type: 'image/png' }));
    expect((await screen.findByRole('alert')).textContent).toBe('GIF pictures cannot be used. Choose a JPEG, PNG or WebP picture.');
    expect(created).toEqual([]);
  });
});

describe('PhotoCapture on a kiosk (issue #27)', () => {
  const kioskPolicy = (filePicker?: boolean): DevicePolicyStatus => ({
    state: 'active',
    file: '/etc/agentdesk/policy.json',
    kiosk: true,
    agentsLocked: true,
    forced: [],
    camera: true,
    ...(filePicker === undefined ? {} : { filePicker }),
    voice: true,
    adminPin: true,
  });
  function renderUnder(policy: DevicePolicyStatus, initialFile?: File) {
    const api = fakeApi();
    render(
      <PolicyContext.Provider value={policy}>
        <I18nProvider setting="en">
          <PhotoCapture api={api} onSend={vi.fn()} {...(initialFile ? { initialFile } : {})} />
        </I18nProvider>
      </PolicyContext.Provider>,
    );
    return api;
  }

  it('offers no file chooser where the policy forbids photos from files (a kiosk by default): no button, no file input, no drop', async () => {
    const dropped = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'photo.jpg', { type: 'image/jpeg' });
    for (const policy of [kioskPolicy(false), kioskPolicy(undefined), { state: 'none', kiosk: true } as const]) {
      const api = renderUnder(policy, dropped);
      expect(screen.getByRole('button', { name: 'Open camera' })).toBeTruthy();
      expect(screen.queryByRole('button', { name: photoEn['photo.chooseFile'] })).toBeNull();
      expect(screen.queryByTestId('photo-file-input')).toBeNull();
      expect(screen.queryByText(photoEn['photo.dropHint'])).toBeNull();
      const zone = screen.getByTestId('photo-drop-zone');
      fireEvent.dragOver(zone, { dataTransfer: { types: ['Files'], files: [dropped], dropEffect: 'none' } });
      fireEvent.drop(zone, { dataTransfer: { types: ['Files'], files: [dropped] } });
      await act(async () => undefined);
      expect(api.photo.stage).not.toHaveBeenCalled();
      cleanup();
    }
  });

  it('offers it where the policy allows it (camera.filePicker)', async () => {
    renderUnder(kioskPolicy(true));
    expect(screen.getByRole('button', { name: photoEn['photo.chooseFile'] })).toBeTruthy();
    expect(screen.getByTestId('photo-file-input')).toBeTruthy();
  });
});

describe('PhotoCapture in Czech, and in a dialog', () => {
  it('every visible string comes from the catalogue', async () => {
    const { user } = renderCapture(fakeApi(), 'cs');
    expect(button(photoCs['photo.openCamera'])).toBeTruthy();
    expect(screen.getByText(photoCs['photo.dropHint'])).toBeTruthy();
    await user.click(button(photoCs['photo.openCamera']));
    await user.click(await screen.findByRole('button', { name: photoCs['photo.capture'] }));
    expect(await screen.findByText('640 × 480 pixelů, 1,2 kB')).toBeTruthy();
    expect(button(photoCs['photo.send'])).toBeTruthy();
  });

  it('PhotoDialog: Escape closes it; closing releases the camera', async () => {
    const api = fakeApi();
    const onClose = vi.fn();
    const { rerender } = render(
      <I18nProvider setting="en">
        <PhotoDialog api={api} onSend={vi.fn()} onClose={onClose} />
      </I18nProvider>,
    );
    const dialog = screen.getByRole('dialog', { name: 'Take or choose a photo' });
    expect(document.activeElement?.textContent).toBe('Close');
    fireEvent.click(button('Open camera'));
    await screen.findByRole('button', { name: 'Take photo' });
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(onClose).toHaveBeenCalled();
    rerender(<I18nProvider setting="en">{null}</I18nProvider>);
    expect(streams[0]!.track.stopped).toBe(true);
    expect(api.media.disarm).toHaveBeenCalled();
  });

  it('PhotoDialog traps Tab inside it and gives focus back to the opener on close', async () => {
    const api = fakeApi();
    const user = userEvent.setup();
    function Opener() {
      const [open, setOpen] = useState(false);
      return (
        <I18nProvider setting="en">
          <button type="button" onClick={() => setOpen(true)}>
            Open the photo dialog
          </button>
          <button type="button">Behind the dialog</button>
          {open ? <PhotoDialog api={api} onSend={vi.fn()} onClose={() => setOpen(false)} /> : null}
        </I18nProvider>
      );
    }
    render(<Opener />);
    const opener = button('Open the photo dialog');
    await user.click(opener);
    const dialog = screen.getByRole('dialog', { name: 'Take or choose a photo' });
    const inside = [...dialog.querySelectorAll<HTMLElement>('button:not([disabled]), input:not([disabled]), [tabindex]')].filter(
      (el) => el.getAttribute('tabindex') !== '-1',
    );
    const first = inside[0]!;
    const last = inside[inside.length - 1]!;
    expect(document.activeElement).toBe(first);
    last.focus();
    await user.tab();
    expect(document.activeElement).toBe(first);
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(last);
    for (let step = 0; step < inside.length + 2; step += 1) {
      await user.tab();
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });
});
