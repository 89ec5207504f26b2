// The dashboard's one icon set: inline SVG line icons (24×24, stroked with the text colour), drawn the same in
// every browser and font setup — no emoji, which render as empty boxes where no emoji font is installed.
import { cx } from './cx';

const CIRCLE = 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20z';

export const ICONS = {
  overview: 'M3 13h8V3H3v10zm0 8h8v-6H3v6zm10 0h8V11h-8v10zm0-18v6h8V3h-8z',
  running: 'M8 5v14l11-7z',
  tasks: 'M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01',
  queues: 'M4 21v-7M4 10V3M12 21v-9M12 8V3M20 21v-5M20 12V3M1 14h6M9 8h6M17 16h6',
  batches: 'M12 2 2 7l10 5 10-5-10-5zM2 17l10 5 10-5M2 12l10 5 10-5',
  flows:
    'M5 3a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5zM5 16a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5z' +
    'M19 9.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5zM7.3 6.5l9.4 4.3M7.3 17.5l9.4-4.3',
  schedules: `${CIRCLE}M12 6v6l4 2`,
  log: 'M4 6h16M4 12h16M4 18h10',
  failed: 'M12 9v4m0 4h.01M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z',
  workers: 'M4 4h16v6H4zM4 14h16v6H4zM8 7h.01M8 17h.01',
  alerts: 'M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9M13.7 21a2 2 0 0 1-3.4 0',
  events: 'M13 2 3 14h9l-1 8 10-12h-9l1-8z',
  audit: 'M9 11l3 3 8-8M20 12v7a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h9',
  enqueue: 'M12 5v14M5 12h14',
  /** nothing here */
  empty: `${CIRCLE}M4.9 4.9l14.2 14.2`,
  /** all clear */
  check: 'M20 6 9 17l-5-5',
  /** unknown (not found) */
  help: `${CIRCLE}M9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3M12 17h.01`,
  /** idle */
  pause: `${CIRCLE}M10 15V9M14 15V9`,
  /** not started yet */
  hourglass:
    'M5 22h14M5 2h14M17 22v-4.2a2 2 0 0 0-.6-1.4L12 12l-4.4 4.4a2 2 0 0 0-.6 1.4V22' +
    'M7 2v4.2a2 2 0 0 0 .6 1.4L12 12l4.4-4.4a2 2 0 0 0 .6-1.4V2',
  /** concurrency tokens */
  key: 'M21 2l-2 2m-7.6 7.6a5.5 5.5 0 1 1-7.8 7.8 5.5 5.5 0 0 1 7.8-7.8zm0 0L15.5 7.5m0 0 3 3L22 7l-3-3m-3.5 3.5L19 4',
  /** changes over time */
  history: 'M1 4v6h6M3.5 15a9 9 0 1 0 2.1-9.4L1 10',
  /** attempts on a time axis */
  timeline: 'M3 6h9M7 12h13M5 18h8',
  /** the attempt that ended its task */
  stop: `${CIRCLE}M15 9l-6 6M9 9l6 6`,
  search: 'M11 19a8 8 0 1 0 0-16 8 8 0 0 0 0 16zM21 21l-4.35-4.35',
} as const;

export type IconName = keyof typeof ICONS;

export function Icon({ name, className }: { name: IconName; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={cx('shrink-0', className ?? 'size-4')}
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden
      data-icon={name}
    >
      <path d={ICONS[name]} />
    </svg>
  );
}
