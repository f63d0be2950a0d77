/**
 * Orders: the list (GET /orders, cursor envelope, newest first), filtered by status, time of placing and
 * total, paged by the API's own links, each order with its customer's name and e-mail; finding an order by
 * its id.
 *
 * @typedef {import('../types.js').OrderPage} OrderPage
 * @typedef {{ api: import('../api.js').Api, user: import('../types.js').CurrentUser, route: import('../router.js').Route }} ViewProps
 */
import { html } from '../html.js';
import { useEffect, useRef, useState } from '../vendor/hooks.js';
import {
  ErasedBadge,
  Loading,
  Pager,
  ProblemMessage,
  StatusBadge,
  Time,
  ViewHeading,
  asProblem,
  useLoad,
  useTitle,
} from '../components.js';
import { href, navigate } from '../router.js';
import { formatMoney, shortId, uuidPattern } from '../lib/format.js';
import { scopeOf } from '../lib/permissions.js';
import { orderStatuses } from '../lib/vocabulary.js';

const perPage = '20';
/** The keys that move through a closed select's options in place. */
const browsingKeys = new Set([
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
  'PageUp',
  'PageDown',
]);
/** The short id the list shows: an order id's last 8 hex digits. */
const shortIdPattern = /^[0-9a-f]{8}$/;
/** The start of an order id a person copied: 4 to 36 of its characters (GET /orders?idStartsWith=). */
const idStartPattern = /^[0-9a-f][0-9a-f-]{3,35}$/;

/** The console's link for a link of the API's cursor envelope (`/orders?cursor=...`). @param {string | null} link */
const viewLink = (link) => (link === null ? null : `#/orders?${link.split('?')[1] ?? ''}`);

/** @param {ViewProps} props */
export const OrdersView = ({ api, user, route }) => {
  const status = route.query.get('status') ?? '';
  const cursor = route.query.get('cursor') ?? '';
  const idEndsWith = route.query.get('idEndsWith') ?? '';
  const idStartsWith = route.query.get('idStartsWith') ?? '';
  const customerEmail = route.query.get('customerEmail') ?? '';
  const placedFrom = route.query.get('placedFrom') ?? '';
  const placedTo = route.query.get('placedTo') ?? '';
  const minTotal = route.query.get('minTotal') ?? '';
  const maxTotal = route.query.get('maxTotal') ?? '';
  const filters = {
    status,
    idEndsWith,
    idStartsWith,
    customerEmail,
    placedFrom,
    placedTo,
    minTotal,
    maxTotal,
  };
  /** The list with one filter changed and the others kept. @param {Partial<typeof filters>} changed */
  const refine = (changed) => navigate(href('/orders', { ...filters, ...changed }));
  /** The day after a date (YYYY-MM-DD): "placed to" a day includes that whole day. @param {string} day */
  const dayAfter = (day) => new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
  const ownOnly = scopeOf(user.roles, 'listOrders') === 'own';
  /** Whether a filter besides the status narrows the list: an empty list then says so, not "no orders yet". */
  const narrowed = [idEndsWith, idStartsWith, customerEmail, placedFrom, placedTo, minTotal, maxTotal].some(
    Boolean,
  );
  useTitle('Orders');
  const orders = useLoad(async () => {
    const query = new URLSearchParams({
      cursor,
      perPage,
      ...(status ? { status } : {}),
      ...(idEndsWith ? { idEndsWith } : {}),
      ...(idStartsWith ? { idStartsWith } : {}),
      ...(customerEmail ? { customerEmail } : {}),
      ...(placedFrom ? { placedFrom } : {}),
      ...(placedTo ? { placedBefore: dayAfter(placedTo) } : {}),
      ...(minTotal ? { minTotal } : {}),
      ...(maxTotal ? { maxTotal } : {}),
    });
    return /** @type {OrderPage} */ ((await api.get(`/orders?${query}`)).body);
  }, [status, cursor, idEndsWith, idStartsWith, customerEmail, placedFrom, placedTo, minTotal, maxTotal]);
  const [wanted, setWanted] = useState('');
  const browsingByKeyboard = useRef(false);
  /** @param {string} chosen */
  const filterBy = (chosen) => {
    browsingByKeyboard.current = false;
    if (chosen !== status) refine({ status: chosen });
  };
  const [searchError, setSearchError] = useState('');

  /**
   * The order when one matches, else the list of those that do; false when none does.
   * @param {'idEndsWith' | 'idStartsWith'} filter @param {string} value
   */
  const openMatching = async (filter, value) => {
    const query = new URLSearchParams({ cursor: '', perPage: '2', [filter]: value });
    const found = /** @type {OrderPage} */ ((await api.get(`/orders?${query}`)).body).data;
    if (found.length === 0) return false;
    navigate(
      found.length === 1 && found[0] ? href(`/orders/${found[0].id}`) : href('/orders', { [filter]: value }),
    );
    return true;
  };

  /**
   * Opens what was typed: a whole order id; a short id (the last 8 hex digits the list shows), or else the
   * start of an id; a customer's e-mail, the list of its orders.
   *
   * @param {SubmitEvent} event
   */
  const find = async (event) => {
    event.preventDefault();
    const typed = wanted.trim().toLowerCase();
    setSearchError('');
    if (uuidPattern.test(typed)) return navigate(href(`/orders/${typed}`));
    if (typed.includes('@')) return navigate(href('/orders', { customerEmail: typed }));
    if (!idStartPattern.test(typed)) {
      setSearchError(
        'Type an order id or its start, the 8 characters the list shows (such as 0f1a2c3d), or a customer’s e-mail address.',
      );
      return;
    }
    try {
      if (shortIdPattern.test(typed) && (await openMatching('idEndsWith', typed))) return;
      if (await openMatching('idStartsWith', typed)) return;
      setSearchError(`No order you may see begins or ends with ${typed}.`);
    } catch (error) {
      setSearchError(asProblem(error).words.detail);
    }
  };

  return html`<section aria-labelledby="view-heading">
    <${ViewHeading}>${ownOnly ? 'My orders' : 'Orders'}</${ViewHeading}>
    <div class="toolbar">
      <form class="inline-form" role="search" aria-label="Find an order" onSubmit=${find}>
        <label for="order-id">Order id, short id or customer e-mail</label>
        <input
          id="order-id"
          type="search"
          spellcheck="false"
          autocomplete="off"
          value=${wanted}
          aria-describedby=${searchError ? 'order-id-error' : undefined}
          aria-invalid=${searchError ? 'true' : undefined}
          onInput=${(/** @type {InputEvent} */ event) => setWanted(/** @type {HTMLInputElement} */ (event.currentTarget).value)}
        />
        <button type="submit" class="secondary">Open</button>
        ${searchError ? html`<p id="order-id-error" class="field-error">${searchError}</p>` : null}
      </form>
      <div class="inline-form">
        <label for="status-filter">Status</label>
        <select
          id="status-filter"
          value=${status}
          onKeyDown=${(/** @type {KeyboardEvent} */ event) => {
            browsingByKeyboard.current = browsingKeys.has(event.key);
            if (event.key === 'Enter') filterBy(/** @type {HTMLSelectElement} */ (event.currentTarget).value);
          }}
          onChange=${(/** @type {Event} */ event) => {
            // Arrow keys walk through the statuses: the list is read once the choice is made (Enter, or
            // leaving the field), not at every step; a pointer's choice is made at once.
            if (!browsingByKeyboard.current)
              filterBy(/** @type {HTMLSelectElement} */ (event.currentTarget).value);
          }}
          onBlur=${(/** @type {FocusEvent} */ event) => filterBy(/** @type {HTMLSelectElement} */ (event.currentTarget).value)}
        >
          <option value="">Any status</option>
          ${orderStatuses.map((name) => html`<option value=${name}>${name}</option>`)}
        </select>
      </div>
      <div class="inline-form">
        <label for="placed-since">Placed on or after</label>
        <input id="placed-since" type="date" value=${placedFrom} onChange=${(/** @type {Event} */ event) =>
          refine({ placedFrom: /** @type {HTMLInputElement} */ (event.currentTarget).value })} />
        <label for="placed-until">Placed on or before</label>
        <input id="placed-until" type="date" value=${placedTo} onChange=${(/** @type {Event} */ event) =>
          refine({ placedTo: /** @type {HTMLInputElement} */ (event.currentTarget).value })} />
      </div>
      <${TotalSpan} minTotal=${minTotal} maxTotal=${maxTotal} onApply=${refine} />
    </div>
    ${
      idEndsWith || idStartsWith || customerEmail
        ? html`<p class="filter-note" role="status">
          ${
            idEndsWith
              ? html`Orders whose id ends with <code>${idEndsWith}</code>.`
              : idStartsWith
                ? html`Orders whose id begins with <code>${idStartsWith}</code>.`
                : html`Orders of <strong>${customerEmail}</strong>.`
          }
          <a href=${href('/orders', { status })}>Show every order</a>
        </p>`
        : null
    }
    <${ProblemMessage} error=${orders.error} context="The orders could not be read" />
    ${orders.loading && !orders.data ? html`<${Loading} label="Loading the orders…" />` : null}
    ${orders.data ? html`<${OrderTable} page=${orders.data} status=${status} narrowed=${narrowed} showCustomer=${!ownOnly} />` : null}
  </section>`;
};

/**
 * A number field takes `1e3` as well as `1000`; the API takes decimals only, so what the browser read as a
 * number is sent written out (anything else as typed, for the API to say what is wrong with it).
 *
 * @param {string} typed
 */
const plainDecimal = (typed) => {
  const value = Number(typed);
  return typed.trim() !== '' && Number.isFinite(value) && Math.abs(value) < 1e21 ? String(value) : typed;
};

/**
 * Total from / to, applied together (Enter, or Apply): what is typed in one field stays while the list is
 * read again, and both bounds go in one request.
 * @param {{ minTotal: string, maxTotal: string, onApply: (span: { minTotal: string, maxTotal: string }) => void }} props
 */
const TotalSpan = ({ minTotal, maxTotal, onApply }) => {
  const [typed, setTyped] = useState({ minTotal, maxTotal });
  useEffect(() => setTyped({ minTotal, maxTotal }), [minTotal, maxTotal]);
  /** @param {'minTotal' | 'maxTotal'} bound @returns {(event: InputEvent) => void} */
  const typing = (bound) => (event) => {
    const value = /** @type {HTMLInputElement} */ (event.currentTarget).value;
    setTyped((before) => ({ ...before, [bound]: value }));
  };
  return html`<form class="inline-form" aria-label="Total" onSubmit=${(/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    onApply({ minTotal: plainDecimal(typed.minTotal), maxTotal: plainDecimal(typed.maxTotal) });
  }}>
    <label for="total-from">Total from</label>
    <input id="total-from" class="amount" type="number" inputmode="decimal" min="0" step="0.01"
      value=${typed.minTotal} onInput=${typing('minTotal')} />
    <label for="total-to">to</label>
    <input id="total-to" class="amount" type="number" inputmode="decimal" min="0" step="0.01"
      value=${typed.maxTotal} onInput=${typing('maxTotal')} />
    <button type="submit" class="secondary">Apply</button>
  </form>`;
};

/** @param {{ page: OrderPage, status: string, narrowed: boolean, showCustomer: boolean }} props */
const OrderTable = ({ page, status, narrowed, showCustomer }) => {
  if (page.data.length === 0 && narrowed) {
    return html`<p class="empty">
      No ${status ? `${status} ` : ''}orders match these filters.${' '}
      <a href=${href('/orders', { status })}>Clear the filters</a>
    </p>`;
  }
  if (page.data.length === 0) {
    return html`<p class="empty">${status ? `No ${status} orders.` : 'No orders yet.'}</p>`;
  }
  return html`<div class="table-wrap" tabindex="0">
      <table class="orders">
        <caption class="visually-hidden">
          ${status ? `Orders with the status ${status}` : 'Orders'}, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Status</th>
            ${showCustomer ? html`<th scope="col" class="optional">Customer</th>` : null}
            <th scope="col" class="optional">Items</th>
            <th scope="col" class="number">Total</th>
            <th scope="col">Placed</th>
            <th scope="col" class="optional">Last change</th>
          </tr>
        </thead>
        <tbody>
          ${page.data.map(
            (order) => html`<tr>
              <th scope="row"><a href=${href(`/orders/${order.id}`)} title=${order.id}><code>${shortId(order.id)}</code><span class="visually-hidden"> (${order.id})</span></a></th>
              <td><${StatusBadge} status=${order.status} /></td>
              ${showCustomer ? html`<td class="optional"><${CustomerCell} id=${order.customerId} customer=${page.customers[order.customerId]} /></td>` : null}
              <td class="optional">${order.items.map((item) => `${item.quantity} × ${item.productName}`).join(', ')}</td>
              <td class="number">${formatMoney(order.total)}</td>
              <td><${Time} iso=${order.createdAt} /></td>
              <td class="optional"><${Time} iso=${order.updatedAt} /></td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <${Pager} label="Pages of orders" prev=${viewLink(page.links.prev)} next=${viewLink(page.links.next)} />`;
};

/**
 * Who placed the order: the name, and the e-mail as a link to that customer's orders; an erased customer
 * reads [erased], with no link; one the API does not name (none of the accounts), its short id.
 * @param {{ id: string, customer: import('../types.js').OrderCustomers[string] | undefined }} props
 */
const CustomerCell = ({ id, customer }) => {
  if (!customer) return html`<code title=${id}>${shortId(id)}</code>`;
  if (!customer.email.includes('@')) return html`<${ErasedBadge} />`;
  return html`<span class="customer-name">${customer.name}</span>
    <a class="customer-email" href=${href('/orders', { customerEmail: customer.email })}>${customer.email}</a>`;
};
