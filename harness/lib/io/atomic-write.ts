/**
 * Results are immutable: a file is written whole or not at all, and never replaces another.
 * Write to a temp file in the same directory, then hard-link it into place (link fails with
 * EEXIST instead of overwriting, unlike rename), then drop the temp name.
 */
import { constants, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { copyFile, link, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { usageError } from '../errors.ts';

export async function writeNewFileAtomic(path: string, contents: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, contents, { flag: 'wx' });
    await link(temp, path).catch(async (error: NodeJS.ErrnoException) => {
      // Filesystems without hard links (some FUSE, SMB, FAT mounts): an exclusive copy still
      // never overwrites, though a reader could then see a partly copied file.
      if (error.code !== 'EPERM' && error.code !== 'ENOTSUP' && error.code !== 'EOPNOTSUPP') throw error;
      await copyFile(temp, path, constants.COPYFILE_EXCL);
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw usageError(`${path} already exists; results are never overwritten: choose another --out`);
    }
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

/** For derived files that a newer compile replaces (manifests, dictionaries): temp file, then rename. */
export function writeFileAtomic(path: string, contents: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  writeFileSync(temp, contents);
  renameSync(temp, path);
}
