import { createHash } from 'node:crypto';
import { DomainError } from '../../common/errors/domain-error.js';
import type { CredentialsService } from '../../users/credentials.service.js';
import type { UserEditService } from '../../users/user-edit.service.js';
import type { UsersService } from '../../users/users.service.js';
import type { PlannedMachine } from '../migration-plan.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { fingerprintOf } from '../migrated-objects.js';
import type { MigratedObjects } from '../migrated-objects.js';
import type { MigrationTally } from '../migration-tally.js';
import type { IssuedSecret } from './project-step.js';
import type { RunContext } from './user-step.js';

/**
 * Machine users (ZITADEL's service users) with their ids kept, so a token they asked for names the same `sub`; the
 * export holds no secrets or private keys, so each gets new credentials here (docs/migrating.md, "ZITADEL"). A machine
 * user changed at the source since is changed here (name, description, token type, userName).
 */
export class MachineStep {
  /** Secrets made here for service accounts moved in with `secrets: "rotate"`: returned once, never stored. */
  readonly issued: IssuedSecret[] = [];

  constructor(
    private readonly services: { users: UsersService; edits: UserEditService; credentials: CredentialsService },
    private readonly uow: UnitOfWork,
    private readonly objects: MigratedObjects,
    private readonly tally: MigrationTally,
    private readonly run: RunContext,
    private readonly targets: Map<string, string>,
  ) {}

  async apply(machines: PlannedMachine[]): Promise<void> {
    const mapped = await this.objects.find(
      'machine',
      machines.map((m) => m.sourceId),
    );
    const { editorUserId, orgId, dryRun } = this.run;
    for (const machine of machines) {
      const fingerprint = machineFingerprint(machine);
      const earlier = mapped.get(machine.sourceId);
      try {
        if (earlier?.fingerprint === fingerprint) this.tally.count('machine', 'unchanged');
        else if (earlier) {
          if (!dryRun) {
            await this.services.edits.change(editorUserId, orgId, earlier.targetId, {
              userName: machine.userName,
              name: machine.name,
              description: machine.description,
              accessTokenType: machine.accessTokenType,
            });
            // A secret rotated here stays; the source's new one is set only when it was kept.
            if (machine.secret !== undefined && !this.run.rotateSecrets)
              await this.services.credentials.setMachineSecret(editorUserId, orgId, earlier.targetId, machine.secret);
            await this.remember(machine.sourceId, earlier.targetId, fingerprint);
          }
          this.tally.count('machine', 'updated');
        } else {
          let targetId = machine.sourceId;
          if (!dryRun) {
            const input = {
              userName: machine.userName,
              name: machine.name,
              accessTokenType: machine.accessTokenType,
              ...(machine.description ? { description: machine.description } : {}),
            };
            const id = machine.id ?? (this.run.keepSubjects ? machine.sourceId : undefined);
            targetId = (await this.services.users.createMachine(editorUserId, orgId, input, id)).id;
            if (machine.secret !== undefined) {
              const rotate = this.run.rotateSecrets;
              const set = await this.services.credentials.setMachineSecret(editorUserId, orgId, targetId, rotate ? undefined : machine.secret);
              if (rotate) this.issued.push(set);
            }
            await this.remember(machine.sourceId, targetId, fingerprint);
          }
          this.tally.count('machine', 'created');
          this.targets.set(machine.sourceId, targetId);
          continue;
        }
        this.targets.set(machine.sourceId, earlier.targetId);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.tally.fail({ kind: 'machine', sourceId: machine.sourceId, message: error.message });
      }
    }
  }

  private remember(sourceId: string, targetId: string, fingerprint: string): Promise<void> {
    return this.uow.run((manager) => this.objects.remember(manager, 'machine', [{ sourceId, targetId, fingerprint }]));
  }
}

/** The machine as the source says it, its secret (if any) as a hash of a hash: the id map holds no secret. */
function machineFingerprint(machine: PlannedMachine): string {
  const { secret, ...rest } = machine;
  if (secret === undefined) return fingerprintOf(machine);
  const secretHash = createHash('sha256')
    .update(`secret:${createHash('sha256').update(secret).digest('hex')}`)
    .digest('hex');
  return fingerprintOf({ ...rest, secretHash });
}
