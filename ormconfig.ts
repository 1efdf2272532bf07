// Data source for the TypeORM CLI (`npm run migration:run`), built from the same environment as the service.
import 'reflect-metadata';
import { loadConfig } from './src/common/config/config.js';
import { createDataSource } from './src/common/database/data-source.js';
import { ENTITIES } from './src/entities.js';

export default createDataSource(loadConfig().database, ENTITIES);
