import { describe, expect, it } from 'vitest';
import type { JobScheduleColumns } from './job-view.ts';
import { canFireProblem } from './job-input.ts';
import { countScheduleEnded } from './schedule-ended-count.ts';

const NOW = new Date('2026-12-05T12:00:00.000Z');
const H = 3_600_000;
const at = (ms: number) => new Date(NOW.getTime() + ms);

let n = 0;
function job(over: Partial<JobScheduleColumns>): JobScheduleColumns {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    scheduleKind: 'cron', cronExpression: '0 * * * *', timezone: 'UTC', intervalSeconds: null, runAt: null,
    startAt: null, endAt: null, staggerSeconds: 0, createdAt: new Date('2026-01-01T00:00:00Z'), ...over,
  };
}

describe('countScheduleEnded (the overview\'s paused jobs whose schedule ended)', () => {
  it('a verdict kept from an earlier count does not outlive the schedule: a run-at or window end passes in between', () => {
    const once = job({ scheduleKind: 'once', cronExpression: null, runAt: at(2 * 24 * H) });
    const window = job({ endAt: at(2 * H) });
    const endless = job({});
    const jobs = [once, window, endless];
    expect(countScheduleEnded(jobs, NOW)).toBe(0);
    expect(countScheduleEnded(jobs, at(H))).toBe(0);
    expect(countScheduleEnded(jobs, at(3 * H))).toBe(1);
    expect(countScheduleEnded(jobs, at(3 * 24 * H))).toBe(2);
    // an earlier instant again (another caller's clock): the ended verdicts are not taken for it
    expect(countScheduleEnded(jobs, NOW)).toBe(0);
  });

  it('an edited schedule is judged again, the same job id notwithstanding', () => {
    const j = job({});
    expect(countScheduleEnded([j], NOW)).toBe(0);
    expect(countScheduleEnded([{ ...j, endAt: at(-H) }], NOW)).toBe(1);
    expect(countScheduleEnded([{ ...j, cronExpression: `0 0 12 * * * 2025` }], NOW)).toBe(1);
    expect(countScheduleEnded([j], NOW)).toBe(0);
  });

  it('counts what canFireProblem says, call after call, over schedules of every kind and instants back and forth', () => {
    const jobs: JobScheduleColumns[] = [];
    for (let i = 0; i < 12; i++) {
      jobs.push(job({ scheduleKind: 'once', cronExpression: null, runAt: at((i - 4) * 7 * H) }));
      jobs.push(job({ cronExpression: i % 2 ? '*/20 * * * *' : '30 9 * * 1-5', timezone: 'Europe/Paris', endAt: i % 3 ? at((i - 3) * 9 * H) : null, staggerSeconds: i * 60 }));
      jobs.push(job({ cronExpression: `0 0 12 * * * ${2025 + (i % 3)}` }));
      jobs.push(job({ scheduleKind: 'interval', cronExpression: null, intervalSeconds: 900 + i, startAt: at(-H), endAt: i % 2 ? at(i * 5 * H) : null }));
    }
    for (const step of [0, 1, 5, 30, 2, 47, 90, 12, 200, 3]) {
      const now = at(step * H);
      expect(countScheduleEnded(jobs, now), `at +${step} h`).toBe(jobs.filter((j) => canFireProblem(j, now) !== null).length);
    }
  });
});
