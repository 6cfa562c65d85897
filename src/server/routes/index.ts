/**
 * Every route module of the embedded server, in match order. A new area adds one file in
 * this folder exporting a `RouteModule` and one line here.
 */
import { metaModule } from './meta.js';
import type { RouteModule } from './module.js';

export const routeModules: readonly RouteModule[] = [metaModule];
