'use client';
// Keyboard shortcuts: `g` then a letter switches page, `/` focuses the page's search box (an input marked
// `data-search`, else the first search input), `?` lists them. Ignored while typing in a field.
import { usePathname, useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';

/** `g` + key → page */
export const GO_TO: readonly { key: string; href: string; label: string }[] = [
  { key: 'o', href: '/', label: 'Overview' },
  { key: 'r', href: '/running', label: 'Running' },
  { key: 't', href: '/tasks', label: 'Tasks' },
  { key: 'q', href: '/queues', label: 'Queues' },
  { key: 'l', href: '/log', label: 'Execution log' },
  { key: 'f', href: '/failed', label: 'Failed & poison' },
  { key: 'w', href: '/workers', label: 'Workers' },
  { key: 's', href: '/schedules', label: 'Schedules' },
];

/**
 * how long after `g` the second key is taken, between the keystrokes' own times (`event.timeStamp`): a page
 * busy drawing when the second key comes handles it late, and the chord still holds
 */
const CHORD_MS = 1500;

/** Opens the list of shortcuts from anywhere (the navigation's `?` button). */
export const SHORTCUTS_EVENT = 'readpast:shortcuts';

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.closest !== 'function') return false;
  return !!el.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]');
}

function searchBox(): HTMLInputElement | null {
  const candidates = [...document.querySelectorAll<HTMLInputElement>('input[data-search], input[type="search"]')];
  const visible = candidates.filter((i) => !i.disabled && i.offsetParent !== null);
  return visible.find((i) => i.hasAttribute('data-search')) ?? visible[0] ?? null;
}

export function Shortcuts() {
  const router = useRouter();
  const pathname = usePathname();
  const [help, setHelp] = useState(false);
  const [pendingG, setPendingG] = useState(false);
  const gAt = useRef(0);
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
      if (typing(e.target)) return;
      if (dialog.current?.open && e.key !== '?') return;
      const key = e.key;
      if (gAt.current && e.timeStamp - gAt.current < CHORD_MS) {
        gAt.current = 0;
        setPendingG(false);
        const target = GO_TO.find((x) => x.key === key.toLowerCase());
        if (target) {
          e.preventDefault();
          if (target.href !== pathname) router.push(target.href);
          return;
        }
      }
      if (key === 'g') {
        gAt.current = e.timeStamp;
        setPendingG(true);
        return;
      }
      if (key === '/') {
        const box = searchBox();
        if (box) {
          e.preventDefault();
          box.focus();
          box.select();
        }
        return;
      }
      if (key === '?') {
        e.preventDefault();
        setHelp((v) => !v);
      }
    };
    const open = () => setHelp(true);
    document.addEventListener('keydown', onKey);
    window.addEventListener(SHORTCUTS_EVENT, open);
    return () => {
      document.removeEventListener('keydown', onKey);
      window.removeEventListener(SHORTCUTS_EVENT, open);
    };
  }, [router, pathname]);

  // the hint shows a moment only; whether a key completes the chord is decided by the keystrokes' times
  // above (this timer, late on a busy page, may fire after a second key typed in time)
  useEffect(() => {
    if (!pendingG) return;
    const t = setTimeout(() => setPendingG(false), CHORD_MS);
    return () => clearTimeout(t);
  }, [pendingG]);

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (help && !d.open) d.showModal();
    if (!help && d.open) d.close();
  }, [help]);

  return (
    <>
      {pendingG && (
        <div
          data-testid="shortcut-pending"
          className="fixed right-4 bottom-4 z-50 rounded-md bg-slate-900 px-3 py-1.5 text-xs text-white shadow-lg"
          aria-live="polite"
        >
          g … <span className="text-slate-400">then o r t q l f w s</span>
        </div>
      )}
      <dialog
        ref={dialog}
        data-testid="shortcuts-help"
        aria-labelledby="shortcuts-title"
        onClose={() => setHelp(false)}
        onClick={(e) => {
          if (e.target === dialog.current) setHelp(false); // a click on the backdrop
        }}
        className="m-auto w-[min(26rem,calc(100vw-2rem))] rounded-lg p-0 shadow-xl"
      >
        {help && (
          <div className="p-5">
            <div className="flex items-center justify-between">
              <h2 id="shortcuts-title" className="text-base font-semibold text-slate-900">
                Keyboard shortcuts
              </h2>
              <button
                type="button"
                onClick={() => setHelp(false)}
                className="rounded p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-800"
                data-testid="shortcuts-close"
              >
                <span className="sr-only">Close</span>
                <svg
                  viewBox="0 0 24 24"
                  className="size-4"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth={2}
                  strokeLinecap="round"
                  aria-hidden
                >
                  <path d="M6 6l12 12M18 6 6 18" />
                </svg>
              </button>
            </div>
            <table className="mt-3 w-full text-sm">
              <tbody className="divide-y divide-slate-100">
                {GO_TO.map((x) => (
                  <tr key={x.key}>
                    <td className="py-1.5 pr-4 whitespace-nowrap">
                      <kbd>g</kbd> <kbd>{x.key}</kbd>
                    </td>
                    <td className="py-1.5 text-slate-700">{x.label}</td>
                  </tr>
                ))}
                <tr>
                  <td className="py-1.5 pr-4">
                    <kbd>/</kbd>
                  </td>
                  <td className="py-1.5 text-slate-700">Focus the page&apos;s search box</td>
                </tr>
                <tr>
                  <td className="py-1.5 pr-4">
                    <kbd>?</kbd>
                  </td>
                  <td className="py-1.5 text-slate-700">This list</td>
                </tr>
              </tbody>
            </table>
            <p className="mt-3 text-xs text-slate-500">Shortcuts are ignored while you type in a field. Esc closes this list.</p>
          </div>
        )}
      </dialog>
    </>
  );
}
