// The pool size an operator set for one host and role (PoolSettings): applied when that host's pool
// of that role starts again, so a size set in the dashboard survives a restart.

export interface PoolSetting {
  host: string;
  role: string;
  size: number;
  /** who set it (the audit actor's name) */
  updatedBy: string;
  updatedAt: Date;
}

export interface PoolSettingInput {
  host: string;
  role: string;
  size: number;
  updatedBy: string;
}
