/**
 * Every route module of the embedded server, in match order. A new area adds one file in
 * this folder exporting a `RouteModule` and one line here. Static segments must come before
 * a parameter in the same position: `memories/list` and `memories/recall` are matched
 * before `memories/{memory_id}` because recall and memories list come first below.
 */
import { bankProfileModule } from './bankProfile.js';
import { capabilitiesModule } from './capabilities.js';
import { banksModule } from './banks.js';
import { directivesModule } from './directives.js';
import { documentsModule } from './documents.js';
import { entitiesModule } from './entities.js';
import { knowledgeModule } from './knowledge.js';
import { memoriesModule } from './memories.js';
import { mentalModelsModule } from './mentalModels.js';
import { metaModule } from './meta.js';
import type { RouteModule } from './module.js';
import { operationsModule } from './operations.js';
import { recallModule } from './recall.js';
import { reflectModule } from './reflect.js';
import { retainModule } from './retain.js';
import { tagsModule } from './tags.js';

export const routeModules: readonly RouteModule[] = [
  metaModule,
  banksModule,
  retainModule,
  recallModule,
  memoriesModule,
  documentsModule,
  operationsModule,
  tagsModule,
  entitiesModule,
  capabilitiesModule,
  // server-features areas
  bankProfileModule,
  reflectModule,
  mentalModelsModule,
  knowledgeModule,
  directivesModule,
];
