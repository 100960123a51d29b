/**
 * A duration flag's value: seconds as a plain number, or hours, minutes and seconds written as
 * 2h, 30m, 90s, 1h30m (the forms `timeout`, SLURM and Go read, without their day and fraction units).
 */
import { usageError } from '../errors.ts';

const PART = /(\d+(?:\.\d+)?)(h|m|s)/g;
const UNIT_S = { h: 3600, m: 60, s: 1 } as const;

/** The seconds `text` names; null when it is not a duration. */
export function readDurationS(text: string): number | null {
  const trimmed = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Number(trimmed);
  if (!/^(?:\d+(?:\.\d+)?[hms])+$/.test(trimmed)) return null;
  let seconds = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) seconds += Number(amount) * UNIT_S[unit as keyof typeof UNIT_S];
  return seconds;
}

/** `--flag`'s value in seconds, > 0; a usage error naming the flag and the forms it takes otherwise. */
export function parseDurationS(flag: string, text: string): number {
  const seconds = readDurationS(text);
  if (seconds === null || seconds <= 0) throw usageError(`--${flag}: "${text}" is not a positive duration; write seconds (90) or hours, minutes and seconds (90s, 30m, 2h, 1h30m)`);
  return seconds;
}
