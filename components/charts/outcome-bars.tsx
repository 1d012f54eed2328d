'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartDay } from '@/lib/stats/chart-data';
import { OUTCOME_COLORS, shortDate, TIME_AXIS_INTERVAL } from './chart-theme';
import { ChartFigure } from './chart-figure';

/**
 * Stacked bars: success / failure / timeout per day or hour (attempt counts, stats time zone days), under
 * their title (outcomesTitle, ChartFigure). `compact` hides the legend and axis labels (small multiples per handler).
 */
export function OutcomeBarsChart({ data, height = 220, compact = false, title, description, framed }: { data: ChartDay[]; height?: number; compact?: boolean; title: string; description?: React.ReactNode; framed?: boolean }) {
  return (
    <ChartFigure title={title} description={description} framed={framed}>
    <div role="img" aria-label="Success, failure and timeout counts" data-chart="outcomes" style={{ width: '100%', height }}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height }}>
        <BarChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: compact ? -16 : -12 }} barCategoryGap="18%">
          <CartesianGrid vertical={false} stroke="var(--color-zinc-100, #f4f4f5)" />
          <XAxis dataKey="date" tickFormatter={shortDate} tick={{ fontSize: 11, fill: 'var(--color-zinc-500, #71717a)' }} tickLine={false} axisLine={{ stroke: 'var(--color-zinc-200, #e4e4e7)' }} minTickGap={16} interval={TIME_AXIS_INTERVAL} />
          <YAxis allowDecimals={false} tick={{ fontSize: 11, fill: 'var(--color-zinc-500, #71717a)' }} tickLine={false} axisLine={false} width={compact ? 44 : 48} />
          <Tooltip labelFormatter={(d) => shortDate(String(d))} cursor={{ fill: 'var(--color-zinc-100, #f4f4f5)' }} contentStyle={{ fontSize: 12, borderRadius: 6, background: 'var(--color-zinc-50, #fafafa)', borderColor: 'var(--color-zinc-200, #e4e4e7)', color: 'var(--color-zinc-900, #18181b)' }} />
          {compact ? null : <Legend iconType="square" iconSize={9} wrapperStyle={{ fontSize: 12 }} itemSorter={null} />}
          <Bar dataKey="success" name="success" stackId="o" fill={OUTCOME_COLORS.success} isAnimationActive={false} />
          <Bar dataKey="failure" name="failure" stackId="o" fill={OUTCOME_COLORS.failure} isAnimationActive={false} />
          <Bar dataKey="timeout" name="timeout" stackId="o" fill={OUTCOME_COLORS.timeout} radius={[2, 2, 0, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
    </ChartFigure>
  );
}
