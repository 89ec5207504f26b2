'use client';
// A modal confirmation on the native <dialog> (focus trap, Esc to close).
import { useEffect, useRef, type ReactNode } from 'react';
import { Button } from './Button';

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel = 'Confirm',
  tone = 'danger',
  busy,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel?: string;
  tone?: 'danger' | 'primary';
  busy?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      data-testid="confirm-dialog"
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg p-0 text-left shadow-xl"
    >
      {open && (
        <div className="p-5">
          <h2 className="text-base font-semibold text-slate-900">{title}</h2>
          {children && <div className="mt-2 text-sm text-slate-600">{children}</div>}
          <div className="mt-5 flex justify-end gap-2">
            <Button onClick={onClose} disabled={busy} data-testid="confirm-cancel">
              Cancel
            </Button>
            <Button variant={tone} onClick={onConfirm} busy={busy} data-testid="confirm-ok">
              {confirmLabel}
            </Button>
          </div>
        </div>
      )}
    </dialog>
  );
}
