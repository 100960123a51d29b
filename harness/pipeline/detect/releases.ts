/**
 * The known-release list (fleet/releases.json, harness/contract/releases.ts) grows with detect:
 * every release a poll reports new is appended, as results will record its version, so the
 * night's results of it are ranked from the commit that brings them. For llama.cpp that version is
 * the tag the node-llama-cpp release bundles (what `servebench llamacpp build` records), with the
 * npm release beside it. A retry of a version reported before (images_only) adds nothing.
 */
import type { NewRelease } from '../../contract/releases.ts';
import type { DetectReport } from './detect.ts';

export function releasesOfReport(report: DetectReport): NewRelease[] {
  const day = report.checked_at.slice(0, 10);
  return report.new.map((found): NewRelease => {
    if (found.npm) {
      return {
        engine: found.engine,
        release: {
          version: found.tag,
          tag: found.tag,
          published_at: found.published_at,
          release_url: found.release_url,
          npm: { package: found.npm.package, version: found.version },
          source: `servebench detect ${day}: ${found.npm.package} ${found.version}'s tarball bundles llama.cpp ${found.tag} (commit ${found.npm.bundle_commit})`,
        },
      };
    }
    return {
      engine: found.engine,
      release: { version: found.version, tag: found.tag, published_at: found.published_at, release_url: found.release_url, source: `servebench detect ${day}: ${found.release_url}` },
    };
  });
}
