'use client';
// Light, dark, or the OS's theme (the default). In the navigation's footer (wide screens, beside a button
// listing the keyboard shortcuts) and its top bar (phones, one button cycling through the three).
import { useEffect, useState } from 'react';
import { cx } from '../ui/cx';
import { SHORTCUTS_EVENT } from './Shortcuts';
import { applyChoice, storedChoice, type ThemeChoice } from './theme';

const CHOICES: { value: ThemeChoice; label: string; icon: string }[] = [
  { value: 'system', label: 'Follow the system', icon: 'M3 5h18v11H3zM8 20h8M12 16v4' },
  {
    value: 'light',
    label: 'Light',
    icon:
      'M12 17a5 5 0 1 0 0-10 5 5 0 0 0 0 10zM12 1v2M12 21v2M4.2 4.2l1.4 1.4M18.4 18.4l1.4 1.4' +
      'M1 12h2M21 12h2M4.2 19.8l1.4-1.4M18.4 5.6l1.4-1.4',
  },
  { value: 'dark', label: 'Dark', icon: 'M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z' },
];

function Icon({ d }: { d: string }) {
  return (
    <svg viewBox="0 0 24 24" className="size-3.5" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" aria-hidden>
      <path d={d} />
    </svg>
  );
}

/** The stored choice, kept in step with other tabs and, for `system`, with the OS. */
function useTheme(): [ThemeChoice | null, (c: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice | null>(null);
  useEffect(() => {
    const media = matchMedia('(prefers-color-scheme: dark)');
    const follow = () => {
      const c = storedChoice();
      setChoice(c);
      if (c === 'system') applyChoice('system');
    };
    // once now too: the OS may have switched between the first paint (THEME_SCRIPT) and this listener
    follow();
    media.addEventListener('change', follow);
    window.addEventListener('storage', follow);
    return () => {
      media.removeEventListener('change', follow);
      window.removeEventListener('storage', follow);
    };
  }, []);
  const set = (c: ThemeChoice) => {
    applyChoice(c);
    setChoice(c);
  };
  return [choice, set];
}

export function ThemeToggle({ compact = false }: { compact?: boolean }) {
  const [choice, set] = useTheme();
  if (compact) {
    const i = Math.max(
      0,
      CHOICES.findIndex((c) => c.value === choice),
    );
    const current = CHOICES[i]!;
    const next = CHOICES[(i + 1) % CHOICES.length]!;
    return (
      <button
        type="button"
        data-testid="theme-cycle"
        onClick={() => set(next.value)}
        title={`Theme: ${current.label.toLowerCase()} (click for ${next.label.toLowerCase()})`}
        className="rounded-md p-1.5 text-slate-300 hover:bg-white/10 hover:text-white"
      >
        <span className="sr-only">Theme: {current.label}</span>
        <Icon d={current.icon} />
      </button>
    );
  }
  return (
    <div className="mt-2 flex items-center justify-between gap-2">
      <div
        role="group"
        aria-label="Theme"
        data-testid="theme-toggle"
        className="inline-flex rounded-md bg-white/5 p-0.5 ring-1 ring-white/10"
      >
        {CHOICES.map((c) => (
          <button
            key={c.value}
            type="button"
            title={c.label}
            aria-label={c.label}
            aria-pressed={choice === c.value}
            data-testid={`theme-${c.value}`}
            onClick={() => set(c.value)}
            className={cx(
              'rounded px-2 py-1 transition-colors',
              choice === c.value ? 'bg-white/15 text-white' : 'text-slate-400 hover:bg-white/5 hover:text-white',
            )}
          >
            <Icon d={c.icon} />
          </button>
        ))}
      </div>
      <button
        type="button"
        data-testid="shortcuts-open"
        onClick={() => window.dispatchEvent(new Event(SHORTCUTS_EVENT))}
        className="rounded px-1.5 py-0.5 text-[11px] text-slate-400 hover:bg-white/5 hover:text-white"
        title="Keyboard shortcuts (?)"
      >
        shortcuts <span className="font-mono">?</span>
      </button>
    </div>
  );
}
