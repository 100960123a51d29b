/**
 * A sort key for engine versions as engines spell them ("0.11.2", "v0.5.0rc1", "b4567",
 * "1.0.0.dev20251101"): numeric parts zero-padded, a pre-release before its release. Plain
 * string order of the keys is version order, so SQL can sort and compare them.
 */
const PRE_RELEASE = /(a|alpha|b|beta|rc|dev|pre|preview)\.?(\d*)/i;

/**
 * llama.cpp numbered its releases by build ("b4753", "b8095") and then moved to semantic versions
 * ("v0.4.0", 2026): every build number predates every semantic version, so it sorts as 0.0.0.0.N.
 */
const BUILD_NUMBER = /^b(\d+)$/;

export function versionOrderKey(version: string | null): string | null {
  if (version === null) return null;
  const build = BUILD_NUMBER.exec(version);
  if (build) return `${['0', '0', '0', '0', build[1]!].map((part) => part.padStart(10, '0')).join('.')}~`;
  const core = version.match(/\d+(?:\.\d+)*/);
  if (!core) return `~${version}`;
  const numbers = core[0].split('.').slice(0, 5).map((part) => part.padStart(10, '0'));
  while (numbers.length < 5) numbers.push('0'.padStart(10, '0'));
  const rest = version.slice((core.index ?? 0) + core[0].length);
  const pre = rest.match(PRE_RELEASE);
  // '-' sorts before '~': 1.2.0rc1 < 1.2.0rc2 < 1.2.0.
  const suffix = pre ? `-${pre[1]!.toLowerCase().slice(0, 3)}${(pre[2] || '0').padStart(10, '0')}` : '~';
  return `${numbers.join('.')}${suffix}`;
}
