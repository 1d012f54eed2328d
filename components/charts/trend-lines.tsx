'use client';

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartDay } from '@/lib/stats/chart-data';
import { axisIn, durationAxisUnit, niceDurationTicks, type DurationAxisUnit } from '@/lib/time/format';
import { fullMs, LINE_COLORS, shortDate, TIME_AXIS_INTERVAL } from './chart-theme';
import { ChartFigure } from './chart-figure';

type Series = { key: keyof ChartDay; name: string; color: string; dashed?: boolean };

/** What a trend chart's caller gives besides its data: points per day or hour, a description, card chrome. */
type TrendProps = { data: ChartDay[]; height?: number; per?: 'day' | 'hour'; description?: React.ReactNode; framed?: boolean };

function TrendChart({ data, series, height, label, kind, title, description, framed }: { data: ChartDay[]; series: Series[]; height: number; label: string; kind: string; title: (unit: DurationAxisUnit) => string; description?: React.ReactNode; framed?: boolean }) {
  // Round ticks (0, 10 s, 20 s, 30 s) instead of the maximum cut in four (6.5 s, 13 s, 19.5 s), all in one unit the title names.
  const max = Math.max(0, ...data.flatMap((d) => series.map((s) => Number(d[s.key] ?? 0)).filter((v) => Number.isFinite(v))));
  const ticks = niceDurationTicks(max);
  const unit = durationAxisUnit(ticks);
  // dots while points are few (a month of days, or a sparse hourly series whose lone values draw no line)
  const pointCount = data.filter((d) => series.some((s) => d[s.key] != null)).length;
  return (
    <ChartFigure title={title(unit)} description={description} framed={framed}>
    <div role="img" aria-label={label} data-chart={kind} style={{ width: '100%', height }}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height }}>
        <LineChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: -8 }}>
          <CartesianGrid vertical={false} stroke="var(--color-zinc-100, #f4f4f5)" />
          {/* padding: the first and last points (and their date labels) sit inside the plot, not half cut at its edges */}
          <XAxis dataKey="date" tickFormatter={shortDate} tick={{ fontSize: 11, fill: 'var(--color-zinc-500, #71717a)' }} tickLine={false} axisLine={{ stroke: 'var(--color-zinc-200, #e4e4e7)' }} minTickGap={16} interval={TIME_AXIS_INTERVAL} padding={{ left: 12, right: 16 }} />
          <YAxis ticks={ticks} domain={[0, ticks[ticks.length - 1]!]} tickFormatter={(v) => axisIn(Number(v), unit)} tick={{ fontSize: 11, fill: 'var(--color-zinc-500, #71717a)' }} tickLine={false} axisLine={false} width={52} />
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
    </ChartFigure>
  );
}

/** Duration p50 / p95 per day or hour (estimated from the duration histogram; see lib/stats/percentiles.ts), titled with its unit. */
export function DurationTrendChart({ data, height = 200, per = 'day', description, framed }: TrendProps) {
  return (
    <TrendChart
      data={data}
      height={height}
      kind="duration"
      label={`Duration p50 and p95 per ${per}`}
      title={(unit) => `Duration per ${per}: p50 and p95 (${unit.name})`}
      description={description}
      framed={framed}
      series={[
        { key: 'p50Ms', name: 'p50', color: LINE_COLORS.p50 },
        { key: 'p95Ms', name: 'p95', color: LINE_COLORS.p95, dashed: true },
      ]}
    />
  );
}

/** Average lateness per day or hour: started_at - scheduled_for of first attempts, titled with its unit. */
export function LatenessTrendChart({ data, height = 200, per = 'day', description, framed }: TrendProps) {
  return (
    <TrendChart
      data={data}
      height={height}
      kind="lateness"
      label={`Average lateness per ${per}`}
      title={(unit) => `Lateness per ${per}: average start delay (${unit.name})`}
      description={description}
      framed={framed}
      series={[{ key: 'avgLatenessMs', name: 'avg lateness', color: LINE_COLORS.lateness }]}
    />
  );
}
