/**
 * Charts of the soak, drawn by vega-lite (compiled to vega, rendered to SVG by vega's
 * headless renderer: no browser, no native canvas). Chosen over chartjs-node-canvas, which
 * needs the native `canvas` package and its prebuilt binaries.
 */
export interface FaultMark {
  name: string;
  start: number;
  end: number;
}

interface VegaLite {
  compile(spec: unknown): { spec: unknown };
}
interface Vega {
  parse(spec: unknown): unknown;
  View: new (runtime: unknown, options: { renderer: 'none' }) => { toSVG(): Promise<string> };
}

// both are ES modules: loaded by name so this CommonJS-compiled file can import them
const load = (name: string): Promise<unknown> => import(name);

async function render(spec: Record<string, unknown>): Promise<string> {
  const vega = (await load('vega')) as Vega;
  const vl = (await load('vega-lite')) as VegaLite;
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}

function faultLayers(faults: FaultMark[]): Record<string, unknown>[] {
  if (faults.length === 0) return [];
  return [
    {
      data: { values: faults },
      mark: { type: 'rect', opacity: 0.18, color: '#d62728' },
      encoding: { x: { field: 'start', type: 'quantitative' }, x2: { field: 'end' } },
    },
    {
      data: { values: faults },
      mark: { type: 'text', angle: 270, align: 'right', baseline: 'bottom', dx: -4, fontSize: 9 },
      encoding: {
        x: { field: 'start', type: 'quantitative' },
        y: { value: 4 },
        text: { field: 'name' },
      },
    },
  ];
}

/** A line chart over seconds since the start, faults shaded and named. */
export function lineChart(options: {
  title: string;
  yTitle: string;
  values: Array<{ t: number; value: number; series: string }>;
  faults: FaultMark[];
  yScale?: 'linear' | 'log';
}): Promise<string> {
  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: options.title,
    width: 720,
    height: 220,
    layer: [
      ...faultLayers(options.faults),
      {
        data: { values: options.values },
        mark: { type: 'line', interpolate: 'monotone', strokeWidth: 1.5 },
        encoding: {
          x: { field: 't', type: 'quantitative', title: 'seconds since start' },
          y: {
            field: 'value',
            type: 'quantitative',
            title: options.yTitle,
            scale: { type: options.yScale ?? 'linear' },
          },
          color: { field: 'series', type: 'nominal', title: null },
        },
      },
    ],
  });
}
