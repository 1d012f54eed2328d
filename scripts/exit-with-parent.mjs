// Preloaded (node --import) into the console and worker that `npm start` runs:
// when the supervisor that spawned them dies — even by SIGKILL — their IPC
// channel closes, and they stop themselves (SIGTERM: the worker drains, the
// console closes) instead of living on as orphans holding the port.
if (typeof process.send === 'function') {
  process.on('disconnect', () => {
    process.kill(process.pid, 'SIGTERM');
    setTimeout(() => process.exit(1), 35_000).unref();
  });
  // The channel must not keep a process alive that is otherwise done.
  process.channel?.unref();
}
