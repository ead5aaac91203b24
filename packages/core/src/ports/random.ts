/** Randomness source. Injected so tests can be deterministic where they need to be. */
export interface Random {
  /** `length` cryptographically secure random bytes. */
  bytes(length: number): Uint8Array;
  /** A random UUID (v4). */
  uuid(): string;
}

/** Web Crypto randomness: available on every JavaScript runtime, no I/O. */
export const cryptoRandom: Random = {
  bytes: (length) => globalThis.crypto.getRandomValues(new Uint8Array(length)),
  uuid: () => globalThis.crypto.randomUUID(),
};
