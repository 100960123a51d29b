/**
 * The community filter, as pure functions shared by the prerendered pages and their scripts.
 * Community results (a pull request from anyone) and results of an engine version that is not a
 * known release ("unverified") are never ranked: pages show them apart, with a badge, only while
 * the filter is on (`?community=1`); off, a page is exactly the official leaderboard.
 */
export const COMMUNITY_PARAM = 'community';

/** Where a release or a run comes from: the fields the compiled data carries for it. */
export interface Standing {
  readonly source: string;
  readonly engine_version_known: boolean | null;
}

/** Whether the URL's query asks for community results (only "1" does). */
export function parseCommunity(search: string): boolean {
  return new URLSearchParams(search).get(COMMUNITY_PARAM) === '1';
}

/** The query with the filter set as given; every other parameter is kept as it is. */
export function withCommunity(search: string, on: boolean): string {
  const params = new URLSearchParams(search);
  if (on) params.set(COMMUNITY_PARAM, '1');
  else params.delete(COMMUNITY_PARAM);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The badges a row wears: none for an official run of a known release. */
export function badgesOf(row: Standing): string[] {
  const badges: string[] = [];
  if (row.source !== 'official') badges.push('community');
  if (row.engine_version_known === false) badges.push('unverified version');
  return badges;
}

/**
 * The compare page's value for a release: `engine@version` for an official one (the permalinks
 * made before community results existed), else prefixed with its badges, e.g.
 * `community:vllm@0.11.0`. Engine names have no ":" or "@", so the two kinds never collide.
 */
export function releaseChoice(engine: string, version: string, row: Standing): string {
  const badges = badgesOf(row).map((b) => (b === 'unverified version' ? 'unverified' : b));
  return `${badges.length === 0 ? '' : `${badges.join('+')}:`}${engine}@${version}`;
}
