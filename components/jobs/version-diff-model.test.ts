import { describe, expect, it } from 'vitest';
import { sameConfigurationNote, versionDiffView } from './version-diff-model.ts';

const none = { added: [], removed: [], changed: [] };

describe('versionDiffView', () => {
  it('groups schedule, steps (handler payload and config), edges and the other settings, the status apart', () => {
    const view = versionDiffView({
      fields: [
        { path: 'description', from: 'a', to: 'b' },
        { path: 'endAt', from: null, to: '2027-01-01T00:00:00.000Z' },
        { path: 'schedule.cron', from: '0 * * * *', to: '*/5 * * * *' },
        { path: 'status', from: 'active', to: 'paused' },
      ],
      steps: {
        added: [{ key: 'load', handler: 'http' }],
        removed: [],
        changed: [{ key: 'extract', fields: [{ path: 'config.url', from: 'http://a', to: 'http://b' }] }],
      },
      edges: { added: [{ from: 'extract', to: 'load', type: 'success' }], removed: [], changed: [] },
    });
    expect(view.sections.map((s) => [s.title, s.rows.map((r) => r.path)])).toEqual([
      ['Schedule', ['endAt', 'schedule.cron']],
      ['Steps', ['steps.load', 'steps.extract.config.url']],
      ['Edges', ['edges.extract->load']],
      ['Job settings', ['description']],
    ]);
    expect(view.count).toBe(6);
    expect(view.status).toEqual({ from: 'active', to: 'paused' });
  });
  it('a status-only diff has no section and no count: the panel shows the same-configuration note', () => {
    const view = versionDiffView({ fields: [{ path: 'status', from: 'active', to: 'paused' }], steps: none, edges: none });
    expect(view).toEqual({ sections: [], count: 0, status: { from: 'active', to: 'paused' } });
    expect(sameConfigurationNote(1, 2, view.status)).toBe(
      'v1 and v2 have the same configuration: only the status changed (active → paused). Tick a version whose change is create, update or rollback to see what it changed.',
    );
    expect(sameConfigurationNote(3, 4, null)).toBe('v3 and v4 have the same configuration.');
  });
});
