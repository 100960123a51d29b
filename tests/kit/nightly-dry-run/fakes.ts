/**
 * The loopback fakes the dry run's workflow steps talk to, on one server on 127.0.0.1: GitHub's
 * releases and issues APIs, Docker Hub, the webhook, and an npm registry with node-llama-cpp's
 * releases (real tarballs, fetched by the real `npm pack`). They come from the test kit
 * (tests/kit/fakes/, tests/pipeline/fake-npm-registry.ts): this is a dev script, never shipped.
 * Before each night they publish what story.ts says.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { groupKeyOfBody, stateOfBody } from '../../../harness/pipeline/alert/markdown.ts';
import { fakeGithub } from '../fakes/fake-github-releases.ts';
import { createFakeGitHub } from '../fakes/fake-github-issues.ts';
import { fakeDockerHub } from '../fakes/fake-registries.ts';
import { startFakeServer, type RecordedRequest } from '../fakes/fake-server.ts';
import { createFakeWebhook } from '../fakes/fake-webhook.ts';
import { fakeNpmRegistry } from '../../pipeline/fake-npm-registry.ts';
import { FAKE_TOKEN, GITHUB_RELEASES, GITHUB_REPO, LLAMACPP_RELEASES, REPO } from './story.ts';
import type { DryRunReport } from './types.ts';

export interface DryRunFakes {
  readonly url: string;
  /** The group key in the body of the fake GitHub's issue with this number. */
  readonly issueKey: (issue: number) => string | null;
  /** Publishes the releases story.ts lists before this night. */
  readonly publishBefore: (night: number) => void;
  /** Requests that changed something (not GET or HEAD) since the first `since` requests. */
  readonly writesSince: (since: number) => number;
  readonly requestCount: () => number;
  /** What reached GitHub's issues and the webhook, for the report. */
  readonly summary: () => DryRunReport['github'];
  readonly close: () => Promise<void>;
}

const isWrite = (request: RecordedRequest) => request.method !== 'GET' && request.method !== 'HEAD';

export async function startFakes(): Promise<DryRunFakes> {
  const releases = fakeGithub();
  // Every engine with a repository, as a scheduled detect polls them all: those the story does not publish to have no release yet.
  for (const file of readdirSync(join(REPO, 'engines')).filter((f) => f.endsWith('.yaml'))) {
    const repository = (parseYaml(readFileSync(join(REPO, 'engines', file), 'utf8')) as { source?: { repository?: string | null } }).source?.repository;
    if (typeof repository === 'string') releases.repo(repository);
  }
  const hub = fakeDockerHub();
  const issues = createFakeGitHub({ owner: GITHUB_REPO.split('/')[0]!, repo: GITHUB_REPO.split('/')[1]!, token: FAKE_TOKEN });
  const webhook = createFakeWebhook();
  // llama.cpp's releases: node-llama-cpp's on a fake npm registry (real tarballs, read by the real `npm pack`).
  const npm = fakeNpmRegistry(() => server.url, { recorded: false });
  const server = await startFakeServer([releases.handler, hub.handler, issues.handler, webhook.handler, npm.handler]);
  return {
    url: server.url,
    issueKey: (number) => groupKeyOfBody(issues.issues.find((i) => i.number === number)?.body ?? ''),
    publishBefore: (night) => {
      for (const release of GITHUB_RELEASES[night] ?? []) {
        releases.publish(release.repo, { tag_name: release.tag, published_at: release.published_at });
        if (release.image !== undefined) hub.push(release.image, release.tag);
      }
      for (const [version, tag] of LLAMACPP_RELEASES[night] ?? []) npm.publish(version, tag);
    },
    writesSince: (since) => server.requests.slice(since).filter(isWrite).length,
    requestCount: () => server.requests.length,
    summary: () => ({
      issues: issues.issues.map((i) => ({ number: i.number, title: i.title, state: i.state, labels: [...i.labels], key: groupKeyOfBody(i.body ?? ''), rows: (stateOfBody(i.body ?? '')?.cells ?? []).map((c) => ({ metric: c.metric, load: c.load })), paired: (stateOfBody(i.body ?? '')?.paired ?? []).map((p) => ({ metric: p.metric, load: p.load, verdict: p.verdict })) })),
      webhook_posts: webhook.posts.length,
      requests: server.requests.length,
    }),
    close: async () => {
      await server.close();
      npm.close();
    },
  };
}
