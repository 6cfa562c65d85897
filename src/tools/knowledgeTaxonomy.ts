/** The fixed coding taxonomy memory_knowledge seed_taxonomy creates: five pages, idempotent by name. */
import type { MentalModelTrigger } from '../effects/ports/memoryServer.js';

export interface TaxonomyPage {
  readonly name: string;
  readonly sourceQuery: string;
  readonly tag: string;
}

export const TAXONOMY_PAGES: readonly TaxonomyPage[] = [
  {
    name: 'Component map',
    tag: 'knowledge:component',
    sourceQuery: 'What are the main components, modules and services of this project, what is each responsible for, and how do they depend on each other?',
  },
  {
    name: 'Core concepts',
    tag: 'knowledge:concept',
    sourceQuery: 'What domain concepts, terms and data models does this project use, and what does each mean here?',
  },
  {
    name: 'Conventions and patterns',
    tag: 'knowledge:convention',
    sourceQuery: 'Which coding conventions, patterns, tools and workflows does this project follow, and which does it avoid?',
  },
  {
    name: 'Key decisions and rationale',
    tag: 'knowledge:decision',
    sourceQuery: 'Which technical decisions were settled in this project, what were the alternatives, and why was each choice made?',
  },
  {
    name: 'Initiatives and enhancements',
    tag: 'knowledge:feature-work',
    sourceQuery: 'Which features, initiatives and enhancements are in progress or were completed recently, and what is their state?',
  },
];

export const TAXONOMY_MAX_TOKENS = 4096;

export const taxonomyTrigger: MentalModelTrigger = {
  mode: 'delta',
  fact_types: ['world', 'experience', 'observation'],
  exclude_mental_models: true,
  refresh_after_consolidation: true,
};
