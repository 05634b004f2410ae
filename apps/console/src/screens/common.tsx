import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../api';

/** Loads with `load`, again on `reload()`; keeps the last good value while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [value, setValue] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const reload = useCallback(() => {
    setLoading(true);
    load().then(
      (v) => {
        setValue(v);
        setError(undefined);
        setLoading(false);
      },
      (err: unknown) => {
        setError(describeError(err));
        setLoading(false);
      },
    );
  }, deps);
  useEffect(reload, [reload]);
  return { value, error, loading, reload };
}

export function ErrorNote(props: { error?: string }) {
  return props.error ? (
    <p class="error" role="alert">
      {props.error}
    </p>
  ) : null;
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '';
}

/** "1 row", "3 rows": a count with its noun in the right number. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A chart the gateway drew as SVG, shown as a picture (no script of it ever runs). */
export function ChartImage(props: {
  chart?: { svg?: string; error?: string };
  label: string;
  testId?: string;
}) {
  const { chart } = props;
  if (!chart) return null;
  if (chart.error)
    return (
      <p class="muted" data-testid={props.testId}>
        No chart: {chart.error}
      </p>
    );
  if (!chart.svg) return null;
  const src = `data:image/svg+xml;base64,${btoa(unescape(encodeURIComponent(chart.svg)))}`;
  return <img class="chart" src={src} alt={props.label} data-testid={props.testId} />;
}

/** A modal yes/no question; `open` is its text (undefined: closed). */
export function Confirm(props: { open: string | undefined; onAnswer: (yes: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (props.open && ref.current && !ref.current.open) ref.current.showModal();
    if (!props.open && ref.current?.open) ref.current.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-text" onCancel={() => props.onAnswer(false)}>
      <p id="confirm-text">{props.open}</p>
      <div class="actions">
        <button type="button" onClick={() => props.onAnswer(false)}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => props.onAnswer(true)}>
          Confirm
        </button>
      </div>
    </dialog>
  );
}
