/**
 * Orders: the list (GET /orders, cursor envelope, newest first), filtered by status, paged by the API's
 * own links; finding an order by its id.
 *
 * @typedef {import('../types.js').Order} Order
 * @typedef {import('../types.js').CursorPage<Order>} OrderPage
 * @typedef {{ api: import('../api.js').Api, user: import('../types.js').CurrentUser, route: import('../router.js').Route }} ViewProps
 */
import { html } from '../html.js';
import { useEffect, useState } from '../vendor/hooks.js';
import { Loading, Pager, ProblemMessage, StatusBadge, Time, ViewHeading, useLoad } from '../components.js';
import { href, navigate } from '../router.js';
import { formatMoney, shortId, uuidPattern } from '../lib/format.js';
import { scopeOf } from '../lib/permissions.js';
import { orderStatuses } from '../lib/vocabulary.js';

const perPage = '20';

/** The console's link for a link of the API's cursor envelope (`/orders?cursor=...`). @param {string | null} link */
const viewLink = (link) => (link === null ? null : `#/orders?${link.split('?')[1] ?? ''}`);

/** @param {ViewProps} props */
export const OrdersView = ({ api, user, route }) => {
  const status = route.query.get('status') ?? '';
  const cursor = route.query.get('cursor') ?? '';
  const ownOnly = scopeOf(user.roles, 'listOrders') === 'own';
  useEffect(() => {
    document.title = 'Orders · Order console';
  }, []);
  const orders = useLoad(async () => {
    const query = new URLSearchParams({ cursor, perPage, ...(status ? { status } : {}) });
    return /** @type {OrderPage} */ ((await api.get(`/orders?${query}`)).body);
  }, [status, cursor]);
  const [wanted, setWanted] = useState('');
  const [searchError, setSearchError] = useState('');

  /** @param {SubmitEvent} event */
  const find = (event) => {
    event.preventDefault();
    const id = wanted.trim().toLowerCase();
    if (!uuidPattern.test(id)) {
      setSearchError('An order id is a UUID, such as 0198c3a2-5f1e-7c3b-9a41-2b6d8e0f1a2c.');
      return;
    }
    setSearchError('');
    navigate(href(`/orders/${id}`));
  };

  return html`<section aria-labelledby="view-heading">
    <${ViewHeading}>${ownOnly ? 'My orders' : 'Orders'}</${ViewHeading}>
    <div class="toolbar">
      <form class="inline-form" role="search" aria-label="Find an order" onSubmit=${find}>
        <label for="order-id">Order id</label>
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
          onChange=${(/** @type {Event} */ event) =>
            navigate(
              href('/orders', { status: /** @type {HTMLSelectElement} */ (event.currentTarget).value }),
            )}
        >
          <option value="">Any status</option>
          ${orderStatuses.map((name) => html`<option value=${name}>${name}</option>`)}
        </select>
      </div>
    </div>
    <${ProblemMessage} error=${orders.error} context="The orders could not be read" />
    ${orders.loading && !orders.data ? html`<${Loading} label="Loading the orders…" />` : null}
    ${orders.data ? html`<${OrderTable} page=${orders.data} status=${status} showCustomer=${!ownOnly} />` : null}
  </section>`;
};

/** @param {{ page: OrderPage, status: string, showCustomer: boolean }} props */
const OrderTable = ({ page, status, showCustomer }) => {
  if (page.data.length === 0) {
    return html`<p class="empty">${status ? `No ${status} orders.` : 'No orders yet.'}</p>`;
  }
  return html`<div class="table-wrap">
      <table class="orders">
        <caption class="visually-hidden">
          ${status ? `Orders with the status ${status}` : 'Orders'}, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Status</th>
            ${showCustomer ? html`<th scope="col">Customer</th>` : null}
            <th scope="col">Items</th>
            <th scope="col" class="number">Total</th>
            <th scope="col">Placed</th>
            <th scope="col">Last change</th>
          </tr>
        </thead>
        <tbody>
          ${page.data.map(
            (order) => html`<tr>
              <th scope="row"><a href=${href(`/orders/${order.id}`)} title=${order.id}><code>${shortId(order.id)}</code><span class="visually-hidden"> (${order.id})</span></a></th>
              <td><${StatusBadge} status=${order.status} /></td>
              ${showCustomer ? html`<td><code title=${order.customerId}>${shortId(order.customerId)}</code></td>` : null}
              <td>${order.items.map((item) => `${item.quantity} × ${item.productName}`).join(', ')}</td>
              <td class="number">${formatMoney(order.total)}</td>
              <td><${Time} iso=${order.createdAt} /></td>
              <td><${Time} iso=${order.updatedAt} /></td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <${Pager} label="Pages of orders" prev=${viewLink(page.links.prev)} next=${viewLink(page.links.next)} />`;
};
