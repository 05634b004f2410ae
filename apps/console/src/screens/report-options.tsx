import { api } from '../api';
import type { Identity } from '../api';
import { CHART_TYPES } from '../report-form';
import type { ChartRow, Draft } from '../report-form';
import { useLoad } from './common';

const value = (e: Event) => (e.target as HTMLInputElement | HTMLTextAreaElement).value;

/**
 * The optional members of a report in the Author form: where it runs (data source), how it is
 * found (synonyms, example questions), how it is answered (as a task) and drawn (chart hint;
 * "Try it" draws the page with it, the preview).
 */
export function ReportOptions(props: {
  identity: Identity;
  draft: Draft;
  set: (patch: Partial<Draft>) => void;
}) {
  const { draft, set } = props;
  const sources = useLoad(
    () => api<{ datasources: Array<{ name: string }> }>(props.identity, '/v1/admin/datasources'),
    [props.identity.token],
  );
  const names = (sources.value?.datasources ?? []).map((s) => s.name);
  // a source the list does not hold (removed, or not readable) still shows, so it is not lost
  if (draft.datasource && !names.includes(draft.datasource)) names.push(draft.datasource);
  const setChart = (patch: Partial<ChartRow>) => set({ chart: { ...draft.chart, ...patch } });
  const fieldNames = draft.fields.map((f) => f.name).filter(Boolean);
  return (
    <>
      <fieldset>
        <legend>Where it runs and how it is found</legend>
        <div class="row">
          <label>
            Data source
            <select
              name="datasource"
              value={draft.datasource}
              onChange={(e) => set({ datasource: value(e) })}
            >
              <option value="">the gateway's own database (tenant schema)</option>
              {names.map((n) => (
                <option value={n}>{n}</option>
              ))}
            </select>
          </label>
          <label class="inline">
            <input
              type="checkbox"
              name="run_as_task"
              checked={draft.runAsTask}
              onChange={(e) => set({ runAsTask: (e.target as HTMLInputElement).checked })}
            />
            run as a task (MCP clients that take tasks get it at once)
          </label>
          <label>
            Cache results for (seconds; empty: never)
            <input
              type="number"
              name="cache_ttl_seconds"
              min={0}
              max={86400}
              value={draft.cacheTtlSeconds}
              onInput={(e) => set({ cacheTtlSeconds: value(e) })}
            />
          </label>
        </div>
        <div class="row">
          <label>
            Synonyms (one per line)
            <textarea
              name="synonyms"
              rows={2}
              value={draft.synonyms}
              onInput={(e) => set({ synonyms: value(e) })}
            />
          </label>
          <label>
            Example questions (one per line)
            <textarea
              name="example_questions"
              rows={2}
              value={draft.exampleQuestions}
              onInput={(e) => set({ exampleQuestions: value(e) })}
            />
          </label>
        </div>
      </fieldset>
      <fieldset>
        <legend>Chart hint</legend>
        <datalist id="chart-fields">
          {fieldNames.map((n) => (
            <option value={n} />
          ))}
        </datalist>
        <div class="subrow">
          <select
            aria-label="chart type"
            name="chart_type"
            value={draft.chart.type}
            onChange={(e) => setChart({ type: value(e) as ChartRow['type'] })}
          >
            <option value="">none (inferred from the fields)</option>
            {CHART_TYPES.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
          <input
            aria-label="chart x"
            placeholder="x (a field)"
            list="chart-fields"
            value={draft.chart.x}
            disabled={!draft.chart.type}
            onInput={(e) => setChart({ x: value(e) })}
          />
          <input
            aria-label="chart y"
            placeholder="y (measures, comma-separated)"
            value={draft.chart.y}
            disabled={!draft.chart.type}
            onInput={(e) => setChart({ y: value(e) })}
          />
          <input
            aria-label="chart series"
            placeholder="series (a field)"
            list="chart-fields"
            value={draft.chart.series}
            disabled={!draft.chart.type}
            onInput={(e) => setChart({ series: value(e) })}
          />
        </div>
        <p class="muted">"Try it" draws the page with this hint (the preview).</p>
      </fieldset>
    </>
  );
}
