import { reportToolMeta } from '../chart/chart';
import { ArgumentValidator } from './arguments';
import type { ToolArguments } from './arguments';
import { toolDescription } from './description';
import { TemplateError } from '../errors';
import type { ToolDefinition } from './formats';
import type { Identity } from '../model/identity';
import { identityValue, isIdentityParam } from '../model/identity';
import { argumentsSchema, reportResultSchema } from './json-schema';
import type { ReportMetadata } from '../model/report';
import { TOOL_NAME_PREFIX } from '../model/report';
import { pagedQuery } from '../sql/paging';
import type { PagedQuery, SqlDialect } from '../sql/paging';
import { bindMysqlTemplate, mysqlParameter } from '../sql/mysql-guard/mysql-binding';
import { reportProblems } from './report-validation';
import { flatString, SCHEMAS } from '../model/shared-values';
import { bindTemplate, declaredParameters } from '../sql/sql-binding';
import type { BoundTemplate } from '../sql/sql-binding';

export function reportToolName(reportId: string): string {
  return `${TOOL_NAME_PREFIX}${reportId}`;
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * A report turned into a tool: definition, bound SQL and a lazily compiled validator. What
 * only a call needs (the bound SQL, the validator, the paged SQL) is built at the first call,
 * so the many tools of a big catalog that are listed but never called keep none of it; the
 * schemas are shared with every equal one (SCHEMAS).
 */
export class ReportTool {
  readonly definition: ToolDefinition;
  /** identity parameters (`tenant_id`, `user_id`, `claim_*`) the template needs */
  readonly identityParams: readonly string[];
  private boundTemplate?: BoundTemplate;
  private validator?: ArgumentValidator;
  private paged?: PagedQuery;

  constructor(
    readonly report: ReportMetadata,
    /** the dialect of the report's source: `mysql` on a MySQL-protocol one (issue #42) */
    readonly dialect: SqlDialect = 'postgres',
  ) {
    const problems = reportProblems(report);
    if (problems.length > 0) throw new TemplateError('INVALID_REPORT', problems);
    // binding checks the placeholders (a TemplateError for an undeclared one)
    const { parameterNames } = this.bind();
    const identity = parameterNames.filter(isIdentityParam);
    this.identityParams = identity.length > 0 ? identity : NONE;
    this.definition = {
      name: reportToolName(report.id),
      title: report.name,
      description: toolDescription(report),
      inputSchema: SCHEMAS.share(argumentsSchema(report.filters)),
      outputSchema: SCHEMAS.share(reportResultSchema(report.fields)),
      readOnly: true,
      meta: reportToolMeta(report),
    };
  }

  /** The template with positional `$n` parameters (bound again at the first call). */
  get bound(): BoundTemplate {
    if (!this.boundTemplate) {
      const { text, ...rest } = this.bind();
      this.boundTemplate = { text: flatString(text), ...rest };
    }
    return this.boundTemplate;
  }

  /** `$n::type` parameters on Postgres, `?` on MySQL (each by its own lexer). */
  private bind(): BoundTemplate {
    const declared = declaredParameters(this.report.filters);
    return this.dialect === 'mysql'
      ? bindMysqlTemplate(this.report.sqlTemplate, declared)
      : bindTemplate(this.report.sqlTemplate, declared);
  }

  /** Compiling costs ~1 ms; most tools in a big catalog are listed far more often than called. */
  get arguments(): ArgumentValidator {
    this.validator ??= new ArgumentValidator(this.definition.inputSchema, this.report.filters);
    return this.validator;
  }

  /** The paged SQL depends only on the report version: lexed once, not on every call. */
  get pagedQuery(): PagedQuery {
    this.paged ??= pagedQuery(this.bound, this.dialect);
    return this.paged;
  }

  /** Whether this caller's token carries every claim the template binds. */
  isBindableFor(identity: Identity): boolean {
    return this.identityParams.every((name) => identityValue(identity, name) !== undefined);
  }

  /** Positional values for `bound.text`, from validated arguments and the verified identity. */
  parameterValues(args: ToolArguments, identity: Identity): unknown[] {
    const values = this.bound.parameterNames.map((name) => {
      if (isIdentityParam(name)) return identityValue(identity, name) ?? null;
      return filterArgument(this.report, name, args);
    });
    return this.dialect === 'mysql' ? values.map(mysqlParameter) : values;
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
