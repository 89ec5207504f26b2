// `readpast doctor` on SQL Server: the code objects installed by content (code-objects.ts) — each procedure and
// view recorded in readpast.CodeObjects, whether this readpast's are all there as it installs them, and which
// running workers call each hot procedure (Workers.code; a worker that recorded none is of a readpast from
// before migration 21, which calls the names of that time). Pure: doctor.ts asks, this judges.
import type { DoctorCheck } from '../../lib/engine/types';
import { CODE_OBJECTS } from './code-objects';

export interface CodeObjectFact {
  name: string;
  kind: string;
  /** sha-256 of the text installed */
  hash: string;
  schemaVersion: number;
  installedAt: Date | null;
  present: boolean;
}

export interface CodeFacts {
  objects: CodeObjectFact[];
  /** running workers and the hot procedures each recorded (null: none recorded) */
  workers: { workerId: string; code: string[] | null }[];
}

export function codeFactsFromRows(objects: Record<string, unknown>[], workers: Record<string, unknown>[]): CodeFacts {
  const codeOf = (v: unknown): string[] | null => {
    if (typeof v !== 'string') return null;
    try {
      const a = JSON.parse(v) as unknown;
      return Array.isArray(a) ? a.map(String) : null;
    } catch {
      return null;
    }
  };
  return {
    objects: objects.map((r) => ({
      name: String(r.name),
      kind: String(r.kind),
      hash: String(r.hash ?? ''),
      schemaVersion: Number(r.schema_version),
      installedAt: r.installed_at instanceof Date ? r.installed_at : null,
      present: Number(r.present) === 1 || r.present === true,
    })),
    workers: workers.map((r) => ({ workerId: String(r.worker_id), code: codeOf(r.code) })),
  };
}

const TITLE = 'Installed procedures and views';
const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '?');

/** One line per hot procedure (its workers), then the stable names; ok when every object of this readpast is there. */
/** The probe's outcome (doctor-judge.ts Outcome, of this fact). */
export type CodeOutcome = { ok: true; value: CodeFacts } | { ok: false; error: { message: string } };

export function codeCheck(code: CodeOutcome | undefined, why: string | null): DoctorCheck {
  const c = (ok: boolean | null, detail: string, remedy: string | null = null): DoctorCheck => ({
    id: 'code',
    title: TITLE,
    ok,
    detail,
    remedy,
    needed: false,
  });
  if (why) return c(null, `skipped: ${why}`);
  if (!code) return c(null, 'skipped: not asked');
  if (!code.ok) return c(null, `could not be read: ${code.error.message}`);
  const { objects, workers } = code.value;
  const ours = new Set(CODE_OBJECTS.map((o) => o.name));
  const hot = objects.filter((o) => o.kind === 'hot');
  const users = (name: string, legacy: boolean) => workers.filter((w) => (w.code ? w.code.includes(name) : legacy)).map((w) => w.workerId);
  const lines = hot.map((o) => {
    const legacy = o.schemaVersion === 0;
    const used = users(o.name, legacy);
    const whose = ours.has(o.name) ? "this readpast's" : legacy ? 'from before migration 21' : `schema version ${o.schemaVersion}`;
    const by = used.length
      ? `used by ${used.length} running worker${used.length > 1 ? 's' : ''} (${used.join(', ')})`
      : 'no running worker';
    return `readpast.${o.name} (${whose}, since ${day(o.installedAt)}${o.present ? '' : ', MISSING'}): ${by}`;
  });
  const stable = objects.filter((o) => o.kind !== 'hot').map((o) => `${o.name}${o.present ? '' : ' (MISSING)'}`);
  const detail = [...lines, `procedures and views: ${stable.join(', ') || 'none'}`].join('; ');
  const recorded = new Map(objects.map((o) => [o.name, o]));
  const lacking = CODE_OBJECTS.filter((o) => {
    const r = recorded.get(o.name);
    return !r || !r.present || (o.kind !== 'hot' && r.hash !== o.hash);
  }).map((o) => `readpast.${o.name}`);
  if (lacking.length) {
    return c(
      false,
      `${lacking.join(', ')} not installed as this readpast installs ${lacking.length > 1 ? 'them' : 'it'}. ${detail}`,
      "run 'readpast migrate' (it installs readpast's procedures, views and grants by content; nothing else changes)",
    );
  }
  return c(true, detail);
}
