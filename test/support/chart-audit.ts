/**
 * Reads a Vega-Lite spec the way a reader reads the picture: which measures share one scale
 * (with their largest values), in which order the categories are drawn, and whether the
 * category labels are level. Used by the spec builder's unit tests and the e2e test over
 * the demo catalog, so both judge the same promises (docs/report-authoring.md#charts).
 */
type Spec = Record<string, unknown>;
type Values = Array<Record<string, unknown>>;

interface Unit {
  spec: Spec;
  values: Values;
}

function units(spec: Spec, inherited: Values = []): Unit[] {
  const values = ((spec.data as { values?: Values } | undefined)?.values ?? inherited) as Values;
  const children = (spec.vconcat ?? spec.hconcat ?? spec.layer) as Spec[] | undefined;
  if (children) return children.flatMap((child) => units(child, values));
  return spec.encoding ? [{ spec, values }] : [];
}

const enc = (u: Unit) => u.spec.encoding as Record<string, Spec | undefined>;
const measureChannel = (u: Unit) =>
  (['y', 'x'] as const).find((c) => enc(u)[c]?.type === 'quantitative');
/** The category of bars and lines is on the other axis; the slices of a pie are its colours. */
const categoryChannel = (u: Unit) =>
  enc(u).theta
    ? ('color' as const)
    : (['x', 'y'] as const).find((c) => c !== measureChannel(u) && enc(u)[c] !== undefined);

/** Per scale drawn: each measure on it (by title) and its largest absolute value. */
export function measuresPerScale(spec: Spec): Array<Map<string, number>> {
  return units(spec).flatMap((u) => {
    const channel = measureChannel(u);
    if (!channel) return [];
    const field = enc(u)[channel]!.field as string;
    const sizes = new Map<string, number>();
    // measures folded into one value field by Vega-Lite share that field's scale
    const folds = ((u.spec.transform ?? []) as Array<{ fold?: string[]; as?: string[] }>).find(
      (t) => t.fold && (t.as?.[1] ?? 'value') === field,
    );
    if (folds?.fold) {
      for (const name of folds.fold)
        sizes.set(name, Math.max(0, ...u.values.map((row) => Math.abs(Number(row[name]) || 0))));
      return [sizes];
    }
    for (const row of u.values) {
      const name = field === 'v' ? String(row.m) : String(enc(u)[channel]!.title ?? field);
      sizes.set(name, Math.max(sizes.get(name) ?? 0, Math.abs(Number(row[field]) || 0)));
    }
    return [sizes];
  });
}

/** The largest ratio between two measures' largest values on one scale (1 when alone). */
export function worstScaleRatio(spec: Spec): number {
  let worst = 1;
  for (const sizes of measuresPerScale(spec)) {
    const tops = [...sizes.values()].filter((v) => v > 0);
    if (tops.length > 1) worst = Math.max(worst, Math.max(...tops) / Math.min(...tops));
  }
  return worst;
}

/** The categories as each view draws them: sorted as its category encoding says. */
export function drawnCategories(spec: Spec): string[][] {
  return units(spec).flatMap((u) => {
    const channel = categoryChannel(u);
    const def = channel && enc(u)[channel];
    if (!def || def.type !== 'nominal') return [];
    const sort = def.sort as { field: string; op: string; order: string } | undefined;
    if (!sort || sort.op !== 'min' || sort.order !== 'ascending')
      throw new Error(`categories are not drawn in a stated order: ${JSON.stringify(sort)}`);
    const first = new Map<string, number>();
    for (const row of u.values) {
      const name = String(row[def.field as string]);
      first.set(name, Math.min(first.get(name) ?? Infinity, Number(row[sort.field])));
    }
    return [[...first.entries()].sort((a, b) => a[1] - b[1]).map(([name]) => name)];
  });
}

/** Each view's category axis labels (a pie has a legend): their texts and their angle. */
export function categoryLabels(spec: Spec): Array<{ labels: string[]; angle: number }> {
  return units(spec).flatMap((u) => {
    const channel = categoryChannel(u);
    const def = channel && enc(u)[channel];
    if (!def || def.type !== 'nominal' || channel === 'color') return [];
    const axis = (def.axis ?? {}) as { labelAngle?: number; labels?: boolean };
    if (axis.labels === false) return [];
    const labels = [...new Set(u.values.map((r) => String(r[def.field as string])))];
    return [{ labels, angle: axis.labelAngle ?? (channel === 'x' ? -90 : 0) }];
  });
}
