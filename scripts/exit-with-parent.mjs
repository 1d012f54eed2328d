// Preloaded (node --import) into the console and worker that `npm start` runs:
// when the supervisor that spawned them dies — even by SIGKILL — their IPC
// channel closes, and they stop themselves (SIGTERM: the worker drains, the
// console closes) instead of living on as orphans holding the port.
// Only in the process the supervisor spawned (TICKFLOW_SUPERVISOR_PID is its
// parent): node passes --import on to the processes it forks, and `next dev`
// forks its server, whose IPC channel to `next dev` must stay as Next set it up.
if (typeof process.send === 'function' && process.env.TICKFLOW_SUPERVISOR_PID === String(process.ppid)) {
  process.on('disconnect', () => {
    process.kill(process.pid, 'SIGTERM');
    setTimeout(() => process.exit(1), 35_000).unref();
  });
  // The channel must not keep a process alive that is otherwise done.
  process.channel?.unref();
}
