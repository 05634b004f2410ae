import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MetaToolService, SandboxedToolRunner } from '@app/meta-tool';
import { CatalogService, CatalogStore, REGISTRY_OPTIONS, RegistryModule } from '@app/registry';
import { DisclosurePolicy, SelectionService } from '@app/selection';
import type { INestApplicationContext, InjectionToken } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { MetaToolCliModule } from '../../apps/gateway/src/cli/meta-tool-cli.module';
import { loadSettings } from '../../apps/gateway/src/config/gateway.config';
import { ConsoleAdminService } from '../../apps/gateway/src/console/console-admin.service';
import { ConsoleModule } from '../../apps/gateway/src/console/console.module';
import { HealthController } from '../../apps/gateway/src/health/health.controller';
import { HealthModule } from '../../apps/gateway/src/health/health.module';
import { ToolsController } from '../../apps/gateway/src/tools/tools.controller';
import { ToolsModule } from '../../apps/gateway/src/tools/tools.module';
import { startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';

/** Everything RegistryModule exports: its services and REGISTRY_OPTIONS. */
const REGISTRY_SERVICES = Reflect.getMetadata(
  MODULE_METADATA.EXPORTS,
  RegistryModule,
) as InjectionToken[];

/** The names of the modules that provide `token` themselves (not through an import). */
function providersOf(app: INestApplicationContext, token: InjectionToken): string[] {
  const modules = [...app.get(ModulesContainer).values()];
  return modules.filter((m) => m.providers.has(token)).map((m) => m.metatype.name);
}

/** A private field of a provider: what Nest injected into it. */
function injected(instance: object, field: string): unknown {
  return (instance as Record<string, unknown>)[field];
}

describe('wiring: each library registered once, one instance of each service', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('the app provides every registry, meta_tool and selection service from one module', () => {
    expect(REGISTRY_SERVICES).toEqual(expect.arrayContaining([CatalogStore, REGISTRY_OPTIONS]));
    for (const token of REGISTRY_SERVICES)
      expect({ token, modules: providersOf(gw.app, token) }).toEqual({
        token,
        modules: ['RegistryModule'],
      });
    for (const token of [MetaToolService, SandboxedToolRunner])
      expect(providersOf(gw.app, token)).toEqual(['MetaToolModule']);
    for (const token of [SelectionService, DisclosurePolicy])
      expect(providersOf(gw.app, token)).toEqual(['SelectionModule']);
  });

  it('feature modules receive the very same CatalogStore and CatalogService', () => {
    const health = gw.app.select(HealthModule).get(HealthController, { strict: true });
    const consoleAdmin = gw.app.select(ConsoleModule).get(ConsoleAdminService, { strict: true });
    const tools = gw.app.select(ToolsModule).get(ToolsController, { strict: true });
    const store = gw.app.get(CatalogStore);
    expect(store).toBeInstanceOf(CatalogStore);
    expect(injected(health, 'store')).toBe(store);
    expect(injected(consoleAdmin, 'store')).toBe(store);
    expect(injected(tools, 'catalog')).toBe(gw.app.get(CatalogService));
    expect(injected(consoleAdmin, 'catalogs')).toBe(gw.app.get(CatalogService));
  });

  it('the registry options come from the registry namespace, as the environment set them', () => {
    expect(gw.app.get(REGISTRY_OPTIONS)).toEqual(
      expect.objectContaining({ statementTimeoutMs: 5000, cacheTtlSeconds: 1800 }),
    );
  });

  it('the meta-tool CLI boots an application context with the same single registry', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gw-wiring-'));
    const settings = loadSettings({
      NODE_ENV: 'test',
      DATABASE_URL: gw.database.url,
      GENERATED_TOOLS_DIR: dir,
      REPORT_STATEMENT_TIMEOUT_MS: '4321',
    });
    const cli = await NestFactory.createApplicationContext(MetaToolCliModule.forRoot(settings), {
      logger: false,
      abortOnError: false,
    });
    try {
      expect(cli.get(MetaToolService)).toBeInstanceOf(MetaToolService);
      expect(providersOf(cli, CatalogStore)).toEqual(['RegistryModule']);
      expect(providersOf(cli, MetaToolService)).toEqual(['MetaToolModule']);
      expect(cli.get(REGISTRY_OPTIONS)).toEqual(
        expect.objectContaining({ statementTimeoutMs: 4321 }),
      );
    } finally {
      await cli.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
