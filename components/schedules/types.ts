// The JSON the Schedules page reads (lib/api/present.ts shapes, types only).
import type { ScheduleDetailJson, ScheduleJson } from '@/lib/api/present';

export type { ScheduleDetailJson, ScheduleJson };
export type ScheduleFireJson = ScheduleJson['recent'][number];

export interface SchedulesJson {
  schedules: ScheduleJson[];
}
