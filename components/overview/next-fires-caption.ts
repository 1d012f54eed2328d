/**
 * The caption of the overview's "Next 24 hours": how many fires from how many jobs, in plain words with each noun
 * in the number it counts ("1 fire from 1 job", "over 120 fires from 3 jobs"). `atLeast` when a job's fires were
 * counted up to the budget only (lib/stats/upcoming-fires.ts COUNT_BUDGET), so the total is a lower bound. `zone` is the
 * display zone of the time axis and the dots (each job's next fire is written in the job's own zone, with its label).
 */
export function nextFiresCaption(fires: number, jobs: number, atLeast: boolean, zone: string): string {
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const firesText = atLeast ? `over ${count(fires, 'fire')}` : count(fires, 'fire');
  return `${firesText[0]!.toUpperCase()}${firesText.slice(1)} from ${count(jobs, 'job')} in the next 24 h (axis in ${zone})`;
}
