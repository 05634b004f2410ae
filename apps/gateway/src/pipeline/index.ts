/**
 * The request pipeline, for routes and fast lanes alike:
 *
 *   run(req, res, next)          trace context + in-flight count + end-on-close, then `next`
 *                                inside the request's async context (the HTTP server does this
 *                                for every request, before any fast lane or Fastify)
 *   cachedPrincipal(auth)        the verified principal from memory (a fast lane's auth)
 *   authenticate(auth)           full verification (the AuthGuard's)
 *   callTool(p, name, args, via) limits + `tool.call` span + call counters; throws LimitError
 *   noteList(format, fastLane)   what the access log and list histogram record
 *   use(policy) / @AsRequestPolicy()   a RequestPolicy applied to every request, fast lane
 *                                or route (onRequest may refuse; onEnd sees the outcome)
 *   requestedContext(request)    the one business-context parser (?context=, X-Business-Context)
 *   end (automatic)              access log line, latency histograms, span end
 *
 * A new fast lane (a provider marked @AsHotPath()) calls `cachedPrincipal`, then `callTool`
 * (or `noteList`), and returns its answer; nothing else is needed for it to be traced,
 * logged, counted, limited and subject to every policy.
 */
export * from './business-context';
export * from './record/access-line';
export * from './limits';
export * from './record/logger';
export * from './pipeline.module';
export * from './request-context';
export * from './request-pipeline';
export * from './request-policy';
export * from './record/tracing';
export * from './record/redact';
