'use client';
// A table on wide screens, a stack of cards on phones (only one of the two is rendered). A table wider than
// its card scrolls sideways inside it, its pinned columns (the first by default, and an actions column at
// the end) staying in view, opaque in the row's own colour (the classes dt-* in app/globals.css).
import { useCallback, useLayoutEffect, useRef, useState, type ReactNode, type RefObject, type UIEvent } from 'react';
import { useIsDesktop } from '../live';
import { cx } from './cx';

export interface Column<T> {
  key: string;
  header: ReactNode;
  cell: (row: T) => ReactNode;
  className?: string;
  align?: 'left' | 'right' | 'center';
  /** phones: `primary` heads the card, `hide` is left out, `field` (default) shows as label and value */
  mobile?: 'primary' | 'hide' | 'field';
  /**
   * when the table scrolls sideways: `start` keeps this column and every one before it in view (default: the
   * first column; mark the name column when a checkbox comes first), `end` keeps the last column (row actions)
   */
  pin?: 'start' | 'end';
}

/** Classes of a pinned cell: sticky, above the scrolled cells, in its row's (opaque) background. */
export const PIN_CELL = 'dt-pin sticky z-[1] bg-inherit';

/**
 * The scroll box of a wide table: marks itself `data-scrolled` (scrolled from the start) and `data-more`
 * (more to see at the end), which draw the pinned columns' edges. Used by DataTable and by the tables
 * that page on their own (AlertHistory). It is the containing block of what is placed absolutely inside (a
 * screen reader's label): that scrolls with the table instead of widening the page.
 */
export function ScrollBox({ children, testId }: { children: ReactNode; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const mark = useCallback((el: HTMLDivElement) => {
    const more = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    if (el.scrollLeft > 0) el.dataset.scrolled = '';
    else delete el.dataset.scrolled;
    if (more) el.dataset.more = '';
    else delete el.dataset.more;
  }, []);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    mark(el);
    const ro = new ResizeObserver(() => mark(el));
    ro.observe(el);
    if (el.firstElementChild) ro.observe(el.firstElementChild);
    return () => ro.disconnect();
  }, [mark]);
  return (
    <div
      ref={ref}
      className="dt-scroll relative overflow-x-auto"
      data-testid={testId}
      onScroll={(e: UIEvent<HTMLDivElement>) => mark(e.currentTarget)}
    >
      {children}
    </div>
  );
}

/** Where the `start` pins end (an index, 0 by default), and whether the last column is pinned at the end. */
function pinsOf<T>(columns: Column<T>[]): { upTo: number; end: boolean } {
  let upTo = 0;
  columns.forEach((c, i) => {
    if (c.pin === 'start') upTo = i;
  });
  const end = columns.length > upTo + 1 && columns[columns.length - 1]?.pin === 'end';
  return { upTo, end };
}

/** The left offset of each `start`-pinned column: the widths of the pinned columns before it, kept measured. */
function usePinOffsets(head: RefObject<HTMLTableRowElement | null>, upTo: number, on: boolean): number[] {
  const [lefts, setLefts] = useState<number[]>([]);
  useLayoutEffect(() => {
    const tr = head.current;
    if (!on || !tr || upTo === 0) return;
    const cells = [...tr.children].slice(0, upTo) as HTMLElement[];
    const measure = () => {
      const next = [0];
      for (const c of cells) next.push(next[next.length - 1]! + c.offsetWidth);
      setLefts((prev) => (prev.length === next.length && prev.every((v, i) => v === next[i]) ? prev : next));
    };
    measure();
    const ro = new ResizeObserver(measure);
    for (const c of cells) ro.observe(c);
    return () => ro.disconnect();
  }, [head, upTo, on]);
  return lefts;
}

export function DataTable<T>({
  rows,
  columns,
  rowKey,
  rowAttrs,
  rowClassName,
  testId,
  footer,
  phoneRow,
  phone = 'cards',
}: {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string | number;
  rowAttrs?: (row: T) => Record<string, string | undefined>;
  rowClassName?: (row: T) => string | undefined;
  testId?: string;
  footer?: ReactNode;
  /** a compact layout of one row for phones (instead of label/value cards) */
  phoneRow?: (row: T) => ReactNode;
  /** `table` keeps the (scrollable) table on phones: for small numeric tables */
  phone?: 'cards' | 'table';
}) {
  const wide = useIsDesktop();
  const desktop = wide || phone === 'table';
  // 8 px a side up to 1536 px wide: the tables fit a 1280 px screen beside the navigation
  const pad = wide ? 'px-2 first:pl-4 last:pr-4 2xl:px-3' : 'px-1.5 first:pl-3 last:pr-3';
  const alignCls = (c: Column<T>) => (c.align === 'right' ? 'text-right' : c.align === 'center' ? 'text-center' : 'text-left');
  const pins = pinsOf(columns);
  const head = useRef<HTMLTableRowElement>(null);
  const lefts = usePinOffsets(head, pins.upTo, desktop);
  const pinned = (i: number) =>
    i <= pins.upTo
      ? { className: cx(PIN_CELL, i === pins.upTo && 'dt-pin-start'), style: { left: lefts[i] ?? 0 } }
      : pins.end && i === columns.length - 1
        ? { className: cx(PIN_CELL, 'dt-pin-end'), style: { right: 0 } }
        : { className: undefined, style: undefined };
  // every row is opaque (its own tint or the card's white): the pinned cells inherit it
  const rowBg = (row: T) => {
    const c = rowClassName?.(row);
    return cx(c && /(^|\s)bg-/.test(c) ? c : cx('bg-white', c), 'hover:bg-slate-50');
  };

  if (!desktop) {
    const primary = columns.filter((c) => c.mobile === 'primary');
    const fields = columns.filter((c) => c.mobile !== 'primary' && c.mobile !== 'hide');
    return (
      <ul data-testid={testId} className="divide-y divide-slate-100">
        {rows.map((row) => (
          <li key={rowKey(row)} {...rowAttrs?.(row)} className={cx('px-4 py-3', rowClassName?.(row))}>
            {phoneRow ? (
              phoneRow(row)
            ) : (
              <>
                {primary.length > 0 && (
                  <div className="mb-2 flex flex-wrap items-center gap-2">
                    {primary.map((c) => (
                      <div key={c.key} className="min-w-0">
                        {c.cell(row)}
                      </div>
                    ))}
                  </div>
                )}
                <dl className="grid grid-cols-2 gap-x-4 gap-y-1.5">
                  {fields.map((c) => (
                    <div key={c.key} className="min-w-0">
                      <dt className="text-[11px] font-medium uppercase tracking-wide text-slate-400">{c.header}</dt>
                      <dd className="min-w-0 break-words text-sm text-slate-700">{c.cell(row)}</dd>
                    </div>
                  ))}
                </dl>
              </>
            )}
          </li>
        ))}
        {footer && <li className="px-4 py-2">{footer}</li>}
      </ul>
    );
  }

  return (
    <ScrollBox>
      <table data-testid={testId} className="min-w-full text-sm">
        <thead>
          <tr ref={head} className="border-b border-slate-200 bg-slate-50">
            {columns.map((c, i) => {
              const pin = pinned(i);
              return (
                <th
                  key={c.key}
                  scope="col"
                  style={pin.style}
                  className={cx(
                    'whitespace-nowrap py-2 text-xs font-semibold uppercase tracking-wide text-slate-500',
                    pad,
                    alignCls(c),
                    c.className,
                    pin.className,
                  )}
                >
                  {c.header}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowAttrs?.(row)} className={rowBg(row)}>
              {columns.map((c, i) => {
                const pin = pinned(i);
                return (
                  <td key={c.key} style={pin.style} className={cx('py-2 align-middle', pad, alignCls(c), c.className, pin.className)}>
                    {c.cell(row)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
        {footer && (
          <tfoot>
            <tr>
              <td colSpan={columns.length} className="px-4 py-2">
                {footer}
              </td>
            </tr>
          </tfoot>
        )}
      </table>
    </ScrollBox>
  );
}
