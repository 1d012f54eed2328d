/**
 * A batch of successful attempts as the batched completion statements read it
 * (complete-only-tasks.ts, complete-dag-tasks.ts): one jsonb parameter. output travels as
 * JSON text so that a JSON null output stays the jsonb value null (undefined: the key is
 * left out, SQL NULL), as in a single update.
 */
export interface CompletionItem {
  taskId: string;
  attempt: number;
  output: unknown;
  error: string | null;
  exitCode: number | null;
}

/** The jsonb parameter of a batch. */
export function completionItemsParam(items: readonly CompletionItem[]): string {
  return JSON.stringify(items.map((i) => ({
    id: i.taskId, attempt: i.attempt, output: i.output === undefined ? undefined : JSON.stringify(i.output), error: i.error, exit_code: i.exitCode,
  })));
}

/** SQL reading the batch back from parameter `$param` as rows (id, attempt, output, error, exit_code). */
export function completionItemsSql(param: number): string {
  return `jsonb_to_recordset($${param}::jsonb) AS x(id uuid, attempt int, output text, error text, exit_code int)`;
}
