/**
 * LISTEN/NOTIFY on a dedicated `pg` client (Prisma has no LISTEN): wakes the
 * claimer on `tickflow_tasks` (at the instant its payload names, if any), the
 * ticker on `tickflow_jobs`, and aborts attempts named on `tickflow_cancel`.
 * Reconnects with jittered backoff (500 ms doubling to 30 s); when the worker's
 * DbHealth sees the database answer again it reconnects at once
 * (reconnectNow), so a long outage does not leave it waiting out its back-off.
 * After a reconnect it wakes the claimer, since notifications sent while
 * disconnected are lost (the poll covers them too).
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { CANCEL_CHANNEL, JOBS_CHANNEL, TASKS_CHANNEL, notifiedAt } from '../lib/engine/notify.ts';

export interface ListenerHandlers {
  /** `at`: epoch ms when the new tasks become claimable, null = now (also after a reconnect) */
  onTasks: (at: number | null) => void;
  /** `at`: a job's next_run_at in epoch ms, null = unknown (after a reconnect) */
  onJobs?: (at: number | null) => void;
  onCancel: (taskIds: string[]) => void;
}

export class Listener {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryMs = 500;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly handlers: ListenerHandlers,
    private readonly logger: Logger,
    private readonly random: () => number = Math.random,
  ) {}

  /** The database answers again: drop the back-off and reconnect now (no-op while connected). */
  reconnectNow(): void {
    if (this.stopped || this.client || this.connecting) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.retryMs = 500;
    this.attempt();
  }

  private connecting = false;

  private attempt(): void {
    this.connecting = true;
    this.connect()
      .catch((err) => {
        this.logger.warn({ err: (err as Error).message, retryInMs: this.retryMs }, 'listener: reconnect failed');
        this.scheduleReconnect();
      })
      .finally(() => {
        this.connecting = false;
      });
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect().catch((err) => {
      this.logger.warn({ err: (err as Error).message }, 'listener: cannot connect; polling only until it can');
      this.scheduleReconnect();
    });
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'tickflow-worker-listen' });
    client.on('notification', (msg) => {
      if (msg.channel === TASKS_CHANNEL) this.handlers.onTasks(notifiedAt(msg.payload));
      else if (msg.channel === JOBS_CHANNEL) this.handlers.onJobs?.(notifiedAt(msg.payload));
      else if (msg.channel === CANCEL_CHANNEL) {
        try {
          const ids = JSON.parse(msg.payload ?? '[]') as unknown;
          const list = Array.isArray(ids) ? ids.map(String) : typeof ids === 'string' ? [ids] : [];
          if (list.length) this.handlers.onCancel(list);
        } catch {
          if (msg.payload) this.handlers.onCancel([msg.payload]);
        }
      }
    });
    client.on('error', (err) => {
      this.logger.warn({ err: err.message }, 'listener: connection error');
      this.drop(client);
    });
    client.on('end', () => this.drop(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${TASKS_CHANNEL}`);
      await client.query(`LISTEN ${CANCEL_CHANNEL}`);
      if (this.handlers.onJobs) await client.query(`LISTEN ${JOBS_CHANNEL}`);
    } catch (err) {
      // not this.client yet, so drop() leaves it alone: close it here (its 'error' listener stays,
      // so a late error of the closing connection is not uncaught either)
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = 500;
    this.handlers.onTasks(null);
    this.handlers.onJobs?.(null);
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = Math.round(this.retryMs * (0.5 + 0.5 * this.random()));
    this.retryMs = Math.min(30_000, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.attempt();
    }, delay);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
