import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { GatewayClient } from './gateway-client';
import type { Judge } from './judge';
import { alice, DEMO_CALLS, root } from './model';
import type { Recorder, Who } from './model';
import { pick } from './timed';
import type { Timed } from './timed';

/** the reports a non-admin MCP user may call */
const OPEN_REPORTS = ['sales_by_region', 'top_customers', 'product_catalog', 'low_stock'];

/** Long-lived MCP sessions (agents), through the load balancer. */
export class McpAgents {
  private readonly users = [alice, root, alice];
  private readonly clients: Client[] = [];
  /** sessions the clients had to open again (told "session not found") */
  sessionsLost = 0;

  constructor(
    private readonly gw: GatewayClient,
    private readonly rec: Recorder,
    private readonly judge: Judge,
    private readonly timed: Timed,
  ) {}

  async connectAll(): Promise<void> {
    for (const w of this.users) this.clients.push(await this.connect(w));
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close().catch(() => undefined)));
  }

  /** One operation of a random agent: list its tools or call a report. */
  op(): Promise<void> {
    const i = Math.floor(Math.random() * this.clients.length);
    return Math.random() < 0.5 ? this.list(i) : this.call(i);
  }

  private async connect(w: Who): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${this.gw.base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await this.gw.token(w)}` } },
      reconnectionOptions: {
        initialReconnectionDelay: 200,
        maxReconnectionDelay: 2000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 1000,
      },
    });
    const client = new Client({ name: 'soak', version: '1' });
    client.onerror = () => undefined;
    await client.connect(transport);
    return client;
  }

  /** a client told its session is gone starts a new one, as agents do (and it is counted) */
  private async renew(i: number, err: unknown): Promise<void> {
    if (!/session not found/.test(String(err))) return;
    this.sessionsLost += 1;
    const old = this.clients[i];
    this.clients[i] = await this.connect(this.users[i]);
    await old.close().catch(() => undefined);
  }

  private renewing(i: number) {
    return async (err: unknown): Promise<never> => {
      await this.renew(i, err).catch(() => undefined);
      throw err;
    };
  }

  private list(i: number): Promise<void> {
    const client = this.clients[i];
    const w = this.users[i];
    return this.timed.run('mcp_list', async () => {
      const t0 = this.rec.now();
      // a plain tools/list request: the SDK's listTools() compiles an ajv validator for every
      // tool's outputSchema on every call and keeps them (about 16 KB a list here), which ran
      // the driver out of memory on long runs; the gateway sees the same request either way
      const { tools } = await client
        .request({ method: 'tools/list', params: {} }, ListToolsResultSchema)
        .catch(this.renewing(i));
      const t1 = this.rec.now();
      const judge = this.judge.verdict(
        `MCP #${i}`,
        w,
        'mcp',
        '',
        tools.map((t) => t.name),
        t0,
        t1,
      );
      return { status: 200, cls: 'ok', judge, answeredAt: t1 };
    });
  }

  private call(i: number): Promise<void> {
    const client = this.clients[i];
    const w = this.users[i];
    return this.timed.run('mcp_call', async () => {
      const [report, args] = pick(
        DEMO_CALLS.filter(([r]) => w === root || OPEN_REPORTS.includes(r)),
      );
      const t0 = this.rec.now();
      const result = await client
        .callTool({ name: `query_report_${report}`, arguments: args })
        .catch(this.renewing(i));
      if (!result.isError) return { status: 200, cls: 'ok' };
      const text = JSON.stringify(result.content);
      return {
        status: 200,
        cls: this.rec.inPause(t0, this.rec.now())
          ? 'tool_data_unavailable_in_pause'
          : `mcp_tool_error:${text.slice(0, 60)}`,
      };
    });
  }
}
