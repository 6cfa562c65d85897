/**
 * `node --import` preload for the chaos run: the process's wall clock jumps once. With
 * AM_CHAOS_CLOCK_JUMP=`afterMs:offsetMs`, Date.now() and `new Date()` read offsetMs ahead
 * (negative: behind) once afterMs have passed since start, as after an NTP step or a VM resume.
 * The monotonic clock (performance.now, timers) is left alone, as the kernel leaves it. Only
 * the test harness uses this; the project has no time-offset hook of its own.
 */
const spec = process.env.AM_CHAOS_CLOCK_JUMP ?? '';
const match = /^(\d+):(-?\d+)$/.exec(spec);
if (match !== null) {
  const afterMs = Number(match[1]);
  const offsetMs = Number(match[2]);
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  const startedAt = performance.now();
  const shift = () => (performance.now() - startedAt >= afterMs ? offsetMs : 0);
  const now = () => realNow() + shift();
  globalThis.Date = new Proxy(RealDate, {
    construct: (target, args, newTarget) => (args.length === 0 ? Reflect.construct(target, [now()], newTarget) : Reflect.construct(target, args, newTarget)),
    apply: () => new RealDate(now()).toString(),
    get: (target, property, receiver) => (property === 'now' ? now : Reflect.get(target, property, receiver)),
  });
}
