import type { Clock } from '../ports/clock';

/** A clock that moves only when told to. Tests advance it instead of sleeping. */
export class FixedClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(seconds: number): void {
    this.current += seconds * 1000;
  }

  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}
