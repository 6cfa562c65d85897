/**
 * The server's time: it only ever asks what time it is (timestamps, uptime, durations, date
 * windows). Its own one-method interface, so the server needs nothing of the effects' ports; a
 * `ClockPort` (a test's manual clock) fits it as is.
 */
export interface ServerClock {
  now(): number;
}

export const wallClock: ServerClock = { now: () => Date.now() };
