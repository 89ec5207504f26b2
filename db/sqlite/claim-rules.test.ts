// Every claim rule has its SQLite fragment, and the claim's SQL (sql/claim.ts) contains it.
import { claimRuleFragmentTests } from '../contract/claim-rules';
import * as S from './sql/claim';

claimRuleFragmentTests(
  'SQLite',
  S.CLAIM_RULE_SQL,
  Object.values(S)
    .filter((v) => typeof v === 'string')
    .join('\n'),
);
