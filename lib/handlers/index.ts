// Handler catalogue (what workers advertise) and payload checks against advertised input schemas.
export * from './catalogue.ts';
export * from './check-payloads.ts';
export * from './payload-schema.ts';
