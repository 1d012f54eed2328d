export * from './schemas.ts';
export * from './validation.ts';
export * from './cursor.ts';
export * from './ids.ts';
export * from './idempotency.ts';
