// Every claim rule has its T-SQL fragment, and the claim (readpast.Claim_v17's body, sql/claim.ts) contains it.
import { claimRuleFragmentTests } from '../contract/claim-rules';
import { CLAIM, CLAIM_RULE_SQL } from './sql/claim';

claimRuleFragmentTests('T-SQL', CLAIM_RULE_SQL, CLAIM);
