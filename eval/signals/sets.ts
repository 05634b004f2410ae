/**
 * The two question sets in one shape: the tuning set (eval/tool-selection, the only one
 * weights and vocabulary may be chosen on) and the frozen held-out set (eval/held-out).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConversation } from '@app/selection';
import type { ReportMetadata } from '@app/templates';
import { heldOutCatalog } from '../held-out/catalog';
import { HELD_OUT_QUESTIONS } from '../held-out/questions';
import { evalCatalog } from '../tool-selection/catalog';
import { QUESTIONS } from '../tool-selection/questions';
import type { EvalMessage } from '../tool-selection/questions';

export interface SetReport {
  id: string;
  context: string;
  /** the report family (measure); the tuning catalog's is its id without the breakdown */
  family: string;
  metadata: ReportMetadata;
}

export interface SetQuestion {
  id: string;
  /** plain, paraphrase, typo, value, follow-up (the tuning set: follow-up or plain) */
  kind: string;
  /** the business context the answer lives in */
  area: string;
  messages: EvalMessage[];
  accepts: (reportId: string) => boolean;
  /** the family of the report the earlier turn called (follow-ups only) */
  earlierFamily?: string;
  familyOf: (reportId: string) => string | undefined;
}

export interface EvalSet {
  name: 'tuning' | 'held-out';
  reports: SetReport[];
  questions: SetQuestion[];
}

const heldOutDir = join(__dirname, '..', 'held-out');

/** Refuses to score a held-out set whose files differ from the frozen checksums. */
export function verifyHeldOutFrozen(): void {
  const spec = readFileSync(join(heldOutDir, 'SPEC.sha256'), 'utf8').trim().split('\n');
  for (const line of spec) {
    const [sum, path] = line.split(/\s+/);
    const file = join(__dirname, '..', '..', path);
    const actual = createHash('sha256').update(readFileSync(file)).digest('hex');
    if (actual !== sum)
      throw new Error(`${path} differs from eval/held-out/SPEC.sha256: the held-out set is frozen`);
  }
}

function metadata(
  id: string,
  r: Pick<ReportMetadata, 'name' | 'description' | 'category'> & {
    filters: Array<Omit<ReportMetadata['filters'][number], 'required' | 'defaultValue'>>;
    fields: ReportMetadata['fields'];
  },
  extra: Pick<ReportMetadata, 'synonyms' | 'exampleQuestions'> = {},
): ReportMetadata {
  return {
    tenantId: 'eval',
    id,
    name: r.name,
    description: r.description,
    sqlTemplate: 'SELECT 1',
    category: r.category,
    version: 1,
    filters: r.filters.map((f) => ({ ...f, required: false, defaultValue: null })),
    fields: r.fields,
    ...extra,
  };
}

const isFollowUp = (messages: EvalMessage[]): boolean =>
  parseConversation(messages).userTurns.length > 1;

/** The report the conversation called last, by id. */
const lastCalled = (messages: EvalMessage[]): string | undefined =>
  parseConversation(messages)
    .toolCalls.slice(-1)[0]
    ?.replace(/^query_report_/, '');

export function tuningSet(): EvalSet {
  const catalog = evalCatalog();
  const contextOf = new Map(catalog.map((r) => [r.id, r.context]));
  const familyOf = (id: string): string | undefined =>
    contextOf.has(id) ? `${contextOf.get(id)}:${id.replace(/_by_.*$/, '')}` : undefined;
  return {
    name: 'tuning',
    reports: catalog.map((r) => ({
      id: r.id,
      context: r.context,
      // ids are <measure>_by_<dimensions>[_monthly]
      family: familyOf(r.id)!,
      metadata: metadata(r.id, r, { synonyms: r.synonyms, exampleQuestions: r.exampleQuestions }),
    })),
    questions: QUESTIONS.map((q) => ({
      id: q.id,
      kind: isFollowUp(q.messages) ? 'follow-up' : 'plain',
      area: contextOf.get(q.answers[0]) ?? '?',
      messages: q.messages,
      accepts: (id) => q.answers.includes(id),
      earlierFamily: familyOf(lastCalled(q.messages) ?? ''),
      familyOf,
    })),
  };
}

export function heldOutSet(): EvalSet {
  verifyHeldOutFrozen();
  const catalog = heldOutCatalog();
  const familyOf = new Map(catalog.map((r) => [r.id, r.family]));
  return {
    name: 'held-out',
    reports: catalog.map((r) => ({
      id: r.id,
      context: r.context,
      family: r.family,
      metadata: metadata(r.id, r),
    })),
    questions: HELD_OUT_QUESTIONS.map((q) => ({
      id: q.id,
      kind: q.kind,
      area: q.area,
      messages: q.messages,
      accepts: (id) =>
        q.answers.some((a) => (a.endsWith('*') ? familyOf.get(id) === a.slice(0, -1) : a === id)),
      earlierFamily: familyOf.get(lastCalled(q.messages) ?? ''),
      familyOf: (id) => familyOf.get(id),
    })),
  };
}
