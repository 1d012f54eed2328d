/**
 * Records keyed by names that come from outside: step keys, handler names, query parameters, HTTP
 * header and cookie names. Such a name may be one of Object.prototype's (`constructor`, `toString`,
 * `hasOwnProperty`, `__proto__`, …): on a plain `{}` reading it returns the inherited function, and
 * writing under it can reach the prototype (`__proto__`) or, one level deeper, a global
 * (`{}['constructor'][k] = v` writes onto `Object`). So a table read by such a name is read through
 * ownValue, and a record built from such names starts from dictionary().
 */

/**
 * The value `record` holds under `key` as its own property; undefined for a key it does not hold
 * itself, however its prototype answers (`constructor` on a plain object: the `Object` function).
 */
export function ownValue<T>(record: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return record != null && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * An empty record without a prototype: every key, `__proto__` included, is an own property like
 * any other, and a key it does not hold reads as undefined. JSON.stringify and Object.keys treat
 * it as a plain object.
 */
export function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
