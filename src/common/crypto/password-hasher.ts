import bcrypt from 'bcrypt';

/** bcrypt for human passwords at the configured cost (DESIGN §5: bcrypt is for human passwords only). */
export class PasswordHasher {
  constructor(readonly cost: number) {}

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.cost);
  }

  verify(password: string, hash: string): Promise<boolean> {
    return bcrypt.compare(password, hash);
  }
}
