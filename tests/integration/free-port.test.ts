/**
 * tests/helpers/free-port.ts: the ports tests free and bind again (a restarted embedded server, a
 * program squatting on a dead server's port: embedded-postgres-restart.test.ts) come from below the
 * kernel's ephemeral range. A kernel-picked port (listen on 0) is ephemeral: once freed, the kernel
 * may give it to any outgoing connection of a test running beside (a database client) as its local
 * port, and the squatter met EADDRINUSE.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';

describe('freePort', () => {
  it('gives ports below the ephemeral range that can be bound, freed and bound again', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(1024);
      expect(port).toBeLessThan(low);
      for (let bind = 0; bind < 2; bind++) {
        const server = net.createServer();
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', resolve);
        });
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });
});
