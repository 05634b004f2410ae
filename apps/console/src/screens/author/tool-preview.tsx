import { CodeView } from '../../code';
import type { Verdict } from './report-types';

export const FORMATS = ['openai', 'anthropic', 'mcp'] as const;
export type Format = (typeof FORMATS)[number];

/** The tool the model gets: its description, and its definition in each provider's format. */
export function ToolPreview({
  tool,
  format,
  setFormat,
}: {
  tool: NonNullable<Verdict['tool']>;
  format: Format;
  setFormat: (format: Format) => void;
}) {
  return (
    <section aria-labelledby="tool-title" class="panel">
      <h2 id="tool-title">The tool the model gets</h2>
      <h3>Description</h3>
      <pre class="description" data-testid="description">
        {tool.description}
      </pre>
      <div role="tablist" aria-label="Provider format">
        {FORMATS.map((f) => (
          <button
            type="button"
            role="tab"
            aria-selected={format === f}
            onClick={() => setFormat(f)}
          >
            {f === 'openai' ? 'OpenAI' : f === 'anthropic' ? 'Anthropic' : 'MCP'}
          </button>
        ))}
      </div>
      <div role="tabpanel" data-testid={`format-${format}`}>
        <CodeView
          code={JSON.stringify(tool.formats[format], null, 2)}
          language="json"
          label={`${format} tool`}
        />
      </div>
    </section>
  );
}
