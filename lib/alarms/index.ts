/**
 * Alarms: raise (with collapse), decide per finished run, deliver (webhook / email /
 * log with retries), list, send a test alarm, acknowledge, silence / unsilence. Vocabulary: ./config.ts.
 */
export * from './config.ts';
export * from './raise-alarm.ts';
export * from './alarms-for-finished-run.ts';
export * from './deliver.ts';
export * from './dispatch-alarms.ts';
export * from './list-alarms.ts';
export * from './send-test-alarm.ts';
export * from './scan-finished-runs.ts';
export * from './silences.ts';
export * from './silence-due-alarms.ts';
export * from './create-silence.ts';
export * from './end-silence.ts';
export * from './list-silences.ts';
export * from './acknowledge-alarm.ts';
export * from './test-alarm-limit.ts';
