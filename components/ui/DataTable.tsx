'use client';
// A table on wide screens, a stack of cards on phones (only one of the two is rendered).
import type { ReactNode } from 'react';
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
  const pad = wide ? 'px-2 first:pl-4 last:pr-4 sm:px-3' : 'px-1.5 first:pl-3 last:pr-3';
  const alignCls = (c: Column<T>) => (c.align === 'right' ? 'text-right' : c.align === 'center' ? 'text-center' : 'text-left');

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
    <div className="overflow-x-auto">
      <table data-testid={testId} className="min-w-full text-sm">
        <thead>
          <tr className="border-b border-slate-200 bg-slate-50/80">
            {columns.map((c) => (
              <th
                key={c.key}
                scope="col"
                className={cx(
                  'whitespace-nowrap py-2 text-xs font-semibold uppercase tracking-wide text-slate-500',
                  pad,
                  alignCls(c),
                  c.className,
                )}
              >
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowAttrs?.(row)} className={cx('hover:bg-slate-50/70', rowClassName?.(row))}>
              {columns.map((c) => (
                <td key={c.key} className={cx('py-2 align-middle', pad, alignCls(c), c.className)}>
                  {c.cell(row)}
                </td>
              ))}
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
    </div>
  );
}
