import { InitialSchema1767225600000 } from './1767225600000-initial-schema';
import { EmailFlows1767312000000 } from './1767312000000-email-flows';
import { SecondFactor1767484800000 } from './1767484800000-second-factor';
import { SocialSignIn1767657600000 } from './1767657600000-social-sign-in';
import { OidcProvider1767916800000 } from './1767916800000-oidc-provider';
import { PurgeIndexes1768089600000 } from './1768089600000-purge-indexes';
import { KnownDevices1768348800000 } from './1768348800000-known-devices';
import { SessionLifetimeAndPasswordList1768262400000 } from './1768262400000-session-lifetime-and-password-list';
import { ProjectRateLimits1768435200000 } from './1768435200000-project-rate-limits';
import { AccountSelfService1768521600000 } from './1768521600000-account-self-service';
import { EmailVerification1768521700000 } from './1768521700000-email-verification';
import { SecurityEvents1768608000000 } from './1768608000000-security-events';
import { Webhooks1768608100000 } from './1768608100000-webhooks';
import { ActivityStats1768780800000 } from './1768780800000-activity-stats';
import { RefreshReuseNotice1768867200000 } from './1768867200000-refresh-reuse-notice';
import { ConsoleSignOuts1768867300000 } from './1768867300000-console-sign-outs';

/** Every migration, oldest first. Append new ones; never edit one that has shipped. */
export const migrations = [
  InitialSchema1767225600000,
  EmailFlows1767312000000,
  SecondFactor1767484800000,
  SocialSignIn1767657600000,
  OidcProvider1767916800000,
  PurgeIndexes1768089600000,
  SessionLifetimeAndPasswordList1768262400000,
  KnownDevices1768348800000,
  ProjectRateLimits1768435200000,
  AccountSelfService1768521600000,
  EmailVerification1768521700000,
  SecurityEvents1768608000000,
  Webhooks1768608100000,
  ActivityStats1768780800000,
  RefreshReuseNotice1768867200000,
  ConsoleSignOuts1768867300000,
];
