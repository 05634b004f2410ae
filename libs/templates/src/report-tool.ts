import { ArgumentValidator } from './arguments';
import type { ToolArguments } from './arguments';
import { toolDescription } from './description';
import { TemplateError } from './errors';
import type { ToolDefinition } from './formats';
import type { Identity } from './identity';
import { identityValue, isIdentityParam } from './identity';
import { argumentsSchema, reportResultSchema } from './json-schema';
import type { ReportMetadata } from './report';
import { TOOL_NAME_PREFIX } from './report';
import { pagedQuery } from './paging';
import type { PagedQuery } from './paging';
import { reportProblems } from './report-validation';
import { bindTemplate, declaredParameters } from './sql-binding';
import type { BoundTemplate } from './sql-binding';

export function reportToolName(reportId: string): string {
  return `${TOOL_NAME_PREFIX}${reportId}`;
}

/** A report turned into a tool: definition, bound SQL and a lazily compiled validator. */
export class ReportTool {
  readonly definition: ToolDefinition;
  readonly bound: BoundTemplate;
  /** identity parameters (`tenant_id`, `user_id`, `claim_*`) the template needs */
  readonly identityParams: readonly string[];
  private validator?: ArgumentValidator;
  private paged?: PagedQuery;

  constructor(readonly report: ReportMetadata) {
    const problems = reportProblems(report);
    if (problems.length > 0) throw new TemplateError('INVALID_REPORT', problems);
    this.bound = bindTemplate(report.sqlTemplate, declaredParameters(report.filters));
    this.identityParams = this.bound.parameterNames.filter(isIdentityParam);
    this.definition = {
      name: reportToolName(report.id),
      title: report.name,
      description: toolDescription(report),
      inputSchema: argumentsSchema(report.filters),
      outputSchema: reportResultSchema(report.fields),
      readOnly: true,
    };
  }

  /** Compiling costs ~1 ms; most tools in a big catalog are listed far more often than called. */
  get arguments(): ArgumentValidator {
    this.validator ??= new ArgumentValidator(this.definition.inputSchema, this.report.filters);
    return this.validator;
  }

  /** The paged SQL depends only on the report version: lexed once, not on every call. */
  get pagedQuery(): PagedQuery {
    this.paged ??= pagedQuery(this.bound);
    return this.paged;
  }

  /** Whether this caller's token carries every claim the template binds. */
  isBindableFor(identity: Identity): boolean {
    return this.identityParams.every((name) => identityValue(identity, name) !== undefined);
  }

  /** Positional values for `bound.text`, from validated arguments and the verified identity. */
  parameterValues(args: ToolArguments, identity: Identity): unknown[] {
    return this.bound.parameterNames.map((name) => {
      if (isIdentityParam(name)) return identityValue(identity, name) ?? null;
      return filterArgument(this.report, name, args);
    });
  }
}

function filterArgument(report: ReportMetadata, param: string, args: ToolArguments): unknown {
  for (const filter of report.filters) {
    if (filter.name === param) return args[param] ?? filter.defaultValue ?? null;
    const range = args[filter.name] as Record<string, unknown> | undefined;
    if (filter.type === 'date_range' || filter.type === 'number_range') {
      const bound = param.slice(filter.name.length + 1);
      if (param.startsWith(`${filter.name}_`) && ['start', 'end', 'min', 'max'].includes(bound)) {
        return range?.[bound] ?? null;
      }
    }
  }
  return null;
}
