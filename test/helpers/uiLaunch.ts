/**
 * Opens the memory browser's launch address the way its page does (security.ts): the address
 * carries the token after `#`, which never reaches the server; the page's shell is fetched
 * without it, and every API call and event stream sends it as the `x-agent-memory-token` header.
 */

export interface Launched {
  /** The shell's answer (200 when the address is the memory browser's). */
  readonly page: Response;
  /** The launch token, read from the address's fragment. */
  readonly token: string;
  /** The header the page sends with every call. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The token in a launch address (`…/ui/#token=…`), or '' when it has none. */
export const launchToken = (launchUrl: string): string => /#(?:.*&)?token=([\w-]+)/.exec(launchUrl)?.[1] ?? '';

/** The address without its fragment: what a browser requests. */
export const withoutFragment = (launchUrl: string): string => launchUrl.replace(/#.*$/, '');

export const openLaunchAddress = async (launchUrl: string): Promise<Launched> => {
  const token = launchToken(launchUrl);
  const page = await fetch(withoutFragment(launchUrl));
  return { page, token, headers: { 'x-agent-memory-token': token } };
};
