import { Module } from '@nestjs/common';

/** The console's pages come in their own slices; until then it serves health, readiness and metrics only. */
@Module({})
export class ConsoleModule {}
