import { SqlEditor } from '../../code';
import type { Mark } from '../../code';
import type { Draft, FieldRow, FilterRow } from '../../report-form';

const FILTER_TYPES = [
  'string',
  'enum',
  'integer',
  'number',
  'number_range',
  'date',
  'date_range',
  'boolean',
  'string_list',
];
const FIELD_TYPES = ['string', 'integer', 'number', 'date', 'timestamp', 'boolean', 'json'];

/** A change to the draft: `set` merges a patch, `update` maps the current draft. */
interface DraftProps {
  draft: Draft;
  set: (patch: Partial<Draft>) => void;
  update: (change: (d: Draft) => Draft) => void;
}

/** Id, category, name, business description and the SQL template (its offending part marked). */
export function MetadataInputs({
  draft,
  set,
  locked,
  mark,
}: Omit<DraftProps, 'update'> & {
  /** a stored report keeps its id */
  locked: boolean;
  mark: Mark | undefined;
}) {
  return (
    <>
      <div class="row">
        <label>
          Id
          <input
            name="id"
            value={draft.id}
            readOnly={locked}
            onInput={(e) => set({ id: (e.target as HTMLInputElement).value })}
          />
        </label>
        <label>
          Category
          <input
            name="category"
            value={draft.category}
            onInput={(e) => set({ category: (e.target as HTMLInputElement).value })}
          />
        </label>
      </div>
      <label>
        Name
        <input
          name="name"
          value={draft.name}
          onInput={(e) => set({ name: (e.target as HTMLInputElement).value })}
        />
      </label>
      <label>
        Business description (what the model reads)
        <textarea
          name="description"
          rows={3}
          value={draft.description}
          onInput={(e) => set({ description: (e.target as HTMLTextAreaElement).value })}
        />
      </label>
      <label for="sql">SQL template</label>
      <SqlEditor
        id="sql"
        label="SQL template"
        value={draft.sql}
        mark={mark}
        onInput={(sql) => set({ sql })}
      />
    </>
  );
}

/** The report's filters, one row each: name, type, required, enum values, default, description. */
export function FilterRows({ draft, set, update }: DraftProps) {
  const setFilter = (i: number, patch: Partial<FilterRow>) =>
    update((d) => ({
      ...d,
      filters: d.filters.map((f, j) => (j === i ? { ...f, ...patch } : f)),
    }));
  return (
    <fieldset>
      <legend>Filters</legend>
      {draft.filters.map((f, i) => (
        <div class="subrow" data-filter={i}>
          <input
            aria-label={`filter ${i + 1} name`}
            placeholder="name"
            value={f.name}
            onInput={(e) => setFilter(i, { name: (e.target as HTMLInputElement).value })}
          />
          <select
            aria-label={`filter ${i + 1} type`}
            value={f.type}
            onChange={(e) => setFilter(i, { type: (e.target as HTMLSelectElement).value })}
          >
            {FILTER_TYPES.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
          <label class="inline">
            <input
              type="checkbox"
              checked={f.required}
              onChange={(e) => setFilter(i, { required: (e.target as HTMLInputElement).checked })}
            />
            required
          </label>
          <input
            aria-label={`filter ${i + 1} enum values`}
            placeholder="enum values, comma-separated"
            value={f.enumValues}
            onInput={(e) => setFilter(i, { enumValues: (e.target as HTMLInputElement).value })}
          />
          <input
            aria-label={`filter ${i + 1} default`}
            placeholder="default (JSON)"
            value={f.defaultValue}
            onInput={(e) => setFilter(i, { defaultValue: (e.target as HTMLInputElement).value })}
          />
          <input
            aria-label={`filter ${i + 1} description`}
            placeholder="description"
            value={f.description}
            onInput={(e) => setFilter(i, { description: (e.target as HTMLInputElement).value })}
          />
          <button
            type="button"
            aria-label={`remove filter ${i + 1}`}
            onClick={() => set({ filters: draft.filters.filter((_, j) => j !== i) })}
          >
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() =>
          set({
            filters: [
              ...draft.filters,
              {
                name: '',
                type: 'string',
                required: false,
                enumValues: '',
                defaultValue: '',
                description: '',
              },
            ],
          })
        }
      >
        Add filter
      </button>
    </fieldset>
  );
}

/** The report's output fields, one row each: name, type, description. */
export function FieldRows({ draft, set, update }: DraftProps) {
  const setField = (i: number, patch: Partial<FieldRow>) =>
    update((d) => ({ ...d, fields: d.fields.map((f, j) => (j === i ? { ...f, ...patch } : f)) }));
  return (
    <fieldset>
      <legend>Fields</legend>
      {draft.fields.map((f, i) => (
        <div class="subrow" data-field={i}>
          <input
            aria-label={`field ${i + 1} name`}
            placeholder="name"
            value={f.name}
            onInput={(e) => setField(i, { name: (e.target as HTMLInputElement).value })}
          />
          <select
            aria-label={`field ${i + 1} type`}
            value={f.type}
            onChange={(e) => setField(i, { type: (e.target as HTMLSelectElement).value })}
          >
            {FIELD_TYPES.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
          <input
            aria-label={`field ${i + 1} description`}
            placeholder="description"
            value={f.description}
            onInput={(e) => setField(i, { description: (e.target as HTMLInputElement).value })}
          />
          <button
            type="button"
            aria-label={`remove field ${i + 1}`}
            onClick={() => set({ fields: draft.fields.filter((_, j) => j !== i) })}
          >
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() =>
          set({ fields: [...draft.fields, { name: '', type: 'string', description: '' }] })
        }
      >
        Add field
      </button>
    </fieldset>
  );
}
