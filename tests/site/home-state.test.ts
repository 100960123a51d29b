import { describe, expect, it } from 'vitest';
import { defaultScenario, parseHomeState, pickConfiguration, serializeHomeState, type ConfigurationChoice } from '../../site/lib/home-state.ts';

const all: ConfigurationChoice[] = [
  { id: 'a', model: 'llama-8b', precision: 'bf16', hardware: 'H100', workload: 'chat', loads: ['c=1', 'c=8'] },
  { id: 'b', model: 'llama-8b', precision: 'bf16', hardware: 'H100', workload: 'rag', loads: ['c=1', 'c=4'] },
  { id: 'c', model: 'llama-8b', precision: 'fp8', hardware: 'H200', workload: 'chat', loads: ['c=16'] },
  { id: 'd', model: 'qwen-32b', precision: 'bf16', hardware: 'H200', workload: 'rag', loads: ['c=2'] },
];

describe('the home page filter', () => {
  it('opens on the configuration with the most engines, then the newest', () => {
    const s = (id: string, engines: number, last: string) => ({ scenario_id: id, engines: Array.from({ length: engines }, (_, i) => `e${i}`), last_run_date: last, model: 'm', workload: id });
    expect(defaultScenario([s('x', 2, '2026-12-01'), s('y', 3, '2026-11-01'), s('z', 3, '2026-11-20')])?.scenario_id).toBe('z');
    expect(defaultScenario([])).toBeNull();
  });

  it('a changed field is kept and the others follow, preferring earlier fields', () => {
    // precision fp8 exists only on H200 chat: hardware follows, model stays.
    expect(pickConfiguration(all, { model: 'llama-8b', precision: 'fp8', hardware: 'H100', workload: 'chat' }, 'precision')?.id).toBe('c');
    // An exact match wins.
    expect(pickConfiguration(all, { model: 'llama-8b', precision: 'bf16', hardware: 'H100', workload: 'rag' }, 'workload')?.id).toBe('b');
    // Model qwen: only d has it.
    expect(pickConfiguration(all, { model: 'qwen-32b', precision: 'bf16', hardware: 'H100', workload: 'chat' }, 'model')?.id).toBe('d');
  });

  it('round-trips through the URL, ignores unknown values and keeps other parameters', () => {
    const fallback = { id: 'a', load: 'c=8' };
    const query = serializeHomeState({ id: 'b', load: 'c=1' }, all, 'sla.ttft_ms_p99=500');
    expect(new URLSearchParams(query).get('sla.ttft_ms_p99')).toBe('500');
    expect(parseHomeState(query, all, fallback)).toEqual({ id: 'b', load: 'c=1' });
    expect(parseHomeState('?workload=rag&load=c%3D99', all, fallback)).toEqual({ id: 'b', load: 'c=4' });
    expect(parseHomeState('?model=unknown', all, fallback)).toEqual(fallback);
    expect(parseHomeState('', all, fallback)).toEqual(fallback);
  });
});
