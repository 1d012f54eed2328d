import { describe, expect, it } from 'vitest';
import { clearFiltersHref, filtersSet, refusalMessage, refusedFilters, withoutFilters } from './filter-params';

const names = ['q', 'status', 'jobId'];

describe('filtersSet', () => {
  it('is false without a filter, or with only paging and sorting', () => {
    expect(filtersSet({}, names)).toBe(false);
    expect(filtersSet({ sort: 'key', dir: 'desc', cursor: 'abc' }, names)).toBe(false);
    expect(filtersSet(new URLSearchParams('q=&status='), names)).toBe(false);
    expect(filtersSet({ q: '  ' }, names)).toBe(false);
  });

  it('is true as soon as one filter has a value', () => {
    expect(filtersSet({ status: 'failed' }, names)).toBe(true);
    expect(filtersSet(new URLSearchParams('sort=key&q=nightly'), names)).toBe(true);
    expect(filtersSet({ jobId: ['a', 'b'] }, names)).toBe(true);
  });
});

describe('clearing filters', () => {
  it('drops the filters and the paging, keeps the sort', () => {
    const sp = { q: 'x', status: 'failed', sort: 'next_run_at', dir: 'desc', cursor: 'c1', trail: 't', before: '2026-01-01' };
    expect(withoutFilters(sp, names).toString()).toBe('sort=next_run_at&dir=desc');
    expect(clearFiltersHref('/jobs', sp, names)).toBe('/jobs?sort=next_run_at&dir=desc');
  });

  it('leads to the bare list when only filters were set', () => {
    expect(clearFiltersHref('/runs', new URLSearchParams('q=boom&jobId=j1'), names)).toBe('/runs');
  });
});

describe('refusedFilters', () => {
  it('names each refused filter by its URL parameter, a list value by its parameter too', () => {
    expect(refusedFilters({ status: 'status must be one of …' }, names)).toEqual({ status: 'status must be one of …' });
    expect(refusedFilters({ 'status.1': 'Invalid option', jobId: 'Not a job id' }, names)).toEqual({ status: 'Invalid option', jobId: 'Not a job id' });
  });

  it('maps a query field to its URL parameter, and leaves fields that are no filter to the error panel', () => {
    expect(refusedFilters({ 'scheduleKind.0': 'Invalid option' }, ['q', 'kind'], { scheduleKind: 'kind' })).toEqual({ kind: 'Invalid option' });
    expect(refusedFilters({ before: 'Not a time', cursor: 'Bad cursor' }, names)).toEqual({});
    expect(refusedFilters(undefined, names)).toEqual({});
  });
});

describe('refusalMessage', () => {
  const filters = [
    { name: 'q', label: 'Text' },
    { name: 'kind', label: 'Schedule' },
  ];
  it('names a refused filter by its label, not by its URL parameter', () => {
    expect(refusalMessage({ q: 'Search text must be at least 3 characters' }, filters, 'Invalid q: Search text must be at least 3 characters')).toBe('Text: Search text must be at least 3 characters');
  });
  it('follows the aliases the query uses, and keeps the name of a field that is no filter', () => {
    expect(refusalMessage({ scheduleKind: 'bad kind', cursor: 'bad cursor' }, filters, 'x', { scheduleKind: 'kind' })).toBe('Schedule: bad kind; cursor: bad cursor');
  });
  it('is the error\'s own message when it names no field', () => {
    expect(refusalMessage(undefined, filters, 'Could not load')).toBe('Could not load');
  });
});
