import { h } from './vendor/preact.js';
import htm from './vendor/htm.js';

/** Preact elements from tagged templates (htm): JSX's syntax without a build step. */
export const html = htm.bind(h);
