import type { Metrics } from '../../metrics';
import type { StoredReport, TenantRecord } from '../model/catalog-records';
import { inSlices } from '../model/slices';
import type { ReportSet } from '../model/report-set';

/** What background judging asks of the admission: read persisted verdicts, judge one template. */
export interface TemplateJudge {
  preload(tenant: TenantRecord, batch: readonly StoredReport[]): Promise<void>;
  judge(tenant: TenantRecord, report: StoredReport['metadata']): void;
}

interface Job {
  tenant: TenantRecord;
  reports: StoredReport[];
  next: number;
}

/**
 * Judges the templates of a catalog's reports that are not judged yet, in the background:
 * in slices of about ADMISSION_SLICE_MS that yield to the event loop between them, one
 * tenant at a time. One job per tenant (the newest catalog's): a newer catalog replaces the
 * job; the `changed` reports of a refresh are added to the job under way instead. What it
 * keeps per report is the stored report (the verdicts are the judge's).
 */
export class BackgroundJudging {
  private readonly jobs = new Map<string, Job>();
  private running?: Promise<void>;

  constructor(
    private readonly judge: TemplateJudge,
    private readonly metrics: Pick<Metrics, 'set'>,
  ) {}

  schedule(tenant: TenantRecord, set: ReportSet, changed?: readonly StoredReport[]): void {
    if (!set.lazy || set.unjudged === 0 || !tenant.dataSchema) return;
    // hashing is left to the job's slices: here only the list of reports is taken
    const reports = [...(changed ?? set.storedReports())].filter((r) => r.status !== 'disabled');
    if (reports.length === 0) return;
    const running = this.jobs.get(tenant.id);
    if (changed && running) running.reports.push(...reports);
    else this.jobs.set(tenant.id, { tenant, reports, next: 0 });
    this.updatePending();
    this.running ??= this.runJobs().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when no job is under way. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async runJobs(): Promise<void> {
    for (;;) {
      const [tenantId, job] = this.jobs.entries().next().value ?? [];
      if (!tenantId || !job) return;
      await inSlices(job.reports, (stored) => this.judge.judge(job.tenant, stored.metadata), {
        preload: (batch) => this.judge.preload(job.tenant, batch),
        alive: () => this.jobs.get(tenantId) === job,
        progress: (done) => {
          job.next = done;
          this.updatePending();
        },
      });
      if (this.jobs.get(tenantId) === job) this.jobs.delete(tenantId);
      this.updatePending();
    }
  }

  private updatePending(): void {
    let pending = 0;
    for (const job of this.jobs.values()) pending += job.reports.length - job.next;
    this.metrics.set('gateway_catalog_admission_pending', pending);
  }
}
