import { accessSubject } from '@app/registry';
import type { Principal, ServedTool, TenantCatalog, CatalogService } from '@app/registry';
import { LRUCache } from 'lru-cache';
import { DISCLOSURE_TOOL_NAMES } from './disclosure-tools';
import { reportSearchDoc, toolSearchDoc } from '../index/search-doc';
import type { SearchDoc } from '../index/search-doc';
import { ToolSearchIndex } from '../index/search-index';
import type { SelectionSignals } from '../rank/selector';
import { SemanticIndex } from '../index/semantic-index';
import type { SignalOptions } from '../signal-options';
import type { UsageLearning } from '../usage/usage-learning';
import { shippedWordVectors } from '../words/word-vectors-file';

/** A caller's visible tools by name, and the catalog they came from. */
interface HeldToolset {
  catalog: TenantCatalog;
  byName: Map<string, ServedTool>;
}

/** how many visible sets (toolset keys) are held at once */
const TOOLSETS_HELD = 500;

/** The tenant's index and the catalog it was last brought up to date with. */
interface HeldIndex {
  catalog: TenantCatalog;
  index: ToolSearchIndex;
  /** the word-vector side, kept in step with `index` (absent when SELECTION_VECTORS=0) */
  semantic?: SemanticIndex;
}

/**
 * What a selection or a search ranks among: the caller's visible tools (held per toolset key),
 * the tenant's search indexes in step with the catalog those came from, and the signals fused
 * with the lexical ranking. The selection service owns one.
 */
export class VisibleTools {
  private readonly held = new Map<string, HeldIndex>();
  private readonly toolsets = new LRUCache<string, HeldToolset>({ max: TOOLSETS_HELD });

  constructor(
    private readonly catalog: CatalogService,
    private readonly signals: SignalOptions,
    private readonly learning: UsageLearning,
  ) {}

  /** The tenant's indexes, in step with `catalog` (the caller's visible set came from it). */
  private async index(tenantId: string, catalog: TenantCatalog): Promise<HeldIndex> {
    const held = this.held.get(tenantId);
    if (held && held.catalog === catalog) return held;
    // built-ins and generated tools are indexed with the reports; the catalog's version picks
    const { tools } = await this.catalog.tenantTools(tenantId);
    const index = held?.index ?? new ToolSearchIndex();
    const docs = tools
      .filter((t) => !DISCLOSURE_TOOL_NAMES.includes(t.definition.name))
      .map((t) => searchDoc(catalog, t));
    index.sync(docs);
    const semantic =
      held?.semantic ??
      (this.signals.vectors ? new SemanticIndex(shippedWordVectors()) : undefined);
    semantic?.sync(docs);
    const next = { catalog, index, semantic };
    this.held.set(tenantId, next);
    return next;
  }

  /** The signals fused with the lexical ranking for this tenant. */
  private async signalsFor(
    principal: Principal,
    held: HeldIndex,
  ): Promise<SelectionSignals | undefined> {
    const history = await this.learning.history(principal.tenantId);
    if (!held.semantic && !history) return undefined;
    return {
      semantic: held.semantic,
      history,
      now: this.learning.now(),
      user: principal.userId,
      fusion: {
        k: this.signals.fusionK,
        semantic: this.signals.vectorWeight,
        history: this.signals.historyWeight,
      },
    };
  }

  /**
   * The caller's visible tools by name, computed once per toolset key (tenant, catalog
   * version, permission set, context) rather than per request: a new catalog version is a
   * new key, so a hot-added report is in the next answer.
   */
  async of(principal: Principal, context: string | undefined) {
    const key = await this.catalog.toolsetKeyFor(principal, context);
    let held = this.toolsets.get(key);
    if (!held) {
      const visible = await this.catalog.visibleSet(principal, context);
      const byName = new Map(visible.tools.map((t) => [t.definition.name, t]));
      held = { catalog: visible.catalog, byName };
      this.toolsets.set(visible.key, held);
    }
    const indexes = await this.index(principal.tenantId, held.catalog);
    const signals = await this.signalsFor(principal, indexes);
    return { byName: held.byName, index: indexes.index, signals };
  }
}

/** The business contexts a tool belongs to, by the tenant's context definitions. */
function contextsOf(catalog: TenantCatalog, tool: ServedTool): string[] {
  const subject = accessSubject(tool);
  return catalog.access.contextNames().filter((c) => catalog.access.inContext(c, subject));
}

function searchDoc(catalog: TenantCatalog, tool: ServedTool): SearchDoc {
  const contexts = contextsOf(catalog, tool);
  if (tool.kind === 'report')
    return reportSearchDoc(tool.definition.name, tool.report.report, contexts);
  return toolSearchDoc(tool.definition, accessSubject(tool).category, contexts);
}
