/**
 * The local gateway's routes: API Gateway resource paths (`{name}` and a final `{name+}` path
 * parameters) compiled to patterns, ranked as API Gateway ranks them.
 */

export interface GatewayRoute<F extends string = string> {
  method: string;
  /** API Gateway resource path; `{name}` and a final `{name+}` are path parameters. */
  path: string;
  function: F;
  /** STREAM transfer mode: the integration timeout is streamTimeoutMs and responses are streamed. */
  stream?: boolean;
  /** No authorizer on this route (shared/contracts/routes.ts). */
  public?: true;
}

export interface CompiledRoute<F extends string> {
  route: GatewayRoute<F>;
  pattern: RegExp;
  params: string[];
  /** Static routes win over parameterised ones, greedy ones come last (as in API Gateway). */
  rank: number;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const compile = <F extends string>(route: GatewayRoute<F>): CompiledRoute<F> => {
  const params: string[] = [];
  let rank = 0;
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([^}+]+)(\+)?\}$/.exec(segment);
      if (!param) return escapeRegExp(segment);
      params.push(param[1]!);
      rank += param[2] ? 1000 : 1;
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), params, rank };
};

/** The routes compiled, the most specific first. */
export const compileRoutes = <F extends string>(routes: readonly GatewayRoute<F>[]): CompiledRoute<F>[] =>
  routes.map(compile).sort((a, b) => a.rank - b.rank);

export type RouteLookup<F extends string> =
  | { found: CompiledRoute<F> }
  | { found?: undefined; status: 404 }
  | { found?: undefined; status: 405; allow: string };

/** The route taking `method` on `path`; 404 when no route has the path, 405 when none takes the method. */
export const findRoute = <F extends string>(
  routes: readonly CompiledRoute<F>[],
  path: string,
  method: string,
): RouteLookup<F> => {
  const onPath = routes.filter((r) => r.pattern.test(path));
  if (onPath.length === 0) return { status: 404 };
  const match = onPath.find((r) => r.route.method === method || r.route.method === 'ANY');
  if (!match) return { status: 405, allow: [...new Set(onPath.map((r) => r.route.method))].join(', ') };
  return { found: match };
};

/** The path parameters of `path` on its route (null without any); throws on a malformed percent-escape. */
export const pathParametersOf = <F extends string>(
  match: CompiledRoute<F>,
  path: string,
): Record<string, string> | null => {
  const groups = match.pattern.exec(path)!.slice(1);
  return match.params.length
    ? Object.fromEntries(match.params.map((name, i) => [name, decodeURIComponent(groups[i]!)]))
    : null;
};
