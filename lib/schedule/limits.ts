/** Most fire times a preview may ask for (console and REST; lib/schedule/preview.ts). */
export const MAX_PREVIEW_COUNT = 50;

/**
 * How far after its `from` a preview looks, in years (lib/schedule/preview.ts). Some valid
 * schedules fire once in decades ("the fifth Monday of February": every 28 years at most), and
 * cron-parser finds each of those by a walk of the days between: 50 of them took 1–3 s of CPU.
 */
export const PREVIEW_HORIZON_YEARS = 100;
