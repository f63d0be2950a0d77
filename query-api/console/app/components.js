/** Pieces every view uses: loading, problems in words, badges, times, JSON with erased values. */
import { html } from './html.js';
import { useCallback, useEffect, useRef, useState } from './vendor/hooks.js';
import { ApiProblem } from './api.js';
import { erasedValue } from './lib/state-diff.js';
import { formatTime } from './lib/format.js';

/**
 * Loads something when the view opens and when `deps` change: `{ data, error, loading, reload }`.
 *
 * @template T
 * @param {() => Promise<T>} load
 * @param {unknown[]} deps
 */
export const useLoad = (load, deps) => {
  /** @typedef {{ data: T | undefined, error: ApiProblem | null, loading: boolean }} LoadState */
  const [state, setState] = useState(
    /** @type {LoadState} */ ({ data: undefined, error: null, loading: true }),
  );
  const generation = useRef(0);
  // Keeps what was shown while it loads again (a live refresh does not blank the view). Resolves with
  // what it loaded (undefined when that failed), for a caller that waits for it.
  const reload = useCallback(async () => {
    const current = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    try {
      const data = await load();
      if (current === generation.current) setState({ data, error: null, loading: false });
      return data;
    } catch (error) {
      if (current === generation.current)
        setState({ data: undefined, error: asProblem(error), loading: false });
      return undefined;
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { ...state, reload };
};

/** @param {unknown} error @returns {ApiProblem} */
export const asProblem = (error) =>
  error instanceof ApiProblem ? error : new ApiProblem(0, { detail: String(error) });

/**
 * A problem in words. `outcome`, when the problem is what an action came to: the action's ref
 * (useAction), which the message then takes so that the focus can go to it.
 *
 * @param {{ error: ApiProblem | null, context?: string, outcome?: import('./vendor/preact.js').RefObject<HTMLElement | null> }} props
 */
export const ProblemMessage = ({ error, context, outcome }) => {
  if (!error) return null;
  const { title, detail, hints } = error.words;
  return html`<div class="problem" role="alert" tabindex="-1" ref=${outcome}>
    <p class="problem-title"><strong>${context ? `${context}: ` : ''}${title}</strong>${error.status ? html` <span class="status-code">(${error.status})</span>` : null}</p>
    <p>${detail}</p>
    ${hints.length > 0 ? html`<ul>${hints.map((hint) => html`<li>${hint}</li>`)}</ul>` : null}
  </div>`;
};

/** @param {{ label?: string }} props */
export const Loading = ({ label = 'Loading…' }) => html`<p class="loading" role="status">${label}</p>`;

/** @param {{ status: string }} props */
export const StatusBadge = ({ status }) => html`<span class="badge status-${status}">${status}</span>`;

export const ErasedBadge = () =>
  html`<span class="badge erased" title="Personal data erased on request">erased</span>`;

/** @param {{ iso: string | null | undefined }} props */
export const Time = ({ iso }) =>
  iso ? html`<time datetime=${iso}>${formatTime(iso)}</time>` : html`<span class="muted">—</span>`;

/**
 * A JSON value as nested lists: what an event carries, or a state of an order. Strings that are exactly
 * "[erased]" show as an "erased" badge; paths in `changed` are highlighted (and named so to screen readers).
 *
 * @param {{ value: unknown, changed?: Set<string>, path?: string }} props
 * @returns {any}
 */
export const JsonValue = ({ value, changed, path = '' }) => {
  const mark = (/** @type {any} */ content) =>
    changed?.has(path) && path !== ''
      ? html`<mark>${content}<span class="visually-hidden"> (changed)</span></mark>`
      : content;
  if (value === erasedValue) return mark(html`<${ErasedBadge} />`);
  if (value === null) return mark(html`<span class="json-null">null</span>`);
  if (Array.isArray(value)) {
    if (value.length === 0) return mark(html`<span class="json-empty">[ ]</span>`);
    return html`<ol class="json-list" start="0">
      ${value.map(
        (item, index) =>
          html`<li class=${changed?.has(`${path}[${index}]`) ? 'changed' : ''}>
            <${JsonValue} value=${item} changed=${changed} path=${`${path}[${index}]`} />
          </li>`,
      )}
    </ol>`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(/** @type {Record<string, unknown>} */ (value));
    if (entries.length === 0) return mark(html`<span class="json-empty">{ }</span>`);
    return html`<dl class="json-object">
      ${entries.map(([key, item]) => {
        const itemPath = path === '' ? key : `${path}.${key}`;
        return html`<div class=${changed?.has(itemPath) ? 'changed' : ''}>
          <dt>${key}</dt>
          <dd><${JsonValue} value=${item} changed=${changed} path=${itemPath} /></dd>
        </div>`;
      })}
    </dl>`;
  }
  return mark(
    html`<span class=${`json-${typeof value}`}>${typeof value === 'string' ? value : JSON.stringify(value)}</span>`,
  );
};

/**
 * Previous and next links of a cursor envelope; nothing when there is only the one page.
 *
 * @param {{ label: string, prev: string | null, next: string | null }} props
 */
export const Pager = ({ label, prev, next }) =>
  // One page: nothing to page through.
  prev === null && next === null
    ? null
    : html`<nav class="pager" aria-label=${label}>
    ${prev ? html`<a class="button secondary" href=${prev}>← Previous</a>` : html`<span class="button secondary disabled" aria-disabled="true">← Previous</span>`}
    ${next ? html`<a class="button secondary" href=${next}>Next →</a>` : html`<span class="button secondary disabled" aria-disabled="true">Next →</span>`}
  </nav>`;

/**
 * Runs an action once at a time: `{ run, busy, error, done, outcome }`, `done` being what the last success
 * said. `outcome` is the ref for the element that says how the last run went (its success sentence, or
 * its ProblemMessage), with tabindex="-1": the focus goes there when a run ends. Without it the focus would
 * fall to the page's body: the button pressed is disabled while the action runs, and may be gone with what
 * it did (no Confirm on a confirmed order).
 *
 * @template T
 * @param {(...args: any[]) => Promise<T>} action
 */
export const useAction = (action) => {
  const [state, setState] = useState({
    busy: false,
    error: /** @type {ApiProblem | null} */ (null),
    done: /** @type {T | null} */ (null),
    ended: 0,
  });
  const outcome = useRef(/** @type {HTMLElement | null} */ (null));
  useEffect(() => {
    if (state.ended > 0) outcome.current?.focus();
  }, [state.ended]);
  const run = async (/** @type {any[]} */ ...args) => {
    setState((previous) => ({ ...previous, busy: true, error: null, done: null }));
    try {
      const done = await action(...args);
      setState((previous) => ({ busy: false, error: null, done, ended: previous.ended + 1 }));
      return done;
    } catch (error) {
      setState((previous) => ({
        busy: false,
        error: asProblem(error),
        done: null,
        ended: previous.ended + 1,
      }));
      return undefined;
    }
  };
  return { ...state, run, outcome };
};

/**
 * The browser tab's title while a view shows: what the view is, then the console's name.
 *
 * @param {string} what
 */
export const useTitle = (what) => {
  useEffect(() => {
    document.title = `${what} · Order console`;
  }, [what]);
};

/**
 * The view's heading: the first thing focused when a view opens, so that a screen reader starts there.
 *
 * @param {{ children: any, id?: string }} props
 */
export const ViewHeading = ({ children, id = 'view-heading' }) =>
  html`<h1 id=${id} tabindex="-1">${children}</h1>`;
