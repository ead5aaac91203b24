// Run by rs256-access-token-codec.test.ts in a fresh process (measureInFreshProcess): prints how many
// bytes a sign on libuv's pool leaves in the old generation, the codec's and a naive callback's.
import { generateKeyPairSync, sign } from 'node:crypto';
import type { TenantScope } from '@svc/core';
import { InMemorySigningKeyStore, oldGenerationBytesPerCall } from '@svc/core/testing';
import { KeyEncryption } from './key-encryption';
import { RsaSigningKeyFactory } from './rsa-signing-key-factory';
import { Rs256AccessTokenCodec } from './rs256-access-token-codec';

const scope: TenantScope = { projectId: 'p-1', environment: 'production' };
const claims = { iss: 'https://auth.example.test', sub: 'u-1', aud: 'p-1', env: 'production', sid: 's-1', email: 'a@example.test', role: 'user', iat: 1, exp: 2, jti: 'j' } as const;

async function main(): Promise<void> {
  const encryption = new KeyEncryption({ masterKey: Buffer.alloc(32, 7) });
  const signingKeys = new InMemorySigningKeyStore();
  await signingKeys.rotate(scope, await new RsaSigningKeyFactory({ encryption }).generate(scope, new Date()));
  const codec = new Rs256AccessTokenCodec({ signingKeys, encryption, signOnThreadPool: true });
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const input = Buffer.from('header.payload');
  const naive = () => new Promise((resolve, reject) => sign('sha256', input, privateKey, (error, signature) => (error ? reject(error) : resolve(signature))));
  const codecBytes = await oldGenerationBytesPerCall(() => codec.sign(scope, claims));
  const naiveBytes = await oldGenerationBytesPerCall(naive);
  process.stdout.write(JSON.stringify({ codec: codecBytes, naive: naiveBytes }));
}

void main();
