/** Signing in with the password grant (POST /auth/token). */
import { html } from '../html.js';
import { useEffect, useState } from '../vendor/hooks.js';
import { ProblemMessage, useAction, useTitle } from '../components.js';

/**
 * @param {{ api: import('../api.js').Api, notice: string | null }} props
 */
export const SignIn = ({ api, notice }) => {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  useTitle('Sign in');
  useEffect(() => {
    document.getElementById('view-heading')?.focus();
  }, []);
  const signIn = useAction(() => api.signIn(email.trim(), password));
  /** @param {SubmitEvent} event */
  const submit = (event) => {
    event.preventDefault();
    void signIn.run();
  };
  return html`<main id="main" class="sign-in">
    <section class="card sign-in-card" aria-labelledby="view-heading">
      <p class="brand">Order console</p>
      <h1 id="view-heading" tabindex="-1">Sign in</h1>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
      <form onSubmit=${submit}>
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value=${email}
          onInput=${(/** @type {InputEvent} */ event) => setEmail(/** @type {HTMLInputElement} */ (event.currentTarget).value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value=${password}
          onInput=${(/** @type {InputEvent} */ event) => setPassword(/** @type {HTMLInputElement} */ (event.currentTarget).value)}
        />
        <button type="submit" disabled=${signIn.busy}>${signIn.busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      <${ProblemMessage} error=${signIn.error} context="Sign-in failed" outcome=${signIn.outcome} />
      <p class="hint">
        On its first start the service printed one demo user per role (customer@example.com,
        staff@example.com, auditor@example.com, admin@example.com) with their passwords;
        ${' '}<code>npm run admin -- user:set-password --email E --password-stdin</code> sets a new one.
      </p>
      <p class="hint">Your session lives in this tab only: reloading the page signs you out.</p>
    </section>
  </main>`;
};
