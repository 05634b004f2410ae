import type { DocumentJson } from '../../report-form';

/** A report as the admin API returns it. */
export interface ReportDocument extends DocumentJson {
  id: string;
  status: 'active' | 'disabled';
}
export interface Problem {
  rule: string;
  message: string;
  part?: { text: string; start: number; end: number };
}
/** The SQL guard's dry run of a draft, and the tool it would make. */
export interface Verdict {
  ok: boolean;
  exists: boolean;
  problems: Problem[];
  tool?: { name: string; description: string; contexts: string[]; formats: Record<string, object> };
}
/** Whether a stored report is served, and its version. */
export interface Status {
  served: boolean;
  reason?: string;
  version: number;
  updated_at: string;
}
export type TryOutcome =
  | {
      is_error: false;
      result: {
        columns: Array<{ name: string; type: string }>;
        rows: Array<Record<string, unknown>>;
        page: number;
        page_size: number;
        has_more: boolean;
      };
      chart?: { type?: string; svg?: string; error?: string };
    }
  | { is_error: true; error: { code: string; message: string } };
