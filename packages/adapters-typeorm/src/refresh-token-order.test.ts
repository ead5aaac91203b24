import { Client } from 'pg';
import { newRefreshToken, refreshTokenKey, sha256Hex } from '@svc/core';
import { describeWithPostgres } from './testing';

// The refresh tokens' keys are meant to sort in the order the tokens were issued, after every key
// of the earlier form, under the collation the `refresh_tokens` table gets from its database
// (docs/decisions.md, "Refresh tokens carry their issue time"). Checked here under C, under the
// test database's own default and under ICU's language-neutral and English collations.
describeWithPostgres('refresh token keys in PostgreSQL', (databaseUrl) => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connectionString: databaseUrl });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
  });

  it('sort in the order the tokens were issued, after every key of the earlier form, under C, the default and ICU collations', async () => {
    const secret = (n: number) => sha256Hex(String(n)).slice(0, 43).replace(/[0-9]/g, 'x');
    const issued = [Date.UTC(2026, 10, 28), Date.UTC(2026, 10, 28) + 1, Date.UTC(2026, 10, 28) + 16, Date.UTC(2027, 0, 1), Date.UTC(2100, 0, 1)];
    const current = issued.map((ms, n) => refreshTokenKey(newRefreshToken(new Date(ms), secret(n))));
    const earlier = ['0'.repeat(64), 'f'.repeat(64), sha256Hex('a'), sha256Hex('b')];
    const { rows: icu } = await client.query<{ collname: string }>("SELECT collname FROM pg_collation WHERE collname IN ('und-x-icu', 'en-x-icu')");
    expect(icu.length).toBeGreaterThan(0);
    for (const collation of ['', ' COLLATE "C"', ...icu.map((row) => ` COLLATE "${row.collname}"`)]) {
      const { rows } = await client.query<{ key: string }>(`SELECT key FROM unnest($1::text[]) AS key ORDER BY key${collation}`, [[...current].reverse().concat(earlier)]);
      const keys = rows.map((row) => row.key);
      expect({ collation, last: keys.slice(earlier.length) }).toEqual({ collation, last: current });
    }
  });
});
