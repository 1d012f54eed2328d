// The console's one table: the `tf-table` markup (styles in app/globals.css) with columns described once.
// No client-only code of its own (the scrolling box, ScrollX, is a client component it renders), so server pages and
// client components use the same component.
import * as React from 'react';
import { cn } from './cn';
import { ScrollX } from './scroll-x';

/** One column: its header, how to draw a row's cell, and optional classes for the cell / header. */
export type Column<T> = {
  key: string;
  header: React.ReactNode;
  cell: (row: T, index: number) => React.ReactNode;
  /** The cell's classes, fixed or per row (e.g. a colour that depends on the value). */
  className?: string | ((row: T) => string | undefined);
  /** The cell's tooltip (title attribute) per row. */
  title?: (row: T) => string | undefined;
  headerClassName?: string;
  /** aria-sort of the header when the table is sorted by this column. */
  sort?: 'ascending' | 'descending';
  /** In a `stack` table below 768 px, the word written before the cell's value (its header names it in the table). */
  label?: string;
};

/**
 * A `stack` row's classes (its `rowProps` className) that end its first line below 768 px after the cells placed
 * before it with negative `max-md:-order-*` classes (down to -2): the other cells start on the next line. The break is
 * the row's own ::after, a flex item a line wide, ordered -1.
 */
export const STACK_FIRST_LINE = "max-md:after:-order-1 max-md:after:basis-full max-md:after:content-['']";

/**
 * A table of `rows` with `columns` (a null entry is skipped, for optional columns). `rowKey` names each row;
 * `rowProps` adds attributes to a row (test ids, data-*). `testId` goes on the <table>; `scroll` (default true)
 * wraps it in a horizontally scrolling box whose cut side fades (ScrollX). `stack`: below 768 px each row is a card instead (`tf-table-stack` in
 * app/globals.css): no header line, the cells flow and wrap in the row's width, each after its column's `label`, so a
 * phone reads every row without a sideways scroll; columns place themselves in it with `max-md:` classes.
 */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  rowProps,
  testId,
  className,
  scroll = true,
  stack = false,
}: {
  columns: (Column<T> | null | false)[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  rowProps?: (row: T) => React.HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | boolean | undefined>;
  testId?: string;
  className?: string;
  scroll?: boolean;
  stack?: boolean;
}) {
  const cols = columns.filter((c): c is Column<T> => !!c);
  const table = (
    <table className={cn('tf-table', stack && 'tf-table-stack', className)} data-testid={testId}>
      <thead>
        <tr>
          {cols.map((c) => (
            <th key={c.key} className={c.headerClassName} aria-sort={c.sort}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={rowKey(r)} {...rowProps?.(r)}>
            {cols.map((c) => (
              <td key={c.key} className={typeof c.className === 'function' ? c.className(r) : c.className} title={c.title?.(r)} data-label={stack ? c.label : undefined}>
                {c.cell(r, i)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
  return scroll ? <ScrollX>{table}</ScrollX> : table;
}
