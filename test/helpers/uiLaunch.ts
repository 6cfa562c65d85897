/**
 * Opens the memory browser's launch address the way a browser does (security.ts): the address
 * with its token answers 303 to `/ui/` with the session cookie, and `/ui/` with that cookie is
 * the page. Node's fetch keeps no cookies, so the exchange is done by hand.
 */
import { expect } from 'vitest';

export interface Launched {
  /** The page's answer (200 when the launch succeeded). */
  readonly page: Response;
  /** `name=value` of the session cookie, to send as a `cookie` header. */
  readonly cookie: string;
  /** The whole `Set-Cookie` header. */
  readonly setCookie: string;
}

export const openLaunchAddress = async (launchUrl: string): Promise<Launched> => {
  const first = await fetch(launchUrl, { redirect: 'manual' });
  if (first.status !== 303) return { page: first, cookie: '', setCookie: '' };
  const setCookie = first.headers.get('set-cookie') ?? '';
  const location = first.headers.get('location') ?? '';
  expect(location).toBe('/ui/');
  const cookie = setCookie.split(';')[0] ?? '';
  const page = await fetch(new URL(location, launchUrl), { headers: { cookie } });
  return { page, cookie, setCookie };
};
