import { accessTokenCodecContract } from './access-token-codec.contract';
import { FakeAccessTokenCodec, FakeSigningKeyFactory } from './fake-access-token-codec';
import { FakePasswordHasher } from './fake-password-hasher';
import { InMemorySigningKeyStore } from './in-memory-signing-key-store';
import { passwordHasherContract } from './password-hasher.contract';

passwordHasherContract('FakePasswordHasher', async () => new FakePasswordHasher());

accessTokenCodecContract('FakeAccessTokenCodec', async () => {
  const signingKeys = new InMemorySigningKeyStore();
  return { codec: new FakeAccessTokenCodec(signingKeys), factory: new FakeSigningKeyFactory(), signingKeys };
});
