// A schema migration: plain SQL, applied in one transaction, after which
// `PRAGMA user_version` = version. Versions are consecutive from 1.
export interface Migration {
  version: number;
  name: string;
  up: string;
}
