/**
 * The console's entry module (GET /console loads it): reads from the page where commands go and which
 * other processes' metrics the process serving it serves, and starts the application in #console. Nothing
 * is stored in the browser: a reload signs out.
 */
import { render } from './vendor/preact.js';
import { html } from './html.js';
import { Api } from './api.js';
import { App } from './app.js';

/** @param {string} name */
const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') ?? '';
const commandBase = meta('order-console-command-base');
const processes = meta('order-console-processes').split(' ').filter(Boolean);
const root = document.getElementById('console');
if (root) {
  root.textContent = '';
  render(html`<${App} api=${new Api({ commandBase, processes })} />`, root);
}
