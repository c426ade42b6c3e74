/** A tiny method+path router whose misses the pipeline turns into 404 route_not_found before auth. */
export interface RouteMatch<R> {
  route: R;
  params: Record<string, string>;
}

export class RouteTable<R extends { method: string; path: string }> {
  private readonly compiled: { route: R; regex: RegExp; names: string[] }[] = [];

  constructor(routes: R[]) {
    for (const route of routes) {
      const names: string[] = [];
      const pattern = route.path.replace(/\/:([A-Za-z]+)/g, (_m, name: string) => {
        names.push(name);
        return '/([^/]+)';
      });
      this.compiled.push({ route, regex: new RegExp(`^${pattern}/?$`), names });
    }
  }

  match(method: string, path: string): RouteMatch<R> | null {
    for (const { route, regex, names } of this.compiled) {
      if (route.method !== method) continue;
      const m = regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      try {
        names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
      } catch {
        return null;
      }
      return { route, params };
    }
    return null;
  }
}
