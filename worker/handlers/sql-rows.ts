/**
 * The part of a statement's result the `sql` executor keeps as its task output (worker/handlers/sql.ts):
 * the last statement's rows up to a row count and a byte size, the rest dropped as it arrives.
 */
import pg from 'pg';
import { TASK_OUTPUT_CAP_BYTES } from '../output.ts';

/** Most rows of the last statement an attempt keeps. */
export const SQL_ROW_CAP = 1000;
/**
 * Most bytes of JSON the rows an attempt keeps may take: the task output's own cap
 * (worker/output.ts), less room for the output's other fields (`rowCount`, `truncated`), so rows
 * that fit are stored as rows, not replaced by the cap's preview.
 */
export const SQL_ROWS_BYTE_CAP = TASK_OUTPUT_CAP_BYTES - 1024;

/** What runCapped keeps of a text's last statement. */
export type CappedResult = {
  command: string | null;
  /** the statement's own count (CommandComplete): rows returned or changed, kept or not */
  rowCount: number;
  rows: unknown[];
  /** set when rows were dropped: how many the statement returned */
  truncated?: { received: number };
};

/**
 * Runs `text` (one statement with `values`, or several without) on `client` and keeps the last
 * statement's rows up to `maxRows` and `maxBytes` of their JSON. node-postgres accumulates every
 * row of a result before it answers; a query with a `row` listener and no callback does not
 * (pg/lib/query.js `_accumulateRows`), so rows past the caps are parsed and dropped one by one.
 * @throws the statement's error, as client.query does
 */
export function runCapped(client: pg.ClientBase, text: string, values: unknown[], maxRows = SQL_ROW_CAP, maxBytes = SQL_ROWS_BYTE_CAP): Promise<CappedResult> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query({ text, values });
    let current: unknown = null;
    let kept: unknown[] = [];
    let keptBytes = 0;
    let received = 0;
    let full = false;
    query.on('row', (row: unknown, result: unknown) => {
      if (result !== current) {
        // the next statement of a multi-statement text: only the last one's rows are reported
        current = result;
        kept = [];
        keptBytes = 0;
        received = 0;
        full = false;
      }
      received++;
      if (full) return;
      const bytes = Buffer.byteLength(JSON.stringify(row) ?? 'null') + 1;
      if (kept.length >= maxRows || keptBytes + bytes > maxBytes) {
        full = true;
        return;
      }
      kept.push(row);
      keptBytes += bytes;
    });
    query.on('error', reject);
    query.on('end', (results: pg.QueryResult | pg.QueryResult[]) => {
      const last = (Array.isArray(results) ? results[results.length - 1] : results) as pg.QueryResult | undefined;
      const own = last !== undefined && last === current;
      const rows = own ? kept : [];
      resolve({
        command: last?.command ?? null,
        rowCount: last?.rowCount ?? (own ? received : 0),
        rows,
        ...(own && received > rows.length ? { truncated: { received } } : {}),
      });
    });
    void client.query(query);
  });
}
