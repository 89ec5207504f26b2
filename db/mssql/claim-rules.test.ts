// Every claim rule has its T-SQL fragment, and the claim (readpast.Claim_<hash>'s body, sql/claim.ts) contains it.
import { claimRuleFragmentTests } from '../contract/claim-rules';
import { CLAIM, CLAIM_RULE_SQL } from './sql/claim';

claimRuleFragmentTests('T-SQL', CLAIM_RULE_SQL, CLAIM);
