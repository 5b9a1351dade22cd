// The header of every signed-in page: the console's name, the fleet link, the live indicator and who is signed in.
import { useApp } from '../app-context.ts';
import { href } from '../router.ts';

const liveText = { connecting: 'Connecting…', live: 'Live', retrying: 'Reconnecting…', closed: 'Offline' } as const;

/** The header. */
export function AppHeader({ onSignOut }: { onSignOut: () => void }) {
  const { session, liveState } = useApp();
  return (
    <header class="app-header">
      <a class="brand" href={href.fleet()}>
        Portolan console
      </a>
      <nav aria-label="Main">
        <a href={href.fleet()}>Fleet</a>
      </nav>
      <span
        class={`live live-${liveState}`}
        role="status"
        data-testid="live-indicator"
        data-state={liveState}
        title="Updates from the console's event stream"
      >
        <span class="live-dot" aria-hidden="true" />
        {liveText[liveState]}
      </span>
      <span class="who" data-testid="session-user">
        {session.name} <span class="role">({session.role})</span>
      </span>
      <button type="button" class="button-small" onClick={onSignOut} data-testid="sign-out">
        Sign out
      </button>
    </header>
  );
}
