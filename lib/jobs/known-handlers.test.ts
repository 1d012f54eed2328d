import { describe, expect, it } from 'vitest';
import { createHandlerRegistry } from '../../worker/handlers/index.ts';
import { systemHandlers } from '../../worker/handlers/system-handlers.ts';
import { BUILTIN_HANDLER_NAMES } from './known-handlers.ts';

describe('BUILTIN_HANDLER_NAMES', () => {
  it('lists exactly the handlers every worker registers', async () => {
    const registry = createHandlerRegistry({});
    try {
      const shipped = [...registry.names(), ...Object.keys(systemHandlers)].sort();
      expect([...BUILTIN_HANDLER_NAMES].sort()).toEqual(shipped);
    } finally {
      await registry.close();
    }
  });
});
