/**
 * scripts/ab-false-alarms.ts's tally: faster and slower are false alarms of an A/A, "no change"
 * and "inconclusive" are not; each rate with Wilson's interval. The verdicts are SYNTHETIC (the
 * script's own trials run the real sim: docs/metrics.md gives a measured run).
 */
import { describe, expect, it } from 'vitest';
import { wilsonInterval } from '../../harness/lib/stats/wilson-interval.ts';
import { falseAlarmRates, type TrialVerdicts } from '../../scripts/ab-false-alarms.ts';

describe('the A/A false-alarm tally', () => {
  it('counts faster and slower, per confirmed verdict, per pass and per pass at margin 0', () => {
    const trials: TrialVerdicts[] = [
      { verdict: 'no change', passes: ['no change', 'no change'], passesAtMarginZero: ['inconclusive', 'slower'] },
      { verdict: 'inconclusive', passes: ['faster', 'inconclusive'], passesAtMarginZero: ['faster', 'inconclusive'] },
      { verdict: 'slower', passes: ['slower', 'slower'], passesAtMarginZero: ['slower', 'slower'] },
      { verdict: 'inconclusive', passes: ['inconclusive', 'no change'], passesAtMarginZero: ['inconclusive', 'inconclusive'] },
    ];
    const rates = falseAlarmRates(trials);
    expect(rates.confirmed).toEqual({ alarms: 1, of: 4, rate: 0.25, interval: wilsonInterval(1, 4) });
    expect(rates.singlePass).toMatchObject({ alarms: 3, of: 8, rate: 0.375 });
    expect(rates.marginZero).toMatchObject({ alarms: 4, of: 8, rate: 0.5 });
    expect(falseAlarmRates([]).confirmed).toEqual({ alarms: 0, of: 0, rate: null, interval: null });
  });
});
