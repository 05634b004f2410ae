import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ROOT } from '../cluster/cluster';
import { soakReport } from './gateway-client';
import type { GatewayClient } from './gateway-client';
import type { Judge } from './judge';
import { author, reviewer, root } from './model';
import type { CatalogModel, Recorder } from './model';
import { pick } from './timed';
import type { Timed } from './timed';

/**
 * Admin writes: one writer, so the model knows the catalog at every moment. After each
 * write the soak reads what Postgres holds (directly, not through the paused proxy): an
 * answer lost to a fault, or a PUT/DELETE that HAProxy replayed on another replica after
 * the first one committed, still leaves the model right. Also the tool author/reviewer pair.
 */
export class AdminWriters {
  private readonly truth: pg.Client;
  private readonly markdown = readFileSync(
    path.join(ROOT, 'libs/meta-tool/examples/markdown_outline.mjs'),
    'utf8',
  );
  private seq = 0;
  private proposals = 0;
  /** the generated tools this run installed and has not deleted yet, oldest first */
  private readonly installed: string[] = [];

  constructor(
    private readonly gw: GatewayClient,
    private readonly rec: Recorder,
    private readonly model: CatalogModel,
    private readonly judge: Judge,
    private readonly timed: Timed,
    private readonly runId: string,
    truthUrl: string,
  ) {
    this.truth = new pg.Client({ connectionString: truthUrl });
    this.truth.on('error', () => undefined);
  }

  async connect(): Promise<void> {
    await this.truth.connect();
  }

  close(): Promise<void> {
    return this.truth.end();
  }

  /** Adds, changes or removes one of the soak's reports. */
  async write(): Promise<void> {
    const existing = [...this.model.current];
    const roll = Math.random();
    const t0 = this.rec.now();
    if (existing.length < 3 || (roll < 0.45 && existing.length < 12)) {
      const id = `soak_${this.runId}_${++this.seq}`;
      await this.send(t0, 'admin_add', 201, 'PUT', id, soakReport(`added at ${t0}`));
    } else if (roll < 0.75) {
      const id = pick(existing).replace('query_report_', '');
      await this.send(t0, 'admin_change', 200, 'PUT', id, soakReport(`changed at ${t0}`));
    } else {
      const id = pick(existing).replace('query_report_', '');
      await this.send(t0, 'admin_remove', 204, 'DELETE', id);
    }
  }

  /** A tool author proposes a generated tool; a reviewer approves it (and it installs). */
  async proposeAndApprove(): Promise<void> {
    const name = `soak_outline_${this.runId}_${++this.proposals}`;
    let id: string | undefined;
    await this.timed.run('meta_propose', async () => {
      const t0 = this.rec.now();
      const r = await this.gw.http(author, 'POST', '/v1/tools/meta_tool/call', {
        // the module names itself: it must be the name proposed, or the runtime gate refuses
        arguments: {
          name,
          code: this.markdown.replace("name: 'markdown_outline'", `name: '${name}'`),
          testArgs: { markdown: '# A\n## B\ntext' },
        },
      });
      const body = r.json as {
        is_error?: boolean;
        result?: { proposal_id?: string };
        error?: { code: string };
      };
      id = body?.result?.proposal_id;
      if (r.status === 200 && !body.is_error && id) return { status: r.status, cls: 'ok' };
      return {
        status: r.status,
        cls:
          r.status === 200
            ? `tool_error:${body.error?.code}`
            : this.judge.status(r.status, r.json, t0),
        detail: JSON.stringify(r.json),
      };
    });
    if (id && (await this.approve(id))) this.installed.push(name);
    // the reviewer deletes the oldest beyond three, so the catalog stays the same size through
    // the run (as the admin writer keeps 3-12 reports): memory that still grows is not data
    while (this.installed.length > 3) await this.deleteTool(this.installed.shift()!);
  }

  private deleteTool(name: string): Promise<void> {
    return this.timed.run('meta_delete', async () => {
      const t0 = this.rec.now();
      const r = await this.gw.http(reviewer, 'DELETE', `/v1/admin/generated-tools/${name}`);
      if (r.status === 204) return { status: r.status, cls: 'ok' };
      return {
        status: r.status,
        cls: this.judge.status(r.status, r.json, t0),
        detail: JSON.stringify(r.json),
      };
    });
  }

  /** Approves a proposal; true when it was installed. */
  private async approve(id: string): Promise<boolean> {
    let installed = false;
    await this.timed.run('meta_approve', async () => {
      const t0 = this.rec.now();
      const url = `/v1/admin/meta-tool/proposals/${id}/approve`;
      const r = await this.gw.http(reviewer, 'POST', url, {});
      // approved and installed; a 200 saying the runtime gate refused it is not ok
      const body = r.json as { status?: string; message?: string };
      if (r.status !== 200)
        return { status: r.status, cls: this.judge.status(r.status, r.json, t0) };
      installed = body?.status === 'installed';
      if (installed) return { status: r.status, cls: 'ok' };
      return { status: r.status, cls: `meta_not_installed:${body?.status}`, detail: body?.message };
    });
    return installed;
  }

  private send(
    t0: number,
    op: string,
    okStatus: number,
    method: string,
    id: string,
    body?: unknown,
  ): Promise<void> {
    this.model.writing(t0);
    return this.timed.run(op, async () => {
      const r = await this.gw
        .http(root, method, `/v1/admin/reports/${id}`, body)
        .finally(() => this.committed(t0));
      return {
        status: r.status,
        cls: r.status === okStatus ? 'ok' : this.judge.status(r.status, r.json, t0),
        detail: r.status === okStatus ? undefined : JSON.stringify(r.json),
      };
    });
  }

  private async committed(t0: number): Promise<void> {
    const { rows } = await this.truth.query<{ id: string }>(
      `SELECT id FROM gateway.reports WHERE tenant_id = 'acme' AND id LIKE 'soak\\_%'`,
    );
    this.model.set(new Set(rows.map((r) => `query_report_${r.id}`)), t0);
  }
}
