/** Most fire times a preview may ask for (console and REST; lib/schedule/preview.ts). */
export const MAX_PREVIEW_COUNT = 50;
