import { useId, useRef, type KeyboardEvent } from 'react';
import type { PhotoCaptureApi, StagedPhotoView } from './photo-api';
import { PhotoCapture } from './PhotoCapture';
import { useI18n } from '../../i18n/I18nProvider';
import { useDialogFocus } from '../../hooks/useDialogFocus';

export interface PhotoDialogProps {
  api: PhotoCaptureApi;
  onSend(photoId: string): void;
  /** Close, Escape or a click outside: everything the capture held is released (camera off, photo discarded). */
  onClose(): void;
  /** A file dropped on the window that opened this dialog: processed at once. */
  initialFile?: File;
  /** The host reviews the photo itself: see PhotoCapture's `onStaged`. */
  onStaged?(photo: StagedPhotoView): void;
}

/**
 * PhotoCapture in a modal dialog, for a visible button such as the hardware strip's "Take a photo".
 * Render it only while open (`{open ? <PhotoDialog …/> : null}`): unmounting is what turns the camera
 * off and discards a photo that was not sent. Focus moves into the dialog, Tab stays inside it, and focus goes back to the opener (useDialogFocus).
 */
export function PhotoDialog({ api, onSend, onClose, initialFile, onStaged }: PhotoDialogProps) {
  const { t } = useI18n();
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);

  useDialogFocus(panel);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose();
    }
  };

  return (
    <div className="modal" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div ref={panel} className="modal__panel photo-dialog__panel" role="dialog" aria-modal="true" aria-labelledby={titleId} onKeyDown={onKeyDown}>
        <div className="photo-dialog__header">
          <h2 id={titleId} className="card__title">
            {t('photo.dialogTitle')}
          </h2>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('photo.close')}
          </button>
        </div>
        <PhotoCapture api={api} onSend={onSend} initialFile={initialFile} {...(onStaged ? { onStaged } : {})} />
      </div>
    </div>
  );
}
