import { useCallback, useEffect, useState } from 'preact/hooks';
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
