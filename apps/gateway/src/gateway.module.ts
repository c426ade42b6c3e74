import { Module } from '@nestjs/common';

/** Admin port app: health, metrics and the admin API (mounted as middleware in main.ts). */
@Module({})
export class GatewayModule {}
