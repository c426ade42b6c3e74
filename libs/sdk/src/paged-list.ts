/** A page of a cursor-paginated list: `nextCursor` is null on the last page. */
export interface CursorPage<Item> {
  data: Item[];
  nextCursor: string | null;
}

/**
 * The answer of a `list` call, usable two ways (Stripe's pattern):
 * - `await client.consents.list(params)` gives the first page (`{data, nextCursor}`);
 * - `for await (const consent of client.consents.list(params))` walks every item of every page,
 *   following `nextCursor` and fetching each page only when the previous one is used up.
 *
 * Nothing is fetched until it is awaited or iterated; both share the first page's request.
 */
export class PagedList<Item, Page extends CursorPage<Item> = CursorPage<Item>> implements PromiseLike<Page>, AsyncIterable<Item> {
  private first: Promise<Page> | undefined;

  /** `fetchPage(undefined)` fetches the first page, `fetchPage(cursor)` the following ones. */
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page>) {}

  then<R1 = Page, R2 = never>(
    onfulfilled?: ((page: Page) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page | R> {
    return this.firstPage().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<Page> {
    return this.firstPage().finally(onfinally);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    let page = await this.firstPage();
    const seen = new Set<string>();
    for (;;) {
      yield* page.data;
      const cursor = page.nextCursor;
      // A cursor seen before would loop forever; stop instead of hammering the API.
      if (!cursor || seen.has(cursor)) return;
      seen.add(cursor);
      page = await this.fetchPage(cursor);
    }
  }

  /** Every item of every page, up to `limit` items (required, so a huge list cannot exhaust memory by accident). */
  async toArray(options: { limit: number }): Promise<Item[]> {
    const items: Item[] = [];
    if (options.limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= options.limit) break;
    }
    return items;
  }

  private firstPage(): Promise<Page> {
    this.first ??= this.fetchPage(undefined);
    return this.first;
  }
}
