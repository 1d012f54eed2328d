import type { NodeStatus } from '../engine/nodes/heartbeat-node.ts';

/**
 * The statuses of a node whose process is gone (docs/operations.md "Stopped or offline"):
 * `stopped` = it drained and exited cleanly (stoppedAt, stopSignal); `offline` = its
 * heartbeat was lost (a crash, kill -9, a machine gone) and the reaper marked it.
 * Neither can be drained or resumed, and neither ever counts as live.
 * Free of server imports: the console's workers table reads it too.
 */
export const GONE_STATUSES: readonly NodeStatus[] = ['offline', 'stopped'];

/** True for `offline` and `stopped` (GONE_STATUSES). */
export function isGone(status: NodeStatus): boolean {
  return GONE_STATUSES.includes(status);
}
