import hljs from 'highlight.js/lib/core';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import pgsql from 'highlight.js/lib/languages/pgsql';
import { useRef } from 'preact/hooks';

hljs.registerLanguage('pgsql', pgsql);
hljs.registerLanguage('javascript', javascript);
hljs.registerLanguage('json', json);

/** highlight.js escapes its input: the HTML it returns holds only its own spans. */
function highlight(code: string, language: string): string {
  return code ? hljs.highlight(code, { language, ignoreIllegals: true }).value : '';
}

export interface Mark {
  start: number;
  end: number;
}

/**
 * A plain textarea over a highlighted copy of its text (same font, same wrapping): typing,
 * selection, undo and accessibility are the browser's own.
 */
export function SqlEditor(props: {
  id: string;
  value: string;
  onInput: (value: string) => void;
  mark?: Mark;
  label: string;
}) {
  const pre = useRef<HTMLPreElement>(null);
  const { value, mark } = props;
  let html: string;
  if (mark && mark.end > mark.start && mark.end <= value.length) {
    html =
      highlight(value.slice(0, mark.start), 'pgsql') +
      `<mark class="offending">${highlight(value.slice(mark.start, mark.end), 'pgsql')}</mark>` +
      highlight(value.slice(mark.end), 'pgsql');
  } else {
    html = highlight(value, 'pgsql');
  }
  return (
    <div class="editor">
      <pre class="editor-highlight hljs" aria-hidden="true" ref={pre}>
        <code dangerouslySetInnerHTML={{ __html: `${html}\n` }} />
      </pre>
      <textarea
        id={props.id}
        class="editor-input"
        aria-label={props.label}
        spellcheck={false}
        autocomplete="off"
        value={value}
        onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)}
        onScroll={(e) => {
          const t = e.target as HTMLTextAreaElement;
          if (pre.current) {
            pre.current.scrollTop = t.scrollTop;
            pre.current.scrollLeft = t.scrollLeft;
          }
        }}
      />
    </div>
  );
}

/** Read-only highlighted code with line numbers. */
export function CodeView(props: {
  code: string;
  language: 'javascript' | 'json' | 'pgsql';
  label: string;
}) {
  const lines = props.code.split('\n').length;
  return (
    <figure class="code" aria-label={props.label}>
      <pre class="gutter" aria-hidden="true">
        {Array.from({ length: lines }, (_, i) => i + 1).join('\n')}
      </pre>
      <pre class="hljs code-body" tabIndex={0}>
        <code dangerouslySetInnerHTML={{ __html: highlight(props.code, props.language) }} />
      </pre>
    </figure>
  );
}
