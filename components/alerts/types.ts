// The JSON of the alert routes (lib/api/alerts.ts), as types only.
export type { AlertFiringJson, AlertFiringsJson, AlertRuleJson, AlertTestJson } from '@/lib/api/alerts';
