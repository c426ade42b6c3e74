import { stringifySetCookie } from 'cookie';

/** The names and flag of the console's two cookies (the session, the pre-session form token). */
export interface ConsoleCookies {
  secure: boolean;
  session: string;
  formToken: string;
}

/**
 * Where the console is served over https (always in production, CONSOLE_URL must be https there)
 * its cookies are Secure and named `__Host-`: a browser then takes them only from this host, with
 * Path=/ and no Domain, so no sibling host (another subdomain) can set or shadow them. A local
 * console over http keeps plain names: browsers refuse a Secure cookie over http, and a __Host-
 * cookie without Secure.
 */
export function consoleCookies(consoleUrl: string): ConsoleCookies {
  const secure = consoleUrl.startsWith('https://');
  const prefix = secure ? '__Host-' : '';
  return { secure, session: `${prefix}console_session`, formToken: `${prefix}console_csrf` };
}

/** A Set-Cookie header of the console: HttpOnly, SameSite=Lax, Path=/, never a Domain. */
export function consoleSetCookie(cookies: ConsoleCookies, name: string, value: string, maxAgeSeconds: number): string {
  return stringifySetCookie({ name, value, httpOnly: true, sameSite: 'lax', path: '/', maxAge: Math.max(0, maxAgeSeconds), secure: cookies.secure });
}
