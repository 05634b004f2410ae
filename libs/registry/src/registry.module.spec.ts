import { Global, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CatalogStore } from './catalog/catalog-store';
import { CatalogService } from './listing/catalog.service';
import { ReportExecutor } from './execution/report-executor';
import { RegistryModule } from './registry.module';
import { DATABASE, DEFAULT_REGISTRY_OPTIONS, REDIS, REGISTRY_OPTIONS } from './tokens';
import type { RegistryOptions } from './tokens';

// The registry wired as the gateway wires it, without I/O: nothing here is initialised (no
// LISTEN), the fake database is never queried. Two feature modules stand for tools and MCP.
const SETTINGS = Symbol('SETTINGS');

@Injectable()
class ToolsSide {
  constructor(
    readonly store: CatalogStore,
    readonly catalog: CatalogService,
  ) {}
}

@Injectable()
class McpSide {
  constructor(
    readonly store: CatalogStore,
    readonly catalog: CatalogService,
  ) {}
}

@Module({ providers: [ToolsSide] })
class ToolsFeature {}

@Module({ providers: [McpSide] })
class McpFeature {}

function connections(settings: RegistryOptions) {
  @Global()
  @Module({
    providers: [
      { provide: DATABASE, useValue: {} },
      { provide: REDIS, useValue: null },
      { provide: SETTINGS, useValue: settings },
    ],
    exports: [DATABASE, REDIS, SETTINGS],
  })
  class Connections {}
  return Connections;
}

describe('RegistryModule.forRootAsync', () => {
  const settings: RegistryOptions = { ...DEFAULT_REGISTRY_OPTIONS, statementTimeoutMs: 1234 };

  it('registered once, gives every feature module the same services, with its options', async () => {
    const ref = await Test.createTestingModule({
      imports: [
        connections(settings),
        RegistryModule.forRootAsync({
          inject: [SETTINGS],
          useFactory: (options: RegistryOptions) => options,
        }),
        ToolsFeature,
        McpFeature,
      ],
    }).compile();
    try {
      const tools = ref.get(ToolsSide);
      const mcp = ref.get(McpSide);
      expect(tools.store).toBeInstanceOf(CatalogStore);
      expect(tools.store).toBe(mcp.store);
      expect(tools.catalog).toBe(mcp.catalog);
      expect(ref.get(CatalogStore)).toBe(tools.store);
      expect(ref.get(REGISTRY_OPTIONS)).toBe(settings);
    } finally {
      await ref.close();
    }
  });

  it('refuses a static import of the class: no second registry is built beside the global one', async () => {
    @Module({ imports: [RegistryModule] })
    class ImportsTheClassAgain {}
    const alone = Test.createTestingModule({
      imports: [connections(settings), RegistryModule],
    }).compile();
    await expect(alone).rejects.toThrow(/REGISTRY_OPTIONS/);
    const beside = Test.createTestingModule({
      imports: [
        connections(settings),
        RegistryModule.forRoot(settings),
        ToolsFeature,
        ImportsTheClassAgain,
      ],
    }).compile();
    await expect(beside).rejects.toThrow(/REGISTRY_OPTIONS/);
  });

  it('forRoot takes the options as a value', async () => {
    const ref = await Test.createTestingModule({
      imports: [connections(settings), RegistryModule.forRoot(settings), ToolsFeature],
    }).compile();
    try {
      // a copy: the builder strips its own extras from the value
      expect(ref.get(REGISTRY_OPTIONS)).toEqual(settings);
      expect(ref.get(ReportExecutor)).toBeInstanceOf(ReportExecutor);
      expect(ref.get(ToolsSide).store).toBe(ref.get(CatalogStore));
    } finally {
      await ref.close();
    }
  });
});
