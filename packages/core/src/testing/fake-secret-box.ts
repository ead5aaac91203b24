import type { SecretBox } from '../ports/secret-box';

const PREFIX = 'fake-sealed:';

/**
 * A SecretBox for tests: reversible encoding, NOT encryption. It keeps the port's behaviour that
 * matters to callers: the sealed form is not the plaintext, and it opens only with the context
 * it was sealed with. Real deployments use the crypto adapter's AES-GCM box.
 */
export class FakeSecretBox implements SecretBox {
  seal(plaintext: string, context = ''): string {
    return PREFIX + Buffer.from(JSON.stringify({ c: context, p: plaintext }), 'utf8').toString('base64url');
  }

  open(sealed: string, context = ''): string {
    if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed value');
    const { c, p } = JSON.parse(Buffer.from(sealed.slice(PREFIX.length), 'base64url').toString('utf8')) as { c: string; p: string };
    if (c !== context) throw new Error('sealed under another context');
    return p;
  }
}
