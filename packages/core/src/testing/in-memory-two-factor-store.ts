import type { TenantScope } from '../domain/environment';
import type { TotpEnrollment } from '../domain/two-factor';
import type { TwoFactorStore } from '../ports/two-factor-store';

const keyOf = (scope: TenantScope, userId: string) => `${scope.projectId}\u0000${scope.environment}\u0000${userId}`;

/** Reference TwoFactorStore in process memory; no await inside a step, so each step is atomic. */
export class InMemoryTwoFactorStore implements TwoFactorStore {
  private readonly enrollments = new Map<string, TotpEnrollment>();
  private readonly recoveryCodes = new Map<string, { hash: string; usedAt: Date | null }[]>();

  async findTotp(scope: TenantScope, userId: string): Promise<TotpEnrollment | null> {
    const enrollment = this.enrollments.get(keyOf(scope, userId));
    return enrollment ? structuredClone(enrollment) : null;
  }

  async beginTotp(scope: TenantScope, userId: string, setup: { sealedSecret: string; createdAt: Date }): Promise<boolean> {
    const key = keyOf(scope, userId);
    if (this.enrollments.get(key)?.status === 'enabled') return false;
    this.enrollments.set(key, {
      userId,
      sealedSecret: setup.sealedSecret,
      status: 'pending',
      lastUsedStep: null,
      createdAt: setup.createdAt,
      enabledAt: null,
    });
    return true;
  }

  async enableTotp(scope: TenantScope, userId: string, enable: { sealedSecret: string; usedStep: number; recoveryCodeHashes: string[]; enabledAt: Date }): Promise<boolean> {
    const key = keyOf(scope, userId);
    const enrollment = this.enrollments.get(key);
    if (enrollment?.status !== 'pending' || enrollment.sealedSecret !== enable.sealedSecret) return false;
    Object.assign(enrollment, { status: 'enabled', lastUsedStep: enable.usedStep, enabledAt: enable.enabledAt });
    this.recoveryCodes.set(
      key,
      enable.recoveryCodeHashes.map((hash) => ({ hash, usedAt: null })),
    );
    return true;
  }

  async useTotpStep(scope: TenantScope, userId: string, step: number): Promise<boolean> {
    const enrollment = this.enrollments.get(keyOf(scope, userId));
    if (enrollment?.status !== 'enabled') return false;
    if (enrollment.lastUsedStep !== null && step <= enrollment.lastUsedStep) return false;
    enrollment.lastUsedStep = step;
    return true;
  }

  async useRecoveryCode(scope: TenantScope, userId: string, codeHash: string, at: Date): Promise<boolean> {
    const code = this.recoveryCodes.get(keyOf(scope, userId))?.find((c) => c.hash === codeHash && c.usedAt === null);
    if (!code) return false;
    code.usedAt = at;
    return true;
  }

  async countRecoveryCodes(scope: TenantScope, userId: string): Promise<number> {
    return (this.recoveryCodes.get(keyOf(scope, userId)) ?? []).filter((c) => c.usedAt === null).length;
  }

  async removeTotp(scope: TenantScope, userId: string): Promise<boolean> {
    const key = keyOf(scope, userId);
    this.recoveryCodes.delete(key);
    return this.enrollments.delete(key);
  }
}
