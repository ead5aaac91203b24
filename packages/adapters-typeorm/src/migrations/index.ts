import { InitialSchema1767225600000 } from './1767225600000-initial-schema';

/** Every migration, oldest first. Append new ones; never edit one that has shipped. */
export const migrations = [InitialSchema1767225600000];
