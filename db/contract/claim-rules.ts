// Every claim rule (lib/engine/claim-rules.ts) has its fragment in a dialect (CLAIM_RULE_SQL, db/<dialect>/sql/claim.ts),
// and that dialect's claim SQL contains it; run by db/<dialect>/claim-rules.test.ts. The second case shows
// that the check fails on a missing fragment and on one the claim does not contain.
import { describe, expect, it } from 'vitest';
import { CLAIM_RULES, type ClaimRuleName, fragmentGaps } from '../../lib/engine/claim-rules';

export function claimRuleFragmentTests(dialect: string, fragments: Record<ClaimRuleName, string>, claimSql: string): void {
  describe(`the claim rules in ${dialect}`, () => {
    it('one fragment per rule, each in the claim SQL', () => {
      expect(Object.keys(fragments).sort()).toEqual(CLAIM_RULES.map((r) => r.name).sort());
      expect(fragmentGaps(fragments, claimSql)).toEqual([]);
    });

    it('the check fails on a missing fragment and on one the claim does not contain', () => {
      const { due: _, ...noDue } = fragments;
      expect(fragmentGaps(noDue, claimSql)).toEqual(['due: no fragment']);
      const wrong = `${fragments.due} AND 1 = 0`;
      expect(fragmentGaps({ ...fragments, due: wrong }, claimSql)).toEqual([`due: not in the claim SQL: ${wrong}`]);
    });
  });
}
