import { vegaLiteSpec } from '@app/templates';
import { chartSettings } from '../config/serving.config';
import type { GatewayConfig } from '../config/gateway.config';
import { SvgCharts } from './svg-charts';

/**
 * The SVG worker draws reports whose field names and descriptions hold characters that mean
 * something in Vega's expression language (#40). It walks expressions with vega-interpreter,
 * and `Function` throws inside it: a chart that needed code compiled from text could not be
 * drawn at all, so every picture drawn here is one drawn without compiling any.
 */
describe('SvgCharts (Vega in a worker, expressions interpreted)', () => {
  const svg = new SvgCharts({ charts: chartSettings({}) } as GatewayConfig);
  afterAll(() => svg.onModuleDestroy());

  const HOSTILE = ['r\\', 'a"b', 'c[0]', 'd.e', "it's", '"); throw new Error("ran"); ("'];
  const columns = HOSTILE.map((name, i) => ({ name, type: i === 0 ? 'string' : 'number' }));
  const rows = [
    Object.fromEntries(HOSTILE.map((n, i) => [n, i === 0 ? 'x"y\\' : i])),
    Object.fromEntries(HOSTILE.map((n, i) => [n, i === 0 ? "o'k]" : i * 2])),
  ];
  const described = HOSTILE.map((name) => ({ name, description: `${name} \\ " ' ] )` }));

  it.each(['bar', 'line', 'area', 'pie', 'table'] as const)(
    'draws a %s chart of fields named with backslashes, quotes and brackets',
    async (type) => {
      const chart =
        type === 'pie'
          ? { type, x: 'r\\', y: ['a"b'] }
          : { type, x: 'r\\', y: HOSTILE.slice(1), ...(type === 'table' ? {} : {}) };
      const drawn = await svg.render(vegaLiteSpec(chart, columns, rows, 'a "title" \\', described));
      expect(drawn).toMatch(/^<svg/);
      // the category values are drawn as text, escaped for SVG
      expect(drawn).toContain('x&quot;y\\');
    },
  );

  it('compiles no code in the gateway thread either while a report is drawn', async () => {
    const original = globalThis.Function;
    const compiled: unknown[][] = [];
    globalThis.Function = new Proxy(original, {
      apply: (target, self, args: unknown[]) => (
        compiled.push(args),
        Reflect.apply(target, self, args)
      ),
      construct: (target, args: unknown[]) => (
        compiled.push(args),
        Reflect.construct(target, args)
      ),
    });
    try {
      const spec = vegaLiteSpec({ type: 'bar', x: 'r\\', y: HOSTILE.slice(1) }, columns, rows, 't');
      expect(await svg.render(spec)).toMatch(/^<svg/);
    } finally {
      globalThis.Function = original;
    }
    expect(compiled).toEqual([]);
  });

  it('evaluates expressions by interpreting them (a calculate and a label expression)', async () => {
    const drawn = await svg.render({
      data: { values: [{ a: 1 }, { a: 2 }] },
      transform: [{ calculate: "'n' + datum.a", as: 'label' }],
      mark: 'bar',
      encoding: {
        x: { field: 'label', type: 'nominal', axis: { labelExpr: 'upper(datum.label)' } },
        y: { field: 'a', type: 'quantitative' },
      },
    });
    expect(drawn).toContain('>N1<');
    expect(drawn).toContain('>N2<');
  });
});
