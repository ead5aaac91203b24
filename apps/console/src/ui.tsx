import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

/** A date as the operator reads it (their locale), or a dash. */
export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** Runs `load` now and on `reload()`; keeps its result, its error and whether it is running. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const run = useCallback(() => {
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load().then(
      (data) => setState({ data, loading: false }),
      (error) => setState({ error: messageOf(error), loading: false }),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** An action's button: disabled while it runs; a failure shows beside it (announced to screen readers). */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}

export function Alert({ children, tone = 'error' }: { children: ComponentChildren; tone?: 'error' | 'info' | 'success' }) {
  return (
    <div class={`alert alert-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function Field({ label, hint, children, id }: { label: string; hint?: string; children: ComponentChildren; id: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export function Badge({ children, tone = 'neutral' }: { children: ComponentChildren; tone?: 'neutral' | 'good' | 'bad' | 'warn' }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

export function Card({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <header class="card-head">
        <h2>{title}</h2>
        {actions ? <div class="card-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** Text shown once (a new API key): selectable, with a copy button. */
export function Secret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret">
      <span class="secret-label">{label}</span>
      <code class="secret-value" data-testid="secret">
        {value}
      </code>
      <button
        type="button"
        class="button button-small"
        onClick={() => navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false))}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

/**
 * A table with a hidden caption and column headers (an empty header is an actions column, named
 * for screen readers), its rows, and `empty` in one full-width row when there are none.
 */
export function DataTable(props: { caption: string; headers: string[]; rows: ComponentChildren[] | undefined; empty: string }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.headers.map((header) => (
              <th scope="col" key={header}>
                {header || <span class="visually-hidden">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows}
          {props.rows && props.rows.length === 0 ? (
            <tr>
              <td colSpan={props.headers.length} class="empty">
                {props.empty}
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}

/** A search box with its (visually hidden) label and button; `onSearch` gets the trimmed text. */
export function SearchForm({ id, label, placeholder, onSearch }: { id: string; label: string; placeholder: string; onSearch(text: string): void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="toolbar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(text.trim());
      }}
    >
      <label class="visually-hidden" for={id}>
        {label}
      </label>
      <input id={id} type="search" placeholder={placeholder} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <button class="button" type="submit">
        Search
      </button>
    </form>
  );
}

/**
 * A keyset-paged, searchable list: `load(search, cursor)` fetches a page; previous pages are the
 * cursors kept on a stack (the API pages forward only). A new search starts at the first page.
 */
export function usePagedSearch<T extends { nextCursor: string | null }>(load: (search: string, cursor: string | undefined) => Promise<T>, deps: unknown[]) {
  const [search, setSearchText] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const page = useLoad(() => load(search, cursor), [...deps, search, cursor]);
  const pager = (
    <Pager
      hasPrevious={cursors.length > 0}
      next={page.data?.nextCursor ?? null}
      onPrevious={() => setCursors(cursors.slice(0, -1))}
      onNext={(next) => setCursors([...cursors, next])}
    />
  );
  const setSearch = (text: string) => {
    setCursors([]);
    setSearchText(text);
  };
  return { page, search, setSearch, pager };
}

function Pager(props: { hasPrevious: boolean; next: string | null; onPrevious(): void; onNext(cursor: string): void }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button class="button" type="button" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        Previous
      </button>
      <button class="button" type="button" disabled={!props.next} onClick={() => props.next && props.onNext(props.next)}>
        Next
      </button>
    </nav>
  );
}

/** JSON typed by the operator that must be an object (meta, default meta), or why it is not. */
export function parseJsonObject(text: string, what: string): { value?: Record<string, unknown>; problem?: string } {
  try {
    const value = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: `${what} must be a JSON object, such as {"plan": "pro"}.` };
    return { value };
  } catch (e) {
    return { problem: `${what} is not valid JSON: ${(e as Error).message}` };
  }
}

/** A small button acting on one row of a table; `label` names the row for screen readers. */
export function RowButton({ label, text, onClick }: { label: string; text: string; onClick(): void }) {
  return (
    <button class="button button-small button-danger" type="button" aria-label={label} onClick={onClick}>
      {text}
    </button>
  );
}

/** A checkbox with its label beside it. */
export function CheckField({ id, label, checked, onChange }: { id: string; label: string; checked: boolean; onChange(checked: boolean): void }) {
  return (
    <div class="field field-check">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      <label for={id}>{label}</label>
    </div>
  );
}
