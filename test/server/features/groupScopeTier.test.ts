import { describe, expect, it } from 'vitest';
import { askV8 } from '../../helpers/askV8.js';

describe('groupScope under V8', () => {
  it('stays optimised from a scope with groups to one with none and back', () => {
    // A young server's observation pass threw groupScope's optimised code away 16 times in its
    // first 300 recalls ("wrong map": the arrays `.map`/`.filter` made had one elements kind or
    // another with the scope). %ActiveTierIsTurbofan: whether optimised code runs now.
    const seen = askV8(`
      const { ObservationInput, groupScope } = await import('./src/server/features/observations.ts');
      const { runAtOnce } = await import('./src/server/slices.ts');
      const input = new ObservationInput();
      const words = ['database', 'planning', 'sprint', 'deploy', 'staging', 'incident', 'review', 'budget', 'roadmap', 'migration'];
      for (let i = 0; i < 40; i += 1) input.add({ id: 'a' + i, text: 'The ' + words[i % 10] + ' meeting about the ' + words[(i * 3) % 10] + ' notes.', type: 'world', tags: ['shared'], entities: i % 4 === 0 ? ['Alice'] : [] });
      input.add({ id: 'lone', text: 'Zebras graze quietly.', type: 'world', tags: ['lone'], entities: [] });
      const scratch = { df: new Int32Array(input.terms.length), termKey: new Int32Array(input.terms.length) };
      const run = (key) => runAtOnce(groupScope(input, [...input.scopes.get(JSON.stringify([key])).facts], scratch, 3, 200));
      %PrepareFunctionForOptimization(groupScope);
      for (let i = 0; i < 3; i += 1) { run('shared'); run('lone'); }
      %OptimizeFunctionOnNextCall(groupScope);
      const many = run('shared').length;
      const before = %ActiveTierIsTurbofan(groupScope);
      const none = run('lone').length;
      const afterNone = %ActiveTierIsTurbofan(groupScope);
      run('shared');
      console.log(JSON.stringify({ many, none, before, afterNone, after: %ActiveTierIsTurbofan(groupScope) }));
    `);
    expect(seen).toEqual({ many: 11, none: 0, before: true, afterNone: true, after: true });
  });
});
