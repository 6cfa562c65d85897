/**
 * The port a listening HTTP server bound. `server.address()` is an AddressInfo once it listens
 * on TCP; a string (a pipe) or null (not listening) is a bug in the caller's start-up order.
 */
import type { AddressInfo } from 'node:net';

export const portOf = (address: AddressInfo | string | null): number => {
  if (address === null || typeof address === 'string') throw new Error(`the HTTP server is not listening on a TCP port (address: ${String(address)})`);
  return address.port;
};
