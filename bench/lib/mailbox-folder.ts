import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where the mail rows' file mailboxes are written (the API's `$SVC_DATA_DIR/mail` and the minimal
 * handler's folder). By default a folder in memory (tmpfs at /dev/shm) when the machine has one:
 * on a disk the rows measure the filesystem's history more than the service. On ext4 without a
 * journal each file created scans the block group's recently deleted inodes (`recently_deleted`,
 * the inode table read block by block), so a mail costs from about 0.25 to 1 ms of kernel time
 * on the libuv pool depending on how many files were deleted in the minutes before (the last
 * run's scratch folder): the mail rows swung by 15 to 20 points from run to run (bench/README.md,
 * round 10). `--mail-on-disk` keeps them in the run's scratch folder, as before.
 */
export interface MailboxFolder {
  /** The folder the mailboxes go in. */
  dir: string;
  where: 'tmpfs' | 'disk';
  remove(): void;
}

const SHM = '/dev/shm';

/** True when `mounts` (the text of /proc/mounts) mounts a tmpfs exactly at `path`. */
export function isTmpfsMount(mounts: string, path: string): boolean {
  return mounts.split('\n').some((line) => {
    const [, mountPoint, type] = line.split(' ');
    return mountPoint === path && type === 'tmpfs';
  });
}

export function mailboxFolder(scratch: string, onDisk: boolean): MailboxFolder {
  const memory = !onDisk && existsSync(SHM) && isTmpfsMount(readMounts(), SHM);
  if (!memory) {
    const dir = join(scratch, 'mailboxes');
    mkdirSync(dir, { recursive: true });
    return { dir, where: 'disk', remove: () => undefined };
  }
  const dir = mkdtempSync(join(SHM, 'svc-bench-mail-'));
  return { dir, where: 'tmpfs', remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A data folder for the API whose `mail` folder is `mailbox` (a symbolic link): the rest of what
 * the API keeps there (the embedded default's SQLite file) stays where `dataDir` is.
 */
export function dataDirWithMailbox(dataDir: string, mailbox: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  mkdirSync(mailbox, { recursive: true, mode: 0o700 });
  symlinkSync(mailbox, join(dataDir, 'mail'), 'dir');
  return dataDir;
}

function readMounts(): string {
  try {
    return readFileSync('/proc/mounts', 'utf8');
  } catch {
    return '';
  }
}
