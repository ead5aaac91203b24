/** Time source. Injected so tests use a fixed clock instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
