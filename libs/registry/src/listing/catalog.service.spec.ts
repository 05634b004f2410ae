import { initSqlParser, reportToolName } from '@app/templates';
import type { Principal } from '../access/principal';
import type { CatalogStore } from '../catalog/catalog-store';
import { SharedCache } from '../catalog/cache/shared-cache';
import { TenantCatalog } from '../catalog/model/tenant-catalog';
import type { Metrics } from '../metrics';
import { BuiltinTools } from './builtin-tools';
import { CatalogService } from './catalog.service';
import { salesCatalog } from './fixtures.spec-helper';
import type { ListVariant } from './list-bodies';

const analyst: Principal = { tenantId: 'acme', userId: 'bob', roles: ['analyst'], claims: {} };
const admin: Principal = { tenantId: 'acme', userId: 'root', roles: ['admin'], claims: {} };

/** A store holding one catalog in memory, counting the reads that would go past memory. */
class FakeStore {
  reads = 0;
  held = true;
  constructor(public catalogOf: TenantCatalog) {}
  catalog(): Promise<TenantCatalog> {
    this.reads += 1;
    return Promise.resolve(this.catalogOf);
  }
  /** the catalog is complete: covering a caller's reach is reading the catalog */
  covering(): Promise<TenantCatalog> {
    return this.catalog();
  }
  current(): TenantCatalog | undefined {
    return this.held ? this.catalogOf : undefined;
  }
  l2Scope(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
}

function setup() {
  const catalog = salesCatalog();
  const store = new FakeStore(catalog);
  const levels: string[] = [];
  const metrics = {
    describe: () => undefined,
    counter: () => () => levels.push('l1'),
    inc: (_name: string, labels: Record<string, string>) => levels.push(labels.level),
  } as unknown as Metrics;
  const service = new CatalogService(
    store as unknown as CatalogStore,
    new BuiltinTools(),
    new SharedCache(metrics, null),
    metrics,
  );
  return { service, store, levels };
}

const toolNames = (body: Buffer) =>
  (JSON.parse(body.toString()) as { tools: Array<{ function: { name: string } }> }).tools.map(
    (t) => t.function.name,
  );

describe('CatalogService', () => {
  // loading the parser (WebAssembly) can take seconds on a loaded machine
  beforeAll(() => initSqlParser(), 30_000);

  it('shows a caller the tools its grants reach, in name order', async () => {
    const { service } = setup();
    const visible = await service.visibleSet(analyst);
    expect(visible.tools.map((t) => t.definition.name)).toEqual([
      reportToolName('margin'),
      reportToolName('revenue'),
    ]);
    const all = await service.visibleSet(admin);
    expect(all.tools).toHaveLength(3);
    expect(all.key).not.toBe(visible.key);
  });

  it('narrows the list to a business context, and refuses an unknown one naming the valid ones', async () => {
    const { service } = setup();
    const visible = await service.visibleSet(analyst, 'margins');
    expect(visible.tools.map((t) => t.definition.name)).toEqual([reportToolName('margin')]);
    await expect(service.visibleSet(analyst, 'nope')).rejects.toMatchObject({
      code: 'UNKNOWN_CONTEXT',
      details: { valid_contexts: ['margins'] },
    });
  });

  it('builds a list body once for concurrent misses, then answers it from memory', async () => {
    const { service, levels } = setup();
    expect(service.cachedListBody(analyst, 'openai')).toBeUndefined();
    const [a, b, c] = await Promise.all([
      service.listBody(analyst, 'openai'),
      service.listBody(analyst, 'openai'),
      service.listBody(analyst, 'openai'),
    ]);
    expect(levels.filter((l) => l === 'build')).toEqual(['build']);
    expect(b.body).toBe(a.body);
    expect(c.body).toBe(a.body);
    expect(toolNames(a.body)).toEqual([reportToolName('margin'), reportToolName('revenue')]);
    expect(service.cachedListBody(analyst, 'openai')?.body).toBe(a.body);
  });

  it("keeps a shaped variant (an MCP session's found tools) apart from the toolset list, counted in bytes", async () => {
    const { service, levels } = setup();
    const plain = await service.listBody(analyst, 'openai');
    const onlyMargin: ListVariant = {
      suffix: 'found=margin',
      shape: (tools) =>
        tools
          .filter((t) => t.definition.name === reportToolName('margin'))
          .map((t) => t.definition),
    };
    const shaped = await service.listBody(analyst, 'openai', undefined, onlyMargin);
    expect(shaped.key).toBe(plain.key);
    expect(toolNames(shaped.body)).toEqual([reportToolName('margin')]);
    expect(service.cachedListBody(analyst, 'openai', undefined, onlyMargin)?.body).toBe(
      shaped.body,
    );
    expect(service.cachedListBody(analyst, 'openai')?.body).toBe(plain.body);
    expect(levels.filter((l) => l === 'build')).toHaveLength(2);
    expect(service.lists.size).toBe(2);
    expect(service.lists.heldBytes).toBeGreaterThanOrEqual(plain.body.length + shaped.body.length);
  });

  it('answers nothing from memory while the store cannot vouch for the catalog', async () => {
    const { service, store } = setup();
    await service.listBody(analyst, 'openai');
    store.held = false;
    expect(service.cachedListBody(analyst, 'openai')).toBeUndefined();
    expect(service.cachedResolve(analyst, reportToolName('revenue'))).toBeUndefined();
    expect(service.cachedToolsetKey(analyst)).toBeUndefined();
  });

  it("drops a tenant's lists of older catalog versions once a newer version is listed, and no other tenant's", async () => {
    const { service, store } = setup();
    const v7 = store.catalogOf;
    const other = new TenantCatalog({ ...v7.tenant, id: 'acme2' }, v7.reports, v7.access);
    const otherAnalyst: Principal = { ...analyst, tenantId: 'acme2' };
    store.catalogOf = other;
    await service.listBody(otherAnalyst, 'openai');
    store.catalogOf = v7;
    await service.listBody(analyst, 'openai');
    await service.listBody(admin, 'anthropic');
    expect(service.lists.size).toBe(3);

    store.catalogOf = new TenantCatalog({ ...v7.tenant, catalogVersion: 8 }, v7.reports, v7.access);
    const fresh = await service.listBody(analyst, 'openai');
    expect(fresh.key).toContain('acme:8:');
    // acme's two version-7 lists are gone; acme2's list and acme's version-8 list stay
    expect(service.lists.size).toBe(2);
    expect(service.cachedListBody(analyst, 'openai')?.body).toBe(fresh.body);
    store.catalogOf = other;
    expect(service.cachedListBody(otherAnalyst, 'openai')).toBeDefined();
  });

  it("derives a principal's toolset key again for a new catalog version or another context, never reusing a stale one", () => {
    const { service, store } = setup();
    const v7 = store.catalogOf;
    const first = service.cachedToolsetKey(analyst);
    expect(first).toContain('acme:7:');
    expect(service.cachedToolsetKey(analyst)).toBe(first);
    expect(service.cachedToolsetKey(analyst, 'margins')).toMatch(/:margins$/);
    expect(service.cachedToolsetKey(analyst, 'nope')).toBeUndefined();
    expect(service.cachedToolsetKey(analyst)).toBe(first);

    store.catalogOf = new TenantCatalog({ ...v7.tenant, catalogVersion: 8 }, v7.reports, v7.access);
    expect(service.cachedToolsetKey(analyst)).toContain('acme:8:');
    // another principal with the same grants gets the same key; an admin gets its own
    expect(service.cachedToolsetKey({ ...analyst })).toBe(service.cachedToolsetKey(analyst));
    expect(service.cachedToolsetKey(admin)).not.toBe(service.cachedToolsetKey(analyst));
  });

  it('builds again after clearLists', async () => {
    const { service, levels } = setup();
    await service.listBody(analyst, 'openai');
    service.clearLists();
    expect(service.cachedListBody(analyst, 'openai')).toBeUndefined();
    await service.listBody(analyst, 'openai');
    expect(levels.filter((l) => l === 'build')).toHaveLength(2);
  });

  it('resolves a tool the caller may use; a forbidden one is as missing as an unknown one', async () => {
    const { service } = setup();
    await expect(service.resolve(analyst, reportToolName('revenue'))).resolves.toMatchObject({
      tool: { kind: 'report' },
    });
    const forbidden = service.resolve(analyst, reportToolName('payroll'));
    await expect(forbidden).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
    await expect(service.resolve(analyst, 'nothing')).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    expect(service.cachedResolve(analyst, reportToolName('payroll'))).toBeUndefined();
    expect(service.cachedResolve(admin, reportToolName('payroll'))?.tool.kind).toBe('report');
  });
});
