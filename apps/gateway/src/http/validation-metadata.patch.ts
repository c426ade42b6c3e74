import { getMetadataStorage, type MetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type TargetMetadatas = MetadataStorage['getTargetValidationMetadatas'];
type Grouped = ReturnType<MetadataStorage['groupByPropertyName']>;

/** Marks a storage already patched (the patch is applied once per process). */
const PATCHED = Symbol.for('platform.validationMetadatasRemembered');

/**
 * class-validator 0.14 works out a class's validation metadata afresh on every validation and for
 * every nested object: it filters the class's metadata, then tests the class against every class
 * that has any (`instanceof`, for inherited rules), and groups the result by property. The metadata
 * is written by decorators as classes load and never changes afterwards, so the answer for a class
 * and set of options is the same every time. Remembered here, per class and options, and forgotten
 * whenever metadata is added (a class loaded later). The arrays and groups handed out are the ones
 * class-validator built; its validator only reads them. Applied at start-up, before any validation.
 */
export function rememberValidationMetadatas(storage: MetadataStorage = getMetadataStorage()): void {
  const patched = storage as MetadataStorage & { [PATCHED]?: true };
  if (patched[PATCHED]) return;
  patched[PATCHED] = true;
  const targetMetadatas: TargetMetadatas = storage.getTargetValidationMetadatas.bind(storage);
  const groupByPropertyName = storage.groupByPropertyName.bind(storage);
  const addValidationMetadata = storage.addValidationMetadata.bind(storage);
  const addConstraintMetadata = storage.addConstraintMetadata.bind(storage);
  let remembered = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let groups = new WeakMap<ValidationMetadata[], Grouped>();
  const forget = () => {
    remembered = new Map();
    groups = new WeakMap();
  };

  storage.getTargetValidationMetadatas = (targetConstructor, targetSchema, always, strictGroups, groupNames) => {
    const key = `${targetSchema}\u0000${always}\u0000${strictGroups}\u0000${groupNames === undefined ? '' : JSON.stringify(groupNames)}`;
    let byOptions = remembered.get(targetConstructor);
    if (byOptions === undefined) remembered.set(targetConstructor, (byOptions = new Map()));
    let metadatas = byOptions.get(key);
    if (metadatas === undefined) byOptions.set(key, (metadatas = targetMetadatas(targetConstructor, targetSchema, always, strictGroups, groupNames)));
    return metadatas;
  };
  storage.groupByPropertyName = (metadatas) => {
    let grouped = groups.get(metadatas);
    if (grouped === undefined) groups.set(metadatas, (grouped = groupByPropertyName(metadatas)));
    return grouped;
  };
  storage.addValidationMetadata = (metadata) => {
    forget();
    addValidationMetadata(metadata);
  };
  storage.addConstraintMetadata = (metadata) => {
    forget();
    addConstraintMetadata(metadata);
  };
}
