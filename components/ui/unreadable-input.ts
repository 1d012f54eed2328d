// An input whose text the browser cannot read: a number input holding `1e400` or `-`, a date-and-time input with a
// part left empty. Its `value` is then '' as if it were empty (HTML, the input element's value sanitization), so a
// form that read only the value would send "no value" (a window removed, a token that never expires); only
// `validity.badInput` tells the two apart.

/** Message for a number input the browser cannot read as a number. */
export const UNREADABLE_NUMBER_MESSAGE = 'Must be a number';
/** Message for a date, time or date-and-time input with a part left empty. */
export const INCOMPLETE_DATE_TIME_MESSAGE = 'Incomplete date and time: fill in every part, or clear the field';

/** The message for `el` when it is an input whose text the browser cannot read (`validity.badInput`), else null. */
export function unreadableInputMessage(el: Element | null | undefined): string | null {
  if (typeof HTMLInputElement === 'undefined' || !(el instanceof HTMLInputElement) || !el.validity.badInput) return null;
  if (el.type === 'number') return UNREADABLE_NUMBER_MESSAGE;
  if (el.type === 'datetime-local' || el.type === 'date' || el.type === 'time') return INCOMPLETE_DATE_TIME_MESSAGE;
  return null;
}

/**
 * The messages, by field name, of the inputs (given by element id) whose text the browser cannot read
 * (unreadableInputMessage): for a dialog to show next to its fields instead of sending them as empty.
 */
export function unreadableFields(idsByField: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, id] of Object.entries(idsByField)) {
    const message = unreadableInputMessage(document.getElementById(id));
    if (message) out[field] = message;
  }
  return out;
}
