import {
  CatalogService,
  RegistryError,
  ReportUsage,
  ToolCallService,
  toolFailure,
  toolJson,
} from '@app/registry';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { ArgumentValidator, formatTool } from '@app/templates';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { parseConversation } from '../rank/conversation';
import { parseSelectRequest, SELECT_LIMIT_DEFAULT } from './select-request';
import { DisclosurePolicy } from './disclosure';
import {
  CALL_TOOL,
  DESCRIBE_TOOLS,
  DISCLOSURE_TOOLS,
  DISCLOSURE_TOOL_NAMES,
  SEARCH_TOOLS,
} from './disclosure-tools';
import { oneLine } from '../index/search-doc';
import type { SearchHit } from '../index/search-query';
import { searchTools, selectTools } from '../rank/selector';
import type { DetectedContext } from '../rank/selector';
import { SELECTION_SIGNALS } from '../signal-options';
import type { SignalOptions } from '../signal-options';
import { UsageLearning } from '../usage/usage-learning';
import { shippedWordVectors } from '../words/word-vectors-file';
import { VisibleTools } from './visible-tools';

export interface SelectResponse {
  contexts: DetectedContext[];
  /** best first; `matched` says which words of the conversation matched */
  ranking: Array<{ name: string; score: number; matched: string[] }>;
  /** the ranked tools in the requested format, ready to send to the model */
  tools: object[];
}

/** A built-in's call, and the tools a search found (an MCP session adds them to its list). */
export interface SelectionCallOutcome {
  outcome: ToolCallOutcome;
  found?: string[];
}

const validators = new Map(
  DISCLOSURE_TOOLS.map((d) => [d.name, new ArgumentValidator(d.inputSchema, [])]),
);

/**
 * Tool selection for callers: POST /v1/tools/select, and the search_tools / describe_tools
 * / call_tool built-ins of progressive disclosure. One search index per tenant, patched
 * with what changed whenever the tenant's catalog object changes (so a report is
 * searchable in the same request that first lists it). Every answer is drawn from the
 * caller's own visible set, which is computed first; the index is never asked about others.
 */
@Injectable()
export class SelectionService {
  private readonly visibleTools: VisibleTools;

  constructor(
    private readonly catalog: CatalogService,
    private readonly calls: ToolCallService,
    @Inject(DisclosurePolicy) readonly disclosure: DisclosurePolicy,
    @Inject(SELECTION_SIGNALS) signals: SignalOptions,
    private readonly learning: UsageLearning,
    @Optional() @Inject(ReportUsage) private readonly usage: ReportUsage | null = null,
  ) {
    // read the table at start-up: a corrupt file stops the instance, not a request
    if (signals.vectors) shippedWordVectors();
    this.visibleTools = new VisibleTools(catalog, signals, learning);
  }

  async select(principal: Principal, body: unknown): Promise<SelectResponse> {
    const request = parseSelectRequest(body);
    const conversation = parseConversation(request.messages);
    const { byName, index, signals } = await this.visibleTools.of(principal, request.context);
    const limit = request.limit ?? SELECT_LIMIT_DEFAULT;
    const selection = selectTools(index, conversation, (n) => byName.has(n), limit, signals);
    this.learning.asked(
      principal,
      conversation.userTurns[conversation.userTurns.length - 1],
      'select',
    );
    const format = request.format ?? 'openai';
    this.usage?.suggested(
      principal,
      selection.tools.map((t) => t.name),
      'selected',
    );
    return {
      contexts: selection.contexts,
      ranking: selection.tools.map((t) => ({
        name: t.name,
        score: Math.round(t.score * 1000) / 1000,
        matched: t.matched,
      })),
      tools: selection.tools.map((t) => formatTool(byName.get(t.name)!.definition, format)),
    };
  }

  /** Whether this caller's lists carry the disclosure built-ins instead of every tool. */
  private async disclosing(principal: Principal, context: string | undefined): Promise<boolean> {
    const visible = await this.catalog.visibleSet(principal, context);
    return this.disclosure.applies(visible.tools.length);
  }

  /**
   * Every tool call of REST and MCP: the disclosure built-ins when the caller's lists carry
   * them, else (and for every other name) the one permission-checked call path.
   */
  async call(
    principal: Principal,
    name: string,
    args: unknown,
    context?: string,
  ): Promise<SelectionCallOutcome> {
    if (!DISCLOSURE_TOOL_NAMES.includes(name) || !(await this.disclosing(principal, context)))
      return { outcome: await this.calls.call(principal, name, args) };
    const checked = validators.get(name)!.check(args ?? {});
    if (!checked.ok) return { outcome: toolError(name, checked.message) };
    const input = checked.args as Record<string, unknown>;
    switch (name) {
      case SEARCH_TOOLS:
        return this.search(principal, String(input.query), Number(input.limit ?? 10), context);
      case DESCRIBE_TOOLS:
        return this.describe(principal, input.names as string[], context);
      case CALL_TOOL:
        return this.callThrough(principal, String(input.name), input.arguments ?? {});
      default:
        return { outcome: await this.calls.call(principal, name, args) };
    }
  }

  /**
   * A call that ran answers the user's pending question (a failed one does not). Only
   * call_tool's inner call is learned here: the request pipeline sees every other call.
   */
  private learned(principal: Principal, name: string, outcome: ToolCallOutcome): ToolCallOutcome {
    if (!outcome.is_error) this.learning.called(principal, name);
    return outcome;
  }

  private async search(
    principal: Principal,
    query: string,
    limit: number,
    context: string | undefined,
  ): Promise<SelectionCallOutcome> {
    const { byName, index, signals } = await this.visibleTools.of(principal, context);
    const hits: SearchHit[] = searchTools(index, query, (n) => byName.has(n), limit, signals);
    this.learning.asked(principal, query, 'search_tools');
    const tools = hits.map((h) => {
      const doc = index.doc(h.name)!;
      return { name: h.name, title: doc.title, description: oneLine(doc.description) };
    });
    const result = { tools };
    this.usage?.suggested(
      principal,
      tools.map((t) => t.name),
      'searched',
    );
    return {
      outcome: toolJson(SEARCH_TOOLS, result),
      found: tools.map((t) => t.name),
    };
  }

  private async describe(
    principal: Principal,
    names: string[],
    context: string | undefined,
  ): Promise<SelectionCallOutcome> {
    const visible = await this.catalog.visibleSet(principal, context);
    const byName = new Map(visible.tools.map((t) => [t.definition.name, t]));
    const tools = names.flatMap((n) => {
      const tool = byName.get(n);
      return tool ? [formatTool(tool.definition, 'mcp')] : [];
    });
    // a name the caller may not use is reported like an unknown one
    const unknown = names.filter((n) => !byName.has(n));
    const result = { tools, ...(unknown.length > 0 ? { unknown } : {}) };
    return {
      outcome: toolJson(DESCRIBE_TOOLS, result),
      found: tools.map((t) => (t as { name: string }).name),
    };
  }

  private async callThrough(
    principal: Principal,
    name: string,
    args: unknown,
  ): Promise<SelectionCallOutcome> {
    if (DISCLOSURE_TOOL_NAMES.includes(name))
      return { outcome: toolError(CALL_TOOL, `call_tool cannot call ${name}; call it directly`) };
    try {
      return {
        outcome: this.learned(principal, name, await this.calls.call(principal, name, args)),
      };
    } catch (err) {
      // the same words as a 404 on the tool itself: unknown and forbidden look alike
      if (err instanceof RegistryError && err.code === 'TOOL_NOT_FOUND')
        return { outcome: toolError(CALL_TOOL, err.message) };
      throw err;
    }
  }
}

function toolError(tool: string, message: string): ToolCallOutcome {
  return toolFailure(tool, 'INVALID_ARGUMENTS', message);
}
