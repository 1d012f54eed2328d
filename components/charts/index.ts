/**
 * Chart components (recharts, client) and the composed panels. Data comes from lib/stats
 * (getStatsChartData) through a server page: these components never fetch.
 */
export { OutcomeBarsChart } from './outcome-bars';
export { DurationTrendChart, LatenessTrendChart } from './trend-lines';
export { HandlerTotalsTable } from './handler-totals-table';
export { StatsPanel } from './stats-panel';
export { JobStatsPanel } from './job-stats-panel';
export { RunOutcomeBar } from './run-outcome-bar';
export { StatsRangeControls } from './stats-range-controls';
export * from './chart-theme';
