/**
 * The sim's versioned performance (harness/engines/sim/versioned-performance.ts): a launch plays
 * one release (--engine-version, what /version reports) and runs at the product of the planted
 * --performance-changes at or below it, composed with launch noise. Real sims on 127.0.0.1:0; the
 * measured decode time of two releases is in versioned-performance.timing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { simConfigFromArgs } from '../../harness/engines/sim/command.ts';
import { resolveSimConfig, type PerformanceChange } from '../../harness/engines/sim/config.ts';
import { launchFactor } from '../../harness/engines/sim/launch-noise.ts';
import { parsePerformanceChanges, versionFactor } from '../../harness/engines/sim/versioned-performance.ts';
import { SERVEBENCH_VERSION } from '../../harness/lib/version.ts';
import { sim } from './helpers.ts';

const PLANTED: PerformanceChange[] = [{ version: '1.3.0', factor: 1.5 }];
const COSTS = { decodeBaseMs: 10, decodePerSeqMs: 0.2, prefillTokensPerS: 20_000 };

async function reportedVersion(url: string): Promise<unknown> {
  return ((await (await fetch(`${url}/version`)).json()) as { version: unknown }).version;
}

describe('versionFactor: cumulative over the changes at or below the version, in version order', () => {
  const changes = parsePerformanceChanges('1.3.0:1.5,1.5.0:0.8');
  it.each([
    ['1.2.9', 1],
    ['1.3.0rc1', 1], // a pre-release comes before its release
    ['1.3.0', 1.5],
    ['1.4.2', 1.5],
    ['1.5.0', 1.5 * 0.8],
    ['1.10.0', 1.5 * 0.8], // 10 > 5 as numbers, though "1.10.0" < "1.5.0" as strings
    ['2.0.0', 1.5 * 0.8],
  ])('%s runs at ×%f', (version, factor) => {
    expect(versionFactor(changes, version)).toBeCloseTo(factor, 14);
  });
});

describe('a launch at a version', () => {
  it('below the planted change keeps its costs; at or above it, every cost is 1.5 times as large', async () => {
    const before = await sim({ ...COSTS, engineVersion: '1.2.0', performanceChanges: PLANTED });
    const after = await sim({ ...COSTS, engineVersion: '1.3.0', performanceChanges: PLANTED });
    expect(before.config).toMatchObject(COSTS);
    expect(after.config.decodeBaseMs).toBeCloseTo(15, 12);
    expect(after.config.decodePerSeqMs).toBeCloseTo(0.3, 12);
    expect(after.config.prefillTokensPerS).toBeCloseTo(20_000 / 1.5, 9);
    expect(await reportedVersion(before.url)).toBe('1.2.0');
    expect(await reportedVersion(after.url)).toBe('1.3.0');
  });

  it('composes with launch noise: the costs are scaled by both factors', async () => {
    const noisy = await sim({ ...COSTS, runNoise: 0.3, seed: 7, engineVersion: '1.4.0', performanceChanges: PLANTED });
    const noise = launchFactor(7, 0.3, process.pid);
    expect(noise).not.toBe(1);
    expect(noisy.config.decodeBaseMs).toBeCloseTo(10 * 1.5 * noise, 12);
    expect(noisy.config.prefillTokensPerS).toBeCloseTo(20_000 / (1.5 * noise), 9);
  });

  it('reports <servebench version>-sim by default, as before', async () => {
    const server = await sim();
    expect(await reportedVersion(server.url)).toBe(`${SERVEBENCH_VERSION}-sim`);
    expect(server.config.performanceChanges).toEqual([]);
  });
});

describe('--engine-version and --performance-changes', () => {
  it('parse into the config', () => {
    expect(simConfigFromArgs(['--engine-version', '1.4.0', '--performance-changes', ' 1.3.0:1.5 , 1.5.0:0.8'])).toMatchObject({
      engineVersion: '1.4.0',
      performanceChanges: [{ version: '1.3.0', factor: 1.5 }, { version: '1.5.0', factor: 0.8 }],
    });
    expect(simConfigFromArgs([]).engineVersion).toBe(`${SERVEBENCH_VERSION}-sim`);
    expect(simConfigFromArgs(['--performance-changes', '']).performanceChanges).toEqual([]);
    // Without planted changes the version is only reported, so any one-word name will do.
    expect(simConfigFromArgs(['--engine-version', 'v1.2.0']).engineVersion).toBe('v1.2.0');
  });

  it.each([
    [['--performance-changes', '1.3.0'], /--performance-changes: "1.3.0" is not version:factor; give e.g. "1.3.0:1.5"/],
    [['--performance-changes', '1.3.0:fast'], /--performance-changes: "1.3.0:fast" is not version:factor/],
    [['--performance-changes', '1.3.0:1.5:2'], /--performance-changes: "1.3.0:1.5:2" is not version:factor/],
    [['--performance-changes', ':1.5'], /--performance-changes: ":1.5" is not version:factor/],
    [['--performance-changes', '1.3.0:0'], /--performance-changes: performance change 1.3.0:0: the factor must be a finite number > 0/],
    [['--performance-changes', '1.3.0:-1.5'], /the factor must be a finite number > 0/],
    [['--performance-changes', '1.3.0:Infinity'], /the factor must be a finite number > 0/],
    [['--performance-changes', 'v1.3.0:1.5'], /--performance-changes: performance change at "v1.3.0" is not a version such as 1.3.0 \(digits first/],
    [['--performance-changes', '1.3.0:1.5,1.3.0:2'], /performance change at 1.3.0 given twice; give each version once/],
    [['--engine-version', 'v1.2.0', '--performance-changes', '1.3.0:1.5'], /--engine-version: "v1.2.0" is not a version such as 1.3.0.*give it as their versions are \(1.2.0, not v1.2.0\)/],
    [['--engine-version', ''], /--engine-version: "" must be one word, not empty/],
  ])('refuses %j, naming the option and the fix', (argv, message) => {
    expect(() => simConfigFromArgs(argv)).toThrow(message);
  });

  it('the config refuses the same for a caller that skips the CLI', () => {
    expect(() => resolveSimConfig({ performanceChanges: [{ version: '1.3.0', factor: 0 }] })).toThrow(/sim: performance change 1.3.0:0/);
    expect(() => resolveSimConfig({ engineVersion: 'v1', performanceChanges: PLANTED })).toThrow(/sim: engineVersion "v1" is not a version/);
    expect(() => resolveSimConfig({ engineVersion: 'two words' })).toThrow(/sim: engineVersion "two words" must be one word/);
  });
});
