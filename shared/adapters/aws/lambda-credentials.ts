/**
 * The AWS SDK's default credential provider as the Lambda bundles get it. In
 * Lambda the credentials of the function's role are always in the
 * environment, so the default chain would stop at its first link (fromEnv)
 * anyway; its other links (SSO, profiles, STS web identity, container and
 * instance metadata: about 95 KB) would only be parsed at every cold start.
 * infra/bundling.ts aliases `@aws-sdk/credential-provider-node` to this file
 * for the bundles; unbundled code (npm start, the tests) keeps the real chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
