import 'reflect-metadata';
import { Type } from 'class-transformer';
import { getMetadataStorage, IsIn, IsString, MaxLength, MetadataStorage, ValidateNested } from 'class-validator';
import { SendMessageDto } from '../public-api/send-message.dto';
import { validateBody } from './validate-body';
import { rememberValidationMetadatas } from './validation-metadata.patch';

class Inner {
  @IsString()
  name!: string;
}

class Base {
  @IsString()
  @MaxLength(5)
  code!: string;
}

class Derived extends Base {
  @IsIn(['a', 'b'])
  kind!: string;

  @IsString()
  @MaxLength(3)
  declare code: string;

  @ValidateNested()
  @Type(() => Inner)
  inner!: Inner;
}

/** A storage holding what the decorators above (and every imported DTO) registered, unpatched. */
function copyOfGlobalStorage(): MetadataStorage {
  const copy = new MetadataStorage();
  const from = getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, unknown[]>; constraintMetadatas: Map<unknown, unknown[]> };
  const to = copy as unknown as typeof from;
  for (const [target, list] of from.validationMetadatas) to.validationMetadatas.set(target, [...list]);
  for (const [target, list] of from.constraintMetadatas) to.constraintMetadatas.set(target, [...list]);
  return copy;
}

const OPTIONS: [string | undefined, boolean, boolean, string[] | undefined][] = [
  [undefined, false, false, undefined],
  ['', true, false, undefined],
  [undefined, false, true, ['admin']],
];

describe('rememberValidationMetadatas', () => {
  it("answers what class-validator's own lookup answers, for each class and options", () => {
    const original = copyOfGlobalStorage();
    const patched = copyOfGlobalStorage();
    rememberValidationMetadatas(patched);
    for (const target of [Base, Derived, Inner, SendMessageDto]) {
      for (const [schema, always, strict, groups] of OPTIONS) {
        const expected = original.getTargetValidationMetadatas(target, schema as string, always, strict, groups);
        for (let i = 0; i < 2; i++) {
          const got = patched.getTargetValidationMetadatas(target, schema as string, always, strict, groups);
          expect(got).toHaveLength(expected.length);
          got.forEach((metadata, at) => expect(metadata).toBe(expected[at]));
          expect(patched.groupByPropertyName(got)).toEqual(original.groupByPropertyName(expected));
        }
      }
    }
  });

  it('works a class out once per options, and again after metadata is added', () => {
    const storage = copyOfGlobalStorage();
    const lookup = jest.spyOn(storage, 'getTargetValidationMetadatas');
    const grouping = jest.spyOn(storage, 'groupByPropertyName');
    rememberValidationMetadatas(storage);
    for (let i = 0; i < 3; i++) storage.groupByPropertyName(storage.getTargetValidationMetadatas(Derived, undefined as unknown as string, false, false));
    expect([lookup.mock.calls.length, grouping.mock.calls.length]).toEqual([1, 1]);

    const before = storage.getTargetValidationMetadatas(Derived, undefined as unknown as string, false, false);
    const extra = { ...before[0], propertyName: 'added' } as (typeof before)[number];
    storage.addValidationMetadata(extra);
    const after = storage.getTargetValidationMetadatas(Derived, undefined as unknown as string, false, false);
    expect(lookup.mock.calls.length).toBe(2);
    expect(after).toContain(extra);
  });

  it('validation gives the same answers with the patch on the global storage', () => {
    const answers = () =>
      [
        { code: 'abc', kind: 'a', inner: { name: 'x' } },
        { code: 'abcd', kind: 'c', inner: { name: 1 }, extra: true },
        { to: { appUserId: 'u_0123456789abcdefghijkl' }, type: 'text', text: 'hi' },
        { to: { appUserId: 'nope', email: 'a@b.test' }, type: 'text', text: 'hi', mediaId: 'm' },
      ].map((body, i) => {
        try {
          if (i < 2) validateBody(Derived, body);
          else validateBody(SendMessageDto, body);
          return 'valid';
        } catch (error) {
          return (error as { details?: unknown }).details;
        }
      });
    const unpatched = answers();
    expect(unpatched.filter((answer) => answer !== 'valid')).toHaveLength(2);
    rememberValidationMetadatas();
    expect(answers()).toEqual(unpatched);
    expect(answers()).toEqual(unpatched);
  });
});
