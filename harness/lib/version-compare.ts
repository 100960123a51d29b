/**
 * The one version order of the harness: numeric parts compared as numbers, a pre-release before
 * its release ("1.0.0rc4" < "1.0.0" < "1.0.0.post1"). In lib so that every stage can use it:
 * detect orders upstream releases by it, and the sim applies a planted performance change from a
 * version on (harness/engines/sim/versioned-performance.ts), so "from 1.3.0 on" means the same in
 * both.
 */

// PEP 440 and semver spellings, in release order: dev < alpha < beta < rc.
const PRE_RELEASE_RANK: Readonly<Record<string, number>> = { dev: 0, a: 1, alpha: 1, b: 2, beta: 2, c: 3, rc: 3, pre: 3, preview: 3 };

function isPreRelease(token: number | string | undefined): boolean {
  return typeof token === 'string' && token in PRE_RELEASE_RANK;
}

/** For plain tags, which have no prerelease flag: "1.0.0rc4", "0.5.0-beta.1", "1.2.0a1", "0.1.dev0". */
export function looksLikePrerelease(version: string): boolean {
  return tokens(version).some(isPreRelease);
}

/** Orders versions numerically part by part; a pre-release sorts before its release ("1.0.0rc4" < "1.0.0" < "1.0.0.post1"). */
export function compareVersions(a: string, b: string): number {
  const x = tokens(a);
  const y = tokens(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i];
    const q = y[i];
    if (p === q) continue;
    if (typeof p === 'number' && typeof q === 'number') return p - q;
    // Against an end or a number, a word is a pre-release (before) or a suffix such as "post" (after).
    if (p === undefined || typeof p === 'number') return isPreRelease(q) ? 1 : -1;
    if (q === undefined || typeof q === 'number') return isPreRelease(p) ? -1 : 1;
    if (isPreRelease(p) !== isPreRelease(q)) return isPreRelease(p) ? -1 : 1;
    const rank = (PRE_RELEASE_RANK[p] ?? 0) - (PRE_RELEASE_RANK[q] ?? 0);
    return rank !== 0 ? rank : p < q ? -1 : 1;
  }
  return 0;
}

function tokens(version: string): Array<number | string> {
  return (version.toLowerCase().match(/\d+|[a-z]+/g) ?? []).map((token) => (/^\d/.test(token) ? Number(token) : token));
}
