import type { TemplateProblem, ToolFormat } from '@app/templates';
import type { OffendingPart } from './offending-part';

export interface ValidationProblem extends TemplateProblem {
  /** where in sql_template the problem points, when the message names something in it */
  part?: OffendingPart;
}

export interface ValidationVerdict {
  ok: boolean;
  problems: ValidationProblem[];
  /** present when ok: the tool as each provider gets it, and what the model reads */
  tool?: {
    name: string;
    description: string;
    contexts: string[];
    formats: Record<ToolFormat, object>;
  };
  /** whether a report with this id exists already (save replaces it) */
  exists: boolean;
}

export interface ConsoleCatalogEntry {
  id: string;
  name: string;
  category: string;
  /** the tenant data source it runs on; absent: the gateway's database */
  datasource?: string;
  contexts: string[];
  served: boolean;
  reason?: string;
  problems?: TemplateProblem[];
  version: number;
  updated_at: string;
}

export interface DecidedProposal {
  id: string;
  name: string;
  proposed_by: string;
  reviewed_by: string | null;
  status: string;
  outcome: string | null;
  created_at: string;
  decided_at: string | null;
}
