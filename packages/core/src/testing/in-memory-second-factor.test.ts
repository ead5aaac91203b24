import { createInMemoryStorage } from './in-memory-deps';
import { InMemoryPasskeyStore } from './in-memory-passkey-store';
import { InMemoryTwoFactorStore } from './in-memory-two-factor-store';
import { passkeyStoreContract } from './passkey-store.contract';
import { ReferenceTotp } from './reference-totp';
import { totpAlgorithmContract } from './totp-algorithm.contract';
import { twoFactorStoreContract } from './two-factor-store.contract';

twoFactorStoreContract('memory', async () => ({ ports: createInMemoryStorage(), twoFactor: new InMemoryTwoFactorStore(), close: async () => {} }));
passkeyStoreContract('memory', async () => ({ ports: createInMemoryStorage(), passkeys: new InMemoryPasskeyStore(), close: async () => {} }));
// The oathtool cross-check of this reference runs in adapters-mfa (core's tests start no processes).
totpAlgorithmContract('core reference', () => new ReferenceTotp());
