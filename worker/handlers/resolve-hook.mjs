// Module resolution hook (node:module register) installed by worker/handlers/module-loader.ts:
// `import … from 'tickflow/handlers'` in a handler module anywhere on disk resolves to this
// checkout's public module, so handler folders need no install step (docs/handlers.md).
let target;

export async function initialize(data) {
  target = data.target;
}

export async function resolve(specifier, context, next) {
  // Hand the target to the next hook (tsx), which knows how to load TypeScript.
  if (specifier === 'tickflow/handlers' && target) return next(target, context);
  return next(specifier, context);
}
