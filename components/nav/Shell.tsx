'use client';
// The frame of every page: a left navigation with live badges (a top bar with a menu on phones).
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';
import type { RunningListJson, StatsJson } from '../api';
import { useLive } from '../live';
import { cx } from '../ui/cx';
import { Icon, type IconName } from '../ui/Icon';
import { Account, Initial } from './Account';
import { Shortcuts } from './Shortcuts';
import { ThemeToggle } from './ThemeToggle';

type Badge = { n: number; tone: 'red' | 'amber' | 'green' | 'blue' } | null;

/** The Running badge: what runs now (ExecutionStatus, never what a pool claimed ahead). */
const runningBadge = (n: number): Badge => (n ? { n, tone: 'amber' } : null);

interface Item {
  href: string;
  label: string;
  icon: IconName;
  badge?: (s: StatsJson) => Badge;
}

const ITEMS: Item[] = [
  {
    href: '/',
    label: 'Overview',
    icon: 'overview',
    badge: (s) => (s.totals.pending ? { n: s.totals.pending, tone: 'blue' } : null),
  },
  {
    href: '/running',
    label: 'Running',
    icon: 'running',
    // on the Running page, its own list's answer (NavLinks)
    badge: (s) => runningBadge(s.totals.running),
  },
  { href: '/tasks', label: 'Tasks', icon: 'tasks' },
  { href: '/queues', label: 'Queues', icon: 'queues' },
  { href: '/batches', label: 'Batches', icon: 'batches' },
  { href: '/flows', label: 'Flows', icon: 'flows' },
  { href: '/schedules', label: 'Schedules', icon: 'schedules' },
  { href: '/events', label: 'Events', icon: 'events' },
  { href: '/log', label: 'Execution log', icon: 'log' },
  {
    href: '/failed',
    label: 'Failed & poison',
    icon: 'failed',
    badge: (s) => (s.totals.dead ? { n: s.totals.dead, tone: 'red' } : null),
  },
  {
    href: '/workers',
    label: 'Workers',
    icon: 'workers',
    badge: (s) => ({ n: s.workers.filter((w) => w.state === 'running').length, tone: 'green' }),
  },
  { href: '/alerts', label: 'Alerts', icon: 'alerts' },
  { href: '/audit', label: 'Audit', icon: 'audit' },
  { href: '/enqueue', label: 'Enqueue', icon: 'enqueue' },
];

const BADGE: Record<string, string> = {
  red: 'bg-rose-500 text-white',
  amber: 'bg-amber-400 text-amber-950',
  green: 'bg-emerald-500/20 text-emerald-300',
  blue: 'bg-sky-500/20 text-sky-300',
};

function isActive(pathname: string, href: string) {
  if (href === '/') return pathname === '/';
  return pathname === href || pathname.startsWith(`${href}/`);
}

function Brand() {
  return (
    <Link href="/" className="flex items-center gap-2 text-white">
      <span className="flex size-7 items-center justify-center rounded-md bg-brand-500 font-mono text-sm font-bold">rp</span>
      <span className="text-base font-semibold tracking-tight">readpast</span>
    </Link>
  );
}

function LiveDot({ ok, loading }: { ok: boolean; loading: boolean }) {
  return (
    <span data-testid="live-indicator" className="flex items-center gap-1.5 text-xs text-slate-400">
      <span className={cx('size-2 rounded-full', loading ? 'bg-slate-500' : ok ? 'animate-pulse bg-emerald-400' : 'bg-rose-500')} />
      {loading ? 'connecting' : ok ? 'live' : 'offline'}
    </span>
  );
}

function NavLinks({ pathname, stats, onNavigate }: { pathname: string; stats: StatsJson | undefined; onNavigate?: () => void }) {
  // on the Running page the badge counts the rows it lists: the same answer (one poll serves both), drawn from
  // that list alone — the stats, a poll of their own, may answer after it (a page just opened)
  const onRunning = isActive(pathname, '/running');
  const list = useLive<RunningListJson>(['running'], '/api/running', { enabled: onRunning });
  const running = onRunning && list.data ? list.data.items.length : null;
  return (
    <ul className="space-y-0.5">
      {ITEMS.map((it) => {
        const active = isActive(pathname, it.href);
        const b = it.href === '/running' && running !== null ? runningBadge(running) : stats && it.badge?.(stats);
        return (
          <li key={it.href}>
            <Link
              href={it.href}
              onClick={onNavigate}
              data-testid={`nav-${it.href === '/' ? 'overview' : it.href.slice(1)}`}
              aria-current={active ? 'page' : undefined}
              className={cx(
                'flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium transition-colors',
                active ? 'bg-white/10 text-white' : 'text-slate-300 hover:bg-white/5 hover:text-white',
              )}
            >
              <Icon name={it.icon} />
              <span className="flex-1">{it.label}</span>
              {b && (
                <span
                  data-testid={`nav-badge-${it.href === '/' ? 'overview' : it.href.slice(1)}`}
                  className={cx('tabular min-w-6 rounded-full px-1.5 py-0.5 text-center text-[11px] font-semibold', BADGE[b.tone])}
                >
                  {b.n > 999 ? '999+' : b.n}
                </span>
              )}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

export function Shell({ children }: { children: ReactNode }) {
  const pathname = usePathname() ?? '/';
  const stats = useLive<StatsJson>(['stats'], '/api/stats');
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [pathname]);
  const ok = !stats.isError;

  return (
    <div className="md:flex md:min-h-dvh">
      {/* wide screens: fixed left navigation */}
      <aside className="hidden md:fixed md:inset-y-0 md:flex md:w-60 md:flex-col md:bg-slate-900">
        <div className="flex h-14 items-center px-5">
          <Brand />
        </div>
        <nav aria-label="Main" className="flex-1 overflow-y-auto px-3 py-2">
          <NavLinks pathname={pathname} stats={stats.data} />
        </nav>
        <Account className="border-t border-white/10 px-5 py-3" />
        <div className="border-t border-white/10 px-5 py-3">
          <LiveDot ok={ok} loading={stats.isPending} />
          <p className="mt-1 text-[11px] text-slate-500">refreshes every second while visible</p>
          <ThemeToggle />
        </div>
      </aside>

      {/* phones: top bar with a menu */}
      <header className="sticky top-0 z-40 bg-slate-900 md:hidden">
        <div className="flex h-12 items-center justify-between px-4">
          <Brand />
          <div className="flex items-center gap-3">
            <Initial />
            <ThemeToggle compact />
            <LiveDot ok={ok} loading={stats.isPending} />
            <button
              type="button"
              data-testid="nav-menu"
              aria-expanded={menuOpen}
              aria-controls="mobile-nav"
              onClick={() => setMenuOpen((v) => !v)}
              className="rounded-md p-1.5 text-slate-300 hover:bg-white/10 hover:text-white"
            >
              <span className="sr-only">Menu</span>
              <svg
                viewBox="0 0 24 24"
                className="size-5"
                fill="none"
                stroke="currentColor"
                strokeWidth={2}
                strokeLinecap="round"
                aria-hidden
              >
                {menuOpen ? <path d="M6 6l12 12M18 6 6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
              </svg>
            </button>
          </div>
        </div>
        {menuOpen && (
          <nav id="mobile-nav" aria-label="Main" className="border-t border-white/10 px-3 py-2">
            <Account layout="row" className="mb-2 border-b border-white/10 px-3 pt-1 pb-3" />
            <NavLinks pathname={pathname} stats={stats.data} onNavigate={() => setMenuOpen(false)} />
          </nav>
        )}
      </header>

      <Shortcuts />
      <main className="min-w-0 flex-1 md:pl-60">
        <div className="mx-auto max-w-7xl px-4 py-5 sm:px-6 md:py-7 lg:px-8">{children}</div>
      </main>
    </div>
  );
}
