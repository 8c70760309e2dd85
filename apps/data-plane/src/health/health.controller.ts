import { Controller, Get } from '@nestjs/common';

export interface HealthRecord {
  status: 'ok';
  service: 'data-plane';
  /** ISO 8601. */
  timestamp: string;
}

/** Spec 2.7 / 4.5: liveness of this process, no key needed, no database touched. */
@Controller('health')
export class HealthController {
  @Get()
  health(): HealthRecord {
    return { status: 'ok', service: 'data-plane', timestamp: new Date().toISOString() };
  }
}
