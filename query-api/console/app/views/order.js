/**
 * One order as it is now (GET /orders/{id}), and the staff's actions on it: confirm, ship, deliver,
 * cancel, record a payment. Each command carries the ETag the order was read with (If-Match): a 412 says
 * someone else changed it meanwhile, a 409 says in the API's words why the move is not possible; the
 * order is then read again with the command's Consistency-Token, never older than the action.
 *
 * @typedef {import('../types.js').Order} Order
 * @typedef {import('./orders.js').ViewProps} ViewProps
 */
import { html } from '../html.js';
import { useEffect, useRef, useState } from '../vendor/hooks.js';
import {
  ErasedBadge,
  Loading,
  ProblemMessage,
  StatusBadge,
  Time,
  ViewHeading,
  useAction,
  useLoad,
  useTitle,
} from '../components.js';
import { ApiProblem } from '../api.js';
import { href } from '../router.js';
import { formatMoney, shortId } from '../lib/format.js';
import { erasedValue } from '../lib/state-diff.js';
import { addressLabels } from '../lib/sentences.js';

/**
 * The lifecycle's next step from each status (domain/orders/order-decider.ts decides; this only says which
 * button to put first).
 *
 * @type {Record<string, string>}
 */
const nextStep = { pending: 'confirm', confirmed: 'ship', shipped: 'deliver' };

/** After a 412, how many reads at most wait for the read model to show the change, and how far apart. */
const staleReadsAtMost = 20;
const staleReadPauseMs = 100;

/** @param {{ value: unknown }} props */
const Text = ({ value }) =>
  value === erasedValue
    ? html`<${ErasedBadge} />`
    : value === null || value === undefined || value === ''
      ? html`<span class="muted">—</span>`
      : String(value);

/** Money in a currency's minor units, back to a decimal amount: 3998 EUR is 39.98. @param {Order} order */
const paidOf = (order) => order.payments.reduce((sum, payment) => sum + payment.amount.amount, 0);

/** @param {number} amount @param {string} currency */
const roundToCurrency = (amount, currency) => {
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return Number(amount.toFixed(digits));
};

/** @param {ViewProps} props */
export const OrderView = ({ api, route }) => {
  const id = route.params['id'] ?? '';
  useTitle(`Order ${shortId(id)}`);
  // The ETag a command was refused with (412): the order has changed since, so the page reads it again
  // until the read model shows that change, which may trail the command API's answer by a moment.
  const refusedEtag = useRef(/** @type {string | null} */ (null));
  const order = useLoad(async () => {
    for (let attempt = 1; ; attempt++) {
      const answer = await api.get(`/orders/${encodeURIComponent(id)}`);
      if (answer.etag === null || answer.etag !== refusedEtag.current || attempt === staleReadsAtMost) {
        refusedEtag.current = null;
        return { order: /** @type {Order} */ (answer.body), etag: answer.etag };
      }
      await new Promise((resolve) => setTimeout(resolve, staleReadPauseMs));
    }
  }, [id]);
  /** @param {string | null} etag */
  const refusedWith = (etag) => {
    refusedEtag.current = etag;
  };

  return html`<section aria-labelledby="view-heading">
    <p class="breadcrumb"><a href=${href('/orders')}>Orders</a></p>
    <${ViewHeading}>Order <code>${shortId(id)}</code> ${order.data ? html`<${StatusBadge} status=${order.data.order.status} />` : null}</${ViewHeading}>
    <${ProblemMessage} error=${order.error} context="The order could not be read" />
    ${order.loading && !order.data ? html`<${Loading} label="Loading the order…" />` : null}
    ${
      order.data
        ? html`<p class="view-links"><a class="button secondary" href=${href(`/orders/${id}/timeline`)}>Timeline of this order</a></p>
          <${Actions} api=${api} order=${order.data.order} etag=${order.data.etag} reload=${order.reload} refusedWith=${refusedWith} />
          <${OrderDetails} order=${order.data.order} />`
        : null
    }
  </section>`;
};

/** @param {{ order: Order }} props */
const OrderDetails = ({ order }) => {
  const paid = paidOf(order);
  const address = order.shippingAddress ?? {};
  return html`<div class="detail-grid">
    <section class="card" aria-labelledby="summary-heading">
      <h2 id="summary-heading">Summary</h2>
      <dl class="facts">
        <div><dt>Id</dt><dd><code>${order.id}</code></dd></div>
        <div><dt>Status</dt><dd><${StatusBadge} status=${order.status} /></dd></div>
        <div><dt>Customer</dt><dd><code>${order.customerId}</code></dd></div>
        <div><dt>Total</dt><dd>${formatMoney(order.total)}</dd></div>
        <div><dt>Paid</dt><dd>${formatMoney({ amount: roundToCurrency(paid, order.total.currency), currency: order.total.currency })}</dd></div>
        ${
          order.status !== 'cancelled'
            ? html`<div><dt>Outstanding</dt><dd>${formatMoney({ amount: Math.max(0, roundToCurrency(order.total.amount - paid, order.total.currency)), currency: order.total.currency })}</dd></div>`
            : null
        }
        ${order.refundDue ? html`<div><dt>Refund due</dt><dd>${formatMoney(order.refundDue)}</dd></div>` : null}
        <div><dt>Placed</dt><dd><${Time} iso=${order.createdAt} /></dd></div>
        <div><dt>Last change</dt><dd><${Time} iso=${order.updatedAt} /></dd></div>
        <div><dt>Note</dt><dd><${Text} value=${order.note} /></dd></div>
        ${
          order.cancellationReason !== null
            ? html`<div><dt>Cancelled because</dt><dd><${Text} value=${order.cancellationReason} /></dd></div>`
            : null
        }
      </dl>
    </section>
    <section class="card" aria-labelledby="address-heading">
      <h2 id="address-heading">Shipping address</h2>
      <dl class="facts">
        ${Object.entries(address).map(([field, value]) => html`<div><dt>${addressLabels[field] ?? field}</dt><dd><${Text} value=${value} /></dd></div>`)}
      </dl>
    </section>
    ${
      order.shipment
        ? html`<section class="card" aria-labelledby="shipment-heading">
          <h2 id="shipment-heading">Shipment</h2>
          <dl class="facts">
            <div><dt>Shipped</dt><dd><${Time} iso=${order.shipment.shippedAt} /></dd></div>
            <div><dt>Carrier</dt><dd><${Text} value=${order.shipment.carrier} /></dd></div>
            <div><dt>Tracking number</dt><dd><${Text} value=${order.shipment.trackingNumber} /></dd></div>
            <div><dt>Tracking page</dt><dd>${
              order.shipment.trackingUrl
                ? html`<a href=${order.shipment.trackingUrl} rel="noreferrer noopener" target="_blank">${order.shipment.trackingUrl}</a>`
                : html`<${Text} value=${null} />`
            }</dd></div>
          </dl>
        </section>`
        : null
    }
    <section class="card wide" aria-labelledby="items-heading">
      <h2 id="items-heading">Items</h2>
      <div class="table-wrap" tabindex="0">
        <table>
          <thead><tr><th scope="col">Product</th><th scope="col">Name</th><th scope="col" class="number">Quantity</th><th scope="col" class="number">Unit price</th><th scope="col" class="number">Line total</th></tr></thead>
          <tbody>
            ${order.items.map(
              (item) => html`<tr>
                <td><code>${item.productId}</code></td>
                <td><${Text} value=${item.productName} /></td>
                <td class="number">${item.quantity}</td>
                <td class="number">${formatMoney(item.unitPrice)}</td>
                <td class="number">${formatMoney({ amount: roundToCurrency(item.unitPrice.amount * item.quantity, item.unitPrice.currency), currency: item.unitPrice.currency })}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </section>
    <section class="card wide" aria-labelledby="payments-heading">
      <h2 id="payments-heading">Payments</h2>
      ${
        order.payments.length === 0
          ? html`<p class="empty">No payment recorded.</p>`
          : html`<div class="table-wrap" tabindex="0"><table>
            <thead><tr><th scope="col">Received</th><th scope="col">Reference</th><th scope="col" class="number">Amount</th><th scope="col">Id</th></tr></thead>
            <tbody>
              ${order.payments.map(
                (payment) => html`<tr>
                  <td><${Time} iso=${payment.receivedAt} /></td>
                  <td><${Text} value=${payment.reference} /></td>
                  <td class="number">${formatMoney(payment.amount)}</td>
                  <td><code>${payment.id}</code></td>
                </tr>`,
              )}
            </tbody>
          </table></div>`
      }
    </section>
  </div>`;
};

/**
 * The actions the API says the caller may take on the order now (its `actions`: the domain decides from the
 * order's status, what is outstanding, and the caller's roles), and no other. A race can still refuse one
 * (412, 409): the answer is then shown, with the order as it is now.
 *
 * @param {{ api: import('../api.js').Api, order: Order, etag: string | null, reload: () => Promise<void>, refusedWith: (etag: string | null) => void }} props
 */
const Actions = ({ api, order, etag, reload, refusedWith }) => {
  const [reason, setReason] = useState('');
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const outstanding = roundToCurrency(order.total.amount - paidOf(order), order.total.currency);
  const [amount, setAmount] = useState(String(outstanding > 0 ? outstanding : ''));
  const [reference, setReference] = useState('');
  const [shipment, setShipment] = useState({ carrier: '', trackingNumber: '', trackingUrl: '' });
  /** @param {'carrier' | 'trackingNumber' | 'trackingUrl'} field */
  const shipmentInput = (field) => (/** @type {InputEvent} */ event) =>
    setShipment({ ...shipment, [field]: /** @type {HTMLInputElement} */ (event.currentTarget).value });
  useEffect(() => setAmount(String(outstanding > 0 ? outstanding : '')), [order.id, outstanding]);
  // The question replaces the button that asked it: focus goes to it, not back to the top of the page.
  useEffect(() => {
    if (confirmingCancel) document.getElementById('cancel-question')?.focus();
  }, [confirmingCancel]);

  const action = useAction(
    /** @param {string} name @param {string} path @param {unknown} [body] */
    async (name, path, body) => {
      try {
        await api.command(`/orders/${order.id}/${path}`, { etag, ...(body === undefined ? {} : { body }) });
      } catch (error) {
        // A 412 or 409: the order is not what this page showed; show it as it is now, with the answer.
        if (error instanceof ApiProblem && error.status === 412) refusedWith(etag);
        await reload();
        throw error;
      }
      await reload();
      return name;
    },
  );

  const offered = new Set(/** @type {string[]} */ (order.actions ?? []));
  const transitions = [
    { name: 'confirm', label: 'Confirm', done: 'Confirmed.' },
    { name: 'deliver', label: 'Mark delivered', done: 'Marked delivered.' },
  ].filter(({ name }) => offered.has(name));
  const mayShip = offered.has('ship');
  const mayCancel = offered.has('cancel');
  const mayPay = offered.has('record-payment');
  const result = html`<div class="action-result" aria-live="polite">
      ${action.busy ? html`<p class="loading">Sending…</p>` : null}
      ${action.done ? html`<p class="success" role="status" tabindex="-1" ref=${action.outcome}>${action.done}</p>` : null}
    </div>
    <${ProblemMessage} error=${action.error} context="Not done" outcome=${action.outcome} />`;
  if (offered.size === 0) return action.done || action.error ? html`<div class="card">${result}</div>` : null;
  const suggested = nextStep[order.status];

  return html`<section class="card actions" aria-labelledby="actions-heading">
    <h2 id="actions-heading">Actions</h2>
    ${
      transitions.length > 0
        ? html`<div class="button-row">
          ${transitions.map(
            ({ name, label, done }) => html`<button
              type="button"
              class=${name === suggested ? '' : 'secondary'}
              disabled=${action.busy}
              onClick=${() => action.run(done, name)}
            >${label}</button>`,
          )}
        </div>`
        : null
    }
    ${
      mayShip
        ? html`<form
          class="inline-form"
          aria-labelledby="ship-heading"
          onSubmit=${(/** @type {SubmitEvent} */ event) => {
            event.preventDefault();
            // Only what was filled in: each detail is optional, and an empty one is not sent.
            const details = Object.fromEntries(
              Object.entries(shipment)
                .map(([field, value]) => [field, value.trim()])
                .filter(([, value]) => value !== ''),
            );
            void action.run('Shipped.', 'ship', details);
          }}
        >
          <h3 id="ship-heading" class="form-title">Ship the order</h3>
          <p class="hint">Carrier and tracking are optional.</p>
          <label for="ship-carrier">Carrier</label>
          <input id="ship-carrier" maxlength="200" value=${shipment.carrier} onInput=${shipmentInput('carrier')} />
          <label for="ship-tracking-number">Tracking number</label>
          <input id="ship-tracking-number" maxlength="200" value=${shipment.trackingNumber} onInput=${shipmentInput('trackingNumber')} />
          <label for="ship-tracking-url">Tracking page (https URL)</label>
          <input id="ship-tracking-url" type="url" maxlength="200" value=${shipment.trackingUrl} onInput=${shipmentInput('trackingUrl')} />
          <button type="submit" class=${suggested === 'ship' ? '' : 'secondary'} disabled=${action.busy}>Ship</button>
        </form>`
        : null
    }
    ${
      mayPay
        ? html`<form
          class="inline-form"
          aria-labelledby="payment-heading"
          onSubmit=${(/** @type {SubmitEvent} */ event) => {
            event.preventDefault();
            void action.run('Payment recorded.', 'payments', {
              amount: { amount: Number(amount), currency: order.total.currency },
              reference: reference.trim(),
            });
          }}
        >
          <h3 id="payment-heading" class="form-title">Record a payment</h3>
          <p class="hint">Outstanding: ${formatMoney({ amount: outstanding, currency: order.total.currency })}.</p>
          <label for="payment-amount">Amount (${order.total.currency})</label>
          <input id="payment-amount" inputmode="decimal" required value=${amount} onInput=${(/** @type {InputEvent} */ event) => setAmount(/** @type {HTMLInputElement} */ (event.currentTarget).value)} />
          <label for="payment-reference">Reference</label>
          <input id="payment-reference" required maxlength="200" value=${reference} onInput=${(/** @type {InputEvent} */ event) => setReference(/** @type {HTMLInputElement} */ (event.currentTarget).value)} />
          <button type="submit" class="secondary" disabled=${action.busy}>Record payment</button>
        </form>`
        : null
    }
    ${
      mayCancel
        ? html`<form
          class="inline-form"
          aria-labelledby="cancel-heading"
          onSubmit=${(/** @type {SubmitEvent} */ event) => {
            event.preventDefault();
            if (!confirmingCancel) {
              setConfirmingCancel(true);
              return;
            }
            setConfirmingCancel(false);
            void action.run('Cancelled.', 'cancel', reason.trim() ? { reason: reason.trim() } : undefined);
          }}
        >
          <h3 id="cancel-heading" class="form-title">Cancel the order</h3>
          <label for="cancel-reason">Reason for cancelling (optional)</label>
          <input id="cancel-reason" maxlength="500" value=${reason} onInput=${(/** @type {InputEvent} */ event) => setReason(/** @type {HTMLInputElement} */ (event.currentTarget).value)} />
          ${
            confirmingCancel
              ? html`<div class="confirm-box" role="group" aria-labelledby="cancel-question">
                <p id="cancel-question" tabindex="-1">Cancel this order? A cancelled order cannot be confirmed, shipped or reopened${
                  paidOf(order) > 0 ? ', and what was paid is then owed back to the customer' : ''
                }.</p>
                <div class="button-row">
                  <button type="submit" class="danger" disabled=${action.busy}>Cancel the order</button>
                  <button type="button" class="secondary" onClick=${() => setConfirmingCancel(false)}>Keep the order</button>
                </div>
              </div>`
              : html`<button type="submit" class="danger" disabled=${action.busy}>Cancel the order…</button>`
          }
        </form>`
        : null
    }
    ${result}
  </section>`;
};
