/** The inspector page: the header, the sign-in gate, and the views by hash route. */
import './styles.css';
import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { WhoAmI } from '../../shared/app/inspector/read-model.ts';
import { AgentView } from './agent.tsx';
import { type ApiError, api, getToken, setToken, setUnauthorizedHandler } from './api.ts';
import { setAnnouncer } from './live.ts';
import { useRoute } from './router.ts';
import { SignIn } from './signin.tsx';
import { TaskView } from './task.tsx';
import { TasksView } from './tasks.tsx';

type Auth =
  | { kind: 'loading' }
  | { kind: 'ok'; me: WhoAmI }
  | { kind: 'signin'; message?: string }
  | { kind: 'forbidden'; message: string }
  | { kind: 'error'; message: string };

function App() {
  const route = useRoute();
  const [auth, setAuth] = useState<Auth>({ kind: 'loading' });
  const [live, setLive] = useState('');
  const [hasToken, setHasToken] = useState(() => !!getToken());

  const check = useCallback(async () => {
    try {
      const me = await api.whoami();
      setAuth({ kind: 'ok', me });
    } catch (e) {
      const err = e as ApiError;
      if (err.status === 401)
        setAuth({ kind: 'signin', ...(getToken() ? { message: `Not signed in: ${err.message}` } : {}) });
      else if (err.status === 403) setAuth({ kind: 'forbidden', message: err.message });
      else setAuth({ kind: 'error', message: err.message });
    }
  }, []);

  useEffect(() => {
    setAnnouncer((text) => {
      // the same text twice in a row is announced again
      setLive('');
      requestAnimationFrame(() => setLive(text));
    });
    setUnauthorizedHandler(() =>
      setAuth((a) => (a.kind === 'ok' ? { kind: 'signin', message: 'The hub refused the credentials' } : a)),
    );
    void check();
  }, [check]);

  const signOut = () => {
    setToken(null);
    setHasToken(false);
    setAuth({ kind: 'loading' });
    void check();
  };

  useEffect(() => {
    const titles = { tasks: 'Tasks', task: 'Task', agent: 'Agent' } as const;
    document.title = `${titles[route.view]} · Synapse inspector`;
  }, [route.view]);

  let body: preact.ComponentChildren;
  switch (auth.kind) {
    case 'loading':
      body = <p class="muted">Loading…</p>;
      break;
    case 'signin':
      body = (
        <SignIn
          {...(auth.message ? { message: auth.message } : {})}
          onToken={(t) => {
            setToken(t);
            setHasToken(true);
            setAuth({ kind: 'loading' });
            void check();
          }}
        />
      );
      break;
    case 'forbidden':
      body = (
        <section class="card">
          <h1>Not allowed</h1>
          <p class="error" role="alert">
            {auth.message}
          </p>
        </section>
      );
      break;
    case 'error':
      body = (
        <section class="card">
          <h1>The hub did not answer</h1>
          <p class="error" role="alert">
            {auth.message}
          </p>
          <button type="button" onClick={() => void check()}>
            Try again
          </button>
        </section>
      );
      break;
    case 'ok':
      body =
        route.view === 'task' ? (
          <TaskView key={route.id} id={route.id} />
        ) : route.view === 'agent' ? (
          <AgentView />
        ) : (
          <TasksView />
        );
      break;
  }

  return (
    <>
      <button
        type="button"
        class="skip"
        onClick={() => {
          // the hash is the route: a skip link would change it, so the focus is moved instead
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </button>
      <header class="top">
        <div class="brand">
          <span class="logo" aria-hidden="true">
            ◆
          </span>{' '}
          Synapse inspector
        </div>
        <nav aria-label="Main">
          <a href="#/tasks" aria-current={route.view !== 'agent' ? 'page' : undefined}>
            Tasks
          </a>
          <a href="#/agent" aria-current={route.view === 'agent' ? 'page' : undefined}>
            Agent
          </a>
        </nav>
        <div class="who">
          {auth.kind === 'ok' ? (
            <span data-testid="whoami" title={`rights: ${auth.me.rights.join(', ') || 'none'}`}>
              <span class="muted">tenant</span> {auth.me.tenant} <span class="muted">· principal</span>{' '}
              {auth.me.principal} <span class="scheme">{auth.me.scheme}</span>
            </span>
          ) : null}
          {hasToken ? (
            <button type="button" class="small" onClick={signOut}>
              Sign out
            </button>
          ) : null}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {body}
      </main>
      <div class="sr-only" role="status" aria-live="polite" data-testid="live-status">
        {live}
      </div>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
