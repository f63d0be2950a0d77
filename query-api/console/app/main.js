/**
 * The console's entry module (GET /console loads it): reads where commands go from the page, and starts
 * the application in #console. Nothing is stored in the browser: a reload signs out.
 */
import { render } from './vendor/preact.js';
import { html } from './html.js';
import { Api } from './api.js';
import { App } from './app.js';

const commandBase =
  document.querySelector('meta[name="order-console-command-base"]')?.getAttribute('content') ?? '';
const root = document.getElementById('console');
if (root) {
  root.textContent = '';
  render(html`<${App} api=${new Api({ commandBase })} />`, root);
}
