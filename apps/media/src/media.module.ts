import { Module } from '@nestjs/common';

/** Domain providers arrive with later issues; ServiceKitModule gives health, metrics and `media.rpc` (clock.offset). */
@Module({})
export class MediaModule {}
