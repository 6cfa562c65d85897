/**
 * Knowledge base (0.9.0+): folders and pages as tree nodes; a page is backed by a mental
 * model that holds its source query, tags and content. Request codecs, the stored node,
 * tree assembly, subtree collection and the sibling-name rule of reference 1.9.
 */
import * as t from 'io-ts';
import { nullable } from '../../codecs/codecs.js';
import { TriggerInput } from './trigger.js';


export const KNOWLEDGE_KIND = 'knowledge_node';
export const PAGE_DEFAULT_MAX_TOKENS = 4096;

export const CreateFolderBody = t.intersection([t.type({ name: t.string }), t.partial({ parent_id: nullable(t.string) })]);
export type CreateFolderBody = t.TypeOf<typeof CreateFolderBody>;

export const CreatePageBody = t.intersection([
  t.type({ name: t.string, source_query: t.string }),
  t.partial({
    parent_id: nullable(t.string),
    tags: nullable(t.array(t.string)),
    max_tokens: nullable(t.number),
    trigger: nullable(TriggerInput),
  }),
]);
export type CreatePageBody = t.TypeOf<typeof CreatePageBody>;

export const UpdateNodeBody = t.partial({
  name: nullable(t.string),
  parent_id: nullable(t.string),
  source_query: nullable(t.string),
  tags: nullable(t.array(t.string)),
  max_tokens: nullable(t.number),
});
export type UpdateNodeBody = t.TypeOf<typeof UpdateNodeBody>;

export const KnowledgeNodeRecord = t.intersection([
  t.type({
    id: t.string,
    kind: t.keyof({ folder: null, page: null }),
    name: t.string,
    parent_id: t.union([t.string, t.null]),
    managed: t.boolean,
    sort_order: t.number,
    created_at: t.string,
    updated_at: t.string,
  }),
  t.partial({ mental_model_id: t.string }),
]);
export type KnowledgeNodeRecord = t.TypeOf<typeof KnowledgeNodeRecord>;

/** What a page node shows of its mental model. */
export interface PageView {
  readonly description: string;
  readonly tags: readonly string[];
  readonly timestamp: string | null;
  readonly isStale: boolean;
}

export interface KnowledgeNodeOut {
  id: string;
  kind: 'folder' | 'page';
  name: string;
  parent_id?: string;
  mental_model_id?: string;
  managed: boolean;
  description?: string;
  tags: string[];
  timestamp?: string;
  is_stale?: boolean;
  children: KnowledgeNodeOut[];
}

const compareSiblings = (a: KnowledgeNodeRecord, b: KnowledgeNodeRecord): number =>
  a.sort_order - b.sort_order || a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1);

/** One node as `KnowledgeNode` (children filled by the tree builder). */
export const nodeOut = (node: KnowledgeNodeRecord, page: PageView | undefined, withStale: boolean): KnowledgeNodeOut => {
  const out: KnowledgeNodeOut = { id: node.id, kind: node.kind, name: node.name, managed: node.managed, tags: [], children: [] };
  if (node.parent_id !== null) out.parent_id = node.parent_id;
  if (node.kind === 'folder') {
    out.timestamp = node.updated_at;
    return out;
  }
  if (node.mental_model_id !== undefined) out.mental_model_id = node.mental_model_id;
  if (page !== undefined) {
    out.description = page.description;
    out.tags = [...page.tags];
    if (page.timestamp !== null) out.timestamp = page.timestamp;
    if (withStale) out.is_stale = page.isStale;
  }
  return out;
};

/** The nested tree: roots and children ordered by sort order, then name. */
export const buildTree = (nodes: readonly KnowledgeNodeRecord[], pageOf: (node: KnowledgeNodeRecord) => PageView | undefined): KnowledgeNodeOut[] => {
  const children = new Map<string | null, KnowledgeNodeRecord[]>();
  const ids = new Set(nodes.map((n) => n.id));
  for (const node of nodes) {
    // A node whose parent vanished is shown at the root rather than lost.
    const parent = node.parent_id !== null && ids.has(node.parent_id) ? node.parent_id : null;
    const list = children.get(parent) ?? [];
    list.push(node);
    children.set(parent, list);
  }
  const build = (parent: string | null, seen: Set<string>): KnowledgeNodeOut[] =>
    [...(children.get(parent) ?? [])].sort(compareSiblings).flatMap((node) => {
      if (seen.has(node.id)) return [];
      seen.add(node.id);
      const out = nodeOut(node, node.kind === 'page' ? pageOf(node) : undefined, true);
      out.children = build(node.id, seen);
      return [out];
    });
  return build(null, new Set());
};

/** Ids of `rootId` and everything beneath it. */
export const subtreeIds = (nodes: readonly KnowledgeNodeRecord[], rootId: string): string[] => {
  const out: string[] = [];
  const stack = [rootId];
  const seen = new Set<string>();
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    for (const node of nodes) if (node.parent_id === id) stack.push(node.id);
  }
  return out;
};

/** True when a sibling page under `parentId` already has `name` (case-insensitive). */
export const pageNameTaken = (nodes: readonly KnowledgeNodeRecord[], parentId: string | null, name: string, exceptId?: string): boolean => {
  const lower = name.toLowerCase();
  return nodes.some((n) => n.kind === 'page' && n.parent_id === parentId && n.id !== exceptId && n.name.toLowerCase() === lower);
};

/** 400 message when `parentId` cannot hold children, else undefined. */
export const parentProblem = (nodes: readonly KnowledgeNodeRecord[], parentId: string | null | undefined): string | undefined => {
  if (parentId === null || parentId === undefined) return undefined;
  const parent = nodes.find((n) => n.id === parentId);
  if (parent === undefined) return `Parent folder '${parentId}' not found`;
  if (parent.kind !== 'folder') return `Parent '${parentId}' is not a folder`;
  return undefined;
};

/** True when moving `nodeId` under `parentId` would put it inside itself. */
export const wouldCycle = (nodes: readonly KnowledgeNodeRecord[], nodeId: string, parentId: string | null): boolean =>
  parentId !== null && subtreeIds(nodes, nodeId).includes(parentId);
