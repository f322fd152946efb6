/**
 * The Synapse P2P protocol layer (docs/synapse-protocol.md): the envelope and the 17
 * `p2p:*` payloads, parsing with the protocol's error codes, message builders (ack, nack), HMAC
 * signatures and the peer configuration. Pure: no AWS, no I/O but the ports it is given.
 * The JSON Schema generator is in ./json-schema.ts (not re-exported: only a publisher needs it).
 */
export * from './bounds.ts';
export * from './build.ts';
export * from './compose.ts';
export * from './envelope.ts';
export * from './errors.ts';
export * from './parse.ts';
export * from './payloads.ts';
export * from './peers.ts';
export * from './signing.ts';
