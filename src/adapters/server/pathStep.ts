/**
 * Ids go into request paths escaped with `encodeURIComponent`, which leaves `.` and `..` as they
 * are; the URL parser then resolves them (`%2E%2E` too), so `/mental-models/..` would address
 * the bank itself. Every path built from an id is checked here before it is sent.
 */

/** The first `.` or `..` segment of `path`, or undefined when it has none. */
export const dotSegment = (path: string): string | undefined => path.split('?')[0]?.split('/').find((segment) => segment === '.' || segment === '..');

/** Why a path with a dot segment is not sent: names the id and what to do. */
export const dotSegmentRefusal = (step: string, method: string): string =>
  `id: ${JSON.stringify(step)} is a path step, not an id (the ${method} would reach another resource); nothing was sent: use the object's own id`;
