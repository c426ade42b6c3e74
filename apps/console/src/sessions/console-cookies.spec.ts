import { consoleCookies, consoleSetCookie } from './console-cookies';

describe('the console cookies', () => {
  it('over https: __Host- names, Secure, Path=/, HttpOnly, SameSite=Lax, no Domain', () => {
    const cookies = consoleCookies('https://console.example.com');
    for (const name of [cookies.session, cookies.formToken]) {
      const header = consoleSetCookie(cookies, name, 'value', 60);
      expect(header).toMatch(/^__Host-console_(session|csrf)=value;/);
      expect(header.split('; ').sort()).toEqual([`${name}=value`, 'HttpOnly', 'Max-Age=60', 'Path=/', 'SameSite=Lax', 'Secure'].sort());
    }
  });

  it('over http (a local console): plain names, not Secure', () => {
    const cookies = consoleCookies('http://127.0.0.1:4002');
    expect(consoleSetCookie(cookies, cookies.formToken, 'value', 60)).toBe('console_csrf=value; Max-Age=60; Path=/; HttpOnly; SameSite=Lax');
  });
});
