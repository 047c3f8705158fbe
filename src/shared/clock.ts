/** The time source; tests pass a fixed or movable one. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
