import { describe, expect, it } from 'vitest';
import { analyze } from '../../../src/server/search/analyzer.js';
import { CODING_GROUPS, codingKnows, codingRelated } from '../../../src/server/search/codingTerms.js';

describe('coding thesaurus', () => {
  it('keys no common word by accident: a member of several words keeps two through the analyzer', () => {
    const lossy = CODING_GROUPS.flatMap((group) => group.split(' ')).filter((member) => member.includes('_') && member !== 'sign_in' && analyze(member.replace(/_/g, ' ')).length < 2);
    expect(lossy).toEqual([]);
  });

  it('leaves the words those members used to key alone: "REST endpoints" is not about encryption', () => {
    for (const word of ['air', 'memory', 'memories', 'boot']) expect(codingKnows(word)).toBe(false);
    expect(codingRelated('rest')).toContain('api');
    expect(codingRelated('rest')).not.toContain('encryption');
    expect(codingRelated('e2e')).toContain('endtoend');
    expect(analyze('end-to-end tests')).toContain('endtoend');
  });

  it('relates what people call a thing to the tool or metric the notes name', () => {
    expect(codingRelated('ram')).toContain('rss');
    expect(codingRelated('profile')).toContain('pprof');
    expect(codingRelated('autoscale')).toContain('hpa');
    expect(codingRelated('flakey')).toContain('intermittent');
    // "memory" would key "memorial" too (one stem): a memorial is no memory usage.
    expect(codingKnows('memorial')).toBe(false);
  });
});
