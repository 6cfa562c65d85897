/**
 * Validation of a standard 5-field UTC cron expression (minute hour day-of-month month
 * day-of-week), as mental-model triggers accept in `refresh_cron`. The embedded server
 * stores the schedule; it does not run it (refreshes are explicit or after retain).
 */

interface FieldRange {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldRange[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day of week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const valueOf = (token: string, field: FieldRange): number | undefined => {
  if (/^\d+$/.test(token)) return Number(token);
  const index = field.names?.indexOf(token.toLowerCase()) ?? -1;
  if (index < 0) return undefined;
  return field.min === 1 ? index + 1 : index;
};

const checkPart = (part: string, field: FieldRange): string | undefined => {
  const [range, step, extra] = part.split('/');
  if (extra !== undefined || range === undefined || range === '') return `bad ${field.name} "${part}"`;
  if (step !== undefined && !/^[1-9]\d*$/.test(step)) return `bad step in ${field.name} "${part}"`;
  if (range === '*') return undefined;
  const bounds = range.split('-');
  if (bounds.length > 2) return `bad range in ${field.name} "${part}"`;
  const values = bounds.map((b) => valueOf(b, field));
  for (const v of values) {
    if (v === undefined || v < field.min || v > field.max) return `${field.name} "${part}" is outside ${field.min}-${field.max}`;
  }
  // Every value is defined: the loop above returned otherwise.
  const [from = field.min, to] = values;
  if (to !== undefined && to < from) return `${field.name} range "${part}" runs backwards`;
  return undefined;
};

/** `undefined` when `expression` is a valid 5-field cron, else why it is not. */
export const cronProblem = (expression: string): string | undefined => {
  const fields = expression.trim().split(/\s+/u);
  if (fields.length !== 5) return `expected 5 fields (minute hour day month weekday), got ${fields.length}`;
  for (let i = 0; i < 5; i += 1) {
    const field = FIELDS[i];
    const text = fields[i];
    if (field === undefined || text === undefined) continue;
    for (const part of text.split(',')) {
      const problem = checkPart(part, field);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
};
