import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import 'highlight.js/styles/github.css';
import './style.css';
import { forget, identityOf, initialIdentity, remember, whenUnauthenticated } from './api';
import type { Identity } from './api';
import { AccessScreen } from './screens/access';
import { AuthorScreen } from './screens/author/author-screen';
import { CatalogScreen } from './screens/catalog';
import { HealthScreen } from './screens/health';
import { ReviewScreen } from './screens/review';
import { SourcesScreen } from './screens/sources';
import { UsageScreen } from './screens/usage';

const SCREENS = [
  { path: 'catalog', title: 'Catalog' },
  { path: 'author', title: 'Author a report' },
  { path: 'usage', title: 'Usage' },
  { path: 'sources', title: 'Sources' },
  { path: 'access', title: 'Who sees what' },
  { path: 'review', title: 'Review tools' },
  { path: 'health', title: 'Health' },
] as const;

function route(): { screen: string; arg?: string } {
  // a sign-in link (#token=...) is read by the App and leaves the address at once: whichever
  // hashchange listener runs first, it is the catalog, never "No such screen"
  if (/(?:^#|&)token=/.test(location.hash)) return { screen: 'catalog' };
  const [screen, arg] = location.hash.replace(/^#\/?/, '').split('/');
  return { screen: screen || 'catalog', arg: arg ? decodeURIComponent(arg) : undefined };
}

function useRoute() {
  const [current, setCurrent] = useState(route());
  useEffect(() => {
    const update = () => setCurrent(route());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return current;
}

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}

function expiry(identity: Identity, now: number): string {
  if (identity.exp === undefined) return 'no expiry in the token';
  const left = Math.round(identity.exp - now / 1000);
  const at = new Date(identity.exp * 1000).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
  });
  if (left <= 0) return `expired at ${at}`;
  const minutes = Math.floor(left / 60);
  return `expires at ${at} (in ${minutes > 0 ? `${minutes} min` : `${left} s`})`;
}

function SignIn(props: { message?: string; onSignIn: (identity: Identity) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  return (
    <main class="signin">
      <h1>Report tool gateway console</h1>
      {props.message && (
        <p class="notice" role="status">
          {props.message}
        </p>
      )}
      <p>
        Open the link printed by{' '}
        <code>npm run --silent console-url -- --tenant acme --user ada --roles admin</code>, or
        paste a token the API accepts.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const identity = identityOf(token);
          if (!identity) setError('that is not a token with tenant and sub claims');
          else props.onSignIn(identity);
        }}
      >
        <label for="token">Token</label>
        <textarea
          id="token"
          rows={4}
          value={token}
          onInput={(e) => setToken((e.target as HTMLTextAreaElement).value)}
        />
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

function App() {
  const [identity, setIdentity] = useState<Identity | undefined>(initialIdentity);
  const [message, setMessage] = useState<string>();
  const { screen, arg } = useRoute();
  const now = useNow(15_000);
  useEffect(() => {
    // a sign-in link pasted into an open tab changes only the fragment: sign in with it
    const signInFromLink = () => {
      if (!/(?:^#|&)token=/.test(location.hash)) return;
      const next = initialIdentity();
      if (next) {
        setMessage(undefined);
        setIdentity(next);
      }
    };
    addEventListener('hashchange', signInFromLink);
    return () => removeEventListener('hashchange', signInFromLink);
  }, []);
  useEffect(() => {
    whenUnauthenticated((m) => {
      forget();
      setIdentity(undefined);
      setMessage(`Signed out: the gateway refused the token (${m}).`);
    });
  }, []);
  if (!identity) {
    return (
      <SignIn
        message={message}
        onSignIn={(i) => {
          remember(i);
          setMessage(undefined);
          setIdentity(i);
          location.hash = '#/catalog';
        }}
      />
    );
  }
  const expired = identity.exp !== undefined && identity.exp * 1000 <= now;
  return (
    <div class="shell">
      <header class="top">
        <span class="brand">Report tool gateway</span>
        <nav aria-label="Screens">
          {SCREENS.map((s) => (
            <a href={`#/${s.path}`} aria-current={screen === s.path ? 'page' : undefined}>
              {s.title}
            </a>
          ))}
        </nav>
        <div class="who" data-testid="who">
          <span>
            <strong>{identity.user}</strong> @ <strong>{identity.tenant}</strong>
          </span>
          <span class="roles" title={identity.roles.join(', ')}>
            {identity.roles.join(', ') || 'no roles'}
          </span>
          <span class={expired ? 'expired' : 'expiry'}>{expiry(identity, now)}</span>
          <button
            type="button"
            onClick={() => {
              forget();
              setIdentity(undefined);
              setMessage('Signed out.');
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main class="content">
        {screen === 'catalog' && <CatalogScreen identity={identity} />}
        {screen === 'author' && <AuthorScreen identity={identity} reportId={arg} />}
        {screen === 'usage' && <UsageScreen identity={identity} tool={arg} />}
        {screen === 'sources' && <SourcesScreen identity={identity} />}
        {screen === 'access' && <AccessScreen identity={identity} />}
        {screen === 'review' && <ReviewScreen identity={identity} />}
        {screen === 'health' && <HealthScreen identity={identity} />}
        {!SCREENS.some((s) => s.path === screen) && <p>No such screen.</p>}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
