// The app: the sign-in page until a token names a session, then the shell (header, live stream) and the pages.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, apiClient, errorMessage, type ApiClient } from './api/api-client.ts';
import { connectLiveEvents, type LiveState } from './api/live-events.ts';
import type { Session } from './api/types.ts';
import { AppContext, LiveHub, type AppContextValue } from './app-context.ts';
import { LoginPage } from './pages/login-page.tsx';
import { PageSwitch } from './pages/page-switch.tsx';
import { loadToken, storeToken } from './token-store.ts';
import { AppHeader } from './components/app-header.tsx';

const expiredMessage = 'The console refused your token (expired or revoked). Sign in again.';

/** The signed-in state: the token, its client and who it is. */
interface SignedIn {
  readonly token: string;
  readonly api: ApiClient;
  readonly session: Session;
}

/** The whole UI. */
export function App() {
  const [signedIn, setSignedIn] = useState<SignedIn | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [checking, setChecking] = useState(() => loadToken() !== null);
  const signOut = useCallback((why: string | null) => {
    storeToken(null);
    setSignedIn(null);
    setChecking(false);
    setMessage(why);
  }, []);
  const signIn = useCallback(
    async (token: string): Promise<void> => {
      // A 401 while signing in is the sign-in page's own error; only later ones end the session.
      let active = false;
      const api = apiClient(token, () => {
        if (active) signOut(expiredMessage);
      });
      const session = await api.get<Session>('/session');
      active = true;
      storeToken(token);
      setMessage(null);
      setSignedIn({ token, api, session });
    },
    [signOut],
  );
  const userSignOut = useCallback(() => signOut('You signed out.'), [signOut]);
  const expire = useCallback(() => signOut(expiredMessage), [signOut]);
  useEffect(() => {
    const stored = loadToken();
    if (stored === null) return;
    signIn(stored).then(
      () => setChecking(false),
      (e: unknown) => signOut(e instanceof ApiError && e.status === 401 ? expiredMessage : errorMessage(e)),
    );
  }, [signIn]);
  // While a stored token is checked, a quiet placeholder: the sign-in form would flash and then jump away.
  if (signedIn === null && checking && message === null)
    return (
      <p class="boot" role="status">
        Signing in…
      </p>
    );
  if (signedIn === null) return <LoginPage message={message} checking={checking} onSignIn={signIn} />;
  return <Shell signedIn={signedIn} onSignOut={userSignOut} onExpired={expire} />;
}

/** The signed-in layout: header, the live stream for every page, the current page. */
function Shell({
  signedIn,
  onSignOut,
  onExpired,
}: {
  signedIn: SignedIn;
  onSignOut: () => void;
  onExpired: () => void;
}) {
  const hub = useMemo(() => new LiveHub(), []);
  const [liveState, setLiveState] = useState<LiveState>('connecting');
  useEffect(() => {
    let wasLive = false;
    return connectLiveEvents(signedIn.token, {
      onEvent: (e) => hub.publish(e),
      onState: (s) => {
        // Back after a drop: whatever happened meanwhile was not streamed, so the pages re-read.
        if (s === 'live' && wasLive) hub.publish(null);
        if (s === 'live') wasLive = true;
        setLiveState(s);
      },
      onUnauthorized: onExpired,
    });
  }, [signedIn.token, hub, onExpired]);
  const value = useMemo<AppContextValue>(
    () => ({ api: signedIn.api, session: signedIn.session, live: hub, liveState }),
    [signedIn, hub, liveState],
  );
  return (
    <AppContext.Provider value={value}>
      {/* A button, not a #main link: the fragment is the router's. */}
      <button type="button" class="skip-link" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <AppHeader onSignOut={onSignOut} />
      <main id="main" tabIndex={-1}>
        <PageSwitch />
      </main>
    </AppContext.Provider>
  );
}
