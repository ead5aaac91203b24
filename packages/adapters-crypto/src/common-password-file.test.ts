import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commonPasswordKey } from '@svc/core';
import { CommonPasswordFile, SHIPPED_COMMON_PASSWORDS } from './common-password-file';

describe('CommonPasswordFile', () => {
  it('ships a list of well over 10,000 common passwords, matched case-insensitively', () => {
    const list = new CommonPasswordFile();
    expect(list.size).toBeGreaterThanOrEqual(10_000);
    for (const common of ['password', '12345678', 'PassWord', 'QWERTY123', 'iloveyou', 'trustno1']) {
      expect(list.has(commonPasswordKey(common))).toBe(true);
    }
    expect(list.has(commonPasswordKey('correct horse battery staple 9'))).toBe(false);
  });

  it('is the file its README describes (same SHA-256 and line count)', () => {
    const readme = readFileSync(join(SHIPPED_COMMON_PASSWORDS, '..', 'README.md'), 'utf8');
    const file = readFileSync(SHIPPED_COMMON_PASSWORDS);
    expect(readme).toContain(createHash('sha256').update(file).digest('hex'));
    expect(file.toString('utf8').split('\n').filter(Boolean)).toHaveLength(100_000);
  });

  it('reads any one-per-line file, CRLF too, ignoring blank lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-passwords-'));
    try {
      const path = join(dir, 'list.txt');
      writeFileSync(path, 'Hunter2\r\n\r\nletmein\n');
      const list = new CommonPasswordFile(path);
      expect([list.has('hunter2'), list.has('letmein'), list.has(''), list.size]).toEqual([true, true, false, 2]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
