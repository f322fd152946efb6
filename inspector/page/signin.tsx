/** Sign-in: an API key or a bearer token, kept in sessionStorage for this tab only. */
import { useState } from 'preact/hooks';
import { Alert } from './alert.tsx';

export function SignIn({ onToken, message }: { onToken: (token: string) => void; message?: string }) {
  const [value, setValue] = useState('');
  return (
    <section class="card signin" aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in</h1>
      <p>
        The hub needs credentials. The token is kept in this tab's session storage only and is sent as{' '}
        <code>Authorization: Bearer …</code> with each request.
      </p>
      <Alert message={message} />
      <form
        data-testid="signin"
        onSubmit={(e) => {
          e.preventDefault();
          const t = value.trim();
          if (t) onToken(t);
        }}
      >
        <label for="token">API key or bearer token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </section>
  );
}
