// Sign-in: a token (fleet-config token or a Kubernetes one the console reviews), checked against /session.
import { useId, useState } from 'preact/hooks';
import { errorMessage } from '../api/api-client.ts';

/** The sign-in page; `message` says why the reader is here (signed out, token refused). */
export function LoginPage(p: {
  message: string | null;
  checking: boolean;
  onSignIn: (token: string) => Promise<void>;
}) {
  const id = useId();
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (token.trim() === '' || busy) return;
    setBusy(true);
    setError(null);
    try {
      await p.onSignIn(token.trim());
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };
  return (
    <main id="main" class="login">
      <h1>Portolan console</h1>
      <p class="muted">The history of every snapshot, apply and drift of your load balancers.</p>
      {p.message !== null && (
        <p class="banner banner-info" role="status" data-testid="login-message">
          {p.message}
        </p>
      )}
      {error !== null && (
        <p class="banner banner-error" role="alert" data-testid="error-banner">
          {error}
        </p>
      )}
      <form class="login-form" onSubmit={submit} data-testid="login-form">
        <label for={`${id}-token`}>Access token</label>
        <input
          id={`${id}-token`}
          type="password"
          autoComplete="current-password"
          spellcheck={false}
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          data-testid="token-input"
          aria-describedby={`${id}-hint`}
        />
        <p id={`${id}-hint`} class="hint">
          A console token (<code>portolan console token</code>) or a Kubernetes token the console accepts. It is kept in
          this tab only.
        </p>
        <button type="submit" class="primary" disabled={busy || p.checking} data-testid="sign-in">
          {busy || p.checking ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
