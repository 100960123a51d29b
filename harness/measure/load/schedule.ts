/**
 * Open-loop arrival schedules, precomputed before the clock starts and absolute (offsets from the
 * point's start), so a late timer never shifts later arrivals.
 */
import type { Arrival } from '../../contract/result.ts';
import { createRng } from '../../lib/rng.ts';

export interface ScheduleSpec {
  /** Requests per second; Infinity sends everything at offset 0. */
  readonly rate: number;
  readonly arrival: Arrival;
  /** Gamma shape: 1 = Poisson, < 1 burstier, > 1 more regular. */
  readonly burstiness: number;
  readonly seed: number;
  /** Stop after this many arrivals… */
  readonly count: number | null;
  /** …or at the first arrival past this many seconds, whichever comes first. */
  readonly durationS: number | null;
}

/** Upper bound on generated arrivals when only a duration is given, to keep memory bounded. */
export const MAX_SCHEDULED_ARRIVALS = 10_000_000;

/** Offsets in milliseconds from the point's start, non-decreasing; the first arrival is at 0. */
export function arrivalOffsetsMs(spec: ScheduleSpec): Float64Array {
  const limit = Math.min(spec.count ?? MAX_SCHEDULED_ARRIVALS, MAX_SCHEDULED_ARRIVALS);
  if (!Number.isFinite(spec.rate)) {
    if (spec.count === null) throw new RangeError('an infinite rate needs a request count');
    return new Float64Array(limit);
  }
  const horizonMs = spec.durationS === null ? Number.POSITIVE_INFINITY : spec.durationS * 1000;
  const rng = createRng(spec.seed, 'arrivals');
  const meanGapMs = 1000 / spec.rate;
  const shape = spec.arrival === 'poisson' ? 1 : spec.burstiness;
  const offsets: number[] = [];
  let t = 0;
  while (offsets.length < limit && t < horizonMs) {
    offsets.push(t);
    t += spec.arrival === 'constant' ? meanGapMs : rng.gamma(shape, meanGapMs / shape);
  }
  return Float64Array.from(offsets);
}
