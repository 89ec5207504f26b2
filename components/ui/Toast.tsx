'use client';
// Short-lived messages after an action ("3 tasks retried"), announced to screen readers.
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { cx } from './cx';

interface ToastItem {
  id: number;
  tone: 'success' | 'error' | 'info';
  text: string;
}

type Push = (tone: ToastItem['tone'], text: string) => void;
const ToastContext = createContext<Push>(() => {});

export function useToast(): Push {
  return useContext(ToastContext);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<ToastItem[]>([]);
  const next = useRef(1);
  const push = useCallback<Push>((tone, text) => {
    const id = next.current++;
    setItems((xs) => [...xs.slice(-3), { id, tone, text }]);
    setTimeout(() => setItems((xs) => xs.filter((x) => x.id !== id)), tone === 'error' ? 8000 : 4000);
  }, []);
  const value = useMemo(() => push, [push]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div
        aria-live="polite"
        className="pointer-events-none fixed inset-x-0 bottom-0 z-50 flex flex-col items-center gap-2 p-4 sm:items-end"
      >
        {items.map((t) => (
          <div
            key={t.id}
            role={t.tone === 'error' ? 'alert' : 'status'}
            data-testid={`toast-${t.tone}`}
            className={cx(
              'pointer-events-auto w-full max-w-sm rounded-md px-4 py-3 text-sm shadow-lg ring-1',
              t.tone === 'error'
                ? 'bg-rose-600 text-white ring-rose-700'
                : t.tone === 'success'
                  ? 'bg-slate-900 text-white ring-slate-800'
                  : 'bg-white text-slate-800 ring-slate-200',
            )}
          >
            {t.text}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
