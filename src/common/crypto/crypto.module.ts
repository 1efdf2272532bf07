import { Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { loadMasterKey } from './master-key.js';
import { SecretHasher } from './secret-hasher.js';
import { Encryptor } from './encryptor.js';
import { PasswordHasher } from './password-hasher.js';
import { PairwiseSubjects } from './pairwise-subjects.js';

const MASTER_KEY = Symbol('MASTER_KEY');

@Global()
@Module({
  providers: [
    { provide: MASTER_KEY, inject: [APP_CONFIG], useFactory: (config: AppConfig) => loadMasterKey(config) },
    { provide: SecretHasher, inject: [MASTER_KEY], useFactory: (key: Buffer) => new SecretHasher(key) },
    { provide: Encryptor, inject: [MASTER_KEY], useFactory: (key: Buffer) => new Encryptor(key) },
    { provide: PairwiseSubjects, inject: [SecretHasher], useFactory: (hasher: SecretHasher) => new PairwiseSubjects(hasher) },
    { provide: PasswordHasher, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new PasswordHasher(config.bcryptCost) },
  ],
  exports: [SecretHasher, Encryptor, PasswordHasher, PairwiseSubjects],
})
export class CryptoModule {}
