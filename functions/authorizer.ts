/**
 * The API Gateway Lambda authorizer (REQUEST type, identity source the Authorization header, results
 * cached by API Gateway for `-c authCacheTtlSeconds`, 300 s by default): verifies the bearer JWT or API key, and answers
 *   - Allow on every method of the stage (a cached verdict serves any route), with the principal in
 *     the context (shared/adapters/lambda/auth-context.ts reads it) and its tenant's usage key, which the usage plan
 *     throttles by;
 *   - `Unauthorized` (API Gateway's 401, with the hub's WWW-Authenticate: shared/contracts/gateway-responses.ts)
 *     for credentials that do not verify;
 *   - Deny (403) for valid credentials of an unregistered tenant.
 * The credential itself is never logged.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { contextOfPrincipal } from '../shared/adapters/lambda/auth-context.ts';
import { lowerCaseHeaders } from '../shared/adapters/lambda/http.ts';
import { authenticator } from '../shared/composition-roots/authorizer.ts';
import { AuthError } from '../shared/domain/errors.ts';
import { logger, withObservability } from '../shared/observability/index.ts';

/** `arn:…:execute-api:<region>:<account>:<api>/<stage>/*`: the verdict is cached for the whole stage. */
const stageWide = (methodArn: string): string => {
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*`;
};

const policy = (effect: 'Allow' | 'Deny', methodArn: string) => ({
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: stageWide(methodArn) }],
});

export const authorizerHandler = async (
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> => {
  const authorization = lowerCaseHeaders(event.headers).authorization;
  try {
    const { principal, usageKey } = await authenticator().authenticate(authorization);
    logger.info('authorized', { tenant: principal.tenant, owner: principal.owner, scheme: principal.scheme });
    return {
      principalId: `${principal.tenant}/${principal.owner}`,
      policyDocument: policy('Allow', event.methodArn),
      context: { ...contextOfPrincipal(principal) },
      usageIdentifierKey: usageKey,
    };
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    logger.info('refused', { failure: e.code, reason: e.message });
    // API Gateway's own convention: this exact message is its 401
    if (e.code === 'unauthenticated') throw new Error('Unauthorized');
    return {
      principalId: 'denied',
      policyDocument: policy('Deny', event.methodArn),
      context: { reason: e.message },
    };
  }
};

export const handler = withObservability(authorizerHandler, { functionName: 'authorizer', logEvent: false });
