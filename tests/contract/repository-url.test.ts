/**
 * The repository a site names comes from the build's configuration, never a result: the
 * environment, else the checkout's real git remote `origin` (a throwaway repository made here
 * with git), each as a plain https URL; with neither, none.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutOriginUrl, httpsRepositoryUrl } from '../../harness/contract/repository-url.ts';
import { repositoryUrlFromEnv } from '../../harness/contract/repository-url.ts';

describe('httpsRepositoryUrl', () => {
  it('turns every form of a git remote into https://host/path, credentials and .git dropped', () => {
    const cases: Array<[string, string]> = [
      ['git@github.com:servebench/servebench.git', 'https://github.com/servebench/servebench'],
      ['ssh://git@github.com:22/servebench/servebench.git', 'https://github.com/servebench/servebench'],
      ['git://github.com/servebench/servebench', 'https://github.com/servebench/servebench'],
      ['https://x-access-token:ghs_secret@github.com/servebench/servebench.git', 'https://github.com/servebench/servebench'],
      ['http://gitea.example.org:3000/team/servebench/', 'https://gitea.example.org:3000/team/servebench'],
      ['https://github.com/servebench/servebench\n', 'https://github.com/servebench/servebench'],
    ];
    for (const [remote, url] of cases) expect(httpsRepositoryUrl(remote), remote).toBe(url);
  });

  it('refuses what is not a repository URL a reader can paste', () => {
    for (const remote of ['/srv/git/servebench.git', '../servebench', 'file:///srv/git/x', 'https://github.com/a/b c', 'https://github.com/a/\u202Eb', 'https://github.com/a/$(id)', 'https://github.com/../x', 'https://evil.example/"; rm -rf ~', '']) {
      expect(httpsRepositoryUrl(remote), remote).toBeNull();
    }
  });
});

describe('repositoryUrlFromEnv: one definition for the pages, the Reproduce block and regress', () => {
  it('takes SERVEBENCH_REPO_URL, else the GitHub Actions repository, else the origin', () => {
    const origin = () => 'https://example.org/from/origin';
    expect(repositoryUrlFromEnv({ SERVEBENCH_REPO_URL: 'git@github.com:fork/servebench.git' }, origin)).toBe('https://github.com/fork/servebench');
    expect(repositoryUrlFromEnv({ GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'servebench/servebench' }, origin)).toBe('https://github.com/servebench/servebench');
    expect(repositoryUrlFromEnv({}, origin)).toBe('https://example.org/from/origin');
    expect(repositoryUrlFromEnv({}, () => null)).toBeNull();
  });

  it('a configured value that is not a repository URL is a clear error, not a made-up link', () => {
    expect(() => repositoryUrlFromEnv({ SERVEBENCH_REPO_URL: 'https://github.com/a/$(id)' }, () => null)).toThrow(/SERVEBENCH_REPO_URL .* is not a repository URL; set it to e\.g\. https:\/\/github\.com\/OWNER\/REPO/);
  });

  it('reads the origin of a real git checkout, and none where there is no origin', () => {
    const dir = mkdtempSync(join(tmpdir(), 'servebench-origin-'));
    execFileSync('git', ['init', '-q', dir]);
    expect(checkoutOriginUrl(dir)).toBeNull();
    execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', 'git@github.com:someone/servebench.git']);
    expect(checkoutOriginUrl(dir)).toBe('https://github.com/someone/servebench');
    expect(checkoutOriginUrl(join(tmpdir(), 'no-such-folder-servebench'))).toBeNull();
  });
});
