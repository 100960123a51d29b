/**
 * Run-to-run noise for the sim: a real engine's speed differs from launch to launch (memory
 * placement, allocator state, kernel autotuning, what else the host runs), which is what repeats
 * of a run measure. With runNoise σ > 0 every cost of one launch is scaled by one factor
 * exp(σ·z), z standard normal, drawn from the seed and a launch key (the process id: two
 * launches alive at once never share one), so a launch is reproducible given both and
 * successive launches differ. σ = 0 leaves the config as it is.
 */
import { createRng } from '../../lib/rng.ts';
import type { SimConfig } from './config.ts';
import { scaledCosts } from './cost-model.ts';

/** The speed factor of one launch (> 1: slower). */
export function launchFactor(seed: number, sigma: number, launchKey: number): number {
  return sigma === 0 ? 1 : Math.exp(sigma * createRng(seed, `launch-noise:${launchKey}`).normal());
}

export function withLaunchNoise(config: SimConfig, launchKey: number): SimConfig {
  if (config.runNoise === 0) return config;
  return scaledCosts(config, launchFactor(config.seed, config.runNoise, launchKey));
}
