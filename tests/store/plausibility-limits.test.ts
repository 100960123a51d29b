/**
 * The plausibility rules (harness/store/plausibility.ts) where mutation testing found them unwatched
 * (docs/mutation-testing.md): each limit taken exactly (a rule's bound is inclusive: a value at it
 * is valid, and the next one past it is not), each condition of a rule broken alone, and the words
 * of a problem that tell the reader which case they are in. SYNTHETIC results (claim-fixtures.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Point, RunResult } from '../../harness/contract/result.ts';
import { FUTURE_SLACK_MS } from '../../harness/store/physical-bounds.ts';
import { checkPlausibility, LENGTHS_RULE_SINCE } from '../../harness/store/plausibility.ts';
import { problemsOf, synthetic, withSavedRequests } from './claim-fixtures.ts';

/** Wall-clock slack the time rules allow (plausibility.ts CLOCK_SLACK_MS, docs/validation.md). */
const CLOCK_SLACK_MS = 5 * 60_000;
const ruleOf = (message: string) => /^\[([^\]]+)\]/.exec(message)?.[1] ?? message;
/** `path [rule]` of each problem of the result, as validate reports them for a file on its own. */
const found = (result: RunResult) => problemsOf(result).map((p) => `${p.path} [${ruleOf(p.message)}]`);
const edited = (edit: (r: RunResult) => void, base: () => RunResult = synthetic): RunResult => {
  const result = base();
  edit(result);
  return result;
};
const p0 = (r: RunResult): Point => r.points[0]!;
const iso = (ms: number) => new Date(ms).toISOString();

/** The point's duration changed, its rates recomputed from it. */
function setDuration(point: Point, seconds: number): void {
  const m = point.metrics;
  m.duration_s = seconds;
  m.request_throughput = m.completed / seconds;
  m.output_throughput = m.output_tokens / seconds;
  m.total_throughput = (m.input_tokens + m.output_tokens) / seconds;
}

/** `path [rule]` of what checkPlausibility alone reports for the result, of the rule given (other rules' edits need not be undone). */
function plausibility(result: RunResult, only: string, now = Date.parse(result.created_at)): string[] {
  const problems: string[] = [];
  checkPlausibility(result, (path, message) => problems.push(`${path} [${ruleOf(message)}]`), now);
  return problems.filter((p) => p.endsWith(`[${only}]`));
}

/** A steady window from `start` to `end` s of the point holding half its counts, its rates agreeing. */
function withSteady(point: Point, start: number, end: number): NonNullable<Point['steady']> {
  const m = point.metrics;
  const [completed, input, output] = [m.completed / 2, m.input_tokens / 2, m.output_tokens / 2];
  const d = end - start;
  point.steady = { start_s: start, end_s: end, duration_s: d, completed, input_tokens: input, output_tokens: output, request_throughput: completed / d, output_throughput: output / d, total_throughput: (input + output) / d };
  return point.steady;
}

/** The point as an open loop at 8 requests/s with the achieved ratios given, judged as the harness judges it. */
function openLoop(point: Point, sendRatio: number, completionRatio: number): void {
  point.load = { mode: 'open', rate: 8, arrival: 'poisson', burstiness: 1, max_concurrency: null };
  point.achieved_rate = { send_ratio: sendRatio, completion_ratio: completionRatio };
  point.overloaded = sendRatio < 0.98 || completionRatio < 0.98;
  if (point.overloaded) point.overload_reason = 'the client fell behind the schedule';
}

/** Every request of the first point failed (timeouts): no counts, no latencies, the outcome recomputed. */
function firstPointFailed(r: RunResult): void {
  const point = p0(r);
  const m = point.metrics;
  m.failed = point.requests_sent;
  m.completed = 0;
  m.input_tokens = 0;
  m.output_tokens = 0;
  setDuration(point, m.duration_s);
  for (const key of ['ttft_ms', 'tpot_ms', 'itl_ms', 'itl_event_ms', 'e2el_ms', 'interactivity_tok_s'] as const) m[key] = null;
  point.failures.timeout = point.requests_sent;
  const sent = r.points.reduce((sum, p) => sum + p.requests_sent, 0);
  r.outcome.failure_rate = point.requests_sent / sent;
  r.outcome.exceeded_max_failure_rate = r.outcome.failure_rate > r.max_failure_rate;
}

describe('rates and bounds, at their limits', () => {
  it('a rate off by exactly the 1% tolerance is valid; the problem past it says the tolerance', () => {
    // 64/103 s, and the float just above it whose distance is exactly 1% of it (found by search).
    const rate = 0.6276355790918897;
    expect(Math.abs(rate - 64 / 103)).toBe(0.01 * rate);
    expect(found(edited((r) => {
      setDuration(p0(r), 103);
      p0(r).metrics.request_throughput = rate;
    }))).toEqual([]);
    const off = problemsOf(edited((r) => {
      p0(r).metrics.total_throughput! *= 1.02;
    }));
    expect(off.map((p) => `${p.path} [${ruleOf(p.message)}]`)).toEqual(['points[0].metrics.total_throughput [rate=sum/duration]']);
    expect(off[0]!.fix).toBe('throughputs are counts / duration_s (within 1%)');
  });

  it('a missing rate over a positive duration is refused even when its count is 0', () => {
    expect(found(edited((r) => {
      firstPointFailed(r);
      p0(r).metrics.request_throughput = null;
    }))).toContain('points[0].metrics.request_throughput [rate=sum/duration]');
  });

  it('goodput exactly 1% above the request throughput is valid', () => {
    expect(found(edited((r) => {
      const m = p0(r).metrics;
      m.goodput = (m.completed / m.duration_s) * (1 + 0.01);
    }))).toEqual([]);
  });

  it('an output rate of exactly the physical bound per device is valid; past it the problem names the device', () => {
    // 8192 tokens in 8.192 ms: exactly 1,000,000 tokens/s (MAX_OUTPUT_TOKENS_PER_S) on the one GPU.
    expect(8192 / 0.008192).toBe(1_000_000);
    const atBound = found(edited((r) => setDuration(p0(r), 0.008192)));
    expect(atBound.filter((p) => p.includes('[physical-'))).toEqual([]);
    const past = problemsOf(edited((r) => setDuration(p0(r), 0.004096)));
    expect(past.map((p) => p.message).filter((m) => m.startsWith('[physical-decode-rate]'))).toEqual(['[physical-decode-rate] 2.000e+6 output tokens/s per GPU is beyond any hardware (limit 1000000)']);
    const onHost = problemsOf(edited((r) => {
      r.run!.hardware!.gpus = [];
      setDuration(p0(r), 0.004096);
    }));
    expect(onHost.map((p) => p.message).filter((m) => m.startsWith('[physical-decode-rate]'))).toEqual(['[physical-decode-rate] 2.000e+6 output tokens/s per host is beyond any hardware (limit 1000000)']);
  });

  it('a request rate of exactly the physical bound is valid', () => {
    const atRate = (seconds: number) =>
      plausibility(
        edited((r) => {
          const point = p0(r);
          Object.assign(point.metrics, { completed: 100_000 });
          point.requests_sent = 100_000;
          setDuration(point, seconds);
        }),
        'physical-request-rate',
      );
    expect(atRate(1)).toEqual([]);
    expect(atRate(0.5)).toEqual(['points[0].metrics.request_throughput [physical-request-rate]']);
  });

  it('a request rate past the physical bound says the rate', () => {
    const past = problemsOf(edited((r) => setDuration(p0(r), 0.0004)));
    expect(past.map((p) => p.message).filter((m) => m.startsWith('[physical-request-rate]'))).toEqual(['[physical-request-rate] 1.600e+5 requests/s is beyond any server (limit 100000)']);
  });
});

describe('distributions, at their limits', () => {
  it('percentiles out of order by no more than float rounding (1e-9 relative) are in order', () => {
    expect(found(edited((r) => {
      const ttft = p0(r).metrics.ttft_ms!;
      ttft.p50 = ttft.p90 + 1e-9 * Math.max(1, Math.abs(ttft.p90));
    }))).toEqual([]);
  });

  it('a mean below the minimum is refused', () => {
    expect(found(edited((r) => {
      const ttft = p0(r).metrics.ttft_ms!;
      ttft.mean = ttft.min - 1;
    }))).toEqual(['points[0].metrics.ttft_ms.mean [mean-in-range]']);
  });

  it('a TTFT above the E2EL by exactly the rounding tolerance (1e-6 relative) is valid', () => {
    expect(found(edited((r) => {
      const { ttft_ms: ttft, e2el_ms: e2el } = p0(r).metrics;
      ttft!.max = e2el!.max + 1e-6 * Math.max(1, Math.abs(e2el!.max));
    }))).toEqual([]);
  });

  it('a zero TPOT among positive ones leaves the interactivity maximum unchecked (1000 / 0 is none)', () => {
    expect(found(edited((r) => {
      p0(r).metrics.tpot_ms!.min = 0;
    }))).toEqual([]);
  });

  it('a point without completions has no TTFT and no E2EL: either one alone is refused', () => {
    const ttftOnly = found(edited((r) => {
      const ttft = p0(r).metrics.ttft_ms;
      firstPointFailed(r);
      p0(r).metrics.ttft_ms = ttft;
    }));
    expect(ttftOnly).toContain('points[0].metrics [latency-present]');
    const e2elOnly = found(edited((r) => {
      const e2el = p0(r).metrics.e2el_ms;
      firstPointFailed(r);
      p0(r).metrics.e2el_ms = e2el;
    }));
    expect(e2elOnly).toContain('points[0].metrics [latency-present]');
  });
});

describe('saved requests, at their limits', () => {
  const saved = () => withSavedRequests(synthetic());

  it('latencies of 0 ms (under the clock resolution) are valid', () => {
    expect(found(edited((r) => {
      Object.assign(p0(r).requests![0]!, { ttft_ms: 0, e2el_ms: 0, tpot_ms: 0 });
    }, saved))).toEqual([]);
  });

  it('a failed request that got its first token and no end is not held to e2el ≥ ttft', () => {
    const result = saved();
    Object.assign(p0(result).requests![0]!, { ok: false, failure: 'timeout', status: null, e2el_ms: null, tpot_ms: null, output_tokens: null });
    expect(plausibility(result, 'e2el≥ttft')).toEqual([]);
  });

  it('a one-token request has no inter-token time: its TPOT is not held to e2el = ttft + (n − 1) · tpot', () => {
    const result = saved();
    Object.assign(p0(result).requests![0]!, { ttft_ms: 60, e2el_ms: 70, tpot_ms: 10, output_tokens: 1 });
    expect(plausibility(result, 'e2el=ttft+(n−1)·tpot')).toEqual([]);
  });

  it('a one-token request whose TTFT is above its E2EL by exactly the rounding tolerance is valid; past it, refused', () => {
    const ttftAbove = (ttft: (e2el: number) => number) => {
      const result = saved();
      Object.assign(p0(result).requests![0]!, { ttft_ms: ttft(50), e2el_ms: 50, tpot_ms: null, output_tokens: 1 });
      const rules: string[] = [];
      checkPlausibility(result, (path, message) => rules.push(`${path} [${ruleOf(message)}]`), Date.parse(result.created_at));
      return rules.filter((p) => p.includes('[e2el≥ttft]'));
    };
    expect(ttftAbove((e2el) => e2el * (1 + 1e-6) + 1e-9)).toEqual([]);
    expect(ttftAbove((e2el) => e2el * (1 + 2e-6))).toEqual(['points[0].requests[0].ttft_ms [e2el≥ttft]']);
  });
});

describe('the steady window', () => {
  it('a window inside its point, starting after 0, is valid', () => {
    expect(found(edited((r) => void withSteady(p0(r), 10, 70)))).toEqual([]);
  });

  it('may end exactly the rounding slack (1e-6 of the duration) after its point', () => {
    expect(found(edited((r) => {
      const d = p0(r).metrics.duration_s;
      withSteady(p0(r), 10, d + 1e-6 * Math.max(1, d));
    }))).toEqual([]);
  });

  it('may hold every completion and every input token of its point', () => {
    expect(found(edited((r) => {
      const [m, steady] = [p0(r).metrics, withSteady(p0(r), 10, 70)];
      Object.assign(steady, { completed: m.completed, input_tokens: m.input_tokens, request_throughput: m.completed / 60, total_throughput: (m.input_tokens + steady.output_tokens) / 60 });
    }))).toEqual([]);
  });

  it('more input tokens than its point is refused, its completions within', () => {
    expect(found(edited((r) => {
      const [m, steady] = [p0(r).metrics, withSteady(p0(r), 10, 70)];
      Object.assign(steady, { input_tokens: m.input_tokens + 1, total_throughput: (m.input_tokens + 1 + steady.output_tokens) / 60 });
    }))).toEqual(['points[0].steady [steady-window]']);
  });

  it('an empty window (start = end) is refused once, and its rates over no time are not checked', () => {
    expect(found(edited((r) => {
      Object.assign(withSteady(p0(r), 10, 10), { duration_s: 0, completed: 0, input_tokens: 0, output_tokens: 0, request_throughput: 0, output_throughput: 0, total_throughput: 0 });
    }))).toEqual(['points[0].steady.end_s [steady-window]']);
  });

  it('each rate that disagrees with its counts is named, with the tolerance', () => {
    const problems = problemsOf(edited((r) => {
      const steady = withSteady(p0(r), 10, 70);
      steady.request_throughput *= 1.5;
      steady.total_throughput *= 1.5;
    }));
    expect(problems.map((p) => p.path)).toEqual(['points[0].steady.request_throughput', 'points[0].steady.total_throughput']);
    expect(problems[0]!.fix).toBe("steady throughputs are the window's counts / its duration_s (within 1%)");
  });

  it('a steady_reason without a steady field, and steady null without a reason, are each refused where they are', () => {
    const reasonAlone = problemsOf(edited((r) => {
      p0(r).steady_reason = 'too few requests';
    }));
    expect(reasonAlone.map((p) => `${p.path}: ${p.message}`)).toEqual(['points[0].steady_reason: [steady-window] a steady_reason without steady: null']);
    const nullAlone = problemsOf(edited((r) => {
      p0(r).steady = null;
    }));
    expect(nullAlone.map((p) => `${p.path}: ${p.message}`)).toEqual(['points[0].steady: [steady-window] steady is null without a steady_reason']);
  });
});

describe('overloaded', () => {
  it('a send ratio below 0.98 alone makes an open-loop point overloaded; exactly 0.98 does not', () => {
    expect(found(edited((r) => openLoop(p0(r), 0.9, 1)))).toEqual([]);
    expect(found(edited((r) => {
      openLoop(p0(r), 0.9, 1);
      p0(r).overloaded = false;
      delete p0(r).overload_reason;
    }))).toEqual(['points[0].overloaded [overloaded]']);
    expect(found(edited((r) => openLoop(p0(r), 0.98, 0.98)))).toEqual([]);
  });

  it('achieved_rate without the overloaded flag is refused', () => {
    expect(found(edited((r) => {
      openLoop(p0(r), 0.5, 0.5);
      delete p0(r).overloaded;
    }))).toEqual(['points[0].overloaded [overloaded]']);
  });

  it('overloaded null with a reason, where achieved_rate says overloaded, is refused', () => {
    expect(found(edited((r) => {
      openLoop(p0(r), 0.5, 0.5);
      p0(r).overloaded = null;
    }))).toEqual(['points[0].overloaded [overloaded]']);
  });

  it('a closed loop or an open loop at rate inf is never judged, not even as too short to tell; the problem says which load it is', () => {
    const closed = problemsOf(edited((r) => {
      p0(r).overloaded = null;
      p0(r).overload_reason = 'too few requests to tell';
    }));
    expect(closed.map((p) => `${p.path}: ${p.message}`)).toEqual(['points[0].overloaded: [overloaded] overloaded is null (reason given) for a closed load']);
    const unlimited = problemsOf(edited((r) => {
      p0(r).load = { mode: 'open', rate: 'inf', arrival: 'poisson', burstiness: 1, max_concurrency: null };
      p0(r).overloaded = null;
      p0(r).overload_reason = 'too few requests to tell';
    }));
    expect(unlimited.map((p) => p.message)).toEqual(['[overloaded] overloaded is null (reason given) for a rate inf load']);
    const closedFalse = problemsOf(edited((r) => {
      p0(r).overloaded = false;
    }));
    expect(closedFalse.map((p) => p.message)).toEqual(['[overloaded] overloaded is false (reason absent) for a closed load']);
  });

  it('the problem of a judged point quotes its achieved_rate', () => {
    const problems = problemsOf(edited((r) => {
      openLoop(p0(r), 1, 0.5);
      p0(r).overloaded = false;
      delete p0(r).overload_reason;
    }));
    expect(problems.map((p) => p.message)).toEqual(['[overloaded] overloaded is false (reason absent) for achieved_rate {"send_ratio":1,"completion_ratio":0.5}']);
  });
});

describe('the run: times, outcome, lengths', () => {
  it('a point may start exactly the clock slack before its run was created or after it finished', () => {
    const shifted = (ms: (r: RunResult) => number) =>
      found(edited((r) => {
        p0(r).started_at = iso(ms(r));
      }));
    expect(shifted((r) => Date.parse(r.created_at) - CLOCK_SLACK_MS)).toEqual([]);
    expect(shifted((r) => Date.parse(r.finished_at) + CLOCK_SLACK_MS)).toEqual([]);
  });

  it('a point may last exactly the clock slack longer than its run', () => {
    expect(found(edited((r) => setDuration(p0(r), (Date.parse(r.finished_at) - Date.parse(r.created_at)) / 1000 + CLOCK_SLACK_MS / 1000)))).toEqual([]);
  });

  it('a run may finish exactly the clock slack before it was created (a clock step back)', () => {
    const timeOrder = (finishedMs: (r: RunResult) => number) =>
      found(edited((r) => {
        r.finished_at = iso(finishedMs(r));
      })).filter((p) => p.includes('[time-order]'));
    expect(timeOrder((r) => Date.parse(r.created_at) - CLOCK_SLACK_MS)).toEqual([]);
    expect(timeOrder((r) => Date.parse(r.created_at) - CLOCK_SLACK_MS - 1)).toEqual(['finished_at [time-order]']);
  });

  it('a run may be created exactly the future slack after now', () => {
    const dates = (now: (created: number) => number) => {
      const result = synthetic();
      const rules: string[] = [];
      checkPlausibility(result, (path, message) => rules.push(`${path} [${ruleOf(message)}]`), now(Date.parse(result.created_at)));
      return rules.filter((p) => p.includes('[plausible-date]'));
    };
    expect(dates((created) => created - FUTURE_SLACK_MS)).toEqual([]);
    expect(dates((created) => created - FUTURE_SLACK_MS - 1)).toEqual(['created_at [plausible-date]']);
  });

  it('a failure rate within float rounding (1e-9) of the points is theirs; one equal to max_failure_rate has not exceeded it', () => {
    expect(found(edited((r) => {
      r.outcome.failure_rate = 1e-9;
    }))).toEqual([]);
    expect(found(edited((r) => {
      r.max_failure_rate = 0;
    }))).toEqual([]);
  });

  it('the outcome=status problem says whether there is a failure block', () => {
    const withBlock = problemsOf(edited((r) => {
      r.run!.failure = { phase: 'measure', message: 'the server exited', log_tail: [] };
    }));
    expect(withBlock.map((p) => p.message).filter((m) => m.startsWith('[outcome=status]'))).toEqual(['[outcome=status] status completed with a failure block']);
    const withoutBlock = problemsOf(edited((r) => {
      r.status = 'failed';
    }));
    expect(withoutBlock.map((p) => p.message).filter((m) => m.startsWith('[outcome=status]'))).toEqual(['[outcome=status] status failed with no failure block']);
  });

  it('an approximate file is not held to exact lengths, whatever its server counted', () => {
    const lengthsRules = (lengths: 'exact' | 'approximate') => {
      const result = synthetic();
      result.created_at = iso(Date.parse(LENGTHS_RULE_SINCE) + 60_000);
      result.workload.lengths = lengths;
      result.workload.length_check = { endpoint: '/tokenize', checked: 4, mismatched: 4, examples: [{ expected: 512, server: 509 }] } as RunResult['workload']['length_check'];
      const rules: string[] = [];
      checkPlausibility(result, (path, message) => rules.push(`${path} [${ruleOf(message)}]`), Date.parse(result.created_at));
      return rules.filter((p) => p.includes('[lengths-exact]'));
    };
    expect(lengthsRules('exact')).toEqual(['workload.lengths [lengths-exact]']);
    expect(lengthsRules('approximate')).toEqual([]);
  });
});
