// Worker node registry (docs/design.md §3 `worker_nodes`): register, heartbeat, status, offline marking.
export * from './register-node.ts';
export * from './heartbeat-node.ts';
export * from './set-node-status.ts';
export * from './mark-offline-nodes.ts';
export * from './delete-stale-nodes.ts';
