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

export const compile = <F extends string>(route: GatewayRoute<F>): CompiledRoute<F> => {
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
