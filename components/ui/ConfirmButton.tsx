'use client';
// A button whose action runs only after a confirmation that says what it does and to how many: for
// destructive actions (cancel, delete, retry all, kill). The dialog closes when the action has run.
import { useState, type ComponentProps, type ReactNode } from 'react';
import { Button } from './Button';
import { ConfirmDialog } from './ConfirmDialog';

export interface Confirmation {
  title: string;
  body?: ReactNode;
  /** the confirm button's label, e.g. `Cancel 3 tasks` */
  label: string;
  tone?: 'danger' | 'primary';
}

export function ConfirmButton({
  confirm,
  onConfirm,
  busy,
  ...button
}: Omit<ComponentProps<typeof Button>, 'onClick'> & {
  confirm: Confirmation;
  onConfirm: () => unknown;
}) {
  const [open, setOpen] = useState(false);
  const [running, setRunning] = useState(false);
  return (
    <>
      <Button {...button} busy={busy} onClick={() => setOpen(true)} />
      {/* mounted only while asked: a table of rows has no closed dialogs to mistake for the open one */}
      {open && (
        <ConfirmDialog
          open={open}
          title={confirm.title}
          confirmLabel={confirm.label}
          tone={confirm.tone ?? 'danger'}
          busy={running}
          onClose={() => setOpen(false)}
          onConfirm={async () => {
            setRunning(true);
            try {
              await onConfirm();
            } finally {
              setRunning(false);
              setOpen(false);
            }
          }}
        >
          {confirm.body}
        </ConfirmDialog>
      )}
    </>
  );
}
