/**
 * The registry's public API: what the app and the other libraries may use. Anything not
 * named here is internal to the registry (the catalog's units, L2 value formats, the
 * index); `standaloneCatalog` for tests and tools is `@app/registry/testing`.
 */

// wiring
export { RegistryModule } from './registry.module';
export {
  DATABASE,
  DEFAULT_REGISTRY_OPTIONS,
  REDIS,
  REGISTRY_OPTIONS,
  TENANT_QUERY_SLOTS,
} from './tokens';
export type { RegistryOptions, TenantQuerySlots } from './tokens';
export { RegistryError, toolNotFound } from './errors';
export type { RegistryErrorCode } from './errors';
export { LATENCY_BUCKETS, Metrics } from './metrics';
export { activeCallSignal, activeTraceId, tracer, withCallSignal, withSpan } from './tracing';

// catalog
export { CatalogStore } from './catalog/catalog-store';
export { CATALOG_CHANNEL, CatalogChangeFeed } from './catalog/load/change-feed';
export type { CatalogChangeListener } from './catalog/load/change-feed';
export { CatalogRepository } from './catalog/load/catalog.repository';
export type {
  AccessRecords,
  GeneratedToolRecord,
  StoredReport,
  TenantRecord,
} from './catalog/model/catalog-records';
export { admitReport } from './catalog/judge/admit-report';
export { TenantCatalog } from './catalog/model/tenant-catalog';
export type { AdmittedReport, ReportServingStatus } from './catalog/model/tenant-catalog';
export { ReportSet } from './catalog/model/report-set';
export type { AdmitReport, ServedReport } from './catalog/model/report-set';
export {
  GENERATED_CATEGORY,
  GENERATED_TOOL_RUNNER,
  GeneratedTool,
  generatedToolProblem,
  NEVER_SMOKE_TESTED,
  TOOL_AUTHOR_ROLE,
} from './catalog/model/generated-tools';
export type { GeneratedToolRunner } from './catalog/model/generated-tools';
export { reportScope, templateProblems } from './catalog/judge/template-check';
export type { DatasourceScope } from './catalog/judge/template-check';
export { SharedCache } from './catalog/cache/shared-cache';

// access
export { AccessPolicy } from './access/access-policy';
export type { AccessDecision } from './access/access-policy';
export type { AccessSubject } from './access/grant-members';
export { permissionSetKey } from './access/permission-key';
export { AccessExplainer } from './access/access-explainer.service';
export type { AccessCheck, AccessExplanation } from './access/access-explainer.service';
export type { Principal } from './access/principal';

// listing
export { CatalogService } from './listing/catalog.service';
export type { VisibleSet } from './listing/catalog.service';
export { LIST_BODIES_MAX_BYTES } from './listing/list-bodies';
export type { ListVariant } from './listing/list-bodies';
export { ListCache } from './listing/list-cache';
export type { ListBuild, ListCacheOptions } from './listing/list-cache';
export { LIST_SHAPER } from './listing/list-shaper';
export type { ListShaper } from './listing/list-shaper';
export { BuiltinTools } from './listing/builtin-tools';
export { accessSubject } from './listing/served-tool';
export type { BuiltinTool, ServedTool } from './listing/served-tool';

// execution
export { ReportExecutor } from './execution/report-executor';
export { sessionLimits, sessionSetup } from './execution/session-setup';
export type { SessionLimits } from './execution/session-setup';
export { pageRowsJson, toolFailure, toolJson, toolPage, toolText } from './execution/tool-outcome';
export type {
  ToolCallOutcome,
  ToolErrorCode,
  ToolFailure,
  ToolFailureOf,
  ToolResultPage,
} from './execution/tool-outcome';
export { argumentsOutOfBounds, ToolCallService } from './execution/tool-calls.service';
export { CallActivity } from './execution/call-activity';
export { CallLedger } from './execution/call-ledger';
export { ReportUsage } from './execution/report-usage';
export {
  FOUND_VIA,
  LATENCY_BOUNDS_MS,
  histogramQuantile,
  latencyBucket,
} from './execution/usage-figures';
export type { ToolUsage, UsageSummary } from './execution/usage-figures';
export { figuresByTool, NEVER_CALLED } from './execution/usage-overview';
export type { ToolFigures } from './execution/usage-overview';
export type { FoundVia, UsageSettings } from './tokens';
export type { CallBucket } from './execution/call-activity';

// admin
export { ReportAdminService } from './admin/report-admin.service';
export type { AdminReportView, ReportStatusView } from './admin/report-admin.service';
export { ReportRepository } from './admin/report.repository';

// tenant data sources (issue #30)
export { DatasourceAdminService } from './datasources/register/datasource-admin.service';
export type { DatasourceView } from './datasources/register/datasource-admin.service';
export { DatasourcePools } from './datasources/run/source-pools';
export type { EndpointHealth } from './datasources/run/running-source';
export { DatasourceRepository } from './datasources/datasource.repository';
export { DEFAULT_DATASOURCE_OPTIONS } from './datasources/datasource-options';
export { AllowedNetworks } from './datasources/boundary/allowed-networks';
export { ResultCache, withCachePreference } from './execution/result-cache';
export type { CachePreference } from './execution/result-cache';
export type { DatasourceOptions } from './datasources/datasource-options';
export { parseDatasourceKey, SecretBox } from './datasources/boundary/secret-box';
export { DatasourceUnavailableError } from './datasources/run/datasource-unavailable';
