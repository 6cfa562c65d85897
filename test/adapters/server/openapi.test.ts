/**
 * The wire codecs against the Hindsight 0.9.1 OpenAPI: a codec never requires a field the
 * schema lets the server omit (that would turn a good answer into badResponse), and every
 * field a codec names exists in the schema (no typos), apart from listed later additions.
 */
import { readFile } from 'node:fs/promises';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import * as port from '../../../src/effects/ports/memoryServer.js';

interface Schema {
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, unknown>>;
}

const spec = JSON.parse(await readFile(new URL('../../../fixtures/hindsight/openapi.json', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};

/** Required and optional keys of an object codec built from t.type / t.partial / t.intersection. */
const keysOf = (codec: t.Mixed): { required: string[]; optional: string[] } => {
  if (codec instanceof t.RecursiveType) return keysOf((codec as t.RecursiveType<t.Mixed>).type);
  if (codec instanceof t.InterfaceType) return { required: Object.keys(codec.props as object), optional: [] };
  if (codec instanceof t.PartialType) return { required: [], optional: Object.keys(codec.props as object) };
  if (codec instanceof t.IntersectionType) {
    const parts = (codec.types as t.Mixed[]).map(keysOf);
    return { required: parts.flatMap((p) => p.required), optional: parts.flatMap((p) => p.optional) };
  }
  throw new Error(`not an object codec: ${codec.name}`);
};

/**
 * Optional fields this client reads that the 0.9.1 schema does not list: 0.10 additions, the
 * embedded marker, `structured_content` (served on a full mental-model read, reference 1.8),
 * and `text_length`, shared with the document list item.
 */
const LATER: Readonly<Record<string, readonly string[]>> = {
  BankListResponse: ['total', 'limit', 'offset'],
  MentalModelListResponse: ['total', 'limit', 'offset'],
  FeaturesInfo: ['embedded'],
  MentalModelResponse: ['structured_content'],
  DocumentResponse: ['text_length'],
};

const pairs: readonly (readonly [string, t.Mixed])[] = [
  ['RecallResponse', port.RecallResult],
  ['RecallResult', port.RecallHit],
  ['RecallScores', port.RecallScores],
  ['ChunkData', port.ChunkData],
  ['RetainResponse', port.RetainResult],
  ['ReflectResponse', port.ReflectResult],
  ['ReflectFact', port.ReflectFact],
  ['VersionResponse', port.VersionInfo],
  ['FeaturesInfo', port.FeatureFlags],
  ['BankListResponse', port.BankList],
  ['BankListItem', port.BankSummary],
  ['BankProfileResponse', port.BankProfile],
  ['BankConfigResponse', port.BankConfig],
  ['BankStatsResponse', port.BankStats],
  ['OperationStatusResponse', port.OperationStatus],
  ['MentalModelResponse', port.MentalModel],
  ['MentalModelListResponse', port.MentalModelList],
  ['CreateMentalModelResponse', port.CreateMentalModelResult],
  ['AsyncOperationSubmitResponse', port.AsyncSubmission],
  ['KnowledgeNode', port.KnowledgeNode],
  ['KnowledgeTreeResponse', port.KnowledgeTree],
  ['KnowledgePageResponse', port.KnowledgePage],
  ['KnowledgePageSearchResponse', port.KnowledgeSearchResult],
  ['CreateKnowledgePageResponse', port.CreatePageResult],
  ['KnowledgePageBundleResponse', port.KnowledgeExport],
  ['ListDocumentsResponse', port.DocumentList],
  ['DocumentResponse', port.DocumentDetail],
  ['ListTagsResponse', port.TagList],
  ['RetainRequest', port.RetainRequest],
  ['MemoryItem', port.RetainItem],
  ['RecallRequest', port.RecallRequest],
  ['ReflectRequest', port.ReflectRequest],
  ['CreateMentalModelRequest', port.CreateMentalModelRequest],
  ['UpdateMentalModelRequest', port.UpdateMentalModelRequest],
  ['CreatePageRequest', port.CreatePageRequest],
  ['CreateFolderRequest', port.CreateFolderRequest],
  ['UpdateNodeRequest', port.UpdateNodeRequest],
];

describe('wire codecs match the 0.9.1 OpenAPI', () => {
  it.each(pairs)('%s', (schemaName, codec) => {
    const schema = spec.components.schemas[schemaName];
    expect(schema, `schema ${schemaName}`).toBeDefined();
    const { required, optional } = keysOf(codec);
    const isRequest = schemaName.endsWith('Request') || schemaName === 'MemoryItem';
    const schemaRequired = schema?.required ?? [];
    if (isRequest) {
      // A request codec must demand every field the server demands.
      expect(schemaRequired.filter((key) => !required.includes(key))).toEqual([]);
    } else {
      expect(required.filter((key) => !schemaRequired.includes(key))).toEqual([]);
    }
    const known = new Set([...Object.keys(schema?.properties ?? {}), ...(LATER[schemaName] ?? [])]);
    expect([...required, ...optional].filter((key) => !known.has(key))).toEqual([]);
  });
});
