/**
 * The console: the sign-in form until someone signs in, then the navigation and the view the URL's
 * fragment names. Each view shows only what the caller's roles may see, and a button only to whom the
 * API would let press it.
 *
 * @typedef {import('./api.js').Api} Api
 * @typedef {import('./api.js').Session} Session
 */
import { html } from './html.js';
import { useEffect, useRef, useState } from './vendor/hooks.js';
import { href, redirectFromHome, useRoute } from './router.js';
import { may } from './lib/permissions.js';
import { uuidPattern } from './lib/format.js';
import { SignIn } from './views/sign-in.js';
import { OrdersView } from './views/orders.js';
import { OrderView } from './views/order.js';
import { TimelineView } from './views/timeline.js';
import { AuditView } from './views/audit.js';
import { WebhooksView } from './views/webhooks.js';
import { WebhookView } from './views/webhook.js';
import { HealthView } from './views/health.js';
import { ViewHeading, useTitle } from './components.js';

/** @param {{ api: Api }} props */
export const App = ({ api }) => {
  const [session, setSession] = useState(/** @type {Session | null} */ (api.session));
  const [notice, setNotice] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    api.onSessionChange = (next, reason) => {
      setSession(next);
      setNotice(reason ?? null);
    };
  }, [api]);
  if (!session) return html`<${SignIn} api=${api} notice=${notice} />`;
  return html`<${Console} api=${api} session=${session} />`;
};

/**
 * @param {{ user: Session['user'] }} props
 */
const Navigation = ({ user }) => {
  const route = useRoute();
  const section = { order: 'orders', timeline: 'orders', webhook: 'webhooks' }[route.name] ?? route.name;
  const links = [
    {
      name: 'orders',
      label: user.roles.length === 1 && user.roles[0] === 'customer' ? 'My orders' : 'Orders',
      path: '/orders',
      shown: may(user, 'listOrders'),
    },
    { name: 'audit', label: 'Audit log', path: '/audit', shown: may(user, 'listAuditEvents') },
    { name: 'webhooks', label: 'Webhooks', path: '/webhooks', shown: may(user, 'listWebhooks') },
    { name: 'health', label: 'Health', path: '/health', shown: true },
  ];
  return html`<nav class="main-nav" aria-label="Sections">
    <ul>
      ${links
        .filter(({ shown }) => shown)
        .map(
          ({ name, label, path }) =>
            html`<li><a href=${href(path)} aria-current=${section === name ? 'page' : undefined}>${label}</a></li>`,
        )}
    </ul>
  </nav>`;
};

/**
 * A page in place of a view (one the roles do not open, an address of none): titled as it is headed, not
 * left with the title of the view before it.
 *
 * @param {{ heading: string, children: any }} props
 */
const Notice = ({ heading, children }) => {
  useTitle(heading);
  return html`<section aria-labelledby="view-heading"><${ViewHeading}>${heading}</${ViewHeading}>${children}</section>`;
};

/** @param {{ api: Api, session: Session }} props */
const Console = ({ api, session }) => {
  const route = useRoute();
  const { user } = session;
  const [signingOut, setSigningOut] = useState(false);
  useEffect(() => {
    if (route.name === 'home') redirectFromHome(href(may(user, 'listOrders') ? '/orders' : '/health'));
  }, [route.name]);
  // Just signed in: the focus goes to the top of the console, before the navigation, so that the
  // keyboard reaches the sections first. Then each new view's heading takes it, so keyboard and screen
  // reader users start there.
  const signedInJustNow = useRef(true);
  useEffect(() => {
    if (route.name === 'home') return; // on its way to the first view
    if (signedInJustNow.current) {
      signedInJustNow.current = false;
      document.getElementById('console-top')?.focus();
      return;
    }
    document.getElementById('view-heading')?.focus();
  }, [route.name, route.params['id']]);

  // Each view keyed by its address: another order or subscription (a pasted link, Back, Forward) starts
  // afresh, with nothing typed or answered on the one before.
  const props = { api, user, route, key: `${route.name}/${route.params['id'] ?? ''}` };
  /** A view the user's roles do not open: said so, instead of a form whose every request would be refused. */
  const notForYou = (/** @type {string} */ sentence) =>
    html`<${Notice} heading="Not available"><p>${sentence}</p></${Notice}>`;
  // Orders and subscriptions have UUIDs for ids (the API answers 404 to anything else): an address with
  // another id names nothing, and says so, instead of a view headed with the id's last 8 characters.
  const namesNoId = !uuidPattern.test(route.params['id'] ?? '');
  const noSuchOrder = () =>
    html`<${Notice} heading="No such order"><p>There is no order with this id. <a href=${href('/orders')}>Go to the orders</a></p></${Notice}>`;
  const noSuchSubscription = () =>
    html`<${Notice} heading="No such subscription"><p>There is no webhook subscription with this id. <a href=${href('/webhooks')}>Go to the webhooks</a></p></${Notice}>`;
  const view =
    {
      orders: () => html`<${OrdersView} ...${props} />`,
      order: () => (namesNoId ? noSuchOrder() : html`<${OrderView} ...${props} />`),
      timeline: () => (namesNoId ? noSuchOrder() : html`<${TimelineView} ...${props} />`),
      audit: () =>
        may(user, 'listAuditEvents')
          ? html`<${AuditView} ...${props} />`
          : notForYou('The audit log is for auditors and admins.'),
      webhooks: () =>
        may(user, 'listWebhooks')
          ? html`<${WebhooksView} ...${props} />`
          : notForYou('Webhooks are for admins.'),
      webhook: () =>
        !may(user, 'getWebhook')
          ? notForYou('Webhooks are for admins.')
          : namesNoId
            ? noSuchSubscription()
            : html`<${WebhookView} ...${props} />`,
      health: () => html`<${HealthView} ...${props} />`,
    }[route.name] ??
    (() =>
      route.name === 'home'
        ? null
        : html`<${Notice} heading="Nothing here"><p><a href=${href('/orders')}>Go to the orders</a></p></${Notice}>`);

  return html`<div class="layout" id="console-top" tabindex="-1">
    <a class="skip-link" href="#main" onClick=${(/** @type {Event} */ event) => {
      event.preventDefault();
      document.getElementById('view-heading')?.focus();
    }}>Skip to the content</a>
    <header class="top-bar">
      <p class="brand"><a href=${href('/orders')}>Order console</a></p>
      <${Navigation} user=${user} />
      <div class="who">
        <span class="who-name">${user.email}</span>
        <span class="who-roles">${user.roles.join(', ')}</span>
        <button
          type="button"
          class="secondary"
          disabled=${signingOut}
          onClick=${async () => {
            setSigningOut(true);
            await api.signOut();
          }}
        >
          Sign out
        </button>
      </div>
    </header>
    <main id="main">${view()}</main>
  </div>`;
};
