'use client';

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartDay } from '@/lib/stats/chart-data';
import { niceDurationTicks } from '@/lib/time/format';
import { axisMs, fullMs, LINE_COLORS, shortDate } from './chart-theme';

type Series = { key: keyof ChartDay; name: string; color: string; dashed?: boolean };

function TrendChart({ data, series, height, label, kind }: { data: ChartDay[]; series: Series[]; height: number; label: string; kind: string }) {
  // Round ticks (0, 10 s, 20 s, 30 s) instead of the maximum cut in four (6.5 s, 13 s, 19.5 s).
  const max = Math.max(0, ...data.flatMap((d) => series.map((s) => Number(d[s.key] ?? 0)).filter((v) => Number.isFinite(v))));
  const ticks = niceDurationTicks(max);
  // dots while points are few (a month of days, or a sparse hourly series whose lone values draw no line)
  const pointCount = data.filter((d) => series.some((s) => d[s.key] != null)).length;
  return (
    <div role="img" aria-label={label} data-chart={kind} style={{ width: '100%', height }}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height }}>
        <LineChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: -8 }}>
          <CartesianGrid vertical={false} stroke="var(--color-zinc-100, #f4f4f5)" />
          {/* padding: the first and last points (and their date labels) sit inside the plot, not half cut at its edges */}
          <XAxis dataKey="date" tickFormatter={shortDate} tick={{ fontSize: 11, fill: 'var(--color-zinc-500, #71717a)' }} tickLine={false} axisLine={{ stroke: 'var(--color-zinc-200, #e4e4e7)' }} minTickGap={16} padding={{ left: 12, right: 16 }} />
          <YAxis ticks={ticks} domain={[0, ticks[ticks.length - 1]!]} tickFormatter={(v) => axisMs(Number(v))} tick={{ fontSize: 11, fill: 'var(--color-zinc-500, #71717a)' }} tickLine={false} axisLine={false} width={52} />
          <Tooltip labelFormatter={(d) => shortDate(String(d))} formatter={(v) => fullMs(v == null ? null : Number(v))} contentStyle={{ fontSize: 12, borderRadius: 6, background: 'var(--color-zinc-50, #fafafa)', borderColor: 'var(--color-zinc-200, #e4e4e7)', color: 'var(--color-zinc-900, #18181b)' }} />
          <Legend iconType="plainline" iconSize={14} wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
          {series.map((s) => (
            <Line
              key={s.key}
              type="monotone"
              dataKey={s.key}
              name={s.name}
              stroke={s.color}
              strokeWidth={2}
              strokeDasharray={s.dashed ? '4 3' : undefined}
              dot={pointCount <= 31 ? { r: 2 } : false}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

/** Duration p50 / p95 per day (estimated from the duration histogram; see lib/stats/percentiles.ts). */
export function DurationTrendChart({ data, height = 200 }: { data: ChartDay[]; height?: number }) {
  return (
    <TrendChart
      data={data}
      height={height}
      kind="duration"
      label="Duration p50 and p95 per day"
      series={[
        { key: 'p50Ms', name: 'p50', color: LINE_COLORS.p50 },
        { key: 'p95Ms', name: 'p95', color: LINE_COLORS.p95, dashed: true },
      ]}
    />
  );
}

/** Average lateness per day: started_at - scheduled_for of first attempts (ms). */
export function LatenessTrendChart({ data, height = 200 }: { data: ChartDay[]; height?: number }) {
  return <TrendChart data={data} height={height} kind="lateness" label="Average lateness per day" series={[{ key: 'avgLatenessMs', name: 'avg lateness', color: LINE_COLORS.lateness }]} />;
}
