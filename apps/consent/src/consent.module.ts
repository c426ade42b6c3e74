import { Module } from '@nestjs/common';

/** Domain providers arrive with later issues; ServiceKitModule gives health, metrics and `consent.rpc` (clock.offset). */
@Module({})
export class ConsentModule {}
