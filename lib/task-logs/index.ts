export * from './queries.ts';
export * from './view.ts';
export * from './list-lines.ts';
export * from './search-lines.ts';
