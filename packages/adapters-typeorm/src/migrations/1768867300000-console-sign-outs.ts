import type { MigrationInterface, QueryRunner } from 'typeorm';

// Console sessions signed out before their expiry: the cookie is otherwise self-contained, so
// without this list a copied cookie would work until it expires. A row lives until then.

/** Adds console_sign_outs. Never edit once shipped. */
export class ConsoleSignOuts1768867300000 implements MigrationInterface {
  readonly name = 'ConsoleSignOuts1768867300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.dataSource.options.type === 'postgres';
    await queryRunner.query(`CREATE TABLE console_sign_outs (session_id text PRIMARY KEY, expires_at ${postgres ? 'timestamptz' : 'text'} NOT NULL)`);
    await queryRunner.query('CREATE INDEX console_sign_outs_expires_idx ON console_sign_outs (expires_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE console_sign_outs');
  }
}
