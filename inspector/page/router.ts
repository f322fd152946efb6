/** Hash routing: `#/tasks` (the default), `#/tasks/<taskId>`, `#/agent`. */
import { useEffect, useState } from 'preact/hooks';

export type Route = { view: 'tasks' } | { view: 'task'; id: string } | { view: 'agent' };

export function parseHash(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '/agent') return { view: 'agent' };
  const m = /^\/tasks\/(.+)$/.exec(path);
  if (m?.[1]) {
    try {
      return { view: 'task', id: decodeURIComponent(m[1]) };
    } catch {
      return { view: 'tasks' };
    }
  }
  return { view: 'tasks' };
}

export const taskHref = (id: string): string => `#/tasks/${encodeURIComponent(id)}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
