/**
 * The starter mental models `agentUse` selects (contract 2.3): coding gives architecture,
 * conventions and decisions; conversation gives goals, people and context, preferences. Each
 * is a name, the question the server keeps answering, and tags. Applied by name: a model of
 * the same name already in the bank is left alone, so applying twice creates nothing new.
 */
export interface StarterModel {
  readonly name: string;
  readonly sourceQuery: string;
  readonly tags: readonly string[];
}

export type AgentUse = 'coding' | 'conversation';

export const STARTER_MODELS: Readonly<Record<AgentUse, readonly StarterModel[]>> = {
  coding: [
    {
      name: 'Architecture',
      sourceQuery: 'How is this project built: its main parts, how they depend on each other, and where each responsibility lives?',
      tags: ['starter:coding', 'topic:architecture'],
    },
    {
      name: 'Conventions',
      sourceQuery: 'Which conventions does this project follow: naming, style, testing, commits and review?',
      tags: ['starter:coding', 'topic:conventions'],
    },
    {
      name: 'Decisions',
      sourceQuery: 'Which decisions were made in this project, why, and what was rejected?',
      tags: ['starter:coding', 'topic:decisions'],
    },
  ],
  conversation: [
    {
      name: 'Goals',
      sourceQuery: 'What is the person working towards, and what has changed about it over time?',
      tags: ['starter:conversation', 'topic:goals'],
    },
    {
      name: 'People and context',
      sourceQuery: 'Who are the people the person mentions, how are they related, and what context matters about each?',
      tags: ['starter:conversation', 'topic:people'],
    },
    {
      name: 'Preferences',
      sourceQuery: 'What does the person prefer and avoid in everyday tasks, tools and ways of working?',
      tags: ['starter:conversation', 'topic:preferences'],
    },
  ],
};
