import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataDirWithMailbox, isTmpfsMount, mailboxFolder } from '../lib/mailbox-folder';

const MOUNTS = ['/dev/vda / ext4 rw,relatime,discard 0 0', 'tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0', 'tmpfs /run/user/0 tmpfs rw 0 0', 'shm /var/shm ext4 rw 0 0'].join('\n');

describe('isTmpfsMount', () => {
  it('finds a tmpfs mounted exactly at the path', () => {
    expect(isTmpfsMount(MOUNTS, '/dev/shm')).toBe(true);
    expect(isTmpfsMount(MOUNTS, '/run/user/0')).toBe(true);
  });

  it('refuses another type, a folder inside a tmpfs, and an unknown path', () => {
    expect(isTmpfsMount(MOUNTS, '/')).toBe(false);
    expect(isTmpfsMount(MOUNTS, '/var/shm')).toBe(false);
    expect(isTmpfsMount(MOUNTS, '/dev/shm/inner')).toBe(false);
    expect(isTmpfsMount(MOUNTS, '/dev')).toBe(false);
    expect(isTmpfsMount('', '/dev/shm')).toBe(false);
  });
});

describe('mailboxFolder and dataDirWithMailbox', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'svc-mailbox-test-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('keeps the mailboxes in the scratch folder when asked for the disk', () => {
    const folder = mailboxFolder(scratch, true);
    expect(folder).toMatchObject({ dir: join(scratch, 'mailboxes'), where: 'disk' });
    expect(statSync(folder.dir).isDirectory()).toBe(true);
  });

  it('puts them in memory when /dev/shm is a tmpfs, and removes that folder again', () => {
    const shmIsTmpfs = existsSync('/proc/mounts') && isTmpfsMount(readFileSync('/proc/mounts', 'utf8'), '/dev/shm');
    const folder = mailboxFolder(scratch, false);
    if (!shmIsTmpfs) return expect(folder.where).toBe('disk');
    expect(folder.where).toBe('tmpfs');
    expect(folder.dir.startsWith('/dev/shm/svc-bench-mail-')).toBe(true);
    expect(statSync(folder.dir).isDirectory()).toBe(true);
    folder.remove();
    expect(existsSync(folder.dir)).toBe(false);
  });

  it("links the data folder's mail folder to the mailbox, so the file mailbox writes there", () => {
    const mailbox = join(scratch, 'elsewhere', 'pg');
    const dataDir = dataDirWithMailbox(join(scratch, 'data'), mailbox);
    expect(lstatSync(join(dataDir, 'mail')).isSymbolicLink()).toBe(true);
    // What FileMailer does on its first mail: make the folder (recursive), then an exclusive create.
    mkdirSync(join(dataDir, 'mail'), { recursive: true, mode: 0o700 });
    writeFileSync(join(dataDir, 'mail', 'one.eml'), 'Subject: x\n', { mode: 0o600, flag: 'wx' });
    expect(readFileSync(join(mailbox, 'one.eml'), 'utf8')).toBe('Subject: x\n');
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });
});
