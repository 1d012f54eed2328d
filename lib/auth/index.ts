export * from './actor.ts';
export * from './bootstrap.ts';
export * from './login.ts';
export * from './password.ts';
export * from './rate-limit.ts';
export * from './sessions.ts';
export * from './tokens.ts';
export * from './users.ts';
