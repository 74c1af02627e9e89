import { useCallback, useEffect, useId, useRef, useState, type DragEvent } from 'react';
import { ErrorText, type ShownError } from '../../components/ErrorText';
import { useCamera, type CameraError } from '../../hooks/useCamera';
import { asBytes } from '../../../shared/base/binary';
import { jpegDataUrlToBlob, maxFrameSide, maxPhotoRequestBytes, type PhotoCaptureApi, type PhotoStageRequest, type StagedPhotoView } from './photo-api';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { usePolicyView } from '../../kiosk/policy-context';
import './photo.css';

export interface PhotoCaptureProps {
  /** `window.agentdesk` (or anything with media.arm/disarm and photo.stage/discard). */
  api: PhotoCaptureApi;
  /** The user pressed Send: main holds the photo under this id for the session to take. */
  onSend(photoId: string): void;
  /** A file dropped on the window before this opened: it is processed at once, as a chosen one. */
  initialFile?: File;
  /**
   * The host reviews the photo itself (AgentCall: in the conversation, with Send and Discard): it is
   * handed over as soon as main has processed it, and from then on the host discards it if it is not sent.
   */
  onStaged?(photo: StagedPhotoView): void;
}

type Review = { photo: StagedPhotoView; url: string; source: 'camera' | 'file' };
type Problem = { key: MessageKey } | { ipc: ShownError };

const cameraErrorKeys: Record<CameraError, MessageKey> = {
  denied: 'photo.error.denied',
  noCamera: 'photo.error.noCamera',
  busy: 'photo.error.busy',
  failed: 'photo.error.failed',
  unavailable: 'photo.error.unavailable',
};

/**
 * Take a photo with a camera, or choose / drop an image file; main turns it into the stripped,
 * bounded JPEG that would be sent, and the user sees exactly that before Send, Retake or Discard.
 *
 * Privacy: the camera opens only from the Open camera button (permission is armed in main right
 * before, disarmed when the preview closes); the stream's tracks stop as soon as a photo is taken
 * or the preview closes; frame and file bytes are dropped once main has them; the preview is an
 * object URL that is revoked when the photo is sent, discarded or this component goes away, and
 * a photo that was not sent is discarded in main too.
 */
export function PhotoCapture({ api, onSend, initialFile, onStaged }: PhotoCaptureProps) {
  const { t, language } = useI18n();
  // Photos from files (the system's file dialog, a dropped picture): absent where the device policy forbids them (a kiosk by default).
  const { filePicker } = usePolicyView();
  const camera = useCamera(api.media);
  const [review, setReview] = useState<Review | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const [dragging, setDragging] = useState(false);
  const video = useRef<HTMLVideoElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const pickerId = useId();
  const factsId = useId();
  /** The staged photo that main still holds for us (not sent): discarded on unmount. */
  const held = useRef<{ photoId: string; url: string } | undefined>(undefined);
  const mounted = useRef(true);

  const { state, close: closeCamera, open: openCameraStream } = camera;
  const stream = state.status === 'live' ? state.stream : undefined;

  useEffect(() => {
    const element = video.current;
    if (!element || !stream) return undefined;
    element.srcObject = stream;
    void element.play().catch(() => undefined);
    return () => {
      element.srcObject = null;
    };
  }, [stream]);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      const left = held.current;
      held.current = undefined;
      if (left) {
        URL.revokeObjectURL(left.url);
        void api.photo.discard({ photoId: left.photoId });
      }
    };
  }, [api]);

  /** Forget the review: revoke its URL and, unless it was sent, discard it in main. */
  const dropReview = useCallback(
    (discardInMain: boolean) => {
      const current = held.current;
      held.current = undefined;
      setReview(undefined);
      if (!current) return;
      URL.revokeObjectURL(current.url);
      if (discardInMain) void api.photo.discard({ photoId: current.photoId });
    },
    [api],
  );

  const stage = useCallback(
    async (request: PhotoStageRequest, source: Review['source']) => {
      setBusy(true);
      setProblem(undefined);
      setNotice('');
      const result = await api.photo.stage(request);
      if (!mounted.current) {
        if (result.ok) void api.photo.discard({ photoId: result.value.photoId });
        return;
      }
      setBusy(false);
      if (!result.ok) return setProblem({ ipc: result.error });
      if (onStaged) return onStaged(result.value);
      const blob = jpegDataUrlToBlob(result.value.preview);
      if (!blob) {
        void api.photo.discard({ photoId: result.value.photoId });
        return setProblem({ key: 'photo.error.readFailed' });
      }
      const url = URL.createObjectURL(blob);
      held.current = { photoId: result.value.photoId, url };
      setReview({ photo: { ...result.value, preview: '' }, url, source });
    },
    [api, onStaged],
  );

  const openCamera = useCallback(async () => {
    setProblem(undefined);
    setNotice('');
    await openCameraStream();
  }, [openCameraStream]);

  const capture = useCallback(async () => {
    const element = video.current;
    const width = element?.videoWidth ?? 0;
    const height = element?.videoHeight ?? 0;
    if (!element || width === 0 || height === 0) return setProblem({ key: 'photo.error.noFrame' });
    const scale = Math.min(1, maxFrameSide / Math.max(width, height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) return setProblem({ key: 'photo.error.noFrame' });
    context.drawImage(element, 0, 0, canvas.width, canvas.height);
    const request: PhotoStageRequest = {
      kind: 'frame',
      width: canvas.width,
      height: canvas.height,
      // The canvas's own pixel buffer, viewed as plain bytes (no copy, no text).
      rgba: asBytes(context.getImageData(0, 0, canvas.width, canvas.height).data),
    };
    // The frame is read: the camera goes off now, and the canvas lets go of its pixels.
    closeCamera();
    canvas.width = 0;
    canvas.height = 0;
    await stage(request, 'camera');
  }, [closeCamera, stage]);

  const takeFile = useCallback(
    async (file: File | undefined) => {
      if (!file) return setProblem({ key: 'photo.error.notAFile' });
      if (file.size > maxPhotoRequestBytes) return setProblem({ key: 'photo.error.tooLarge' });
      closeCamera();
      dropReview(true);
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await file.arrayBuffer());
      } catch {
        return setProblem({ key: 'photo.error.readFailed' });
      }
      await stage({ kind: 'file', bytes }, 'file');
    },
    [closeCamera, dropReview, stage],
  );

  // Once per capture (a ref, so React's development double effects do not stage it twice).
  const initialTaken = useRef(false);
  useEffect(() => {
    if (initialFile === undefined || initialTaken.current || !filePicker) return;
    initialTaken.current = true;
    void takeFile(initialFile);
  }, [initialFile, takeFile, filePicker]);

  const send = () => {
    const current = held.current;
    if (!current) return;
    dropReview(false);
    onSend(current.photoId);
  };

  const discard = () => {
    dropReview(true);
    setNotice(t('photo.discarded'));
  };

  const retake = async () => {
    const source = review?.source;
    dropReview(true);
    if (source === 'camera') await openCamera();
    else fileInput.current?.click();
  };

  const onDragOver = (event: DragEvent<HTMLDivElement>) => {
    if (!filePicker || !event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    if (busy || !filePicker) return;
    void takeFile(event.dataTransfer.files[0]);
  };

  const cameraError = state.status === 'closed' && state.error ? state.error : undefined;
  const shownProblem = problem ?? (cameraError ? { key: cameraErrorKeys[cameraError] } : undefined);
  const kb = (bytes: number) => new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(bytes / 1024);

  return (
    <div
      className={`photo-capture${dragging ? ' photo-capture--dragging' : ''}`}
      onDragOver={onDragOver}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      data-testid="photo-drop-zone"
    >
      {review ? (
        <figure className="photo-capture__review">
          <img
            className="photo-capture__image"
            src={review.url}
            alt={t('photo.reviewAlt', { width: review.photo.pixelWidth, height: review.photo.pixelHeight })}
            aria-describedby={factsId}
          />
          <figcaption id={factsId}>
            <span className="photo-capture__facts">
              {t('photo.facts', { width: review.photo.pixelWidth, height: review.photo.pixelHeight, size: kb(review.photo.byteCount) })}
            </span>
            <span className="muted">{t('photo.privacy')}</span>
          </figcaption>
          <div className="button-row">
            <button type="button" className="button button--primary" onClick={send}>
              {t('photo.send')}
            </button>
            <button type="button" className="button button--secondary" onClick={() => void retake()}>
              {t(review.source === 'camera' ? 'photo.retake' : 'photo.chooseAnother')}
            </button>
            <button type="button" className="button button--secondary button--danger" onClick={discard}>
              {t('photo.discard')}
            </button>
          </div>
        </figure>
      ) : state.status === 'live' || state.status === 'starting' ? (
        <div className="photo-capture__live">
          <video ref={video} className="photo-capture__video" autoPlay playsInline muted aria-label={t('photo.previewLabel')} />
          {state.status === 'starting' ? <p role="status">{t('photo.openingCamera')}</p> : null}
          {camera.devices.length > 1 ? (
            <div className="field photo-capture__picker">
              <label className="field__label" htmlFor={pickerId}>
                {t('photo.cameraLabel')}
              </label>
              <select
                id={pickerId}
                value={state.status === 'live' ? (state.deviceId ?? camera.deviceId ?? '') : (camera.deviceId ?? '')}
                onChange={(event) => camera.selectDevice(event.target.value)}
              >
                {camera.devices.map((device, index) => (
                  <option key={device.deviceId || index} value={device.deviceId}>
                    {device.label.trim() !== '' ? device.label : t('photo.cameraNumbered', { number: index + 1 })}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          <div className="button-row">
            <button type="button" className="button button--primary" onClick={() => void capture()} disabled={state.status !== 'live' || busy}>
              {t('photo.capture')}
            </button>
            <button type="button" className="button button--secondary" onClick={closeCamera}>
              {t('photo.closeCamera')}
            </button>
          </div>
        </div>
      ) : (
        <div className="photo-capture__start">
          <div className="button-row">
            <button type="button" className="button button--primary" onClick={() => void openCamera()} disabled={busy}>
              {t('photo.openCamera')}
            </button>
            {filePicker ? (
              <button type="button" className="button button--secondary" onClick={() => fileInput.current?.click()} disabled={busy}>
                {t('photo.chooseFile')}
              </button>
            ) : null}
          </div>
          {filePicker ? <p className="muted">{dragging ? t('photo.dropHere') : t('photo.dropHint')}</p> : null}
        </div>
      )}
      {filePicker ? (
        <input
          ref={fileInput}
          className="visually-hidden"
          type="file"
          accept="image/jpeg,image/png,image/webp"
          tabIndex={-1}
          aria-hidden="true"
          data-testid="photo-file-input"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) void takeFile(file);
          }}
        />
      ) : null}
      {busy ? <p role="status">{t('photo.processing')}</p> : null}
      <p role="status" className="visually-hidden">
        {notice}
      </p>
      {shownProblem ? (
        <p role="alert" className="error-text">
          {'key' in shownProblem ? t(shownProblem.key) : <ErrorText error={shownProblem.ipc} />}
        </p>
      ) : null}
    </div>
  );
}
